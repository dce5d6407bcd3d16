//! Requests from CDP's `Network` domain: remembered while in flight, recorded once they finish
//! or fail, with method, URL, status, duration, size and resource type.
//!
//! Each hop of a redirect is one request. Requests the page cancelled are not failures, and
//! `data:` URLs are not requests. What is in flight is bounded by `MAX_IN_FLIGHT`, the oldest
//! forgotten first. Bodies are never read.

use serde_json::Value;

use super::{Recorded, Recorder, number, text};
use crate::changes::entries::NetworkEntry;

/// Requests remembered while in flight; past this the oldest is forgotten (a long poll that never
/// finishes must not grow memory).
const MAX_IN_FLIGHT: usize = 1000;

/// One request of one tab (or of one of its child sessions, an out-of-process frame).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct RequestKey {
    pub(super) tab: u32,
    pub(super) session: Option<String>,
    pub(super) id: String,
}

/// A request sent and not yet finished.
#[derive(Debug, Clone)]
pub(super) struct InFlight {
    method: String,
    url: String,
    /// CDP monotonic seconds when it was sent.
    started: f64,
    /// Epoch milliseconds when it was sent (for evicting the oldest).
    sent_ms: u64,
    resource_type: Option<String>,
    status: Option<u16>,
}

impl Recorder {
    /// What a `Network.*` request event amounts to.
    pub(super) fn network(&mut self, key: RequestKey, method: &str, params: &Value, now_ms: u64) -> Vec<Recorded> {
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

/// The CDP monotonic time of an event, in seconds.
fn seconds(params: &Value) -> f64 {
    number(&params["timestamp"]).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::{NOW, network, one};
    use super::*;

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
}
