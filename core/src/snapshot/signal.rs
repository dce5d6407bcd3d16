//! Stage 1 of the pipeline: signal filtering. Decides, for every node, whether it can reach
//! the agent at all, and why not.
//!
//! * Visibility — not rendered (`display: none`, no layout object), `visibility: hidden`,
//!   `opacity: 0` (which hides the whole subtree), zero size (for elements with nothing visible
//!   inside). Content under `aria-hidden="true"` or the `hidden` attribute is hidden from
//!   assistive technology: it loses its semantics (no refs, no roles, no decorative images) but
//!   what of it is still painted on screen stays as plain text, because a sighted user reads it.
//!   A dialog is the exception: a dialog marked aria-hidden that is on screen keeps everything,
//!   so a modal is never lost.
//!   Clipping by an `overflow: hidden` ancestor is deliberately not inferred: deciding it needs
//!   containing blocks and transforms the capture does not carry, and a wrong guess would hide
//!   text that is on screen. Clipped content is kept.
//! * Lone separators — text nodes that are a single separator character (`|`, `·`, `•`, `›`…),
//!   unless they are the content of an actionable element. Punctuation that belongs to a
//!   sentence (a full stop after a link) stays.
//! * Noise tags — `script`, `style`, `noscript`, `template`, `meta`, `link`, `head` and friends.
//! * A page hidden while it loads — anti-flicker snippets of A/B-testing tools put
//!   `opacity: 0` (or `visibility: hidden`) on `<html>` or `<body>` until a script or a timeout
//!   takes it off. When the root of the page is hidden that way over plenty of content, the page
//!   is still loading, not empty: its content is judged as if the root were shown, and the
//!   snapshot says in its first line that the page hides itself ([`HiddenRoot`]). The settling
//!   wait before a capture already waits (within its cap) for such a page to show itself.
//!
//! Paint-order occlusion lives in [`super::occlusion`]; this module never looks at other nodes' boxes.

use super::tree::{NodeId, NodeKind, PageTree};

/// Why a node does not reach the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// Not rendered or not visible.
    Invisible,
    /// A lone one-character separator.
    TinyText,
    /// A non-content tag.
    Noise,
    /// Fully covered by something painted on top of it.
    Occluded,
}

/// Tags whose content is never page content.
pub const NOISE_TAGS: &[&str] =
    &["script", "style", "noscript", "template", "meta", "link", "head", "title", "base", "object", "param"];

/// Text a hidden root must hold before the page counts as loading rather than empty.
pub const HIDDEN_ROOT_MIN_CHARS: usize = 200;

/// The root of the page (`<html>` or `<body>`) hides itself over content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenRoot {
    /// The hidden element.
    pub node: NodeId,
    /// Its tag, `html` or `body`.
    pub tag: String,
    /// How it hides: `opacity: 0` or `visibility: hidden`.
    pub how: &'static str,
}

impl HiddenRoot {
    /// The note the snapshot opens with.
    pub fn note(&self) -> String {
        format!(
            "the page hides itself with its own styles ({} on <{}>), as pages do while they load; its content is shown as it would appear",
            self.how, self.tag
        )
    }
}

/// The verdict of every node.
#[derive(Debug, Clone, Default)]
pub struct Signal {
    /// `None` when the node may reach the agent.
    pub dropped: Vec<Option<DropReason>>,
    /// Whether the node is laid out and visible itself (a kept element may be invisible itself
    /// yet hold visible children, e.g. `display: contents` or `visibility: hidden` parents).
    pub visible_self: Vec<bool>,
    /// Hidden from assistive technology (`aria-hidden`, `hidden`): kept as text only.
    pub ax_hidden: Vec<bool>,
    /// The page's root hides itself over content; its content is judged as if it were shown.
    pub hidden_root: Option<HiddenRoot>,
}

impl Signal {
    /// Whether `id` may reach the agent.
    pub fn kept(&self, id: NodeId) -> bool {
        self.dropped[id].is_none()
    }
}

