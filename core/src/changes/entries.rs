//! The events a timeline records: console messages, requests (answered or failed), WebSocket
//! events and actions.
//!
//! The recorder ([`super::record`]) builds these from CDP events and the page's reports; this
//! module only defines their shape, how they serialise (for persistence across service-worker
//! restarts), and the size bounds applied when they are recorded. It never interprets CDP itself.

use crate::text::prefix_bytes;
use crate::urls::{redact_text_urls, redact_url};
use serde::{Deserialize, Serialize};

/// Longest console text, URL or description kept per entry, in bytes; the rest is cut when the
/// entry is recorded so one runaway message cannot fill memory.
pub const MAX_RECORDED_TEXT: usize = 2000;

/// Longest raw text ever looked at when something is recorded (beyond it nothing is kept
/// anyway), so masking secrets in a 1.5 MB URL costs what masking 64 kB does.
const MAX_RAW_TEXT: usize = 64 * 1024;

/// How serious a console message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleLevel {
    /// `console.error`, uncaught exceptions, failed resource loads.
    Error,
    /// `console.warn`, deprecations, interventions.
    #[serde(alias = "warn")]
    Warning,
    /// `console.info`.
    Info,
    /// `console.log` and anything unclassified.
    Log,
    /// `console.debug` and verbose messages.
    #[serde(alias = "verbose")]
    Debug,
}

/// Where a console message came from. Line and column are 1-based, as shown to people.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceLocation {
    /// Script or document URL.
    pub url: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleEntry {
    /// Severity.
    pub level: ConsoleLevel,
    /// Message text.
    pub text: String,
    /// Source location, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// When it was logged, in epoch milliseconds.
    pub time_ms: u64,
    /// Browser tab id.
    pub tab: u32,
}

/// One request: recorded when its response arrives (or when it fails without one). How its body
/// load ends, if it ever does, is added to the same entry later: its size, or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkEntry {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Full request URL.
    pub url: String,
    /// HTTP status; 0 when no response arrived (DNS failure, refused, blocked, cancelled).
    pub status: u16,
    /// Failure text such as `net::ERR_CONNECTION_REFUSED`, for requests without a response, or
    /// such as `net::ERR_INCOMPLETE_CHUNKED_ENCODING` for a body that failed after one (the
    /// status then stands: whether the request failed is the status's to say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// From request sent to response received (or to the failure, without a response), in
    /// milliseconds.
    pub duration_ms: u64,
    /// Bytes received on the wire; 0 until the body has finished loading.
    #[serde(default)]
    pub encoded_bytes: u64,
    /// CDP resource type, e.g. `Document`, `XHR`, `Fetch`, `Script`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// When it was recorded (its response arrived, or it failed), in epoch milliseconds.
    pub time_ms: u64,
    /// Browser tab id.
    pub tab: u32,
}

impl NetworkEntry {
    /// Whether the request failed: no response, or a 4xx/5xx status.
    pub fn failed(&self) -> bool {
        status_failed(self.status)
    }
}

/// Whether a status means failure: 0 (no response) or 4xx/5xx.
pub fn status_failed(status: u16) -> bool {
    status == 0 || status >= 400
}

/// What happened on a WebSocket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum WebSocketEventKind {
    /// The page opened a socket.
    Created,
    /// The server answered the upgrade request.
    Handshake {
        /// HTTP status of the handshake response (101 when accepted).
        status: u16,
    },
    /// A frame went out (only counted; payloads are never kept).
    FrameSent,
    /// A frame came in (only counted; payloads are never kept).
    FrameReceived,
    /// The socket reported an error.
    Error {
        /// Error text.
        message: String,
    },
    /// The socket closed.
    Closed {
        /// Close code, when known (1000 normal, 1006 abnormal, …).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<u16>,
        /// Close reason, when one was given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// One WebSocket event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSocketEvent {
    /// Connection id (CDP request id), shared by every event of one socket.
    pub connection: String,
    /// Socket URL.
    pub url: String,
    /// What happened.
    #[serde(flatten)]
    pub kind: WebSocketEventKind,
    /// When, in epoch milliseconds.
    pub time_ms: u64,
    /// Browser tab id.
    pub tab: u32,
}

/// The kind of an action on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// A click or double click.
    Click,
    /// Text typed into a field.
    Type,
    /// A key or chord pressed.
    Key,
    /// A navigation (URL load, back, forward, reload).
    Navigate,
    /// An option chosen in a select.
    Select,
    /// The pointer moved over an element.
    Hover,
    /// The page or an element scrolled.
    Scroll,
    /// A form submitted.
    Submit,
    /// Anything else.
    Other,
}

/// Who performed an action.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// The agent, through a tool.
    #[default]
    Agent,
    /// The person at the browser.
    User,
}

