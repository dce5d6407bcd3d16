//! The console flood guard. The browser hands a tab's debugger events to the extension one by
//! one, at a few thousand a second at best; a page that logs faster than that builds a queue
//! in front of everything else from the tab, answers to commands included, and every tool on
//! the tab waits behind it.
//!
//! What it counts: every event the recorder turns into a console message ([`counts`]: console
//! calls, uncaught exceptions, browser log entries other than failed loads), by number and by the
//! characters of text they carry, per target: a tab's page and each of its out-of-process frames (a session of its
//! own, `source.sessionId`) apart. The service worker's JavaScript measures each such event's
//! text and cuts its long strings before the runtime sees it (a 1 MiB argument is never copied
//! into the runtime), and hands the size on.
//!
//! When a target logs more than [`LIMIT_PER_S`] messages, or more than [`TEXT_LIMIT_PER_S`]
//! characters, within a second of the page's own clock (the time each message was logged, not
//! when it reached the worker: a queue delivers a flood slower than it was logged, and counted on
//! arrival it could stay under the limit while the queue grows without end), the guard switches
//! that target's console off (`Runtime.disable`, `Log.disable` on its session) for [`PAUSE_MS`],
//! leaving the tab's other targets recorded. A target that floods again within [`RELAPSE_MS`] of
//! being turned back on is paused twice as long as the time before (up to [`MAX_PAUSE_MS`]), and
//! trips at a tenth of the limits: each time reporting resumes, what it logged until the guard
//! trips again and the browser takes in `Runtime.disable` reaches the worker in one burst, which
//! answers from the tab wait behind, so a target that never stops logging gets fewer and smaller
//! ones. What the browser stored during the
//! pause is discarded before reporting resumes (else it replays up to a thousand messages at once,
//! a burst every answer from the tab would wait behind); any it replays anyway are dropped.
//!
//! Each pause is kept on the timeline (`sightline_core::changes::ConsolePause`), apart from the
//! console messages the flood churns, with what it dropped: the change report and the console
//! listing say which console was paused, why, and how many messages (and characters) were
//! dropped. The counts are gathered here and handed to the timeline before it is read.
//!
//! Network events can carry strings of megabytes (a 1.5 MB URL, a large WebSocket frame); the
//! recorder keeps at most [`MAX_RECORDED_TEXT`] characters of any of them, so they are cut in
//! JavaScript, before the event is copied into the runtime's memory.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::json;

use sightline_core::changes::{ConsolePause, MAX_RECORDED_TEXT};
use sightline_core::snapshot::escape::thousands;
use wasm_bindgen::{JsCast, JsValue};

use crate::chrome::DebuggeeTarget;
use crate::state::State;
use crate::{cdp, timer};

/// The events the guard counts: every kind the recorder turns into a console message. The service
/// worker measures and cuts the same ones (`GUARDED` in `sw.js`).
pub const GUARDED: &[&str] = &["Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"];
/// Messages a target may log within one second before its console is paused.
pub const LIMIT_PER_S: u32 = 1_000;
/// Characters of text a target may log within one second before its console is paused: four
/// strings of 1 MiB, a thousand messages of 4,000 characters.
pub const TEXT_LIMIT_PER_S: f64 = 4_000_000.0;
/// How long a flooding target's console stays paused the first time.
pub const PAUSE_MS: u32 = 5_000;
/// The longest pause, for a target that floods again each time it is turned back on.
pub const MAX_PAUSE_MS: u32 = 60_000;
/// A flood this soon after reporting resumed (on the page's clock) counts as the same flood.
pub const RELAPSE_MS: f64 = 2_000.0;
/// Within [`RELAPSE_MS`] of resuming, a target trips at this fraction of the limits: what it logs
/// until the guard trips reaches the worker as a burst, with what follows until the browser takes
/// in `Runtime.disable`, and a target that floods again at once need not be given a thousand
/// messages to show it.
const RELAPSE_LIMIT_DIVISOR: u32 = 10;

