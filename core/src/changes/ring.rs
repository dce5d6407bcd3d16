//! A bounded ring buffer whose entries keep absolute positions.
//!
//! Every entry ever pushed gets the next position (0, 1, 2, …); the ring holds only the newest
//! `capacity` of them. A checkpoint remembers a position, and reading "from position p" later
//! says how many entries past p were evicted in between, so a report can be honest about what it
//! could not show. An entry still held can be amended in place (a request's size arriving after
//! it was recorded) without moving. The ring never grows past its capacity and never panics on a
//! stale, future or corrupted position.

use std::collections::VecDeque;
use std::collections::vec_deque;

use serde::{Deserialize, Serialize};

/// A bounded buffer of entries with absolute positions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ring<T> {
    capacity: usize,
    /// Position of `entries[0]`: how many entries were evicted before it.
    first: u64,
    entries: VecDeque<T>,
}

/// The entries of a ring from a position onwards.
#[derive(Debug, Clone)]
pub struct Since<'a, T> {
    /// Entries at or after the asked position that were evicted before this read.
    pub lost: u64,
    /// Position of the first entry `entries` yields.
    pub start: u64,
    /// The entries still held, oldest first.
    pub entries: vec_deque::Iter<'a, T>,
}

impl<T> Ring<T> {
    /// An empty ring holding at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Ring { capacity, first: 0, entries: VecDeque::with_capacity(capacity.min(4096)) }
    }

    /// How many entries the ring holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many entries the ring holds now.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the ring holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Position of the oldest entry still held (equal to [`Ring::next_position`] when empty).
    pub fn oldest_position(&self) -> u64 {
        self.first
    }

    /// Position the next pushed entry will get.
    pub fn next_position(&self) -> u64 {
        self.first.saturating_add(self.entries.len() as u64)
    }

    /// Appends an entry; returns the entry evicted to make room, if any.
    pub fn push(&mut self, entry: T) -> Option<T> {
        let evicted = if self.entries.len() >= self.capacity {
            self.first = self.first.saturating_add(1);
            self.entries.pop_front()
        } else {
            None
        };
        self.entries.push_back(entry);
        evicted
    }

    /// The entry at an absolute position, if still held.
    pub fn get(&self, position: u64) -> Option<&T> {
        let offset = position.checked_sub(self.first)?;
        self.entries.get(usize::try_from(offset).ok()?)
    }

    /// The entry at an absolute position, if still held, to amend in place.
    pub(crate) fn get_mut(&mut self, position: u64) -> Option<&mut T> {
        let offset = position.checked_sub(self.first)?;
        self.entries.get_mut(usize::try_from(offset).ok()?)
    }

    /// Entries at `position` and after. A position older than the oldest entry held yields
    /// everything held and counts the gap as lost; a position in the future yields nothing.
    pub fn since(&self, position: u64) -> Since<'_, T> {
        let next = self.next_position();
        let position = position.min(next);
        let lost = self.first.saturating_sub(position);
        let skip = usize::try_from(position.saturating_sub(self.first)).unwrap_or(usize::MAX).min(self.entries.len());
        Since { lost, start: self.first + skip as u64, entries: self.entries.range(skip..) }
    }

    /// Every entry held, oldest first.
    pub fn iter(&self) -> vec_deque::Iter<'_, T> {
        self.entries.iter()
    }

    /// Drops every entry held, keeping positions: the next entry gets the position it would
    /// have had, and a read from an older position counts what was dropped as lost. Returns how
    /// many were dropped.
    pub fn forget_all(&mut self) -> usize {
        let dropped = self.entries.len();
        self.first = self.next_position();
        self.entries.clear();
        dropped
    }

    /// Holds at most `capacity` entries (at least one) from now on; the oldest entries past it
    /// are evicted, positions kept, and returned oldest first.
    pub fn resize(&mut self, capacity: usize) -> Vec<T> {
        self.capacity = capacity.max(1);
        self.evict_oldest(self.entries.len().saturating_sub(self.capacity))
    }

    /// Evicts the `count` oldest entries (all of them when it holds fewer), keeping positions
    /// and capacity, and returns them oldest first.
    pub(crate) fn evict_oldest(&mut self, count: usize) -> Vec<T> {
        let count = count.min(self.entries.len());
        self.first = self.first.saturating_add(count as u64);
        self.entries.drain(..count).collect()
    }

    /// Brings a ring read from storage back within its invariants: a capacity of at least one
    /// (or `capacity` when given), no more entries than that, positions that do not overflow.
    pub(crate) fn repair(&mut self, capacity: Option<usize>) {
        self.capacity = capacity.unwrap_or(self.capacity).max(1);
        while self.entries.len() > self.capacity {
            self.entries.pop_front();
            self.first = self.first.saturating_add(1);
        }
        let room = u64::MAX - self.first;
        if self.entries.len() as u64 > room {
            self.entries.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgetting_keeps_positions_and_counts_what_was_dropped_as_lost() {
        let mut ring = Ring::new(4);
        for i in 0..3 {
            ring.push(i);
        }
        assert_eq!(ring.forget_all(), 3);
        assert!(ring.is_empty());
        assert_eq!(ring.next_position(), 3);
        ring.push(9);
        let since = ring.since(1);
        assert_eq!((since.lost, since.start), (2, 3));
        assert_eq!(since.entries.copied().collect::<Vec<_>>(), [9]);
    }

    fn ring_of(capacity: usize, items: impl IntoIterator<Item = u32>) -> Ring<u32> {
        let mut ring = Ring::new(capacity);
        for item in items {
            ring.push(item);
        }
        ring
    }

    #[test]
    fn positions_keep_counting_after_eviction() {
        let ring = ring_of(3, 0..5);
        assert_eq!((ring.oldest_position(), ring.next_position(), ring.len()), (2, 5, 3));
        assert_eq!(ring.get(1), None);
        assert_eq!(ring.get(2), Some(&2));
        assert_eq!(ring.get(4), Some(&4));
        assert_eq!(ring.get(5), None);
    }

    #[test]
    fn reading_from_an_evicted_position_reports_the_gap() {
        let ring = ring_of(3, 0..5);
        let since = ring.since(0);
        assert_eq!((since.lost, since.start), (2, 2));
        assert_eq!(since.entries.copied().collect::<Vec<_>>(), vec![2, 3, 4]);
    }

    #[test]
    fn reading_from_a_held_position_loses_nothing() {
        let ring = ring_of(3, 0..5);
        let since = ring.since(3);
        assert_eq!((since.lost, since.start), (0, 3));
        assert_eq!(since.entries.copied().collect::<Vec<_>>(), vec![3, 4]);
    }

    #[test]
    fn reading_from_the_future_yields_nothing() {
        let ring = ring_of(3, 0..5);
        let since = ring.since(u64::MAX);
        assert_eq!((since.lost, since.start, since.entries.count()), (0, 5, 0));
    }

    #[test]
    fn push_returns_the_evicted_entry() {
        let mut ring = ring_of(2, 0..2);
        assert_eq!(ring.push(9), Some(0));
        assert_eq!(ring.iter().copied().collect::<Vec<_>>(), vec![1, 9]);
    }

    #[test]
    fn resizing_evicts_the_oldest_past_the_new_capacity_and_keeps_positions() {
        let mut ring = ring_of(5, 0..5);
        assert_eq!(ring.resize(2), vec![0, 1, 2]);
        assert_eq!((ring.oldest_position(), ring.next_position()), (3, 5));
        assert_eq!(ring.since(0).lost, 3);
        assert!(ring.resize(4).is_empty(), "growing evicts nothing");
        for i in 5..9 {
            ring.push(i);
        }
        assert_eq!(ring.iter().copied().collect::<Vec<_>>(), vec![5, 6, 7, 8]);
    }

    #[test]
    fn zero_capacity_holds_one() {
        let ring = ring_of(0, 0..3);
        assert_eq!((ring.capacity(), ring.iter().copied().collect::<Vec<_>>()), (1, vec![2]));
    }

    #[test]
    fn an_entry_still_held_is_amended_in_place_and_an_evicted_one_is_not() {
        let mut ring = ring_of(3, 0..5);
        *ring.get_mut(3).unwrap() += 10;
        assert_eq!(ring.get_mut(1), None);
        assert_eq!(ring.get_mut(5), None);
        assert_eq!(ring.iter().copied().collect::<Vec<_>>(), vec![2, 13, 4]);
        assert_eq!((ring.oldest_position(), ring.next_position()), (2, 5));
    }

    #[test]
    fn repair_shrinks_to_a_new_capacity_and_keeps_positions() {
        let mut ring = ring_of(10, 0..6);
        ring.repair(Some(4));
        assert_eq!((ring.oldest_position(), ring.next_position()), (2, 6));
    }
}
