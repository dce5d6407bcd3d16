//! Requests are recorded when their response arrives, whether or not the page ever reads the
//! body: CDP events go through the recorder, the intake and the timeline as in the extension,
//! and what an agent reads (change reports, the response line, the network listing) is checked
//! exactly.

use serde_json::{Value, json};
use sightline_core::changes::listing::render_network;
use sightline_core::changes::record::{Intake, Recorder};
use sightline_core::changes::{
    ChangeReport, EndpointFailure, Limits, LoadEnd, LoadOutcome, NetworkChanges, NetworkEntry, RequestId, Severity,
    Timeline,
};
use sightline_core::protocol::{ChangesParams, NetworkRequestsParams};

/// 2025-01-02T03:04:05.000Z
const T0: u64 = 1_735_787_045_000;
const TAB: u32 = 3;
const SESSION: &str = "session-a";

/// The extension's recording path, with a clock the test moves.
struct Browser {
    recorder: Recorder,
    intake: Intake,
    timeline: Timeline,
}

impl Browser {
    fn new() -> Self {
        Browser::with(Timeline::new())
    }

    fn with(timeline: Timeline) -> Self {
        Browser { recorder: Recorder::default(), intake: Intake::default(), timeline }
    }

    fn event(&mut self, method: &str, mut params: Value, at: u64) {
        // CDP's monotonic clock, in seconds: here the epoch time shifted, which is all that matters.
        params["timestamp"] = json!((at - T0) as f64 / 1000.0 + 100.0);
        for recorded in self.recorder.event(TAB, None, method, &params, at) {
            if let Some(kept) = self.intake.keep(recorded, false, at) {
                kept.record_in(&mut self.timeline);
            }
        }
    }

    fn send(&mut self, id: &str, kind: &str, url: &str, at: u64) {
        let params = json!({"requestId": id, "type": kind, "request": {"url": url, "method": "GET"}});
        self.event("Network.requestWillBeSent", params, at);
    }

    fn respond(&mut self, id: &str, kind: &str, status: u16, at: u64) {
        self.event(
            "Network.responseReceived",
            json!({"requestId": id, "type": kind, "response": {"status": status}}),
            at,
        );
    }

    fn finish(&mut self, id: &str, bytes: u64, at: u64) {
        self.event("Network.loadingFinished", json!({"requestId": id, "encodedDataLength": bytes}), at);
    }

    fn fail(&mut self, id: &str, error: &str, canceled: bool, at: u64) {
        let params = json!({"requestId": id, "errorText": error, "canceled": canceled});
        self.event("Network.loadingFailed", params, at);
    }

    fn report(&mut self, now: u64) -> ChangeReport {
        self.timeline.changes_since(SESSION, &ChangesParams::default(), now).expect("report")
    }

    fn listing(&self, params: &NetworkRequestsParams, now: u64) -> String {
        render_network(self.timeline.network().iter(), &self.recorder.pending(), params, now)
    }
}

fn entry(url: &str, kind: &str, status: u16, duration_ms: u64, encoded_bytes: u64, at: u64) -> NetworkEntry {
    NetworkEntry {
        method: "GET".into(),
        url: url.into(),
        status,
        error: None,
        duration_ms,
        encoded_bytes,
        resource_type: Some(kind.into()),
        time_ms: at,
        tab: TAB,
    }
}

fn failure(endpoint: &str, status: u16, previous_status: Option<u16>) -> EndpointFailure {
    EndpointFailure { endpoint: endpoint.into(), status, error: None, previous_status, count: 1 }
}

/// A page whose items API answered 200 (its body read), and an agent that has seen that.
fn page_with_items_loaded() -> Browser {
    let mut browser = Browser::new();
    browser.send("1", "Fetch", "http://shop.test/api/items", T0);
    browser.respond("1", "Fetch", 200, T0 + 20);
    browser.finish("1", 512, T0 + 25);
    assert_eq!(browser.report(T0 + 100).severity, Severity::Clean);
    assert_eq!(browser.timeline.last_response_line(SESSION), None);
    browser
}

