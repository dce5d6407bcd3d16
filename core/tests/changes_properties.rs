//! Properties of change reports over random event streams and call sequences.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use proptest::prelude::*;
use sightline_core::changes::fingerprint::{endpoint_key, fingerprint};
use sightline_core::changes::{
    ActionEntry, ActionKind, Actor, ConsoleEntry, ConsoleLevel, Limits, NetworkEntry, Ring, SourceLocation, Timeline,
    WebSocketEvent, WebSocketEventKind, status_failed,
};
use sightline_core::protocol::{ChangesParams, Section, SeverityFilter};

const T0: u64 = 1_735_787_045_000;

const MESSAGES: [&str; 6] = [
    "TypeError: cart is undefined",
    "Failed to load user 4821337",
    "Deprecated API used",
    "request 12 timed out",
    "[vite] hot updated: /src/App.tsx",
    "Error at 2025-01-02T03:04:05Z in worker",
];
const PATHS: [&str; 5] = [
    "https://shop.test/api/users?page=1",
    "https://shop.test/api/users?page=2",
    "https://shop.test/api/basket",
    "https://www.google-analytics.com/g/collect?v=2",
    "https://shop.test/api/orders/98765",
];
const STATUSES: [u16; 6] = [200, 201, 304, 404, 500, 0];
const LEVELS: [ConsoleLevel; 5] =
    [ConsoleLevel::Error, ConsoleLevel::Warning, ConsoleLevel::Info, ConsoleLevel::Log, ConsoleLevel::Debug];

/// One recorded event, described by small indices into the tables above.
#[derive(Debug, Clone)]
enum Event {
    Console { level: usize, message: usize, tab: u32 },
    Network { method: bool, path: usize, status: usize, duration: u64, tab: u32 },
    Socket { kind: usize, tab: u32 },
    Action { tab: u32 },
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        (0..LEVELS.len(), 0..MESSAGES.len(), 1..3u32).prop_map(|(level, message, tab)| Event::Console {
            level,
            message,
            tab
        }),
        (any::<bool>(), 0..PATHS.len(), 0..STATUSES.len(), 0..2000u64, 1..3u32)
            .prop_map(|(method, path, status, duration, tab)| Event::Network { method, path, status, duration, tab }),
        (0..5usize, 1..3u32).prop_map(|(kind, tab)| Event::Socket { kind, tab }),
        (1..3u32).prop_map(|tab| Event::Action { tab }),
    ]
}

fn record(timeline: &mut Timeline, event: &Event, at: u64) {
    match *event {
        Event::Console { level, message, tab } => timeline.record_console(ConsoleEntry {
            level: LEVELS[level],
            text: MESSAGES[message].into(),
            source: Some(SourceLocation { url: "https://shop.test/app.js".into(), line: 3, column: 9 }),
            time_ms: at,
            tab,
        }),
        Event::Network { method, path, status, duration, tab } => timeline.record_network(NetworkEntry {
            method: if method { "GET" } else { "POST" }.into(),
            url: PATHS[path].into(),
            status: STATUSES[status],
            error: (STATUSES[status] == 0).then(|| "net::ERR_FAILED".into()),
            duration_ms: duration,
            encoded_bytes: 0,
            resource_type: None,
            time_ms: at,
            tab,
        }),
        Event::Socket { kind, tab } => timeline.record_websocket(WebSocketEvent {
            connection: "1".into(),
            url: "wss://shop.test/live".into(),
            kind: match kind {
                0 => WebSocketEventKind::Created,
                1 => WebSocketEventKind::FrameSent,
                2 => WebSocketEventKind::FrameReceived,
                3 => WebSocketEventKind::Error { message: "boom".into() },
                _ => WebSocketEventKind::Closed { code: Some(1006), reason: None },
            },
            time_ms: at,
            tab,
        }),
        Event::Action { tab } => timeline.record_action(ActionEntry {
            kind: ActionKind::Click,
            by: Actor::Agent,
            description: "click e1".into(),
            url: None,
            time_ms: at,
            tab,
        }),
    }
}

fn is_noise(event: &Event) -> bool {
    match *event {
        Event::Console { message, .. } => MESSAGES[message].starts_with("[vite]"),
        Event::Network { path, .. } => PATHS[path].contains("google-analytics"),
        _ => false,
    }
}

fn tab_of(event: &Event) -> u32 {
    match *event {
        Event::Console { tab, .. } | Event::Network { tab, .. } | Event::Socket { tab, .. } | Event::Action { tab } => {
            tab
        }
    }
}

/// A call that reads or moves checkpoints but records nothing.
#[derive(Debug, Clone)]
enum Call {
    Auto { session: u8, severity: u8 },
    Line { session: u8 },
    Create { name: u8 },
    Delete { name: u8 },
    SinceTime { offset: u64 },
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        (0..3u8, 0..3u8).prop_map(|(session, severity)| Call::Auto { session, severity }),
        (0..3u8).prop_map(|session| Call::Line { session }),
        (0..4u8).prop_map(|name| Call::Create { name }),
        (0..4u8).prop_map(|name| Call::Delete { name }),
        (0..300u64).prop_map(|offset| Call::SinceTime { offset }),
    ]
}