/// Which limit a target went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flooded {
    /// More than [`LIMIT_PER_S`] messages within a second.
    Messages,
    /// More than [`TEXT_LIMIT_PER_S`] characters within a second.
    Text,
}

impl Flooded {
    /// Why the console was paused, as the timeline says it.
    pub fn reason(self) -> String {
        match self {
            Flooded::Messages => {
                format!("it logged more than {} messages within a second", thousands(LIMIT_PER_S as usize))
            }
            Flooded::Text => {
                format!(
                    "it logged more than {} characters of text within a second",
                    thousands(TEXT_LIMIT_PER_S as usize)
                )
            }
        }
    }
}

/// What to do with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Record it.
    Keep,
    /// Drop it (its target's console is paused, or it was logged during the pause).
    Drop,
    /// Drop it, and pause its target's console now, for `pause_ms`.
    Trip {
        /// How long (ms).
        pause_ms: u32,
        /// Which limit it went past.
        why: Flooded,
    },
}

/// One target's rate and pause.
#[derive(Debug, Default)]
struct TargetWindow {
    /// Start of the current one-second window (epoch ms, the page's clock where messages say).
    start_ms: f64,
    count: u32,
    characters: f64,
    paused: bool,
    /// The timeline's id of its latest pause.
    pause_id: Option<u64>,
    /// Messages dropped, and their characters, not yet handed to the timeline.
    dropped: u64,
    dropped_characters: u64,
    /// When reporting resumed (epoch ms): messages stamped earlier are replays.
    resumed_epoch_ms: f64,
    /// The last pause (ms), doubled when the target floods again right after it.
    last_pause_ms: u32,
    /// An out-of-process frame's id (its target's) and the URL of its document.
    frame: Option<(String, String)>,
    /// Its session went away while it was paused: forgotten when the pause ends.
    detached: bool,
}

impl TargetWindow {
    fn take_dropped(&mut self) -> Option<Dropped> {
        let dropped = Dropped {
            pause_id: self.pause_id?,
            messages: std::mem::take(&mut self.dropped),
            characters: std::mem::take(&mut self.dropped_characters),
        };
        (dropped.messages > 0).then_some(dropped)
    }
}

/// Messages a pause dropped, for the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// The timeline's id of the pause.
    pub pause_id: u64,
    /// How many.
    pub messages: u64,
    /// Their characters of text.
    pub characters: u64,
}

/// What ended with a pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumed {
    /// The timeline's id of the pause, unless the timeline it was kept on was replaced.
    pub pause_id: Option<u64>,
    /// What it dropped that the timeline was not told yet.
    pub dropped: Option<Dropped>,
    /// Whether the target is still there.
    pub still_there: bool,
}

/// Which of a tab's sessions: the page's own (`None`) or an out-of-process frame's.
type Session = Option<String>;

/// Per tab and target, how fast it logs and whether its console is paused.
#[derive(Debug, Default)]
pub struct FloodGuard {
    tabs: HashMap<i32, HashMap<Session, TargetWindow>>,
}

impl FloodGuard {
    fn window(&mut self, tab: i32, session: &Session) -> &mut TargetWindow {
        let targets = self.tabs.entry(tab).or_default();
        // Looked up before inserting, so a known target costs no allocation.
        if !targets.contains_key(session) {
            targets.insert(session.clone(), TargetWindow::default());
        }
        targets.get_mut(session).expect("inserted above")
    }

