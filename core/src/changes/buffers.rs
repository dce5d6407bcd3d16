//! The recorded events: four bounded rings (console, network, WebSocket, actions) and what is
//! learned as events arrive (endpoint statuses and latencies, the page URL, the time of the
//! newest evicted entry of each ring, which held requests may still get their size).
//!
//! This is the half of a timeline that events write to; checkpoints only ever read it. It
//! holds the noise rules too, since they are applied while reading it. It never reads a clock.

use serde::{Deserialize, Serialize};

use super::answered::{AnsweredRequests, LoadEnd, LoadOutcome, RequestId};
use super::endpoints::EndpointBook;
use super::entries::{ActionEntry, ConsoleEntry, NetworkEntry, WebSocketEvent};
use super::escaped_len;
use super::fingerprint::endpoint_key;
use super::noise::NoiseRules;
use super::pauses::PauseLog;
use super::ring::Ring;
use crate::permissions::classes::host_of;
use crate::permissions::{Level, Policy};

/// How much a timeline keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Console entries kept.
    pub console: usize,
    /// Network entries kept.
    pub network: usize,
    /// WebSocket events kept.
    pub websocket: usize,
    /// Actions kept.
    pub actions: usize,
    /// Endpoints whose status and latency are remembered.
    pub endpoints: usize,
    /// MCP sessions whose automatic checkpoint and response cursor are kept.
    pub sessions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { console: 1000, network: 500, websocket: 1000, actions: 200, endpoints: 200, sessions: 32 }
    }
}

/// A position in each ring: entries at or after it are "after" the moment it was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Positions {
    /// Console ring position.
    pub console: u64,
    /// Network ring position.
    pub network: u64,
    /// WebSocket ring position.
    pub websocket: u64,
    /// Actions ring position.
    pub actions: u64,
}

/// The newest timestamp among the entries each ring has evicted, in epoch milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EvictedTimes {
    pub(crate) console: Option<u64>,
    pub(crate) network: Option<u64>,
    pub(crate) websocket: Option<u64>,
    pub(crate) actions: Option<u64>,
}

fn note_eviction(newest: &mut Option<u64>, evicted_time: Option<u64>) {
    if let Some(time) = evicted_time {
        *newest = Some(newest.map_or(time, |t| t.max(time)));
    }
}

/// Notes `evicted` (entries a ring let go, oldest first) in `newest`.
fn note_evictions<T: Stamped>(evicted: Vec<T>, newest: &mut Option<u64>) {
    for entry in evicted {
        note_eviction(newest, Some(entry.time_ms()));
    }
}

/// Access to the time and tab of any recorded entry.
pub(crate) trait Stamped {
    fn time_ms(&self) -> u64;
    fn tab(&self) -> u32;
    /// The URL the entry was recorded on, when it carries one: a console message's source, a
    /// request's or a socket's URL, the page an action happened on.
    fn url(&self) -> Option<&str>;
}

macro_rules! stamped {
    ($($entry:ty => $url:expr),*) => {$(
        impl Stamped for $entry {
            fn time_ms(&self) -> u64 {
                self.time_ms
            }
            fn tab(&self) -> u32 {
                self.tab
            }
            fn url(&self) -> Option<&str> {
                let url: fn(&$entry) -> Option<&str> = $url;
                url(self)
            }
        }
    )*};
}
stamped!(
    ConsoleEntry => |e| e.source.as_ref().map(|s| s.url.as_str()),
    NetworkEntry => |e| Some(e.url.as_str()),
    WebSocketEvent => |e| Some(e.url.as_str()),
    ActionEntry => |e| e.url.as_deref()
);

/// The four rings and what is learned while filling them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Buffers {
    pub(crate) limits: Limits,
    pub(crate) console: Ring<ConsoleEntry>,
    pub(crate) network: Ring<NetworkEntry>,
    pub(crate) websocket: Ring<WebSocketEvent>,
    pub(crate) actions: Ring<ActionEntry>,
    pub(crate) endpoints: EndpointBook,
    pub(crate) noise: NoiseRules,
    pub(crate) page_url: Option<String>,
    pub(crate) evicted: EvictedTimes,
    /// Requests recorded at their response whose load has not ended yet. Absent from state
    /// saved before requests were recorded at their response, hence the default.
    #[serde(default)]
    pub(crate) answered: AnsweredRequests,
    /// The consoles paused because they flooded, kept apart from the console ring the flood
    /// churns. Absent from state saved before they were kept, hence the default.
    #[serde(default)]
    pub(crate) pauses: PauseLog,
    /// The tabs whose entries may be read now (`None`: all). Set by whoever knows which tabs the
    /// agent may still use, never saved: a tab unshared or closed is no longer readable.
    #[serde(skip)]
    pub(crate) readable: Option<std::collections::BTreeSet<u32>>,
    /// The person's rules, when entries recorded on a site of no access must be kept out of
    /// every read (`None`: none are). Set for each read, never saved.
    #[serde(skip)]
    pub(crate) no_access: Option<Policy>,
}

