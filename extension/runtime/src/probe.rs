//! Before each capture, a probe asks the tab whether anything changed since its last capture
//! (the readings and the rule are the engine's, `sightline_core::capture::probe`); when nothing
//! did, that capture is used again and the browser is not asked for its payloads a second time.
//!
//! The page's half of the probe is the watch (`hooks/watch.js`), added to every document of a
//! controlled tab in its own isolated world, and read by `hooks/probe.js` in the same world.

use std::rc::Rc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use sightline_core::capture::Capture;
use sightline_core::capture::probe::{NotVouched, PageProbe, ProbeReplies, TargetReplies};
use sightline_core::cdp::page::FrameTreeResult;

use crate::cdp::{self, CdpError};
use crate::chrome::{self, DebuggeeTarget};
use crate::state::TabsState;
use wasm_bindgen::JsValue;

/// The isolated world the watch runs in.
pub(crate) const WATCH_WORLD: &str = "sightline-watch";

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

/// Replies a probe read that a capture right after it asks for too: the page's frame tree and
/// layout metrics, as the browser handed them over. A capture that follows the probe with
/// nothing in between uses them instead of asking again (see `crate::capture`).
#[derive(Default)]
pub struct Held {
    /// `Page.getFrameTree` of the page's own target.
    pub frame_tree: Option<JsValue>,
    /// `Page.getLayoutMetrics` of the page.
    pub layout: Option<JsValue>,
}

/// Probes the tab: the readings when they vouch for the page, or why they cannot; and the
/// replies a capture can use again.
pub async fn probe(tabs: &TabsState, tab_id: i32) -> (Result<PageProbe, NotVouched>, Held) {
    let children: Vec<String> = tabs.registry.borrow().frames(tab_id).child_sessions().map(str::to_owned).collect();
    let targets = std::iter::once(None)
        .chain(children.into_iter().map(Some))
        .map(|session_id| DebuggeeTarget { tab_id, session_id });
    let main = DebuggeeTarget::main(tab_id);
    let (targets, layout) = futures::join!(
        futures::future::join_all(targets.map(|target| async move { probe_target(tabs, &target).await })),
        cdp::send_raw(&main, "Page.getLayoutMetrics", json!({}), PROBE_TIMEOUT_MS),
    );
    let layout = layout.ok();
    let mut held = Held { frame_tree: None, layout: layout.clone() };
    let targets: Vec<TargetReplies> = targets
        .into_iter()
        .enumerate()
        .map(|(at, (replies, frame_tree))| {
            if at == 0 {
                held.frame_tree = frame_tree;
            }
            replies
        })
        .collect();
    let layout = layout.and_then(|raw| chrome::from_json::<Value>(&raw).ok());
    (PageProbe::read(ProbeReplies { targets, layout }), held)
}

/// Probes one target: its frame tree and the watch in each of its frames — reading it brings
/// style and layout up to date, so a change the page made just before is counted now rather
/// than laid out by the capture after the counters were read — then the renderer's counters.
///
/// The watch is read at once, beside the frame tree, in the frames whose watch world the tab's
/// events reported for their current document; a frame the tree shows that was not read then
/// (its world was not reported) is read once the tree is in. Every reading is in before the
/// counters are asked for. The frame tree is handed back as the browser gave it, too.
async fn probe_target(tabs: &TabsState, target: &DebuggeeTarget) -> (TargetReplies, Option<JsValue>) {
    let known: Vec<String> = tabs
        .registry
        .borrow()
        .frames(target.tab_id)
        .frames_with_world(target.session_id.as_deref(), WATCH_WORLD)
        .map(str::to_owned)
        .collect();
    let read_all = |frames: Vec<String>| {
        futures::future::join_all(
            frames.into_iter().map(|frame| async move { (frame.clone(), read_watch(tabs, target, &frame).await) }),
        )
    };
    let (frame_tree, mut watches, ()) = futures::join!(
        cdp::send_raw(target, "Page.getFrameTree", json!({}), PROBE_TIMEOUT_MS),
        read_all(known),
        count_layouts(tabs, target),
    );
    let raw_tree = frame_tree.ok();
    let frame_tree = raw_tree.as_ref().and_then(|raw| chrome::from_json::<FrameTreeResult>(raw).ok());
    let unread: Vec<String> = frame_tree
        .iter()
        .flat_map(|tree| tree.frame_tree.frames())
        .filter(|frame| !watches.iter().any(|(read, _)| *read == frame.id))
        .map(|frame| frame.id.clone())
        .collect();
    if !unread.is_empty() {
        watches.extend(read_all(unread).await);
    }
    let metrics = cdp::send_to::<Value>(target, "Performance.getMetrics", json!({}), PROBE_TIMEOUT_MS).await.ok();
    (TargetReplies { frame_tree, metrics, watches }, raw_tree)
}

