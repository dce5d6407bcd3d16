//! What is known about each endpoint: its last status and a latency baseline.
//!
//! The book is updated as requests finish; a checkpoint copies its marks so a later report can
//! tell a new failure (the endpoint succeeded at the checkpoint) from one that was already
//! failing, an endpoint never seen before from a familiar one, and a slow response from a
//! normal one. The book is bounded: past its limit the endpoint seen least recently is
//! forgotten. It never reads a clock and never grows without bound.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::entries::{NetworkEntry, status_failed};

/// How many successful responses a baseline averages over before it settles into a moving
/// average (so one slow outlier moves it by at most a twentieth).
const BASELINE_WINDOW: u32 = 20;

/// What a checkpoint remembers about one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointMark {
    /// Last status seen (0: no response).
    pub status: u16,
    /// Typical duration of its successful responses, in milliseconds; absent when it never
    /// succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_ms: Option<u64>,
}

impl EndpointMark {
    /// Whether the endpoint was failing when marked.
    pub fn failing(&self) -> bool {
        status_failed(self.status)
    }
}

/// Endpoint key → what was known about it.
pub type EndpointMarks = BTreeMap<String, EndpointMark>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct EndpointStats {
    status: u16,
    /// Kept in microseconds, as an integer, so saved state restores exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    baseline_us: Option<u64>,
    #[serde(default)]
    samples: u32,
    #[serde(default)]
    last_seen: u64,
}

/// The live knowledge about endpoints, bounded to a number of endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EndpointBook {
    limit: usize,
    seen: u64,
    stats: BTreeMap<String, EndpointStats>,
}

impl EndpointBook {
    pub(crate) fn new(limit: usize) -> Self {
        EndpointBook { limit: limit.max(1), seen: 0, stats: BTreeMap::new() }
    }

    /// Learns from one finished or failed request to the endpoint `key`.
    pub(crate) fn observe(&mut self, key: String, entry: &NetworkEntry) {
        self.seen += 1;
        let seen = self.seen;
        let stats = self.stats.entry(key).or_insert(EndpointStats {
            status: entry.status,
            baseline_us: None,
            samples: 0,
            last_seen: seen,
        });
        stats.status = entry.status;
        stats.last_seen = seen;
        if !entry.failed() {
            let duration = i128::from(entry.duration_ms.saturating_mul(1000));
            stats.samples = stats.samples.saturating_add(1);
            let weight = i128::from(stats.samples.min(BASELINE_WINDOW));
            let baseline = match stats.baseline_us {
                None => duration,
                Some(baseline) => i128::from(baseline) + (duration - i128::from(baseline)) / weight,
            };
            stats.baseline_us = Some(u64::try_from(baseline.max(0)).unwrap_or(u64::MAX));
        }
        self.shrink_to_limit();
    }

    fn shrink_to_limit(&mut self) {
        while self.stats.len() > self.limit {
            let Some(stalest) = self.stats.iter().min_by_key(|(_, s)| s.last_seen).map(|(k, _)| k.clone()) else {
                return;
            };
            self.stats.remove(&stalest);
        }
    }

    /// A copy of what is known, for a checkpoint.
    pub(crate) fn marks(&self) -> EndpointMarks {
        self.stats
            .iter()
            .map(|(key, s)| {
                let baseline_ms = s.baseline_us.map(|us| us.saturating_add(500) / 1000);
                (key.clone(), EndpointMark { status: s.status, baseline_ms })
            })
            .collect()
    }

    pub(crate) fn repair(&mut self, limit: usize) {
        self.limit = limit.max(1);
        self.shrink_to_limit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(status: u16, duration_ms: u64) -> NetworkEntry {
        NetworkEntry {
            method: "GET".into(),
            url: "https://x/a".into(),
            status,
            error: None,
            duration_ms,
            encoded_bytes: 0,
            resource_type: None,
            time_ms: 0,
            tab: 1,
        }
    }

    #[test]
    fn baseline_averages_successes_and_ignores_failures() {
        let mut book = EndpointBook::new(10);
        book.observe("GET /a".into(), &request(200, 100));
        book.observe("GET /a".into(), &request(200, 300));
        book.observe("GET /a".into(), &request(500, 9000));
        assert_eq!(book.marks()["GET /a"], EndpointMark { status: 500, baseline_ms: Some(200) });
    }

    #[test]
    fn an_endpoint_that_never_succeeded_has_no_baseline() {
        let mut book = EndpointBook::new(10);
        book.observe("GET /a".into(), &request(0, 10));
        assert_eq!(book.marks()["GET /a"], EndpointMark { status: 0, baseline_ms: None });
    }

    #[test]
    fn the_least_recently_seen_endpoint_is_forgotten_first() {
        let mut book = EndpointBook::new(2);
        book.observe("GET /a".into(), &request(200, 1));
        book.observe("GET /b".into(), &request(200, 1));
        book.observe("GET /a".into(), &request(200, 1));
        book.observe("GET /c".into(), &request(200, 1));
        assert_eq!(book.marks().keys().cloned().collect::<Vec<_>>(), vec!["GET /a", "GET /c"]);
    }
}
