//! The change report an agent reads: what happened since a checkpoint, compressed.
//!
//! Each section lists only what matters (new errors deduplicated, failing, new and slow
//! endpoints, WebSocket closes, actions) with totals beside; sections left out by the caller
//! are absent rather than empty; empty lists and default values are not serialised, so a quiet
//! page costs a few dozen tokens. The overall severity and the one-line summary are derived
//! from what the report lists. This module only shapes and finishes reports; it never reads
//! buffers.

use serde::{Deserialize, Serialize};

use super::entries::{ActionKind, Actor};
use super::pauses::PausedConsole;

/// Most entries a section lists; the rest are counted in its `omitted`.
pub const SECTION_CAP: usize = 50;
/// Longest message a report quotes, in characters.
pub const MESSAGE_CHARS: usize = 200;

/// How serious a report's findings are, from least to most.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Nothing notable.
    #[default]
    Clean,
    /// Console warnings, WebSocket closes or errors, endpoints still failing or slow.
    Warning,
    /// New console errors or network failures.
    Error,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// What changed since a checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeReport {
    /// Start of the window (ISO 8601).
    pub from: String,
    /// End of the window: when the report was made (ISO 8601).
    pub to: String,
    /// Length of the window in milliseconds.
    pub duration_ms: u64,
    /// Overall severity of what is listed.
    pub severity: Severity,
    /// One line, e.g. `2 new console error(s), 1 network failure(s)`.
    pub summary: String,
    /// Console section, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console: Option<ConsoleChanges>,
    /// Network section, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkChanges>,
    /// WebSocket section, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub websocket: Option<WebSocketChanges>,
    /// Actions section, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<ActionChanges>,
    /// What the report could not show, e.g. entries evicted before it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Estimated tokens of this report: its JSON length / 4.
    pub tokens: usize,
}

/// New console errors and warnings, each message once with its repeat count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConsoleChanges {
    /// Errors, first seen first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ConsoleGroup>,
    /// Warnings, first seen first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ConsoleGroup>,
    /// New console entries of every level (noise excluded).
    pub total: u64,
    /// Messages left out past the cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u64,
    /// Entries evicted before this report could see them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
    /// Consoles Sightline paused during the window because they flooded, and what each dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paused: Vec<PausedConsole>,
}

/// One console message and how often it (or one differing only in ids, numbers and times)
/// was logged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleGroup {
    /// The first occurrence's text, cut to 200 characters.
    pub message: String,
    /// How many times (left out when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
    /// `path:line:column` of the first occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

fn one() -> u32 {
    1
}

/// New request failures, endpoints still failing, new endpoints and slow ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkChanges {
    /// Endpoints failing now that were not failing at the checkpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<EndpointFailure>,
    /// Endpoints that were failing at the checkpoint and still are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub still_failing: Vec<EndpointFailure>,
    /// Endpoints responding more than 3× slower than their baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub degraded: Vec<SlowEndpoint>,
    /// Endpoints never seen before the checkpoint that answer (new ones that fail are among the
    /// failures, without a previous status).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_endpoints: Vec<NewEndpoint>,
    /// New requests (noise excluded).
    pub total: u64,
    /// Endpoints left out past the cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u64,
    /// Requests evicted before this report could see them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
}

/// A failing endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointFailure {
    /// Method and path, e.g. `GET /api/users`.
    pub endpoint: String,
    /// Latest status (0: no response).
    pub status: u16,
    /// Failure text, for requests without a response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Status at the checkpoint (0: no response); absent for an endpoint never seen before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<u16>,
    /// Failed requests in the window (left out when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

/// An endpoint never seen before the checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEndpoint {
    /// Method and path.
    pub endpoint: String,
    /// Latest status (0: no response).
    pub status: u16,
}

/// An endpoint responding much slower than usual.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowEndpoint {
    /// Method and path.
    pub endpoint: String,
    /// Typical duration at the checkpoint.
    pub baseline_ms: u64,
    /// Slowest successful response in the window.
    pub slowest_ms: u64,
}

/// WebSocket closes, errors and new connections.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WebSocketChanges {
    /// Sockets that closed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disconnections: Vec<Disconnection>,
    /// Socket errors, including refused handshakes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SocketError>,
    /// Sockets opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connections: Vec<SocketOpened>,
    /// Frames sent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub frames_sent: u64,
    /// Frames received.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub frames_received: u64,
    /// New WebSocket events (noise excluded).
    pub total: u64,
    /// Entries left out past the cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u64,
    /// Events evicted before this report could see them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
}

