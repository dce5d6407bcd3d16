//! What a call that did not end well tells the agent, and the rule that keeps a blind retry from
//! doing a thing twice.
//!
//! Every call runs within the time its caller allows. When one is cut short, or fails, what the
//! agent must know is whether anything reached the page: nothing (retry freely), the call was
//! still waiting for another on the same tab (nothing was sent), or its input was sent (it may
//! have run, and the page may still act on it if it has not processed it yet). An action that
//! reached the page without the agent being shown what it did is *unconfirmed*: until the agent
//! looks at the page again, its next action on that tab is not run, so a retry of a click that
//! did go through cannot click twice. Navigations are exempt: loading a page again does not do
//! anything twice.
//!
//! The runtime tracks how far a call got and asks here what to say; it owns no wording.

use std::collections::HashMap;

use crate::changes::ActionKind;
use crate::protocol::ToolCall;

/// How far a call got before it was cut short or failed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    /// Nothing was sent to the page.
    Nothing,
    /// The call was waiting for another call on the same tab to finish.
    Queued,
    /// Input was sent to the page; `unanswered_ms` says for how long the page has not processed
    /// it, when it has not.
    Sent {
        /// How long the page has left the input unprocessed (a script keeps it busy), if it has.
        unanswered_ms: Option<f64>,
    },
}

/// "the click", "the navigation", … for what an action of `kind` sent.
pub fn sent_thing(kind: Option<ActionKind>) -> &'static str {
    match kind {
        Some(ActionKind::Click) => "the click",
        Some(ActionKind::Type) => "the typing",
        Some(ActionKind::Key) => "the key press",
        Some(ActionKind::Navigate) => "the navigation",
        _ => "input",
    }
}

/// ", and the page has not processed it yet (…)" when input is still unanswered.
fn busy_clause(unanswered_ms: Option<f64>) -> String {
    match unanswered_ms {
        Some(ms) => format!(
            "; the page has not processed it yet ({:.0} s on, a script is probably keeping it busy) and may still \
             act on it",
            ms.max(0.0) / 1000.0
        ),
        None => String::new(),
    }
}

/// What the agent reads about a call of `tool` cut short by its time limit (`limit_ms`), which
/// was an action of `kind` (or no action), having got as far as `reach`.
pub fn out_of_time(tool: &str, limit_ms: u64, kind: Option<ActionKind>, acting: bool, reach: Reach) -> String {
    let limit = limit_ms as f64 / 1000.0;
    match reach {
        Reach::Sent { unanswered_ms } => format!(
            "{tool} ran out of time (its limit is {limit:.0} s) after {} was sent to the page, so it may have run{}. \
             Take a browser_snapshot to see what it did before you act again.",
            sent_thing(kind),
            busy_clause(unanswered_ms)
        ),
        Reach::Queued => format!(
            "{tool} ran out of time (its limit is {limit:.0} s) waiting for another call on the same tab to finish. \
             Nothing was sent to the page. Retry once that call has answered."
        ),
        // Not an action on a page (browser_tabs may have been opening or closing a tab): say
        // only what is known.
        Reach::Nothing if !acting => format!(
            "{tool} ran out of time (its limit is {limit:.0} s) before it finished. The page may be slow or busy: \
             check with browser_tabs or browser_snapshot before you retry."
        ),
        Reach::Nothing => format!(
            "{tool} ran out of time (its limit is {limit:.0} s) before it sent anything to the page, so nothing was \
             done. The page may be slow or busy: retry, or take a browser_snapshot to see it."
        ),
    }
}

/// What a failed call adds when its input had reached the page (`unanswered_ms` as in
/// [`Reach::Sent`]): it may have run.
pub fn may_have_run(kind: Option<ActionKind>, unanswered_ms: Option<f64>) -> String {
    format!(
        ". {} was sent to the page before this, so it may have run{}. Take a browser_snapshot to see what it did \
         before you act again.",
        capitalised(sent_thing(kind)),
        busy_clause(unanswered_ms)
    )
}

/// `text` with its first letter in upper case.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Whether `call` shows the agent the page afresh, so an unconfirmed action there is confirmed:
/// a snapshot's first page, or a navigation.
pub fn is_a_look(call: &ToolCall) -> bool {
    match call {
        ToolCall::BrowserSnapshot(p) => p.page.unwrap_or(1) <= 1,
        ToolCall::BrowserNavigate(_) => true,
        _ => false,
    }
}

/// An action that was sent to the page without its outcome being shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Unconfirmed {
    /// What it was, as the timeline describes it (`click e5`).
    pub description: String,
    /// When it ended (ms on the runtime's clock).
    pub ended_ms: f64,
}

/// One session's unconfirmed actions, per tab.
#[derive(Debug, Clone, Default)]
pub struct UnconfirmedActions {
    by_tab: HashMap<i32, Unconfirmed>,
}

