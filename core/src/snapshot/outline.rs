//! Stage 2 of the pipeline: structure simplification. Walks the filtered tree once and turns
//! it into the lines an agent reads.
//!
//! Layout wrappers disappear; what remains is what carries meaning: landmark regions, headings,
//! paragraphs (blocks of inline text, with links inside them where they sit in the sentence),
//! lists, tables, named groups of controls, and one line per actionable element.
//!
//! * S2.1 sequential text collapsing — consecutive inline text nodes of a block become one run
//!   ([`collapse_runs`]), so a sentence split over `<b>`, `<span>` and text nodes is one line.
//! * S2.2 wrapper hoisting with name promotion — a named wrapper around a single unnamed
//!   control gives the control its name instead of adding a line of its own.
//! * S2.3 (label equal to text) — a `<label>` whose text is the name of the control it labels
//!   is not repeated as text.
//! * F4 container refinement — a group, toolbar, menu, form or dialog with nothing to act on
//!   inside is not a container: its content is hoisted into the surrounding flow. Landmark
//!   regions always stay.

use std::collections::HashMap;

use super::element::{ElementFacts, facts};
use super::signal::{DropReason, Signal};
use super::text::{normalise, words_covered};
use super::tree::{NodeId, NodeKind, PageTree};

/// The simplified page.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// Regions, outermost first; lines refer to them by index.
    pub regions: Vec<Region>,
    /// Lines in reading order.
    pub lines: Vec<Line>,
    /// Actionable elements in reading order; lines and runs refer to them by index.
    pub elements: Vec<OutlineElement>,
    /// F4: containers hoisted because nothing inside them can be acted on.
    pub hoisted_containers: usize,
    /// S2.2: names promoted from a wrapper to the single control inside it.
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
    pub parent: Option<usize>,
    /// The element that makes the region.
    pub anchor: NodeId,
    /// The region's own element, when it can be acted on (a focusable landmark).
    pub element: Option<usize>,
    /// Set when the region is an overlay (a modal, a dialog, a dropdown).
    pub overlay: Option<Overlay>,
}

/// What kind of overlay a region is, and how sure the rule that found it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlay {
    /// Modal, dialog or dropdown.
    pub kind: OverlayKind,
    /// 1.0 for an ARIA modal down to 0.7 for a class-name match.
    pub confidence: f32,
    /// Its z-index, for stacking order.
    pub z_index: i64,
}

/// The kinds of overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKind {
    /// Blocks the page behind it.
    Modal,
    /// A dialog that does not block the page.
    Dialog,
    /// A menu or listbox that drops down.
    Dropdown,
}

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The node the line stands for (its identity, with `ordinal`).
    pub anchor: NodeId,
    /// Lines from the same anchor are numbered from 0.
    pub ordinal: u32,
    /// Innermost region.
    pub region: Option<usize>,
    /// Nesting depth (lists, groups, content of a control).
    pub indent: u8,
    /// What the line says.
    pub content: LineContent,
}

impl Line {
    /// The elements the line shows (on its own line or inside its text), in order.
    pub fn elements(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from_runs = |runs: &[Run]| {
            out.extend(runs.iter().filter_map(|r| match r {
                Run::Link(i) | Run::Element(i) => Some(*i),
                _ => None,
            }))
        };
        match &self.content {
            LineContent::Element(i) => return vec![*i],
            LineContent::Text(runs) | LineContent::Heading { runs, .. } | LineContent::Item { runs, .. } => {
                from_runs(runs)
            }
            LineContent::Row { cells, .. } => cells.iter().for_each(|c| from_runs(c)),
            LineContent::Group { .. } => {}
        }
        out
    }
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
    Element(usize),
    /// The head of a named group of controls (`radiogroup "Colour":`).
    Group {
        /// Role.
        role: String,
        /// Name.
        name: String,
    },
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// Text (whitespace is collapsed when rendered).
    Text(String),
    /// Preformatted text (whitespace and line breaks kept).
    Pre(String),
    /// A link inside the text.
    Link(usize),
    /// Another actionable element inside a table cell.
    Element(usize),
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

/// S2.1: merges consecutive text runs (collapsing whitespace) and trims the line's ends.
pub fn collapse_runs(runs: Vec<Run>) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::with_capacity(runs.len());
    for run in runs {
        match (out.last_mut(), run) {
            (Some(Run::Text(prev)), Run::Text(next)) => prev.push_str(&next),
            (_, run) => out.push(run),
        }
    }
    let last = out.len().saturating_sub(1);
    let mut collapsed = Vec::with_capacity(out.len());
    for (i, run) in out.into_iter().enumerate() {
        match run {
            Run::Text(t) => {
                let mut s = collapse_spaces(&t);
                if i == 0 {
                    s = s.trim_start().to_owned();
                }
                if i == last {
                    s = s.trim_end().to_owned();
                }
                if !s.is_empty() {
                    collapsed.push(Run::Text(s));
                }
            }
            other => collapsed.push(other),
        }
    }
    collapsed
}

