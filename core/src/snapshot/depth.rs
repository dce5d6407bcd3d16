//! A bound on how deep the page tree is, set once, as the tree is built, so that no later walk
//! of it (names from content, the outline, tables, lists, regions) can exhaust the stack or
//! take time in proportion to the depth of a hostile page for each node it holds.
//!
//! A page may nest elements tens of thousands deep (a script can; the HTML parser itself stops
//! at 512 and hangs deeper elements on the 512th, which is where the idea comes from). Ordinary
//! pages stay far below [`DEEPEST`]: a tree no deeper than that is left exactly as it is. In a
//! deeper tree, every branch deeper than [`DEEPEST`] is folded:
//!
//! * its first [`KEPT_ABOVE`] levels keep their shape; the node at that depth is the branch's
//!   *anchor*;
//! * its last [`KEPT_BELOW`] levels keep their shape too: any node whose subtree is at most that
//!   deep stays whole, so a button at the bottom keeps its text, a list its items;
//! * the nodes in between (the *spine*) lose their place and hang, in document order, under the
//!   anchor, each together with any whole subtree it held. Nothing is dropped: every text and
//!   every control still reaches the snapshot, in the order it is read.
//!
//! A spine node that decides something for everything it holds (a document, something hidden
//! or hiding it from assistive technology, a dialog: [`super::signal::rules_its_subtree`]) stays
//! the ancestor of what it held, up to [`RULING_KEPT`] of them per branch, so that what a page
//! hid stays hidden however deep it hid it.

use super::signal::rules_its_subtree;
use super::tree::{NodeId, NodeKind, PageTree};

/// A tree at most this many levels deep (the main document at level 0) is left as it is.
pub const DEEPEST: usize = KEPT_ABOVE + KEPT_BELOW + 1;
/// The levels of a deep branch kept in shape from the top; the node at this depth anchors what
/// the fold moves.
pub const KEPT_ABOVE: usize = 256;
/// Levels kept in shape at the bottom of a deep branch: a subtree at most this deep stays whole.
pub const KEPT_BELOW: usize = 63;
/// Spine nodes that rule their subtree kept as ancestors of what they held, per branch. A
/// folded tree is at most [`DEEPEST`] + [`RULING_KEPT`] levels deep.
pub const RULING_KEPT: usize = 8;

/// Folds the branches of `tree` deeper than [`DEEPEST`] (see the module comment). Returns how
/// many nodes were moved.
pub fn bound(tree: &mut PageTree) -> usize {
    let n = tree.nodes.len();
    let mut is_child = vec![false; n];
    for node in &tree.nodes {
        for &c in &node.children {
            is_child[c] = true;
        }
    }
    // Every node reached from a root (a node no children list holds: the main document, and the
    // insides of user-agent shadow trees), parents before children, in reading order.
    // Each node is taken once, even from a malformed capture that lists it twice.
    let mut order = Vec::with_capacity(n);
    let mut depth = vec![0usize; n];
    let mut reached = vec![false; n];
    let mut stack: Vec<NodeId> = Vec::new();
    for root in (0..n).filter(|&id| !is_child[id]) {
        stack.push(root);
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut reached[id], true) {
                continue;
            }
            order.push(id);
            for &c in tree.nodes[id].children.iter().rev() {
                depth[c] = depth[id] + 1;
                stack.push(c);
            }
        }
    }
    if order.iter().all(|&id| depth[id] <= DEEPEST) {
        return 0;
    }
    // How many levels lie below each node.
    let mut height = vec![0usize; n];
    for &id in order.iter().rev() {
        if let Some(p) = tree.nodes[id].parent.filter(|&p| is_child[id] && p < n) {
            height[p] = height[p].max(height[id] + 1);
        }
    }
    // Where the spine below each node hangs: the anchor, or the innermost spine node that rules
    // its subtree; and how many of those are kept on the way down.
    let mut hang_on: Vec<NodeId> = (0..n).collect();
    let mut ruling = vec![0usize; n];
    let mut parent_of: Vec<Option<NodeId>> = tree.nodes.iter().map(|node| node.parent).collect();
    let mut moved = 0;
    for &id in &order {
        let Some(p) = tree.nodes[id].parent.filter(|_| is_child[id]) else { continue };
        let on_spine = |x: NodeId| depth[x] > KEPT_ABOVE && height[x] > KEPT_BELOW;
        if depth[id] <= KEPT_ABOVE {
            continue; // its own hang point: the top keeps its shape
        }
        (hang_on[id], ruling[id]) = (hang_on[p], ruling[p]);
        if on_spine(p) {
            parent_of[id] = Some(hang_on[p]);
            moved += 1;
        }
        if on_spine(id) && ruling[id] < RULING_KEPT && rules(tree, id) {
            (hang_on[id], ruling[id]) = (id, ruling[id] + 1);
        }
    }
    if moved == 0 {
        return 0;
    }
    for &id in &order {
        tree.nodes[id].children.clear();
    }
    for &id in &order {
        if is_child[id]
            && let Some(p) = parent_of[id]
        {
            tree.nodes[p].children.push(id);
        }
    }
    for (node, parent) in tree.nodes.iter_mut().zip(parent_of) {
        node.parent = parent;
    }
    moved
}

/// Whether spine node `id` stays the ancestor of what it holds (see the module comment).
fn rules(tree: &PageTree, id: NodeId) -> bool {
    tree.nodes[id].kind == NodeKind::Document || rules_its_subtree(tree, id)
}
