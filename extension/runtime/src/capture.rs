//! One capture of a tab: the CDP requests of `sightline_core::capture`, issued concurrently,
//! for the page and for each out-of-process iframe through its own flat session.
//!
//! The payloads are first gathered as they arrive (JS values) and only then converted into the
//! engine's types, so the time spent waiting on CDP and the time spent converting are measured
//! apart.

use futures::future::join_all;
use sightline_core::capture::{Capture, FrameAxTree, TargetCapture, ax_tree_params, capture_snapshot_params};
use sightline_core::cdp::page::FrameTreeResult;
use wasm_bindgen::JsValue;

use crate::cdp::{self, CdpError};
use crate::chrome::{self, DebuggeeTarget};
use crate::state::State;
use crate::timer;
use crate::tools::ToolError;

/// Capturing a large page's DOM snapshot can take a while; this is its limit.
const SNAPSHOT_TIMEOUT_MS: u32 = 30_000;

/// A capture and what it cost.
pub struct Captured {
    /// The payloads.
    pub capture: Capture,
    /// Milliseconds spent waiting on CDP.
    pub capture_ms: f64,
    /// Milliseconds spent converting the payloads into the engine's types.
    pub convert_ms: f64,
}

/// One target's payloads as they arrived.
struct RawTarget {
    frame_tree: FrameTreeResult,
    snapshot: JsValue,
    ax_trees: Vec<(String, JsValue)>,
    owner_backend_node_id: Option<i64>,
}

/// Captures the tab's page and its out-of-process iframes.
pub async fn capture(state: &State, tab_id: i32) -> Result<Captured, ToolError> {
    let started = timer::now_ms();
    let children: Vec<String> =
        state.tabs.borrow().sessions.get(&tab_id).map(|s| s.children.keys().cloned().collect()).unwrap_or_default();
    let main = DebuggeeTarget { tab_id, session_id: None };
    let layout = cdp::send_raw(&main, "Page.getLayoutMetrics", serde_json::json!({}), cdp::COMMAND_TIMEOUT_MS);
    let (main_raw, layout, child_raws) = futures::join!(
        capture_target(main.clone()),
        layout,
        join_all(children.into_iter().map(|session| capture_child(tab_id, session)))
    );
    let main_raw = main_raw?;
    let capture_ms = timer::now_ms() - started;

    let converting = timer::now_ms();
    let capture = Capture {
        main: convert(main_raw)?,
        // An iframe that went away mid-capture is simply not there any more.
        children: child_raws.into_iter().filter_map(Result::ok).filter_map(|raw| convert(raw).ok()).collect(),
        layout: layout.ok().and_then(|l| chrome::from_js(l).ok()).unwrap_or_default(),
    };
    Ok(Captured { capture, capture_ms, convert_ms: timer::now_ms() - converting })
}

fn convert(raw: RawTarget) -> Result<TargetCapture, ToolError> {
    let snapshot = chrome::from_js(raw.snapshot).map_err(|e| ToolError(format!("unreadable DOM snapshot: {e}")))?;
    let ax_trees = raw
        .ax_trees
        .into_iter()
        .filter_map(|(frame_id, tree)| Some(FrameAxTree { frame_id, tree: chrome::from_js(tree).ok()? }))
        .collect();
    Ok(TargetCapture {
        frame_tree: raw.frame_tree,
        snapshot,
        ax_trees,
        owner_backend_node_id: raw.owner_backend_node_id,
        owner_frame_id: None,
    })
}

async fn capture_target(target: DebuggeeTarget) -> Result<RawTarget, CdpError> {
    let (frame_tree, snapshot) = futures::join!(
        cdp::send_to::<FrameTreeResult>(&target, "Page.getFrameTree", serde_json::json!({}), cdp::COMMAND_TIMEOUT_MS),
        cdp::send_raw(&target, "DOMSnapshot.captureSnapshot", capture_snapshot_params(), SNAPSHOT_TIMEOUT_MS),
    );
    let frame_tree = frame_tree?;
    let frames: Vec<String> = frame_tree.frame_tree.frames().iter().map(|f| f.id.clone()).collect();
    let trees = join_all(frames.into_iter().map(|frame| {
        let target = target.clone();
        async move {
            // Frames of another process answer through their own session: skip them here.
            let tree =
                cdp::send_raw(&target, "Accessibility.getFullAXTree", ax_tree_params(&frame), cdp::COMMAND_TIMEOUT_MS)
                    .await
                    .ok()?;
            Some((frame, tree))
        }
    }))
    .await;
    Ok(RawTarget {
        frame_tree,
        snapshot: snapshot?,
        ax_trees: trees.into_iter().flatten().collect(),
        owner_backend_node_id: None,
    })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameOwner {
    backend_node_id: i64,
}

async fn capture_child(tab_id: i32, session: String) -> Result<RawTarget, CdpError> {
    let target = DebuggeeTarget { tab_id, session_id: Some(session) };
    let mut captured = capture_target(target).await?;
    let frame_id = captured.frame_tree.frame_tree.frame.id.clone();
    let main = DebuggeeTarget { tab_id, session_id: None };
    if let Ok(owner) = cdp::send_to::<FrameOwner>(
        &main,
        "DOM.getFrameOwner",
        serde_json::json!({"frameId": frame_id}),
        cdp::COMMAND_TIMEOUT_MS,
    )
    .await
    {
        captured.owner_backend_node_id = Some(owner.backend_node_id);
    }
    Ok(captured)
}