    /// Decides about one message from `session` of `tab`, holding `characters` of text, stamped
    /// `stamp_epoch_ms` by the page, arriving at `now_epoch_ms` (which counts for a message
    /// without a stamp).
    pub fn admit(
        &mut self,
        tab: i32,
        session: &Session,
        stamp_epoch_ms: Option<f64>,
        now_epoch_ms: f64,
        characters: f64,
    ) -> Admit {
        let w = self.window(tab, session);
        if w.paused || stamp_epoch_ms.is_some_and(|t| t < w.resumed_epoch_ms) {
            w.dropped += 1;
            w.dropped_characters += characters as u64;
            return Admit::Drop;
        }
        let logged = stamp_epoch_ms.unwrap_or(now_epoch_ms);
        if logged - w.start_ms >= 1_000.0 {
            w.start_ms = logged;
            w.count = 0;
            w.characters = 0.0;
        }
        w.count += 1;
        w.characters += characters;
        let relapse = w.last_pause_ms > 0 && logged - w.resumed_epoch_ms < RELAPSE_MS;
        let divisor = if relapse { RELAPSE_LIMIT_DIVISOR } else { 1 };
        let why = if w.count > LIMIT_PER_S / divisor {
            Flooded::Messages
        } else if w.characters > TEXT_LIMIT_PER_S / f64::from(divisor) {
            Flooded::Text
        } else {
            return Admit::Keep;
        };
        w.paused = true;
        w.last_pause_ms = if relapse { (w.last_pause_ms * 2).min(MAX_PAUSE_MS) } else { PAUSE_MS };
        Admit::Trip { pause_ms: w.last_pause_ms, why }
    }

    /// What an earlier pause of the target dropped and the timeline was not told yet.
    pub fn take_dropped_of(&mut self, tab: i32, session: &Session) -> Option<Dropped> {
        self.tabs.get_mut(&tab)?.get_mut(session)?.take_dropped()
    }

    /// The timeline keeps the target's new pause as `pause_id`; the message that tripped it,
    /// of `characters`, is its first dropped.
    pub fn paused_as(&mut self, tab: i32, session: &Session, pause_id: u64, characters: f64) {
        let w = self.window(tab, session);
        w.pause_id = Some(pause_id);
        w.dropped = 1;
        w.dropped_characters = characters as u64;
    }

    /// Reporting is back on for the target from `epoch_ms` (a frame whose session went away
    /// during the pause is forgotten now).
    pub fn resume(&mut self, tab: i32, session: &Session, epoch_ms: f64) -> Resumed {
        let gone = Resumed { pause_id: None, dropped: None, still_there: false };
        let Some(targets) = self.tabs.get_mut(&tab) else { return gone };
        let Some(w) = targets.get_mut(session) else { return gone };
        w.paused = false;
        w.resumed_epoch_ms = epoch_ms;
        w.start_ms = epoch_ms;
        w.count = 0;
        w.characters = 0.0;
        let resumed = Resumed { pause_id: w.pause_id, dropped: w.take_dropped(), still_there: !w.detached };
        if w.detached {
            targets.remove(session);
        }
        resumed
    }

    /// The timeline the pauses were kept on was replaced by the one saved before a worker restart
    /// (read once, after events may have arrived): the pauses' ids mean nothing there, and what
    /// they drop from now on goes untold rather than to another pause.
    pub fn timeline_replaced(&mut self) {
        for w in self.tabs.values_mut().flat_map(HashMap::values_mut) {
            w.pause_id = None;
            w.dropped = 0;
            w.dropped_characters = 0;
        }
    }

    /// Everything dropped that the timeline was not told yet, in every tab.
    pub fn take_all_dropped(&mut self) -> Vec<Dropped> {
        self.tabs.values_mut().flat_map(|targets| targets.values_mut().filter_map(TargetWindow::take_dropped)).collect()
    }

    /// An out-of-process frame of `tab`, `frame_id`, at `url`, was attached as `session`.
    pub fn frame_attached(&mut self, tab: i32, session: &str, frame_id: &str, url: &str) {
        self.window(tab, &Some(session.to_owned())).frame = Some((frame_id.to_owned(), url.to_owned()));
    }

