//! Menus that open on hover under a trigger that is a plain word: a list item
//! (`li:hover > ul { display: block }`) or a box (`.dropdown:hover > .dropdown-content`) that
//! shows words of its own but no target, and holds targets the page hides, is a target itself
//! ([`hidden_menu`], what it hides is written on its line); once its menu shows under the
//! pointer, one that was given a ref keeps it ([`open_menu`]).
//!
//! A box (`div`, `span`) is held to more than a list item, as boxes hold whole pages: its words
//! are a label (at most [`LABEL_CHARS_AT_MOST`] characters), and one of its own children is the
//! part the page hides with the targets in it, as a dropdown's content is.

use super::actionable::{is_candidate, native_toggle};
use super::tree::{Node, NodeId, NodeKind, PageTree};

/// The most nodes an element that opens a menu on hover holds (a mega menu of a few hundred
/// links is well within it).
const MENU_NODES_AT_MOST: usize = 4_000;

/// The longest words a box that opens a menu shows of its own ("Products", "My account ▾"); a
/// box showing more is content with something hidden in it, not a menu's trigger.
pub const LABEL_CHARS_AT_MOST: usize = 40;

/// What an element that opens a menu on hover hides: `(links, other targets)` when `id` is a
/// shown list item or box with words of its own, no target shown in it, and at least one
/// target in a part of it the page hides (not rendered, `visibility: hidden` or `opacity: 0`).
/// Targets here are elements that are targets by what they are, not by a listener alone
/// (`semantic`, by node, when the caller has them).
pub fn hidden_menu(tree: &PageTree, id: NodeId, semantic: &[bool]) -> Option<(usize, usize)> {
    let is_box = tree.nodes[id].tag != "li";
    // Most boxes hide no child at all: asked first, it spares the walk below.
    if is_box && !hides_a_child(tree, id) {
        return None;
    }
    let menu = read_menu(tree, id, semantic, true)?;
    if !menu.words || menu.hidden_links + menu.hidden_others == 0 {
        return None;
    }
    if is_box && (menu.word_chars > LABEL_CHARS_AT_MOST || !hides_a_child_with_targets(tree, id, semantic)) {
        return None;
    }
    Some((menu.hidden_links, menu.hidden_others))
}

/// Whether one of `id`'s own children is an element the page hides.
fn hides_a_child(tree: &PageTree, id: NodeId) -> bool {
    hidden_children(tree, id).next().is_some()
}

/// `id`'s own children that are elements the page hides (not rendered, or concealed).
fn hidden_children<'t>(tree: &'t PageTree, id: NodeId) -> impl Iterator<Item = NodeId> + 't {
    tree.nodes[id].children.iter().copied().filter(|&c| {
        let child = &tree.nodes[c];
        child.kind == NodeKind::Element && (child.layout.is_none() || concealed(child))
    })
}

/// Whether `id` is an element that opens a menu on hover, shown open: a shown list item or box
/// with words of its own and targets in it, shown or not. Such an element is a target only when
/// it was one before (`super::actionable::candidates`): the pointer rests on it, so the menu it
/// hid shows now.
pub fn open_menu(tree: &PageTree, id: NodeId, semantic: &[bool]) -> bool {
    read_menu(tree, id, semantic, false)
        .is_some_and(|menu| menu.words && menu.shown + menu.hidden_links + menu.hidden_others > 0)
}

/// Whether `id`, a box, shows an element `candidate` marks (a target by a listener alone
/// counts): such a box's words are that target's, so it is no menu's label.
pub fn shows_a_candidate(tree: &PageTree, id: NodeId, candidate: &[bool]) -> bool {
    let mut stack: Vec<NodeId> = tree.nodes[id].children.clone();
    while let Some(x) = stack.pop() {
        let node = &tree.nodes[x];
        if concealed(node) || node.kind != NodeKind::Element {
            continue;
        }
        if candidate[x] && node.layout.is_some() {
            return true;
        }
        stack.extend(node.children.iter().copied());
    }
    false
}

