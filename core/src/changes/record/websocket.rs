//! WebSocket events from CDP: a socket opened, its handshake, frames sent and received (counted,
//! never kept), errors, and its close with the close code the page reported.
//!
//! CDP's `Network.webSocketClosed` carries no close code; the page's hook reports it through
//! [`SOCKET_BINDING`](super::SOCKET_BINDING), before or after CDP reports the close. A close
//! waits for its code (bounded in number), a code that came first waits for its close (bounded
//! in number and for `EARLY_CODE_MS`), and [`Recorder::flush_closes`] records the closes that
//! waited long enough without one. Open sockets are remembered only for their URL, bounded too.

use crate::changes::entries::{recorded_text, recorded_url};
use serde::Deserialize;
use serde_json::Value;

use super::{Recorded, Recorder, id, number, text};
use crate::changes::entries::{WebSocketEvent, WebSocketEventKind};

/// Open sockets remembered for their URL.
const MAX_SOCKETS: usize = 500;
/// Closes waiting for their code, and codes waiting for their close.
const MAX_WAITING_CLOSES: usize = 200;
/// A close code reported by the page before CDP reported the close is kept this long.
const EARLY_CODE_MS: u64 = 5_000;
/// Largest close report read from the page (a URL, a code and a reason of at most 123 bytes
/// fit many times over).
const MAX_REPORT_BYTES: usize = 16 * 1024;

/// A close CDP reported, waiting for the page to report its code.
#[derive(Debug, Clone)]
pub(super) struct WaitingClose {
    tab: u32,
    connection: String,
    url: String,
    time_ms: u64,
}

/// A close code the page reported before CDP reported the close.
#[derive(Debug, Clone)]
pub(super) struct EarlyCode {
    tab: u32,
    url: String,
    code: Option<u16>,
    reason: Option<String>,
    time_ms: u64,
}

impl Recorder {
    /// What a `Network.webSocket*` event amounts to.
    pub(super) fn websocket(&mut self, tab: u32, method: &str, params: &Value, now_ms: u64) -> Option<Recorded> {
        let connection = id(params);
        let url = |recorder: &Self| recorder.sockets.get(&(tab, connection.clone())).cloned().unwrap_or_default();
        let kind = match method {
            "Network.webSocketCreated" => {
                if self.sockets.len() >= MAX_SOCKETS {
                    self.sockets.clear();
                }
                self.sockets.insert((tab, connection.clone()), recorded_url(text(&params["url"])));
                WebSocketEventKind::Created
            }
            "Network.webSocketHandshakeResponseReceived" => {
                WebSocketEventKind::Handshake { status: number(&params["response"]["status"]).unwrap_or(0.0) as u16 }
            }
            "Network.webSocketFrameSent" => WebSocketEventKind::FrameSent,
            "Network.webSocketFrameReceived" => WebSocketEventKind::FrameReceived,
            "Network.webSocketFrameError" => {
                WebSocketEventKind::Error { message: text(&params["errorMessage"]).to_owned() }
            }
            "Network.webSocketClosed" => {
                let url = self.sockets.remove(&(tab, connection.clone())).unwrap_or_default();
                // CDP gives no close code; the page's hook may already have reported it, or will.
                if let Some(at) = self.early_codes.iter().position(|c| c.tab == tab && c.url == url) {
                    let early = self.early_codes.remove(at);
                    let kind = WebSocketEventKind::Closed { code: early.code, reason: early.reason };
                    return Some(Recorded::WebSocket(WebSocketEvent { connection, url, kind, time_ms: now_ms, tab }));
                }
                if self.closing.len() >= MAX_WAITING_CLOSES {
                    self.closing.remove(0);
                }
                self.closing.push(WaitingClose { tab, connection, url, time_ms: now_ms });
                return None;
            }
            _ => return None,
        };
        let url = url(self);
        Some(Recorded::WebSocket(WebSocketEvent { connection, url, kind, time_ms: now_ms, tab }))
    }

    /// The page's hook saw a socket close with a code: completes the close CDP reported, or
    /// keeps the code for the close CDP has yet to report.
    pub(super) fn socket_close_reported(&mut self, tab: u32, payload: &str, now_ms: u64) -> Option<Recorded> {
        #[derive(Deserialize)]
        struct Report {
            url: String,
            #[serde(default)]
            code: Option<u16>,
            #[serde(default)]
            reason: Option<String>,
        }
        // The page's report is the page's word: bounded before it is read, its URL taken the way
        // CDP's is, so it can only complete a close CDP saw.
        if payload.len() > MAX_REPORT_BYTES {
            return None;
        }
        let report: Report = serde_json::from_str(payload).ok()?;
        let reason = report.reason.filter(|r| !r.is_empty()).map(|r| recorded_text(&r));
        let report_url = recorded_url(&report.url);
        match self.closing.iter().position(|c| c.tab == tab && c.url == report_url) {
            Some(at) => {
                let WaitingClose { connection, url, time_ms, .. } = self.closing.remove(at);
                let kind = WebSocketEventKind::Closed { code: report.code, reason };
                Some(Recorded::WebSocket(WebSocketEvent { connection, url, kind, time_ms, tab }))
            }
            None => {
                self.early_codes.retain(|c| now_ms.saturating_sub(c.time_ms) < EARLY_CODE_MS);
                if self.early_codes.len() >= MAX_WAITING_CLOSES {
                    self.early_codes.remove(0);
                }
                self.early_codes.push(EarlyCode { tab, url: report_url, code: report.code, reason, time_ms: now_ms });
                None
            }
        }
    }

