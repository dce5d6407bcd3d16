//! Checkpoints and change reports: what happened in the browser since an agent last looked.
//!
//! [`record`] turns CDP events and the page's own reports into entries and decides which of them
//! are kept. A [`Timeline`] keeps console messages, requests, WebSocket events and actions in
//! four bounded rings; a request is kept from the moment its response arrives (or it fails
//! without one), and the size of its body is added later, if that load ever finishes. A
//! checkpoint remembers a position in each ring plus what was known about every endpoint;
//! [`Timeline::changes_since`] reads each ring from a checkpoint (a session's automatic one, a
//! named one, or a time) and compresses what it finds into a small report: new errors
//! deduplicated by fingerprint, endpoints that started failing, new or slow endpoints, WebSocket
//! closes, actions, an overall severity and a one-line summary. Every action's response ends
//! with [`Timeline::last_response_line`], one line on errors and failed requests since the
//! previous response ([`Timeline::end_action_response`] puts it there).
//! [`listing`] renders the raw console and network rings a page at a time (with the requests
//! still waiting for a response, which the recorder holds, as pending), and
//! [`CheckpointReply`] says what a checkpoint call did. The consoles the extension paused because
//! they flooded are kept apart from the rings ([`ConsolePause`]), so reports and the console
//! listing say what they dropped even when the flood evicted everything else.
//!
//! Nothing here performs I/O, reads a clock or waits: times are handed in as epoch
//! milliseconds, and the whole state serialises so the extension can keep it across
//! service-worker restarts. The extension runtime only feeds events in, stores the state and
//! schedules; every decision and every text is made here.

mod answered;
mod buffers;
mod checkpoint;
mod diff;
mod endpoints;
mod entries;
pub use crate::text::prefix_bytes;
mod error;
pub mod fingerprint;
pub mod flood;
mod iso_time;
pub mod listing;
mod noise;
mod pauses;
mod query;
pub mod record;
mod reply;
mod report;
mod ring;

pub use answered::{LoadEnd, LoadOutcome, RequestId};
pub use buffers::{Limits, Positions};
pub use checkpoint::{Checkpoint, CheckpointInfo, MAX_NAME_LEN, MAX_NAMED, NamedCheckpoints, validate_name};
pub use endpoints::{EndpointMark, EndpointMarks};
pub use entries::{
    ActionEntry, ActionKind, Actor, ConsoleEntry, ConsoleLevel, MAX_RECORDED_TEXT, NetworkEntry, SourceLocation,
    WebSocketEvent, WebSocketEventKind, status_failed,
};
pub use error::ChangesError;
pub use iso_time::{format_iso, parse_iso};
pub use noise::{NoiseConfig, NoisePattern, NoiseRule, NoiseRules, NoiseTarget};
pub use pauses::{ConsolePause, MAX_PAUSES, PausedConsole};
pub use query::Reference;
pub use reply::CheckpointReply;
pub use report::{
    ActionChanges, ActionSummary, ChangeReport, ConsoleChanges, ConsoleGroup, Disconnection, EndpointFailure,
    MESSAGE_CHARS, NetworkChanges, NewEndpoint, SECTION_CAP, Severity, SlowEndpoint, SocketError, SocketOpened,
    WebSocketChanges,
};
pub use ring::{Ring, Since};

use serde::{Deserialize, Serialize};

use crate::protocol::{ChangesParams, CheckpointAction, CheckpointParams};
use buffers::Buffers;
use checkpoint::CheckpointStore;

/// Format number of [`TimelineState`]; bumped whenever its shape changes incompatibly. Fields
/// added with a default (such as the answered requests awaiting their size) keep it: state
/// saved before them still restores.
pub const STATE_FORMAT: u32 = 1;

/// Bytes the saved timeline may take in `chrome.storage.session` (see [`Timeline::saved_text`]).
/// That storage holds 10 MiB for the whole extension; the rest is left to the tabs' grants and
/// the sessions' places.
pub const SAVED_MAX_BYTES: usize = 8 * 1024 * 1024;

/// Room [`Timeline::saved_text`] leaves beyond the entries it sheds, for the bookkeeping that
/// changes with them (the time of the newest entry evicted from each log).
const SHED_SLACK_BYTES: usize = 1024;

