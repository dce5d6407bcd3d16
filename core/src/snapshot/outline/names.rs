//! What an element says: its visible text, an editable area's text line by line, whether that
//! text starts or ends with a space (so an inline link stays apart from its neighbours), whether a
//! `<label>` only repeats the name of the control it labels (label deduplication), and whether an
//! element is laid out as a block.

use super::Builder;
use crate::snapshot::signal::DropReason;
use crate::snapshot::text::{normalise, words_covered};
use crate::snapshot::tree::{NodeId, NodeKind};

impl Builder<'_, '_> {
    /// The visible text inside `id`, in order.
    pub(super) fn visible_text(&self, id: NodeId) -> String {
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
