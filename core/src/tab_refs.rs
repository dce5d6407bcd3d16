//! Which tab each of an MCP session's refs was issued on, so that a ref acts only on its own tab.
//!
//! Refs are issued per (session, tab) by the tab's [`crate::refs::RefRegistry`], but their
//! numbers are drawn from one counter per session: `e5` names one element of one tab, never an
//! element of each tab. A ref used on another tab than its own is refused with where it came
//! from, and a ref of a tab the session lost (the person stopped it there, closed the tab or
//! handed it to another agent) is refused with that reason, wherever it is used. Without this a
//! ref of a tab the person had just stopped would be resolved on whichever tab the session went
//! on with, pressing whatever element happened to carry the same number there.

use std::collections::{BTreeMap, HashMap};

use crate::refs::{format_ref, parse_ref};

/// Why a session no longer acts on a tab it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabLoss {
    /// The person stopped the agent on the tab (from the Sightline panel or popup).
    Stopped,
    /// The tab was closed by someone other than this session.
    Closed,
    /// The person handed the tab to another agent.
    HandedOver,
    /// The tab is no longer shared (the person unshared it, or cancelled the debugging bar).
    Unshared,
}

impl TabLoss {
    /// What happened to tab `tab`, as a clause for the agent ("the person stopped you on tab 4").
    pub fn describe(self, tab: i32) -> String {
        match self {
            TabLoss::Stopped => format!("the person stopped you on tab {tab} from the Sightline panel"),
            TabLoss::Closed => format!("tab {tab} was closed"),
            TabLoss::HandedOver => format!("the person handed tab {tab} to another agent"),
            TabLoss::Unshared => format!("tab {tab} is no longer shared with you"),
        }
    }
}

/// Why a ref cannot be used on the tab a call acts on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForeignRef {
    /// The ref belongs to another tab the session still has.
    #[error(
        "{element_ref} is a ref of tab {own}, not of tab {used} (the tab this call acts on); nothing was done. Name \
         tab {own} with `tab` to act there, or use a ref from tab {used}'s own snapshot"
    )]
    OtherTab {
        /// The ref.
        element_ref: String,
        /// The tab it was issued on.
        own: i32,
        /// The tab the call acts on.
        used: i32,
    },
    /// The ref belongs to a tab the session lost.
    #[error(
        "{element_ref} is a ref of tab {own}, and {}; its refs cannot be used anywhere, and nothing was done. \
         Take a browser_snapshot of a tab you may use (browser_tabs lists them) for current refs",
        loss.describe(*own)
    )]
    LostTab {
        /// The ref.
        element_ref: String,
        /// The tab it was issued on.
        own: i32,
        /// What happened to that tab.
        loss: TabLoss,
    },
}

/// One session's ref numbers: the next one to issue, the tab each range was issued on, and the
/// tabs the session lost.
#[derive(Debug, Clone, Default)]
pub struct TabRefs {
    /// The last number issued on any tab (0 before any).
    last: u32,
    /// Ranges of issued numbers by their first number: (last number, tab).
    ranges: BTreeMap<u32, (u32, i32)>,
    /// Tabs the session lost, and how.
    lost: HashMap<i32, TabLoss>,
}

impl TabRefs {
    /// Goes on after a restart from `last` (the last number any tab of the session issued):
    /// numbers are never issued twice, and refs from before are refused by each tab's own
    /// registry.
    pub fn resumed(last: u32) -> TabRefs {
        TabRefs { last, ..TabRefs::default() }
    }

    /// The last number issued; a tab's registry issues its next refs above it.
    pub fn last_issued(&self) -> u32 {
        self.last
    }

    /// Records that `tab` issued the numbers after `before` up to `last` (nothing when `last` is
    /// not above `before`).
    pub fn issued(&mut self, tab: i32, before: u32, last: u32) {
        if last <= before {
            return;
        }
        self.last = self.last.max(last);
        // Consecutive looks at one tab extend its range rather than adding one per look.
        if let Some((_, (end, owner))) = self.ranges.range_mut(..=before).next_back()
            && *owner == tab
            && *end == before
        {
            *end = last;
            return;
        }
        self.ranges.insert(before + 1, (last, tab));
    }

    /// The tab ref number `n` was issued on, if this session issued it since it started or
    /// resumed.
    pub fn tab_of(&self, n: u32) -> Option<i32> {
        let (_, &(last, tab)) = self.ranges.range(..=n).next_back()?;
        (n <= last).then_some(tab)
    }

    /// Notes that the session lost `tab`, so its refs are refused with `loss`.
    pub fn lose(&mut self, tab: i32, loss: TabLoss) {
        self.lost.insert(tab, loss);
    }

