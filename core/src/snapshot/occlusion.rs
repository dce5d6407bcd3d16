//! Paint-order occlusion: a node whose box is entirely covered by opaque boxes painted on
//! top of it (a modal, a cookie banner, a loading overlay) is not visible to the user.
//!
//! Nodes are visited from the last painted to the first. Each opaque box (opacity ≥ 0.8 all
//! the way up, and a background that is not transparent) joins a union of rectangles; a node
//! whose box the union covers completely is occluded. A node is never occluded by its own
//! descendants (a button's opaque label paints over the button but does not hide it), and
//! paint orders are only compared within one document.
//!
//! Two kinds of box never cover anything, because what they paint is smaller than their box:
//! an inline element (a link that wraps over two lines has a box spanning both lines, but its
//! background only paints behind its words), and an element inside a collapsed box (zero width
//! or height) that it overflows — the usual way to hide a dropdown menu is a zero-height
//! wrapper with `overflow: hidden`, and the capture does not say which overflow is clipped.
//!
//! Nor does a bar fixed to the viewport (a `position: fixed` or `sticky` box as wide as the
//! viewport and at most a quarter of its height, and everything in it): a sticky header or a
//! cookie strip sits over whatever the page has scrolled under it, which is still there a scroll
//! away. Any other fixed box (a modal, its backdrop, a loading screen) does cover what lies
//! beneath.

use super::signal::{DropReason, Signal};
use super::tree::{NodeId, NodeKind, PageTree, Rect};

/// A union of rectangles that answers "is this rectangle fully covered?".
#[derive(Debug, Default)]
pub struct RectUnion {
    rects: Vec<(Rect, NodeId)>,
}

impl RectUnion {
    /// Whether `target` is fully covered by the union's rectangles, ignoring those whose owner
    /// `skip` rejects.
    pub fn covers(&self, target: Rect, skip: impl Fn(NodeId) -> bool) -> bool {
        if target.is_empty() {
            return false;
        }
        let mut remaining = vec![target];
        for (cover, owner) in &self.rects {
            if skip(*owner) {
                continue;
            }
            let mut next = Vec::with_capacity(remaining.len());
            for piece in remaining {
                if piece.intersection(cover).is_empty() {
                    next.push(piece);
                } else {
                    next.extend(subtract(piece, *cover));
                }
            }
            remaining = next;
            if remaining.is_empty() {
                return true;
            }
        }
        false
    }

    /// Adds a rectangle owned by `owner`.
    pub fn add(&mut self, rect: Rect, owner: NodeId) {
        if !rect.is_empty() {
            self.rects.push((rect, owner));
        }
    }
}

/// The parts of `target` not covered by `cover` (at most four rectangles).
fn subtract(target: Rect, cover: Rect) -> Vec<Rect> {
    let mut parts = Vec::with_capacity(4);
    if target.y < cover.y {
        parts.push(Rect { x: target.x, y: target.y, w: target.w, h: cover.y - target.y });
    }
    if cover.bottom() < target.bottom() {
        parts.push(Rect { x: target.x, y: cover.bottom(), w: target.w, h: target.bottom() - cover.bottom() });
    }
    let top = target.y.max(cover.y);
    let bottom = target.bottom().min(cover.bottom());
    if target.x < cover.x {
        parts.push(Rect { x: target.x, y: top, w: cover.x - target.x, h: bottom - top });
    }
    if cover.right() < target.right() {
        parts.push(Rect { x: cover.right(), y: top, w: target.right() - cover.right(), h: bottom - top });
    }
    parts.retain(|r| r.w > 0.01 && r.h > 0.01);
    parts
}

/// Whether a CSS colour is transparent or mostly so (alpha below 0.8).
pub fn is_transparent(colour: &str) -> bool {
    let c = colour.trim();
    if c.is_empty() || c == "transparent" {
        return true;
    }
    if let Some(inner) = c.strip_prefix("rgba(").and_then(|r| r.strip_suffix(')')) {
        let alpha = inner.rsplit(',').next().and_then(|a| a.trim().parse::<f64>().ok()).unwrap_or(1.0);
        return alpha < 0.8;
    }
    false
}