/// Decides visibility, lone separators and noise tags for every node.
pub fn filter(tree: &PageTree, actionable: &[bool]) -> Signal {
    let n = tree.nodes.len();
    let hidden_root = hidden_root(tree);
    let revealed = hidden_root.as_ref().map(|h| h.node);
    let mut signal =
        Signal { dropped: vec![None; n], visible_self: vec![false; n], ax_hidden: vec![false; n], hidden_root: None };
    // Walk from the root with the subtree-wide verdicts inherited from ancestors, and whether
    // a revealed root's `visibility: hidden` is inherited.
    let mut stack: Vec<(NodeId, Option<DropReason>, bool, bool)> = vec![(tree.root, None, false, false)];
    while let Some((id, inherited, hidden_above, shown_above)) = stack.pop() {
        let node = &tree.nodes[id];
        let own = match inherited {
            Some(verdict) => Some(verdict),
            None if revealed == Some(id) => None,
            None => subtree_verdict(tree, id),
        };
        let shown =
            shown_above || (revealed == Some(id) && hidden_root.as_ref().is_some_and(|h| h.how != OPACITY_ZERO));
        let ax_hidden = match ax_hidden_verdict(tree, id) {
            AxHidden::Hidden => true,
            AxHidden::Dialog => false,
            AxHidden::Inherit => hidden_above,
        };
        signal.ax_hidden[id] = ax_hidden;
        let visible_self = own.is_none() && renders_itself(tree, id, shown);
        signal.visible_self[id] = visible_self;
        signal.dropped[id] = own.or_else(|| match node.kind {
            NodeKind::Text if !visible_self => Some(DropReason::Invisible),
            NodeKind::Text if is_tiny_separator(node.text) && !parent_is_actionable(tree, id, actionable) => {
                Some(DropReason::TinyText)
            }
            _ => None,
        });
        for &child in node.children.iter().rev() {
            stack.push((child, own, ax_hidden, shown && node.frame == tree.nodes[child].frame));
        }
        // Another site's frame shows only what its `<iframe>` shows: nothing of a hidden one or
        // a tracking pixel, though the document inside lays itself out all the same.
        let frame_verdict = if visible_self && frame_box_shows(tree, id) { own } else { Some(DropReason::Invisible) };
        for document in tree.framed_documents(id) {
            stack.push((document, frame_verdict, ax_hidden, false));
        }
    }
    // An element that is neither visible itself nor holds anything visible is invisible too.
    for id in (0..n).rev() {
        let node = &tree.nodes[id];
        if node.kind == NodeKind::Element
            && signal.dropped[id].is_none()
            && !signal.visible_self[id]
            && !tree.children_and_framed(id).any(|c| signal.dropped[c].is_none())
        {
            signal.dropped[id] = Some(DropReason::Invisible);
        }
    }
    signal.hidden_root = hidden_root;
    signal
}

const OPACITY_ZERO: &str = "opacity: 0";

/// The page's `<html>` or `<body>` when it hides itself (`opacity: 0`, `visibility: hidden`)
/// over at least [`HIDDEN_ROOT_MIN_CHARS`] of laid-out text.
fn hidden_root(tree: &PageTree) -> Option<HiddenRoot> {
    let element_child = |parent: NodeId, tag: &str| {
        tree.nodes[parent]
            .children
            .iter()
            .copied()
            .find(|&c| tree.nodes[c].kind == NodeKind::Element && tree.nodes[c].tag == tag)
    };
    let html = element_child(tree.root, "html")?;
    let body = element_child(html, "body");
    for id in std::iter::once(html).chain(body) {
        let Some(layout) = &tree.nodes[id].layout else { continue };
        let how = if layout.opacity <= 0.0 {
            OPACITY_ZERO
        } else if layout.visibility == "hidden" || layout.visibility == "collapse" {
            "visibility: hidden"
        } else {
            continue;
        };
        if laid_out_text(tree, id) >= HIDDEN_ROOT_MIN_CHARS {
            return Some(HiddenRoot { node: id, tag: tree.nodes[id].tag.clone(), how });
        }
        return None;
    }
    None
}

/// Characters of text laid out under `id` in its document, outside noise tags.
fn laid_out_text(tree: &PageTree, id: NodeId) -> usize {
    let mut chars = 0;
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        let node = &tree.nodes[x];
        match node.kind {
            NodeKind::Text if node.layout.as_ref().is_some_and(|l| l.bounds.w > 0.0 || l.bounds.h > 0.0) => {
                chars += node.text.trim().chars().count();
            }
            NodeKind::Element if NOISE_TAGS.contains(&node.tag.as_str()) => {}
            NodeKind::Element => {
                stack.extend(node.children.iter().copied().filter(|&c| tree.nodes[c].frame == node.frame))
            }
            _ => {}
        }
    }
    chars
}

