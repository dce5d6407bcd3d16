//! Lists: each item's first line carries its marker (`-`, or `3.` in an ordered list), nested
//! lists are indented one level deeper, and an item's marker waits for its first words.

use super::Builder;
use crate::snapshot::tree::NodeId;

#[derive(Debug)]
pub(super) struct ListContext {
    pub(super) ordered: bool,
    pub(super) counter: u32,
    /// The list item whose marker has not been written yet.
    pub(super) pending_item: Option<NodeId>,
    pub(super) indent: u8,
}

impl Builder<'_, '_> {
    pub(super) fn list(&mut self, id: NodeId, ordered: bool) {
        self.flush();
        let indent = match self.lists.last() {
            Some(outer) => outer.indent.saturating_add(1),
            None => self.indent,
        };
        self.lists.push(ListContext { ordered, counter: 0, pending_item: None, indent });
        self.visit_children(id);
        self.flush();
        self.lists.pop();
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
