//! Turns CDP events and page reports into timeline entries: console messages with their source
//! location, finished and failed requests with method, status, timing and size, WebSocket events,
//! the user's own clicks, typing and navigations.
//!
//! Pure: events and times go in, entries come out, so all of it is unit-tested natively. It keeps
//! only what it needs to finish an entry later (requests in flight, open sockets, closes waiting
//! for their close code), each bounded. It never reads response bodies, never keeps frame
//! payloads, and never sees typed text: the page listener reports only that typing happened.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use sightline_core::changes::{
    ActionEntry, ActionKind, Actor, ConsoleEntry, ConsoleLevel, NetworkEntry, SourceLocation, WebSocketEvent,
    WebSocketEventKind,
};

/// The binding the page's WebSocket hook reports close codes through (main world).
pub const SOCKET_BINDING: &str = "__sightlineSocketClosed";
/// The binding the user-action listener reports through (its own isolated world).
pub const USER_BINDING: &str = "__sightlineUserAction";

/// Requests remembered while in flight; past this the oldest is forgotten (a long poll that never
/// finishes must not grow memory).
const MAX_IN_FLIGHT: usize = 1000;
/// Open sockets remembered for their URL.
const MAX_SOCKETS: usize = 500;
/// Closes waiting for their code, and codes waiting for their close.
const MAX_WAITING_CLOSES: usize = 200;
/// A close code reported by the page before CDP reported the close is kept this long.
const EARLY_CODE_MS: u64 = 5_000;
/// Longest description of a user action, in characters.
const MAX_DESCRIPTION: usize = 200;

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
    /// A finished or failed request.
    Network(NetworkEntry),
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

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RequestKey {
    tab: u32,
    session: Option<String>,
    id: String,
}

#[derive(Debug, Clone)]
struct InFlight {
    method: String,
    url: String,
    /// CDP monotonic seconds when it was sent.
    started: f64,
    /// Epoch milliseconds when it was sent (for evicting the oldest).
    sent_ms: u64,
    resource_type: Option<String>,
    status: Option<u16>,
}

#[derive(Debug, Clone)]
struct WaitingClose {
    tab: u32,
    connection: String,
    url: String,
    time_ms: u64,
}

#[derive(Debug, Clone)]
struct EarlyCode {
    tab: u32,
    url: String,
    code: Option<u16>,
    reason: Option<String>,
    time_ms: u64,
}

