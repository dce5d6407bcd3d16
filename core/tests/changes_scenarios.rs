//! Change reports as an agent sees them: one behaviour per test, through the public API.

use std::sync::Mutex;

use sightline_core::changes::fingerprint::{endpoint_key, fingerprint, url_path};
use sightline_core::changes::{
    ActionEntry, ActionKind, ActionSummary, Actor, ChangeReport, ChangesError, ConsoleEntry, ConsoleGroup,
    ConsoleLevel, Disconnection, EndpointFailure, Limits, MAX_RECORDED_TEXT, NetworkEntry, NewEndpoint, NoisePattern,
    NoiseRule, NoiseTarget, Reference, SAVED_MAX_BYTES, Severity, SlowEndpoint, SocketOpened, SourceLocation, Timeline,
    WebSocketEvent, WebSocketEventKind, stored_len,
};
use sightline_core::protocol::{ChangesParams, CheckpointAction, CheckpointParams, Section, SeverityFilter};

/// 2025-01-02T03:04:05.000Z
const T0: u64 = 1_735_787_045_000;
const SESSION: &str = "session-a";

fn console(level: ConsoleLevel, text: &str, at: u64) -> ConsoleEntry {
    ConsoleEntry {
        level,
        text: text.into(),
        source: Some(SourceLocation { url: "https://shop.test/static/app.js?v=3".into(), line: 10, column: 5 }),
        time_ms: at,
        tab: 1,
    }
}

fn error(text: &str, at: u64) -> ConsoleEntry {
    console(ConsoleLevel::Error, text, at)
}

fn warning(text: &str, at: u64) -> ConsoleEntry {
    console(ConsoleLevel::Warning, text, at)
}

fn request(method: &str, url: &str, status: u16, duration_ms: u64, at: u64) -> NetworkEntry {
    NetworkEntry {
        method: method.into(),
        url: url.into(),
        status,
        error: None,
        duration_ms,
        encoded_bytes: 512,
        resource_type: Some("Fetch".into()),
        time_ms: at,
        tab: 1,
    }
}

fn socket(kind: WebSocketEventKind, at: u64) -> WebSocketEvent {
    WebSocketEvent {
        connection: "ws-1".into(),
        url: "wss://shop.test/live?token=secret".into(),
        kind,
        time_ms: at,
        tab: 1,
    }
}

fn action(kind: ActionKind, description: &str, url: Option<&str>, at: u64) -> ActionEntry {
    ActionEntry {
        kind,
        by: Actor::Agent,
        description: description.into(),
        url: url.map(Into::into),
        time_ms: at,
        tab: 1,
    }
}

fn since_auto() -> ChangesParams {
    ChangesParams::default()
}

fn since(checkpoint: &str) -> ChangesParams {
    ChangesParams { checkpoint: Some(checkpoint.into()), ..ChangesParams::default() }
}

fn group(message: &str, count: u32) -> ConsoleGroup {
    ConsoleGroup { message: message.into(), count, source: Some("/static/app.js:10:5".into()) }
}

fn report(timeline: &mut Timeline, params: &ChangesParams, now: u64) -> ChangeReport {
    timeline.changes_since(SESSION, params, now).expect("report")
}

fn json(report: &ChangeReport) -> String {
    serde_json::to_string(report).expect("json")
}

// 1
#[test]
fn an_empty_timeline_reports_clean_with_empty_sections() {
    let mut timeline = Timeline::new();
    let report = report(&mut timeline, &since_auto(), T0);
    assert_eq!(
        json(&report),
        r#"{"from":"2025-01-02T03:04:05.000Z","to":"2025-01-02T03:04:05.000Z","duration_ms":0,"severity":"clean","summary":"No significant changes.","console":{"total":0},"network":{"total":0},"websocket":{"total":0},"actions":{"total":0},"tokens":60}"#
    );
}

// 2
#[test]
fn three_new_errors_after_a_checkpoint_are_listed_and_make_it_an_error() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("old failure", T0 - 10));
    timeline.create_checkpoint("before_change", T0).unwrap();
    timeline.record_console(error("TypeError: cart is undefined", T0 + 1));
    timeline.record_console(error("ReferenceError: price is not defined", T0 + 2));
    timeline.record_console(error("Failed to load resource: 404", T0 + 3));
    timeline.record_console(console(ConsoleLevel::Log, "rendered", T0 + 4));
    let report = report(&mut timeline, &since("before_change"), T0 + 1000);
    let console = report.console.unwrap();
    assert_eq!(
        console.errors,
        vec![
            group("TypeError: cart is undefined", 1),
            group("ReferenceError: price is not defined", 1),
            group("Failed to load resource: 404", 1),
        ]
    );
    assert_eq!((console.total, console.warnings.len()), (4, 0));
    assert_eq!(report.severity, Severity::Error);
    assert_eq!(report.summary, "3 new console error(s)");
    assert_eq!((report.from.as_str(), report.duration_ms), ("2025-01-02T03:04:05.000Z", 1000));
}

// 3
#[test]
fn the_same_error_five_times_is_one_entry_counted_five_times() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    for user in 0..5 {
        timeline
            .record_console(error(&format!("Error loading user 9f8e7d6c-0000-4000-8000-00000000000{user}"), T0 + user));
    }
    let console = report(&mut timeline, &since("start"), T0 + 10).console.unwrap();
    assert_eq!(console.errors, vec![group("Error loading user 9f8e7d6c-0000-4000-8000-000000000000", 5)]);
    assert_eq!(console.total, 5);
}

// 4
#[test]
fn an_endpoint_gone_from_200_to_500_is_a_failure_with_its_previous_status() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("GET", "https://shop.test/api/users?page=1", 200, 40, T0 - 5));
    timeline.create_checkpoint("before_change", T0).unwrap();
    timeline.record_network(request("GET", "https://shop.test/api/users?page=2", 500, 35, T0 + 5));
    let report = report(&mut timeline, &since("before_change"), T0 + 10);
    let network = report.network.unwrap();
    assert_eq!(
        network.failures,
        vec![EndpointFailure {
            endpoint: "GET /api/users".into(),
            status: 500,
            error: None,
            previous_status: Some(200),
            count: 1
        }]
    );
    assert!(network.new_endpoints.is_empty());
    assert_eq!(report.severity, Severity::Error);
    assert_eq!(report.summary, "1 network failure(s)");
}

