//! The console flood guard. The browser hands a tab's debugger events to the extension one by
//! one, at a few thousand a second at best; a page that logs faster than that builds a queue
//! in front of everything else from the tab, answers to commands included, and every tool on
//! the tab waits behind it. When a tab logs more than [`LIMIT_PER_S`] console messages within
//! a second of the page's own clock (the time each message was logged, not when it reached the
//! worker: a queue delivers a flood slower than it was logged, and counted on arrival it could
//! stay under the limit while the queue grows without end), the guard switches the tab's
//! console reporting off (`Runtime.disable`) for [`PAUSE_MS`], records in the tab's console
//! that it did and, once it is back on, how many messages went unrecorded. A tab that floods
//! again within [`RELAPSE_MS`] of being turned back on is paused twice as long as the time before
//! (up to [`MAX_PAUSE_MS`]): each time reporting resumes, what the page logged until the guard
//! trips again and the browser takes in `Runtime.disable` reaches the worker in one burst, which
//! answers from the tab wait behind, so a page that never stops logging gets fewer of them. The messages logged
//! during the pause were counted as unrecorded, so the browser's store of them is discarded
//! before reporting resumes (else it replays up to a thousand at once, a burst every answer from
//! the tab would wait behind); any it replays anyway are dropped.
//!
//! Network events can carry strings of megabytes (a 1.5 MB URL, a large WebSocket frame); the
//! recorder keeps at most [`MAX_RECORDED_TEXT`] characters of any of them, so they are cut in
//! JavaScript, before the event is copied into the runtime's memory.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::json;

use sightline_core::changes::MAX_RECORDED_TEXT;
use wasm_bindgen::{JsCast, JsValue};

use crate::cdp::{self, CdpEvent};
use crate::state::State;
use crate::{timeline, timer};

/// Console messages a tab may log within one second before its console is paused.
pub const LIMIT_PER_S: u32 = 1_000;
/// How long a flooding tab's console stays paused the first time.
pub const PAUSE_MS: u32 = 5_000;
/// The longest pause, for a tab that floods again each time it is turned back on.
pub const MAX_PAUSE_MS: u32 = 60_000;
/// A flood this soon after reporting resumed (on the page's clock) counts as the same flood.
pub const RELAPSE_MS: f64 = 2_000.0;

/// What to do with one console message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Record it.
    Keep,
    /// Drop it (the tab's console is paused, or it was logged during the pause).
    Drop,
    /// Drop it, and pause the tab's console now, for this long (ms).
    Trip(u32),
}

#[derive(Debug, Default)]
struct TabWindow {
    /// Start of the current one-second window (epoch ms, the page's clock where messages say).
    start_ms: f64,
    count: u32,
    paused: bool,
    /// Messages dropped since the pause began.
    dropped: u64,
    /// When reporting resumed (epoch ms): messages stamped earlier are replays.
    resumed_epoch_ms: f64,
    /// The last pause (ms), doubled when the tab floods again right after it.
    last_pause_ms: u32,
}

/// Per tab, how fast it logs and whether its console is paused.
#[derive(Debug, Default)]
pub struct FloodGuard {
    tabs: HashMap<i32, TabWindow>,
}

impl FloodGuard {
    /// Decides about one console message from `tab`, stamped `stamp_epoch_ms` by the page,
    /// arriving at `now_epoch_ms` (which counts for a message without a stamp).
    pub fn admit(&mut self, tab: i32, stamp_epoch_ms: Option<f64>, now_epoch_ms: f64) -> Admit {
        let w = self.tabs.entry(tab).or_default();
        if w.paused || stamp_epoch_ms.is_some_and(|t| t < w.resumed_epoch_ms) {
            w.dropped += 1;
            return Admit::Drop;
        }
        let logged = stamp_epoch_ms.unwrap_or(now_epoch_ms);
        if logged - w.start_ms >= 1_000.0 {
            w.start_ms = logged;
            w.count = 0;
        }
        w.count += 1;
        if w.count > LIMIT_PER_S {
            w.paused = true;
            w.dropped = 1;
            let relapse = w.last_pause_ms > 0 && logged - w.resumed_epoch_ms < RELAPSE_MS;
            w.last_pause_ms = if relapse { (w.last_pause_ms * 2).min(MAX_PAUSE_MS) } else { PAUSE_MS };
            return Admit::Trip(w.last_pause_ms);
        }
        Admit::Keep
    }