    /// Closes that waited at least `max_wait_ms` for their code, recorded without one.
    pub fn flush_closes(&mut self, now_ms: u64, max_wait_ms: u64) -> Vec<WebSocketEvent> {
        let (due, waiting): (Vec<_>, Vec<_>) =
            self.closing.drain(..).partition(|c| now_ms.saturating_sub(c.time_ms) >= max_wait_ms);
        self.closing = waiting;
        due.into_iter()
            .map(|c| WebSocketEvent {
                connection: c.connection,
                url: c.url,
                kind: WebSocketEventKind::Closed { code: None, reason: None },
                time_ms: c.time_ms,
                tab: c.tab,
            })
            .collect()
    }

    /// Whether any close still waits for its code.
    pub fn closes_waiting(&self) -> bool {
        !self.closing.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::SOCKET_BINDING;
    use super::super::fixtures::{NOW, one, socket};
    use super::*;

    #[test]
    fn websocket_events_carry_the_socket_url_and_the_close_waits_for_its_code() {
        let mut recorder = Recorder::default();
        let created =
            socket(one(&mut recorder, "Network.webSocketCreated", json!({"requestId": "w", "url": "ws://x/live"})));
        assert_eq!((created.kind, created.url.as_str()), (WebSocketEventKind::Created, "ws://x/live"));
        let handshake = socket(one(
            &mut recorder,
            "Network.webSocketHandshakeResponseReceived",
            json!({"requestId": "w", "response": {"status": 101}}),
        ));
        assert_eq!(handshake.kind, WebSocketEventKind::Handshake { status: 101 });
        let frame = socket(one(
            &mut recorder,
            "Network.webSocketFrameReceived",
            json!({"requestId": "w", "response": {"payloadData": "secret"}}),
        ));
        assert_eq!((frame.kind, frame.url.as_str()), (WebSocketEventKind::FrameReceived, "ws://x/live"));

        assert!(recorder.event(7, None, "Network.webSocketClosed", &json!({"requestId": "w"}), NOW).is_empty());
        assert!(recorder.closes_waiting());
        let report = json!({"name": SOCKET_BINDING, "payload": r#"{"url":"ws://x/live","code":4001,"reason":"bye"}"#});
        let closed = socket(one(&mut recorder, "Runtime.bindingCalled", report));
        assert_eq!(closed.kind, WebSocketEventKind::Closed { code: Some(4001), reason: Some("bye".into()) });
        assert_eq!(closed.connection, "w");
        assert!(!recorder.closes_waiting());
    }

    #[test]
    fn a_close_code_reported_before_the_close_is_used_when_it_comes() {
        let mut recorder = Recorder::default();
        recorder.event(7, None, "Network.webSocketCreated", &json!({"requestId": "w", "url": "ws://x/live"}), NOW);
        let report = json!({"name": SOCKET_BINDING, "payload": r#"{"url":"ws://x/live","code":1006,"reason":""}"#});
        assert!(recorder.event(7, None, "Runtime.bindingCalled", &report, NOW).is_empty());
        let closed = socket(one(&mut recorder, "Network.webSocketClosed", json!({"requestId": "w"})));
        assert_eq!(closed.kind, WebSocketEventKind::Closed { code: Some(1006), reason: None });
    }

    #[test]
    fn a_close_nobody_reports_a_code_for_is_recorded_without_one() {
        let mut recorder = Recorder::default();
        recorder.event(7, None, "Network.webSocketCreated", &json!({"requestId": "w", "url": "ws://x/live"}), NOW);
        recorder.event(7, None, "Network.webSocketClosed", &json!({"requestId": "w"}), NOW);
        assert!(recorder.flush_closes(NOW + 10, 1000).is_empty(), "not yet due");
        let flushed = recorder.flush_closes(NOW + 1000, 1000);
        assert_eq!(flushed.len(), 1);
        let closed = flushed.into_iter().next().unwrap();
        assert_eq!((closed.kind, closed.time_ms), (WebSocketEventKind::Closed { code: None, reason: None }, NOW));
    }
}