fn perform(timeline: &mut Timeline, call: &Call, now: u64) {
    let severity = |n: u8| [SeverityFilter::All, SeverityFilter::Warnings, SeverityFilter::ErrorsOnly][n as usize % 3];
    match *call {
        Call::Auto { session, severity: s } => {
            let params = ChangesParams { severity: Some(severity(s)), ..ChangesParams::default() };
            timeline.changes_since(&format!("s{session}"), &params, now).expect("auto report");
        }
        Call::Line { session } => {
            timeline.last_response_line(&format!("s{session}"));
        }
        Call::Create { name } => {
            let _ = timeline.create_checkpoint(&format!("other_{name}"), now);
        }
        Call::Delete { name } => {
            let _ = timeline.delete_checkpoint(&format!("other_{name}"));
        }
        Call::SinceTime { offset } => {
            let params = ChangesParams {
                checkpoint: Some(sightline_core::changes::format_iso(T0 + offset)),
                ..Default::default()
            };
            timeline.changes_since("s0", &params, now).expect("time report");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn report_counts_equal_the_matching_events_after_the_checkpoint(
        before in prop::collection::vec(event(), 0..60),
        after in prop::collection::vec(event(), 0..120),
        tab in prop::option::of(1..3u32),
    ) {
        let mut timeline = Timeline::new();
        for (n, e) in before.iter().enumerate() {
            record(&mut timeline, e, T0 + n as u64);
        }
        timeline.create_checkpoint("mark", T0 + 1000).unwrap();
        for (n, e) in after.iter().enumerate() {
            record(&mut timeline, e, T0 + 2000 + n as u64);
        }
        let params = ChangesParams { checkpoint: Some("mark".into()), tab, ..ChangesParams::default() };
        let report = timeline.changes_since("s", &params, T0 + 5000).unwrap();

        let counted: Vec<&Event> =
            after.iter().filter(|e| !is_noise(e) && tab.is_none_or(|t| tab_of(e) == t)).collect();
        let level_count = |wanted: ConsoleLevel| {
            counted.iter().filter(|e| matches!(e, Event::Console { level, .. } if LEVELS[*level] == wanted)).count() as u32
        };
        let console = report.console.as_ref().unwrap();
        prop_assert_eq!(console.total, counted.iter().filter(|e| matches!(e, Event::Console { .. })).count() as u64);
        prop_assert_eq!(console.errors.iter().map(|g| g.count).sum::<u32>(), level_count(ConsoleLevel::Error));
        prop_assert_eq!(console.warnings.iter().map(|g| g.count).sum::<u32>(), level_count(ConsoleLevel::Warning));

        let network = report.network.as_ref().unwrap();
        prop_assert_eq!(network.total, counted.iter().filter(|e| matches!(e, Event::Network { .. })).count() as u64);
        let mut latest: BTreeMap<String, u16> = BTreeMap::new();
        for e in &counted {
            if let Event::Network { method, path, status, .. } = **e {
                latest.insert(endpoint_key(if method { "GET" } else { "POST" }, PATHS[path]), STATUSES[status]);
            }
        }
        let failing: BTreeSet<String> =
            latest.iter().filter(|(_, s)| status_failed(**s)).map(|(k, _)| k.clone()).collect();
        let reported: BTreeSet<String> =
            network.failures.iter().chain(&network.still_failing).map(|f| f.endpoint.clone()).collect();
        prop_assert_eq!(reported, failing);

        let sockets = counted.iter().filter(|e| matches!(e, Event::Socket { .. })).count() as u64;
        prop_assert_eq!(report.websocket.as_ref().unwrap().total, sockets);
        let actions = counted.iter().filter(|e| matches!(e, Event::Action { .. })).count() as u64;
        prop_assert_eq!(report.actions.as_ref().unwrap().total, actions);
        prop_assert_eq!(report.tokens, report.json_len() / 4);
    }

    #[test]
    fn a_named_checkpoints_report_is_unchanged_by_other_calls(
        before in prop::collection::vec(event(), 0..40),
        after in prop::collection::vec(event(), 0..80),
        calls in prop::collection::vec(call(), 0..20),
    ) {
        let mut timeline = Timeline::new();
        for (n, e) in before.iter().enumerate() {
            record(&mut timeline, e, T0 + n as u64);
        }
        timeline.create_checkpoint("mark", T0 + 100).unwrap();
        for (n, e) in after.iter().enumerate() {
            record(&mut timeline, e, T0 + 200 + n as u64);
        }
        let params = ChangesParams { checkpoint: Some("mark".into()), ..ChangesParams::default() };
        let first = timeline.changes_since("s0", &params, T0 + 1000).unwrap();
        for c in &calls {
            perform(&mut timeline, c, T0 + 1000);
        }
        let second = timeline.changes_since("s1", &params, T0 + 1000).unwrap();
        prop_assert_eq!(first, second);
    }

    #[test]
    fn saved_state_restores_to_an_equal_timeline(
        events in prop::collection::vec(event(), 0..80),
        calls in prop::collection::vec(call(), 0..10),
    ) {
        let mut timeline = Timeline::with_limits(Limits { console: 20, network: 10, websocket: 10, actions: 5, ..Limits::default() });
        for (n, e) in events.iter().enumerate() {
            record(&mut timeline, e, T0 + n as u64);
            if let Some(c) = calls.get(n) {
                perform(&mut timeline, c, T0 + n as u64);
            }
        }
        let json = serde_json::to_string(&timeline.serialize()).unwrap();
        let restored = Timeline::restore(serde_json::from_str(&json).unwrap()).unwrap();
        prop_assert_eq!(restored, timeline);
    }

    #[test]
    fn nothing_panics_on_arbitrary_input(
        texts in prop::collection::vec(any::<String>(), 1..8),
        statuses in prop::collection::vec(any::<u16>(), 1..8),
        times in prop::collection::vec(any::<u64>(), 1..8),
        references in prop::collection::vec(prop::option::of(any::<String>()), 1..6),
        include in prop::option::of(prop::collection::vec(prop::sample::select(Section::ALL.to_vec()), 0..4)),
        capacity in 0..4usize,
        now in any::<u64>(),
    ) {
        let limits = Limits { console: capacity, network: capacity, websocket: capacity, actions: capacity, endpoints: capacity, sessions: capacity };
        let mut timeline = Timeline::with_limits(limits);
        for (n, text) in texts.iter().enumerate() {
            let at = times[n % times.len()];
            let status = statuses[n % statuses.len()];
            let _ = timeline.create_checkpoint(text, at);
            timeline.record_console(ConsoleEntry {
                level: LEVELS[n % LEVELS.len()],
                text: text.clone(),
                source: Some(SourceLocation { url: text.clone(), line: status.into(), column: 0 }),
                time_ms: at,
                tab: n as u32,
            });
            timeline.record_network(NetworkEntry {
                method: text.clone(),
                url: text.clone(),
                status,
                error: Some(text.clone()),
                duration_ms: at,
                encoded_bytes: at,
                resource_type: None,
                time_ms: at,
                tab: 0,
            });
            timeline.record_websocket(WebSocketEvent {
                connection: text.clone(),
                url: text.clone(),
                kind: WebSocketEventKind::Closed { code: Some(status), reason: Some(text.clone()) },
                time_ms: at,
                tab: 0,
            });
            timeline.record_action(ActionEntry {
                kind: ActionKind::Other,
                by: Actor::User,
                description: text.clone(),
                url: Some(text.clone()),
                time_ms: at,
                tab: 0,
            });
            let _ = timeline.last_response_line(text);
            let _ = fingerprint(text);
        }
        for reference in &references {
            let params = ChangesParams { checkpoint: reference.clone(), include: include.clone(), ..ChangesParams::default() };
            if let Ok(report) = timeline.changes_since(&texts[0], &params, now) {
                prop_assert_eq!(report.tokens, report.json_len() / 4);
            }
        }
        let restored = Timeline::restore(timeline.serialize()).unwrap();
        prop_assert_eq!(restored, timeline);
    }

    #[test]
    fn fingerprints_are_stable_under_a_second_pass(text in any::<String>()) {
        let once = fingerprint(&text);
        prop_assert_eq!(fingerprint(&once), once);
    }

    #[test]
    fn fingerprints_of_generated_messages_ignore_ids(
        prefix in "[a-zA-Z :]{0,12}",
        number in 1000u64..u64::MAX,
        other in 1000u64..u64::MAX,
    ) {
        prop_assert_eq!(fingerprint(&format!("{prefix} {number}")), fingerprint(&format!("{prefix} {other}")));
    }

    #[test]
    fn a_ring_holds_the_newest_entries_at_their_positions(
        capacity in 1..20usize,
        pushes in 0..100u64,
        from in 0..120u64,
    ) {
        let mut ring = Ring::new(capacity);
        let mut model: VecDeque<u64> = VecDeque::new();
        for n in 0..pushes {
            ring.push(n);
            model.push_back(n);
            if model.len() > capacity {
                model.pop_front();
            }
        }
        let since = ring.since(from);
        let expected: Vec<u64> = model.iter().copied().filter(|n| *n >= from).collect();
        prop_assert_eq!(since.entries.copied().collect::<Vec<_>>(), expected);
        let oldest = pushes.saturating_sub(capacity as u64);
        prop_assert_eq!(since.lost, oldest.saturating_sub(from.min(pushes)));
        prop_assert_eq!(ring.next_position(), pushes);
    }
}
