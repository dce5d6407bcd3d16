//! Builds a change report from the buffers and a baseline (where the window starts and what
//! was known then).
//!
//! Each section reads its ring from the baseline's position, skips noise and other tabs,
//! compresses what is left (console messages grouped by fingerprint, requests grouped by
//! endpoint, WebSocket events grouped by URL and outcome), caps the list, and counts what it
//! lists for the severity and summary. It never changes the buffers or any checkpoint.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::buffers::{Buffers, Positions, Stamped};
use super::endpoints::{EndpointMark, EndpointMarks};
use super::entries::{ConsoleEntry, ConsoleLevel, WebSocketEventKind};
use super::fingerprint::{endpoint_key, fingerprint, truncate_chars, url_path};
use super::iso_time::format_iso;
use super::report::{
    ActionChanges, ActionSummary, ChangeReport, ConsoleChanges, ConsoleGroup, Disconnection, EndpointFailure,
    MESSAGE_CHARS, NetworkChanges, NewEndpoint, SECTION_CAP, SlowEndpoint, SocketError, SocketOpened, Tally,
    WebSocketChanges,
};
use super::ring::Ring;
use crate::protocol::{ChangesParams, Section, SeverityFilter};

/// A response slower than this many times its baseline is degraded…
const DEGRADED_FACTOR: u64 = 3;
/// …provided it is also at least this many milliseconds slower (a 2 ms call taking 7 ms is not
/// worth an agent's attention).
const DEGRADED_MIN_EXTRA_MS: u64 = 100;

/// Where a report's window starts and what was known at that moment.
#[derive(Debug, Clone)]
pub(crate) struct Baseline<'a> {
    /// Start of the window, epoch milliseconds.
    pub(crate) from_ms: u64,
    /// Entries at or after these positions are in the window.
    pub(crate) positions: Positions,
    /// When set, only entries stamped strictly after this time are in the window.
    pub(crate) after_ms: Option<u64>,
    /// Endpoint statuses and baselines at the start.
    pub(crate) endpoints: Cow<'a, EndpointMarks>,
}

impl<'a> Baseline<'a> {
    /// The window that starts at a checkpoint.
    pub(crate) fn checkpoint(checkpoint: &'a super::checkpoint::Checkpoint) -> Self {
        Baseline {
            from_ms: checkpoint.created_ms,
            positions: checkpoint.positions,
            after_ms: None,
            endpoints: Cow::Borrowed(&checkpoint.endpoints),
        }
    }

    /// The window that holds everything ever recorded (a session's first report).
    pub(crate) fn start(buffers: &Buffers, now_ms: u64) -> Self {
        Baseline {
            from_ms: buffers.earliest_time().unwrap_or(now_ms).min(now_ms),
            positions: Positions::default(),
            after_ms: None,
            endpoints: Cow::Owned(EndpointMarks::new()),
        }
    }

    /// The window of entries stamped after `time_ms`; endpoints are judged against the requests
    /// still held from before that time.
    pub(crate) fn after_time(buffers: &Buffers, time_ms: u64) -> Self {
        let mut book = super::endpoints::EndpointBook::new(buffers.limits.endpoints);
        for entry in buffers.network.iter().filter(|e| e.time_ms <= time_ms) {
            if !buffers.noise.is_request_noise(entry) {
                book.observe(endpoint_key(&entry.method, &entry.url), entry);
            }
        }
        let oldest = Positions {
            console: buffers.console.oldest_position(),
            network: buffers.network.oldest_position(),
            websocket: buffers.websocket.oldest_position(),
            actions: buffers.actions.oldest_position(),
        };
        Baseline { from_ms: time_ms, positions: oldest, after_ms: Some(time_ms), endpoints: Cow::Owned(book.marks()) }
    }
}

/// The entries of `ring` in the window, on the asked tab and among the readable ones; and how
/// many were lost.
fn window<'a, T: Stamped>(
    ring: &'a Ring<T>,
    buffers: &'a Buffers,
    position: u64,
    after_ms: Option<u64>,
    tab: Option<u32>,
) -> (u64, impl Iterator<Item = &'a T>) {
    let since = ring.since(position);
    let entries = since.entries.filter(move |e| {
        after_ms.is_none_or(|t| e.time_ms() > t) && tab.is_none_or(|tab| e.tab() == tab) && buffers.readable_entry(*e)
    });
    (since.lost, entries)
}

