//! Groups of controls (`radiogroup`, `toolbar`, `menu`, `fieldset`…).
//!
//! * Container refinement: a group with nothing to act on inside is not a container; its
//!   content is hoisted into the surrounding flow.
//! * Name promotion: a named wrapper around a single unnamed control gives the control its
//!   name instead of adding a line of its own.
//! * Otherwise a named group is one head line (`radiogroup "Colour":`) with its controls one
//!   level deeper; a legend that only repeats the group's name is not written again.

use super::{Builder, LineContent};
use crate::snapshot::signal::DropReason;
use crate::snapshot::text::{normalise, words_covered};
use crate::snapshot::tree::NodeId;

impl Builder<'_, '_> {
    pub(super) fn group(&mut self, id: NodeId, role: &str) {
        let Some(name) = self.group_head(id, role) else {
            self.visit_children(id);
            return self.flush();
        };
        // The legend names the group; do not repeat it as text.
        let indent_before = self.indent;
        self.indent = indent_before.saturating_add(1);
        let saved_lists = std::mem::take(&mut self.lists);
        for child in self.tree.nodes[id].children.clone() {
            if self.tree.nodes[child].tag == "legend" && words_covered(&self.visible_text(child), &name) {
                continue;
            }
            self.visit(child);
        }
        self.flush();
        self.lists = saved_lists;
        self.indent = indent_before;
    }

    /// What group `id` becomes. A named group of several controls: its head line is written and
    /// its name returned. Otherwise (nothing to act on inside, no name, or a name promoted to
    /// the one control inside) `None`: its content reads in the flow around it. Out of line, so
    /// what it holds is off the stack before the walk goes into the group's content.
    #[inline(never)]
    fn group_head(&mut self, id: NodeId, role: &str) -> Option<String> {
        let name = normalise(&self.tree.nodes[id].ax.name());
        let controls = self.actionable_descendants(id);
        self.flush();
        if controls.is_empty() {
            // Nothing to act on inside: not a container.
            self.out.hoisted_containers += 1;
            return None;
        }
        if name.is_empty() || self.in_cell > 0 {
            return None;
        }
        // A named wrapper around one unnamed control names the control.
        if let [only] = controls[..]
            && normalise(&self.tree.nodes[only].ax.name()).is_empty()
        {
            self.promoted.insert(only, name);
            self.out.promoted_names += 1;
            return None;
        }
        let role = if role.is_empty() || role == "generic" { "group".to_owned() } else { role.to_owned() };
        let indent = self.lists.last().map(|l| l.indent.saturating_add(1)).unwrap_or(self.indent);
        self.push_line(id, indent, LineContent::Group { role, name: name.clone() });
        Some(name)
    }

    pub(super) fn actionable_descendants(&self, id: NodeId) -> Vec<NodeId> {
        let mut found = Vec::new();
        let mut stack: Vec<NodeId> = self.tree.nodes[id].children.clone();
        while let Some(x) = stack.pop() {
            if !self.signal.kept(x) && self.signal.dropped[x] != Some(DropReason::Occluded) {
                continue;
            }
            if self.actionable[x] && self.signal.kept(x) {
                found.push(x);
            }
            stack.extend(self.tree.nodes[x].children.iter().copied());
        }
        found
    }
}

/// Roles of containers that group controls.
pub(super) fn is_group_role(role: &str) -> bool {
    matches!(role, "group" | "radiogroup" | "toolbar" | "tablist" | "menu" | "menubar" | "tree" | "form" | "listbox")
}