#[test]
fn an_endpoint_that_answered_200_then_500_since_the_checkpoint_has_the_200_as_its_previous_status() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("before_change", T0).unwrap();
    timeline.record_network(request("GET", "https://shop.test/api/orders", 200, 40, T0 + 1));
    timeline.record_network(request("GET", "https://shop.test/api/orders", 500, 35, T0 + 2));
    timeline.record_network(request("GET", "https://shop.test/api/orders", 503, 35, T0 + 3));
    // Failing from its first answer: there is nothing it answered before.
    timeline.record_network(request("GET", "https://shop.test/api/stock", 500, 35, T0 + 4));
    let report = report(&mut timeline, &since("before_change"), T0 + 10);
    let network = report.network.unwrap();
    assert_eq!(
        network.failures,
        vec![
            EndpointFailure {
                endpoint: "GET /api/orders".into(),
                status: 503,
                error: None,
                previous_status: Some(200),
                count: 2
            },
            EndpointFailure {
                endpoint: "GET /api/stock".into(),
                status: 500,
                error: None,
                previous_status: None,
                count: 1
            },
        ]
    );
    assert!(network.new_endpoints.is_empty(), "a failing endpoint is a failure, not a new endpoint: {network:?}");
}

// 5
#[test]
fn an_endpoint_never_seen_before_is_listed_as_new() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("GET", "https://shop.test/api/users", 200, 40, T0 - 5));
    timeline.create_checkpoint("before_change", T0).unwrap();
    timeline.record_network(request("GET", "https://shop.test/api/users", 200, 40, T0 + 1));
    timeline.record_network(request("POST", "https://shop.test/api/basket?x=1", 201, 40, T0 + 2));
    let report = report(&mut timeline, &since("before_change"), T0 + 10);
    let network = report.network.unwrap();
    assert_eq!(network.new_endpoints, vec![NewEndpoint { endpoint: "POST /api/basket".into(), status: 201 }]);
    assert_eq!(network.total, 2);
    assert_eq!(report.severity, Severity::Clean);
}

// 6
#[test]
fn a_websocket_close_after_the_checkpoint_is_a_disconnection() {
    let mut timeline = Timeline::new();
    timeline.record_websocket(socket(WebSocketEventKind::Created, T0 - 5));
    timeline.create_checkpoint("before_change", T0).unwrap();
    timeline.record_websocket(socket(WebSocketEventKind::FrameReceived, T0 + 1));
    timeline.record_websocket(socket(
        WebSocketEventKind::Closed { code: Some(1006), reason: Some("server went away".into()) },
        T0 + 2,
    ));
    let report = report(&mut timeline, &since("before_change"), T0 + 10);
    let websocket = report.websocket.unwrap();
    assert_eq!(
        websocket.disconnections,
        vec![Disconnection {
            url: "wss://shop.test/live".into(),
            code: Some(1006),
            reason: Some("server went away".into()),
            count: 1
        }]
    );
    assert_eq!((websocket.total, websocket.frames_received), (2, 1));
    assert_eq!(report.severity, Severity::Warning);
    assert_eq!(report.summary, "1 WebSocket disconnection(s)");
}

// 7
#[test]
fn the_automatic_checkpoint_advances_so_the_second_call_sees_nothing_new() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("TypeError: cart is undefined", T0));
    let first = report(&mut timeline, &since_auto(), T0 + 100);
    assert_eq!(first.summary, "1 new console error(s)");
    let second = report(&mut timeline, &since_auto(), T0 + 200);
    assert_eq!((second.severity, second.summary.as_str()), (Severity::Clean, "No significant changes."));
    assert_eq!(second.console.unwrap().total, 0);
    assert_eq!((second.from.as_str(), second.duration_ms), ("2025-01-02T03:04:05.100Z", 100));
}

// 8
#[test]
fn a_named_checkpoint_reports_the_same_window_whatever_other_calls_happen() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("before_refactor", T0).unwrap();
    timeline.record_console(error("TypeError: cart is undefined", T0 + 1));
    timeline.record_network(request("GET", "https://shop.test/api/cart", 503, 20, T0 + 2));
    let before = report(&mut timeline, &since("before_refactor"), T0 + 50);
    report(&mut timeline, &since_auto(), T0 + 50);
    timeline.changes_since("session-b", &since_auto(), T0 + 50).unwrap();
    timeline.last_response_line(SESSION);
    timeline.create_checkpoint("after_refactor", T0 + 50).unwrap();
    report(&mut timeline, &since("after_refactor"), T0 + 50);
    let after = report(&mut timeline, &since("before_refactor"), T0 + 50);
    assert_eq!(after, before);
    assert_eq!(after.summary, "1 new console error(s), 1 network failure(s)");
}

// 9
#[test]
fn errors_only_leaves_warnings_out() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    timeline.record_console(warning("Deprecated API used", T0 + 1));
    timeline.record_console(error("TypeError: cart is undefined", T0 + 2));
    let params = ChangesParams { severity: Some(SeverityFilter::ErrorsOnly), ..since("start") };
    let report = report(&mut timeline, &params, T0 + 10);
    let console = report.console.unwrap();
    assert_eq!(console.errors, vec![group("TypeError: cart is undefined", 1)]);
    assert_eq!(console.warnings, vec![]);
    assert_eq!(console.total, 2);
    assert_eq!(report.summary, "1 new console error(s)");
    let warnings_only = ChangesParams { severity: Some(SeverityFilter::ErrorsOnly), ..since("start") };
    timeline.create_checkpoint("later", T0 + 20).unwrap();
    timeline.record_console(warning("Deprecated API used", T0 + 21));
    let quiet =
        timeline.changes_since(SESSION, &ChangesParams { checkpoint: Some("later".into()), ..warnings_only }, T0 + 30);
    assert_eq!(quiet.unwrap().severity, Severity::Clean);
}