impl Actor {
    /// Whether this is the agent (the default, left out of reports).
    pub fn is_agent(&self) -> bool {
        *self == Actor::Agent
    }
}

/// One action on a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionEntry {
    /// What kind of action.
    pub kind: ActionKind,
    /// Who did it.
    #[serde(default)]
    pub by: Actor,
    /// Short description, e.g. `click e12 button "Add to Bag"`.
    pub description: String,
    /// Page URL the action happened on (or, for a navigation, went to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When, in epoch milliseconds.
    pub time_ms: u64,
    /// Browser tab id.
    pub tab: u32,
}

/// Cuts `text` to at most `max` bytes, at a character boundary.
pub(crate) fn bound_text(text: &mut String, max: usize) {
    let cut = prefix_bytes(text, max).len();
    text.truncate(cut);
}

/// A URL as the timeline keeps it: secrets in it masked ([`redact_url`]), at most
/// [`MAX_RECORDED_TEXT`] bytes. Used wherever a URL enters the recorder, so nothing held (not
/// even a request still in flight) keeps a secret or a runaway length.
pub fn recorded_url(url: &str) -> String {
    let mut url = redact_url(prefix_bytes(url, MAX_RAW_TEXT));
    bound_text(&mut url, MAX_RECORDED_TEXT);
    url
}

/// Free text (a console message, an error, a close reason, a description) as the timeline keeps
/// it: URLs in it masked ([`redact_text_urls`]), at most [`MAX_RECORDED_TEXT`] bytes.
pub fn recorded_text(text: &str) -> String {
    let mut text = redact_text_urls(prefix_bytes(text, MAX_RAW_TEXT));
    bound_text(&mut text, MAX_RECORDED_TEXT);
    text
}

impl ConsoleEntry {
    pub(crate) fn bound(&mut self) {
        self.text = recorded_text(&self.text);
        if let Some(source) = &mut self.source {
            source.url = recorded_url(&source.url);
        }
    }
}

impl NetworkEntry {
    pub(crate) fn bound(&mut self) {
        bound_text(&mut self.method, 16);
        self.url = recorded_url(&self.url);
        if let Some(error) = &mut self.error {
            *error = recorded_text(error);
        }
    }
}

impl WebSocketEvent {
    pub(crate) fn bound(&mut self) {
        bound_text(&mut self.connection, 128);
        self.url = recorded_url(&self.url);
        match &mut self.kind {
            WebSocketEventKind::Error { message } => *message = recorded_text(message),
            WebSocketEventKind::Closed { reason: Some(reason), .. } => *reason = recorded_text(reason),
            _ => {}
        }
    }
}

impl ActionEntry {
    pub(crate) fn bound(&mut self) {
        self.description = recorded_text(&self.description);
        if let Some(url) = &mut self.url {
            *url = recorded_url(url);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websocket_events_serialise_flat_with_an_event_tag() {
        let event = WebSocketEvent {
            connection: "7".into(),
            url: "wss://x/ws".into(),
            kind: WebSocketEventKind::Closed { code: Some(1006), reason: None },
            time_ms: 5,
            tab: 1,
        };
        let json = serde_json::to_string(&event).unwrap();
        assert_eq!(json, r#"{"connection":"7","url":"wss://x/ws","event":"closed","code":1006,"time_ms":5,"tab":1}"#);
        assert_eq!(serde_json::from_str::<WebSocketEvent>(&json).unwrap(), event);
    }

    #[test]
    fn console_levels_accept_cdp_spellings() {
        let level: ConsoleLevel = serde_json::from_str("\"warn\"").unwrap();
        assert_eq!(level, ConsoleLevel::Warning);
        let level: ConsoleLevel = serde_json::from_str("\"verbose\"").unwrap();
        assert_eq!(level, ConsoleLevel::Debug);
    }

    #[test]
    fn recorded_text_is_cut_in_bytes_on_a_character_boundary() {
        let mut text = "é".repeat(5);
        bound_text(&mut text, 3);
        assert_eq!(text, "é", "two bytes fit in three, the next character does not");
        let mut ascii = "abcdef".to_owned();
        bound_text(&mut ascii, 3);
        assert_eq!(ascii, "abc");
    }

    #[test]
    fn recorded_urls_and_text_have_their_secrets_masked_and_a_bounded_length() {
        assert_eq!(recorded_url("https://a.test/cb?code=4a7&state=1"), "https://a.test/cb?code=••••••&state=1");
        assert_eq!(
            recorded_text("fetch https://a.test/x?token=abc failed"),
            "fetch https://a.test/x?token=•••••• failed"
        );
        let huge = format!("https://a.test/x?token=abc&pad={}", "p".repeat(1_500_000));
        let kept = recorded_url(&huge);
        assert!(kept.len() <= MAX_RECORDED_TEXT && kept.starts_with("https://a.test/x?token=••••••&pad=pp"));
    }
}