/// Collapses whitespace runs to one space, keeping a leading or trailing space (it separates
/// the text from a neighbouring link).
fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Whether a list of runs says nothing.
fn is_blank(runs: &[Run]) -> bool {
    runs.iter().all(|r| match r {
        Run::Text(t) | Run::Pre(t) => t.trim().is_empty(),
        _ => false,
    })
}

#[derive(Debug)]
enum BlockKind {
    Text,
    Heading(u8),
    Item(String),
}

#[derive(Debug)]
struct Block {
    anchor: NodeId,
    kind: BlockKind,
    runs: Vec<Run>,
    indent: u8,
}

#[derive(Debug)]
struct ListContext {
    ordered: bool,
    counter: u32,
    /// The list item whose marker has not been written yet.
    pending_item: Option<NodeId>,
    indent: u8,
}

/// Builds the outline of `tree`.
pub fn build(tree: &PageTree, signal: &Signal, actionable: &[bool]) -> Outline {
    let mut b = Builder {
        tree,
        signal,
        actionable,
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
    tree: &'t PageTree<'a>,
    signal: &'t Signal,
    actionable: &'t [bool],
    out: Outline,
    regions: Vec<usize>,
    indent: u8,
    block: Option<Block>,
    lists: Vec<ListContext>,
    suppress_text: u32,
    in_cell: u32,
    ordinals: HashMap<NodeId, u32>,
    promoted: HashMap<NodeId, String>,
}

impl<'t, 'a> Builder<'t, 'a> {
    fn visit(&mut self, id: NodeId) {
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

    fn visit_children(&mut self, id: NodeId) {
        let children = self.tree.nodes[id].children.clone();
        for child in children {
            self.visit(child);
        }
    }

    fn text(&mut self, id: NodeId) {
        if self.suppress_text > 0 {
            return;
        }
        let node = &self.tree.nodes[id];
        let pre = node
            .parent
            .and_then(|p| self.tree.nodes[p].layout.as_ref())
            .is_some_and(|l| l.white_space.starts_with("pre") || l.white_space == "break-spaces");
        let run = if pre { Run::Pre(node.text.to_owned()) } else { Run::Text(node.text.to_owned()) };
        if !pre && node.text.trim().is_empty() && self.block.as_ref().is_none_or(|b| b.runs.is_empty()) {
            return; // leading whitespace of a block
        }
        let anchor = node.parent.unwrap_or(id);
        self.block_for(anchor).runs.push(run);
    }

    /// The open block, starting one anchored at `anchor` if none is open.
    fn block_for(&mut self, anchor: NodeId) -> &mut Block {
        if self.block.is_none() {
            let (kind, indent, anchor) = match self.lists.last_mut() {
                Some(list) if list.pending_item.is_some() => {
                    let item = list.pending_item.take().unwrap_or(anchor);
                    let marker = if list.ordered { format!("{}.", list.counter) } else { "-".to_owned() };
                    (BlockKind::Item(marker), list.indent, item)
                }
                Some(list) => (BlockKind::Text, list.indent + 1, anchor),
                None => (BlockKind::Text, self.indent, anchor),
            };
            self.block = Some(Block { anchor, kind, runs: Vec::new(), indent });
        }
        self.block.as_mut().expect("a block was just opened")
    }

    /// Ends the open block, writing it as a line unless it is blank. Inside a table cell,
    /// blocks run together separated by a space.
    fn flush(&mut self) {
        if self.in_cell > 0 {
            if let Some(block) = self.block.as_mut()
                && !is_blank(&block.runs)
            {
                block.runs.push(Run::Text(" ".into()));
            }
            return;
        }
        let Some(block) = self.block.take() else { return };
        let runs = collapse_runs(block.runs);
        if is_blank(&runs) {
            if let (BlockKind::Item(_), Some(list)) = (&block.kind, self.lists.last_mut()) {
                // The item's marker waits for its first words.
                list.pending_item = Some(block.anchor);
            }
            return;
        }
        let content = match block.kind {
            BlockKind::Text => LineContent::Text(runs),
            BlockKind::Heading(level) => LineContent::Heading { level, runs },
            BlockKind::Item(marker) => LineContent::Item { marker, runs },
        };
        self.push_line(block.anchor, block.indent, content);
    }

    fn push_line(&mut self, anchor: NodeId, indent: u8, content: LineContent) {
        let ordinal = self.ordinals.entry(anchor).or_insert(0);
        let line = Line { anchor, ordinal: *ordinal, region: self.regions.last().copied(), indent, content };
        *ordinal += 1;
        self.out.lines.push(line);
    }

    fn element(&mut self, id: NodeId) {
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
        let role = node.ax.role();
        let tag = node.tag.as_str();
        if self.in_cell == 0
            && let Some((kind, label, overlay)) = self.region_of(id)
        {
            self.flush();
            let element = self.actionable[id].then(|| {
                let inner = self.visible_text(id);
                let mut facts = facts(self.tree, id, &inner);
                facts.text = None; // the region's content follows as lines
                self.out.elements.push(OutlineElement { node: id, facts });
                self.out.elements.len() - 1
            });
            self.out.regions.push(Region {
                kind,
                label,
                parent: self.regions.last().copied(),
                anchor: id,
                element,
                overlay,
            });
            self.regions.push(self.out.regions.len() - 1);
            let saved = std::mem::take(&mut self.lists);
            self.visit_children(id);
            self.flush();
            self.lists = saved;
            self.regions.pop();
            return;
        }
        if self.actionable[id] {
            return self.actionable_element(id);
        }
        if let Some(level) = heading_level(tag, &role, node) {
            self.flush();
            if self.in_cell == 0 {
                let indent = self.lists.last().map(|l| l.indent + 1).unwrap_or(self.indent);
                self.block = Some(Block { anchor: id, kind: BlockKind::Heading(level), runs: Vec::new(), indent });
            }
            self.visit_children(id);
            self.flush();
            return;
        }
        match tag {
            "br" => return self.flush(),
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

    fn actionable_element(&mut self, id: NodeId) {
        let inner = self.visible_text(id);
        let mut facts = facts(self.tree, id, &inner);
        if facts.name.is_empty()
            && let Some(name) = self.promoted.remove(&id)
        {
            facts.name = name;
            facts.attrs.retain(|(k, _)| *k != "id");
        }
        let inline = facts.role == "link" && facts.text.is_none() && !self.is_block(id) && !self.has_block_inside(id);
        let index = self.out.elements.len();
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
            let indent = self.lists.last().map(|l| l.indent + 1).unwrap_or(self.indent);
            let indent = match self.lists.last() {
                Some(list) if list.pending_item.is_some() => list.indent,
                _ => indent,
            };
            self.push_line(id, indent, LineContent::Element(index));
            if let Some(list) = self.lists.last_mut() {
                list.pending_item = None;
            }
        }
        // The element's text is its name (or its `text`); controls nested inside it are still
        // listed, one level deeper.
        self.suppress_text += 1;
        self.indent += 1;
        self.visit_children(id);
        self.indent -= 1;
        self.suppress_text -= 1;
    }

    fn image(&mut self, id: NodeId) {
        // Images hidden from assistive technology are decoration.
        if self.suppress_text > 0 || self.signal.ax_hidden[id] {
            return;
        }
        let node = &self.tree.nodes[id];
        let alt = normalise(&node.ax.name());
        if !alt.is_empty() && !node.ax.ignored() {
            let anchor = node.parent.unwrap_or(id);
            self.block_for(anchor).runs.push(Run::Image(alt));
        }
    }

    fn list(&mut self, id: NodeId, ordered: bool) {
        self.flush();
        let indent = match self.lists.last() {
            Some(outer) => outer.indent + 1,
            None => self.indent,
        };
        self.lists.push(ListContext { ordered, counter: 0, pending_item: None, indent });
        self.visit_children(id);
        self.flush();
        self.lists.pop();
    }

    fn list_item(&mut self, id: NodeId) {
        self.flush();
        if let Some(list) = self.lists.last_mut() {
            list.counter += 1;
            list.pending_item = Some(id);
        }
        self.visit_children(id);
        self.flush();
        if let Some(list) = self.lists.last_mut() {
            list.pending_item = None;
        }
    }

    fn table(&mut self, id: NodeId) {
        self.flush();
        let children = self.tree.nodes[id].children.clone();
        for child in children {
            self.table_part(child);
        }
        self.flush();
    }

    /// One child of a table: rows become row lines, row groups are walked, anything else (a
    /// caption, stray content) reads as usual.
    fn table_part(&mut self, id: NodeId) {
        if !self.signal.kept(id) && self.signal.dropped[id] != Some(DropReason::Occluded) {
            return;
        }
        let node = &self.tree.nodes[id];
        let role = node.ax.role();
        if role == "row" || node.tag == "tr" {
            return self.row(id);
        }
        if role == "rowgroup" || matches!(node.tag.as_str(), "thead" | "tbody" | "tfoot") {
            for child in node.children.clone() {
                self.table_part(child);
            }
            return;
        }
        self.visit(id);
        self.flush();
    }

    fn row(&mut self, row: NodeId) {
        let mut cells = Vec::new();
        let mut all_headers = true;
        for cell in self.cells_of(row) {
            let role = self.tree.nodes[cell].ax.role();
            all_headers &= role == "columnheader" || self.tree.nodes[cell].tag == "th";
            self.in_cell += 1;
            self.block = Some(Block { anchor: cell, kind: BlockKind::Text, runs: Vec::new(), indent: 0 });
            self.visit(cell);
            let runs = self.block.take().map(|b| collapse_runs(b.runs)).unwrap_or_default();
            self.in_cell -= 1;
            cells.push(runs);
        }
        if cells.iter().all(|c| is_blank(c)) {
            return;
        }
        let indent = self.lists.last().map(|l| l.indent + 1).unwrap_or(self.indent);
        self.push_line(row, indent, LineContent::Row { cells, header: all_headers });
    }

    fn cells_of(&self, row: NodeId) -> Vec<NodeId> {
        self.tree.nodes[row]
            .children
            .iter()
            .copied()
            .filter(|&c| self.signal.kept(c) && self.tree.nodes[c].kind == NodeKind::Element)
            .collect()
    }

    fn group(&mut self, id: NodeId, role: &str) {
        let name = normalise(&self.tree.nodes[id].ax.name());
        let controls = self.actionable_descendants(id);
        if controls.is_empty() {
            // F4: nothing to act on inside: not a container.
            self.out.hoisted_containers += 1;
            self.flush();
            self.visit_children(id);
            return self.flush();
        }
        if name.is_empty() || self.in_cell > 0 {
            self.flush();
            self.visit_children(id);
            return self.flush();
        }
        // S2.2: a named wrapper around one unnamed control names the control.
        if let [only] = controls[..]
            && normalise(&self.tree.nodes[only].ax.name()).is_empty()
        {
            self.promoted.insert(only, name);
            self.out.promoted_names += 1;
            self.flush();
            self.visit_children(id);
            return self.flush();
        }
        self.flush();
        let role = if role.is_empty() || role == "generic" { "group".to_owned() } else { role.to_owned() };
        let indent = self.lists.last().map(|l| l.indent + 1).unwrap_or(self.indent);
        self.push_line(id, indent, LineContent::Group { role, name: name.clone() });
        // The legend names the group; do not repeat it as text.
        self.indent += 1;
        let saved_lists = std::mem::take(&mut self.lists);
        let legend: Vec<NodeId> =
            self.tree.nodes[id].children.iter().copied().filter(|&c| self.tree.nodes[c].tag == "legend").collect();
        for child in self.tree.nodes[id].children.clone() {
            if legend.contains(&child) && words_covered(&self.visible_text(child), &name) {
                continue;
            }
            self.visit(child);
        }
        self.flush();
        self.lists = saved_lists;
        self.indent -= 1;
    }

    fn actionable_descendants(&self, id: NodeId) -> Vec<NodeId> {
        let mut found = Vec::new();
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.clone();
        while let Some(x) = stack.pop() {
            if !self.signal.kept(x) && self.signal.dropped[x] != Some(DropReason::Occluded) {
                continue;
            }
            if self.actionable[x] && self.signal.kept(x) {
                found.push(x);
            }
            stack.extend(self.tree.nodes[x].children.iter().copied());
        }
        found
    }

    /// The visible text inside `id`, in order.
    fn visible_text(&self, id: NodeId) -> String {
        let mut out = String::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if !self.signal.kept(x) && self.signal.dropped[x] != Some(DropReason::Occluded) {
                continue;
            }
            let node = &self.tree.nodes[x];
            if node.kind == NodeKind::Text && self.signal.kept(x) {
                out.push_str(node.text);
                out.push(' ');
            }
            stack.extend(node.children.iter().rev().copied());
        }
        normalise(&out)
    }

    /// Whether the text inside `id` starts and ends with whitespace.
    fn edge_whitespace(&self, id: NodeId) -> (bool, bool) {
        let mut texts = Vec::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            let node = &self.tree.nodes[x];
            if node.kind == NodeKind::Text && !node.text.is_empty() {
                texts.push(node.text);
            }
            stack.extend(node.children.iter().rev().copied());
        }
        let joined = texts.concat();
        let starts = joined.chars().next().is_some_and(char::is_whitespace);
        let ends = joined.chars().next_back().is_some_and(char::is_whitespace);
        (starts && !joined.trim().is_empty(), ends && !joined.trim().is_empty())
    }

    /// Whether a `<label>` only repeats the name of the control it labels.
    fn label_repeats_control_name(&self, id: NodeId) -> bool {
        let node = &self.tree.nodes[id];
        let control = node
            .attr("for")
            .and_then(|target| {
                self.tree.nodes.iter().position(|n| n.frame == node.frame && n.attr("id") == Some(target))
            })
            .or_else(|| self.actionable_descendants(id).first().copied());
        let Some(control) = control else { return false };
        let text = self.visible_text(id);
        let name = normalise(&self.tree.nodes[control].ax.name());
        !text.is_empty() && !name.is_empty() && words_covered(&text, &name)
    }

    fn is_block(&self, id: NodeId) -> bool {
        let Some(layout) = &self.tree.nodes[id].layout else { return false };
        !matches!(
            layout.display.as_str(),
            "inline"
                | "inline-block"
                | "inline-flex"
                | "inline-grid"
                | "inline-table"
                | "contents"
                | "ruby"
                | ""
                | "none"
        )
    }

    fn has_block_inside(&self, id: NodeId) -> bool {
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.clone();
        while let Some(x) = stack.pop() {
            if self.signal.kept(x) && self.tree.nodes[x].kind == NodeKind::Element && self.is_block(x) {
                return true;
            }
            stack.extend(self.tree.nodes[x].children.iter().copied());
        }
        false
    }

    /// The region an element starts: a landmark, an overlay, or (outside every region) a header,
    /// nav, footer or sidebar recognised by its id or class.
    fn region_of(&self, id: NodeId) -> Option<(&'static str, String, Option<Overlay>)> {
        let node = &self.tree.nodes[id];
        let label = normalise(&node.ax.name());
        // A dialog hidden from assistive technology has no accessible role; its attribute says.
        let mut role = node.ax.role();
        if role.is_empty() {
            role = node.attr("role").unwrap_or("").trim().to_ascii_lowercase();
        }
        if let Some(overlay) = overlay_of(self.tree, id, &role) {
            return Some(("dialog", label, Some(overlay)));
        }
        let kind = match role.as_str() {
            "banner" => "header",
            "navigation" => "nav",
            "main" => "main",
            "contentinfo" => "footer",
            "complementary" => "aside",
            "search" => "search",
            "form" if !label.is_empty() => "form",
            "region" if !label.is_empty() => "section",
            _ if self.regions.is_empty() => fallback_region(node.attr("id"), node.attr("class"))?,
            _ => return None,
        };
        Some((kind, label, None))
    }
}

/// The deterministic overlay rules, first match wins:
/// 1. role `dialog` or `alertdialog` with `aria-modal="true"` — a modal (confidence 1.0);
/// 2. role `dialog` or `alertdialog` — a dialog (0.9);
/// 3. a `data-overlay`, `data-modal` or `data-dialog` attribute — a modal (0.85);
/// 4. a class naming a modal, dialog, overlay, popup or dropdown menu, with a z-index of at
///    least 1000 or a full-viewport backdrop beside it — a modal or dropdown (0.7).
pub fn overlay_of(tree: &PageTree, id: NodeId, role: &str) -> Option<Overlay> {
    let node = &tree.nodes[id];
    let z_index = node.layout.as_ref().and_then(|l| l.z_index).unwrap_or(0);
    let found = |kind, confidence| Some(Overlay { kind, confidence, z_index });
    if matches!(role, "dialog" | "alertdialog") || node.tag == "dialog" {
        let modal = node.attr("aria-modal").is_some_and(|m| m.eq_ignore_ascii_case("true"));
        return if modal { found(OverlayKind::Modal, 1.0) } else { found(OverlayKind::Dialog, 0.9) };
    }
    if ["data-overlay", "data-modal", "data-dialog"].iter().any(|a| node.has_attr(a)) {
        return found(OverlayKind::Modal, 0.85);
    }
    let class = node.attr("class").unwrap_or("").to_ascii_lowercase();
    let classes: Vec<&str> = class.split_whitespace().collect();
    let names = |word: &str| classes.iter().any(|c| c.split(['-', '_']).any(|part| part == word));
    let dropdown = classes.iter().any(|c| c.contains("dropdown-menu"));
    if (names("modal") || names("dialog") || names("overlay") || names("popup") || dropdown)
        && (z_index >= 1000 || has_backdrop_sibling(tree, id))
    {
        return found(if dropdown { OverlayKind::Dropdown } else { OverlayKind::Modal }, 0.7);
    }
    None
}

/// Whether a sibling of `id` is a fixed box covering the viewport (a backdrop).
fn has_backdrop_sibling(tree: &PageTree, id: NodeId) -> bool {
    let Some(parent) = tree.nodes[id].parent else { return false };
    let (vw, vh) = tree.viewport;
    tree.nodes[parent].children.iter().filter(|&&s| s != id).any(|&s| {
        tree.nodes[s]
            .layout
            .as_ref()
            .is_some_and(|l| l.position == "fixed" && vw > 0.0 && l.bounds.w >= 0.9 * vw && l.bounds.h >= 0.9 * vh)
    })
}

/// The level of a heading element.
fn heading_level(tag: &str, role: &str, node: &super::tree::Node) -> Option<u8> {
    if let Some(l) = tag.strip_prefix('h').and_then(|d| d.parse::<u8>().ok()).filter(|l| (1..=6).contains(l)) {
        return Some(l);
    }
    if role == "heading" {
        let level =
            node.ax.node.and_then(|a| a.property("level")).and_then(|v| v.value.as_ref()).and_then(|v| v.as_u64());
        return Some(level.map(|l| l.clamp(1, 6) as u8).unwrap_or(2));
    }
    None
}

/// Roles of containers that group controls.
fn is_group_role(role: &str) -> bool {
    matches!(role, "group" | "radiogroup" | "toolbar" | "tablist" | "menu" | "menubar" | "tree" | "form" | "listbox")
}

/// Regions recognised by id or class on pages without landmarks.
fn fallback_region(id: Option<&str>, class: Option<&str>) -> Option<&'static str> {
    let tokens = id.into_iter().chain(class.into_iter().flat_map(str::split_whitespace)).map(str::to_ascii_lowercase);
    for token in tokens {
        let parts: Vec<&str> = token.split(['-', '_']).collect();
        let has = |w: &str| parts.contains(&w);
        if has("header") || has("masthead") || has("topbar") {
            return Some("header");
        }
        if has("nav") || has("navbar") || has("navigation") || has("menu") {
            return Some("nav");
        }
        if has("footer") {
            return Some("footer");
        }
        if has("sidebar") {
            return Some("aside");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s2_1_adjacent_text_runs_merge_and_ends_are_trimmed() {
        let runs = vec![Run::Text("  Hello ".into()), Run::Text("\n bold".into()), Run::Text(" world  ".into())];
        assert_eq!(collapse_runs(runs), vec![Run::Text("Hello bold world".into())]);
    }

    #[test]
    fn s2_1_spaces_around_links_survive() {
        let runs = vec![Run::Text("Read ".into()), Run::Link(0), Run::Text(" now".into())];
        assert_eq!(collapse_runs(runs), vec![Run::Text("Read ".into()), Run::Link(0), Run::Text(" now".into())]);
    }

    #[test]
    fn fallback_regions_come_from_id_or_class_tokens() {
        assert_eq!(fallback_region(Some("site-header"), None), Some("header"));
        assert_eq!(fallback_region(None, Some("wrapper main_nav")), Some("nav"));
        assert_eq!(fallback_region(None, Some("navigational")), None);
    }
}