// 10
#[test]
fn sections_left_out_of_include_are_absent_not_empty() {
    let mut timeline = Timeline::new();
    timeline.record_websocket(socket(WebSocketEventKind::Closed { code: Some(1000), reason: None }, T0));
    timeline.record_action(action(ActionKind::Click, "click e12", None, T0));
    let params = ChangesParams { include: Some(vec![Section::Console, Section::Network]), ..since_auto() };
    let report = report(&mut timeline, &params, T0 + 10);
    assert_eq!((report.websocket.is_none(), report.actions.is_none()), (true, true));
    assert_eq!(
        json(&report),
        r#"{"from":"2025-01-02T03:04:05.000Z","to":"2025-01-02T03:04:05.010Z","duration_ms":10,"severity":"clean","summary":"No significant changes.","console":{"total":0},"network":{"total":0},"tokens":48}"#
    );
}

// 11
#[test]
fn a_checkpoint_whose_entries_were_evicted_reports_what_is_still_held() {
    let mut timeline = Timeline::with_limits(Limits { console: 5, ..Limits::default() });
    timeline.create_checkpoint("start", T0).unwrap();
    for n in 0..8 {
        timeline.record_console(error(&format!("failure number {n}"), T0 + n));
    }
    let report = report(&mut timeline, &since("start"), T0 + 10);
    let console = report.console.unwrap();
    let messages: Vec<&str> = console.errors.iter().map(|g| g.message.as_str()).collect();
    assert_eq!(
        messages,
        ["failure number 3", "failure number 4", "failure number 5", "failure number 6", "failure number 7"]
    );
    assert_eq!((console.total, console.lost), (5, 3));
    assert_eq!(
        report.note.as_deref(),
        Some(
            "Entries after the checkpoint were evicted before this report (console 3); it shows all that are still held."
        )
    );
    assert_eq!(report.summary, "5 new console error(s)");
}

#[test]
fn log_sizes_set_in_the_options_shrink_the_rings_at_once_and_count_what_went_as_lost() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    for n in 0..30 {
        timeline.record_console(error(&format!("failure number {n}"), T0 + n));
    }
    let sizes = sightline_core::sizes::Sizes { console: 12, ..Default::default() };
    timeline.set_limits(sizes.limits(timeline.limits()));
    assert_eq!(timeline.limits().console, 12);
    let console = report(&mut timeline, &since("start"), T0 + 40).console.unwrap();
    assert_eq!((console.total, console.lost), (12, 18));
    assert_eq!(console.errors.first().map(|g| g.message.as_str()), Some("failure number 18"));
    // A size below its bound keeps the bound's smallest, never an empty log.
    let sizes = sightline_core::sizes::Sizes { console: 0, ..Default::default() };
    timeline.set_limits(sizes.limits(timeline.limits()));
    for n in 30..50 {
        timeline.record_console(error(&format!("failure number {n}"), T0 + n));
    }
    let console = report(&mut timeline, &since("start"), T0 + 60).console.unwrap();
    assert_eq!((console.total, console.lost), (10, 40));
}

#[test]
fn a_timeline_too_large_for_the_storage_is_saved_without_its_oldest_entries_and_restored_counting_them_as_lost() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    // A console flood of the longest messages kept, of control characters JSON escapes to six bytes.
    let flood = "\u{1}".repeat(MAX_RECORDED_TEXT);
    for n in 0..1000 {
        timeline.record_console(error(&format!("{n:04} {flood}"), T0 + n));
    }
    timeline.record_network(request("GET", "https://shop.test/api/cart", 500, 30, T0 + 1000));
    let whole = serde_json::to_string(&timeline.serialize()).unwrap();
    assert!(stored_len(&whole) > SAVED_MAX_BYTES, "the flood is {} bytes as stored", stored_len(&whole));

    let saved = timeline.saved_text(SAVED_MAX_BYTES).unwrap();
    assert!(stored_len(&saved.text) <= SAVED_MAX_BYTES, "saved {} bytes", stored_len(&saved.text));
    assert!((1..1000).contains(&saved.left_out), "left out {}", saved.left_out);
    let mut restored = Timeline::restore(serde_json::from_str(&saved.text).unwrap()).unwrap();
    let after_restart = report(&mut restored, &since("start"), T0 + 2000);
    let console = after_restart.console.unwrap();
    // The oldest messages were left out, the newest kept, and the report says what it lost.
    assert_eq!((console.total + console.lost, console.lost as usize), (1000, saved.left_out));
    let oldest_kept = format!("{:04} ", saved.left_out);
    assert!(
        console.errors.first().is_some_and(|g| g.message.starts_with(&oldest_kept)),
        "{:?}",
        console.errors.first()
    );
    assert_eq!(after_restart.network.unwrap().total, 1, "the newest request is kept");
    assert!(after_restart.note.is_some_and(|n| n.contains("were evicted before this report")));
    // The timeline itself keeps everything.
    let live = report(&mut timeline, &since("start"), T0 + 2000).console.unwrap();
    assert_eq!((live.total, live.lost), (1000, 0));
}

#[test]
fn a_timeline_within_the_storage_is_saved_whole() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    for n in 0..1000 {
        timeline.record_console(error(&format!("failure number {n}"), T0 + n));
    }
    let saved = timeline.saved_text(SAVED_MAX_BYTES).unwrap();
    assert_eq!(saved.left_out, 0);
    assert_eq!(saved.text, serde_json::to_string(&timeline.serialize()).unwrap());
}

// 12
#[test]
fn an_iso_time_reference_reports_entries_after_that_time() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("GET", "https://shop.test/api/users", 200, 40, T0 - 2000));
    timeline.record_console(error("before the reference", T0 - 1000));
    timeline.record_console(error("exactly at the reference", T0));
    timeline.record_console(error("after the reference", T0 + 1000));
    timeline.record_network(request("GET", "https://shop.test/api/users", 500, 40, T0 + 1500));
    let params = since("2025-01-02T03:04:05Z");
    assert_eq!(timeline.resolve(params.checkpoint.as_deref()), Ok(Reference::After(T0)));
    let report = report(&mut timeline, &params, T0 + 5000);
    assert_eq!(report.console.unwrap().errors, vec![group("after the reference", 1)]);
    assert_eq!(report.network.unwrap().failures[0].previous_status, Some(200));
    assert_eq!((report.from.as_str(), report.duration_ms), ("2025-01-02T03:04:05.000Z", 5000));
    assert_eq!(report.summary, "1 new console error(s), 1 network failure(s)");
    // A time names no checkpoint, so the session's automatic checkpoint moved on to the call.
    assert_eq!(self::report(&mut timeline, &since_auto(), T0 + 6000).summary, "No significant changes.");
}