    /// Reporting is back on for `tab` from `epoch_ms`; returns how many messages were dropped.
    pub fn resume(&mut self, tab: i32, epoch_ms: f64) -> u64 {
        let w = self.tabs.entry(tab).or_default();
        w.paused = false;
        w.resumed_epoch_ms = epoch_ms;
        w.start_ms = epoch_ms;
        w.count = 0;
        std::mem::take(&mut w.dropped)
    }

    /// Forgets a tab that closed.
    pub fn forget(&mut self, tab: i32) {
        self.tabs.remove(&tab);
    }
}

/// Longest string of a network event copied into the runtime: well past what the recorder keeps
/// (it masks secrets first, then cuts), far below what a page can send.
const MAX_COPIED_STRING: u32 = 8 * MAX_RECORDED_TEXT as u32;

/// Where network events carry strings a page controls the length of.
const LONG_STRINGS: &[&[&str]] = &[
    &["request", "url"],
    &["request", "postData"],
    &["documentURL"],
    &["response", "url"],
    &["redirectResponse", "url"],
    &["response", "payloadData"],
    &["url"],
];

/// Cuts the long strings of a `Network.*` event's parameters in place (in JavaScript).
pub fn cut_long_strings(params: &JsValue) {
    for path in LONG_STRINGS {
        let Some((last, parents)) = path.split_last() else { continue };
        let mut owner = params.clone();
        for key in parents {
            match js_sys::Reflect::get(&owner, &(*key).into()) {
                Ok(next) if next.is_object() => owner = next,
                _ => break,
            }
        }
        let Ok(value) = js_sys::Reflect::get(&owner, &(*last).into()) else { continue };
        if let Some(text) = value.dyn_ref::<js_sys::JsString>()
            && text.length() > MAX_COPIED_STRING
        {
            let _ = js_sys::Reflect::set(&owner, &(*last).into(), &text.slice(0, MAX_COPIED_STRING));
        }
    }
}

/// The timestamp a `Runtime.consoleAPICalled` event carries (epoch ms), read without
/// converting the rest of it.
pub fn stamp(params: &JsValue) -> Option<f64> {
    js_sys::Reflect::get(params, &"timestamp".into()).ok().and_then(|v| v.as_f64())
}

/// Pauses `tab`'s console reporting for `pause_ms`, noting it in its console, then turns it back
/// on (with the page hooks' bindings, which `Runtime.disable` drops).
pub fn pause(state: &Rc<State>, tab: i32, pause_ms: u32) {
    let state = state.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = cdp::send::<serde_json::Value>(tab, "Runtime.disable", json!({})).await;
        note(
            &state,
            tab,
            format!(
                "Sightline paused recording this tab's console for {} s: the page logged more than {} messages \
                 within a second",
                pause_ms / 1000,
                LIMIT_PER_S
            ),
        );
        timer::sleep(pause_ms).await;
        let dropped = state.flood.borrow_mut().resume(tab, timer::epoch_ms() as f64);
        let attached = state.tabs.borrow().sessions.get(&tab).map(|s| (s.attached, s.bindings.clone()));
        let Some((true, bindings)) = attached else { return };
        // What the page logged during the pause is counted as unrecorded already; without this the
        // browser would replay up to a thousand of those messages on `Runtime.enable`, a burst
        // that holds up every answer from the tab while it drains.
        let _ = cdp::send::<serde_json::Value>(tab, "Runtime.discardConsoleEntries", json!({})).await;
        let _ = cdp::send::<serde_json::Value>(tab, "Runtime.enable", json!({})).await;
        for binding in bindings {
            let _ = cdp::send::<serde_json::Value>(tab, "Runtime.addBinding", binding).await;
        }
        note(&state, tab, format!("Sightline recorded this tab's console again; {dropped} messages were not recorded"));
    });
}

