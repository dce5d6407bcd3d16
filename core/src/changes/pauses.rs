//! Consoles whose recording was paused because they flooded: which, when, why, and what was
//! dropped meanwhile.
//!
//! The extension's flood guard turns a flooding console off for a while: a tab's page, or one of
//! its out-of-process frames (each a target of its own), apart from the others. Messages that
//! still reach it during the pause are dropped, not recorded. The pauses are kept here, apart from
//! the console ring: the flood itself churns that ring, and a note kept in it would soon be
//! evicted. A change report says which consoles were paused during its window and what they
//! dropped; the console listing says the same of the pauses held. At most [`MAX_PAUSES`] are kept,
//! the newest.
//!
//! Counts are of what reached the extension: while a console is off the browser does not send
//! what the page logs, so nobody counts it.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::entries::recorded_url;
use super::iso_time::format_iso;
use crate::text::thousands;

/// Pauses kept, the newest.
pub const MAX_PAUSES: usize = 64;
/// Pauses a console listing shows, the newest.
const LISTED_PAUSES: usize = 10;

/// One console paused because it flooded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsolePause {
    /// Tab id.
    pub tab: u32,
    /// The out-of-process frame whose console it is (its URL, empty while it is not known yet);
    /// `None`: the page's own console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Why, e.g. `it logged more than 1,000 messages within a second`.
    pub reason: String,
    /// When recording stopped (epoch ms).
    pub from_ms: u64,
    /// When recording resumed, or is due to (epoch ms).
    pub until_ms: u64,
    /// Whether recording has resumed.
    #[serde(default)]
    pub resumed: bool,
    /// Messages (console calls, exceptions, log entries) that reached the extension during the
    /// pause and were dropped.
    #[serde(default)]
    pub dropped: u64,
    /// The characters of text those messages held.
    #[serde(default)]
    pub dropped_characters: u64,
}

/// A paused console as a change report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PausedConsole {
    /// Tab id.
    pub tab: u32,
    /// The out-of-process frame whose console it is (its URL); absent: the page's own console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Why it was paused.
    pub reason: String,
    /// When recording stopped (ISO 8601).
    pub from: String,
    /// When recording resumed, or is due to (ISO 8601).
    pub until: String,
    /// Whether recording has resumed.
    pub resumed: bool,
    /// Messages dropped during the pause.
    pub dropped_messages: u64,
    /// The characters of text they held.
    pub dropped_characters: u64,
}

/// The newest pauses, each with the id the extension updates it by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PauseLog {
    pauses: VecDeque<(u64, ConsolePause)>,
    next_id: u64,
}

impl PauseLog {
    /// Keeps `pause` (its frame URL with secrets masked); returns its id.
    pub(crate) fn start(&mut self, mut pause: ConsolePause) -> u64 {
        pause.frame = pause.frame.map(|url| recorded_url(&url));
        self.next_id += 1;
        self.pauses.push_back((self.next_id, pause));
        while self.pauses.len() > MAX_PAUSES {
            self.pauses.pop_front();
        }
        self.next_id
    }

    fn get_mut(&mut self, id: u64) -> Option<&mut ConsolePause> {
        self.pauses.iter_mut().rev().find(|(i, _)| *i == id).map(|(_, p)| p)
    }

    /// Adds what pause `id` dropped (nothing when it is no longer kept).
    pub(crate) fn dropped(&mut self, id: u64, messages: u64, characters: u64) {
        if let Some(pause) = self.get_mut(id) {
            pause.dropped = pause.dropped.saturating_add(messages);
            pause.dropped_characters = pause.dropped_characters.saturating_add(characters);
        }
    }

    /// The frame of pause `id`, whose URL was not known when it began, is at `url`.
    pub(crate) fn frame_known(&mut self, id: u64, url: &str) {
        if let Some(frame) = self.get_mut(id).and_then(|p| p.frame.as_mut())
            && frame.is_empty()
        {
            *frame = recorded_url(url);
        }
    }

    /// Pause `id` ended at `at_ms`.
    pub(crate) fn resumed(&mut self, id: u64, at_ms: u64) {
        if let Some(pause) = self.get_mut(id) {
            pause.until_ms = at_ms;
            pause.resumed = true;
        }
    }

    /// Forgets every pause (the person asked to forget what was recorded).
    pub(crate) fn clear(&mut self) {
        self.pauses.clear();
    }

