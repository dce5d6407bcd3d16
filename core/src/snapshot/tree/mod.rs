//! The page as one tree: every document of a capture (the page, same-process iframes and
//! out-of-process iframes) joined with its layout, computed styles and accessibility node.
//!
//! Iframe documents hang under their `<iframe>` element; shadow trees are already flattened by
//! `DOMSnapshot` (slotted nodes sit under their `<slot>`); user-agent shadow trees (the insides
//! of inputs, media controls) are left out. Bounds are converted to main-frame document
//! coordinates. A frame whose URL is refused is not added at all ([`super::frames`]). Folding the
//! deepest branches, setting frames of other sites apart and deriving roles come after the join
//! (`super::joined`).
//! Nothing here decides what an agent sees; later stages do.

use std::collections::HashMap;

mod id_index;

pub use super::accessibility::Accessibility;
use super::frames::{FrameSource, FrameSources, Framed};
use crate::capture::{Capture, TargetCapture, style};
use crate::cdp::accessibility::AxNode;
use crate::cdp::dom_snapshot::{CaptureSnapshot, DocumentSnapshot};
use crate::urls::UrlPolicy;
pub use id_index::IdIndex;

/// Index of a node in [`PageTree::nodes`].
pub type NodeId = usize;

/// A rectangle in main-frame document coordinates (CSS pixels).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    /// Area.
    pub fn area(&self) -> f64 {
        self.w.max(0.0) * self.h.max(0.0)
    }
    /// Whether the rectangle has no area.
    pub fn is_empty(&self) -> bool {
        self.w <= 0.0 || self.h <= 0.0
    }
    /// The overlap of two rectangles.
    pub fn intersection(&self, other: &Rect) -> Rect {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        Rect {
            x,
            y,
            w: (self.right().min(other.right()) - x).max(0.0),
            h: (self.bottom().min(other.bottom()) - y).max(0.0),
        }
    }
}

/// What kind of DOM node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// An element.
    Element,
    /// A text node.
    Text,
    /// A document (the page or an iframe's).
    Document,
    /// Anything else (comments, doctypes, fragments).
    Other,
}

/// Layout facts of a node that has a layout object.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Border box.
    pub bounds: Rect,
    /// Paint order within its document (higher is on top).
    pub paint_order: i64,
    /// Computed `display`.
    pub display: String,
    /// Computed `visibility`.
    pub visibility: String,
    /// Computed `opacity`.
    pub opacity: f64,
    /// Computed `background-color`.
    pub background: String,
    /// Computed `cursor`.
    pub cursor: String,
    /// Computed `white-space`.
    pub white_space: String,
    /// Computed `position`.
    pub position: String,
    /// Computed `z-index` (`None` for `auto`).
    pub z_index: Option<i64>,
    /// Computed `-webkit-text-security` (`""` in captures recorded without it).
    pub text_security: String,
}

/// One frame of the page.
#[derive(Debug, Clone, Default)]
pub struct FrameInfo {
    /// CDP frame id.
    pub frame_id: String,
    /// Loader id of the captured document.
    pub loader_id: String,
    /// Document URL.
    pub url: String,
    /// The registrable domain of the URL's host, as the browser gave it (`domainAndRegistry`;
    /// empty when it gave none).
    pub registrable: String,
    /// Offset of the document's origin in main-frame coordinates.
    pub offset: (f64, f64),
}

/// One node of the joined tree.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    /// Element, text, document or other.
    pub kind: NodeKind,
    /// Lower-case tag name for elements (`""` otherwise).
    pub tag: String,
    /// Text of text nodes.
    pub text: &'a str,
    /// Attributes, in document order.
    pub attrs: Vec<(&'a str, &'a str)>,
    /// Parent in the joined tree (none for the page's root and for the document of another
    /// site's frame, which hangs apart: see `framed`).
    pub parent: Option<NodeId>,
    /// Children in rendering order.
    pub children: Vec<NodeId>,
    /// What an `<iframe>` holds apart from its children: the document of another site's frame,
    /// or a frame that is refused (see [`super::frames`]). The page's root holds here the
    /// documents of other sites' frames whose `<iframe>` was not found.
    pub framed: Vec<Framed>,
    /// Index into [`PageTree::frames`].
    pub frame: usize,
    /// CDP backend node id.
    pub backend_id: i64,
    /// Layout, if the node has a layout object.
    pub layout: Option<Layout>,
    /// Accessibility.
    pub ax: Accessibility<'a>,
    /// Current value of an input or textarea.
    pub input_value: Option<&'a str>,
    /// A checked checkbox or radio.
    pub checked: bool,
    /// A selected option.
    pub option_selected: bool,
    /// Chrome considers it clickable (a click listener or native activation).
    pub clickable: bool,
    /// The text its layout shows, for a text node the layout keeps (`text-transform` applied,
    /// collapsed whitespace dropped).
    pub layout_text: Option<&'a str>,
    /// The page state remembers this field as secret from an earlier look
    /// (`super::secrets::SecretFields`).
    pub remembered_secret: bool,
}

