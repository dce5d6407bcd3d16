//! One tab's console messages, requests, WebSocket events and the person's actions as events on
//! the panel's time axis, beside the agent's calls: each with its lane, how serious it is, when,
//! and a one-line label. The panel places them by time and lists those that happened during a
//! call.
//!
//! Read from the timeline the change reports are made from; URLs and texts are already masked
//! there. A tab the agent may no longer use has no events here. WebSocket frames are only
//! counted by the timeline and are left out; so are the agent's own actions, which are its calls.

use serde::Serialize;

use crate::changes::fingerprint::truncate_chars;
use crate::changes::{Actor, ConsoleLevel, Timeline, WebSocketEventKind};

/// Most events kept for one tab (the newest).
pub const MAX_LANE_EVENTS: usize = 500;
/// Longest label, in characters.
const LABEL_CHARS: usize = 300;

/// Which lane an event sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// Console messages and uncaught exceptions.
    Console,
    /// Requests.
    Network,
    /// WebSocket connections.
    Websocket,
    /// What the person at the browser did.
    User,
}

/// How an event is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A console error, a failed request, a socket error.
    Error,
    /// A console warning, a socket close.
    Warning,
    /// Anything else.
    Info,
}

/// One event on the time axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaneEvent {
    /// Its lane.
    pub lane: Lane,
    /// How serious.
    pub level: Level,
    /// When, in epoch milliseconds.
    pub time_ms: u64,
    /// One line saying what happened.
    pub label: String,
}

fn label(text: String) -> String {
    match truncate_chars(&text, LABEL_CHARS) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(cut) => cut,
    }
}

/// `tab`'s events, oldest first, the newest [`MAX_LANE_EVENTS`] of them.
pub fn lane_events(timeline: &Timeline, tab: u32) -> Vec<LaneEvent> {
    if !timeline.readable(tab) {
        return Vec::new();
    }
    let mut events: Vec<LaneEvent> = Vec::new();
    for c in timeline.console().iter().filter(|c| c.tab == tab) {
        let level = match c.level {
            ConsoleLevel::Error => Level::Error,
            ConsoleLevel::Warning => Level::Warning,
            _ => Level::Info,
        };
        let name = serde_json::to_value(c.level).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        events.push(LaneEvent {
            lane: Lane::Console,
            level,
            time_ms: c.time_ms,
            label: label(format!("{name}: {}", c.text)),
        });
    }
    for r in timeline.network().iter().filter(|r| r.tab == tab) {
        let status =
            if r.status == 0 { r.error.clone().unwrap_or_else(|| "failed".into()) } else { r.status.to_string() };
        let level = if r.failed() { Level::Error } else { Level::Info };
        let text = format!("{} {status} {} ({} ms)", r.method, r.url, r.duration_ms);
        events.push(LaneEvent { lane: Lane::Network, level, time_ms: r.time_ms, label: label(text) });
    }
    for w in timeline.websocket().iter().filter(|w| w.tab == tab) {
        let (level, what) = match &w.kind {
            WebSocketEventKind::Created => (Level::Info, "opened".to_owned()),
            WebSocketEventKind::Handshake { status } => (Level::Info, format!("handshake {status}")),
            WebSocketEventKind::FrameSent | WebSocketEventKind::FrameReceived => continue,
            WebSocketEventKind::Error { message } => (Level::Error, format!("error: {message}")),
            WebSocketEventKind::Closed { code, reason } => {
                let code = code.map_or_else(|| "code unknown".to_owned(), |c| format!("code {c}"));
                (
                    Level::Warning,
                    reason.as_deref().map_or(format!("closed, {code}"), |r| format!("closed, {code}: {r}")),
                )
            }
        };
        events.push(LaneEvent {
            lane: Lane::Websocket,
            level,
            time_ms: w.time_ms,
            label: label(format!("{what} {}", w.url)),
        });
    }
    for a in timeline.actions().iter().filter(|a| a.tab == tab && a.by == Actor::User) {
        events.push(LaneEvent {
            lane: Lane::User,
            level: Level::Info,
            time_ms: a.time_ms,
            label: label(a.description.clone()),
        });
    }
    events.sort_by_key(|e| e.time_ms);
    let extra = events.len().saturating_sub(MAX_LANE_EVENTS);
    events.drain(..extra);
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::{ActionEntry, ActionKind, ConsoleEntry, NetworkEntry, WebSocketEvent};

    fn console(level: ConsoleLevel, text: &str, time_ms: u64, tab: u32) -> ConsoleEntry {
        ConsoleEntry { level, text: text.into(), source: None, time_ms, tab }
    }

    #[test]
    fn a_tabs_events_come_in_time_order_with_their_lane_and_level() {
        let mut t = Timeline::new();
        t.record_console(console(ConsoleLevel::Error, "boom", 30, 1));
        t.record_console(console(ConsoleLevel::Log, "other tab", 31, 2));
        t.record_network(NetworkEntry {
            method: "GET".into(),
            url: "http://shop.test/orders?token=abc".into(),
            status: 500,
            error: None,
            duration_ms: 12,
            encoded_bytes: 0,
            resource_type: None,
            time_ms: 20,
            tab: 1,
        });
        t.record_websocket(WebSocketEvent {
            connection: "c1".into(),
            url: "ws://shop.test/live".into(),
            kind: WebSocketEventKind::Closed { code: Some(4001), reason: Some("done".into()) },
            time_ms: 40,
            tab: 1,
        });
        t.record_websocket(WebSocketEvent {
            connection: "c1".into(),
            url: "ws://shop.test/live".into(),
            kind: WebSocketEventKind::FrameSent,
            time_ms: 35,
            tab: 1,
        });
        for by in [Actor::User, Actor::Agent] {
            t.record_action(ActionEntry {
                kind: ActionKind::Click,
                by,
                description: format!("click by {by:?}"),
                url: None,
                time_ms: 50,
                tab: 1,
            });
        }
        let events = lane_events(&t, 1);
        let seen: Vec<(Lane, Level, u64, &str)> =
            events.iter().map(|e| (e.lane, e.level, e.time_ms, e.label.as_str())).collect();
        assert_eq!(
            seen,
            [
                (Lane::Network, Level::Error, 20, "GET 500 http://shop.test/orders?token=•••••• (12 ms)"),
                (Lane::Console, Level::Error, 30, "error: boom"),
                (Lane::Websocket, Level::Warning, 40, "closed, code 4001: done ws://shop.test/live"),
                (Lane::User, Level::Info, 50, "click by User"),
            ]
        );
    }

    #[test]
    fn only_the_newest_events_are_kept_and_an_unreadable_tab_has_none() {
        let mut t = Timeline::new();
        for i in 0..(MAX_LANE_EVENTS as u64 + 20) {
            t.record_console(console(ConsoleLevel::Log, "tick", i, 1));
        }
        let events = lane_events(&t, 1);
        assert_eq!(events.len(), MAX_LANE_EVENTS);
        assert_eq!(events[0].time_ms, 20);
        t.set_readable_tabs(Some([2].into_iter().collect()));
        assert!(lane_events(&t, 1).is_empty());
        t.set_readable_tabs(None);
        assert_eq!(t.forget_entries(), MAX_LANE_EVENTS + 20);
        assert!(lane_events(&t, 1).is_empty(), "forgotten when the person asks");
    }
}