/// The bytes `text` counts for when stored as a string value in `chrome.storage`, whose quota is
/// measured on the JSON stringification of each value: `text` with every quote and backslash
/// escaped once more, between two quotes.
pub fn stored_len(text: &str) -> usize {
    escaped_len(text) + 2
}

/// The bytes of `text` with every quote and backslash escaped (what it adds to a JSON string).
fn escaped_len(text: &str) -> usize {
    text.len() + text.bytes().filter(|b| matches!(b, b'"' | b'\\')).count()
}

/// A timeline's state as saved: JSON text within a size, and how many of the oldest entries
/// were left out of it to stay within that size.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedText {
    /// The state ([`TimelineState`]) as JSON.
    pub text: String,
    /// Entries of the rings left out of it.
    pub left_out: usize,
}

/// The recorded events, noise rules and checkpoints of one browser.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    buffers: Buffers,
    checkpoints: CheckpointStore,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}

/// The whole state of a timeline, for keeping across service-worker restarts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineState {
    format: u32,
    buffers: Buffers,
    checkpoints: CheckpointStore,
}

impl Timeline {
    /// An empty timeline with the default limits.
    pub fn new() -> Self {
        Timeline::with_limits(Limits::default())
    }

    /// An empty timeline keeping at most `limits`.
    pub fn with_limits(limits: Limits) -> Self {
        Timeline { buffers: Buffers::new(limits), checkpoints: CheckpointStore::new(limits.sessions) }
    }

    /// What the timeline keeps at most.
    pub fn limits(&self) -> Limits {
        self.buffers.limits
    }

    /// Keeps at most `limits` from now on (the options' log sizes): a ring made smaller loses
    /// its oldest entries at once, and a report over them counts them as lost.
    pub fn set_limits(&mut self, limits: Limits) {
        if limits != self.buffers.limits {
            self.buffers.resize(limits);
        }
    }

    /// Records a console message or uncaught exception.
    pub fn record_console(&mut self, entry: ConsoleEntry) {
        self.buffers.record_console(entry);
    }

    /// Records a request complete as it is: one that failed without a response, or one hop of
    /// a redirect.
    pub fn record_network(&mut self, entry: NetworkEntry) {
        self.buffers.record_network(entry);
    }

    /// Records `request` as its response arrives; how its load ends may follow through
    /// [`Timeline::end_load`].
    pub fn record_answered(&mut self, request: RequestId, entry: NetworkEntry) {
        self.buffers.record_answered(request, entry);
    }

    /// Adds how an answered request's load ended (its size, or the error that cut its body
    /// short) to the entry recorded at its response. Returns `false`, changing nothing, when
    /// that entry is no longer held.
    pub fn end_load(&mut self, end: LoadEnd) -> bool {
        self.buffers.end_load(end)
    }

    /// Records a WebSocket event.
    pub fn record_websocket(&mut self, event: WebSocketEvent) {
        self.buffers.record_websocket(event);
    }

    /// Records an action; its URL, when given, becomes the current page URL.
    pub fn record_action(&mut self, action: ActionEntry) {
        self.buffers.record_action(action);
    }

    /// Sets the current page URL, which checkpoints remember.
    pub fn set_page_url(&mut self, url: impl Into<String>) {
        self.buffers.page_url = Some(entries::recorded_url(&url.into()));
    }

    /// Keeps a console paused because it flooded; returns the id to add what it drops by.
    pub fn console_paused(&mut self, pause: ConsolePause) -> u64 {
        self.buffers.pauses.start(pause)
    }

    /// Adds what paused console `id` dropped.
    pub fn console_dropped(&mut self, id: u64, messages: u64, characters: u64) {
        self.buffers.pauses.dropped(id, messages, characters);
    }

    /// The frame of paused console `id`, whose URL was not known when it was paused, is at `url`.
    pub fn console_pause_frame(&mut self, id: u64, url: &str) {
        self.buffers.pauses.frame_known(id, url);
    }

    /// Paused console `id` is recorded again from `at_ms`.
    pub fn console_resumed(&mut self, id: u64, at_ms: u64) {
        self.buffers.pauses.resumed(id, at_ms);
    }

