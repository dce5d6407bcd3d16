//! The browser's one timeline of console messages, requests, WebSocket events and actions, as
//! the runtime keeps it: filled from debugger events, read by the change tools, and kept across
//! restarts.
//!
//! * Recording: every debugger event goes through [`record`]; the engine's [`Recorder`] turns
//!   it into entries tagged with the tab id and its [`Intake`] decides what is kept (the user's
//!   own actions only from tabs the user shared, never while the agent is acting). This module
//!   only tells it which tabs are shared and when the agent acts.
//! * Worker restarts: the whole timeline is saved to `chrome.storage.session`, at most once per
//!   [`SAVE_DELAY_MS`] while events arrive (never on every event), and right after a call that
//!   moves a checkpoint; one save is written at a time, so saves never pile up behind a busy
//!   browser; a timeline larger than [`SAVED_MAX_BYTES`] is saved without its oldest
//!   entries (see `Timeline::saved_text`). It is read back lazily on first use; events that
//!   arrive before that are held (bounded) and recorded after what was saved.
//! * Browser restarts: `chrome.storage.session` is gone then, so named checkpoints are also kept
//!   in `chrome.storage.local` and brought back into the fresh timeline.
//! * Noise rules: the engine's defaults, changed by the [`NoiseConfig`] at [`NOISE_KEY`] in
//!   `chrome.storage.local`, read when the timeline is loaded and before every change report.
//! * Requests still waiting for their response live in the engine's [`Recorder`] (not on the
//!   timeline, and not saved: after a worker restart their events go unheard anyway);
//!   [`TimelineState::pending_requests`] hands out those of tabs the debugger is still attached to.
//!
//! Nothing here interprets CDP, decides what to keep or builds reports: the engine does.

use std::rc::Rc;

use sightline_core::changes::record::{self, Intake, Kept, PendingRequest, Recorder};
use sightline_core::changes::{ActionEntry, NamedCheckpoints, NoiseConfig, NoiseRules, SAVED_MAX_BYTES, Timeline};
use wasm_bindgen::JsValue;

use crate::cdp::CdpEvent;
use crate::chrome;
use crate::state::{TabsState, TimelineState};
use crate::tabs::Grant;
use crate::timer;

/// `chrome.storage.session` key of the whole timeline.
const STATE_KEY: &str = "sightline.timeline";
/// `chrome.storage.local` key of the named checkpoints.
const NAMED_KEY: &str = "sightline.checkpoints";
/// `chrome.storage.local` key of the noise-rule changes, e.g.
/// `{"add": [{"name": "ads", "target": "request_url", "pattern": {"contains": "ads."}}], "remove": ["segment"]}`.
pub const NOISE_KEY: &str = "sightline.noise";
/// While events keep arriving, the timeline is saved at most this often.
pub const SAVE_DELAY_MS: u32 = 1_000;
/// How long a WebSocket close waits for the page to report its close code.
const CLOSE_CODE_WAIT_MS: u32 = 1_000;
/// Events held while the saved timeline is being read.
const MAX_EARLY: usize = 5_000;

/// The timeline and what recording and saving it needs.
#[derive(Debug, Default)]
pub struct TimelineStore {
    timeline: Timeline,
    recorder: Recorder,
    intake: Intake,
    /// Whether the saved timeline was read (or found absent).
    loaded: bool,
    /// Entries that arrived before it was.
    early: Vec<Kept>,
    load_started: bool,
    /// A save is on its way: waiting out [`SAVE_DELAY_MS`] or being written.
    save_scheduled: bool,
    /// The timeline changed since its text was last taken for a save.
    unsaved: bool,
    /// A change since then asked to be saved without waiting [`SAVE_DELAY_MS`].
    save_soon: bool,
    flush_scheduled: bool,
}

impl TimelineStore {
    /// Records `kept` now, or holds it until the saved timeline has been read.
    fn keep(&mut self, kept: Kept) {
        if self.loaded {
            kept.record_in(&mut self.timeline);
        } else if self.early.len() < MAX_EARLY {
            self.early.push(kept);
        }
    }
}

