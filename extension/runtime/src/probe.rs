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
use sightline_core::capture::probe::{NotVouched, PageProbe, ProbeReplies};
use sightline_core::cdp::page::FrameTreeResult;

use crate::cdp;
use crate::chrome::DebuggeeTarget;
use crate::state::State;

/// The isolated world the watch runs in.
pub const WATCH_WORLD: &str = "sightline-watch";

/// The page's watch, added at document start (see `page_hooks`).
pub const WATCH_HOOK: &str = include_str!("hooks/watch.js");

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
///
/// The watch is read first, and reading it brings style and layout up to date (a change the
/// page made just before would otherwise be laid out only by the capture, after the counters
/// were read); then the counters and the viewport.
pub async fn probe(state: &State, tab_id: i32) -> Result<PageProbe, NotVouched> {
    let (child_sessions, frame) = {
        let frames = state.tabs.borrow().frames(tab_id);
        (frames.child_sessions().count(), frames.main_frame().to_owned())
    };
    if child_sessions > 0 {
        return Err(NotVouched::OutOfProcessFrames);
    }
    let main = DebuggeeTarget::main(tab_id);
    let (tree, watch) = futures::join!(
        cdp::send_to::<FrameTreeResult>(&main, "Page.getFrameTree", json!({}), PROBE_TIMEOUT_MS),
        read_watch(&main, &frame),
    );
    let (metrics, layout) = futures::join!(
        cdp::send_to::<Value>(&main, "Performance.getMetrics", json!({}), PROBE_TIMEOUT_MS),
        cdp::send_to::<Value>(&main, "Page.getLayoutMetrics", json!({}), PROBE_TIMEOUT_MS),
    );
    let replies =
        ProbeReplies { frame_tree: tree.ok(), metrics: metrics.ok(), layout: layout.ok(), watch, child_sessions };
    PageProbe::read(replies)
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

/// The watch's reading in the main frame; `None` when it could not be read.
async fn read_watch(main: &DebuggeeTarget, frame_id: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Evaluated {
        result: Remote,
    }
    #[derive(Deserialize)]
    struct Remote {
        #[serde(default)]
        value: Option<Value>,
    }
    let context = watch_context(main, frame_id).await?;
    let params = json!({"expression": PROBE, "contextId": context, "returnByValue": true});
    let evaluated: Evaluated = cdp::send_to(main, "Runtime.evaluate", params, PROBE_TIMEOUT_MS).await.ok()?;
    evaluated.result.value
}
