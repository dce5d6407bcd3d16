//! Requests from CDP's `Network` domain: remembered while in flight, recorded when their
//! response arrives, with method, URL, status, time to the response and resource type.
//!
//! A request is answered when its response arrives, whether or not the page ever reads the
//! body (`if (!r.ok) throw` reads only the status, and its load may never finish): it is
//! recorded then. If its load ends later, the size (or the error that cut the body short) follows
//! as a [`LoadEnd`] for that same entry; a load the page cancelled after its response adds
//! nothing. A request that fails before any response is recorded at the failure, unless the page
//! cancelled it (nothing failed then). Each hop of a redirect is one request. Requests still
//! waiting for their response are [`PendingRequest`]s. `data:` URLs are not requests. What is in
//! flight is bounded by `MAX_IN_FLIGHT`. Bodies are never read.

use crate::changes::entries::recorded_url;
use serde_json::Value;

use super::{Recorded, Recorder, number, text};
use crate::changes::answered::{LoadEnd, LoadOutcome, RequestId};
use crate::changes::entries::NetworkEntry;

/// Requests remembered while in flight (waiting for their response, or answered and still
/// loading); past this the oldest answered one is forgotten first (only its size is lost), then
/// the oldest waiting one. A long poll that never answers must not grow memory.
const MAX_IN_FLIGHT: usize = 1000;

/// Resource types whose load changes what a page shows once it arrives: an image (an `<img>` or
/// one a style rule names), a style sheet, a font.
const RENDERING_TYPES: [&str; 3] = ["Image", "Stylesheet", "Font"];

/// A request sent whose load has not ended.
#[derive(Debug, Clone)]
pub(super) struct InFlight {
    method: String,
    url: String,
    /// CDP monotonic seconds when it was sent.
    started: f64,
    /// Epoch milliseconds when it was sent (for its age, and for evicting the oldest).
    sent_ms: u64,
    resource_type: Option<String>,
    /// The response's status, once it arrived (and the request was recorded).
    status: Option<u16>,
}

/// A request sent and still waiting for its response, as `browser_network_requests` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRequest {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Full request URL.
    pub url: String,
    /// CDP resource type, e.g. `Fetch`, `XHR`.
    pub resource_type: Option<String>,
    /// When it was sent, in epoch milliseconds.
    pub sent_ms: u64,
    /// Browser tab id.
    pub tab: u32,
}