#[test]
fn an_endpoint_whose_status_is_read_without_its_body_is_reported_when_it_starts_failing() {
    let mut browser = page_with_items_loaded();
    // `const r = await fetch('/api/items'); status.textContent = r.status`: no loadingFinished.
    browser.send("2", "Fetch", "http://shop.test/api/items", T0 + 1000);
    browser.respond("2", "Fetch", 500, T0 + 1030);
    // An XHR the page aborts once it has the status: cancelled after its response.
    browser.send("3", "XHR", "http://shop.test/api/stock", T0 + 1040);
    browser.respond("3", "XHR", 404, T0 + 1050);
    browser.fail("3", "net::ERR_ABORTED", true, T0 + 1051);

    assert_eq!(
        browser.timeline.last_response_line(SESSION).as_deref(),
        Some("Since the last response: 2 failed requests (latest GET /api/stock → 404).")
    );
    let report = browser.report(T0 + 2000);
    assert_eq!((report.severity, report.summary.as_str()), (Severity::Error, "2 network failure(s)"));
    assert_eq!(
        report.network,
        Some(NetworkChanges {
            failures: vec![failure("GET /api/items", 500, Some(200)), failure("GET /api/stock", 404, None)],
            total: 2,
            ..NetworkChanges::default()
        })
    );
    assert_eq!(
        browser.timeline.network().iter().cloned().collect::<Vec<_>>(),
        vec![
            entry("http://shop.test/api/items", "Fetch", 200, 20, 512, T0 + 20),
            entry("http://shop.test/api/items", "Fetch", 500, 30, 0, T0 + 1030),
            entry("http://shop.test/api/stock", "XHR", 404, 10, 0, T0 + 1050),
        ]
    );
}

#[test]
fn a_body_that_finishes_later_adds_its_size_to_the_same_entry() {
    let mut browser = Browser::new();
    browser.send("1", "Document", "http://shop.test/", T0);
    browser.respond("1", "Document", 200, T0 + 40);
    assert_eq!(
        browser.timeline.network().iter().cloned().collect::<Vec<_>>(),
        vec![entry("http://shop.test/", "Document", 200, 40, 0, T0 + 40)]
    );
    browser.finish("1", 2048, T0 + 900);
    assert_eq!(
        browser.timeline.network().iter().cloned().collect::<Vec<_>>(),
        vec![entry("http://shop.test/", "Document", 200, 40, 2048, T0 + 40)],
        "an update, not a second entry; the time stays the response's"
    );
    assert_eq!(
        browser.listing(&NetworkRequestsParams::default(), T0 + 1000),
        "Requests 1–1 of 1, page 1 of 1 (newest last):\n\
         03:04:05.040 GET 200 http://shop.test/ (Document, 40 ms, 2.0 kB)\n"
    );
}

#[test]
fn a_body_that_fails_after_its_response_keeps_the_status_and_adds_the_error() {
    let mut browser = Browser::new();
    browser.send("1", "Fetch", "http://shop.test/api/feed", T0);
    browser.respond("1", "Fetch", 500, T0 + 5);
    browser.fail("1", "net::ERR_INCOMPLETE_CHUNKED_ENCODING", false, T0 + 60);
    browser.send("2", "Fetch", "http://shop.test/api/news", T0 + 100);
    browser.respond("2", "Fetch", 200, T0 + 105);
    browser.fail("2", "net::ERR_ABORTED", true, T0 + 106);
    assert_eq!(
        browser.listing(&NetworkRequestsParams::default(), T0 + 200),
        "Requests 1–2 of 2, page 1 of 1 (newest last):\n\
         03:04:05.005 GET 500 http://shop.test/api/feed — net::ERR_INCOMPLETE_CHUNKED_ENCODING (Fetch, 5 ms)\n\
         03:04:05.105 GET 200 http://shop.test/api/news (Fetch, 5 ms)\n"
    );
    let report = browser.report(T0 + 300);
    let network = report.network.expect("network section");
    assert_eq!(
        network.failures,
        vec![EndpointFailure {
            endpoint: "GET /api/feed".into(),
            status: 500,
            error: Some("net::ERR_INCOMPLETE_CHUNKED_ENCODING".into()),
            previous_status: None,
            count: 1,
        }]
    );
}

#[test]
fn a_request_that_fails_before_any_response_is_recorded_at_the_failure() {
    let mut browser = page_with_items_loaded();
    browser.send("2", "Fetch", "http://shop.test/api/items", T0 + 1000);
    browser.fail("2", "net::ERR_CONNECTION_REFUSED", false, T0 + 1003);
    assert_eq!(
        browser.timeline.last_response_line(SESSION).as_deref(),
        Some("Since the last response: 1 failed request (GET /api/items → net::ERR_CONNECTION_REFUSED).")
    );
    let report = browser.report(T0 + 2000);
    assert_eq!(
        report.network.expect("network section").failures,
        vec![EndpointFailure {
            endpoint: "GET /api/items".into(),
            status: 0,
            error: Some("net::ERR_CONNECTION_REFUSED".into()),
            previous_status: Some(200),
            count: 1,
        }]
    );
}

