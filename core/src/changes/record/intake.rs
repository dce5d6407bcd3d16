//! What the timeline keeps of what the recorder produced, and when page input is the agent's.
//!
//! The page cannot tell the agent's input from the user's: while the agent acts (and for
//! [`AGENT_INPUT_GRACE_MS`] after, since its events can arrive a little late), what the
//! user-action listener reports is the agent's own action, which the tools record themselves.
//! So a user action is kept only from a tab the user shared, and never while the agent is
//! acting; a navigation in a shared tab, made while the agent is not acting, is the user's and
//! becomes an action, anywhere else it only moves the page URL. Console messages, requests and
//! WebSocket events are always kept.
//!
//! Pure: times are handed in. Deciding never records anything; [`Kept::record_in`] does.

use super::Recorded;
use super::actions::user_navigation;
use crate::changes::Timeline;
use crate::changes::answered::{LoadEnd, RequestId};
use crate::changes::entries::{ActionEntry, ConsoleEntry, NetworkEntry, WebSocketEvent};

/// After an agent action ends, page input is still taken for the agent's for this long, in
/// milliseconds.
pub const AGENT_INPUT_GRACE_MS: u64 = 500;

/// An entry on its way into the timeline, already judged worth keeping.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// A console message or uncaught exception.
    Console(ConsoleEntry),
    /// A request complete as recorded (failed without a response, or a redirect hop).
    Network(NetworkEntry),
    /// A request whose response arrived, and which request it is, for how its load ends.
    Answered {
        /// Which request.
        request: RequestId,
        /// The request as of its response.
        entry: NetworkEntry,
    },
    /// How an answered request's load ended.
    LoadEnded(LoadEnd),
    /// A WebSocket event.
    WebSocket(WebSocketEvent),
    /// An action, the agent's or the user's.
    Action(ActionEntry),
    /// The page moved to this URL, which checkpoints remember.
    PageUrl(String),
}

impl Kept {
    /// Puts the entry on `timeline`.
    pub fn record_in(self, timeline: &mut Timeline) {
        match self {
            Kept::Console(entry) => timeline.record_console(entry),
            Kept::Network(entry) => timeline.record_network(entry),
            Kept::Answered { request, entry } => timeline.record_answered(request, entry),
            Kept::LoadEnded(end) => {
                timeline.end_load(end);
            }
            Kept::WebSocket(event) => timeline.record_websocket(event),
            Kept::Action(action) => timeline.record_action(action),
            Kept::PageUrl(url) => timeline.set_page_url(url),
        }
    }
}

/// Decides what is kept, knowing whether the agent is acting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intake {
    /// Agent actions running now.
    acting: u32,
    /// Until when (epoch ms) page input counts as the agent's.
    agent_input_until: u64,
}

impl Intake {
    /// An agent action started.
    pub fn agent_started(&mut self) {
        self.acting += 1;
    }

    /// An agent action ended at `now_ms`; page input stays the agent's for
    /// [`AGENT_INPUT_GRACE_MS`] more.
    pub fn agent_finished(&mut self, now_ms: u64) {
        self.acting = self.acting.saturating_sub(1);
        self.agent_input_until = now_ms + AGENT_INPUT_GRACE_MS;
    }

    /// Whether page input at `now_ms` is the agent's.
    pub fn agent_is_acting(&self, now_ms: u64) -> bool {
        self.acting > 0 || now_ms < self.agent_input_until
    }

