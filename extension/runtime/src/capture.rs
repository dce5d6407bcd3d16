//! One capture of a tab: drives the engine's capture plan (`sightline_core::capture::plan`)
//! over `chrome.debugger`, sending each request as soon as the plan allows it and all of them
//! concurrently, for the page and each out-of-process iframe through its own flat session.
//!
//! Each capture starts with a probe (`crate::probe`): when it vouches that nothing changed since
//! the tab's last capture, that capture is used again and nothing more is asked of the browser.
//!
//! Replies are kept as they arrive (JS values) and converted into the engine's types only once
//! all are in, so the time spent waiting on the browser and the time spent converting are
//! measured apart; each request's own wait is measured too, per CDP method.

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde::de::DeserializeOwned;
use sightline_core::capture::Capture;
use sightline_core::capture::plan::{CapturePlan, Payload};
use wasm_bindgen::JsValue;

use crate::cdp;
use crate::chrome::{self, DebuggeeTarget};
use crate::error::ToolError;
use crate::probe::{self, KeptCapture};
use crate::state::State;
use crate::timer;

/// A capture and what it cost.
pub struct Captured {
    /// The payloads.
    pub capture: Rc<Capture>,
    /// Whether they are the tab's last capture, used again.
    pub reused: bool,
    /// Whether they are kept for the next look (the probe before them vouched for the page).
    pub kept: bool,
    /// Milliseconds the probe took.
    pub probe_ms: f64,
    /// Milliseconds spent waiting on CDP.
    pub capture_ms: f64,
    /// Milliseconds spent converting the payloads into the engine's types.
    pub convert_ms: f64,
    /// Milliseconds from request to reply per CDP method (the slowest of each).
    pub by_method: BTreeMap<String, f64>,
}

/// A reply as `chrome.debugger` handed it over.
struct JsPayload(JsValue);

impl Payload for JsPayload {
    /// Reads the reply through its JSON text: `JSON.stringify` walks the JS objects natively and
    /// `serde_json` parses the one string in wasm, skipping the fields the engine does not read.
    /// For the megabytes of a large page's accessibility tree this is several times faster than
    /// converting object by object across the wasm boundary.
    fn decode<T: DeserializeOwned>(&self) -> Result<T, String> {
        let text = js_sys::JSON::stringify(&self.0).map_err(|e| chrome::ChromeError::from(e).to_string())?;
        let text = text.as_string().ok_or("the reply is not JSON")?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }
}

/// Captures the tab's page and its out-of-process iframes.
pub async fn capture(state: &State, tab_id: i32) -> Result<Captured, ToolError> {
    let probing = timer::now_ms();
    let probe = probe::probe(state, tab_id).await;
    let probe_ms = timer::now_ms() - probing;
    let kept = state.tabs.borrow().sessions.get(&tab_id).and_then(|s| s.kept.clone());
    if let (Ok(now), Some(kept)) = (&probe, kept)
        && kept.probe == *now
    {
        let capture = kept.capture.clone();
        return Ok(Captured {
            capture,
            reused: true,
            kept: true,
            probe_ms,
            capture_ms: 0.0,
            convert_ms: 0.0,
            by_method: BTreeMap::new(),
        });
    }
    let started = timer::now_ms();
    let children: Vec<String> = state.tabs.borrow().frames(tab_id).child_sessions().map(str::to_owned).collect();
    let mut plan: CapturePlan<JsPayload> = CapturePlan::new(children);
    let mut running = FuturesUnordered::new();
    let mut by_method: BTreeMap<String, f64> = BTreeMap::new();
    loop {
        for request in plan.requests() {
            let target = DebuggeeTarget { tab_id, session_id: request.session.clone() };
            running.push(async move {
                let sent = timer::now_ms();
                let reply = cdp::send_raw(&target, request.method, request.params.clone(), request.timeout_ms).await;
                (request, reply, timer::now_ms() - sent)
            });
        }
        let Some((request, reply, took)) = running.next().await else { break };
        let slowest = by_method.entry(request.method.to_owned()).or_default();
        *slowest = slowest.max(took);
        match reply {
            Ok(value) => plan.reply(request.id, Some(JsPayload(value))),
            // Without the page's own frame tree or DOM snapshot there is nothing to show.
            Err(e) if request.required => return Err(e.into()),
            Err(_) => plan.reply(request.id, None),
        }
    }
    let parts = plan.finish()?;
    let capture_ms = timer::now_ms() - started;
    let converting = timer::now_ms();
    let capture = Rc::new(parts.decode()?);
    let convert_ms = timer::now_ms() - converting;
    // Kept only when the probe, read before the capture, vouches for the page: any change
    // during the capture shows in the next probe.
    let kept = probe.ok().map(|probe| Rc::new(KeptCapture { probe, capture: capture.clone() }));
    let is_kept = kept.is_some();
    if let Some(session) = state.tabs.borrow_mut().sessions.get_mut(&tab_id) {
        session.kept = kept;
    }
    Ok(Captured { capture, reused: false, kept: is_kept, probe_ms, capture_ms, convert_ms, by_method })
}