#[test]
fn a_request_that_never_answers_is_pending_with_its_age_and_not_a_failure() {
    let mut browser = page_with_items_loaded();
    browser.send("2", "Fetch", "http://shop.test/api/hang", T0 + 1000);
    browser.send("3", "Fetch", "http://shop.test/api/items", T0 + 1100);
    browser.respond("3", "Fetch", 500, T0 + 1110);

    assert_eq!(
        browser.timeline.last_response_line(SESSION).as_deref(),
        Some("Since the last response: 1 failed request (GET /api/items → 500).")
    );
    let report = browser.report(T0 + 13_345);
    assert_eq!(
        report.network,
        Some(NetworkChanges {
            failures: vec![failure("GET /api/items", 500, Some(200))],
            total: 1,
            ..NetworkChanges::default()
        })
    );
    assert_eq!(
        browser.listing(&NetworkRequestsParams::default(), T0 + 13_345),
        "Requests 1–3 of 3, page 1 of 1 (newest last):\n\
         03:04:05.020 GET 200 http://shop.test/api/items (Fetch, 20 ms, 512 B)\n\
         03:04:06.110 GET 500 http://shop.test/api/items (Fetch, 10 ms)\n\
         03:04:06.000 GET pending http://shop.test/api/hang (Fetch, no response after 12.3 s)\n"
    );
    assert_eq!(
        browser.listing(&NetworkRequestsParams { failed: true, ..Default::default() }, T0 + 13_345),
        "Requests (failed) 1–1 of 1, page 1 of 1 (newest last):\n\
         03:04:06.110 GET 500 http://shop.test/api/items (Fetch, 10 ms)\n"
    );
}

#[test]
fn a_size_for_an_entry_the_ring_no_longer_holds_changes_nothing() {
    let mut browser = Browser::with(Timeline::with_limits(Limits { network: 2, ..Limits::default() }));
    browser.send("1", "Fetch", "http://shop.test/api/slow", T0);
    browser.respond("1", "Fetch", 200, T0 + 10);
    for (id, at) in [("2", T0 + 20), ("3", T0 + 30)] {
        browser.send(id, "Fetch", "http://shop.test/api/fast", at);
        browser.respond(id, "Fetch", 200, at + 1);
        browser.finish(id, 100, at + 2);
    }
    let before: Vec<NetworkEntry> = browser.timeline.network().iter().cloned().collect();
    browser.finish("1", 999_999, T0 + 40);
    assert_eq!(browser.timeline.network().iter().cloned().collect::<Vec<_>>(), before);
    assert!(before.iter().all(|e| e.url.ends_with("/fast") && e.encoded_bytes == 100), "{before:?}");
}

#[test]
fn saved_state_keeps_answered_requests_so_a_late_size_still_lands_after_a_restore() {
    let mut browser = Browser::new();
    browser.send("1", "Fetch", "http://shop.test/api/items", T0);
    browser.respond("1", "Fetch", 200, T0 + 10);
    let saved = serde_json::to_string(&browser.timeline.serialize()).unwrap();
    let mut restored = Timeline::restore(serde_json::from_str(&saved).unwrap()).unwrap();
    assert_eq!(restored, browser.timeline);
    let request = RequestId { tab: TAB, session: None, id: "1".into() };
    assert!(restored.end_load(LoadEnd { request, outcome: LoadOutcome::Finished { encoded_bytes: 64 } }));
    assert_eq!(
        restored.network().iter().cloned().collect::<Vec<_>>(),
        vec![entry("http://shop.test/api/items", "Fetch", 200, 10, 64, T0 + 10)]
    );
}

#[test]
fn state_saved_before_requests_were_recorded_at_their_response_still_restores() {
    let browser = page_with_items_loaded();
    let mut saved = serde_json::to_value(browser.timeline.serialize()).unwrap();
    let buffers = saved["buffers"].as_object_mut().expect("buffers");
    assert!(buffers.remove("answered").is_some(), "the field this change added");
    let restored = Timeline::restore(serde_json::from_value(saved).unwrap()).unwrap();
    assert_eq!(restored, browser.timeline);
}