/// Elements that can hold a menu a hover opens.
pub fn menu_host(node: &Node<'_>) -> bool {
    matches!(node.tag.as_str(), "li" | "div" | "span")
}

/// What an element holds, read for a menu.
struct MenuReading {
    /// Whether it shows words of its own (outside its targets).
    words: bool,
    /// How many characters those words have, spaces at their ends left out.
    word_chars: usize,
    /// Targets it shows.
    shown: usize,
    /// Links in parts of it the page hides.
    hidden_links: usize,
    /// Other targets in parts of it the page hides.
    hidden_others: usize,
}

/// Reads `id` for a menu: `None` when it is no shown [`menu_host`], holds more than
/// [`MENU_NODES_AT_MOST`] nodes, or (when `stop_at_shown`) shows a target.
fn read_menu(tree: &PageTree, id: NodeId, semantic: &[bool], stop_at_shown: bool) -> Option<MenuReading> {
    let node = &tree.nodes[id];
    if !menu_host(node) || node.layout.is_none() || node.aria_hidden() {
        return None;
    }
    let mut menu = MenuReading { words: false, word_chars: 0, shown: 0, hidden_links: 0, hidden_others: 0 };
    // (node, inside a part the page hides)
    let mut stack: Vec<(NodeId, bool)> = node.children.iter().map(|&c| (c, false)).collect();
    let mut visited = 0;
    while let Some((x, hidden)) = stack.pop() {
        // A menu item holds a menu, not a page: an item past this many nodes is none (and lists
        // nested thousands deep cost no more than this per item).
        visited += 1;
        if visited > MENU_NODES_AT_MOST {
            return None;
        }
        let child = &tree.nodes[x];
        let hidden = hidden || concealed(child);
        if child.kind == NodeKind::Text {
            if let Some(words) = child.layout_text.map(str::trim).filter(|t| !hidden && !t.is_empty()) {
                menu.words = true;
                menu.word_chars += words.chars().count();
            }
            continue;
        }
        if semantic.get(x).copied().unwrap_or_else(|| is_candidate(tree, x)) {
            if !hidden && child.layout.is_some() {
                if stop_at_shown {
                    return None;
                }
                menu.shown += 1;
                continue;
            }
            // A hidden native checkbox or radio stands behind a label a person sees (a styled
            // control): the label is its target, not a menu.
            match (native_toggle(child), child.tag == "a") {
                (true, _) => {}
                (false, true) => menu.hidden_links += 1,
                (false, false) => menu.hidden_others += 1,
            }
            continue;
        }
        stack.extend(child.children.iter().map(|&c| (c, hidden)));
    }
    Some(menu)
}

/// Whether one of `id`'s own children is hidden (not rendered, or concealed) and holds a
/// target: the dropdown's content, hidden as a whole. (A hidden link that is a child itself is
/// a link the page shows later, such as a follow button after a share, not a menu.)
fn hides_a_child_with_targets(tree: &PageTree, id: NodeId, semantic: &[bool]) -> bool {
    let target = |x: NodeId| semantic.get(x).copied().unwrap_or_else(|| is_candidate(tree, x));
    let holds_target = |c: NodeId| {
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if target(x) && !native_toggle(&tree.nodes[x]) {
                return true;
            }
            stack.extend(tree.nodes[x].children.iter().copied());
        }
        false
    };
    hidden_children(tree, id).any(|c| !target(c) && holds_target(c))
}

/// An element the page hides with all it holds: `visibility: hidden` or fully transparent. (One
/// not rendered has no layout, nor has anything in it; an element with `display: contents` has
/// none either while its content shows, so the targets and words are judged by their own.)
fn concealed(node: &Node<'_>) -> bool {
    node.layout.as_ref().is_some_and(|layout| layout.visibility != "visible" || layout.opacity <= 0.0)
}
