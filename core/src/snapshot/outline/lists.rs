//! Lists: each item's first line carries its marker (`-`, or `3.` in an ordered list), nested
//! lists are indented one level deeper, and an item's marker waits for its first words.
//!
//! An unordered list whose every item is one link and nothing else (a menu, a list of
//! sections) is written without markers: each link is already a line of its own, and the
//! marker would cost two tokens a line (`- [e5 News]` against `[e5 News]`) to say nothing a
//! reader needs. Its nested lists keep their indentation, so the menu's hierarchy stays.

use super::{Builder, LineContent, Run};
use crate::snapshot::tree::NodeId;

#[derive(Debug)]
pub(super) struct ListContext {
    pub(super) ordered: bool,
    pub(super) counter: u32,
    /// The list item whose marker has not been written yet.
    pub(super) pending_item: Option<NodeId>,
    pub(super) indent: u8,
    /// Where the list's lines start among the outline's lines.
    pub(super) first_line: usize,
    /// Whether every line the list wrote so far at its own level is an item holding one link
    /// and nothing else.
    pub(super) links_only: bool,
}

impl ListContext {
    /// Notes a line written while this is the innermost list.
    pub(super) fn wrote(&mut self, indent: u8, content: &LineContent) {
        let one_link = matches!(content, LineContent::Item { runs, .. } if matches!(runs.as_slice(), [Run::Link(_)]));
        if !(one_link && indent == self.indent) {
            self.links_only = false;
        }
    }
}

impl Builder<'_, '_> {
    pub(super) fn list(&mut self, id: NodeId, ordered: bool) {
        self.flush();
        let indent = match self.lists.last() {
            Some(outer) => outer.indent.saturating_add(1),
            None => self.indent,
        };
        let first_line = self.out.lines.len();
        self.lists.push(ListContext { ordered, counter: 0, pending_item: None, indent, first_line, links_only: true });
        self.visit_children(id);
        self.flush();
        let Some(list) = self.lists.pop() else { return };
        if !list.ordered && list.links_only {
            for line in &mut self.out.lines[list.first_line..] {
                if line.indent != list.indent {
                    continue;
                }
                if let LineContent::Item { runs, .. } = &mut line.content {
                    line.content = LineContent::Text(std::mem::take(runs));
                }
            }
        }
    }

    pub(super) fn list_item(&mut self, id: NodeId) {
        self.flush();
        if let Some(list) = self.lists.last_mut() {
            list.counter += 1;
            list.pending_item = Some(id);
        }
        self.visit_children(id);
        self.flush();
        if let Some(list) = self.lists.last_mut() {
            list.pending_item = None;
        }
    }
}