// 13
#[test]
fn the_token_estimate_is_the_json_length_over_four() {
    let mut timeline = Timeline::new();
    for n in 0..7 {
        timeline.record_console(error(&format!("problem {n}"), T0 + n));
        timeline.record_network(request("GET", &format!("https://shop.test/api/item{n}"), 200, 40, T0 + n));
    }
    let report = report(&mut timeline, &since_auto(), T0 + 10);
    assert_eq!(report.tokens, json(&report).len() / 4);
    assert!(report.tokens > 100, "{}", report.tokens);
}

// 14
#[test]
fn a_hundred_distinct_errors_are_capped_at_fifty() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"];
    for n in 0..100u64 {
        let text = format!("{} {} failed", words[(n / 10) as usize], words[(n % 10) as usize]);
        timeline.record_console(error(&text, T0 + n));
    }
    let report = report(&mut timeline, &since("start"), T0 + 200);
    let console = report.console.unwrap();
    assert_eq!((console.errors.len(), console.omitted, console.total), (50, 50, 100));
    assert_eq!(console.errors[49].message, "epsilon kappa failed");
    assert_eq!(report.summary, "100 new console error(s)");
}

// 15
#[test]
fn concurrent_recording_and_reporting_keep_every_count() {
    const WRITERS: u64 = 4;
    const PER_WRITER: u64 = 300;
    let shared = Mutex::new(Timeline::with_limits(Limits { console: 10_000, network: 10_000, ..Limits::default() }));
    shared.lock().unwrap().create_checkpoint("start", T0).unwrap();
    let totals = std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let shared = &shared;
            scope.spawn(move || {
                for n in 0..PER_WRITER {
                    shared.lock().unwrap().record_console(error(&format!("writer {writer} failure"), T0 + n));
                    shared.lock().unwrap().record_network(request("GET", "https://shop.test/api/poll", 500, 5, T0 + n));
                }
            });
        }
        let readers: Vec<_> = (0..2)
            .map(|reader| {
                let shared = &shared;
                scope.spawn(move || {
                    let session = format!("reader-{reader}");
                    let (mut console, mut network) = (0, 0);
                    for _ in 0..50 {
                        let report =
                            shared.lock().unwrap().changes_since(&session, &ChangesParams::default(), T0).unwrap();
                        console += report.console.unwrap().total;
                        network += report.network.unwrap().total;
                        shared.lock().unwrap().last_response_line(&session);
                    }
                    (session, console, network)
                })
            })
            .collect();
        readers.into_iter().map(|r| r.join().unwrap()).collect::<Vec<_>>()
    });
    for (session, console, network) in totals {
        let last = shared.lock().unwrap().changes_since(&session, &ChangesParams::default(), T0).unwrap();
        let console = console + last.console.unwrap().total;
        let network = network + last.network.unwrap().total;
        assert_eq!((console, network), (WRITERS * PER_WRITER, WRITERS * PER_WRITER), "{session}");
    }
    let named = shared.lock().unwrap().changes_since("any", &since("start"), T0).unwrap();
    let console = named.console.unwrap();
    assert_eq!(console.errors.iter().map(|g| g.count).sum::<u32>(), (WRITERS * PER_WRITER) as u32);
    assert_eq!(named.network.unwrap().failures[0].count, (WRITERS * PER_WRITER) as u32);
}

// 16
#[test]
fn uuids_long_numbers_and_iso_times_are_normalised_in_fingerprints() {
    assert_eq!(
        fingerprint(
            "Error loading user 123e4567-E89B-12d3-a456-426614174000 (order 48213) at 2025-01-02T03:04:05.678Z, retry 3"
        ),
        "Error loading user {uuid} (order {n}) at {ts}, retry 3"
    );
    assert_eq!(
        fingerprint("user 4f1c2d3e-aaaa-bbbb-cccc-123456789abc"),
        fingerprint("user 00000000-1111-2222-3333-444444444444")
    );
}

// 17
#[test]
fn endpoint_paths_drop_query_parameters() {
    assert_eq!(url_path("https://shop.test/api/users?page=1"), "/api/users");
    assert_eq!(
        endpoint_key("get", "https://shop.test/api/users?page=1"),
        endpoint_key("GET", "https://shop.test/api/users?page=2")
    );
    assert_eq!(endpoint_key("get", "https://shop.test/api/users?page=1#top"), "GET /api/users");
}

// 18
#[test]
fn severity_ranks_error_over_warning_over_clean() {
    let mut timeline = Timeline::new();
    assert_eq!(report(&mut timeline, &since_auto(), T0).severity, Severity::Clean);
    timeline.record_console(console(ConsoleLevel::Info, "ready", T0 + 1));
    timeline.record_action(action(ActionKind::Click, "click e1", None, T0 + 1));
    assert_eq!(report(&mut timeline, &since_auto(), T0 + 2).severity, Severity::Clean);
    timeline.record_console(warning("Deprecated API used", T0 + 3));
    assert_eq!(report(&mut timeline, &since_auto(), T0 + 4).severity, Severity::Warning);
    timeline.record_console(warning("Deprecated API used", T0 + 5));
    timeline.record_websocket(socket(WebSocketEventKind::Closed { code: None, reason: None }, T0 + 5));
    timeline.record_console(error("TypeError: cart is undefined", T0 + 5));
    let report = report(&mut timeline, &since_auto(), T0 + 6);
    assert_eq!(report.severity, Severity::Error);
    assert_eq!(report.summary, "1 new console error(s), 1 new console warning(s), 1 WebSocket disconnection(s)");
}

// 19
#[test]
fn the_summary_names_errors_then_failures() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("POST", "https://shop.test/api/checkout", 200, 40, T0 - 10));
    timeline.create_checkpoint("start", T0).unwrap();
    timeline.record_console(error("TypeError: cart is undefined", T0 + 1));
    timeline.record_console(error("Unhandled rejection: 502", T0 + 2));
    timeline.record_network(request("POST", "https://shop.test/api/checkout", 502, 40, T0 + 3));
    let report = report(&mut timeline, &since("start"), T0 + 10);
    assert_eq!(report.summary, "2 new console error(s), 1 network failure(s)");
}