impl<'a> Node<'a> {
    /// An attribute value.
    pub fn attr(&self, name: &str) -> Option<&'a str> {
        self.attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }

    /// Whether the attribute is present.
    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    /// Marked `aria-hidden="true"`: hidden from assistive technology with all it holds.
    pub fn aria_hidden(&self) -> bool {
        self.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Border box, if laid out.
    pub fn bounds(&self) -> Option<Rect> {
        self.layout.as_ref().map(|l| l.bounds)
    }
}

/// The joined tree of a capture.
#[derive(Debug, Clone, Default)]
pub struct PageTree<'a> {
    /// All nodes; `nodes[root]` is the main document.
    pub nodes: Vec<Node<'a>>,
    /// The main document node.
    pub root: NodeId,
    /// Frames, the main frame first.
    pub frames: Vec<FrameInfo>,
    /// Documents whose frame could not be found in any frame tree (refs there cannot be scoped).
    pub unknown_frames: usize,
    /// The visual viewport's size (CSS pixels).
    pub viewport: (f64, f64),
    /// The element each document of another site's frame hangs at (see [`Node::framed`]).
    pub framed_at: HashMap<NodeId, NodeId>,
    /// Elements by `id` and labels by `for`, built when first asked for.
    id_index: std::cell::OnceCell<IdIndex<'a>>,
}