/// Builds the report of `buffers` since `baseline`, as of `now_ms`.
pub(crate) fn build_report(
    buffers: &Buffers,
    baseline: &Baseline<'_>,
    params: &ChangesParams,
    now_ms: u64,
) -> ChangeReport {
    let wants = |section: Section| params.include.as_ref().is_none_or(|list| list.contains(&section));
    let severity = params.severity.unwrap_or_default();
    let mut tally = Tally::default();
    let mut lost_counts: Vec<(Section, u64)> = Vec::new();
    let mut report = ChangeReport {
        from: format_iso(baseline.from_ms),
        to: format_iso(now_ms),
        duration_ms: now_ms.saturating_sub(baseline.from_ms),
        ..ChangeReport::default()
    };
    if wants(Section::Console) {
        let section = console_changes(buffers, baseline, params.tab, severity, &mut tally);
        lost_counts.push((Section::Console, section.lost));
        report.console = Some(section);
    }
    if wants(Section::Network) {
        let section = network_changes(buffers, baseline, params.tab, severity, &mut tally);
        lost_counts.push((Section::Network, section.lost));
        report.network = Some(section);
    }
    if wants(Section::WebSocket) {
        let section = websocket_changes(buffers, baseline, params.tab, severity, &mut tally);
        lost_counts.push((Section::WebSocket, section.lost));
        report.websocket = Some(section);
    }
    if wants(Section::Actions) {
        let section = action_changes(buffers, baseline, params.tab, severity);
        lost_counts.push((Section::Actions, section.lost));
        report.actions = Some(section);
    }
    report.note = loss_note(buffers, baseline, &lost_counts);
    report.finish(&tally)
}

/// Says which sections are missing entries, exactly when the baseline is a position and
/// vaguely when it is a time (evicted entries' times are not kept one by one).
fn loss_note(buffers: &Buffers, baseline: &Baseline<'_>, lost_counts: &[(Section, u64)]) -> Option<String> {
    match baseline.after_ms {
        None => {
            let lost: Vec<String> =
                lost_counts.iter().filter(|(_, n)| *n > 0).map(|(s, n)| format!("{} {n}", s.name())).collect();
            (!lost.is_empty()).then(|| {
                format!(
                    "Entries after the checkpoint were evicted before this report ({}); it shows all that are still held.",
                    lost.join(", ")
                )
            })
        }
        Some(after) => {
            let evicted_after = |section: Section| {
                let newest = match section {
                    Section::Console => buffers.evicted.console,
                    Section::Network => buffers.evicted.network,
                    Section::WebSocket => buffers.evicted.websocket,
                    Section::Actions => buffers.evicted.actions,
                };
                newest.is_some_and(|t| t > after)
            };
            let sections: Vec<&str> =
                lost_counts.iter().map(|(s, _)| *s).filter(|s| evicted_after(*s)).map(Section::name).collect();
            (!sections.is_empty()).then(|| {
                format!(
                    "Some {} entries after that time were evicted before this report; it shows all that are still held.",
                    sections.join(", ")
                )
            })
        }
    }
}

/// `path:line:column` of a console entry, when it has a source.
fn source_text(entry: &ConsoleEntry) -> Option<String> {
    let source = entry.source.as_ref()?;
    if source.url.is_empty() {
        return None;
    }
    let path = url_path(&source.url);
    Some(match (source.line, source.column) {
        (0, _) => path.to_owned(),
        (line, 0) => format!("{path}:{line}"),
        (line, column) => format!("{path}:{line}:{column}"),
    })
}

fn console_changes(
    buffers: &Buffers,
    baseline: &Baseline<'_>,
    tab: Option<u32>,
    severity: SeverityFilter,
    tally: &mut Tally,
) -> ConsoleChanges {
    let (lost, entries) = window(&buffers.console, buffers, baseline.positions.console, baseline.after_ms, tab);
    let mut section = ConsoleChanges { lost, ..ConsoleChanges::default() };
    let mut errors: Vec<ConsoleGroup> = Vec::new();
    let mut warnings: Vec<ConsoleGroup> = Vec::new();
    let mut seen: HashMap<(ConsoleLevel, String), usize> = HashMap::new();
    for entry in entries {
        if buffers.noise.is_console_noise(entry) {
            continue;
        }
        section.total += 1;
        let groups = match entry.level {
            ConsoleLevel::Error => {
                tally.console_errors += 1;
                &mut errors
            }
            ConsoleLevel::Warning if severity != SeverityFilter::ErrorsOnly => {
                tally.console_warnings += 1;
                &mut warnings
            }
            _ => continue,
        };
        match seen.entry((entry.level, fingerprint(&entry.text))) {
            Entry::Occupied(found) => {
                let group = &mut groups[*found.get()];
                group.count = group.count.saturating_add(1);
            }
            Entry::Vacant(slot) => {
                slot.insert(groups.len());
                groups.push(ConsoleGroup {
                    message: truncate_chars(&entry.text, MESSAGE_CHARS).into_owned(),
                    count: 1,
                    source: source_text(entry),
                });
            }
        }
    }
    let mut room = SECTION_CAP;
    section.errors = take_capped(errors, &mut room, &mut section.omitted);
    section.warnings = take_capped(warnings, &mut room, &mut section.omitted);
    // Kept apart from the ring, so a flood that evicted everything else still shows here.
    section.paused =
        buffers.pauses.in_window(baseline.from_ms, |t| tab.is_none_or(|tab| tab == t) && buffers.readable(t));
    tally.console_pauses = section.paused.len() as u64;
    section
}