/// Requests in flight, open sockets and closes awaiting their code, across all tabs.
#[derive(Debug, Default)]
pub struct Recorder {
    requests: HashMap<RequestKey, InFlight>,
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
            "Runtime.consoleAPICalled" => one(console_api(tab, params, now_ms).map(Recorded::Console)),
            "Runtime.exceptionThrown" => one(Some(Recorded::Console(exception(tab, params, now_ms)))),
            "Log.entryAdded" => one(log_entry(tab, params, now_ms).map(Recorded::Console)),
            "Runtime.bindingCalled" => one(self.binding(tab, params, now_ms)),
            "Page.frameNavigated" => {
                let frame = &params["frame"];
                let main = frame.get("parentId").is_none_or(Value::is_null) && session.is_none();
                let url = text(&frame["url"]);
                one((main && !url.is_empty()).then(|| Recorded::Navigated { tab, url: url.to_owned() }))
            }
            m if m.starts_with("Network.webSocket") => one(self.websocket(tab, method, params, now_ms)),
            _ => self.network(
                RequestKey { tab, session: session.map(str::to_owned), id: id(params) },
                method,
                params,
                now_ms,
            ),
        }
    }

    fn network(&mut self, key: RequestKey, method: &str, params: &Value, now_ms: u64) -> Vec<Recorded> {
        match method {
            "Network.requestWillBeSent" => {
                let mut out = Vec::new();
                // A redirect reuses the request id: the hop that ended with it is one request.
                if let Some(redirect) = params.get("redirectResponse").filter(|r| r.is_object())
                    && let Some(hop) = self.requests.remove(&key)
                {
                    let status = number(&redirect["status"]).map(|s| s as u16);
                    let bytes = number(&redirect["encodedDataLength"]).unwrap_or(0.0);
                    out.push(Recorded::Network(finish(&key, hop, status, None, seconds(params), bytes, now_ms)));
                }
                let request = &params["request"];
                let url = text(&request["url"]);
                if url.is_empty() || url.starts_with("data:") {
                    return out;
                }
                self.remember(
                    key,
                    InFlight {
                        method: text(&request["method"]).to_owned(),
                        url: url.to_owned(),
                        started: seconds(params),
                        sent_ms: now_ms,
                        resource_type: params["type"].as_str().map(str::to_owned),
                        status: None,
                    },
                );
                out
            }
            "Network.responseReceived" => {
                if let Some(request) = self.requests.get_mut(&key) {
                    request.status = number(&params["response"]["status"]).map(|s| s as u16);
                    if let Some(kind) = params["type"].as_str() {
                        request.resource_type = Some(kind.to_owned());
                    }
                }
                Vec::new()
            }
            "Network.loadingFinished" => {
                let Some(request) = self.requests.remove(&key) else { return Vec::new() };
                // A load that finished without any response is not a request we can describe.
                let Some(status) = request.status else { return Vec::new() };
                let bytes = number(&params["encodedDataLength"]).unwrap_or(0.0);
                vec![Recorded::Network(finish(&key, request, Some(status), None, seconds(params), bytes, now_ms))]
            }
            "Network.loadingFailed" => {
                let Some(request) = self.requests.remove(&key) else { return Vec::new() };
                // The page (or a navigation) cancelled it: nothing failed.
                if params["canceled"].as_bool() == Some(true) {
                    return Vec::new();
                }
                let mut error = text(&params["errorText"]).to_owned();
                if let Some(blocked) = params["blockedReason"].as_str() {
                    error = format!("{error} (blocked: {blocked})");
                }
                let error = (!error.is_empty()).then_some(error);
                let status = request.status;
                vec![Recorded::Network(finish(&key, request, status, error, seconds(params), 0.0, now_ms))]
            }
            _ => Vec::new(),
        }
    }

    fn remember(&mut self, key: RequestKey, request: InFlight) {
        if self.requests.len() >= MAX_IN_FLIGHT
            && !self.requests.contains_key(&key)
            && let Some(oldest) = self.requests.iter().min_by_key(|(_, r)| r.sent_ms).map(|(k, _)| k.clone())
        {
            self.requests.remove(&oldest);
        }
        self.requests.insert(key, request);
    }

    fn websocket(&mut self, tab: u32, method: &str, params: &Value, now_ms: u64) -> Option<Recorded> {
        let connection = id(params);
        let url = |recorder: &Self| recorder.sockets.get(&(tab, connection.clone())).cloned().unwrap_or_default();
        let kind = match method {
            "Network.webSocketCreated" => {
                if self.sockets.len() >= MAX_SOCKETS {
                    self.sockets.clear();
                }
                self.sockets.insert((tab, connection.clone()), text(&params["url"]).to_owned());
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

    fn binding(&mut self, tab: u32, params: &Value, now_ms: u64) -> Option<Recorded> {
        let payload = text(&params["payload"]);
        match text(&params["name"]) {
            SOCKET_BINDING => self.socket_close_reported(tab, payload, now_ms),
            USER_BINDING => user_action(tab, payload, now_ms).map(Recorded::UserAction),
            _ => None,
        }
    }

    /// The page's hook saw a socket close with a code: completes the close CDP reported, or
    /// keeps the code for the close CDP has yet to report.
    fn socket_close_reported(&mut self, tab: u32, payload: &str, now_ms: u64) -> Option<Recorded> {
        #[derive(Deserialize)]
        struct Report {
            url: String,
            #[serde(default)]
            code: Option<u16>,
            #[serde(default)]
            reason: Option<String>,
        }
        let report: Report = serde_json::from_str(payload).ok()?;
        let reason = report.reason.filter(|r| !r.is_empty());
        match self.closing.iter().position(|c| c.tab == tab && c.url == report.url) {
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
                self.early_codes.push(EarlyCode { tab, url: report.url, code: report.code, reason, time_ms: now_ms });
                None
            }
        }
    }

    /// Closes that waited at least `max_wait_ms` for their code, recorded without one.
    pub fn flush_closes(&mut self, now_ms: u64, max_wait_ms: u64) -> Vec<Recorded> {
        let (due, waiting): (Vec<_>, Vec<_>) =
            self.closing.drain(..).partition(|c| now_ms.saturating_sub(c.time_ms) >= max_wait_ms);
        self.closing = waiting;
        due.into_iter()
            .map(|c| {
                let kind = WebSocketEventKind::Closed { code: None, reason: None };
                Recorded::WebSocket(WebSocketEvent {
                    connection: c.connection,
                    url: c.url,
                    kind,
                    time_ms: c.time_ms,
                    tab: c.tab,
                })
            })
            .collect()
    }

    /// Whether any close still waits for its code.
    pub fn closes_waiting(&self) -> bool {
        !self.closing.is_empty()
    }
}

fn finish(
    key: &RequestKey,
    request: InFlight,
    status: Option<u16>,
    error: Option<String>,
    ended: f64,
    bytes: f64,
    now_ms: u64,
) -> NetworkEntry {
    let duration =
        if ended > 0.0 && request.started > 0.0 { ((ended - request.started) * 1000.0).max(0.0) } else { 0.0 };
    NetworkEntry {
        method: request.method,
        url: request.url,
        status: status.unwrap_or(0),
        error,
        duration_ms: duration.round() as u64,
        encoded_bytes: bytes.max(0.0) as u64,
        resource_type: request.resource_type,
        time_ms: now_ms,
        tab: key.tab,
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

fn seconds(params: &Value) -> f64 {
    number(&params["timestamp"]).unwrap_or(0.0)
}

/// A CDP call frame's location, 1-based.
fn frame_location(frame: &Value) -> Option<SourceLocation> {
    let url = text(&frame["url"]);
    if url.is_empty() {
        return None;
    }
    let line = number(&frame["lineNumber"]).map_or(0, |l| l as u32 + 1);
    let column = number(&frame["columnNumber"]).map_or(0, |c| c as u32 + 1);
    Some(SourceLocation { url: url.to_owned(), line, column })
}

fn top_frame(stack: &Value) -> Option<SourceLocation> {
    stack["callFrames"].as_array()?.iter().find_map(frame_location)
}

/// `console.*` calls: level from the call type, text from the arguments (format specifiers
/// applied), location from the top of the stack.
fn console_api(tab: u32, params: &Value, now_ms: u64) -> Option<ConsoleEntry> {
    let kind = text(&params["type"]);
    let level = match kind {
        "error" | "assert" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "info" => ConsoleLevel::Info,
        "debug" => ConsoleLevel::Debug,
        "endGroup" | "clear" => return None,
        _ => ConsoleLevel::Log,
    };
    let args = params["args"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut message = format_arguments(args);
    if kind == "assert" {
        message =
            if message.is_empty() { "Assertion failed".to_owned() } else { format!("Assertion failed: {message}") };
    }
    Some(ConsoleEntry { level, text: message, source: top_frame(&params["stackTrace"]), time_ms: now_ms, tab })
}

/// Uncaught exceptions and unhandled rejections: `Uncaught Error: boom`.
fn exception(tab: u32, params: &Value, now_ms: u64) -> ConsoleEntry {
    let details = &params["exceptionDetails"];
    let prefix = text(&details["text"]).trim();
    let thrown = details.get("exception").filter(|e| e.is_object()).map(remote_text).unwrap_or_default();
    let first_line = thrown.lines().next().unwrap_or_default().trim();
    let message = match (prefix.is_empty(), first_line.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => first_line.to_owned(),
        (false, false) if prefix.contains(first_line) => prefix.to_owned(),
        (false, false) => format!("{prefix} {first_line}"),
    };
    let source = frame_location(details).or_else(|| top_frame(&details["stackTrace"]));
    ConsoleEntry { level: ConsoleLevel::Error, text: message, source, time_ms: now_ms, tab }
}

/// Browser messages (deprecations, interventions, security). Failed resource loads are left
/// out: the request itself is recorded as failed, and counting it twice would mislead.
fn log_entry(tab: u32, params: &Value, now_ms: u64) -> Option<ConsoleEntry> {
    let entry = &params["entry"];
    if text(&entry["source"]) == "network" {
        return None;
    }
    let level = match text(&entry["level"]) {
        "error" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "info" => ConsoleLevel::Info,
        _ => ConsoleLevel::Debug,
    };
    let source = top_frame(&entry["stackTrace"]).or_else(|| {
        let url = text(&entry["url"]);
        (!url.is_empty()).then(|| SourceLocation {
            url: url.to_owned(),
            line: number(&entry["lineNumber"]).map_or(0, |l| l as u32 + 1),
            column: 0,
        })
    });
    Some(ConsoleEntry { level, text: text(&entry["text"]).to_owned(), source, time_ms: now_ms, tab })
}

/// A CDP `RemoteObject` as a console shows it in one line.
fn remote_text(object: &Value) -> String {
    match text(&object["type"]) {
        "string" => text(&object["value"]).to_owned(),
        "undefined" => "undefined".to_owned(),
        _ => {
            if let Some(special) = object["unserializableValue"].as_str() {
                return special.to_owned();
            }
            if let Some(preview) = object.get("preview").filter(|p| p.is_object())
                && text(&object["subtype"]) != "error"
            {
                return preview_text(preview);
            }
            if let Some(description) = object["description"].as_str() {
                return description.to_owned();
            }
            match object.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(value) => value.to_string(),
                None => text(&object["type"]).to_owned(),
            }
        }
    }
}

/// `{a: 1, b: "x"}` or `[1, 2]` from an object preview.
fn preview_text(preview: &Value) -> String {
    let array = text(&preview["subtype"]) == "array";
    let mut parts: Vec<String> = preview["properties"]
        .as_array()
        .map(|props| {
            props
                .iter()
                .map(|p| {
                    let value = match text(&p["type"]) {
                        "string" => format!("{:?}", text(&p["value"])),
                        _ => text(&p["value"]).to_owned(),
                    };
                    if array { value } else { format!("{}: {value}", text(&p["name"])) }
                })
                .collect()
        })
        .unwrap_or_default();
    if preview["overflow"].as_bool() == Some(true) {
        parts.push("…".to_owned());
    }
    if array { format!("[{}]", parts.join(", ")) } else { format!("{{{}}}", parts.join(", ")) }
}

/// The arguments of a console call as one message, with `%s`, `%d`, `%i`, `%f`, `%o`, `%O`
/// and `%c` in a leading string applied as browsers do.
fn format_arguments(args: &[Value]) -> String {
    let mut rest = args.iter();
    let mut out = String::new();
    if let Some(first) = args.first()
        && text(&first["type"]) == "string"
        && args.len() > 1
    {
        rest.next();
        let format = text(&first["value"]);
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some(spec @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                    chars.next();
                    let Some(arg) = rest.next() else {
                        out.push('%');
                        out.push(spec);
                        continue;
                    };
                    match spec {
                        'c' => {}
                        'd' | 'i' => {
                            let n = number(&arg["value"]).or_else(|| text(&arg["description"]).parse().ok());
                            match n {
                                Some(n) => out.push_str(&format!("{}", n.trunc())),
                                None => out.push_str("NaN"),
                            }
                        }
                        _ => out.push_str(&remote_text(arg)),
                    }
                }
                _ => out.push('%'),
            }
        }
    } else if let Some(first) = rest.next() {
        out.push_str(&remote_text(first));
    }
    for arg in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&remote_text(arg));
    }
    out
}

