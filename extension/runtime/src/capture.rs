//! One capture of a tab: drives the engine's capture plan (`sightline_core::capture::plan`)
//! over `chrome.debugger`, sending each request as soon as the plan allows it and all of them
//! concurrently, for the page and each out-of-process iframe through its own flat session.
//!
//! Replies are kept as they arrive (JS values) and converted into the engine's types only once
//! all are in, so the time spent waiting on the browser and the time spent converting are
//! measured apart; each request's own wait is measured too, per CDP method.

use std::collections::BTreeMap;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde::de::DeserializeOwned;
use sightline_core::capture::Capture;
use sightline_core::capture::plan::{CapturePlan, Payload};
use wasm_bindgen::JsValue;

use crate::cdp;
use crate::chrome::{self, DebuggeeTarget};
use crate::error::ToolError;
use crate::state::State;
use crate::timer;

/// A capture and what it cost.
pub struct Captured {
    /// The payloads.
    pub capture: Capture,
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
    let capture = parts.decode()?;
    Ok(Captured { capture, capture_ms, convert_ms: timer::now_ms() - converting, by_method })
}
