//! Structure simplification: walks the filtered tree once and turns it into the lines an agent
//! reads.
//!
//! Layout wrappers disappear; what remains is what carries meaning: landmark regions, headings,
//! paragraphs (blocks of inline text, with links inside them where they sit in the sentence),
//! lists, tables, named groups of controls, and one line per actionable element. Each mechanism
//! has its own file:
//!
//! * [`runs`] — text collapsing: consecutive inline text of a block becomes one run, so a
//!   sentence split over `<b>`, `<span>` and text nodes is one line;
//! * `blocks` — paragraphs, headings, images and the lines they become;
//! * `lists` and `tables` — list items with their markers, table rows with their cells;
//! * `groups` — container refinement (a group, toolbar, menu, form or dialog with nothing to
//!   act on inside is not a container: its content is hoisted into the surrounding flow) and
//!   name promotion (a named wrapper around a single unnamed control gives the control its name
//!   instead of adding a line of its own);
//! * `names` — the text inside an element, and label deduplication (a `<label>` whose text is
//!   the name of the control it labels is not repeated as text);
//! * [`regions`] — landmark regions, fallbacks recognised by id or class, and overlay detection;
//! * [`frames`] — other sites' frames, each a region of its own, and refused frames;
//! * `open_menus` — a hover menu shown open under its trigger's line.
//!
//! Landmark regions always stay. Nothing here decides visibility (the signal stage did) and
//! nothing is rendered here (the render stage does).

mod blocks;
pub mod frames;
mod groups;
mod lists;
mod names;
mod open_menus;
pub mod regions;
pub mod runs;
mod tables;

use std::collections::{HashMap, HashSet};

use super::element::{ElementFacts, facts, label_facts, says_all_of};
use super::signal::{DropReason, Signal};
use super::text::normalise;
use super::tree::{NodeId, NodeKind, PageTree};
use super::{ElementId, RegionId};
use blocks::{Block, BlockKind, heading_level};
use groups::is_group_role;
use lists::ListContext;
pub use regions::{Overlay, OverlayKind, overlay_of};
pub use runs::collapse_runs;

/// The simplified page.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// Regions, outermost first; lines refer to them by index.
    pub regions: Vec<Region>,
    /// Lines in reading order.
    pub lines: Vec<Line>,
    /// Actionable elements in reading order; lines and runs refer to them by index.
    pub elements: Vec<OutlineElement>,
    /// Container refinement: containers hoisted because nothing inside them can be acted on.
    pub hoisted_containers: usize,
    /// Name promotion: names given by a wrapper to the single control inside it.
    pub promoted_names: usize,
}

/// A landmark region (or a fallback found by its id or class).
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Short kind: `header`, `nav`, `main`, `footer`, `aside`, `search`, `form`, `section`,
    /// `dialog`.
    pub kind: &'static str,
    /// Accessible name, if any.
    pub label: String,
    /// Enclosing region.
    pub parent: Option<RegionId>,
    /// The element that makes the region.
    pub anchor: NodeId,
    /// The region's own element, when it can be acted on (a focusable landmark).
    pub element: Option<ElementId>,
    /// Set when the region is an overlay (a modal, a dialog, a dropdown).
    pub overlay: Option<Overlay>,
}

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The node the line stands for (its identity, with `ordinal`).
    pub anchor: NodeId,
    /// Lines from the same anchor are numbered from 0.
    pub ordinal: u32,
    /// Innermost region.
    pub region: Option<RegionId>,
    /// Nesting depth (lists, groups, content of a control).
    pub indent: u8,
    /// What the line says.
    pub content: LineContent,
}

/// What a line says.
#[derive(Debug, Clone, PartialEq)]
pub enum LineContent {
    /// A paragraph-like block.
    Text(Vec<Run>),
    /// A heading of level 1–6.
    Heading {
        /// Level.
        level: u8,
        /// Content.
        runs: Vec<Run>,
    },
    /// The first line of a list item.
    Item {
        /// `-` or `3.`.
        marker: String,
        /// Content.
        runs: Vec<Run>,
    },
    /// A table row.
    Row {
        /// Cells.
        cells: Vec<Vec<Run>>,
        /// A row of column headers.
        header: bool,
    },
    /// An actionable element on its own line.
    Element(ElementId),
    /// Something the agent should know about the whole page before reading it (`! …`), such
    /// as a page that hides itself while it loads.
    Note(String),
    /// The head of a named group of controls (`radiogroup "Colour":`).
    Group {
        /// Role.
        role: String,
        /// Name.
        name: String,
    },
    /// A frame whose URL is refused: its content is not read.
    RefusedFrame {
        /// Its origin.
        origin: String,
        /// Why it is not read.
        reason: String,
    },
}