    /// The console listing `params` asks for, of the readable tabs ([`listing::render_console`]),
    /// ending with the consoles paused for flooding and what they dropped, when there were any.
    pub fn console_listing(&self, params: &crate::protocol::ConsoleMessagesParams) -> String {
        let listing =
            listing::render_console(self.console().iter().filter(|e| self.buffers.readable_entry(*e)), params);
        let wanted = |t: u32| params.tab.is_none_or(|tab| tab == t) && self.buffers.readable(t);
        let pauses = pauses::listing_lines(self.buffers.pauses.iter(), wanted);
        if pauses.is_empty() { listing } else { format!("{}\n{pauses}", listing.trim_end()) }
    }

    /// The recorded console entries, oldest first.
    pub fn console(&self) -> &Ring<ConsoleEntry> {
        &self.buffers.console
    }

    /// The recorded requests, oldest first.
    pub fn network(&self) -> &Ring<NetworkEntry> {
        &self.buffers.network
    }

    /// The recorded WebSocket events, oldest first.
    pub fn websocket(&self) -> &Ring<WebSocketEvent> {
        &self.buffers.websocket
    }

    /// The recorded actions, oldest first.
    pub fn actions(&self) -> &Ring<ActionEntry> {
        &self.buffers.actions
    }

    /// The active noise rules.
    pub fn noise_rules(&self) -> &NoiseRules {
        &self.buffers.noise
    }

    /// Adds a noise rule, replacing any of the same name; returns the replaced one.
    pub fn add_noise_rule(&mut self, rule: NoiseRule) -> Option<NoiseRule> {
        self.buffers.noise.add(rule)
    }

    /// Removes the noise rule called `name`; returns it when there was one.
    pub fn remove_noise_rule(&mut self, name: &str) -> Option<NoiseRule> {
        self.buffers.noise.remove(name)
    }

    /// Replaces every noise rule with `rules`.
    pub fn set_noise_rules(&mut self, rules: NoiseRules) {
        self.buffers.noise = rules;
    }

    /// Marks this moment as `name`.
    pub fn create_checkpoint(&mut self, name: &str, now_ms: u64) -> Result<CheckpointInfo, ChangesError> {
        self.checkpoints.create_named(name, &self.buffers, now_ms)
    }

    /// Named checkpoints, oldest first.
    pub fn list_checkpoints(&self) -> Vec<CheckpointInfo> {
        self.checkpoints.list_named()
    }

    /// Removes the named checkpoint `name`.
    pub fn delete_checkpoint(&mut self, name: &str) -> Result<CheckpointInfo, ChangesError> {
        self.checkpoints.delete_named(name)
    }

    /// Serves a `browser_checkpoint` call.
    pub fn checkpoint(&mut self, params: &CheckpointParams, now_ms: u64) -> Result<CheckpointReply, ChangesError> {
        match params.action {
            CheckpointAction::Create => {
                let name = params.name.as_deref().ok_or(ChangesError::NameMissing { action: "create" })?;
                let info = self.create_checkpoint(name, now_ms)?;
                Ok(CheckpointReply::created(info))
            }
            CheckpointAction::List => Ok(CheckpointReply::listed(self.list_checkpoints())),
            CheckpointAction::Delete => {
                let name = params.name.as_deref().ok_or(ChangesError::NameMissing { action: "delete" })?;
                let info = self.delete_checkpoint(name)?;
                Ok(CheckpointReply::deleted(info))
            }
        }
    }

    /// What a `checkpoint` argument refers to, without building a report.
    pub fn resolve(&self, checkpoint: Option<&str>) -> Result<Reference, ChangesError> {
        query::resolve(&self.checkpoints, checkpoint)
    }

    /// What changed since the reference in `params`, as of `now_ms`. Without a reference this is
    /// since `session`'s previous call (the start of the buffers on its first). Any call that
    /// names no checkpoint (none, or an ISO 8601 time) moves the session's automatic checkpoint
    /// to now; a named checkpoint moves nothing.
    pub fn changes_since(
        &mut self,
        session: &str,
        params: &ChangesParams,
        now_ms: u64,
    ) -> Result<ChangeReport, ChangesError> {
        query::changes_since(&mut self.checkpoints, &self.buffers, session, params, now_ms)
    }

    /// One line on console errors and failed requests since `session`'s previous line, or `None`
    /// when there are none. Moves only that session's cursor.
    pub fn last_response_line(&mut self, session: &str) -> Option<String> {
        query::last_response_line(&mut self.checkpoints, &self.buffers, session)
    }