    /// Frame `frame_id` of `session` of `tab` shows `url` now: when it is the out-of-process frame
    /// the session serves (not one inside it), that is the URL its pauses are told by. Returns the
    /// target's latest pause when it began before the URL was known.
    pub fn frame_navigated(&mut self, tab: i32, session: &str, frame_id: &str, url: &str) -> Option<u64> {
        let w = self.tabs.get_mut(&tab)?.get_mut(&Some(session.to_owned()))?;
        let (id, shown) = w.frame.as_mut()?;
        if id != frame_id || url.is_empty() {
            return None;
        }
        let was_unknown = shown.is_empty();
        *shown = url.to_owned();
        w.pause_id.filter(|_| was_unknown)
    }

    /// An out-of-process frame's session went away: it is forgotten, once its pause (if any)
    /// ends. Returns what it dropped that the timeline was not told yet.
    pub fn frame_detached(&mut self, tab: i32, session: &str) -> Option<Dropped> {
        let targets = self.tabs.get_mut(&tab)?;
        let session = Some(session.to_owned());
        let w = targets.get_mut(&session)?;
        let dropped = w.take_dropped();
        if w.paused {
            w.detached = true;
        } else {
            targets.remove(&session);
        }
        dropped
    }

    /// The URL of the frame `session` of `tab` serves, when it is an out-of-process frame (empty
    /// while it is not known).
    pub fn frame_url(&self, tab: i32, session: &Session) -> Option<String> {
        session.as_ref()?;
        let frame = self.tabs.get(&tab).and_then(|t| t.get(session)).and_then(|w| w.frame.as_ref());
        Some(frame.map(|(_, url)| url.clone()).unwrap_or_default())
    }