/// Marks every kept node that is fully covered by opaque boxes painted above it.
pub fn apply(tree: &PageTree, signal: &mut Signal) -> usize {
    let n = tree.nodes.len();
    // Pre/post order numbers make "is a descendant of" an O(1) test.
    let (mut pre, mut post) = (vec![0usize; n], vec![0usize; n]);
    let mut clock = 0;
    let mut stack = vec![(tree.root, false)];
    while let Some((id, done)) = stack.pop() {
        clock += 1;
        if done {
            post[id] = clock;
            continue;
        }
        pre[id] = clock;
        stack.push((id, true));
        let inside: Vec<NodeId> = tree.children_and_framed(id).collect();
        for &c in inside.iter().rev() {
            stack.push((c, false));
        }
    }
    let descends = |child: NodeId, ancestor: NodeId| pre[ancestor] < pre[child] && post[child] < post[ancestor];

    // Effective opacity multiplies down the tree; a collapsed box clips (as far as we can tell)
    // what it holds.
    let mut opacity = vec![1.0f64; n];
    let mut in_collapsed = vec![false; n];
    let mut in_bar = vec![false; n];
    let (viewport_w, viewport_h) = tree.viewport;
    let mut order: Vec<NodeId> = Vec::new();
    let mut walk = vec![tree.root];
    while let Some(id) = walk.pop() {
        order.push(id);
        // A hidden root the signal stage revealed counts as shown.
        let revealed = signal.hidden_root.as_ref().is_some_and(|h| h.node == id);
        let own = if revealed { 1.0 } else { tree.nodes[id].layout.as_ref().map(|l| l.opacity).unwrap_or(1.0) };
        let host = tree.host(id);
        let inherited = host.map(|p| opacity[p]).unwrap_or(1.0);
        opacity[id] = own * inherited;
        in_collapsed[id] = host
            .is_some_and(|p| in_collapsed[p] || (tree.nodes[p].frame == tree.nodes[id].frame && collapses(tree, p)));
        in_bar[id] = match tree.nodes[id].layout.as_ref() {
            Some(l) if matches!(l.position.as_str(), "fixed" | "sticky") => {
                viewport_h > 0.0 && l.bounds.w >= 0.9 * viewport_w && l.bounds.h <= viewport_h / 4.0
            }
            _ => host.is_some_and(|p| in_bar[p]),
        };
        walk.extend(tree.children_and_framed(id));
    }

    let mut by_frame: std::collections::BTreeMap<usize, Vec<NodeId>> = std::collections::BTreeMap::new();
    for id in order {
        if signal.kept(id)
            && signal.visible_self[id]
            && matches!(tree.nodes[id].kind, NodeKind::Element | NodeKind::Text)
        {
            by_frame.entry(tree.nodes[id].frame).or_default().push(id);
        }
    }
    let mut occluded = 0;
    for (_, mut ids) in by_frame {
        // Last painted first; among equal paint orders, later in the document first.
        ids.sort_by_key(|&id| {
            std::cmp::Reverse((tree.nodes[id].layout.as_ref().map(|l| l.paint_order).unwrap_or(0), pre[id]))
        });
        let mut union = RectUnion::default();
        for id in ids {
            let Some(layout) = &tree.nodes[id].layout else { continue };
            let rect = layout.bounds;
            if union.covers(rect, |owner| descends(owner, id)) {
                signal.dropped[id] = Some(DropReason::Occluded);
                occluded += 1;
                continue;
            }
            if tree.nodes[id].kind == NodeKind::Element
                && opacity[id] >= 0.8
                && !is_transparent(&layout.background)
                && layout.display != "inline"
                && !in_collapsed[id]
                && !in_bar[id]
            {
                union.add(rect, id);
            }
        }
    }
    occluded
}

/// Whether `id` is a laid-out block with no width or no height (not the page's own root).
fn collapses(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    let Some(layout) = &node.layout else { return false };
    node.kind == NodeKind::Element
        && !matches!(node.tag.as_str(), "html" | "body")
        && !matches!(layout.display.as_str(), "inline" | "contents" | "")
        && (layout.bounds.w <= 0.0 || layout.bounds.h <= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    #[test]
    fn a_rectangle_covered_by_two_halves_is_covered() {
        let mut u = RectUnion::default();
        u.add(r(0.0, 0.0, 50.0, 100.0), 1);
        u.add(r(50.0, 0.0, 50.0, 100.0), 2);
        assert!(u.covers(r(10.0, 10.0, 80.0, 80.0), |_| false));
        assert!(!u.covers(r(90.0, 10.0, 20.0, 10.0), |_| false), "sticks out on the right");
    }

    #[test]
    fn skipped_owners_do_not_cover() {
        let mut u = RectUnion::default();
        u.add(r(0.0, 0.0, 100.0, 100.0), 7);
        assert!(!u.covers(r(10.0, 10.0, 10.0, 10.0), |owner| owner == 7));
    }

    #[test]
    fn colours_with_low_alpha_are_transparent() {
        assert!(is_transparent("rgba(0, 0, 0, 0)"));
        assert!(is_transparent("rgba(0, 0, 0, 0.5)"));
        assert!(!is_transparent("rgb(255, 255, 255)"));
        assert!(!is_transparent("rgba(255, 255, 255, 0.9)"));
    }
}