/// Records one debugger event from any tab.
pub fn record(tabs: &TabsState, timeline: &Rc<TimelineState>, event: &CdpEvent) {
    if !record::records(&event.method) {
        return;
    }
    let Ok(tab) = u32::try_from(event.tab_id) else { return };
    let now = timer::epoch_ms();
    let shared = tabs.registry.borrow().grants.tabs.get(&event.tab_id) == Some(&Grant::Shared);
    let (recorded, closes_waiting) = {
        let mut store = timeline.store.borrow_mut();
        let recorded = store.recorder.event(tab, event.session_id.as_deref(), &event.method, &event.params, now);
        (recorded, store.recorder.closes_waiting())
    };
    if closes_waiting {
        schedule_close_flush(timeline);
    }
    if recorded.is_empty() {
        return;
    }
    {
        let mut store = timeline.store.borrow_mut();
        for entry in recorded {
            if let Some(kept) = store.intake.keep(entry, shared, now) {
                store.keep(kept);
            }
        }
        if !store.loaded {
            if store.load_started {
                return;
            }
            store.load_started = true;
            drop(store);
            let timeline = timeline.clone();
            wasm_bindgen_futures::spawn_local(async move { timeline.load_timeline().await });
            return;
        }
    }
    schedule_save(timeline);
}

/// Saves the timeline once [`SAVE_DELAY_MS`] have passed, unless a save is already on its way.
pub fn schedule_save(timeline: &Rc<TimelineState>) {
    request_save(timeline, SAVE_DELAY_MS);
}

/// Saves the timeline as soon as the worker is free, without making the caller wait: a save
/// waiting out [`SAVE_DELAY_MS`] takes the change, and one being written is followed at once.
pub fn save_soon(timeline: &Rc<TimelineState>) {
    request_save(timeline, 0);
}

/// One save at a time: while the browser writes one (which can take seconds when it is busy),
/// changes wait for the next, written [`SAVE_DELAY_MS`] after it, or at once when one of them
/// asked for a save without delay. Saves never queue up behind each other in the browser, so a
/// small write (the tab grants before a tool answers) waits behind at most one timeline.
fn request_save(timeline: &Rc<TimelineState>, delay_ms: u32) {
    {
        let mut store = timeline.store.borrow_mut();
        store.unsaved = true;
        if store.save_scheduled {
            store.save_soon |= delay_ms == 0;
            return;
        }
        store.save_scheduled = true;
    }
    let timeline = timeline.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let mut delay_ms = delay_ms;
        loop {
            if delay_ms > 0 {
                timer::sleep(delay_ms).await;
            }
            timeline.save_timeline().await;
            let mut store = timeline.store.borrow_mut();
            if !store.unsaved {
                store.save_scheduled = false;
                return;
            }
            delay_ms = if std::mem::take(&mut store.save_soon) { 0 } else { SAVE_DELAY_MS };
        }
    });
}

/// Records, without a code, the WebSocket closes the page did not report a code for in time.
fn schedule_close_flush(timeline: &Rc<TimelineState>) {
    {
        let mut store = timeline.store.borrow_mut();
        if store.flush_scheduled {
            return;
        }
        store.flush_scheduled = true;
    }
    let timeline = timeline.clone();
    wasm_bindgen_futures::spawn_local(async move {
        timer::sleep(CLOSE_CODE_WAIT_MS).await;
        let waiting = {
            let mut store = timeline.store.borrow_mut();
            store.flush_scheduled = false;
            let due = store.recorder.flush_closes(timer::epoch_ms(), u64::from(CLOSE_CODE_WAIT_MS));
            for event in due {
                store.keep(Kept::WebSocket(event));
            }
            store.recorder.closes_waiting()
        };
        if waiting {
            schedule_close_flush(&timeline);
        }
        schedule_save(&timeline);
    });
}

/// Marks the agent as acting until dropped (and for a short grace period after).
pub struct AgentActing {
    timeline: Rc<TimelineState>,
}

impl Drop for AgentActing {
    fn drop(&mut self) {
        if let Ok(mut store) = self.timeline.store.try_borrow_mut() {
            store.intake.agent_finished(timer::epoch_ms());
        }
    }
}