impl LineContent {
    /// The elements the line shows (on its own line or inside its text), in order.
    pub fn elements(&self) -> Vec<ElementId> {
        let mut out = Vec::new();
        let mut from_runs = |runs: &[Run]| {
            out.extend(runs.iter().filter_map(|r| match r {
                Run::Link(i) | Run::Element(i) => Some(*i),
                _ => None,
            }))
        };
        match self {
            LineContent::Element(i) => return vec![*i],
            LineContent::Text(runs) | LineContent::Heading { runs, .. } | LineContent::Item { runs, .. } => {
                from_runs(runs)
            }
            LineContent::Row { cells, .. } => cells.iter().for_each(|c| from_runs(c)),
            LineContent::Group { .. } | LineContent::Note(_) | LineContent::RefusedFrame { .. } => {}
        }
        out
    }
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// Text (whitespace is collapsed when rendered).
    Text(String),
    /// Preformatted text (whitespace and line breaks kept).
    Pre(String),
    /// A link inside the text.
    Link(ElementId),
    /// Another actionable element inside a table cell.
    Element(ElementId),
    /// An image with alternative text.
    Image(String),
}

/// An actionable element of the outline.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineElement {
    /// Its node.
    pub node: NodeId,
    /// What the agent is told.
    pub facts: ElementFacts,
}

/// What the actionable stage decided about some elements beyond whether they get a ref.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Each visible label that stands for a hidden control, to that control.
    pub stands_for: HashMap<NodeId, NodeId>,
    /// Each element without a role of its own that wraps a control of the same name, to that
    /// control (whose role it takes).
    pub borrowed: HashMap<NodeId, NodeId>,
    /// List items and boxes that are targets as menus shown open (`hover_menus::open_menu`):
    /// named by their own words, not the words of the targets they show.
    pub open_menus: HashSet<NodeId>,
}

/// Builds the outline of `tree`.
pub fn build(tree: &PageTree, signal: &Signal, actionable: &[bool], sources: &Sources) -> Outline {
    let mut b = Builder {
        tree,
        signal,
        actionable,
        sources,
        out: Outline::default(),
        regions: Vec::new(),
        indent: 0,
        block: None,
        lists: Vec::new(),
        suppress_text: 0,
        in_cell: 0,
        ordinals: HashMap::new(),
        promoted: HashMap::new(),
    };
    b.visit(tree.root);
    b.flush();
    b.out
}

struct Builder<'t, 'a> {
    pub(super) tree: &'t PageTree<'a>,
    pub(super) signal: &'t Signal,
    pub(super) actionable: &'t [bool],
    pub(super) sources: &'t Sources,
    pub(super) out: Outline,
    pub(super) regions: Vec<RegionId>,
    pub(super) indent: u8,
    pub(super) block: Option<Block>,
    pub(super) lists: Vec<ListContext>,
    pub(super) suppress_text: u32,
    pub(super) in_cell: u32,
    pub(super) ordinals: HashMap<NodeId, u32>,
    pub(super) promoted: HashMap<NodeId, String>,
}

impl Builder<'_, '_> {
    pub(super) fn visit(&mut self, id: NodeId) {
        let node = &self.tree.nodes[id];
        match self.signal.dropped[id] {
            None => {}
            // An occluded container may still hold visible overflow; its parts are judged alone.
            Some(DropReason::Occluded) if node.kind == NodeKind::Element => return self.visit_children(id),
            // A dropped separator, or collapsed whitespace between inline elements, still
            // separates the words around it.
            Some(DropReason::TinyText) | Some(DropReason::Invisible)
                if node.kind == NodeKind::Text
                    && (self.signal.dropped[id] == Some(DropReason::TinyText) || node.text.trim().is_empty()) =>
            {
                if let Some(block) = self.block.as_mut() {
                    block.runs.push(Run::Text(" ".into()));
                }
                return;
            }
            Some(_) => return,
        }
        match node.kind {
            NodeKind::Text => self.text(id),
            NodeKind::Element => self.element(id),
            NodeKind::Document => self.visit_children(id),
            NodeKind::Other => {}
        }
    }