    /// Notes that the session has `tab` again (the person shared or handed it back): its old
    /// refs are once more its own.
    pub fn regain(&mut self, tab: i32) {
        self.lost.remove(&tab);
    }

    /// How the session lost `tab`, if it did.
    pub fn loss(&self, tab: i32) -> Option<TabLoss> {
        self.lost.get(&tab).copied()
    }

    /// Checks that `element_ref` may be used on tab `used`: it was issued there, or it is not
    /// known to this session at all (the tab's registry then says why it cannot be used). A
    /// malformed ref passes, for the registry to refuse with its own words.
    pub fn check(&self, element_ref: &str, used: i32) -> Result<(), ForeignRef> {
        let Ok(n) = parse_ref(element_ref) else { return Ok(()) };
        let Some(own) = self.tab_of(n) else { return Ok(()) };
        let element_ref = format_ref(n);
        if let Some(&loss) = self.lost.get(&own) {
            return Err(ForeignRef::LostTab { element_ref, own, loss });
        }
        if own != used {
            return Err(ForeignRef::OtherTab { element_ref, own, used });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_run_on_across_tabs_and_each_knows_its_tab() {
        let mut refs = TabRefs::default();
        refs.issued(1, 0, 5);
        refs.issued(2, 5, 9);
        refs.issued(1, 9, 12);
        assert_eq!(refs.last_issued(), 12);
        assert_eq!((1..=12).map(|n| refs.tab_of(n).unwrap()).collect::<Vec<_>>(), [1, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1]);
        assert_eq!(refs.tab_of(13), None);
        assert_eq!(refs.tab_of(0), None);
    }

    #[test]
    fn looks_that_issue_nothing_leave_no_range_and_consecutive_looks_merge() {
        let mut refs = TabRefs::default();
        refs.issued(1, 0, 3);
        refs.issued(1, 3, 3);
        refs.issued(1, 3, 7);
        assert_eq!(refs.ranges.len(), 1, "{:?}", refs.ranges);
        assert_eq!(refs.tab_of(7), Some(1));
    }

    #[test]
    fn a_ref_of_another_tab_is_refused_with_the_tab_it_belongs_to() {
        let mut refs = TabRefs::default();
        refs.issued(4, 0, 10);
        refs.issued(7, 10, 20);
        assert_eq!(refs.check("e5", 4), Ok(()));
        assert_eq!(refs.check("e15", 7), Ok(()));
        let err = refs.check("e5", 7).unwrap_err();
        assert_eq!(err, ForeignRef::OtherTab { element_ref: "e5".into(), own: 4, used: 7 });
        assert!(err.to_string().contains("e5 is a ref of tab 4, not of tab 7"), "{err}");
        assert!(err.to_string().contains("nothing was done"), "{err}");
    }

    #[test]
    fn a_ref_of_a_lost_tab_is_refused_everywhere_with_how_it_was_lost() {
        let mut refs = TabRefs::default();
        refs.issued(4, 0, 10);
        refs.issued(7, 10, 20);
        refs.lose(4, TabLoss::Stopped);
        for used in [4, 7] {
            let err = refs.check("e5", used).unwrap_err();
            assert_eq!(err, ForeignRef::LostTab { element_ref: "e5".into(), own: 4, loss: TabLoss::Stopped });
            assert!(err.to_string().contains("the person stopped you on tab 4"), "{err}");
        }
        assert_eq!(refs.check("e15", 7), Ok(()), "the other tab's refs still work");
        refs.regain(4);
        assert_eq!(refs.check("e5", 4), Ok(()));
    }

    #[test]
    fn unknown_and_malformed_refs_are_left_to_the_tab_to_refuse() {
        let mut refs = TabRefs::default();
        refs.issued(4, 0, 10);
        assert_eq!(refs.check("e11", 7), Ok(()));
        assert_eq!(refs.check("button", 7), Ok(()));
        let resumed = TabRefs::resumed(40);
        assert_eq!(resumed.last_issued(), 40);
        assert_eq!(resumed.check("e5", 7), Ok(()), "refs from before a restart are the registry's to refuse");
    }

    #[test]
    fn every_loss_is_worded_for_the_agent() {
        for (loss, words) in [
            (TabLoss::Stopped, "stopped you on tab 3"),
            (TabLoss::Closed, "tab 3 was closed"),
            (TabLoss::HandedOver, "handed tab 3 to another agent"),
            (TabLoss::Unshared, "tab 3 is no longer shared"),
        ] {
            assert!(loss.describe(3).contains(words), "{loss:?}");
        }
    }
}
