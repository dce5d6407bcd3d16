//! What an element says: its visible text, an editable area's text line by line, whether that
//! text starts or ends with a space (so an inline link stays apart from its neighbours), whether a
//! `<label>` only repeats the name of the control it labels (label deduplication), and whether an
//! element is laid out as a block.

use super::Builder;
use crate::snapshot::signal::DropReason;
use crate::snapshot::text::{normalise, words_covered};
use crate::snapshot::tree::{NodeId, NodeKind};

impl Builder<'_, '_> {
    /// The visible text inside `id`, in order, spaced as a reader sees it: a space where a box
    /// of its own (a block, an inline block), a line break or a dropped separator parts two
    /// texts, or where the second is drawn apart from the first (a count badge beside a label);
    /// texts drawn edge to edge run on (`<em>b</em><em>y</em>` reads "by").
    pub(super) fn visible_text(&self, id: NodeId) -> String {
        self.text_inside(id, false)
    }

    /// [`Builder::visible_text`] without the parts of `id` that hold targets: the words of a
    /// menu's trigger shown open ("Products"), not those of the menu it shows.
    pub(super) fn own_words(&self, id: NodeId) -> String {
        self.text_inside(id, true)
    }

    fn text_inside(&self, id: NodeId, skip_targets: bool) -> String {
        enum Step {
            Enter(NodeId),
            Space,
        }
        let mut out = String::new();
        // The text node written last, while nothing has parted it from what comes next.
        let mut last_text: Option<NodeId> = None;
        let mut stack = vec![Step::Enter(id)];
        while let Some(step) = stack.pop() {
            let x = match step {
                Step::Space => {
                    out.push(' ');
                    last_text = None;
                    continue;
                }
                Step::Enter(x) => x,
            };
            let node = &self.tree.nodes[x];
            let dropped = self.signal.dropped[x];
            if dropped.is_some() && dropped != Some(DropReason::Occluded) {
                // Collapsed whitespace between inline elements, or a separator too small to
                // read, still parts the words around it (as in the page's own lines).
                let parts_words = dropped == Some(DropReason::TinyText)
                    || (dropped == Some(DropReason::Invisible) && node.text.trim().is_empty());
                if node.kind == NodeKind::Text && parts_words {
                    out.push(' ');
                    last_text = None;
                }
                continue;
            }
            match node.kind {
                NodeKind::Text if dropped.is_none() => {
                    if let Some(before) = last_text
                        && !self.drawn_on(before, x)
                    {
                        out.push(' ');
                    }
                    out.push_str(node.text);
                    last_text = Some(x);
                }
                NodeKind::Element if node.tag == "br" || (skip_targets && x != id && self.holds_target(x)) => {
                    out.push(' ');
                    last_text = None;
                }
                NodeKind::Element if x != id && self.boxed_apart(x) => {
                    out.push(' ');
                    last_text = None;
                    stack.push(Step::Space);
                    stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c)));
                }
                _ => stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c))),
            }
        }
        normalise(&out)
    }

    /// Whether text node `next` is drawn right where text node `before` ends, on the same line,
    /// so the two read as one run of letters. Unsure (no boxes, a text over several lines whose
    /// box says nothing of where it ends) is no.
    fn drawn_on(&self, before: NodeId, next: NodeId) -> bool {
        const EDGE_TO_EDGE_PX: f64 = 1.5;
        let (Some(a), Some(b)) = (&self.tree.nodes[before].layout, &self.tree.nodes[next].layout) else {
            return false;
        };
        let (a, b) = (&a.bounds, &b.bounds);
        let same_line = (a.y - b.y).abs() < 1.0 && (a.h - b.h).abs() < a.h.max(b.h) * 0.5;
        let gap = b.x - a.right();
        same_line && (-EDGE_TO_EDGE_PX..=EDGE_TO_EDGE_PX).contains(&gap)
    }

    /// The text an editable area shows, as its value: a line per block (paragraph, list item)
    /// and per line break, spaces within a line as a reader sees them.
    pub(super) fn editable_text(&self, id: NodeId) -> String {
        enum Step {
            Enter(NodeId),
            Break,
        }
        let mut raw = String::new();
        let mut stack = vec![Step::Enter(id)];
        while let Some(step) = stack.pop() {
            let x = match step {
                Step::Break => {
                    raw.push('\n');
                    continue;
                }
                Step::Enter(x) => x,
            };
            if !self.signal.kept(x) {
                continue;
            }
            let node = &self.tree.nodes[x];
            match node.kind {
                NodeKind::Text => raw.push_str(node.text),
                NodeKind::Element if node.tag == "br" => raw.push('\n'),
                NodeKind::Element => {
                    let block = x != id && self.is_block(x);
                    if block {
                        raw.push('\n');
                        stack.push(Step::Break);
                    }
                    stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c)));
                }
                _ => {}
            }
        }
        raw.lines().map(normalise).filter(|line| !line.is_empty()).collect::<Vec<_>>().join("\n")
    }

    /// The alternative text of the first image (`img`, `svg`, `role=img`) shown inside `id`.
    pub(super) fn icon_name(&self, id: NodeId) -> Option<String> {
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.iter().rev().copied().collect();
        while let Some(x) = stack.pop() {
            if !self.signal.kept(x) {
                continue;
            }
            let node = &self.tree.nodes[x];
            let role = node.ax.role();
            if matches!(node.tag.as_str(), "img" | "svg") || role == "image" || role == "img" {
                let alt = normalise(node.attr("alt").unwrap_or(&node.ax.name()));
                let alt = if alt.is_empty() { normalise(&node.ax.name()) } else { alt };
                if !alt.is_empty() {
                    return Some(alt);
                }
                continue;
            }
            stack.extend(node.children.iter().rev().copied());
        }
        None
    }

    /// Whether the text inside `id` starts and ends with whitespace.
    pub(super) fn edge_whitespace(&self, id: NodeId) -> (bool, bool) {
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
    pub(super) fn label_repeats_control_name(&self, id: NodeId) -> bool {
        let node = &self.tree.nodes[id];
        let control = node
            .attr("for")
            .and_then(|target| {
                self.tree.nodes.iter().position(|n| n.frame == node.frame && n.attr("id") == Some(target))
            })
            .or_else(|| self.actionable_descendants(id).first().copied());
        // Only a control the agent is shown carries the label's words.
        let Some(control) = control.filter(|&c| self.actionable[c] && self.signal.kept(c)) else { return false };
        let text = self.visible_text(id);
        let name = normalise(&self.tree.nodes[control].ax.name());
        !text.is_empty() && !name.is_empty() && words_covered(&text, &name)
    }

    pub(super) fn is_block(&self, id: NodeId) -> bool {
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

    /// Whether `id` is laid out in a box of its own (a block, or an inline block, flex or grid
    /// item), whose text a reader sees apart from the text around it; plain inline elements
    /// (`<em>`, `<span>`) run on with their neighbours.
    fn boxed_apart(&self, id: NodeId) -> bool {
        let Some(layout) = &self.tree.nodes[id].layout else { return false };
        !matches!(layout.display.as_str(), "inline" | "contents" | "ruby" | "" | "none")
    }

    pub(super) fn has_block_inside(&self, id: NodeId) -> bool {
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.clone();
        while let Some(x) = stack.pop() {
            if self.signal.kept(x) && self.tree.nodes[x].kind == NodeKind::Element && self.is_block(x) {
                return true;
            }
            stack.extend(self.tree.nodes[x].children.iter().copied());
        }
        false
    }
}