impl TimelineState {
    /// Reads the saved timeline once per worker lifetime: the whole state after a worker
    /// restart, or only the named checkpoints after a browser restart.
    pub async fn load_timeline(self: &Rc<Self>) {
        if self.store.borrow().loaded {
            return;
        }
        let _reading = self.load.lock().await;
        if self.store.borrow().loaded {
            return;
        }
        let saved = match chrome::session_storage_get::<String>(STATE_KEY).await {
            Ok(Some(json)) => match serde_json::from_str::<sightline_core::changes::TimelineState>(&json)
                .map_err(|e| e.to_string())
                .and_then(|state| Timeline::restore(state).map_err(|e| e.to_string()))
            {
                Ok(timeline) => Some(timeline),
                Err(e) => {
                    chrome::warn(&format!("Sightline could not read its saved timeline ({e}); starting afresh"));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                chrome::warn(&format!("Sightline could not read its saved timeline: {e}"));
                None
            }
        };
        let timeline = match saved {
            Some(timeline) => timeline,
            None => {
                let mut fresh = Timeline::new();
                if let Ok(Some(named)) = chrome::local_storage_get::<NamedCheckpoints>(NAMED_KEY).await {
                    fresh.restore_named(named);
                }
                fresh
            }
        };
        let noise = read_noise_config().await;
        let sizes = crate::options::Options::read().await.sizes;
        let held = {
            let mut store = self.store.borrow_mut();
            if store.loaded {
                return;
            }
            store.timeline = timeline;
            // Pauses the flood guard kept on the timeline this one replaces are gone with it.
            self.flood.borrow_mut().timeline_replaced();
            let limits = sizes.limits(store.timeline.limits());
            store.timeline.set_limits(limits);
            store.timeline.set_noise_rules(NoiseRules::configured(noise.unwrap_or_default()));
            store.loaded = true;
            let early = std::mem::take(&mut store.early);
            let held = !early.is_empty();
            for kept in early {
                kept.record_in(&mut store.timeline);
            }
            held
        };
        if held {
            schedule_save(self);
        }
    }

    /// Applies the noise-rule changes in `chrome.storage.local` (they may have changed since the
    /// timeline was loaded).
    pub async fn refresh_noise_rules(&self) {
        let noise = read_noise_config().await;
        self.store.borrow_mut().timeline.set_noise_rules(NoiseRules::configured(noise.unwrap_or_default()));
    }

    /// Keeps at most `sizes` (bounded) in the timeline's logs from now on. Closes still waiting
    /// for their code keep waiting: this is no read.
    pub fn set_log_sizes(&self, sizes: sightline_core::sizes::Sizes) {
        let mut store = self.store.borrow_mut();
        let limits = sizes.limits(store.timeline.limits());
        store.timeline.set_limits(limits);
    }

    /// Runs `f` on the timeline, with every WebSocket close still waiting for its code recorded
    /// first (a report must not miss a close that already happened).
    pub fn with_timeline<R>(&self, f: impl FnOnce(&mut Timeline) -> R) -> R {
        let mut store = self.store.borrow_mut();
        for event in store.recorder.flush_closes(timer::epoch_ms(), 0) {
            store.keep(Kept::WebSocket(event));
        }
        f(&mut store.timeline)
    }

    /// How many images, style sheets and fonts `tab` is loading that were sent at most
    /// `max_age_ms` ago (see [`Recorder::rendering_loads`]).
    pub fn rendering_loads(&self, tab: i32, max_age_ms: u64) -> usize {
        let Ok(tab) = u32::try_from(tab) else { return 0 };
        self.store.borrow().recorder.rendering_loads(tab, timer::epoch_ms(), max_age_ms)
    }

    /// Writes the whole timeline to `chrome.storage.session` now.
    pub async fn save_timeline(&self) {
        let saved = {
            let mut store = self.store.borrow_mut();
            // What is taken now is what this save writes; later changes need another.
            store.unsaved = false;
            store.save_soon = false;
            // Never overwrite what was saved with a timeline that has not read it yet (reading
            // it schedules a save of what arrived meanwhile).
            if !store.loaded {
                return;
            }
            store.timeline.saved_text(SAVED_MAX_BYTES)
        };
        let result = match saved {
            Ok(saved) => {
                // The text goes over as one JavaScript string, copied once, and is not kept
                // while the browser writes it (see `session_storage_set`).
                let writing = chrome::session_storage_set_js(STATE_KEY, &JsValue::from_str(&saved.text));
                drop(saved);
                writing.await.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        };
        self.saved("timeline", result);
    }

    /// Writes the named checkpoints to `chrome.storage.local`, where they outlive the browser.
    pub async fn save_named_checkpoints(&self) {
        let named = self.store.borrow().timeline.named_checkpoints();
        if let Err(e) = chrome::local_storage_set(NAMED_KEY, &named).await {
            chrome::warn(&format!("Sightline could not save its named checkpoints: {e}"));
        }
    }

    /// Marks the agent as acting: page input reported meanwhile is the agent's, not the user's.
    pub fn agent_acting(self: &Rc<Self>) -> AgentActing {
        self.store.borrow_mut().intake.agent_started();
        AgentActing { timeline: self.clone() }
    }

    /// Records an agent action on `tab`.
    pub fn record_agent_action(&self, action: ActionEntry) {
        self.store.borrow_mut().keep(Kept::Action(action));
    }

    /// Forgets what an MCP session that went away had seen.
    pub fn forget_timeline_session(self: &Rc<Self>, session: &str) {
        if self.with_timeline(|t| t.forget_session(session)) {
            schedule_save(self);
        }
    }
}

impl TimelineState {
    /// Tells the timeline which tabs' entries may still be read: the controlled ones (a tab
    /// unshared or closed is no longer readable), except those on a site of no access, and
    /// which entries the person's no-access rules keep out.
    pub fn sync_readable_tabs(&self, tabs: &TabsState) {
        let hidden = self.no_access.borrow();
        let allowed = |t: &u32| !hidden.tabs.contains_key(t);
        let readable =
            tabs.registry.borrow().grants.tabs.keys().filter_map(|&t| u32::try_from(t).ok()).filter(allowed).collect();
        let policy = hidden.policy.clone();
        self.with_timeline(|t| {
            t.set_readable_tabs(Some(readable));
            t.set_no_access(policy);
        });
    }

    /// [`Self::with_timeline`] as `session` may read it: entries of the tabs it holds or that
    /// nobody holds, never those of another session's tabs.
    pub fn with_session_timeline<R>(&self, tabs: &TabsState, session: &str, f: impl FnOnce(&mut Timeline) -> R) -> R {
        let readable = {
            let tabs = tabs.registry.borrow();
            let hidden = self.no_access.borrow();
            let usable = |t: &&i32| tabs.grants.access(**t, session) != sightline_core::custody::Access::Another;
            let allowed = |t: &u32| !hidden.tabs.contains_key(t);
            tabs.grants.tabs.keys().filter(usable).filter_map(|&t| u32::try_from(t).ok()).filter(allowed).collect()
        };
        let policy = self.no_access.borrow().policy.clone();
        let result = self.with_timeline(|t| {
            t.set_readable_tabs(Some(readable));
            t.set_no_access(policy);
            f(t)
        });
        // Back to what any reader may see: every controlled tab.
        self.sync_readable_tabs(tabs);
        result
    }

    /// Requests still waiting for their response, oldest first, in tabs the debugger is attached
    /// to: a tab closed or detached meanwhile will never report an answer, so its requests are not
    /// shown as waiting.
    pub fn pending_requests(&self, tabs: &TabsState) -> Vec<PendingRequest> {
        let tabs = tabs.registry.borrow();
        let attached = |tab: u32| {
            i32::try_from(tab).is_ok_and(|tab| tabs.sessions.get(&tab).is_some_and(|session| session.attached))
        };
        self.store.borrow().recorder.pending().into_iter().filter(|request| attached(request.tab)).collect()
    }
}

async fn read_noise_config() -> Option<NoiseConfig> {
    match chrome::local_storage_get::<NoiseConfig>(NOISE_KEY).await {
        Ok(config) => config,
        Err(e) => {
            chrome::warn(&format!("Sightline ignores `{NOISE_KEY}` in chrome.storage.local: {e}"));
            None
        }
    }
}
