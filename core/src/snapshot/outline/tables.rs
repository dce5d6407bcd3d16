//! Tables: one line per row (`| a | b |`), a separator under a row of column headers, and the
//! actionable elements of a cell inline in it. Row groups are walked; anything else inside a
//! table (a caption) reads as usual.

use super::runs::{collapse_runs, is_blank};
use super::{Block, BlockKind, Builder, LineContent};
use crate::snapshot::signal::DropReason;
use crate::snapshot::tree::{NodeId, NodeKind};

impl Builder<'_, '_> {
    pub(super) fn table(&mut self, id: NodeId) {
        self.flush();
        let children = self.tree.nodes[id].children.clone();
        for child in children {
            self.table_part(child);
        }
        self.flush();
    }

    /// One child of a table: rows become row lines, row groups are walked, anything else (a
    /// caption, stray content) reads as usual.
    pub(super) fn table_part(&mut self, id: NodeId) {
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

    pub(super) fn row(&mut self, row: NodeId) {
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
        let indent = self.lists.last().map(|l| l.indent.saturating_add(1)).unwrap_or(self.indent);
        self.push_line(row, indent, LineContent::Row { cells, header: all_headers });
    }

    pub(super) fn cells_of(&self, row: NodeId) -> Vec<NodeId> {
        self.tree.nodes[row]
            .children
            .iter()
            .copied()
            .filter(|&c| self.signal.kept(c) && self.tree.nodes[c].kind == NodeKind::Element)
            .collect()
    }
}