/// Sockets to one URL that closed the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disconnection {
    /// Socket URL without its query.
    pub url: String,
    /// Close code, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Close reason, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How many times (left out when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

/// One socket error message on one URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocketError {
    /// Socket URL without its query.
    pub url: String,
    /// Error text, cut to 200 characters.
    pub message: String,
    /// How many times (left out when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

/// Sockets opened to one URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocketOpened {
    /// Socket URL without its query.
    pub url: String,
    /// How many times (left out when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

/// Actions since the checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionChanges {
    /// The most recent actions, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActionSummary>,
    /// New actions.
    pub total: u64,
    /// Earlier actions left out past the cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u64,
    /// Actions evicted before this report could see them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
}

/// One action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionSummary {
    /// What kind.
    pub kind: ActionKind,
    /// Who did it (left out for the agent).
    #[serde(default, skip_serializing_if = "Actor::is_agent")]
    pub by: Actor,
    /// What was done, cut to 200 characters.
    pub description: String,
    /// Page URL, when it differs from the previous listed action's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When, in milliseconds after the report's `from`.
    pub after_ms: u64,
}

/// Counts of what a report lists, before capping, from which severity and summary follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) console_errors: u64,
    pub(crate) network_failures: u64,
    pub(crate) console_warnings: u64,
    pub(crate) still_failing: u64,
    pub(crate) disconnections: u64,
    pub(crate) socket_errors: u64,
    pub(crate) slow_endpoints: u64,
    pub(crate) console_pauses: u64,
}

impl Tally {
    /// Error on new console errors or network failures; warning on anything else listed at
    /// warning level; clean otherwise.
    pub(crate) fn severity(&self) -> Severity {
        if self.console_errors > 0 || self.network_failures > 0 {
            Severity::Error
        } else if self.console_warnings
            + self.still_failing
            + self.disconnections
            + self.socket_errors
            + self.slow_endpoints
            + self.console_pauses
            > 0
        {
            Severity::Warning
        } else {
            Severity::Clean
        }
    }

    /// `2 new console error(s), 1 network failure(s)`, most serious first; `No significant
    /// changes.` when there is nothing at warning level or above.
    pub(crate) fn summary(&self) -> String {
        let parts: Vec<String> = [
            (self.console_errors, "new console error(s)"),
            (self.network_failures, "network failure(s)"),
            (self.console_warnings, "new console warning(s)"),
            (self.still_failing, "endpoint(s) still failing"),
            (self.disconnections, "WebSocket disconnection(s)"),
            (self.socket_errors, "WebSocket error(s)"),
            (self.slow_endpoints, "slow endpoint(s)"),
            (self.console_pauses, "console(s) paused for flooding"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() { "No significant changes.".to_owned() } else { parts.join(", ") }
    }
}

impl ChangeReport {
    /// Sets severity and summary from `tally`, then the token estimate so that it equals the
    /// length of the report's own JSON divided by four.
    pub(crate) fn finish(mut self, tally: &Tally) -> Self {
        self.severity = tally.severity();
        self.summary = tally.summary();
        // The estimate is part of the JSON it estimates; a few rounds settle it (its digit count
        // changes at most once or twice).
        for _ in 0..4 {
            let tokens = self.json_len() / 4;
            if tokens == self.tokens {
                break;
            }
            self.tokens = tokens;
        }
        self
    }

    /// Length in bytes of the report's compact JSON.
    pub fn json_len(&self) -> usize {
        serde_json::to_vec(self).map_or(0, |json| json.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_order_clean_warning_error() {
        assert!(Severity::Clean < Severity::Warning && Severity::Warning < Severity::Error);
    }

    #[test]
    fn a_quiet_report_serialises_to_a_few_fields() {
        let report = ChangeReport {
            from: "a".into(),
            to: "b".into(),
            console: Some(ConsoleChanges::default()),
            ..Default::default()
        }
        .finish(&Tally::default());
        let json = serde_json::to_string(&report).unwrap();
        assert_eq!(
            json,
            r#"{"from":"a","to":"b","duration_ms":0,"severity":"clean","summary":"No significant changes.","console":{"total":0},"tokens":31}"#
        );
        assert_eq!(json.len() / 4, 31);
    }
}
