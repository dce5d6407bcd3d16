//! Before and after screenshots of the agent's actions, for the panel only: small JPEGs of the
//! viewport with the action's target outlined, kept per tab and bounded in count and bytes (the
//! oldest go first). They are never part of an agent's answer.
//!
//! The runtime takes them (only while the panel is open for the tab) and hands them in; this
//! module only keeps them.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

/// Most pairs kept per tab.
pub const MAX_PAIRS_PER_TAB: usize = 30;
/// Most bytes of images kept in all.
pub const MAX_SHOT_BYTES: usize = 8 * 1024 * 1024;

/// One screenshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shot {
    /// The JPEG, base64.
    pub jpeg_base64: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The action's target as `[x, y, width, height]` in the image's pixels, when it was on the
    /// page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline: Option<[f64; 4]>,
}

/// The screenshots around one call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShotPair {
    /// The call's number on its tab (as in the session log).
    pub seq: u64,
    /// Before the action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Shot>,
    /// After it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Shot>,
}

impl ShotPair {
    fn bytes(&self) -> usize {
        [&self.before, &self.after].iter().filter_map(|s| s.as_ref()).map(|s| s.jpeg_base64.len()).sum()
    }
}

/// Every tab's pairs.
#[derive(Debug, Default)]
pub struct ShotStore {
    tabs: BTreeMap<i32, VecDeque<ShotPair>>,
    bytes: usize,
}

impl ShotStore {
    /// Keeps `pair` for `tab`, dropping the oldest (of this tab, then of any) past the bounds. A
    /// pair larger than the whole budget is not kept.
    pub fn keep(&mut self, tab: i32, pair: ShotPair) {
        if pair.bytes() > MAX_SHOT_BYTES {
            return;
        }
        self.bytes += pair.bytes();
        let pairs = self.tabs.entry(tab).or_default();
        pairs.push_back(pair);
        while pairs.len() > MAX_PAIRS_PER_TAB {
            if let Some(old) = pairs.pop_front() {
                self.bytes -= old.bytes();
            }
        }
        while self.bytes > MAX_SHOT_BYTES {
            let oldest = self
                .tabs
                .iter()
                .filter_map(|(tab, pairs)| pairs.front().map(|p| (p.seq, *tab)))
                .min_by_key(|(seq, _)| *seq)
                .map(|(_, tab)| tab);
            let Some(old) = oldest.and_then(|t| self.tabs.get_mut(&t)).and_then(VecDeque::pop_front) else { break };
            self.bytes -= old.bytes();
        }
    }

    /// The pair of call `seq` on `tab`.
    pub fn get(&self, tab: i32, seq: u64) -> Option<&ShotPair> {
        self.tabs.get(&tab)?.iter().find(|p| p.seq == seq)
    }

    /// The calls of `tab` that have screenshots.
    pub fn seqs(&self, tab: i32) -> Vec<u64> {
        self.tabs.get(&tab).map(|pairs| pairs.iter().map(|p| p.seq).collect()).unwrap_or_default()
    }

    /// Bytes of images kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets `tab`'s screenshots.
    pub fn forget_tab(&mut self, tab: i32) {
        if let Some(pairs) = self.tabs.remove(&tab) {
            self.bytes -= pairs.iter().map(ShotPair::bytes).sum::<usize>();
        }
    }

    /// Forgets every screenshot.
    pub fn clear(&mut self) {
        self.tabs.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(seq: u64, bytes: usize) -> ShotPair {
        let shot = Shot { jpeg_base64: "x".repeat(bytes / 2), width: 320, height: 200, outline: None };
        ShotPair { seq, before: Some(shot.clone()), after: Some(shot) }
    }

    #[test]
    fn pairs_are_bounded_per_tab_and_in_bytes_dropping_the_oldest() {
        let mut store = ShotStore::default();
        for seq in 1..=(MAX_PAIRS_PER_TAB as u64 + 3) {
            store.keep(1, pair(seq, 1000));
        }
        assert_eq!(store.seqs(1).len(), MAX_PAIRS_PER_TAB);
        assert_eq!(store.seqs(1).first(), Some(&4));
        assert_eq!(store.bytes(), MAX_PAIRS_PER_TAB * 1000);
        let big = MAX_SHOT_BYTES / 3;
        for seq in 100..104 {
            store.keep(2, pair(seq, big));
        }
        assert!(store.bytes() <= MAX_SHOT_BYTES, "{}", store.bytes());
        assert!(store.seqs(1).is_empty(), "the oldest pairs went first");
        assert_eq!(store.get(2, 103).map(|p| p.seq), Some(103));
        store.keep(3, pair(200, MAX_SHOT_BYTES + 2));
        assert!(store.seqs(3).is_empty(), "a pair over the whole budget is not kept");
        store.forget_tab(2);
        assert_eq!(store.bytes(), 0);
    }
}