    /// Ends an action's response `text` with [`Timeline::last_response_line`], on a line of its
    /// own, when there is one.
    pub fn end_action_response(&mut self, session: &str, text: &mut String) {
        if let Some(line) = self.last_response_line(session) {
            reply::end_with_line(text, &line);
        }
    }

    /// Restricts every read (reports, response lines, listings) to entries of `tabs`: a tab the
    /// agent may no longer use (unshared, closed) is no longer readable. `None` reads all.
    pub fn set_readable_tabs(&mut self, tabs: Option<std::collections::BTreeSet<u32>>) {
        self.buffers.readable = tabs;
    }

    /// Whether entries of `tab` may be read now.
    pub fn readable(&self, tab: u32) -> bool {
        self.buffers.readable(tab)
    }

    /// Keeps entries recorded on a site `policy` gives agents no access to out of every read
    /// (reports, response lines, listings), judged by the URL each entry carries; `None` keeps
    /// none out. Entries that carry no URL are judged by their tab ([`Self::set_readable_tabs`]).
    pub fn set_no_access(&mut self, policy: Option<crate::permissions::Policy>) {
        self.buffers.no_access = policy;
    }

    /// Whether an entry of `tab` recorded on `url` may be read now: its tab is readable and the
    /// URL is on no site of no access.
    pub fn readable_at(&self, tab: u32, url: Option<&str>) -> bool {
        self.buffers.readable_at(tab, url)
    }

    /// Forgets every recorded console message, request, WebSocket event and action, and the
    /// consoles paused for flooding (the person asked to); checkpoints stay, and a report over
    /// the forgotten span counts it as lost. Returns how many entries were dropped.
    pub fn forget_entries(&mut self) -> usize {
        self.buffers.forget_entries()
    }

    /// Forgets a session's automatic checkpoint and cursor (its MCP client went away).
    pub fn forget_session(&mut self, session: &str) -> bool {
        self.checkpoints.forget_session(session)
    }

    /// How many sessions' checkpoints are remembered.
    pub fn session_count(&self) -> usize {
        self.checkpoints.session_count()
    }

    /// The whole state: buffers, noise rules, checkpoints, session cursors.
    pub fn serialize(&self) -> TimelineState {
        TimelineState { format: STATE_FORMAT, buffers: self.buffers.clone(), checkpoints: self.checkpoints.clone() }
    }

    /// The whole state as JSON text taking at most `max_bytes` as stored ([`stored_len`]). When
    /// it would take more, the oldest entries of the rings are left out of it, oldest first
    /// whatever their ring (this timeline keeps them), noted as evicted: a timeline restored from
    /// it counts them as lost in its reports. A console flood of long messages full of control
    /// characters, each escaped to six bytes, would otherwise outgrow the storage and fail every
    /// save.
    pub fn saved_text(&self, max_bytes: usize) -> Result<SavedText, serde_json::Error> {
        let text = serde_json::to_string(&self.serialize())?;
        let size = stored_len(&text);
        if size <= max_bytes {
            return Ok(SavedText { text, left_out: 0 });
        }
        let mut buffers = self.buffers.clone();
        let left_out = buffers.shed_oldest(size - max_bytes + SHED_SLACK_BYTES);
        let state = TimelineState { format: STATE_FORMAT, buffers, checkpoints: self.checkpoints.clone() };
        Ok(SavedText { text: serde_json::to_string(&state)?, left_out })
    }

    /// A timeline from saved state, brought back within its limits.
    pub fn restore(state: TimelineState) -> Result<Self, ChangesError> {
        if state.format != STATE_FORMAT {
            return Err(ChangesError::StateVersion { found: state.format, expected: STATE_FORMAT });
        }
        let TimelineState { mut buffers, mut checkpoints, .. } = state;
        let limits = buffers.limits;
        buffers.repair(limits);
        checkpoints.repair(limits.sessions);
        Ok(Timeline { buffers, checkpoints })
    }

    /// The named checkpoints alone, for keeping across browser restarts.
    pub fn named_checkpoints(&self) -> NamedCheckpoints {
        self.checkpoints.export_named()
    }

    /// Adds named checkpoints kept from an earlier browser run. Everything this timeline holds
    /// happened after them, so their windows start at the beginning of the current buffers; their
    /// endpoint knowledge is kept. Existing names win; returns how many were added.
    pub fn restore_named(&mut self, saved: NamedCheckpoints) -> usize {
        self.checkpoints.import_named(saved)
    }
}