/// Turns on the main frame's layout counters if they are off (see [`pause_layout_counters`]).
/// Counting starts now; a capture is compared only with probes read after it, so nothing
/// before matters. Child sessions count from when they are prepared.
async fn count_layouts(tabs: &TabsState, target: &DebuggeeTarget) {
    let counting = tabs.registry.borrow().sessions.get(&target.tab_id).is_some_and(|s| s.counting_layouts);
    if target.session_id.is_some() || counting {
        return;
    }
    if cdp::send_to::<Value>(target, "Performance.enable", json!({}), PROBE_TIMEOUT_MS).await.is_ok()
        && let Some(session) = tabs.registry.borrow_mut().sessions.get_mut(&target.tab_id)
    {
        session.counting_layouts = true;
    }
}

/// Turns the main frame's layout counters off before the tab loads a document: counting costs
/// the renderer time on every task, and during a load nothing reads them (the probe after the
/// load turns them on again). The kept capture goes too, as its counters are no longer
/// comparable with later ones.
pub async fn pause_layout_counters(tabs: &TabsState, tab_id: i32) {
    let counting = match tabs.registry.borrow_mut().sessions.get_mut(&tab_id) {
        Some(session) => {
            session.kept = None;
            std::mem::take(&mut session.counting_layouts)
        }
        None => false,
    };
    if counting {
        let main = DebuggeeTarget::main(tab_id);
        let _ = cdp::send_to::<Value>(&main, "Performance.disable", json!({}), PROBE_TIMEOUT_MS).await;
    }
}

/// The watch world's execution context in `frame_id` of `target`: the one the tab's events
/// reported for the frame's current document, else the one `Page.createIsolatedWorld` finds
/// (created empty when the watch never ran there), which is then remembered. The flag says
/// whether it came from what was remembered.
async fn watch_context(tabs: &TabsState, target: &DebuggeeTarget, frame_id: &str) -> Option<(i64, bool)> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct World {
        execution_context_id: i64,
    }
    let session = target.session_id.as_deref();
    let remembered = tabs.registry.borrow().frames(target.tab_id).world_context(session, frame_id, WATCH_WORLD);
    if let Some(id) = remembered {
        return Some((id, true));
    }
    let params = json!({"frameId": frame_id, "worldName": WATCH_WORLD});
    let world: World = cdp::send_to(target, "Page.createIsolatedWorld", params, PROBE_TIMEOUT_MS).await.ok()?;
    if let Some(frames) = tabs.registry.borrow_mut().frames_of_mut(target.tab_id) {
        frames.remember_world(session, frame_id, WATCH_WORLD, world.execution_context_id);
    }
    Some((world.execution_context_id, false))
}

/// Runs `params`, a `Runtime.evaluate`, in the watch world of `frame_id` of `target`; `None`
/// when that world could not be found. A remembered context the browser no longer knows (its
/// document went before its events arrived) is forgotten, and the world looked up afresh, once.
pub async fn evaluate_in_watch<T: DeserializeOwned>(
    tabs: &TabsState,
    target: &DebuggeeTarget,
    frame_id: &str,
    params: &Value,
    timeout_ms: u32,
) -> Option<Result<T, CdpError>> {
    let in_context = |context: i64| {
        let mut params = params.clone();
        params["contextId"] = context.into();
        cdp::send_to(target, "Runtime.evaluate", params, timeout_ms)
    };
    let (context, remembered) = watch_context(tabs, target, frame_id).await?;
    let result = in_context(context).await;
    if !(remembered && matches!(result, Err(CdpError::UnknownContext { .. }))) {
        return Some(result);
    }
    if let Some(frames) = tabs.registry.borrow_mut().frames_of_mut(target.tab_id) {
        frames.forget_world(target.session_id.as_deref(), context);
    }
    let (context, _) = watch_context(tabs, target, frame_id).await?;
    Some(in_context(context).await)
}

/// The watch's reading in one frame; `None` when it could not be read.
async fn read_watch(tabs: &TabsState, target: &DebuggeeTarget, frame_id: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Evaluated {
        result: Remote,
    }
    #[derive(Deserialize)]
    struct Remote {
        #[serde(default)]
        value: Option<Value>,
    }
    let params = json!({"expression": PROBE, "returnByValue": true});
    let evaluated: Evaluated = evaluate_in_watch(tabs, target, frame_id, &params, PROBE_TIMEOUT_MS).await?.ok()?;
    evaluated.result.value
}
