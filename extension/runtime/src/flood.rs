//! The console flood guard's I/O. What it decides (which events count, per tab and target
//! whether a message is kept, dropped or trips a pause, and for how long) is
//! `sightline_core::changes::flood`; here the runtime reads each event's stamp without
//! converting it, switches a flooding target's console off and back on over CDP
//! (`Runtime.disable` and `Log.disable` on its session, then the stored messages discarded so
//! the browser does not replay them in one burst), and hands each pause and what it dropped to
//! the timeline, where the change report and the console listing say which console was paused,
//! why, and how many messages (and characters) were dropped.
//!
//! The service worker's JavaScript measures each counted event's text and cuts its long strings
//! before the runtime sees it (a 1 MiB argument is never copied into the runtime). It prepares
//! network events there too (`trimNetworkEvent` in `sw.js`): the strings a page controls the
//! length of (a 1.5 MB URL, a large WebSocket frame) cut well past the
//! [`MAX_RECORDED_TEXT`](sightline_core::changes::MAX_RECORDED_TEXT) characters the recorder keeps,
//! and what nothing here reads (the sending script's stack, headers, request bodies, timings,
//! certificate details) deleted, so neither is ever copied into the runtime's memory.

use std::rc::Rc;

use serde_json::json;

use sightline_core::changes::ConsolePause;
use sightline_core::changes::flood::Dropped;
pub use sightline_core::changes::flood::{Admit, FloodGuard, Flooded, GUARDED, Session, counts};
use wasm_bindgen::JsValue;

use crate::chrome::{self, DebuggeeTarget};
use crate::state::{TabsState, TimelineState};
use crate::{cdp, timer};

/// For an event the guard counts ([`counts`]), when the page logged it (epoch ms, when it says):
/// `timestamp` of a console call or an exception, `entry.timestamp` of a log entry. Read without
/// converting the rest of it; `None` for an event the guard does not count.
pub fn counted_stamp(method: &str, params: &JsValue) -> Option<Option<f64>> {
    if !GUARDED.contains(&method) {
        return None;
    }
    let get = chrome::property;
    let owner = if method == "Log.entryAdded" { get(params, "entry")? } else { params.clone() };
    let source = if method == "Log.entryAdded" { get(&owner, "source").and_then(|s| s.as_string()) } else { None };
    counts(method, source.as_deref()).then(|| get(&owner, "timestamp").and_then(|v| v.as_f64()))
}

/// Hands the timeline what the guard dropped since it was last told, before it is read.
pub fn record_dropped(timeline: &TimelineState) {
    let dropped = timeline.flood.borrow_mut().take_all_dropped();
    tell_timeline(timeline, &dropped);
}

fn tell_timeline(timeline: &TimelineState, dropped: &[Dropped]) {
    if dropped.is_empty() {
        return;
    }
    timeline.with_timeline(|t| {
        for d in dropped {
            t.console_dropped(d.pause_id, d.messages, d.characters);
        }
    });
}

/// Frame `frame_id` of the out-of-process frame `session` of `tab` shows `url` now.
pub fn frame_navigated(timeline: &TimelineState, tab: i32, session: &str, frame_id: &str, url: &str) {
    let paused_unknown = timeline.flood.borrow_mut().frame_navigated(tab, session, frame_id, url);
    if let Some(pause_id) = paused_unknown {
        timeline.with_timeline(|t| t.console_pause_frame(pause_id, url));
    }
}

/// An out-of-process frame's session went away.
pub fn frame_detached(timeline: &TimelineState, tab: i32, session: &str) {
    let dropped = timeline.flood.borrow_mut().frame_detached(tab, session);
    tell_timeline(timeline, dropped.as_slice());
}

/// A tab closed.
pub fn tab_closed(timeline: &TimelineState, tab: i32) {
    let dropped = timeline.flood.borrow_mut().forget(tab);
    tell_timeline(timeline, &dropped);
}

/// Pauses the console of `session` of `tab` (its page's when `None`) for `pause_ms`, keeping the
/// pause on the timeline, then turns it back on (the page's with the page hooks' bindings, which
/// `Runtime.disable` drops). `characters`: the text of the message that tripped it.
pub fn pause(
    tabs: &Rc<TabsState>,
    timeline: &Rc<TimelineState>,
    tab: i32,
    session: Session,
    pause_ms: u32,
    why: Flooded,
    characters: f64,
) {
    let now = timer::epoch_ms();
    let (earlier, frame) = {
        let mut guard = timeline.flood.borrow_mut();
        (guard.take_dropped_of(tab, &session), guard.frame_url(tab, &session))
    };
    tell_timeline(timeline, earlier.as_slice());
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
    let pause_id = timeline.with_timeline(|t| t.console_paused(pause));
    timeline.flood.borrow_mut().paused_as(tab, &session, pause_id, characters);
    let (tabs, timeline) = (tabs.clone(), timeline.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let target = DebuggeeTarget { tab_id: tab, session_id: session.clone() };
        let off = |method| cdp::send_to::<serde_json::Value>(&target, method, json!({}), cdp::COMMAND_TIMEOUT_MS);
        // Answered once what was logged before they took effect has reached the worker: the pause
        // counts from there.
        let _ = futures::future::join(off("Runtime.disable"), off("Log.disable")).await;
        timer::sleep(pause_ms).await;
        let resumed_ms = timer::epoch_ms();
        let resumed = timeline.flood.borrow_mut().resume(tab, &session, resumed_ms as f64);
        tell_timeline(&timeline, resumed.dropped.as_slice());
        if let Some(pause_id) = resumed.pause_id {
            timeline.with_timeline(|t| t.console_resumed(pause_id, resumed_ms));
        }
        let bindings = {
            let tabs = tabs.registry.borrow();
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
