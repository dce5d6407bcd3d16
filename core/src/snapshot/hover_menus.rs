//! Menus that open on hover under a trigger that is a plain word (`li:hover > ul { display:
//! block }`): a list item that shows words of its own but no target, and holds targets the page
//! hides, is a target itself ([`hidden_menu`], what it hides is written on its line); once its
//! menu shows under the pointer, an item that was given a ref keeps it ([`open_menu`]).

use super::actionable::{is_candidate, native_toggle};
use super::tree::{Node, NodeId, NodeKind, PageTree};

/// The most nodes a list item that opens a menu on hover holds (a mega menu of a few hundred
/// links is well within it).
const MENU_NODES_AT_MOST: usize = 4_000;

/// What a list item that opens a menu on hover hides: `(links, other targets)` when `id` is a
/// shown `<li>` with words of its own, no target shown in it, and at least one target in a part
/// of it the page hides (not rendered, `visibility: hidden` or `opacity: 0`). Targets here are
/// elements that are targets by what they are, not by a listener alone (`semantic`, by node,
/// when the caller has them).
pub fn hidden_menu(tree: &PageTree, id: NodeId, semantic: &[bool]) -> Option<(usize, usize)> {
    let menu = read_menu(tree, id, semantic, true)?;
    (menu.words && menu.hidden_links + menu.hidden_others > 0).then_some((menu.hidden_links, menu.hidden_others))
}

/// Whether `id` is a list item that opens a menu on hover, shown open: a shown `<li>` with
/// words of its own and targets in it, shown or not. Such an item is a target only when it
/// was one before ([`candidates`]): the pointer rests on it, so the menu it hid shows now.
pub fn open_menu(tree: &PageTree, id: NodeId, semantic: &[bool]) -> bool {
    read_menu(tree, id, semantic, false)
        .is_some_and(|menu| menu.words && menu.shown + menu.hidden_links + menu.hidden_others > 0)
}

/// What a list item holds, read for a menu.
struct MenuReading {
    /// Whether it shows words of its own (outside its targets).
    words: bool,
    /// Targets it shows.
    shown: usize,
    /// Links in parts of it the page hides.
    hidden_links: usize,
    /// Other targets in parts of it the page hides.
    hidden_others: usize,
}

/// Reads `id` for a menu: `None` when it is no shown `<li>`, holds more than
/// [`MENU_NODES_AT_MOST`] nodes, or (when `stop_at_shown`) shows a target.
fn read_menu(tree: &PageTree, id: NodeId, semantic: &[bool], stop_at_shown: bool) -> Option<MenuReading> {
    let node = &tree.nodes[id];
    if node.tag != "li" || node.layout.is_none() || node.aria_hidden() {
        return None;
    }
    let mut menu = MenuReading { words: false, shown: 0, hidden_links: 0, hidden_others: 0 };
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
            menu.words |= !hidden && child.layout_text.is_some_and(|t| !t.trim().is_empty());
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

/// An element the page hides with all it holds: `visibility: hidden` or fully transparent. (One
/// not rendered has no layout, nor has anything in it; an element with `display: contents` has
/// none either while its content shows, so the targets and words are judged by their own.)
fn concealed(node: &Node<'_>) -> bool {
    node.layout.as_ref().is_some_and(|layout| layout.visibility != "visible" || layout.opacity <= 0.0)
}