impl UnconfirmedActions {
    /// Records that an action of `kind` (`description`) reached `tab` at `now_ms` without its
    /// outcome being shown; a navigation is not recorded.
    pub fn record(&mut self, tab: i32, kind: ActionKind, description: String, now_ms: f64) {
        if kind != ActionKind::Navigate {
            self.by_tab.insert(tab, Unconfirmed { description, ended_ms: now_ms });
        }
    }

    /// The agent looked at `tab` again: what it did there is confirmed.
    pub fn looked(&mut self, tab: i32) {
        self.by_tab.remove(&tab);
    }

    /// The agent no longer has `tab`.
    pub fn forget(&mut self, tab: i32) {
        self.by_tab.remove(&tab);
    }

    /// The reason `tool` is not run on `tab` at `now_ms`, while an earlier action there is
    /// unconfirmed (`still_unprocessed` when the page has not processed that input yet).
    pub fn refusal(&self, tab: i32, tool: &str, now_ms: f64, still_unprocessed: bool) -> Option<String> {
        let previous = self.by_tab.get(&tab)?;
        let ago = (now_ms - previous.ended_ms).max(0.0) / 1000.0;
        let pending = if still_unprocessed {
            ", and the page has still not processed it (a script is keeping it busy)"
        } else {
            ""
        };
        Some(format!(
            "{tool} was not run: your previous action on this tab ({}, {ago:.0} s ago) reached the page but you were \
             not shown what it did{pending}. Take a browser_snapshot to see the page, then act again if it is still \
             needed; this keeps a retry from doing the same thing twice.",
            previous.description
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{NavigateParams, SnapshotParams};

    #[test]
    fn a_call_out_of_time_says_whether_anything_reached_the_page() {
        let sent = out_of_time(
            "browser_click",
            60_000,
            Some(ActionKind::Click),
            true,
            Reach::Sent { unanswered_ms: Some(12_400.0) },
        );
        assert!(sent.contains("after the click was sent to the page, so it may have run"), "{sent}");
        assert!(sent.contains("has not processed it yet (12 s on"), "{sent}");
        let queued = out_of_time("browser_type", 30_000, Some(ActionKind::Type), true, Reach::Queued);
        assert!(queued.contains("waiting for another call on the same tab") && queued.contains("Nothing was sent"));
        let nothing = out_of_time("browser_click", 30_000, Some(ActionKind::Click), true, Reach::Nothing);
        assert!(nothing.contains("before it sent anything to the page, so nothing was done"), "{nothing}");
        let tabs = out_of_time("browser_tabs", 30_000, None, false, Reach::Nothing);
        assert!(tabs.contains("before it finished") && !tabs.contains("nothing was done"), "{tabs}");
    }

    #[test]
    fn a_failure_after_reaching_the_page_says_it_may_have_run() {
        let text = may_have_run(Some(ActionKind::Key), None);
        assert_eq!(
            text,
            ". The key press was sent to the page before this, so it may have run. Take a browser_snapshot to see \
             what it did before you act again."
        );
        assert!(may_have_run(None, Some(3_000.0)).starts_with(". Input was sent"));
    }

    #[test]
    fn an_unconfirmed_action_holds_the_next_action_on_its_tab_until_a_look() {
        let mut actions = UnconfirmedActions::default();
        actions.record(4, ActionKind::Click, "click e5".into(), 1_000.0);
        let refused = actions.refusal(4, "browser_click", 4_000.0, true).expect("refused");
        assert!(refused.contains("(click e5, 3 s ago)") && refused.contains("has still not processed it"), "{refused}");
        assert_eq!(actions.refusal(5, "browser_click", 4_000.0, false), None, "another tab is not held");
        actions.looked(4);
        assert_eq!(actions.refusal(4, "browser_click", 5_000.0, false), None);
    }

    #[test]
    fn a_navigation_is_never_held_unconfirmed() {
        let mut actions = UnconfirmedActions::default();
        actions.record(4, ActionKind::Navigate, "navigate".into(), 1_000.0);
        assert_eq!(actions.refusal(4, "browser_navigate", 2_000.0, false), None);
    }

    #[test]
    fn only_a_snapshots_first_page_or_a_navigation_is_a_look() {
        assert!(is_a_look(&ToolCall::BrowserSnapshot(SnapshotParams::default())));
        let later = SnapshotParams { page: Some(2), ..SnapshotParams::default() };
        assert!(!is_a_look(&ToolCall::BrowserSnapshot(later)));
        assert!(is_a_look(&ToolCall::BrowserNavigate(NavigateParams::default())));
        assert!(!is_a_look(&ToolCall::BrowserTabs(Default::default())));
    }
}