/// Records `text` as a warning in `tab`'s console.
fn note(state: &Rc<State>, tab: i32, text: String) {
    let params = json!({"entry": {
        "source": "other",
        "level": "warning",
        "text": text,
        "timestamp": timer::epoch_ms() as f64,
    }});
    let event = CdpEvent { tab_id: tab, session_id: None, method: "Log.entryAdded".into(), params };
    timeline::record(state, &event);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_logging_past_the_limit_is_paused_and_its_replays_are_dropped() {
        let mut guard = FloodGuard::default();
        for i in 0..LIMIT_PER_S {
            assert_eq!(guard.admit(1, Some(100.0 + f64::from(i) / 10.0), 5_000.0), Admit::Keep);
        }
        assert_eq!(guard.admit(2, Some(150.0), 5_000.0), Admit::Keep, "another tab is not paused");
        assert_eq!(guard.admit(1, Some(200.0), 5_000.0), Admit::Trip(PAUSE_MS));
        assert_eq!(guard.admit(1, Some(201.0), 5_000.0), Admit::Drop);
        assert_eq!(guard.resume(1, 6_000.0), 2);
        assert_eq!(guard.admit(1, Some(5_900.0), 6_100.0), Admit::Drop, "logged during the pause");
        assert_eq!(guard.admit(1, Some(6_001.0), 6_100.0), Admit::Keep);
    }

    #[test]
    fn a_tab_that_floods_again_as_soon_as_it_resumes_is_paused_longer_each_time() {
        let mut guard = FloodGuard::default();
        let mut flood = |guard: &mut FloodGuard, from: f64| {
            (0..=LIMIT_PER_S).map(|i| guard.admit(1, Some(from + f64::from(i) / 10.0), from)).last()
        };
        assert_eq!(flood(&mut guard, 0.0), Some(Admit::Trip(PAUSE_MS)));
        let mut resumed = 5_000.0;
        for expected in [10_000, 20_000, 40_000, MAX_PAUSE_MS, MAX_PAUSE_MS] {
            guard.resume(1, resumed);
            assert_eq!(flood(&mut guard, resumed + 1.0), Some(Admit::Trip(expected)));
            resumed += f64::from(expected);
        }
        // A flood long after the last one starts again from the first pause.
        guard.resume(1, resumed);
        assert_eq!(flood(&mut guard, resumed + RELAPSE_MS + 1.0), Some(Admit::Trip(PAUSE_MS)));
    }

    #[test]
    fn a_flood_is_paused_even_when_its_messages_arrive_slower_than_the_limit() {
        let mut guard = FloodGuard::default();
        // Logged at 10,000 a second, delivered at 500 a second.
        for i in 0..LIMIT_PER_S {
            let admit = guard.admit(1, Some(f64::from(i) / 10.0), f64::from(i) * 2.0);
            assert_eq!(admit, Admit::Keep, "message {i}");
        }
        assert_eq!(guard.admit(1, Some(100.0), 2_000.0), Admit::Trip(PAUSE_MS));
    }

    #[test]
    fn a_steady_rate_under_the_limit_is_never_paused_even_when_it_arrives_in_bursts() {
        let mut guard = FloodGuard::default();
        for i in 0..10 * LIMIT_PER_S {
            // LIMIT_PER_S messages each second, logged evenly, delivered ten seconds' worth at once.
            let logged = f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
            assert_eq!(guard.admit(1, Some(logged), 10_000.0), Admit::Keep, "message {i}");
        }
        for i in 0..10 * LIMIT_PER_S {
            // Without stamps, arrival times count.
            let now = 20_000.0 + f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
            assert_eq!(guard.admit(2, None, now), Admit::Keep, "message {i}");
        }
    }
}