/// Keeps as many of `items` as `room` allows, counting the rest in `omitted`.
fn take_capped<T>(mut items: Vec<T>, room: &mut usize, omitted: &mut u64) -> Vec<T> {
    let keep = items.len().min(*room);
    *omitted += (items.len() - keep) as u64;
    *room -= keep;
    items.truncate(keep);
    items
}

/// The requests to one endpoint in a window.
struct EndpointActivity<'b> {
    key: String,
    latest_status: u16,
    latest_error: Option<&'b str>,
    /// The status of the last success before the latest answer: what the endpoint answered
    /// before it broke, when the baseline has no mark for it.
    success_before_latest: Option<u16>,
    failed: u32,
    slowest_success_ms: Option<u64>,
}

fn network_changes(
    buffers: &Buffers,
    baseline: &Baseline<'_>,
    tab: Option<u32>,
    severity: SeverityFilter,
    tally: &mut Tally,
) -> NetworkChanges {
    let (lost, entries) = window(&buffers.network, buffers, baseline.positions.network, baseline.after_ms, tab);
    let mut section = NetworkChanges { lost, ..NetworkChanges::default() };
    let mut activity: Vec<EndpointActivity<'_>> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for entry in entries {
        if buffers.noise.is_request_noise(entry) {
            continue;
        }
        section.total += 1;
        let key = endpoint_key(&entry.method, &entry.url);
        let index = match seen.get(&key) {
            Some(&index) => {
                // The answer so far becomes an earlier one.
                let endpoint = &mut activity[index];
                if !super::entries::status_failed(endpoint.latest_status) {
                    endpoint.success_before_latest = Some(endpoint.latest_status);
                }
                index
            }
            None => {
                seen.insert(key.clone(), activity.len());
                activity.push(EndpointActivity {
                    key,
                    latest_status: entry.status,
                    latest_error: None,
                    success_before_latest: None,
                    failed: 0,
                    slowest_success_ms: None,
                });
                activity.len() - 1
            }
        };
        let endpoint = &mut activity[index];
        endpoint.latest_status = entry.status;
        endpoint.latest_error = entry.error.as_deref();
        if entry.failed() {
            endpoint.failed = endpoint.failed.saturating_add(1);
        } else {
            endpoint.slowest_success_ms = Some(endpoint.slowest_success_ms.unwrap_or(0).max(entry.duration_ms));
        }
    }

    let mut failures = Vec::new();
    let mut still_failing = Vec::new();
    let mut degraded = Vec::new();
    let mut new_endpoints = Vec::new();
    for endpoint in activity {
        let before: Option<&EndpointMark> = baseline.endpoints.get(&endpoint.key);
        let failing_now = super::entries::status_failed(endpoint.latest_status);
        if failing_now {
            let failure = EndpointFailure {
                endpoint: endpoint.key.clone(),
                status: endpoint.latest_status,
                error: endpoint.latest_error.map(|e| truncate_chars(e, MESSAGE_CHARS).into_owned()),
                // The baseline's mark when it has one, else what the endpoint answered earlier
                // in the window before it broke.
                previous_status: before.map(|mark| mark.status).or(endpoint.success_before_latest),
                count: endpoint.failed.max(1),
            };
            if before.is_some_and(EndpointMark::failing) {
                if severity != SeverityFilter::ErrorsOnly {
                    tally.still_failing += 1;
                    still_failing.push(failure);
                }
            } else {
                tally.network_failures += 1;
                failures.push(failure);
            }
        }
        let baseline_ms = before.and_then(|mark| mark.baseline_ms);
        if let (Some(baseline_ms), Some(slowest_ms)) = (baseline_ms, endpoint.slowest_success_ms) {
            let slow = slowest_ms > baseline_ms.saturating_mul(DEGRADED_FACTOR)
                && slowest_ms >= baseline_ms.saturating_add(DEGRADED_MIN_EXTRA_MS);
            if slow && severity != SeverityFilter::ErrorsOnly {
                tally.slow_endpoints += 1;
                degraded.push(SlowEndpoint { endpoint: endpoint.key.clone(), baseline_ms, slowest_ms });
            }
        }
        // A new endpoint that fails is already a failure (with the status it answered before it
        // broke, if it answered earlier in the window).
        if before.is_none() && !failing_now && severity == SeverityFilter::All {
            new_endpoints.push(NewEndpoint { endpoint: endpoint.key, status: endpoint.latest_status });
        }
    }
    let mut room = SECTION_CAP;
    section.failures = take_capped(failures, &mut room, &mut section.omitted);
    section.still_failing = take_capped(still_failing, &mut room, &mut section.omitted);
    section.degraded = take_capped(degraded, &mut room, &mut section.omitted);
    section.new_endpoints = take_capped(new_endpoints, &mut room, &mut section.omitted);
    section
}