/// What the user-action listener reported, checked: a known kind, a bounded description, and
/// never anything else.
fn user_action(tab: u32, payload: &str, now_ms: u64) -> Option<ActionEntry> {
    #[derive(Deserialize)]
    struct Report {
        kind: String,
        description: String,
        #[serde(default)]
        url: Option<String>,
    }
    let report: Report = serde_json::from_str(payload).ok()?;
    let kind = match report.kind.as_str() {
        "click" => ActionKind::Click,
        "type" => ActionKind::Type,
        "select" => ActionKind::Select,
        "submit" => ActionKind::Submit,
        _ => return None,
    };
    let description: String = report.description.split_whitespace().collect::<Vec<_>>().join(" ");
    let description = description.chars().take(MAX_DESCRIPTION).collect();
    Some(ActionEntry {
        kind,
        by: Actor::User,
        description,
        url: report.url.filter(|u| !u.is_empty()),
        time_ms: now_ms,
        tab,
    })
}

/// A navigation the user made in a shared tab (the URL is the entry's `url`, which reports show
/// whenever it changes, so the description does not repeat it).
pub fn user_navigation(tab: u32, url: &str, now_ms: u64) -> ActionEntry {
    ActionEntry {
        kind: ActionKind::Navigate,
        by: Actor::User,
        description: "navigate".to_owned(),
        url: Some(url.to_owned()),
        time_ms: now_ms,
        tab,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NOW: u64 = 1_735_787_045_000;

    fn one(recorder: &mut Recorder, method: &str, params: Value) -> Recorded {
        let mut out = recorder.event(7, None, method, &params, NOW);
        assert_eq!(out.len(), 1, "{method}: {out:?}");
        out.remove(0)
    }

    fn console(recorded: Recorded) -> ConsoleEntry {
        match recorded {
            Recorded::Console(entry) => entry,
            other => panic!("not console: {other:?}"),
        }
    }

    fn network(recorded: Recorded) -> NetworkEntry {
        match recorded {
            Recorded::Network(entry) => entry,
            other => panic!("not network: {other:?}"),
        }
    }

    fn socket(recorded: Recorded) -> WebSocketEvent {
        match recorded {
            Recorded::WebSocket(event) => event,
            other => panic!("not websocket: {other:?}"),
        }
    }

    #[test]
    fn console_error_keeps_its_text_and_one_based_source() {
        let entry = console(one(
            &mut Recorder::default(),
            "Runtime.consoleAPICalled",
            json!({"type": "error", "args": [{"type": "string", "value": "Checkout failed"}],
                   "stackTrace": {"callFrames": [{"url": "http://x/app.js", "lineNumber": 11, "columnNumber": 4}]}}),
        ));
        assert_eq!(entry.level, ConsoleLevel::Error);
        assert_eq!(entry.text, "Checkout failed");
        assert_eq!(entry.source, Some(SourceLocation { url: "http://x/app.js".into(), line: 12, column: 5 }));
        assert_eq!((entry.tab, entry.time_ms), (7, NOW));
    }

    #[test]
    fn format_specifiers_are_applied_and_extra_arguments_appended() {
        let args = json!([
            {"type": "string", "value": "%cOrder %s failed after %d ms (100%%)"},
            {"type": "string", "value": "color: red"},
            {"type": "string", "value": "NW-1"},
            {"type": "number", "value": 12.7, "description": "12.7"},
            {"type": "object", "className": "Object", "description": "Object",
             "preview": {"type": "object", "properties": [{"name": "a", "type": "number", "value": "1"},
                                                           {"name": "b", "type": "string", "value": "x"}]}},
        ]);
        let entry =
            console(one(&mut Recorder::default(), "Runtime.consoleAPICalled", json!({"type": "log", "args": args})));
        assert_eq!(entry.text, "Order NW-1 failed after 12 ms (100%) {a: 1, b: \"x\"}");
        assert_eq!(entry.level, ConsoleLevel::Log);
    }

    #[test]
    fn warnings_and_asserts_map_to_their_levels() {
        let mut recorder = Recorder::default();
        let warn = console(one(
            &mut recorder,
            "Runtime.consoleAPICalled",
            json!({"type": "warning", "args": [{"type": "string", "value": "w"}]}),
        ));
        assert_eq!(warn.level, ConsoleLevel::Warning);
        let assert = console(one(&mut recorder, "Runtime.consoleAPICalled", json!({"type": "assert", "args": []})));
        assert_eq!((assert.level, assert.text.as_str()), (ConsoleLevel::Error, "Assertion failed"));
        assert!(
            recorder
                .event(7, None, "Runtime.consoleAPICalled", &json!({"type": "endGroup", "args": []}), NOW)
                .is_empty()
        );
    }

    #[test]
    fn uncaught_exceptions_read_like_the_console_shows_them() {
        let entry = console(one(
            &mut Recorder::default(),
            "Runtime.exceptionThrown",
            json!({"exceptionDetails": {"text": "Uncaught (in promise)", "lineNumber": 2, "columnNumber": 8,
                   "url": "http://x/app.js",
                   "exception": {"type": "object", "subtype": "error", "description": "Error: gave up\n    at http://x/app.js:3:9"}}}),
        ));
        assert_eq!(entry.text, "Uncaught (in promise) Error: gave up");
        assert_eq!(entry.source, Some(SourceLocation { url: "http://x/app.js".into(), line: 3, column: 9 }));
        assert_eq!(entry.level, ConsoleLevel::Error);
    }

    #[test]
    fn browser_log_entries_are_kept_but_failed_loads_are_left_to_the_network_ring() {
        let mut recorder = Recorder::default();
        let entry = console(one(
            &mut recorder,
            "Log.entryAdded",
            json!({"entry": {"source": "deprecation", "level": "warning", "text": "Old API", "url": "http://x/a.js", "lineNumber": 4}}),
        ));
        assert_eq!((entry.level, entry.text.as_str()), (ConsoleLevel::Warning, "Old API"));
        assert_eq!(entry.source.map(|s| s.line), Some(5));
        let failed_load =
            json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource: 500"}});
        assert!(recorder.event(7, None, "Log.entryAdded", &failed_load, NOW).is_empty());
    }

    #[test]
    fn a_request_is_recorded_once_finished_with_status_timing_and_size() {
        let mut recorder = Recorder::default();
        let sent = json!({"requestId": "1", "timestamp": 10.0, "type": "Fetch",
                          "request": {"url": "http://x/api/orders?page=2", "method": "GET"}});
        assert!(recorder.event(7, None, "Network.requestWillBeSent", &sent, NOW).is_empty());
        let response = json!({"requestId": "1", "type": "Fetch", "response": {"status": 500}});
        assert!(recorder.event(7, None, "Network.responseReceived", &response, NOW).is_empty());
        let entry = network(one(
            &mut recorder,
            "Network.loadingFinished",
            json!({"requestId": "1", "timestamp": 10.013, "encodedDataLength": 321}),
        ));
        assert_eq!(
            entry,
            NetworkEntry {
                method: "GET".into(),
                url: "http://x/api/orders?page=2".into(),
                status: 500,
                error: None,
                duration_ms: 13,
                encoded_bytes: 321,
                resource_type: Some("Fetch".into()),
                time_ms: NOW,
                tab: 7,
            }
        );
    }

    #[test]
    fn failed_requests_carry_the_error_and_cancelled_ones_are_not_failures() {
        let mut recorder = Recorder::default();
        for id in ["1", "2"] {
            let sent = json!({"requestId": id, "timestamp": 1.0, "request": {"url": "http://nowhere.invalid/", "method": "GET"}});
            recorder.event(7, None, "Network.requestWillBeSent", &sent, NOW);
        }
        let failed = network(one(
            &mut recorder,
            "Network.loadingFailed",
            json!({"requestId": "1", "timestamp": 1.003, "errorText": "net::ERR_NAME_NOT_RESOLVED"}),
        ));
        assert_eq!((failed.status, failed.error.as_deref()), (0, Some("net::ERR_NAME_NOT_RESOLVED")));
        assert!(failed.failed());
        let cancelled = json!({"requestId": "2", "timestamp": 1.1, "errorText": "net::ERR_ABORTED", "canceled": true});
        assert!(recorder.event(7, None, "Network.loadingFailed", &cancelled, NOW).is_empty());
    }

    #[test]
    fn redirects_record_each_hop_and_data_urls_are_skipped() {
        let mut recorder = Recorder::default();
        let first = json!({"requestId": "9", "timestamp": 1.0, "request": {"url": "http://x/old", "method": "GET"}});
        recorder.event(7, None, "Network.requestWillBeSent", &first, NOW);
        let hop = network(one(
            &mut recorder,
            "Network.requestWillBeSent",
            json!({"requestId": "9", "timestamp": 1.002, "redirectResponse": {"status": 301},
                   "request": {"url": "http://x/new", "method": "GET"}}),
        ));
        assert_eq!((hop.url.as_str(), hop.status, hop.duration_ms), ("http://x/old", 301, 2));
        let data = json!({"requestId": "d", "timestamp": 1.0, "request": {"url": "data:image/png;base64,AAAA", "method": "GET"}});
        assert!(recorder.event(7, None, "Network.requestWillBeSent", &data, NOW).is_empty());
        assert!(recorder.event(7, None, "Network.loadingFinished", &json!({"requestId": "d"}), NOW).is_empty());
    }

    #[test]
    fn requests_in_flight_are_bounded() {
        let mut recorder = Recorder::default();
        for n in 0..(MAX_IN_FLIGHT + 10) {
            let sent = json!({"requestId": n.to_string(), "request": {"url": "http://x/poll", "method": "GET"}});
            recorder.event(7, None, "Network.requestWillBeSent", &sent, NOW + n as u64);
        }
        assert_eq!(recorder.requests.len(), MAX_IN_FLIGHT);
        assert!(!recorder.requests.contains_key(&RequestKey { tab: 7, session: None, id: "0".into() }));
    }

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
        let closed = socket(flushed.into_iter().next().unwrap());
        assert_eq!((closed.kind, closed.time_ms), (WebSocketEventKind::Closed { code: None, reason: None }, NOW));
    }

    #[test]
    fn user_reports_are_checked_and_bounded() {
        let mut recorder = Recorder::default();
        let report = |payload: &str| json!({"name": USER_BINDING, "payload": payload});
        let long = "x".repeat(500);
        let click = one(
            &mut recorder,
            "Runtime.bindingCalled",
            report(&format!(r#"{{"kind":"click","description":"click button  \"{long}\"","url":"http://x/"}}"#)),
        );
        let Recorded::UserAction(action) = click else { panic!("{click:?}") };
        assert_eq!((action.kind, action.by), (ActionKind::Click, Actor::User));
        assert_eq!(action.description.chars().count(), MAX_DESCRIPTION);
        assert!(action.description.starts_with("click button \"xx"));
        for bad in [r#"{"kind":"keylog","description":"a"}"#, "not json", r#"{"kind":"type"}"#] {
            assert!(recorder.event(7, None, "Runtime.bindingCalled", &report(bad), NOW).is_empty(), "{bad}");
        }
        let other = json!({"name": "somethingElse", "payload": "{}"});
        assert!(recorder.event(7, None, "Runtime.bindingCalled", &other, NOW).is_empty());
    }

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
