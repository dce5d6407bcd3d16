//! Answers the two questions an agent asks of a timeline: "what changed since X?" (a change
//! report) and "anything new since my previous response?" (one line).
//!
//! These functions take the checkpoints mutably and the buffers only to read: answering never
//! changes what was recorded. Only a session's own automatic checkpoint and cursor ever move;
//! named checkpoints never do.

use super::buffers::Buffers;
use super::checkpoint::{Checkpoint, CheckpointStore};
use super::diff::{Baseline, build_report};
use super::entries::ConsoleLevel;
use super::error::ChangesError;
use super::fingerprint::{endpoint_key, truncate_chars};
use super::iso_time::parse_iso;
use super::report::ChangeReport;
use crate::protocol::ChangesParams;
use crate::snapshot::escape;

/// Longest message quoted in a response line, in characters.
const LINE_MESSAGE_CHARS: usize = 100;

/// What a change report is measured against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// The session's automatic checkpoint (its previous report, or the start of the buffers).
    Auto,
    /// A named checkpoint.
    Named(String),
    /// Entries stamped after this time (epoch milliseconds).
    After(u64),
}

/// Turns the `checkpoint` argument into a reference: none (or blank) is the session's own
/// automatic checkpoint; a checkpoint name wins over a time; otherwise it must be ISO 8601.
pub(crate) fn resolve(store: &CheckpointStore, checkpoint: Option<&str>) -> Result<Reference, ChangesError> {
    let Some(text) = checkpoint.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(Reference::Auto);
    };
    if store.named(text).is_some() {
        return Ok(Reference::Named(text.to_owned()));
    }
    match parse_iso(text) {
        Some(ms) => Ok(Reference::After(ms)),
        None => Err(ChangesError::UnknownReference { reference: text.to_owned(), known: store.known_names() }),
    }
}

/// The change report for `session`. Every report that does not name a checkpoint (none, or a
/// time) moves that session's automatic checkpoint to now; a named checkpoint moves nothing.
pub(crate) fn changes_since(
    store: &mut CheckpointStore,
    buffers: &Buffers,
    session: &str,
    params: &ChangesParams,
    now_ms: u64,
) -> Result<ChangeReport, ChangesError> {
    match resolve(store, params.checkpoint.as_deref())? {
        Reference::Auto => {
            let marks = store.session(session);
            let report = match &marks.auto {
                Some(previous) => build_report(buffers, &Baseline::checkpoint(previous), params, now_ms),
                None => build_report(buffers, &Baseline::start(buffers, now_ms), params, now_ms),
            };
            marks.auto = Some(Checkpoint::capture(buffers, now_ms));
            Ok(report)
        }
        Reference::Named(name) => {
            let checkpoint = store
                .named(&name)
                .ok_or_else(|| ChangesError::UnknownCheckpoint { name: name.clone(), known: store.known_names() })?;
            Ok(build_report(buffers, &Baseline::checkpoint(checkpoint), params, now_ms))
        }
        Reference::After(time_ms) => {
            let report = build_report(buffers, &Baseline::after_time(buffers, time_ms), params, now_ms);
            store.session(session).auto = Some(Checkpoint::capture(buffers, now_ms));
            Ok(report)
        }
    }
}

/// One line on the console errors and failed requests recorded since this session's previous
/// line (since the start of the buffers, the first time), or `None` when there are none. Noise
/// is left out. Moves only this session's cursor.
pub(crate) fn last_response_line(store: &mut CheckpointStore, buffers: &Buffers, session: &str) -> Option<String> {
    let marks = store.session(session);
    let cursor = marks.cursor.unwrap_or_default();
    marks.cursor = Some(buffers.positions());

    let mut errors = 0u64;
    let mut latest_error = None;
    for entry in buffers.console.since(cursor.console).entries {
        if entry.level == ConsoleLevel::Error && buffers.readable_entry(entry) && !buffers.noise.is_console_noise(entry)
        {
            errors += 1;
            latest_error = Some(entry);
        }
    }
    let mut failed = 0u64;
    let mut latest_failure = None;
    for entry in buffers.network.since(cursor.network).entries {
        if entry.failed() && buffers.readable_entry(entry) && !buffers.noise.is_request_noise(entry) {
            failed += 1;
            latest_failure = Some(entry);
        }
    }

    let mut parts = Vec::new();
    if let Some(entry) = latest_error {
        // Quoted as JSON on one line: a message cannot add lines of its own to the answer.
        let message = escape::quote_log(&truncate_chars(entry.text.trim(), LINE_MESSAGE_CHARS));
        parts.push(match errors {
            1 => format!("1 console error ({message})"),
            n => format!("{n} console errors (latest {message})"),
        });
    }
    if let Some(entry) = latest_failure {
        let outcome = match (entry.status, entry.error.as_deref()) {
            (0, Some(error)) => escape::text(&truncate_chars(error, LINE_MESSAGE_CHARS)),
            (0, None) => "no response".to_owned(),
            (status, _) => status.to_string(),
        };
        let request = format!("{} → {outcome}", endpoint_key(&entry.method, &entry.url));
        parts.push(match failed {
            1 => format!("1 failed request ({request})"),
            n => format!("{n} failed requests (latest {request})"),
        });
    }
    (!parts.is_empty()).then(|| format!("Since the last response: {}.", parts.join("; ")))
}