#[test]
fn checkpoint_names_follow_the_naming_rules() {
    let mut timeline = Timeline::new();
    for name in ["session_start", "before_auth_refactor", "baseline_checkout2", &"a".repeat(50)] {
        timeline.create_checkpoint(name, T0).unwrap();
    }
    let message = |name: &str| Timeline::new().create_checkpoint(name, T0).unwrap_err().to_string();
    assert_eq!(
        message("Before Refactor"),
        "checkpoint name `Before Refactor` may hold only lowercase letters, digits and underscores; try `before_refactor`"
    );
    assert_eq!(
        message(&"x".repeat(51)),
        format!(
            "checkpoint name `{}` is 51 characters long, over the limit of 50; use a shorter one such as `{}`",
            "x".repeat(51),
            "x".repeat(50)
        )
    );
    assert_eq!(
        message("before_2025_01_02"),
        "checkpoint name `before_2025_01_02` looks like it holds a date or time; a checkpoint already records when \
         it was made, so name what it marks instead, e.g. `before_refactor` or `session_start`"
    );
    assert_eq!(message("snap_1735787045"), message("snap_1735787045"));
    assert!(message("snap_1735787045").contains("looks like it holds a date or time"));
    assert_eq!(message("2nd_try"), "checkpoint name `2nd_try` must start with a letter, e.g. `before_refactor`");
    assert_eq!(
        message(""),
        "the checkpoint name is empty; use lowercase letters, digits and underscores, e.g. `before_refactor`"
    );
}

#[test]
fn creating_an_existing_name_is_an_error_that_suggests_another() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("session_start", T0).unwrap();
    assert_eq!(
        timeline.create_checkpoint("session_start", T0 + 1).unwrap_err(),
        ChangesError::NameTaken {
            name: "session_start".into(),
            created: "2025-01-02T03:04:05.000Z".into(),
            suggestion: "session_start_2".into()
        }
    );
    assert_eq!(
        timeline.create_checkpoint("session_start", T0 + 1).unwrap_err().to_string(),
        "a checkpoint named `session_start` already exists (made 2025-01-02T03:04:05.000Z); delete it first with \
         action `delete`, or choose another name such as `session_start_2`"
    );
}

#[test]
fn at_most_twenty_named_checkpoints_are_kept() {
    let mut timeline = Timeline::new();
    let names: Vec<String> = (0..20).map(|n| format!("step_{n}")).collect();
    for (n, name) in names.iter().enumerate() {
        timeline.create_checkpoint(name, T0 + n as u64).unwrap();
    }
    assert_eq!(
        timeline.create_checkpoint("one_more", T0 + 100).unwrap_err().to_string(),
        "20 named checkpoints exist, the most kept; delete one you no longer need with action `delete` (the oldest \
         is `step_0`)"
    );
    assert_eq!(timeline.list_checkpoints().iter().map(|c| c.name.clone()).collect::<Vec<_>>(), names);
}

#[test]
fn deleting_a_checkpoint_removes_it_and_unknown_names_are_explained() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("session_start", T0).unwrap();
    timeline.create_checkpoint("pre_commit", T0 + 1).unwrap();
    let deleted = timeline.delete_checkpoint("session_start").unwrap();
    assert_eq!(deleted.name, "session_start");
    assert_eq!(timeline.list_checkpoints().len(), 1);
    assert_eq!(
        timeline.delete_checkpoint("session_start").unwrap_err().to_string(),
        "no checkpoint named `session_start`; existing checkpoints: pre_commit"
    );
    assert_eq!(
        timeline.changes_since(SESSION, &since("session_start"), T0).unwrap_err().to_string(),
        "`session_start` is neither a checkpoint name nor an ISO 8601 time such as 2025-01-02T03:04:05Z; existing \
         checkpoints: pre_commit. Leave `checkpoint` out to see the changes since your previous call."
    );
    timeline.delete_checkpoint("pre_commit").unwrap();
    assert_eq!(
        timeline.delete_checkpoint("pre_commit").unwrap_err().to_string(),
        "no checkpoint named `pre_commit`; no named checkpoints exist yet; make one with browser_checkpoint action \
         `create`"
    );
}

#[test]
fn the_checkpoint_tool_creates_lists_and_deletes() {
    let mut timeline = Timeline::new();
    timeline.set_page_url("https://shop.test/basket");
    let params = |action, name: Option<&str>| CheckpointParams { action, name: name.map(Into::into) };
    let created = timeline.checkpoint(&params(CheckpointAction::Create, Some("pre_commit")), T0).unwrap();
    assert_eq!(
        created.message,
        "Checkpoint `pre_commit` made at 2025-01-02T03:04:05.000Z; get_changes_since with checkpoint `pre_commit` \
         reports what happens after it."
    );
    assert_eq!(created.checkpoints[0].url.as_deref(), Some("https://shop.test/basket"));
    let listed = timeline.checkpoint(&params(CheckpointAction::List, None), T0).unwrap();
    assert_eq!(listed.message, "1 of at most 20 named checkpoints, oldest first.");
    assert_eq!(
        timeline.checkpoint(&params(CheckpointAction::Delete, None), T0).unwrap_err().to_string(),
        "action `delete` needs a `name`, e.g. `before_refactor`"
    );
    let deleted = timeline.checkpoint(&params(CheckpointAction::Delete, Some("pre_commit")), T0).unwrap();
    assert_eq!(deleted.message, "Checkpoint `pre_commit` (made 2025-01-02T03:04:05.000Z) deleted.");
    let empty = timeline.checkpoint(&params(CheckpointAction::List, None), T0).unwrap();
    assert_eq!(
        empty.message,
        "No named checkpoints yet; make one with action `create` and a name such as `session_start` (at most 20)."
    );
}

