//! What a page state keeps for a person rather than for the agent: the versions of the agent's
//! view held for the panel to compare (as many as the options say), their word-by-word review,
//! and the agent's current view with the regions it was shown folded.

use super::view::View;
use super::{HELD_BYTES, HELD_VERSIONS, PageState};
use crate::review::{CurrentView, current_view};

impl PageState {
    /// Holds at most `versions` (at least one) views for a person to compare, the oldest going.
    pub fn set_held_versions(&mut self, versions: usize) {
        self.held_limit = Some(versions.max(1));
        self.trim_held();
    }

    pub(super) fn trim_held(&mut self) {
        let size = |v: &View| v.lines.iter().map(|l| l.text.len() + 16).sum::<usize>();
        let limit = self.held_limit.unwrap_or(HELD_VERSIONS);
        while self.held.len() > limit || self.held.iter().map(|(_, v)| size(v)).sum::<usize>() > HELD_BYTES {
            if self.held.len() <= 1 {
                break;
            }
            self.held.pop_front();
        }
    }

    /// The versions still held for a person to compare, oldest first.
    pub fn held_versions(&self) -> Vec<u64> {
        self.held.iter().map(|(v, _)| *v).collect()
    }

    /// How the agent's view changed from version `from` to version `to`, as a person reads it,
    /// with `context` unchanged lines around each change; `None` when either is no longer held.
    pub fn review(&self, from: u64, to: u64, context: usize) -> Option<Vec<crate::review::Row>> {
        let find = |v: u64| self.held.iter().find(|(held, _)| *held == v).map(|(_, view)| view);
        Some(crate::review::rows(find(from)?, find(to)?, context))
    }

    /// The agent's current view in sections, those of regions the agent's last full page wrote
    /// as unchanged (one `<region … unchanged="true" />` line) folded; `None` before the agent
    /// has seen the page.
    pub fn current_view(&self) -> Option<CurrentView> {
        self.shown.as_ref().map(|view| current_view(view, self.version, &self.folded))
    }
}