    /// The pauses kept, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &ConsolePause> {
        self.pauses.iter().map(|(_, p)| p)
    }

    /// The pauses that overlap a window starting at `from_ms`, of the tabs `wanted` accepts, as a
    /// report lists them.
    pub(crate) fn in_window(&self, from_ms: u64, wanted: impl Fn(u32) -> bool) -> Vec<PausedConsole> {
        self.iter()
            .filter(|p| (!p.resumed || p.until_ms > from_ms) && wanted(p.tab))
            .map(|p| PausedConsole {
                tab: p.tab,
                frame: p.frame.clone(),
                reason: p.reason.clone(),
                from: format_iso(p.from_ms),
                until: format_iso(p.until_ms),
                resumed: p.resumed,
                dropped_messages: p.dropped,
                dropped_characters: p.dropped_characters,
            })
            .collect()
    }
}

/// The lines a console listing ends with when consoles were paused: the newest pauses of the
/// tabs `wanted` accepts, one a line, or nothing when there were none.
pub(crate) fn listing_lines<'a>(
    pauses: impl Iterator<Item = &'a ConsolePause>,
    wanted: impl Fn(u32) -> bool,
) -> String {
    let matching: Vec<&ConsolePause> = pauses.filter(|p| wanted(p.tab)).collect();
    if matching.is_empty() {
        return String::new();
    }
    let shown = &matching[matching.len().saturating_sub(LISTED_PAUSES)..];
    let mut text = format!(
        "Consoles paused because they flooded, {} of {} (newest last). Nothing a paused console logs is recorded; \
         the counts are of the messages that still reached Sightline and were dropped:\n",
        shown.len(),
        matching.len()
    );
    for pause in shown {
        let whose = match pause.frame.as_deref() {
            Some("") => "an out-of-process frame".to_owned(),
            Some(url) => format!("the frame {url}"),
            None => "the page".to_owned(),
        };
        let until = if pause.resumed { "resumed" } else { "due to resume" };
        text.push_str(&format!(
            "- tab {}, {whose}: paused {} ({}), {until} {}; {} messages ({} characters) dropped\n",
            pause.tab,
            format_iso(pause.from_ms),
            pause.reason,
            format_iso(pause.until_ms),
            thousands(pause.dropped as usize),
            thousands(pause.dropped_characters as usize),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 1_735_787_045_000;

    fn pause(tab: u32, frame: Option<&str>, from_ms: u64) -> ConsolePause {
        ConsolePause {
            tab,
            frame: frame.map(str::to_owned),
            reason: "it logged more than 1,000 messages within a second".into(),
            from_ms,
            until_ms: from_ms + 5_000,
            resumed: false,
            dropped: 0,
            dropped_characters: 0,
        }
    }

    #[test]
    fn a_pause_gathers_what_it_dropped_until_it_resumes() {
        let mut log = PauseLog::default();
        let page = log.start(pause(3, None, T));
        let frame = log.start(pause(3, Some("http://b.test/chatter?token=hunter2hunter2"), T + 10));
        log.dropped(page, 10, 400);
        log.dropped(frame, 1_000, 20_000);
        log.dropped(frame, 5, 100);
        log.resumed(page, T + 6_000);
        let listed = log.in_window(T - 1, |_| true);
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[0].dropped_messages, listed[0].dropped_characters, listed[0].resumed), (10, 400, true));
        assert_eq!(listed[0].until, format_iso(T + 6_000));
        assert_eq!(
            (listed[1].dropped_messages, listed[1].dropped_characters, listed[1].resumed),
            (1_005, 20_100, false)
        );
        let frame_url = listed[1].frame.as_deref().unwrap();
        assert!(frame_url.starts_with("http://b.test/chatter") && !frame_url.contains("hunter2"), "{frame_url}");
    }

    #[test]
    fn a_report_lists_the_pauses_that_overlap_its_window_in_the_tabs_it_reads() {
        let mut log = PauseLog::default();
        let old = log.start(pause(3, None, T));
        log.resumed(old, T + 5_000);
        log.start(pause(3, Some("http://b.test/"), T + 20_000));
        log.start(pause(4, None, T + 20_000));
        assert_eq!(log.in_window(T + 4_000, |_| true).len(), 3, "the first was still paused at the start");
        assert_eq!(log.in_window(T + 5_000, |_| true).len(), 2, "the first had resumed");
        assert_eq!(log.in_window(T + 99_000, |tab| tab == 4).len(), 1, "still paused, in tab 4 only");
    }

    #[test]
    fn only_the_newest_pauses_are_kept_and_updating_a_forgotten_one_changes_nothing() {
        let mut log = PauseLog::default();
        let first = log.start(pause(1, None, T));
        for i in 0..MAX_PAUSES as u64 {
            log.start(pause(1, None, T + 1 + i));
        }
        assert_eq!(log.iter().count(), MAX_PAUSES);
        log.dropped(first, 7, 7);
        assert!(log.iter().all(|p| p.dropped == 0 && p.from_ms > T));
    }

    #[test]
    fn the_listing_says_whose_console_was_paused_why_and_what_it_dropped() {
        let mut log = PauseLog::default();
        assert_eq!(listing_lines(log.iter(), |_| true), "");
        let frame = log.start(pause(3, Some("http://b.test/chatter.html"), T));
        log.dropped(frame, 12_345, 1_234_567);
        let page = log.start(pause(3, None, T + 1));
        log.resumed(page, T + 5_001);
        let unknown = log.start(pause(3, Some(""), T + 2));
        assert!(listing_lines(log.iter(), |_| true).contains("- tab 3, an out-of-process frame: paused"));
        log.frame_known(unknown, "http://c.test/later.html");
        log.frame_known(frame, "http://c.test/elsewhere.html");
        let text = listing_lines(log.iter(), |_| true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[3].starts_with("- tab 3, the frame http://c.test/later.html: paused"), "{text}");
        assert!(lines[0].starts_with("Consoles paused because they flooded, 3 of 3 (newest last)."), "{text}");
        assert!(
            lines[1].starts_with("- tab 3, the frame http://b.test/chatter.html: paused 2025-01-02T03:04:05.000Z"),
            "a known URL stays: {text}"
        );
        assert!(lines[1].contains("(it logged more than 1,000 messages within a second), due to resume"), "{text}");
        assert!(lines[1].ends_with("12,345 messages (1,234,567 characters) dropped"), "{text}");
        assert!(lines[2].starts_with("- tab 3, the page:") && lines[2].contains("resumed"), "{text}");
        assert_eq!(listing_lines(log.iter(), |tab| tab == 4), "", "another tab's listing");
    }

    #[test]
    fn a_report_says_what_a_pause_dropped_even_when_the_flood_evicted_every_message() {
        use crate::changes::{ConsoleEntry, ConsoleLevel, Severity, Timeline};
        use crate::protocol::{ChangesParams, ConsoleMessagesParams};
        let mut timeline = Timeline::new();
        let params = ChangesParams::default();
        timeline.changes_since("s", &params, T).unwrap();
        let id = timeline.console_paused(pause(3, Some("http://b.test/chatter.html"), T + 1_000));
        for i in 0..3_000 {
            let text = format!("chatter {i}");
            timeline.record_console(ConsoleEntry {
                level: ConsoleLevel::Log,
                text,
                source: None,
                time_ms: T + 1_000,
                tab: 3,
            });
        }
        timeline.console_dropped(id, 40_000, 480_000);
        // Kept across a worker restart.
        let mut timeline = Timeline::restore(timeline.serialize()).unwrap();
        let report = timeline.changes_since("s", &params, T + 2_000).unwrap();
        let console = report.console.unwrap();
        assert!(console.lost > 0, "the flood evicted messages");
        assert_eq!(console.paused.len(), 1);
        assert_eq!((console.paused[0].dropped_messages, console.paused[0].dropped_characters), (40_000, 480_000));
        assert_eq!(report.severity, Severity::Warning);
        assert_eq!(report.summary, "1 console(s) paused for flooding");
        timeline.console_resumed(id, T + 3_000);
        let later = timeline.changes_since("s", &params, T + 9_000).unwrap();
        assert_eq!(later.console.unwrap().paused.len(), 1, "it resumed within this window");
        let quiet = timeline.changes_since("s", &params, T + 10_000).unwrap();
        assert!(quiet.console.unwrap().paused.is_empty(), "it resumed before this window");
        assert_eq!(quiet.severity, Severity::Clean);
        let listing = timeline.console_listing(&ConsoleMessagesParams { tab: Some(3), ..Default::default() });
        assert!(listing.starts_with("Console messages in tab 3 "), "{listing}");
        assert!(listing.ends_with("40,000 messages (480,000 characters) dropped\n"), "{listing}");
        let elsewhere = timeline.console_listing(&ConsoleMessagesParams { tab: Some(4), ..Default::default() });
        assert_eq!(elsewhere, "No console messages in tab 4 recorded in your tabs yet.");
        timeline.forget_entries();
        let forgotten = timeline.console_listing(&ConsoleMessagesParams::default());
        assert_eq!(forgotten, "No console messages recorded in your tabs yet.", "forgotten with the entries");
    }

    #[test]
    fn a_long_run_of_pauses_is_listed_by_its_newest() {
        let mut log = PauseLog::default();
        for i in 0..25 {
            log.start(pause(1, None, T + i));
        }
        let text = listing_lines(log.iter(), |_| true);
        assert_eq!(text.lines().count(), 1 + LISTED_PAUSES, "{text}");
        assert!(text.contains(", 10 of 25 "), "{text}");
        assert!(text.contains(&format_iso(T + 24)) && !text.contains(&format_iso(T + 14)), "{text}");
    }
}