#[test]
fn each_session_has_its_own_automatic_checkpoint() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("TypeError: cart is undefined", T0));
    let first_a = timeline.changes_since("client-a", &since_auto(), T0 + 1).unwrap();
    let first_b = timeline.changes_since("client-b", &since_auto(), T0 + 2).unwrap();
    assert_eq!((first_a.severity, first_b.severity), (Severity::Error, Severity::Error));
    timeline.record_console(warning("Deprecated API used", T0 + 3));
    let second_a = timeline.changes_since("client-a", &since_auto(), T0 + 4).unwrap();
    assert_eq!(second_a.summary, "1 new console warning(s)");
    let second_b = timeline.changes_since("client-b", &since_auto(), T0 + 5).unwrap();
    assert_eq!(second_b.summary, "1 new console warning(s)");
}

#[test]
fn the_least_recently_used_session_is_forgotten_past_the_limit() {
    let mut timeline = Timeline::with_limits(Limits { sessions: 2, ..Limits::default() });
    timeline.record_console(error("TypeError: cart is undefined", T0));
    for session in ["a", "b"] {
        timeline.changes_since(session, &since_auto(), T0 + 1).unwrap();
    }
    timeline.changes_since("a", &since_auto(), T0 + 2).unwrap();
    timeline.changes_since("c", &since_auto(), T0 + 3).unwrap();
    assert_eq!(timeline.session_count(), 2);
    assert_eq!(timeline.changes_since("a", &since_auto(), T0 + 4).unwrap().severity, Severity::Clean);
    // "b" was forgotten, so its next report starts from the beginning again.
    assert_eq!(timeline.changes_since("b", &since_auto(), T0 + 5).unwrap().severity, Severity::Error);
}

#[test]
fn the_last_response_line_covers_errors_and_failures_since_the_previous_one() {
    let mut timeline = Timeline::new();
    assert_eq!(timeline.last_response_line(SESSION), None);
    timeline.record_console(error("TypeError: cart is undefined", T0));
    timeline.record_console(warning("Deprecated API used", T0));
    assert_eq!(
        timeline.last_response_line(SESSION).as_deref(),
        Some("Since the last response: 1 console error (\"TypeError: cart is undefined\").")
    );
    assert_eq!(timeline.last_response_line(SESSION), None);
    timeline.record_console(error("first", T0 + 1));
    timeline.record_console(error("ReferenceError: price is not defined", T0 + 2));
    timeline.record_network(request("GET", "https://shop.test/api/users?id=1", 500, 5, T0 + 3));
    let mut refused = request("POST", "https://shop.test/api/basket", 0, 5, T0 + 4);
    refused.error = Some("net::ERR_CONNECTION_REFUSED".into());
    timeline.record_network(refused);
    assert_eq!(
        timeline.last_response_line(SESSION).as_deref(),
        Some(
            "Since the last response: 2 console errors (latest \"ReferenceError: price is not defined\"); 2 failed \
             requests (latest POST /api/basket → net::ERR_CONNECTION_REFUSED)."
        )
    );
    // The line has its own cursor: the change report still sees everything.
    assert_eq!(report(&mut timeline, &since_auto(), T0 + 5).console.unwrap().errors.len(), 3);
    // Another session's line starts from the beginning.
    assert!(timeline.last_response_line("session-b").unwrap().starts_with("Since the last response: 3 console errors"));
}

#[test]
fn a_restored_timeline_keeps_a_named_checkpoints_window() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("GET", "https://shop.test/api/users", 200, 40, T0 - 5));
    timeline.create_checkpoint("before_refactor", T0).unwrap();
    timeline.record_console(error("TypeError: cart is undefined", T0 + 1));
    timeline.record_network(request("GET", "https://shop.test/api/users", 500, 40, T0 + 2));
    report(&mut timeline, &since_auto(), T0 + 3);
    let before = report(&mut timeline, &since("before_refactor"), T0 + 10);
    let saved = serde_json::to_string(&timeline.serialize()).unwrap();
    let mut restored = Timeline::restore(serde_json::from_str(&saved).unwrap()).unwrap();
    assert_eq!(restored, timeline);
    assert_eq!(report(&mut restored, &since("before_refactor"), T0 + 10), before);
    // The session's automatic checkpoint survived too.
    assert_eq!(report(&mut restored, &since_auto(), T0 + 11).severity, Severity::Clean);
}

#[test]
fn named_checkpoints_carried_into_a_new_browser_run_cover_everything_recorded_since() {
    let mut old_run = Timeline::new();
    old_run.record_network(request("GET", "https://shop.test/api/users", 200, 40, T0 - 5));
    old_run.record_console(error("from the old run", T0 - 4));
    old_run.create_checkpoint("known_good", T0).unwrap();
    let kept = serde_json::to_string(&old_run.named_checkpoints()).unwrap();

    let mut new_run = Timeline::new();
    new_run.record_network(request("GET", "https://shop.test/api/users", 500, 40, T0 + 60_000));
    assert_eq!(new_run.restore_named(serde_json::from_str(&kept).unwrap()), 1);
    assert_eq!(new_run.restore_named(serde_json::from_str(&kept).unwrap()), 0);
    let report = report(&mut new_run, &since("known_good"), T0 + 61_000);
    assert_eq!(report.network.unwrap().failures[0].previous_status, Some(200));
    assert_eq!(report.console.unwrap().total, 0);
}

#[test]
fn noise_is_left_out_of_reports_but_kept_in_the_buffers() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0 - 1).unwrap();
    let mut extension_error = error("Uncaught Error: extension context invalidated", T0);
    extension_error.source =
        Some(SourceLocation { url: "chrome-extension://abcdef/content.js".into(), line: 1, column: 1 });
    timeline.record_console(extension_error);
    timeline.record_console(console(ConsoleLevel::Log, "[vite] connected.", T0));
    timeline.record_network(request("POST", "https://www.google-analytics.com/g/collect?v=2", 0, 5, T0));
    timeline.record_network(request("GET", "https://stats.shop.test/beacon", 500, 5, T0));
    assert_eq!((timeline.console().len(), timeline.network().len()), (2, 2));

    let report = report(&mut timeline, &since("start"), T0 + 1);
    assert_eq!((report.console.unwrap().total, report.network.as_ref().unwrap().total), (0, 1));
    assert_eq!(report.summary, "1 network failure(s)");

    timeline.add_noise_rule(NoiseRule::new(
        "beacons",
        NoiseTarget::RequestPath,
        NoisePattern::EndsWith("/beacon".into()),
    ));
    assert_eq!(self::report(&mut timeline, &since("start"), T0 + 1).summary, "No significant changes.");
    timeline.remove_noise_rule("extension_console_source");
    let report = self::report(&mut timeline, &since("start"), T0 + 1);
    assert_eq!(report.console.unwrap().errors[0].message, "Uncaught Error: extension context invalidated");
}