    /// What of `recorded`, from a tab the user shared or not, the timeline keeps at `now_ms`.
    pub fn keep(&self, recorded: Recorded, tab_shared: bool, now_ms: u64) -> Option<Kept> {
        let agent = self.agent_is_acting(now_ms);
        Some(match recorded {
            Recorded::Console(entry) => Kept::Console(entry),
            Recorded::Network(entry) => Kept::Network(entry),
            Recorded::Answered { request, entry } => Kept::Answered { request, entry },
            Recorded::LoadEnded(end) => Kept::LoadEnded(end),
            Recorded::WebSocket(event) => Kept::WebSocket(event),
            // While the agent acts, what the listener reports is the agent's own action.
            Recorded::UserAction(_) if !tab_shared || agent => return None,
            Recorded::UserAction(action) => Kept::Action(action),
            Recorded::Navigated { tab, url } if tab_shared && !agent => {
                Kept::Action(user_navigation(tab, &url, now_ms))
            }
            Recorded::Navigated { url, .. } => Kept::PageUrl(url),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::answered::LoadOutcome;
    use crate::changes::entries::{ActionKind, Actor, ConsoleLevel, WebSocketEventKind};

    const NOW: u64 = 1_735_787_045_000;

    fn click() -> ActionEntry {
        ActionEntry {
            kind: ActionKind::Click,
            by: Actor::User,
            description: "click button \"Pay\"".into(),
            url: Some("http://x/cart".into()),
            time_ms: NOW,
            tab: 7,
        }
    }

    fn navigated() -> Recorded {
        Recorded::Navigated { tab: 7, url: "http://x/next".into() }
    }

    #[test]
    fn a_user_action_is_kept_only_from_a_tab_the_user_shared() {
        let intake = Intake::default();
        assert_eq!(intake.keep(Recorded::UserAction(click()), true, NOW), Some(Kept::Action(click())));
        assert_eq!(intake.keep(Recorded::UserAction(click()), false, NOW), None);
    }

    #[test]
    fn page_input_is_the_agents_while_it_acts_and_for_a_grace_period_after() {
        let mut intake = Intake::default();
        intake.agent_started();
        intake.agent_started();
        assert_eq!(intake.keep(Recorded::UserAction(click()), true, NOW), None);
        intake.agent_finished(NOW);
        assert!(intake.agent_is_acting(NOW + 10_000), "one action still runs");
        intake.agent_finished(NOW);
        assert!(intake.agent_is_acting(NOW + AGENT_INPUT_GRACE_MS - 1));
        assert_eq!(intake.keep(Recorded::UserAction(click()), true, NOW + AGENT_INPUT_GRACE_MS - 1), None);
        assert!(!intake.agent_is_acting(NOW + AGENT_INPUT_GRACE_MS));
        assert_eq!(
            intake.keep(Recorded::UserAction(click()), true, NOW + AGENT_INPUT_GRACE_MS),
            Some(Kept::Action(click()))
        );
        intake.agent_finished(NOW);
        assert_eq!(intake, Intake { acting: 0, agent_input_until: NOW + AGENT_INPUT_GRACE_MS }, "never below zero");
    }

    #[test]
    fn a_navigation_in_a_shared_tab_is_the_users_and_elsewhere_only_moves_the_page_url() {
        let mut intake = Intake::default();
        assert_eq!(
            intake.keep(navigated(), true, NOW),
            Some(Kept::Action(ActionEntry {
                kind: ActionKind::Navigate,
                by: Actor::User,
                description: "navigate".into(),
                url: Some("http://x/next".into()),
                time_ms: NOW,
                tab: 7,
            }))
        );
        assert_eq!(intake.keep(navigated(), false, NOW), Some(Kept::PageUrl("http://x/next".into())));
        intake.agent_started();
        assert_eq!(intake.keep(navigated(), true, NOW), Some(Kept::PageUrl("http://x/next".into())));
    }

    #[test]
    fn console_network_and_socket_entries_and_load_ends_are_always_kept() {
        let mut intake = Intake::default();
        intake.agent_started();
        let entry =
            ConsoleEntry { level: ConsoleLevel::Error, text: "boom".into(), source: None, time_ms: NOW, tab: 7 };
        assert_eq!(intake.keep(Recorded::Console(entry.clone()), false, NOW), Some(Kept::Console(entry)));
        let request = NetworkEntry {
            method: "GET".into(),
            url: "http://x/api".into(),
            status: 500,
            error: None,
            duration_ms: 3,
            encoded_bytes: 0,
            resource_type: None,
            time_ms: NOW,
            tab: 7,
        };
        assert_eq!(intake.keep(Recorded::Network(request.clone()), true, NOW), Some(Kept::Network(request.clone())));
        let id = RequestId { tab: 7, session: None, id: "1".into() };
        assert_eq!(
            intake.keep(Recorded::Answered { request: id.clone(), entry: request.clone() }, false, NOW),
            Some(Kept::Answered { request: id.clone(), entry: request })
        );
        let end = LoadEnd { request: id, outcome: LoadOutcome::Finished { encoded_bytes: 9 } };
        assert_eq!(intake.keep(Recorded::LoadEnded(end.clone()), false, NOW), Some(Kept::LoadEnded(end)));
        let closed = WebSocketEvent {
            connection: "w".into(),
            url: "ws://x/live".into(),
            kind: WebSocketEventKind::Closed { code: Some(1006), reason: None },
            time_ms: NOW,
            tab: 7,
        };
        assert_eq!(intake.keep(Recorded::WebSocket(closed.clone()), false, NOW), Some(Kept::WebSocket(closed)));
    }

    #[test]
    fn kept_entries_land_in_their_ring_and_a_page_url_in_the_next_checkpoint() {
        let mut timeline = Timeline::new();
        Kept::Action(click()).record_in(&mut timeline);
        Kept::PageUrl("http://x/next".into()).record_in(&mut timeline);
        assert_eq!(timeline.actions().iter().collect::<Vec<_>>(), [&click()]);
        let info = timeline.create_checkpoint("after", NOW).unwrap();
        assert_eq!(info.url.as_deref(), Some("http://x/next"));
    }
}
