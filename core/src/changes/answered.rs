//! Requests answered but still loading: which recorded entry the end of a load belongs to.
//!
//! A request is recorded as soon as its response arrives (status, time to the response); its
//! body may finish loading much later, or never (a page that reads `response.status` and never
//! the body). When the load does end, its size (or the error that cut it short) is added to the
//! entry already recorded, as an update, never as a second entry. This module remembers, for
//! each answered request, the ring position of its entry, and only while the network ring still
//! holds that entry: it never holds more than the ring does. It records nothing itself and never
//! reads a clock.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::entries::bound_text;

/// Longest request id or session id kept, in characters (CDP's are a few dozen).
const MAX_ID_CHARS: usize = 128;

/// One request of one tab: the tab, the child session it came through (an out-of-process
/// frame) and CDP's request id, which every event of the request carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RequestId {
    /// Browser tab id.
    pub tab: u32,
    /// The child session, for a request of an out-of-process frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// CDP's `requestId`.
    pub id: String,
}

/// How the load of an answered request ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum LoadOutcome {
    /// The body arrived whole (`Network.loadingFinished`).
    Finished {
        /// Bytes received on the wire, headers included.
        encoded_bytes: u64,
    },
    /// The body failed after the response arrived (`Network.loadingFailed`, not cancelled).
    Failed {
        /// Failure text such as `net::ERR_INCOMPLETE_CHUNKED_ENCODING`.
        error: String,
    },
}

/// The end of an answered request's load, to add to the entry recorded at its response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadEnd {
    /// Which request.
    pub request: RequestId,
    /// How its load ended.
    pub outcome: LoadOutcome,
}

/// Answered requests whose load has not ended, each with the ring position of its entry,
/// oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AnsweredRequests {
    open: VecDeque<(RequestId, u64)>,
}

impl AnsweredRequests {
    /// Remembers that `request`'s entry is at `position`, forgetting what the ring no longer
    /// holds (positions before `oldest`).
    pub(crate) fn note(&mut self, mut request: RequestId, position: u64, oldest: u64) {
        bound_text(&mut request.id, MAX_ID_CHARS);
        if let Some(session) = &mut request.session {
            bound_text(session, MAX_ID_CHARS);
        }
        self.open.retain(|(open, _)| *open != request);
        self.forget_before(oldest);
        self.open.push_back((request, position));
    }

    /// The position of `request`'s entry, forgotten from now on (a load ends once).
    pub(crate) fn take(&mut self, request: &RequestId) -> Option<u64> {
        let index = self.open.iter().rposition(|(open, _)| open == request)?;
        self.open.remove(index).map(|(_, position)| position)
    }

    /// How many answered requests are remembered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }

    /// Forgets entries before `oldest`, which the ring has evicted.
    fn forget_before(&mut self, oldest: u64) {
        while self.open.front().is_some_and(|(_, position)| *position < oldest) {
            self.open.pop_front();
        }
    }

    /// Brings what was read from storage back within the ring's positions `oldest..next`.
    pub(crate) fn repair(&mut self, oldest: u64, next: u64) {
        self.open.retain(|(_, position)| (oldest..next).contains(position));
        self.open.make_contiguous().sort_by_key(|(_, position)| *position);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> RequestId {
        RequestId { tab: 7, session: None, id: id.into() }
    }

    #[test]
    fn an_answered_request_is_found_once() {
        let mut answered = AnsweredRequests::default();
        answered.note(request("1"), 4, 0);
        answered.note(RequestId { session: Some("child".into()), ..request("1") }, 5, 0);
        assert_eq!(answered.take(&request("1")), Some(4));
        assert_eq!(answered.take(&request("1")), None);
        assert_eq!(answered.take(&RequestId { session: Some("child".into()), ..request("1") }), Some(5));
    }

    #[test]
    fn what_the_ring_evicted_is_forgotten() {
        let mut answered = AnsweredRequests::default();
        for (n, id) in ["a", "b", "c"].into_iter().enumerate() {
            answered.note(request(id), n as u64, 0);
        }
        answered.note(request("d"), 3, 2);
        assert_eq!(answered.len(), 2);
        assert_eq!(answered.take(&request("a")), None);
        assert_eq!(answered.take(&request("c")), Some(2));
    }

    #[test]
    fn repair_keeps_only_positions_the_ring_holds() {
        let mut answered = AnsweredRequests::default();
        for (n, id) in ["a", "b", "c", "d"].into_iter().enumerate() {
            answered.note(request(id), n as u64 * 10, 0);
        }
        answered.repair(10, 25);
        assert_eq!(answered.len(), 2);
        assert_eq!((answered.take(&request("b")), answered.take(&request("c"))), (Some(10), Some(20)));
    }
}
