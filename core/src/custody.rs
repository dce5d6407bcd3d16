//! Which agent holds each tab, and which tab a call that names none acts on.
//!
//! Several MCP sessions (agents) can use one browser, and each keeps to its own tabs: a tab is
//! held by the session that opened it, by the first session that uses a tab the person shared,
//! or by the session the person handed it to. Another session sees it only as "in use by another
//! agent" and can neither read it, act on it, close it nor ask for its changes; only the person
//! moves a tab from one agent to another. A tab whose session ended is free again.
//!
//! A call that names no tab acts on the session's current tab. When the session lost that tab
//! (the person stopped it there, closed the tab or handed it on), there is no current tab until
//! the agent names one: going on with another tab would apply what the agent meant for the lost
//! one to a page it did not choose.

use crate::tab_refs::TabLoss;

/// What a session may do with a tab the agent may use at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The session holds it.
    Held,
    /// Nobody holds it: the session may take it.
    Free,
    /// Another session holds it.
    Another,
}

/// How `session` stands to a tab held by `holder`.
pub fn access(holder: Option<&str>, session: &str) -> Access {
    match holder {
        None => Access::Free,
        Some(h) if h == session => Access::Held,
        Some(_) => Access::Another,
    }
}

/// A tab the agent may use, as the choice of a call's tab sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate<'a> {
    /// The tab.
    pub tab: i32,
    /// The session holding it, if any.
    pub holder: Option<&'a str>,
}

/// The tab a call that names none acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// This tab.
    Tab(i32),
    /// No tab is usable: open a new one for the session.
    Open,
    /// The session lost its current tab and has not named another since.
    Lost {
        /// The tab it lost.
        tab: i32,
        /// How.
        loss: TabLoss,
    },
    /// No tab is usable, and the call does not open one.
    None,
}

/// Chooses the tab for a call of `session` that names none: its current tab while it may still
/// use it; nothing while it lost its current tab (`lost`); else the newest tab it holds, else the
/// newest free tab; else a new tab when `open_if_none`. `candidates` are the tabs the agent may
/// use, oldest first.
pub fn choose_tab(
    session: &str,
    current: Option<i32>,
    lost: Option<(i32, TabLoss)>,
    candidates: &[Candidate<'_>],
    open_if_none: bool,
) -> Target {
    let usable = |c: &&Candidate<'_>| access(c.holder, session) != Access::Another;
    if let Some(tab) = current
        && candidates.iter().filter(usable).any(|c| c.tab == tab)
    {
        return Target::Tab(tab);
    }
    if let Some((tab, loss)) = lost {
        return Target::Lost { tab, loss };
    }
    let held = candidates.iter().rev().find(|c| access(c.holder, session) == Access::Held);
    let free = || candidates.iter().rev().find(|c| access(c.holder, session) == Access::Free);
    match held.or_else(free) {
        Some(c) => Target::Tab(c.tab),
        None if open_if_none => Target::Open,
        None => Target::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(tab: i32, holder: Option<&str>) -> Candidate<'_> {
        Candidate { tab, holder }
    }

    #[test]
    fn a_tab_is_held_free_or_another_agents() {
        assert_eq!(access(Some("a"), "a"), Access::Held);
        assert_eq!(access(None, "a"), Access::Free);
        assert_eq!(access(Some("b"), "a"), Access::Another);
    }

    #[test]
    fn the_current_tab_is_kept_while_the_session_may_use_it() {
        let tabs = [tab(1, Some("a")), tab(2, None), tab(3, Some("b"))];
        assert_eq!(choose_tab("a", Some(1), None, &tabs, false), Target::Tab(1));
        assert_eq!(choose_tab("a", Some(2), None, &tabs, false), Target::Tab(2));
        // Handed to another agent meanwhile: not current any more.
        assert_eq!(choose_tab("a", Some(3), None, &tabs, false), Target::Tab(1));
    }

    #[test]
    fn a_lost_current_tab_leaves_no_tab_until_one_is_named() {
        let tabs = [tab(1, Some("a")), tab(2, None)];
        let lost = Some((5, TabLoss::Stopped));
        assert_eq!(choose_tab("a", None, lost, &tabs, true), Target::Lost { tab: 5, loss: TabLoss::Stopped });
    }

    #[test]
    fn without_a_current_tab_the_newest_held_then_the_newest_free_is_chosen() {
        let tabs = [tab(1, Some("a")), tab(2, None), tab(3, Some("a")), tab(4, Some("b"))];
        assert_eq!(choose_tab("a", None, None, &tabs, false), Target::Tab(3));
        let tabs = [tab(1, None), tab(2, None), tab(4, Some("b"))];
        assert_eq!(choose_tab("a", None, None, &tabs, false), Target::Tab(2));
    }

    #[test]
    fn another_agents_tabs_are_never_chosen() {
        let tabs = [tab(4, Some("b")), tab(5, Some("b"))];
        assert_eq!(choose_tab("a", None, None, &tabs, false), Target::None);
        assert_eq!(choose_tab("a", None, None, &tabs, true), Target::Open);
        assert_eq!(choose_tab("a", Some(4), None, &tabs, false), Target::None);
    }
}