#[test]
fn an_endpoint_already_failing_at_the_checkpoint_is_still_failing_not_new() {
    let mut timeline = Timeline::new();
    timeline.record_network(request("GET", "https://shop.test/api/stock", 503, 40, T0 - 5));
    timeline.create_checkpoint("start", T0).unwrap();
    timeline.record_network(request("GET", "https://shop.test/api/stock", 503, 40, T0 + 1));
    timeline.record_network(request("GET", "https://shop.test/api/stock", 503, 40, T0 + 2));
    let report = report(&mut timeline, &since("start"), T0 + 10);
    let network = report.network.unwrap();
    assert_eq!(network.failures, vec![]);
    assert_eq!(
        network.still_failing,
        vec![EndpointFailure {
            endpoint: "GET /api/stock".into(),
            status: 503,
            error: None,
            previous_status: Some(503),
            count: 2
        }]
    );
    assert_eq!((report.severity, report.summary.as_str()), (Severity::Warning, "1 endpoint(s) still failing"));
}

#[test]
fn a_new_endpoint_that_fails_is_a_failure_without_a_previous_status() {
    let mut timeline = Timeline::new();
    timeline.create_checkpoint("start", T0).unwrap();
    let mut refused = request("GET", "https://shop.test/api/new", 0, 5, T0 + 1);
    refused.error = Some("net::ERR_CONNECTION_REFUSED".into());
    timeline.record_network(refused);
    let network = report(&mut timeline, &since("start"), T0 + 10).network.unwrap();
    assert_eq!(
        network.failures,
        vec![EndpointFailure {
            endpoint: "GET /api/new".into(),
            status: 0,
            error: Some("net::ERR_CONNECTION_REFUSED".into()),
            previous_status: None,
            count: 1
        }]
    );
    assert!(network.new_endpoints.is_empty(), "said once, as a failure: {:?}", network.new_endpoints);
}

#[test]
fn a_response_more_than_three_times_slower_than_its_baseline_is_degraded() {
    let mut timeline = Timeline::new();
    for duration in [100, 120, 80] {
        timeline.record_network(request("GET", "https://shop.test/api/search?q=a", 200, duration, T0 - 10));
    }
    timeline.record_network(request("GET", "https://shop.test/api/fast", 200, 2, T0 - 10));
    timeline.create_checkpoint("start", T0).unwrap();
    timeline.record_network(request("GET", "https://shop.test/api/search?q=b", 200, 250, T0 + 1));
    timeline.record_network(request("GET", "https://shop.test/api/fast", 200, 9, T0 + 1));
    assert_eq!(report(&mut timeline, &since("start"), T0 + 2).severity, Severity::Clean);
    timeline.record_network(request("GET", "https://shop.test/api/search?q=c", 200, 450, T0 + 3));
    let report = report(&mut timeline, &since("start"), T0 + 4);
    assert_eq!(
        report.network.unwrap().degraded,
        vec![SlowEndpoint { endpoint: "GET /api/search".into(), baseline_ms: 100, slowest_ms: 450 }]
    );
    assert_eq!((report.severity, report.summary.as_str()), (Severity::Warning, "1 slow endpoint(s)"));
}

#[test]
fn the_tab_filter_keeps_one_tabs_events() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("on tab one", T0));
    timeline.record_console(ConsoleEntry { tab: 2, ..error("on tab two", T0) });
    let params = ChangesParams { tab: Some(2), ..since_auto() };
    let console = report(&mut timeline, &params, T0 + 1).console.unwrap();
    assert_eq!((console.errors[0].message.as_str(), console.total), ("on tab two", 1));
}

#[test]
fn actions_list_who_did_what_with_the_url_only_when_it_changes() {
    let mut timeline = Timeline::new();
    timeline.record_action(action(ActionKind::Navigate, "navigate to /basket", Some("https://shop.test/basket"), T0));
    timeline.record_action(action(
        ActionKind::Click,
        "click e12 button \"Checkout\"",
        Some("https://shop.test/basket"),
        T0 + 1,
    ));
    timeline.record_action(ActionEntry {
        by: Actor::User,
        ..action(ActionKind::Type, "typed into e3 textbox \"Email\"", Some("https://shop.test/checkout"), T0 + 2)
    });
    let actions = report(&mut timeline, &since_auto(), T0 + 3).actions.unwrap();
    assert_eq!(
        actions.actions,
        vec![
            ActionSummary {
                kind: ActionKind::Navigate,
                by: Actor::Agent,
                description: "navigate to /basket".into(),
                url: Some("https://shop.test/basket".into()),
                after_ms: 0
            },
            ActionSummary {
                kind: ActionKind::Click,
                by: Actor::Agent,
                description: "click e12 button \"Checkout\"".into(),
                url: None,
                after_ms: 1
            },
            ActionSummary {
                kind: ActionKind::Type,
                by: Actor::User,
                description: "typed into e3 textbox \"Email\"".into(),
                url: Some("https://shop.test/checkout".into()),
                after_ms: 2
            },
        ]
    );
    assert_eq!(
        serde_json::to_string(&actions.actions[2]).unwrap(),
        r#"{"kind":"type","by":"user","description":"typed into e3 textbox \"Email\"","url":"https://shop.test/checkout","after_ms":2}"#
    );
}

#[test]
fn websocket_opens_and_errors_are_grouped_by_url() {
    let mut timeline = Timeline::new();
    for at in 0..3 {
        timeline.record_websocket(socket(WebSocketEventKind::Created, T0 + at));
    }
    timeline.record_websocket(socket(WebSocketEventKind::Handshake { status: 403 }, T0 + 4));
    let report = report(&mut timeline, &since_auto(), T0 + 5);
    let websocket = report.websocket.unwrap();
    assert_eq!(websocket.connections, vec![SocketOpened { url: "wss://shop.test/live".into(), count: 3 }]);
    assert_eq!(websocket.errors[0].message, "handshake refused with HTTP 403");
    assert_eq!(report.summary, "1 WebSocket error(s)");
}