/// A socket URL as reported: without query or fragment (they often carry tokens).
fn socket_url(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

fn websocket_changes(
    buffers: &Buffers,
    baseline: &Baseline<'_>,
    tab: Option<u32>,
    severity: SeverityFilter,
    tally: &mut Tally,
) -> WebSocketChanges {
    let (lost, events) = window(&buffers.websocket, buffers, baseline.positions.websocket, baseline.after_ms, tab);
    let mut section = WebSocketChanges { lost, ..WebSocketChanges::default() };
    let mut disconnections: Vec<Disconnection> = Vec::new();
    let mut errors: Vec<SocketError> = Vec::new();
    let mut connections: Vec<SocketOpened> = Vec::new();
    let warnings_listed = severity != SeverityFilter::ErrorsOnly;
    for event in events {
        if buffers.noise.is_websocket_noise(event) {
            continue;
        }
        section.total += 1;
        match &event.kind {
            WebSocketEventKind::FrameSent => section.frames_sent += 1,
            WebSocketEventKind::FrameReceived => section.frames_received += 1,
            WebSocketEventKind::Created if severity == SeverityFilter::All => {
                let url = socket_url(&event.url);
                match connections.iter_mut().find(|c| c.url == url) {
                    Some(opened) => opened.count = opened.count.saturating_add(1),
                    None => connections.push(SocketOpened { url, count: 1 }),
                }
            }
            WebSocketEventKind::Closed { code, reason } if warnings_listed => {
                tally.disconnections += 1;
                let url = socket_url(&event.url);
                let reason = reason.as_deref().filter(|r| !r.is_empty()).map(|r| truncate_chars(r, MESSAGE_CHARS));
                let same = |d: &&mut Disconnection| {
                    d.url == url && d.code == *code && d.reason.as_deref() == reason.as_deref()
                };
                match disconnections.iter_mut().find(same) {
                    Some(closed) => closed.count = closed.count.saturating_add(1),
                    None => disconnections.push(Disconnection {
                        url,
                        code: *code,
                        reason: reason.map(Cow::into_owned),
                        count: 1,
                    }),
                }
            }
            WebSocketEventKind::Error { message } if warnings_listed => {
                note_socket_error(&mut errors, tally, &event.url, truncate_chars(message, MESSAGE_CHARS).into_owned());
            }
            WebSocketEventKind::Handshake { status } if *status >= 400 && warnings_listed => {
                note_socket_error(&mut errors, tally, &event.url, format!("handshake refused with HTTP {status}"));
            }
            _ => {}
        }
    }
    let mut room = SECTION_CAP;
    section.disconnections = take_capped(disconnections, &mut room, &mut section.omitted);
    section.errors = take_capped(errors, &mut room, &mut section.omitted);
    section.connections = take_capped(connections, &mut room, &mut section.omitted);
    section
}

fn note_socket_error(errors: &mut Vec<SocketError>, tally: &mut Tally, url: &str, message: String) {
    tally.socket_errors += 1;
    let url = socket_url(url);
    match errors.iter_mut().find(|e| e.url == url && e.message == message) {
        Some(error) => error.count = error.count.saturating_add(1),
        None => errors.push(SocketError { url, message, count: 1 }),
    }
}

fn action_changes(
    buffers: &Buffers,
    baseline: &Baseline<'_>,
    tab: Option<u32>,
    severity: SeverityFilter,
) -> ActionChanges {
    let (lost, actions) = window(&buffers.actions, buffers, baseline.positions.actions, baseline.after_ms, tab);
    let actions: Vec<_> = actions.collect();
    let mut section = ActionChanges { lost, total: actions.len() as u64, ..ActionChanges::default() };
    if severity != SeverityFilter::All {
        return section;
    }
    let keep_from = actions.len().saturating_sub(SECTION_CAP);
    section.omitted = keep_from as u64;
    let mut previous_url: Option<&str> = None;
    for action in &actions[keep_from..] {
        let url = action.url.as_deref();
        let url_changed = url.is_some() && url != previous_url;
        previous_url = url.or(previous_url);
        section.actions.push(ActionSummary {
            kind: action.kind,
            by: action.by,
            description: truncate_chars(&action.description, MESSAGE_CHARS).into_owned(),
            url: url_changed.then(|| url.unwrap_or_default().to_owned()),
            after_ms: action.time_ms.saturating_sub(baseline.from_ms),
        });
    }
    section
}
