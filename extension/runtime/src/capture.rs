//! One capture of a tab: drives the engine's capture plan (`sightline_core::capture::plan`)
//! over `chrome.debugger`, sending each request as soon as the plan allows it and all of them
//! concurrently, for the page and each out-of-process iframe through its own flat session.
//!
//! Each capture starts with a probe (`crate::probe`): when it vouches that nothing changed since
//! the tab's last capture, that capture is used again and nothing more is asked of the browser.
//! After a load, a capture is taken ahead of the wait for a quiet DOM ([`capture_ahead`]); the
//! navigation answers with it when the DOM did not change until the page settled.
//!
//! No accessibility tree is asked for: the engine derives roles and names from the DOM
//! snapshot (`sightline_core::snapshot::semantics`). Each reply is read into the engine's types
//! as it arrives, while the browser still works on the others. The time spent reading and the time spent
//! waiting on the browser are measured apart, and each request's own wait per CDP method.

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde::de::DeserializeOwned;
use sightline_core::capture::Capture;
use sightline_core::capture::plan::{CapturePlan, Payload, RolesFrom};
use sightline_core::capture::probe::{NotVouched, PageProbe};
use wasm_bindgen::JsValue;

use crate::cdp;
use crate::chrome::{self, DebuggeeTarget};
use crate::error::ToolError;
use crate::probe::{self, KeptCapture};
use crate::state::TabsState;
use crate::timer;

/// A capture and what it cost.
pub struct Captured {
    /// The payloads.
    pub capture: Rc<Capture>,
    /// Whether they are the tab's last capture, used again.
    pub reused: bool,
    /// Whether they are kept for the next look (the probe before them vouched for the page).
    pub kept: bool,
    /// What it cost.
    pub costs: CaptureCosts,
}

/// What one capture cost, in milliseconds.
#[derive(Debug, Clone, Default)]
pub struct CaptureCosts {
    /// The probe.
    pub probe_ms: f64,
    /// Waiting on CDP, less the reading done meanwhile (nothing when the last capture was used
    /// again): with `convert_ms`, the capture's wall time.
    pub capture_ms: f64,
    /// Reading the payloads into the engine's types, as they arrived.
    pub convert_ms: f64,
    /// From request to reply per CDP method (the slowest of each).
    pub by_method: BTreeMap<String, f64>,
}

/// A reply as `chrome.debugger` handed it over.
struct JsPayload(JsValue);

impl Payload for JsPayload {
    /// Reads the reply through its JSON text ([`chrome::from_json`]).
    fn decode<T: DeserializeOwned>(&self) -> Result<T, String> {
        chrome::from_json(&self.0).map_err(|e| e.to_string())
    }
}

/// Captures the tab's page and its out-of-process iframes.
pub async fn capture(tabs: &TabsState, tab_id: i32) -> Result<Captured, ToolError> {
    let (probe, held, probe_ms) = timed_probe(tabs, tab_id).await;
    let kept = tabs.registry.borrow().sessions.get(&tab_id).and_then(|s| s.kept.clone());
    if let (Ok(now), Some(kept)) = (&probe, kept)
        && kept.probe == *now
    {
        let capture = kept.capture.clone();
        let costs = CaptureCosts { probe_ms, ..CaptureCosts::default() };
        return Ok(Captured { capture, reused: true, kept: true, costs });
    }
    take(tabs, tab_id, probe.ok(), held, probe_ms).await
}

/// A capture taken ahead of a wait (see [`capture_ahead`]).
pub struct Ahead {
    /// What it cost.
    pub costs: CaptureCosts,
    /// The DOM mutations the main frame's watch had counted just before it.
    pub dom_mutations: u64,
}

/// Captures the tab and keeps the capture for the next look, but only when the probe vouches
/// for the page: whoever waits after it must be able to tell whether the DOM changed since.
/// `None` when the probe cannot vouch or the capture failed (the look after the wait captures
/// then, and reports any error).
pub async fn capture_ahead(tabs: &TabsState, tab_id: i32) -> Option<Ahead> {
    let (probe, held, probe_ms) = timed_probe(tabs, tab_id).await;
    let probe = probe.ok()?;
    let dom_mutations = probe.main_frame_mutations();
    let captured = take(tabs, tab_id, Some(probe), held, probe_ms).await.ok()?;
    Some(Ahead { costs: captured.costs, dom_mutations })
}

/// The tab's kept capture, as it is, without a probe: for a caller that knows the page did not
/// change since (see [`capture_ahead`]).
pub fn kept(tabs: &TabsState, tab_id: i32) -> Option<Captured> {
    let kept = tabs.registry.borrow().sessions.get(&tab_id).and_then(|s| s.kept.clone())?;
    Some(Captured { capture: kept.capture.clone(), reused: false, kept: true, costs: CaptureCosts::default() })
}

/// Probes the tab, and says how long that took.
async fn timed_probe(tabs: &TabsState, tab_id: i32) -> (Result<PageProbe, NotVouched>, probe::Held, f64) {
    let probing = timer::now_ms();
    let (probe, held) = probe::probe(tabs, tab_id).await;
    (probe, held, timer::now_ms() - probing)
}

/// Asks the browser for the payloads, sending each request as soon as the plan allows and
/// handing each reply to the plan as it arrives: the plan reads it into the engine's types while
/// the browser still works on the requests after it. The capture is kept with `probe`, read
/// before it, when there is one. The page's frame tree and layout metrics that probe read just
/// before (`held`) are not asked for again: nothing happened in between, and a page that
/// changes meanwhile shows in the next probe, as any change during a capture does.
async fn take(
    tabs: &TabsState,
    tab_id: i32,
    probe: Option<PageProbe>,
    held: probe::Held,
    probe_ms: f64,
) -> Result<Captured, ToolError> {
    let started = timer::now_ms();
    let children: Vec<String> = tabs.registry.borrow().frames(tab_id).child_sessions().map(str::to_owned).collect();
    let mut plan: CapturePlan<JsPayload> = CapturePlan::new(children, RolesFrom::Dom);
    let reading = timer::now_ms();
    plan.already_answered(held.frame_tree.map(JsPayload), held.layout.map(JsPayload));
    let mut convert_ms = timer::now_ms() - reading;
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
            Ok(value) => {
                let reading = timer::now_ms();
                plan.reply(request.id, Some(JsPayload(value)));
                convert_ms += timer::now_ms() - reading;
            }
            // Without the page's own frame tree or DOM snapshot there is nothing to show.
            Err(e) if request.required => return Err(e.into()),
            Err(_) => plan.reply(request.id, None),
        }
    }
    let capture = Rc::new(plan.finish()?.into_capture());
    // Reading overlapped the waiting; the rest of the wall time was spent waiting.
    let capture_ms = (timer::now_ms() - started - convert_ms).max(0.0);
    // Kept only when the probe, read before the capture, vouches for the page: any change
    // during the capture shows in the next probe.
    let kept = probe.map(|probe| Rc::new(KeptCapture { probe, capture: capture.clone() }));
    let is_kept = kept.is_some();
    if let Some(session) = tabs.registry.borrow_mut().sessions.get_mut(&tab_id) {
        session.kept = kept;
    }
    let costs = CaptureCosts { probe_ms, capture_ms, convert_ms, by_method };
    Ok(Captured { capture, reused: false, kept: is_kept, costs })
}