#[test]
fn long_messages_are_cut_to_two_hundred_characters() {
    let mut timeline = Timeline::new();
    timeline.record_console(error(&"x".repeat(500), T0));
    let console = report(&mut timeline, &since_auto(), T0).console.unwrap();
    assert_eq!(console.errors[0].message, format!("{}…", "x".repeat(199)));
    assert_eq!(console.errors[0].message.chars().count(), 200);
}

#[test]
fn a_reference_that_is_neither_name_nor_time_is_explained() {
    let mut timeline = Timeline::new();
    assert_eq!(
        timeline.changes_since(SESSION, &since("yesterday"), T0).unwrap_err().to_string(),
        "`yesterday` is neither a checkpoint name nor an ISO 8601 time such as 2025-01-02T03:04:05Z; no named \
         checkpoints exist yet; make one with browser_checkpoint action `create`. Leave `checkpoint` out to see the \
         changes since your previous call."
    );
}

#[test]
fn a_typical_report_stays_under_two_kilobytes() {
    let mut timeline = Timeline::new();
    for n in 0..10 {
        timeline.record_network(request("GET", &format!("https://shop.test/api/item/{}", 1000 + n), 200, 40, T0 - 100));
    }
    timeline.create_checkpoint("before_checkout", T0).unwrap();
    timeline.record_action(action(
        ActionKind::Navigate,
        "navigate https://shop.test/basket",
        Some("https://shop.test/basket"),
        T0,
    ));
    for n in 0..4 {
        timeline.record_action(action(ActionKind::Click, &format!("click e{n} button \"Checkout\""), None, T0 + n));
        timeline.record_console(console(ConsoleLevel::Log, "checkout step rendered", T0 + n));
    }
    timeline.record_console(error("TypeError: Cannot read properties of undefined (reading 'total')", T0 + 10));
    timeline.record_console(error("TypeError: Cannot read properties of undefined (reading 'total')", T0 + 11));
    timeline.record_console(error("Unhandled promise rejection: PaymentError: card declined", T0 + 12));
    timeline.record_console(warning("[Deprecation] SharedArrayBuffer will require cross-origin isolation", T0 + 13));
    timeline.record_network(request("GET", "https://shop.test/api/item/1001", 200, 45, T0 + 20));
    timeline.record_network(request("POST", "https://shop.test/api/checkout", 502, 300, T0 + 21));
    timeline.record_network(request("GET", "https://shop.test/api/shipping?zip=94107", 200, 80, T0 + 22));
    timeline.record_websocket(socket(WebSocketEventKind::Closed { code: Some(1006), reason: None }, T0 + 30));
    let report = report(&mut timeline, &since("before_checkout"), T0 + 5000);
    assert_eq!(
        report.summary,
        "3 new console error(s), 1 network failure(s), 1 new console warning(s), 1 WebSocket disconnection(s)"
    );
    assert!(report.json_len() <= 2048, "{} bytes: {}", report.json_len(), json(&report));
    assert_eq!(report.tokens, report.json_len() / 4);
}

#[test]
fn entries_of_a_tab_the_agent_may_no_longer_use_are_not_readable() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("Kept: shared tab broke", T0 + 1));
    timeline.record_console(ConsoleEntry { tab: 2, ..error("Hidden: the tab was unshared", T0 + 2) });
    timeline
        .record_network(NetworkEntry { tab: 2, ..request("GET", "https://bank.test/api/accounts", 500, 5, T0 + 3) });
    timeline.set_readable_tabs(Some([1].into_iter().collect()));

    let text = json(&report(&mut timeline, &since_auto(), T0 + 10));
    assert!(text.contains("Kept: shared tab broke"), "{text}");
    assert!(!text.contains("Hidden") && !text.contains("bank.test"), "{text}");
    assert_eq!(
        timeline.last_response_line("s1"),
        Some("Since the last response: 1 console error (\"Kept: shared tab broke\").".into())
    );
    assert!(timeline.readable(1) && !timeline.readable(2));
    timeline.set_readable_tabs(None);
    assert!(timeline.readable(2), "no restriction reads every tab");
}

#[test]
fn entries_recorded_on_a_site_of_no_access_are_not_readable_whatever_tab_they_are_on() {
    let mut timeline = Timeline::new();
    timeline.record_console(error("Kept: the shop broke", T0 + 1));
    // The same tab was on the bank before: what it recorded there carries the bank's URLs.
    let on_bank = SourceLocation { url: "https://login.bank.test/app.js".into(), line: 1, column: 1 };
    timeline.record_console(ConsoleEntry { source: Some(on_bank), ..error("Hidden: balance 12,345", T0 + 2) });
    timeline.record_network(request("GET", "https://login.bank.test/api/accounts", 500, 5, T0 + 3));
    timeline.record_action(action(ActionKind::Navigate, "navigate", Some("https://login.bank.test/"), T0 + 4));
    let rules = r#"{"rules": [{"site": "*", "level": "act_freely"}, {"site": "*.bank.test", "level": "no_access"}]}"#;
    timeline.set_no_access(Some(sightline_core::permissions::Policy::from_json(rules).expect("rules")));

    let text = json(&report(&mut timeline, &since_auto(), T0 + 10));
    assert!(text.contains("Kept: the shop broke"), "{text}");
    assert!(!text.contains("Hidden") && !text.contains("bank.test"), "{text}");
    assert_eq!(
        timeline.last_response_line("s1"),
        Some("Since the last response: 1 console error (\"Kept: the shop broke\").".into())
    );
    let listing = timeline.console_listing(&Default::default());
    assert!(listing.contains("Kept") && !listing.contains("Hidden"), "{listing}");
    assert!(!timeline.readable_at(1, Some("https://bank.test:8080/x")) && timeline.readable_at(1, None));

    timeline.set_no_access(None);
    let listing = timeline.console_listing(&Default::default());
    assert!(listing.contains("Hidden"), "without the rules every entry reads: {listing}");
}
