//! The recorder: turns CDP events and page reports into timeline entries (console messages with
//! their source location, requests with method, status, timing and size, WebSocket events, the
//! user's own clicks, typing and navigations).
//!
//! Pure: events and times go in, entries come out. It keeps only what it needs to finish an entry
//! later (requests in flight, open sockets, closes waiting for their close code), each bounded,
//! and tells which requests are still waiting for their response.
//! It never reads response bodies, never keeps frame payloads, and never sees typed text: the
//! page listener reports only that typing happened. [`Intake`] then decides which entries the
//! timeline keeps.
//!
//! One concern per file: `console` (console calls, exceptions, browser log entries), `network`
//! (requests in flight, responses, redirects, how loads end), `websocket` (sockets, closes waiting for their code),
//! `actions` (the user's own actions and navigations), `intake` (what is kept, and when page
//! input is the agent's).

mod actions;
mod console;
mod intake;
mod network;
mod websocket;

use std::collections::HashMap;

use serde_json::Value;

use super::answered::{LoadEnd, RequestId};
use super::entries::{ActionEntry, ConsoleEntry, NetworkEntry, WebSocketEvent};
pub use actions::user_navigation;
pub use intake::{AGENT_INPUT_GRACE_MS, Intake, Kept};
use network::InFlight;
pub use network::PendingRequest;
use websocket::{EarlyCode, WaitingClose};

/// The start of the name of the binding the page's WebSocket hook reports close codes through
/// (main world). Each attach adds a random suffix, so a page cannot plant a setter on the name
/// ahead of time to capture the binding and forge reports.
pub const SOCKET_BINDING: &str = "__sightlineSocketClosed";
/// The binding the user-action listener reports through (its own isolated world).
pub const USER_BINDING: &str = "__sightlineUserAction";

/// Every CDP event the recorder reads.
pub const METHODS: &[&str] = &[
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Runtime.bindingCalled",
    "Log.entryAdded",
    "Network.requestWillBeSent",
    "Network.responseReceived",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Network.webSocketCreated",
    "Network.webSocketHandshakeResponseReceived",
    "Network.webSocketFrameSent",
    "Network.webSocketFrameReceived",
    "Network.webSocketFrameError",
    "Network.webSocketClosed",
    "Page.frameNavigated",
];

/// Whether the recorder reads `method`.
pub fn records(method: &str) -> bool {
    METHODS.contains(&method)
}

/// What one event amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// A console message or uncaught exception.
    Console(ConsoleEntry),
    /// A request complete as recorded: it failed without a response, or it was one hop of a
    /// redirect.
    Network(NetworkEntry),
    /// A request whose response just arrived. Its load goes on; how it ends may follow as
    /// [`Recorded::LoadEnded`] for the same `request`.
    Answered {
        /// Which request, for its [`LoadEnd`].
        request: RequestId,
        /// The request as of its response.
        entry: NetworkEntry,
    },
    /// The load of an answered request ended: its size, or the error that cut its body short.
    LoadEnded(LoadEnd),
    /// A WebSocket event.
    WebSocket(WebSocketEvent),
    /// Something the user did in the page, as its listener reported it. Whether it is kept
    /// depends on the tab being shared and the agent not acting at that moment.
    UserAction(ActionEntry),
    /// The tab's main frame committed a new document at `url`.
    Navigated {
        /// Tab id.
        tab: u32,
        /// The new URL.
        url: String,
    },
}

/// Requests in flight, open sockets and closes awaiting their code, across all tabs.
#[derive(Debug, Default)]
pub struct Recorder {
    requests: HashMap<RequestId, InFlight>,
    sockets: HashMap<(u32, String), String>,
    closing: Vec<WaitingClose>,
    early_codes: Vec<EarlyCode>,
}

impl Recorder {
    /// The entries one CDP event from `tab` (or its child `session`) amounts to, at `now_ms`.
    pub fn event(
        &mut self,
        tab: u32,
        session: Option<&str>,
        method: &str,
        params: &Value,
        now_ms: u64,
    ) -> Vec<Recorded> {
        let one = |r: Option<Recorded>| r.into_iter().collect();
        match method {
            "Runtime.consoleAPICalled" => one(console::console_api(tab, params, now_ms).map(Recorded::Console)),
            "Runtime.exceptionThrown" => one(Some(Recorded::Console(console::exception(tab, params, now_ms)))),
            "Log.entryAdded" => one(console::log_entry(tab, params, now_ms).map(Recorded::Console)),
            "Runtime.bindingCalled" => one(self.binding(tab, params, now_ms)),
            "Page.frameNavigated" => {
                let frame = &params["frame"];
                let main = frame.get("parentId").is_none_or(Value::is_null) && session.is_none();
                let url = text(&frame["url"]);
                one((main && !url.is_empty()).then(|| Recorded::Navigated { tab, url: url.to_owned() }))
            }
            m if m.starts_with("Network.webSocket") => one(self.websocket(tab, method, params, now_ms)),
            _ => self.network(
                RequestId { tab, session: session.map(str::to_owned), id: id(params) },
                method,
                params,
                now_ms,
            ),
        }
    }

    /// A report from one of the page's own scripts, told apart by the binding it came through.
    fn binding(&mut self, tab: u32, params: &Value, now_ms: u64) -> Option<Recorded> {
        let payload = text(&params["payload"]);
        match text(&params["name"]) {
            // The page-world binding's name carries a random suffix per attach (see
            // `SOCKET_BINDING`); CDP reports calls only of bindings the extension added.
            name if name.starts_with(SOCKET_BINDING) => self.socket_close_reported(tab, payload, now_ms),
            USER_BINDING => actions::user_action(tab, payload, now_ms).map(Recorded::UserAction),
            _ => None,
        }
    }
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64()
}

fn id(params: &Value) -> String {
    text(&params["requestId"]).to_owned()
}

/// Helpers shared by the recorder's tests.
#[cfg(test)]
mod fixtures {
    use serde_json::Value;

    use super::{Recorded, Recorder};
    use crate::changes::entries::{ConsoleEntry, NetworkEntry, WebSocketEvent};

    pub(super) const NOW: u64 = 1_735_787_045_000;

    pub(super) fn one(recorder: &mut Recorder, method: &str, params: Value) -> Recorded {
        let mut out = recorder.event(7, None, method, &params, NOW);
        assert_eq!(out.len(), 1, "{method}: {out:?}");
        out.remove(0)
    }

    pub(super) fn console(recorded: Recorded) -> ConsoleEntry {
        match recorded {
            Recorded::Console(entry) => entry,
            other => panic!("not console: {other:?}"),
        }
    }

    pub(super) fn network(recorded: Recorded) -> NetworkEntry {
        match recorded {
            Recorded::Network(entry) => entry,
            other => panic!("not network: {other:?}"),
        }
    }

    pub(super) fn socket(recorded: Recorded) -> WebSocketEvent {
        match recorded {
            Recorded::WebSocket(event) => event,
            other => panic!("not websocket: {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::fixtures::{NOW, one};
    use super::*;

    #[test]
    fn only_main_frame_navigations_are_reported() {
        let mut recorder = Recorder::default();
        let main = json!({"frame": {"id": "F", "url": "http://x/next", "loaderId": "L"}});
        assert_eq!(
            one(&mut recorder, "Page.frameNavigated", main),
            Recorded::Navigated { tab: 7, url: "http://x/next".into() }
        );
        let child = json!({"frame": {"id": "C", "parentId": "F", "url": "http://x/ad"}});
        assert!(recorder.event(7, None, "Page.frameNavigated", &child, NOW).is_empty());
    }
}
