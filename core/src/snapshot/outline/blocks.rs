//! Blocks of inline content and the lines they become: paragraphs, headings, list-item first
//! lines, images with alternative text. A block opens at the first words it gets and is written
//! out (flushed) when something that is not inline comes; a blank block writes nothing.

use super::runs::{collapse_runs, is_blank};
use super::{Builder, Line, LineContent, Run};
use crate::snapshot::text::normalise;
use crate::snapshot::tree::NodeId;

#[derive(Debug)]
pub(super) enum BlockKind {
    Text,
    Heading(u8),
    Item(String),
}

#[derive(Debug)]
pub(super) struct Block {
    pub(super) anchor: NodeId,
    pub(super) kind: BlockKind,
    pub(super) runs: Vec<Run>,
    pub(super) indent: u8,
}

impl Builder<'_, '_> {
    pub(super) fn text(&mut self, id: NodeId) {
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
    pub(super) fn block_for(&mut self, anchor: NodeId) -> &mut Block {
        if self.block.is_none() {
            let (kind, indent, anchor) = match self.lists.last_mut() {
                Some(list) if list.pending_item.is_some() => {
                    let item = list.pending_item.take().unwrap_or(anchor);
                    let marker = if list.ordered { format!("{}.", list.counter) } else { "-".to_owned() };
                    (BlockKind::Item(marker), list.indent, item)
                }
                Some(list) => (BlockKind::Text, list.indent.saturating_add(1), anchor),
                None => (BlockKind::Text, self.indent, anchor),
            };
            self.block = Some(Block { anchor, kind, runs: Vec::new(), indent });
        }
        self.block.as_mut().expect("a block was just opened")
    }

    /// Ends the open block, writing it as a line unless it is blank. Inside a table cell,
    /// blocks run together separated by a space.
    pub(super) fn flush(&mut self) {
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

    pub(super) fn push_line(&mut self, anchor: NodeId, indent: u8, content: LineContent) {
        if let Some(list) = self.lists.last_mut() {
            list.wrote(indent, &content);
        }
        let ordinal = self.ordinals.entry(anchor).or_insert(0);
        let line = Line { anchor, ordinal: *ordinal, region: self.regions.last().copied(), indent, content };
        *ordinal += 1;
        self.out.lines.push(line);
    }

    pub(super) fn image(&mut self, id: NodeId) {
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
}

/// The level of a heading element.
pub(super) fn heading_level(tag: &str, role: &str, node: &crate::snapshot::tree::Node) -> Option<u8> {
    if let Some(l) = tag.strip_prefix('h').and_then(|d| d.parse::<u8>().ok()).filter(|l| (1..=6).contains(l)) {
        return Some(l);
    }
    if role == "heading" {
        let level = node.ax.property("level").and_then(|v| v.parse::<u64>().ok());
        return Some(level.map(|l| l.clamp(1, 6) as u8).unwrap_or(2));
    }
    None
}
