//! Before each capture, a probe asks the tab whether anything changed since its last capture
//! (the readings and the rule are the engine's, `sightline_core::capture::probe`); when nothing
//! did, that capture is used again and the browser is not asked for its payloads a second time.
//!
//! The page's half of the probe is the watch (`hooks/watch.js`), added to every document of a
//! controlled tab in its own isolated world, and read by `hooks/probe.js` in the same world.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::{Value, json};
use sightline_core::capture::Capture;
use sightline_core::capture::probe::{NotVouched, PageProbe, ProbeReplies, TargetReplies};
use sightline_core::cdp::page::FrameTreeResult;

use crate::cdp;
use crate::chrome::DebuggeeTarget;
use crate::state::State;

/// The isolated world the watch runs in.
const WATCH_WORLD: &str = "sightline-watch";

/// The page's watch, added at document start (see `page_hooks`).
const WATCH_HOOK: &str = include_str!("hooks/watch.js");

/// The parameters of `Page.addScriptToEvaluateOnNewDocument` that add the watch to every
/// document of a target, the current one included.
pub fn watch_hook_params() -> Value {
    json!({"source": WATCH_HOOK, "worldName": WATCH_WORLD, "runImmediately": true})
}

/// Reads the watch.
const PROBE: &str = include_str!("hooks/probe.js");

/// Longest one reading of a probe may take; a page this slow to answer is captured afresh.
const PROBE_TIMEOUT_MS: u32 = 2_000;

/// A tab's last capture, with the probe read just before it was taken.
#[derive(Debug)]
pub struct KeptCapture {
    /// The probe.
    pub probe: PageProbe,
    /// The capture.
    pub capture: Rc<Capture>,
}

/// Probes the tab: the readings when they vouch for the page, or why they cannot.
pub async fn probe(state: &State, tab_id: i32) -> Result<PageProbe, NotVouched> {
    let children: Vec<String> = state.tabs.borrow().frames(tab_id).child_sessions().map(str::to_owned).collect();
    let targets = std::iter::once(None)
        .chain(children.into_iter().map(Some))
        .map(|session_id| DebuggeeTarget { tab_id, session_id });
    let main = DebuggeeTarget::main(tab_id);
    let (targets, layout) = futures::join!(
        futures::future::join_all(targets.map(|target| async move { probe_target(&target).await })),
        cdp::send_to::<Value>(&main, "Page.getLayoutMetrics", json!({}), PROBE_TIMEOUT_MS),
    );
    PageProbe::read(ProbeReplies { targets, layout: layout.ok() })
}

/// Probes one target: its frame tree, then the watch in each of its frames — reading it brings
/// style and layout up to date, so a change the page made just before is counted now rather
/// than laid out by the capture after the counters were read — then the renderer's counters.
async fn probe_target(target: &DebuggeeTarget) -> TargetReplies {
    let frame_tree =
        cdp::send_to::<FrameTreeResult>(target, "Page.getFrameTree", json!({}), PROBE_TIMEOUT_MS).await.ok();
    let frames: Vec<String> = frame_tree
        .as_ref()
        .map(|tree| tree.frame_tree.frames().into_iter().map(|f| f.id.clone()).collect())
        .unwrap_or_default();
    let watches = futures::future::join_all(
        frames.into_iter().map(|frame| async move { (frame.clone(), read_watch(target, &frame).await) }),
    )
    .await;
    let metrics = cdp::send_to::<Value>(target, "Performance.getMetrics", json!({}), PROBE_TIMEOUT_MS).await.ok();
    TargetReplies { frame_tree, metrics, watches }
}

/// The watch world's execution context in `frame_id` (created empty when the watch never ran
/// there).
pub async fn watch_context(target: &DebuggeeTarget, frame_id: &str) -> Option<i64> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct World {
        execution_context_id: i64,
    }
    let params = json!({"frameId": frame_id, "worldName": WATCH_WORLD});
    let world: World = cdp::send_to(target, "Page.createIsolatedWorld", params, PROBE_TIMEOUT_MS).await.ok()?;
    Some(world.execution_context_id)
}

/// The watch's reading in one frame; `None` when it could not be read.
async fn read_watch(target: &DebuggeeTarget, frame_id: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Evaluated {
        result: Remote,
    }
    #[derive(Deserialize)]
    struct Remote {
        #[serde(default)]
        value: Option<Value>,
    }
    let context = watch_context(target, frame_id).await?;
    let params = json!({"expression": PROBE, "contextId": context, "returnByValue": true});
    let evaluated: Evaluated = cdp::send_to(target, "Runtime.evaluate", params, PROBE_TIMEOUT_MS).await.ok()?;
    evaluated.result.value
}