impl Buffers {
    pub(crate) fn new(limits: Limits) -> Self {
        Buffers {
            limits,
            console: Ring::new(limits.console),
            network: Ring::new(limits.network),
            websocket: Ring::new(limits.websocket),
            actions: Ring::new(limits.actions),
            endpoints: EndpointBook::new(limits.endpoints),
            noise: NoiseRules::default(),
            page_url: None,
            evicted: EvictedTimes::default(),
            answered: AnsweredRequests::default(),
            pauses: PauseLog::default(),
            readable: None,
            no_access: None,
        }
    }

    /// Whether entries of `tab` may be read now.
    pub(crate) fn readable(&self, tab: u32) -> bool {
        self.readable.as_ref().is_none_or(|tabs| tabs.contains(&tab))
    }

    /// Whether an entry of `tab` recorded on `url` may be read now: its tab is readable, and
    /// the URL is not on a site the person gave agents no access to.
    pub(crate) fn readable_at(&self, tab: u32, url: Option<&str>) -> bool {
        let off_limits = |url: &str| {
            let host = host_of(url);
            host.is_some_and(|host| self.no_access.as_ref().is_some_and(|p| p.level_for(&host) == Level::NoAccess))
        };
        self.readable(tab) && !url.is_some_and(off_limits)
    }

    /// [`Buffers::readable_at`] for an entry of a ring.
    pub(crate) fn readable_entry<T: Stamped>(&self, entry: &T) -> bool {
        self.readable_at(entry.tab(), entry.url())
    }

    /// The position each ring's next entry will get: "now".
    pub(crate) fn positions(&self) -> Positions {
        Positions {
            console: self.console.next_position(),
            network: self.network.next_position(),
            websocket: self.websocket.next_position(),
            actions: self.actions.next_position(),
        }
    }

