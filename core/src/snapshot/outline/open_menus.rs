//! A menu a hover opened under its trigger's line (`crate::snapshot::hover_menus`): the trigger
//! keeps its ref and is named by its own words; the menu it shows reads one level in, as it
//! would without the trigger.

use super::Builder;
use crate::snapshot::tree::NodeId;

impl Builder<'_, '_> {
    /// What a menu's trigger shown open holds, one level deeper than its line (at
    /// `line_indent`): the menu reads as it would without the trigger (its text, lists and
    /// links), while the trigger's own words, its name, are not written again.
    pub(super) fn open_menu(&mut self, id: NodeId, line_indent: u8) {
        let indent_before = self.indent;
        // The menu's lists nest under the trigger's line, not under the list the trigger is in.
        let lists = std::mem::take(&mut self.lists);
        self.indent = line_indent.saturating_add(1);
        let children = self.tree.nodes[id].children.clone();
        for child in children {
            if self.holds_target(child) {
                self.visit(child);
            }
        }
        self.flush();
        self.indent = indent_before;
        self.lists = lists;
    }

    /// Whether `id` is a target or holds one.
    pub(super) fn holds_target(&self, id: NodeId) -> bool {
        crate::snapshot::actionable::subtree_has(self.tree, id, self.actionable)
    }
}