impl<'a> PageTree<'a> {
    /// Elements by `id` and `<label>`s by `for`, per frame (indexed on first use; the tree's
    /// nodes do not change after it is built).
    pub fn id_index(&self) -> &IdIndex<'a> {
        self.id_index.get_or_init(|| IdIndex::new(self))
    }

    /// Joins the documents of `capture` into one tree; frames whose URL `policy` refuses are
    /// left out. Roles and names are not derived yet: [`PageTree::build_with`] does both.
    pub(in crate::snapshot) fn join(capture: &'a Capture, policy: &UrlPolicy) -> PageTree<'a> {
        let mut tree = PageTree::default();
        let sources = FrameSources::of(capture, policy);
        if let Some(v) = capture.layout.css_visual_viewport {
            tree.viewport = (v.client_width, v.client_height);
        }
        let main_root = tree.add_target(&capture.main, &sources);
        tree.root = main_root.unwrap_or(0);
        for child in &capture.children {
            let child_root = tree.add_target(child, &sources);
            let child_frame = &child.frame_tree.frame_tree.frame.id;
            let owner = child.owner_backend_node_id.and_then(|id| {
                tree.nodes.iter().position(|n| {
                    n.backend_id == id
                        && n.tag == "iframe"
                        && tree.frames.get(n.frame).is_none_or(|f| &f.frame_id != child_frame)
                })
            });
            let document_url = child.snapshot.documents.first().map(|d| child.snapshot.string(d.document_url));
            match (child_root, sources.refusal(child_frame, document_url.unwrap_or_default())) {
                (Some(child_root), _) => tree.attach_document(child_root, owner.unwrap_or(tree.root)),
                (None, Some(refusal)) => {
                    if let (Some(owner), Some(framed)) = (owner, refusal.shown()) {
                        tree.nodes[owner].framed.push(framed);
                    }
                }
                (None, None) => {}
            }
        }
        tree
    }

    /// Adds every document of one target; returns the target's main document node.
    fn add_target(&mut self, target: &'a TargetCapture, sources: &FrameSources) -> Option<NodeId> {
        let snapshot = &target.snapshot;
        let ax_by_frame: HashMap<&str, HashMap<i64, &'a AxNode>> = target
            .ax_trees
            .iter()
            .map(|t| {
                let map = t.tree.nodes.iter().filter_map(|n| n.backend_dom_node_id.map(|id| (id, n))).collect();
                (t.frame_id.as_str(), map)
            })
            .collect();
        let mut roots = Vec::new();
        for doc in &snapshot.documents {
            let frame_id = snapshot.string(doc.frame_id).to_owned();
            // A refused frame's document is never read: none of its nodes enter the tree.
            if sources.refusal(&frame_id, snapshot.string(doc.document_url)).is_some() {
                roots.push(None);
                continue;
            }
            let frame = match sources.get(&frame_id) {
                Some(source) => self.frame_index(&frame_id, source),
                None => {
                    self.unknown_frames += 1;
                    let url = snapshot.string(doc.document_url).to_owned();
                    self.frame_index(&frame_id, &FrameSource { url, ..FrameSource::default() })
                }
            };
            let ax = ax_by_frame.get(frame_id.as_str());
            roots.push(self.add_document(snapshot, doc, frame, ax));
        }
        // Same-process iframes: hang each content document under its <iframe>.
        for (d, doc) in snapshot.documents.iter().enumerate() {
            let nodes = &doc.nodes;
            for (k, &node_index) in nodes.content_document_index.index.iter().enumerate() {
                let Some(&child_doc) = nodes.content_document_index.value.get(k) else { continue };
                let Some(&Some(owner_root)) = roots.get(d) else { continue };
                let owner = owner_root + usize::try_from(node_index).unwrap_or(usize::MAX);
                if owner >= self.nodes.len() || self.nodes[owner].tag != "iframe" {
                    continue;
                }
                let child = usize::try_from(child_doc).ok();
                match child.and_then(|c| roots.get(c)) {
                    Some(&Some(child_root)) => self.attach_document(child_root, owner),
                    Some(None) => {
                        let Some(doc) = child.and_then(|c| snapshot.documents.get(c)) else { continue };
                        let refusal = sources.refusal(snapshot.string(doc.frame_id), snapshot.string(doc.document_url));
                        if let Some(framed) = refusal.and_then(|r| r.shown()) {
                            self.nodes[owner].framed.push(framed);
                        }
                    }
                    None => {}
                }
            }
        }
        roots.first().copied().flatten()
    }

    fn frame_index(&mut self, frame_id: &str, source: &FrameSource) -> usize {
        if let Some(i) = self.frames.iter().position(|f| f.frame_id == frame_id) {
            return i;
        }
        self.frames.push(FrameInfo {
            frame_id: frame_id.into(),
            loader_id: source.loader.clone(),
            url: source.url.clone(),
            registrable: source.registrable.clone(),
            offset: (0.0, 0.0),
        });
        self.frames.len() - 1
    }

    /// Adds one document's nodes (in document order, so node `i` of the document is
    /// `first + i`); returns the document node.
    fn add_document(
        &mut self,
        snapshot: &'a CaptureSnapshot,
        doc: &'a DocumentSnapshot,
        frame: usize,
        ax: Option<&HashMap<i64, &'a AxNode>>,
    ) -> Option<NodeId> {
        let n = &doc.nodes;
        let count = n.node_type.len();
        if count == 0 {
            return None;
        }
        let first = self.nodes.len();
        let rare_string = |data: &crate::cdp::dom_snapshot::RareStringData| -> HashMap<usize, &'a str> {
            data.index
                .iter()
                .zip(&data.value)
                .filter_map(|(&i, &v)| Some((usize::try_from(i).ok()?, snapshot.string(v))))
                .collect()
        };
        let shadow = rare_string(&n.shadow_root_type);
        let input_values = rare_string(&n.input_value);
        let text_values = rare_string(&n.text_value);
        let flags = |data: &crate::cdp::dom_snapshot::RareBooleanData| -> std::collections::HashSet<usize> {
            data.index.iter().filter_map(|&i| usize::try_from(i).ok()).collect()
        };
        let checked = flags(&n.input_checked);
        let selected = flags(&n.option_selected);
        let clickable = flags(&n.is_clickable);
        let mut layout_of: HashMap<usize, Layout> = HashMap::new();
        let mut layout_texts: HashMap<usize, &'a str> = HashMap::new();
        let l = &doc.layout;
        for (j, &node_index) in l.node_index.iter().enumerate() {
            let Ok(i) = usize::try_from(node_index) else { continue };
            if let Some(&t) = l.text.get(j).filter(|&&t| t >= 0) {
                layout_texts.entry(i).or_insert(snapshot.string(t));
            }
            if layout_of.contains_key(&i) {
                continue; // a node's first layout object carries its box
            }
            let style = |k: usize| l.styles.get(j).and_then(|s| s.get(k)).map(|&v| snapshot.string(v)).unwrap_or("");
            let b = l.bounds.get(j).map(|b| Rect {
                x: b.first().copied().unwrap_or(0.0),
                y: b.get(1).copied().unwrap_or(0.0),
                w: b.get(2).copied().unwrap_or(0.0),
                h: b.get(3).copied().unwrap_or(0.0),
            });
            layout_of.insert(
                i,
                Layout {
                    bounds: b.unwrap_or_default(),
                    paint_order: l.paint_orders.get(j).copied().unwrap_or(0),
                    display: style(style::DISPLAY).to_owned(),
                    visibility: style(style::VISIBILITY).to_owned(),
                    opacity: style(style::OPACITY).parse().unwrap_or(1.0),
                    background: style(style::BACKGROUND_COLOR).to_owned(),
                    cursor: style(style::CURSOR).to_owned(),
                    white_space: style(style::WHITE_SPACE).to_owned(),
                    position: style(style::POSITION).to_owned(),
                    z_index: style(style::Z_INDEX).parse().ok(),
                    text_security: style(style::TEXT_SECURITY).to_owned(),
                },
            );
        }
        for i in 0..count {
            let node_type = n.node_type.get(i).copied().unwrap_or(0);
            let kind = match node_type {
                1 => NodeKind::Element,
                3 => NodeKind::Text,
                9 => NodeKind::Document,
                _ => NodeKind::Other,
            };
            let name = n.node_name.get(i).map(|&s| snapshot.string(s)).unwrap_or("");
            let tag = if kind == NodeKind::Element { name.to_ascii_lowercase() } else { String::new() };
            let text = if kind == NodeKind::Text {
                n.node_value.get(i).map(|&s| snapshot.string(s)).unwrap_or("")
            } else {
                ""
            };
            let attrs = n
                .attributes
                .get(i)
                .map(|pairs| {
                    pairs
                        .chunks(2)
                        .map(|p| (snapshot.string(p[0]), snapshot.string(*p.get(1).unwrap_or(&-1))))
                        .collect()
                })
                .unwrap_or_default();
            let backend_id = n.backend_node_id.get(i).copied().unwrap_or(0);
            let parent =
                n.parent_index.get(i).and_then(|&p| usize::try_from(p).ok()).filter(|&p| p < count).map(|p| first + p);
            let in_ua_shadow = shadow.get(&i).is_some_and(|t| *t == "user-agent");
            self.nodes.push(Node {
                kind: if in_ua_shadow { NodeKind::Other } else { kind },
                tag,
                text,
                attrs,
                parent,
                children: Vec::new(),
                frame,
                backend_id,
                layout: layout_of.remove(&i),
                ax: Accessibility { node: ax.and_then(|m| m.get(&backend_id).copied()), derived: None },
                input_value: input_values.get(&i).copied().or_else(|| text_values.get(&i).copied()),
                checked: checked.contains(&i),
                option_selected: selected.contains(&i),
                clickable: clickable.contains(&i),
                layout_text: layout_texts.get(&i).copied(),
                remembered_secret: false,
                framed: Vec::new(),
            });
        }
        for id in first..self.nodes.len() {
            if let Some(p) = self.nodes[id].parent
                && self.nodes[id].kind != NodeKind::Other
            {
                self.nodes[p].children.push(id);
            }
        }
        Some(first)
    }

    /// Hangs a document under `parent` (an `<iframe>`, or the page root as a fallback) and
    /// shifts its bounds into main-frame coordinates.
    fn attach_document(&mut self, doc_root: NodeId, parent: NodeId) {
        self.nodes[doc_root].parent = Some(parent);
        self.nodes[parent].children.push(doc_root);
        let parent_frame_offset = self.frames[self.nodes[parent].frame].offset;
        let (dx, dy) = match self.nodes[parent].bounds() {
            // The iframe's own bounds are already in main-frame coordinates. Its border and
            // padding are not captured, so its content may sit a few pixels further in.
            Some(b) if self.nodes[parent].tag == "iframe" => (b.x, b.y),
            _ => parent_frame_offset,
        };
        let frame = self.nodes[doc_root].frame;
        self.frames[frame].offset = (dx, dy);
        let mut stack = vec![doc_root];
        while let Some(id) = stack.pop() {
            if self.nodes[id].frame != frame {
                continue; // a nested document, shifted when it is attached
            }
            if let Some(layout) = self.nodes[id].layout.as_mut() {
                layout.bounds.x += dx;
                layout.bounds.y += dy;
            }
            stack.extend(self.nodes[id].children.iter().copied());
        }
    }

    /// The node's frame.
    pub fn frame_of(&self, id: NodeId) -> &FrameInfo {
        &self.frames[self.nodes[id].frame]
    }

    /// The node's identity across captures of its document (what refs are bound to).
    pub fn node_key(&self, id: NodeId) -> crate::refs::NodeKey {
        let frame = self.frame_of(id);
        crate::refs::NodeKey {
            frame_id: frame.frame_id.clone(),
            loader_id: frame.loader_id.clone(),
            backend_node_id: self.nodes[id].backend_id,
        }
    }

    /// Ancestors of `id`, nearest first (inside another site's frame, up to its document).
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].parent, move |&p| self.nodes[p].parent)
    }
}