    /// Forgets a tab that closed; returns what it dropped that the timeline was not told yet.
    pub fn forget(&mut self, tab: i32) -> Vec<Dropped> {
        let Some(mut targets) = self.tabs.remove(&tab) else { return Vec::new() };
        targets.values_mut().filter_map(TargetWindow::take_dropped).collect()
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

/// Whether the guard counts an event of `method` (a log entry's from `log_source`): every kind
/// the recorder makes a console message of. A browser log entry about a failed load is not one
/// (the recorder leaves the failure to the network side), so a page whose requests fail is not
/// paused for it.
pub fn counts(method: &str, log_source: Option<&str>) -> bool {
    GUARDED.contains(&method) && !(method == "Log.entryAdded" && log_source == Some("network"))
}

/// For an event the guard counts ([`counts`]), when the page logged it (epoch ms, when it says):
/// `timestamp` of a console call or an exception, `entry.timestamp` of a log entry. Read without
/// converting the rest of it; `None` for an event the guard does not count.
pub fn counted_stamp(method: &str, params: &JsValue) -> Option<Option<f64>> {
    if !GUARDED.contains(&method) {
        return None;
    }
    let get = |owner: &JsValue, key: &str| js_sys::Reflect::get(owner, &JsValue::from_str(key)).ok();
    let owner = if method == "Log.entryAdded" { get(params, "entry")? } else { params.clone() };
    let source = if method == "Log.entryAdded" { get(&owner, "source").and_then(|s| s.as_string()) } else { None };
    counts(method, source.as_deref()).then(|| get(&owner, "timestamp").and_then(|v| v.as_f64()))
}

/// Hands the timeline what the guard dropped since it was last told, before it is read.
pub fn record_dropped(state: &State) {
    let dropped = state.flood.borrow_mut().take_all_dropped();
    tell_timeline(state, &dropped);
}

fn tell_timeline(state: &State, dropped: &[Dropped]) {
    if dropped.is_empty() {
        return;
    }
    state.with_timeline(|t| {
        for d in dropped {
            t.console_dropped(d.pause_id, d.messages, d.characters);
        }
    });
}

/// Frame `frame_id` of the out-of-process frame `session` of `tab` shows `url` now.
pub fn frame_navigated(state: &State, tab: i32, session: &str, frame_id: &str, url: &str) {
    let paused_unknown = state.flood.borrow_mut().frame_navigated(tab, session, frame_id, url);
    if let Some(pause_id) = paused_unknown {
        state.with_timeline(|t| t.console_pause_frame(pause_id, url));
    }
}

/// An out-of-process frame's session went away.
pub fn frame_detached(state: &State, tab: i32, session: &str) {
    let dropped = state.flood.borrow_mut().frame_detached(tab, session);
    tell_timeline(state, dropped.as_slice());
}

/// A tab closed.
pub fn tab_closed(state: &State, tab: i32) {
    let dropped = state.flood.borrow_mut().forget(tab);
    tell_timeline(state, &dropped);
}

/// Pauses the console of `session` of `tab` (its page's when `None`) for `pause_ms`, keeping the
/// pause on the timeline, then turns it back on (the page's with the page hooks' bindings, which
/// `Runtime.disable` drops). `characters`: the text of the message that tripped it.
pub fn pause(state: &Rc<State>, tab: i32, session: Session, pause_ms: u32, why: Flooded, characters: f64) {
    let now = timer::epoch_ms();
    let (earlier, frame) = {
        let mut guard = state.flood.borrow_mut();
        (guard.take_dropped_of(tab, &session), guard.frame_url(tab, &session))
    };
    tell_timeline(state, earlier.as_slice());
    let pause = ConsolePause {
        // Tab ids are never negative.
        tab: tab.unsigned_abs(),
        frame,
        reason: why.reason(),
        from_ms: now,
        until_ms: now + u64::from(pause_ms),
        resumed: false,
        dropped: 0,
        dropped_characters: 0,
    };
    let pause_id = state.with_timeline(|t| t.console_paused(pause));
    state.flood.borrow_mut().paused_as(tab, &session, pause_id, characters);
    let state = state.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let target = DebuggeeTarget { tab_id: tab, session_id: session.clone() };
        let off = |method| cdp::send_to::<serde_json::Value>(&target, method, json!({}), cdp::COMMAND_TIMEOUT_MS);
        // Answered once what was logged before they took effect has reached the worker: the pause
        // counts from there.
        let _ = futures::future::join(off("Runtime.disable"), off("Log.disable")).await;
        timer::sleep(pause_ms).await;
        let resumed_ms = timer::epoch_ms();
        let resumed = state.flood.borrow_mut().resume(tab, &session, resumed_ms as f64);
        tell_timeline(&state, resumed.dropped.as_slice());
        if let Some(pause_id) = resumed.pause_id {
            state.with_timeline(|t| t.console_resumed(pause_id, resumed_ms));
        }
        let bindings = {
            let tabs = state.tabs.borrow();
            match tabs.sessions.get(&tab) {
                Some(s) if s.attached && resumed.still_there => s.bindings.clone(),
                _ => return,
            }
        };
        // What the target logged during the pause is not recorded; without this the browser
        // would replay up to a thousand of those messages on `Runtime.enable` (and every stored
        // log entry on `Log.enable`), a burst that holds up every answer from the tab while it
        // drains.
        for method in ["Runtime.discardConsoleEntries", "Log.clear", "Runtime.enable", "Log.enable"] {
            let _ = cdp::send_to::<serde_json::Value>(&target, method, json!({}), cdp::COMMAND_TIMEOUT_MS).await;
        }
        if session.is_none() {
            for binding in bindings {
                let _ = cdp::send::<serde_json::Value>(tab, "Runtime.addBinding", binding).await;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: Session = None;

    fn frame() -> Session {
        Some("S1".to_owned())
    }

    #[test]
    fn a_target_logging_past_the_limit_is_paused_and_its_replays_are_dropped() {
        let mut guard = FloodGuard::default();
        for i in 0..LIMIT_PER_S {
            assert_eq!(guard.admit(1, &PAGE, Some(100.0 + f64::from(i) / 10.0), 5_000.0, 10.0), Admit::Keep);
        }
        assert_eq!(guard.admit(2, &PAGE, Some(150.0), 5_000.0, 10.0), Admit::Keep, "another tab is not paused");
        let trip = Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Messages };
        assert_eq!(guard.admit(1, &PAGE, Some(200.0), 5_000.0, 10.0), trip);
        guard.paused_as(1, &PAGE, 7, 10.0);
        assert_eq!(guard.admit(1, &PAGE, Some(201.0), 5_000.0, 30.0), Admit::Drop);
        let dropped = Dropped { pause_id: 7, messages: 2, characters: 40 };
        let resumed = Resumed { pause_id: Some(7), dropped: Some(dropped), still_there: true };
        assert_eq!(guard.resume(1, &PAGE, 6_000.0), resumed);
        assert_eq!(guard.admit(1, &PAGE, Some(5_900.0), 6_100.0, 5.0), Admit::Drop, "logged during the pause");
        assert_eq!(guard.admit(1, &PAGE, Some(6_001.0), 6_100.0, 5.0), Admit::Keep);
        assert_eq!(guard.take_all_dropped(), [Dropped { pause_id: 7, messages: 1, characters: 5 }]);
        assert_eq!(guard.take_all_dropped(), [], "told once");
    }

    #[test]
    fn a_flooding_frame_is_paused_without_its_page_and_the_page_without_its_frames() {
        let mut guard = FloodGuard::default();
        guard.frame_attached(1, "S1", "F1", "");
        assert_eq!(guard.frame_navigated(1, "S1", "F2", "http://b.test/inner.html"), None, "a frame inside it");
        assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some(""), "yet unknown");
        for i in 0..=LIMIT_PER_S {
            let admit = guard.admit(1, &frame(), Some(f64::from(i) / 10.0), 0.0, 10.0);
            // The page logs on, slowly, all along.
            if i % 100 == 0 {
                assert_eq!(guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 10.0), Admit::Keep, "message {i}");
            }
            if i == LIMIT_PER_S {
                assert_eq!(admit, Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Messages });
            }
        }
        guard.paused_as(1, &frame(), 1, 10.0);
        assert_eq!(guard.frame_navigated(1, "S1", "F1", "http://b.test/chatter.html"), Some(1), "paused unknown");
        assert_eq!(guard.frame_navigated(1, "S1", "F1", "http://b.test/chatter.html"), None, "known since");
        assert_eq!(guard.admit(1, &frame(), Some(200.0), 0.0, 10.0), Admit::Drop);
        assert_eq!(guard.admit(1, &PAGE, Some(200.0), 0.0, 10.0), Admit::Keep, "the page is recorded");
        assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some("http://b.test/chatter.html"));
        assert_eq!(guard.frame_url(1, &PAGE), None);
        // And the other way round, in the next second.
        for i in 0..LIMIT_PER_S {
            assert_eq!(guard.admit(1, &PAGE, Some(1_000.0 + f64::from(i) / 10.0), 0.0, 10.0), Admit::Keep);
        }
        assert!(matches!(guard.admit(1, &PAGE, Some(1_100.0), 0.0, 10.0), Admit::Trip { .. }));
        guard.paused_as(1, &PAGE, 2, 10.0);
        guard.resume(1, &frame(), 1_200.0);
        assert_eq!(guard.admit(1, &frame(), Some(1_300.0), 0.0, 10.0), Admit::Keep, "the frame is recorded again");
        assert_eq!(guard.admit(1, &PAGE, Some(1_300.0), 0.0, 10.0), Admit::Drop, "while its page is paused");
    }

    #[test]
    fn every_kind_of_event_the_recorder_makes_a_console_message_of_is_counted() {
        use sightline_core::changes::record::{self, Recorded, Recorder};
        // Parameters that make a console message of any event that can be one.
        let params = json!({
            "type": "log",
            "args": [{"type": "string", "value": "x"}],
            "exceptionDetails": {"text": "Uncaught x"},
            "entry": {"source": "javascript", "level": "info", "text": "x"},
        });
        let mut recorder = Recorder::default();
        for method in record::METHODS {
            let console = recorder.event(1, None, method, &params, 0).iter().any(|r| matches!(r, Recorded::Console(_)));
            assert_eq!(console, counts(method, Some("javascript")), "{method}");
        }
        assert!(GUARDED.iter().all(|m| record::records(m)), "the guard counts only what the recorder takes");
        // A failed load the browser logs is left to the network side, by the recorder and the guard.
        let failed = json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource"}});
        assert!(recorder.event(1, None, "Log.entryAdded", &failed, 0).is_empty());
        assert!(!counts("Log.entryAdded", Some("network")));
    }

    #[test]
    fn a_few_huge_messages_trip_the_guard_by_their_text() {
        let mut guard = FloodGuard::default();
        let mib = 1_048_576.0;
        for i in 0..3 {
            assert_eq!(guard.admit(1, &PAGE, Some(f64::from(i)), 0.0, mib), Admit::Keep, "string {i}");
        }
        assert_eq!(guard.admit(1, &PAGE, Some(3.0), 0.0, mib), Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Text });
        // Long after the pause the count starts again.
        guard.resume(1, &PAGE, 5_000.0);
        for i in 0..3 {
            let logged = 5_000.0 + RELAPSE_MS + f64::from(i);
            assert_eq!(guard.admit(1, &PAGE, Some(logged), 0.0, mib), Admit::Keep, "string {i}");
        }
        assert_eq!(Flooded::Text.reason(), "it logged more than 4,000,000 characters of text within a second");
        assert_eq!(Flooded::Messages.reason(), "it logged more than 1,000 messages within a second");
    }

    #[test]
    fn a_target_that_floods_again_as_soon_as_it_resumes_is_paused_longer_each_time() {
        let mut guard = FloodGuard::default();
        let flood = |guard: &mut FloodGuard, from: f64| {
            (0..=LIMIT_PER_S)
                .map(|i| guard.admit(1, &frame(), Some(from + f64::from(i) / 10.0), from, 1.0))
                .find(|admit| *admit != Admit::Keep)
        };
        let trip = |pause_ms| Some(Admit::Trip { pause_ms, why: Flooded::Messages });
        assert_eq!(flood(&mut guard, 0.0), trip(PAUSE_MS));
        let mut resumed = 5_000.0;
        for expected in [10_000, 20_000, 40_000, MAX_PAUSE_MS, MAX_PAUSE_MS] {
            guard.resume(1, &frame(), resumed);
            assert_eq!(flood(&mut guard, resumed + 1.0), trip(expected));
            resumed += f64::from(expected);
        }
        // A flood long after the last one starts again from the first pause.
        guard.resume(1, &frame(), resumed);
        assert_eq!(flood(&mut guard, resumed + RELAPSE_MS + 1.0), trip(PAUSE_MS));
    }

    #[test]
    fn right_after_a_pause_a_target_trips_at_a_tenth_of_the_limits() {
        let mut guard = FloodGuard::default();
        for i in 0..=LIMIT_PER_S {
            guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 1.0);
        }
        guard.resume(1, &PAGE, 5_000.0);
        for i in 0..LIMIT_PER_S / 10 {
            assert_eq!(guard.admit(1, &PAGE, Some(5_001.0 + f64::from(i)), 0.0, 1.0), Admit::Keep, "message {i}");
        }
        let relapse = Admit::Trip { pause_ms: 2 * PAUSE_MS, why: Flooded::Messages };
        assert_eq!(guard.admit(1, &PAGE, Some(5_200.0), 0.0, 1.0), relapse);
        // Text likewise: a tenth of it.
        guard.resume(1, &PAGE, 20_000.0);
        assert_eq!(guard.admit(1, &PAGE, Some(20_001.0), 0.0, TEXT_LIMIT_PER_S / 10.0), Admit::Keep);
        assert!(matches!(guard.admit(1, &PAGE, Some(20_002.0), 0.0, 1.0), Admit::Trip { why: Flooded::Text, .. }));
        // Long after resuming, the full limits again.
        guard.resume(1, &PAGE, 40_000.0);
        for i in 0..LIMIT_PER_S {
            let logged = 40_000.0 + RELAPSE_MS + f64::from(i) / 10.0;
            assert_eq!(guard.admit(1, &PAGE, Some(logged), 0.0, 1.0), Admit::Keep, "message {i}");
        }
    }

    #[test]
    fn a_flood_is_paused_even_when_its_messages_arrive_slower_than_the_limit() {
        let mut guard = FloodGuard::default();
        // Logged at 10,000 a second, delivered at 500 a second.
        for i in 0..LIMIT_PER_S {
            let admit = guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), f64::from(i) * 2.0, 1.0);
            assert_eq!(admit, Admit::Keep, "message {i}");
        }
        assert!(matches!(guard.admit(1, &PAGE, Some(100.0), 2_000.0, 1.0), Admit::Trip { .. }));
    }

    #[test]
    fn a_steady_rate_under_the_limits_is_never_paused_even_when_it_arrives_in_bursts() {
        let mut guard = FloodGuard::default();
        // Just under both limits each second: LIMIT_PER_S messages of 3,900 characters.
        let characters = 3_900.0;
        for i in 0..10 * LIMIT_PER_S {
            // Logged evenly, delivered ten seconds' worth at once.
            let logged = f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
            assert_eq!(guard.admit(1, &PAGE, Some(logged), 10_000.0, characters), Admit::Keep, "message {i}");
        }
        for i in 0..10 * LIMIT_PER_S {
            // Without stamps, arrival times count.
            let now = 20_000.0 + f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
            assert_eq!(guard.admit(2, &PAGE, None, now, characters), Admit::Keep, "message {i}");
        }
    }

    #[test]
    fn pauses_kept_on_a_replaced_timeline_are_told_nothing_more() {
        let mut guard = FloodGuard::default();
        for i in 0..=LIMIT_PER_S {
            guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 1.0);
        }
        guard.paused_as(1, &PAGE, 1, 1.0);
        guard.timeline_replaced();
        assert_eq!(guard.admit(1, &PAGE, Some(200.0), 0.0, 1.0), Admit::Drop, "still paused");
        assert_eq!(guard.take_all_dropped(), [], "pause 1 of the new timeline is another one");
        assert_eq!(guard.resume(1, &PAGE, 5_000.0), Resumed { pause_id: None, dropped: None, still_there: true });
    }

    #[test]
    fn a_frame_that_goes_away_is_forgotten_once_its_pause_ends() {
        let mut guard = FloodGuard::default();
        guard.frame_attached(1, "S1", "F1", "http://b.test/");
        for i in 0..=LIMIT_PER_S {
            guard.admit(1, &frame(), Some(f64::from(i) / 10.0), 0.0, 1.0);
        }
        guard.paused_as(1, &frame(), 3, 1.0);
        assert_eq!(guard.frame_detached(1, "S1"), Some(Dropped { pause_id: 3, messages: 1, characters: 1 }));
        let resumed = guard.resume(1, &frame(), 5_000.0);
        assert_eq!(resumed, Resumed { pause_id: Some(3), dropped: None, still_there: false }, "not turned back on");
        assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some(""), "forgotten");
        guard.frame_attached(1, "S2", "F2", "http://c.test/");
        assert_eq!(guard.frame_detached(1, "S2"), None);
        assert!(guard.tabs[&1].is_empty(), "a quiet frame is forgotten at once");
    }
}