/// Whether `id` decides something for everything inside it: a verdict that drops what it holds
/// (noise, `opacity: 0`), hiding it from assistive technology, or a dialog that shows it again.
/// The depth bound keeps such a node an ancestor of what it holds (`super::depth`).
pub fn rules_its_subtree(tree: &PageTree, id: NodeId) -> bool {
    subtree_verdict(tree, id).is_some() || !matches!(ax_hidden_verdict(tree, id), AxHidden::Inherit)
}

/// A verdict that covers the node and everything inside it.
fn subtree_verdict(tree: &PageTree, id: NodeId) -> Option<DropReason> {
    let node = &tree.nodes[id];
    if node.kind == NodeKind::Other {
        return Some(DropReason::Noise);
    }
    if node.kind != NodeKind::Element {
        return None;
    }
    if NOISE_TAGS.contains(&node.tag.as_str()) {
        return Some(DropReason::Noise);
    }
    if let Some(layout) = &node.layout
        && layout.opacity <= 0.0
    {
        return Some(DropReason::Invisible);
    }
    None
}

enum AxHidden {
    /// Starts a subtree hidden from assistive technology.
    Hidden,
    /// A dialog on screen: never hidden, whatever its markup says.
    Dialog,
    /// As its parent.
    Inherit,
}

fn ax_hidden_verdict(tree: &PageTree, id: NodeId) -> AxHidden {
    let node = &tree.nodes[id];
    if node.kind != NodeKind::Element {
        return AxHidden::Inherit;
    }
    // A node hidden from assistive technology has no accessible role: read the attribute too.
    let role_attr = node.attr("role").unwrap_or("").trim().to_ascii_lowercase();
    let is_dialog = matches!(node.ax.role().as_str(), "dialog" | "alertdialog")
        || matches!(role_attr.as_str(), "dialog" | "alertdialog")
        || node.tag == "dialog";
    if is_dialog && node.layout.is_some() {
        return AxHidden::Dialog;
    }
    if node.aria_hidden() || node.has_attr("hidden") {
        return AxHidden::Hidden;
    }
    AxHidden::Inherit
}

/// Whether the node itself is painted: laid out, `visibility: visible` (or under a revealed
/// hidden root, `shown`), non-empty box (text nodes and `<br>` may be zero-width).
fn renders_itself(tree: &PageTree, id: NodeId, shown: bool) -> bool {
    let node = &tree.nodes[id];
    let Some(layout) = &node.layout else { return false };
    if (layout.visibility == "hidden" || layout.visibility == "collapse") && !shown {
        return false;
    }
    match node.kind {
        NodeKind::Text => layout.bounds.w > 0.0 || layout.bounds.h > 0.0,
        NodeKind::Element => !layout.bounds.is_empty() || node.tag == "br",
        _ => true,
    }
}

/// Whether the box of `<iframe>` `id` is large enough to show anything: a frame narrower or
/// shorter than two pixels is a tracking pixel.
fn frame_box_shows(tree: &PageTree, id: NodeId) -> bool {
    tree.nodes[id].bounds().is_some_and(|b| b.w >= 2.0 && b.h >= 2.0)
}

/// Whether `<iframe>` `id` shows a frame at all: it is kept, painted itself, and not a
/// tracking pixel. The content of another site's frame, and the line of a refused one, are
/// written only then.
pub fn shows_a_frame(tree: &PageTree, signal: &Signal, id: NodeId) -> bool {
    signal.kept(id) && signal.visible_self[id] && frame_box_shows(tree, id)
}

/// Characters that only separate things.
const SEPARATORS: &[char] = &[
    '|', '·', '•', '∙', '⋅', '/', '\\', '–', '—', '-', '›', '»', '«', '‹', '~', '▪', '■', '□', '◦', '●', '○', '★', '☆',
    '♦', '◆', '►', '▸', '▶', '❯', '⁄', '¦',
];

fn is_tiny_separator(text: &str) -> bool {
    let trimmed = text.trim();
    let mut chars = trimmed.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => SEPARATORS.contains(&c),
        _ => false,
    }
}

fn parent_is_actionable(tree: &PageTree, id: NodeId, actionable: &[bool]) -> bool {
    tree.ancestors(id).take_while(|&a| tree.nodes[a].kind == NodeKind::Element).any(|a| actionable[a])
}