impl Recorder {
    /// What a `Network.*` request event amounts to.
    pub(super) fn network(&mut self, key: RequestId, method: &str, params: &Value, now_ms: u64) -> Vec<Recorded> {
        match method {
            "Network.requestWillBeSent" => {
                let mut out = Vec::new();
                // A redirect reuses the request id: the hop that ended with it is one request.
                if let Some(redirect) = params.get("redirectResponse").filter(|r| r.is_object())
                    && let Some(hop) = self.requests.remove(&key)
                {
                    let bytes = number(&redirect["encodedDataLength"]).unwrap_or(0.0).max(0.0) as u64;
                    out.push(match hop.status {
                        // Already recorded at its response: only the size is new.
                        Some(_) => Recorded::LoadEnded(LoadEnd {
                            request: key.clone(),
                            outcome: LoadOutcome::Finished { encoded_bytes: bytes },
                        }),
                        None => {
                            let status = number(&redirect["status"]).map(|s| s as u16);
                            let mut entry = entry(&key, &hop, status, None, seconds(params), now_ms);
                            entry.encoded_bytes = bytes;
                            Recorded::Network(entry)
                        }
                    });
                }
                let request = &params["request"];
                let url = text(&request["url"]);
                if url.is_empty() || url.starts_with("data:") {
                    return out;
                }
                self.remember(
                    key,
                    InFlight {
                        method: text(&request["method"]).chars().take(16).collect(),
                        url: recorded_url(url),
                        started: seconds(params),
                        sent_ms: now_ms,
                        resource_type: params["type"].as_str().map(str::to_owned),
                        status: None,
                    },
                );
                out
            }
            "Network.responseReceived" => {
                let Some(request) = self.requests.get_mut(&key) else { return Vec::new() };
                // One response per request (a second report of it is not a second request).
                if request.status.is_some() {
                    return Vec::new();
                }
                let status = number(&params["response"]["status"]).map_or(0, |s| s as u16);
                request.status = Some(status);
                if let Some(kind) = params["type"].as_str() {
                    request.resource_type = Some(kind.to_owned());
                }
                let entry = entry(&key, request, Some(status), None, seconds(params), now_ms);
                vec![Recorded::Answered { request: key, entry }]
            }
            "Network.loadingFinished" => {
                let Some(request) = self.requests.remove(&key) else { return Vec::new() };
                // A load that finished without any response is not a request we can describe.
                if request.status.is_none() {
                    return Vec::new();
                }
                let encoded_bytes = number(&params["encodedDataLength"]).unwrap_or(0.0).max(0.0) as u64;
                vec![Recorded::LoadEnded(LoadEnd { request: key, outcome: LoadOutcome::Finished { encoded_bytes } })]
            }
            "Network.loadingFailed" => {
                let Some(request) = self.requests.remove(&key) else { return Vec::new() };
                // The page (or a navigation) cancelled it: nothing failed, and an answered
                // request keeps the status it was recorded with.
                if params["canceled"].as_bool() == Some(true) {
                    return Vec::new();
                }
                let mut error = text(&params["errorText"]).to_owned();
                if let Some(blocked) = params["blockedReason"].as_str() {
                    error = format!("{error} (blocked: {blocked})");
                }
                let error = (!error.is_empty()).then_some(error);
                match (request.status, error) {
                    (Some(_), Some(error)) => {
                        vec![Recorded::LoadEnded(LoadEnd { request: key, outcome: LoadOutcome::Failed { error } })]
                    }
                    (Some(_), None) => Vec::new(),
                    (None, error) => {
                        vec![Recorded::Network(entry(&key, &request, None, error, seconds(params), now_ms))]
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// Requests still waiting for their response, oldest first.
    pub fn pending(&self) -> Vec<PendingRequest> {
        let mut pending: Vec<(&RequestId, &InFlight)> =
            self.requests.iter().filter(|(_, request)| request.status.is_none()).collect();
        pending.sort_by(|(a_key, a), (b_key, b)| a.sent_ms.cmp(&b.sent_ms).then_with(|| a_key.cmp(b_key)));
        pending
            .into_iter()
            .map(|(key, request)| PendingRequest {
                method: request.method.clone(),
                url: request.url.clone(),
                resource_type: request.resource_type.clone(),
                sent_ms: request.sent_ms,
                tab: key.tab,
            })
            .collect()
    }

    /// How many images, style sheets and fonts `tab` is still loading that were sent at most
    /// `max_age_ms` before `now_ms`. A snapshot taken before they arrive would miss what they
    /// show: an icon drawn by a style rule has no width until its image is in. Older loads are
    /// left out, so one that hangs does not hold up every snapshot after it.
    pub fn rendering_loads(&self, tab: u32, now_ms: u64, max_age_ms: u64) -> usize {
        self.requests
            .iter()
            .filter(|(key, request)| {
                key.tab == tab
                    && now_ms.saturating_sub(request.sent_ms) <= max_age_ms
                    && request.resource_type.as_deref().is_some_and(|kind| RENDERING_TYPES.contains(&kind))
            })
            .count()
    }

    fn remember(&mut self, key: RequestId, request: InFlight) {
        if self.requests.len() >= MAX_IN_FLIGHT
            && !self.requests.contains_key(&key)
            && let Some(oldest) =
                self.requests.iter().min_by_key(|(_, r)| (r.status.is_none(), r.sent_ms)).map(|(k, _)| k.clone())
        {
            self.requests.remove(&oldest);
        }
        self.requests.insert(key, request);
    }
}

/// The entry of `request`, which ended (got its response, or failed) at CDP time `ended`.
fn entry(
    key: &RequestId,
    request: &InFlight,
    status: Option<u16>,
    error: Option<String>,
    ended: f64,
    now_ms: u64,
) -> NetworkEntry {
    let duration =
        if ended > 0.0 && request.started > 0.0 { ((ended - request.started) * 1000.0).max(0.0) } else { 0.0 };
    NetworkEntry {
        method: request.method.clone(),
        url: request.url.clone(),
        status: status.unwrap_or(0),
        error,
        duration_ms: duration.round() as u64,
        encoded_bytes: 0,
        resource_type: request.resource_type.clone(),
        time_ms: now_ms,
        tab: key.tab,
    }
}

/// The CDP monotonic time of an event, in seconds.
fn seconds(params: &Value) -> f64 {
    number(&params["timestamp"]).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::{NOW, network, one};
    use super::*;

    fn key(id: &str) -> RequestId {
        RequestId { tab: 7, session: None, id: id.into() }
    }

    fn send(recorder: &mut Recorder, id: &str, url: &str, at: u64) {
        let sent =
            json!({"requestId": id, "timestamp": 10.0, "type": "Fetch", "request": {"url": url, "method": "GET"}});
        assert!(recorder.event(7, None, "Network.requestWillBeSent", &sent, at).is_empty());
    }

    fn respond(recorder: &mut Recorder, id: &str, status: u16) -> Recorded {
        one(
            recorder,
            "Network.responseReceived",
            json!({"requestId": id, "timestamp": 10.013, "type": "Fetch",
                                                        "response": {"status": status}}),
        )
    }

    #[test]
    fn rendering_loads_count_images_styles_and_fonts_of_the_tab_until_their_load_ends() {
        let mut recorder = Recorder::default();
        for (id, kind, tab) in [("1", "Image", 7), ("2", "Stylesheet", 7), ("3", "Fetch", 7), ("4", "Image", 8)] {
            let sent = json!({"requestId": id, "timestamp": 10.0, "type": kind,
                              "request": {"url": format!("http://x/{id}"), "method": "GET"}});
            recorder.event(tab, None, "Network.requestWillBeSent", &sent, NOW);
        }
        assert_eq!(recorder.rendering_loads(7, NOW, 5_000), 2, "the image and the style sheet of tab 7");
        assert_eq!(recorder.rendering_loads(8, NOW, 5_000), 1);
        // Still loading after its response: what it shows is not in yet.
        recorder.event(
            7,
            None,
            "Network.responseReceived",
            &json!({"requestId": "1", "type": "Image", "response": {"status": 200}}),
            NOW,
        );
        assert_eq!(recorder.rendering_loads(7, NOW, 5_000), 2);
        recorder.event(7, None, "Network.loadingFinished", &json!({"requestId": "1", "encodedDataLength": 10}), NOW);
        recorder.event(7, None, "Network.loadingFailed", &json!({"requestId": "2", "canceled": true}), NOW);
        assert_eq!(recorder.rendering_loads(7, NOW, 5_000), 0);
        assert_eq!(recorder.rendering_loads(8, NOW + 5_001, 5_000), 0, "a load older than the age is not waited for");
    }

    #[test]
    fn a_request_is_recorded_when_its_response_arrives_and_gets_its_size_when_it_finishes() {
        let mut recorder = Recorder::default();
        send(&mut recorder, "1", "http://x/api/orders?page=2", NOW - 13);
        assert_eq!(
            respond(&mut recorder, "1", 500),
            Recorded::Answered {
                request: key("1"),
                entry: NetworkEntry {
                    method: "GET".into(),
                    url: "http://x/api/orders?page=2".into(),
                    status: 500,
                    error: None,
                    duration_ms: 13,
                    encoded_bytes: 0,
                    resource_type: Some("Fetch".into()),
                    time_ms: NOW,
                    tab: 7,
                },
            }
        );
        assert!(recorder.pending().is_empty(), "answered is not pending");
        let finished = json!({"requestId": "1", "timestamp": 10.5, "encodedDataLength": 321});
        assert_eq!(
            one(&mut recorder, "Network.loadingFinished", finished.clone()),
            Recorded::LoadEnded(LoadEnd { request: key("1"), outcome: LoadOutcome::Finished { encoded_bytes: 321 } })
        );
        assert!(recorder.event(7, None, "Network.loadingFinished", &finished, NOW).is_empty(), "a load ends once");
    }

    #[test]
    fn a_second_report_of_the_same_response_is_not_a_second_request() {
        let mut recorder = Recorder::default();
        send(&mut recorder, "1", "http://x/api", NOW);
        respond(&mut recorder, "1", 200);
        let again = json!({"requestId": "1", "timestamp": 10.02, "response": {"status": 200}});
        assert!(recorder.event(7, None, "Network.responseReceived", &again, NOW).is_empty());
    }

    #[test]
    fn a_body_that_fails_after_its_response_adds_the_error_and_a_cancelled_one_adds_nothing() {
        let mut recorder = Recorder::default();
        for id in ["1", "2"] {
            send(&mut recorder, id, "http://x/api/feed", NOW);
            respond(&mut recorder, id, 200);
        }
        assert_eq!(
            one(
                &mut recorder,
                "Network.loadingFailed",
                json!({"requestId": "1", "timestamp": 11.0, "errorText": "net::ERR_INCOMPLETE_CHUNKED_ENCODING"}),
            ),
            Recorded::LoadEnded(LoadEnd {
                request: key("1"),
                outcome: LoadOutcome::Failed { error: "net::ERR_INCOMPLETE_CHUNKED_ENCODING".into() },
            })
        );
        // The page read the status and aborted: the entry keeps its status, nothing failed.
        let cancelled = json!({"requestId": "2", "timestamp": 11.0, "errorText": "net::ERR_ABORTED", "canceled": true});
        assert!(recorder.event(7, None, "Network.loadingFailed", &cancelled, NOW).is_empty());
        assert!(recorder.requests.is_empty(), "both loads ended");
    }

    #[test]
    fn failed_requests_without_a_response_carry_the_error_and_cancelled_ones_are_not_failures() {
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
        assert_eq!(
            failed,
            NetworkEntry {
                method: "GET".into(),
                url: "http://nowhere.invalid/".into(),
                status: 0,
                error: Some("net::ERR_NAME_NOT_RESOLVED".into()),
                duration_ms: 3,
                encoded_bytes: 0,
                resource_type: None,
                time_ms: NOW,
                tab: 7,
            }
        );
        assert!(failed.failed());
        let cancelled = json!({"requestId": "2", "timestamp": 1.1, "errorText": "net::ERR_ABORTED", "canceled": true});
        assert!(recorder.event(7, None, "Network.loadingFailed", &cancelled, NOW).is_empty());
    }

    #[test]
    fn redirects_record_each_hop_and_the_last_hop_at_its_response() {
        let mut recorder = Recorder::default();
        let first = json!({"requestId": "9", "timestamp": 1.0, "request": {"url": "http://x/old", "method": "GET"}});
        recorder.event(7, None, "Network.requestWillBeSent", &first, NOW);
        let hop = network(one(
            &mut recorder,
            "Network.requestWillBeSent",
            json!({"requestId": "9", "timestamp": 1.002, "redirectResponse": {"status": 301, "encodedDataLength": 120},
                   "request": {"url": "http://x/new", "method": "GET"}}),
        ));
        assert_eq!((hop.url.as_str(), hop.status, hop.duration_ms, hop.encoded_bytes), ("http://x/old", 301, 2, 120));
        let Recorded::Answered { request, entry } = one(
            &mut recorder,
            "Network.responseReceived",
            json!({"requestId": "9", "timestamp": 1.005, "response": {"status": 200}}),
        ) else {
            panic!("the last hop is answered")
        };
        assert_eq!((request, entry.url.as_str(), entry.status, entry.duration_ms), (key("9"), "http://x/new", 200, 3));
    }

    #[test]
    fn data_urls_are_not_requests() {
        let mut recorder = Recorder::default();
        let data = json!({"requestId": "d", "timestamp": 1.0, "request": {"url": "data:image/png;base64,AAAA", "method": "GET"}});
        assert!(recorder.event(7, None, "Network.requestWillBeSent", &data, NOW).is_empty());
        assert!(recorder.pending().is_empty());
        assert!(recorder.event(7, None, "Network.loadingFinished", &json!({"requestId": "d"}), NOW).is_empty());
    }

    #[test]
    fn requests_waiting_for_their_response_are_pending_oldest_first() {
        let mut recorder = Recorder::default();
        send(&mut recorder, "late", "http://x/hang", NOW + 5);
        send(&mut recorder, "early", "http://x/poll", NOW);
        send(&mut recorder, "answered", "http://x/api", NOW + 1);
        respond(&mut recorder, "answered", 200);
        let child = json!({"requestId": "c", "timestamp": 1.0, "type": "XHR", "request": {"url": "http://ads/x", "method": "POST"}});
        recorder.event(8, Some("frame"), "Network.requestWillBeSent", &child, NOW + 2);
        let pending = |url: &str, kind: &str, method: &str, sent_ms: u64, tab: u32| PendingRequest {
            method: method.into(),
            url: url.into(),
            resource_type: Some(kind.into()),
            sent_ms,
            tab,
        };
        assert_eq!(
            recorder.pending(),
            vec![
                pending("http://x/poll", "Fetch", "GET", NOW, 7),
                pending("http://ads/x", "XHR", "POST", NOW + 2, 8),
                pending("http://x/hang", "Fetch", "GET", NOW + 5, 7),
            ]
        );
    }

    #[test]
    fn requests_in_flight_are_bounded() {
        let mut recorder = Recorder::default();
        for n in 0..(MAX_IN_FLIGHT + 10) {
            let sent = json!({"requestId": n.to_string(), "request": {"url": "http://x/poll", "method": "GET"}});
            recorder.event(7, None, "Network.requestWillBeSent", &sent, NOW + n as u64);
        }
        assert_eq!(recorder.requests.len(), MAX_IN_FLIGHT);
        assert!(!recorder.requests.contains_key(&key("0")));
    }

    #[test]
    fn past_the_bound_an_answered_request_is_forgotten_before_a_waiting_one() {
        let mut recorder = Recorder::default();
        send(&mut recorder, "waiting", "http://x/hang", NOW);
        for n in 1..MAX_IN_FLIGHT {
            send(&mut recorder, &n.to_string(), "http://x/api", NOW + n as u64);
        }
        respond(&mut recorder, "500", 200);
        send(&mut recorder, "new", "http://x/api", NOW + 5000);
        assert_eq!(recorder.requests.len(), MAX_IN_FLIGHT);
        assert!(recorder.requests.contains_key(&key("waiting")));
        assert!(!recorder.requests.contains_key(&key("500")), "the answered one went");
    }

    #[test]
    fn a_request_in_flight_is_held_with_its_secrets_masked_and_a_bounded_url() {
        let mut recorder = Recorder::default();
        let url = format!("https://a.test/poll?access_token=eyJabc&pad={}", "x".repeat(1_500_000));
        send(&mut recorder, "1", &url, NOW);
        let pending = recorder.pending();
        assert_eq!(pending.len(), 1);
        assert!(
            pending[0].url.starts_with("https://a.test/poll?access_token=••••••&pad=xx"),
            "{}",
            &pending[0].url[..60]
        );
        assert!(pending[0].url.len() <= crate::changes::MAX_RECORDED_TEXT);
    }
}