    /// Whether an `<svg>` holds an actionable element or a `<text>` with words in it.
    fn drawing_has_content(&self, id: NodeId) -> bool {
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.clone();
        while let Some(x) = stack.pop() {
            let node = &self.tree.nodes[x];
            if self.actionable[x] || (node.tag == "text" && self.signal.kept(x)) {
                return true;
            }
            stack.extend(node.children.iter().copied());
        }
        false
    }

    pub(super) fn visit_children(&mut self, id: NodeId) {
        let children = self.tree.nodes[id].children.clone();
        for child in children {
            self.visit(child);
        }
        if !self.tree.nodes[id].framed.is_empty() {
            self.framed(id);
        }
    }

    pub(super) fn element(&mut self, id: NodeId) {
        let node = &self.tree.nodes[id];
        if self.signal.ax_hidden[id] {
            // Text only: no regions, headings, lists or controls.
            if self.is_block(id) {
                self.flush();
                self.visit_children(id);
                return self.flush();
            }
            return self.visit_children(id);
        }
        if self.in_cell == 0
            && let Some(mut saved) = self.enter_region(id)
        {
            self.visit_children(id);
            self.flush();
            if let Some(list) = saved.last_mut() {
                // A region inside a list item is more than a link.
                list.links_only = false;
            }
            self.lists = saved;
            self.regions.pop();
            return;
        }
        let role = node.ax.role();
        let tag = node.tag.as_str();
        if self.actionable[id] {
            return self.actionable_element(id);
        }
        if let Some(level) = heading_level(tag, &role, node) {
            self.flush();
            if self.in_cell == 0 {
                let indent = self.lists.last().map(|l| l.indent.saturating_add(1)).unwrap_or(self.indent);
                self.block = Some(Block { anchor: id, kind: BlockKind::Heading(level), runs: Vec::new(), indent });
            }
            self.visit_children(id);
            self.flush();
            return;
        }
        match tag {
            "br" => return self.flush(),
            // A drawing that holds words or targets (chart labels, numbers drawn to click) is
            // read like any other content; one that holds neither stands as one image.
            "svg" if self.drawing_has_content(id) => {
                self.flush();
                self.visit_children(id);
                return self.flush();
            }
            "img" | "svg" | "canvas" | "picture" => return self.image(id),
            "iframe" | "frame" => {
                self.flush();
                self.visit_children(id);
                return self.flush();
            }
            "label" if self.label_repeats_control_name(id) => {
                self.suppress_text += 1;
                self.visit_children(id);
                self.suppress_text -= 1;
                return;
            }
            _ => {}
        }
        if role == "image" || role == "img" {
            return self.image(id);
        }
        if self.in_cell == 0 && (role == "list" || ((tag == "ul" || tag == "ol") && role != "LayoutTable")) {
            return self.list(id, tag == "ol");
        }
        if self.in_cell == 0 && (role == "listitem" || tag == "li") && !self.lists.is_empty() {
            return self.list_item(id);
        }
        if self.in_cell == 0 && matches!(role.as_str(), "table" | "grid" | "treegrid") {
            return self.table(id);
        }
        if is_group_role(&role) || tag == "fieldset" {
            return self.group(id, &role);
        }
        if self.is_block(id) {
            self.flush();
            self.visit_children(id);
            self.flush();
        } else {
            self.visit_children(id);
        }
    }