    /// The earliest timestamp still held in any ring.
    pub(crate) fn earliest_time(&self) -> Option<u64> {
        [
            self.console.iter().next().map(Stamped::time_ms),
            self.network.iter().next().map(Stamped::time_ms),
            self.websocket.iter().next().map(Stamped::time_ms),
            self.actions.iter().next().map(Stamped::time_ms),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub(crate) fn record_console(&mut self, mut entry: ConsoleEntry) {
        entry.bound();
        let evicted = self.console.push(entry);
        note_eviction(&mut self.evicted.console, evicted.map(|e| e.time_ms));
    }

    pub(crate) fn record_network(&mut self, mut entry: NetworkEntry) {
        entry.bound();
        if !self.noise.is_request_noise(&entry) {
            self.endpoints.observe(endpoint_key(&entry.method, &entry.url), &entry);
        }
        let evicted = self.network.push(entry);
        note_eviction(&mut self.evicted.network, evicted.map(|e| e.time_ms));
    }

    /// Records a request whose response just arrived; [`Buffers::end_load`] may amend it.
    pub(crate) fn record_answered(&mut self, request: RequestId, entry: NetworkEntry) {
        let position = self.network.next_position();
        self.record_network(entry);
        self.answered.note(request, position, self.network.oldest_position());
    }

    /// Adds how an answered request's load ended to its entry; `false` when the entry is no
    /// longer held (or was never recorded).
    pub(crate) fn end_load(&mut self, end: LoadEnd) -> bool {
        let Some(position) = self.answered.take(&end.request) else { return false };
        let Some(entry) = self.network.get_mut(position) else { return false };
        match end.outcome {
            LoadOutcome::Finished { encoded_bytes } => entry.encoded_bytes = encoded_bytes,
            LoadOutcome::Failed { error } => entry.error = Some(error),
        }
        entry.bound();
        true
    }

    pub(crate) fn record_websocket(&mut self, mut event: WebSocketEvent) {
        event.bound();
        let evicted = self.websocket.push(event);
        note_eviction(&mut self.evicted.websocket, evicted.map(|e| e.time_ms));
    }

    pub(crate) fn record_action(&mut self, mut action: ActionEntry) {
        action.bound();
        if let Some(url) = &action.url {
            self.page_url = Some(url.clone());
        }
        let evicted = self.actions.push(action);
        note_eviction(&mut self.evicted.actions, evicted.map(|e| e.time_ms));
    }

    /// Drops every entry of the four rings (positions kept); returns how many were dropped.
    pub(crate) fn forget_entries(&mut self) -> usize {
        let dropped = self.console.forget_all()
            + self.network.forget_all()
            + self.websocket.forget_all()
            + self.actions.forget_all();
        self.answered.repair(self.network.oldest_position(), self.network.next_position());
        self.pauses.clear();
        dropped
    }

    /// Evicts the oldest entries of the four rings, oldest first whatever their ring, until what
    /// they add to the stored state ([`escaped_len`] of each, and its comma) comes to at least
    /// `excess` bytes; returns how many were evicted. They are noted as evicted, as when new
    /// entries push them out, so a report over them counts them as lost. Only the entries shed
    /// are serialised to weigh them.
    pub(crate) fn shed_oldest(&mut self, excess: usize) -> usize {
        fn time_at<T: Stamped>(ring: &Ring<T>, offset: usize) -> Option<u64> {
            ring.get(ring.oldest_position() + offset as u64).map(Stamped::time_ms)
        }
        fn weight_at<T: Serialize>(ring: &Ring<T>, offset: usize) -> usize {
            let entry = ring.get(ring.oldest_position() + offset as u64);
            entry.and_then(|e| serde_json::to_string(e).ok()).map_or(0, |text| escaped_len(&text) + 1)
        }
        let mut taken = [0usize; 4];
        let mut shed = 0;
        while shed < excess {
            let heads = [
                time_at(&self.console, taken[0]),
                time_at(&self.network, taken[1]),
                time_at(&self.websocket, taken[2]),
                time_at(&self.actions, taken[3]),
            ];
            // The ring whose oldest entry not yet taken is the oldest of all.
            let Some(ring) = (0..4).filter(|&r| heads[r].is_some()).min_by_key(|&r| heads[r]) else { break };
            shed += match ring {
                0 => weight_at(&self.console, taken[0]),
                1 => weight_at(&self.network, taken[1]),
                2 => weight_at(&self.websocket, taken[2]),
                _ => weight_at(&self.actions, taken[3]),
            };
            taken[ring] += 1;
        }
        note_evictions(self.console.evict_oldest(taken[0]), &mut self.evicted.console);
        note_evictions(self.network.evict_oldest(taken[1]), &mut self.evicted.network);
        note_evictions(self.websocket.evict_oldest(taken[2]), &mut self.evicted.websocket);
        note_evictions(self.actions.evict_oldest(taken[3]), &mut self.evicted.actions);
        self.answered.repair(self.network.oldest_position(), self.network.next_position());
        taken.iter().sum()
    }

    /// Keeps at most `limits` from now on: rings past their new capacity lose their oldest
    /// entries (noted as evicted, as when new entries push them out).
    pub(crate) fn resize(&mut self, limits: Limits) {
        note_evictions(self.console.resize(limits.console), &mut self.evicted.console);
        note_evictions(self.network.resize(limits.network), &mut self.evicted.network);
        note_evictions(self.websocket.resize(limits.websocket), &mut self.evicted.websocket);
        note_evictions(self.actions.resize(limits.actions), &mut self.evicted.actions);
        self.endpoints.repair(limits.endpoints);
        self.answered.repair(self.network.oldest_position(), self.network.next_position());
        self.limits = limits;
    }

    /// Brings buffers read from storage back within `limits`.
    pub(crate) fn repair(&mut self, limits: Limits) {
        self.limits = limits;
        self.console.repair(Some(limits.console));
        self.network.repair(Some(limits.network));
        self.websocket.repair(Some(limits.websocket));
        self.actions.repair(Some(limits.actions));
        self.endpoints.repair(limits.endpoints);
        self.answered.repair(self.network.oldest_position(), self.network.next_position());
    }
}