    /// Opens the region `id` makes, if it makes one: its record, and its own element when it
    /// can be acted on. Returns the list contexts to restore once its content is walked. (Out of
    /// line, like [`Builder::actionable_line`], so the walk's frames stay small: a tree folded
    /// by `super::depth` may still be a few hundred levels deep.)
    #[inline(never)]
    fn enter_region(&mut self, id: NodeId) -> Option<Vec<ListContext>> {
        let (kind, label, overlay) = self.region_of(id)?;
        self.flush();
        let element = self.actionable[id].then(|| {
            // The region's content follows as lines: it is neither its text nor its name.
            let mut facts = facts(self.tree, id, "", None);
            facts.text = None;
            self.out.elements.push(OutlineElement { node: id, facts });
            ElementId(self.out.elements.len() - 1)
        });
        self.out.regions.push(Region {
            kind,
            label,
            parent: self.regions.last().copied(),
            anchor: id,
            element,
            overlay,
        });
        self.regions.push(RegionId(self.out.regions.len() - 1));
        Some(std::mem::take(&mut self.lists))
    }

    pub(super) fn actionable_element(&mut self, id: NodeId) {
        let lines_before = self.out.lines.len();
        self.actionable_line(id);
        if self.sources.open_menus.contains(&id) {
            let own_line = self.out.lines[lines_before..].last().map(|line| line.indent);
            return self.open_menu(id, own_line.unwrap_or(self.indent));
        }
        // The element's text is its name (or its `text`); controls nested inside it are still
        // listed, one level deeper (the indent stops at its largest value rather than wrap).
        self.suppress_text += 1;
        let indent_before = self.indent;
        self.indent = indent_before.saturating_add(1);
        self.visit_children(id);
        self.indent = indent_before;
        self.suppress_text -= 1;
    }

    /// The line of actionable element `id`, or its place in the text around it. Out of line:
    /// what it holds is off the stack before the walk goes into the element's children.
    #[inline(never)]
    fn actionable_line(&mut self, id: NodeId) {
        let inner = if super::actionable::is_editing_host(self.tree, id) {
            self.editable_text(id)
        } else if self.sources.open_menus.contains(&id) {
            self.own_words(id)
        } else {
            self.visible_text(id)
        };
        let mut facts = match self.sources.stands_for.get(&id) {
            Some(&control) => label_facts(self.tree, id, control, &inner),
            None => facts(self.tree, id, &inner, self.icon_name(id).as_deref()),
        };
        // A wrapper that stands for the one control it holds shows that control's role when its
        // own says nothing of acting ("clickable") or names a container (a focusable list around
        // its single suggestion).
        if matches!(facts.role.as_str(), "clickable" | "list" | "group" | "toolbar" | "menubar" | "tablist" | "table")
            && let Some(&inner_control) = self.sources.borrowed.get(&id)
        {
            facts.role = super::element::facts(self.tree, inner_control, "", None).role;
        }
        // A wrapper's name beats the names taken from the element's title, text or icon.
        if normalise(&self.tree.nodes[id].ax.name()).is_empty()
            && let Some(name) = self.promoted.remove(&id)
        {
            let own = normalise(&inner);
            facts.text = (!says_all_of(&name, &own)).then_some(own);
            facts.name = name;
            facts.attrs.retain(|(k, v)| *k != "id" && *v != facts.name);
        }
        let inline = facts.role == "link" && facts.text.is_none() && !self.is_block(id) && !self.has_block_inside(id);
        let index = ElementId(self.out.elements.len());
        self.out.elements.push(OutlineElement { node: id, facts });
        if inline && self.suppress_text == 0 {
            let anchor = self.tree.nodes[id].parent.unwrap_or(id);
            // Whitespace inside the link at its ends separates it from the text around it.
            let (leading, trailing) = self.edge_whitespace(id);
            let block = self.block_for(anchor);
            if leading {
                block.runs.push(Run::Text(" ".into()));
            }
            block.runs.push(Run::Link(index));
            if trailing {
                block.runs.push(Run::Text(" ".into()));
            }
        } else if self.in_cell > 0 {
            self.block_for(id).runs.push(Run::Element(index));
        } else {
            self.flush();
            let indent = self.lists.last().map(|l| l.indent.saturating_add(1)).unwrap_or(self.indent);
            let indent = match self.lists.last() {
                Some(list) if list.pending_item.is_some() => list.indent,
                _ => indent,
            };
            self.push_line(id, indent, LineContent::Element(index));
            if let Some(list) = self.lists.last_mut() {
                list.pending_item = None;
            }
        }
    }
}
