//! One capture of a tab: the CDP requests of `sightline_core::capture`, issued concurrently,
//! for the page and for each out-of-process iframe through its own flat session.

use futures::future::join_all;
use sightline_core::capture::{Capture, FrameAxTree, TargetCapture, ax_tree_params, capture_snapshot_params};
use sightline_core::cdp::accessibility::FullAxTree;
use sightline_core::cdp::dom_snapshot::CaptureSnapshot;
use sightline_core::cdp::page::{FrameTreeResult, LayoutMetrics};

use crate::cdp::{self, CdpError};
use crate::chrome::DebuggeeTarget;
use crate::state::State;
use crate::timer;
use crate::tools::ToolError;

/// Capturing a large page's DOM snapshot can take a while; this is its limit.
const SNAPSHOT_TIMEOUT_MS: u32 = 30_000;

/// A capture and how long the CDP part took.
pub struct Captured {
    /// The payloads.
    pub capture: Capture,
    /// Milliseconds spent waiting on CDP.
    pub capture_ms: f64,
}

/// Captures the tab's page and its out-of-process iframes.
pub async fn capture(state: &State, tab_id: i32) -> Result<Captured, ToolError> {
    let started = timer::now_ms();
    let children: Vec<String> =
        state.tabs.borrow().sessions.get(&tab_id).map(|s| s.children.keys().cloned().collect()).unwrap_or_default();
    let main = DebuggeeTarget { tab_id, session_id: None };
    let layout =
        cdp::send_to::<LayoutMetrics>(&main, "Page.getLayoutMetrics", serde_json::json!({}), cdp::COMMAND_TIMEOUT_MS);
    let (main_capture, layout, child_captures) = futures::join!(
        capture_target(main.clone()),
        layout,
        join_all(children.into_iter().map(|session| capture_child(tab_id, session)))
    );
    let capture = Capture {
        main: main_capture?,
        // An iframe that went away mid-capture is simply not there any more.
        children: child_captures.into_iter().filter_map(Result::ok).collect(),
        layout: layout.unwrap_or_default(),
    };
    Ok(Captured { capture, capture_ms: timer::now_ms() - started })
}

async fn capture_target(target: DebuggeeTarget) -> Result<TargetCapture, CdpError> {
    let (frame_tree, snapshot) = futures::join!(
        cdp::send_to::<FrameTreeResult>(&target, "Page.getFrameTree", serde_json::json!({}), cdp::COMMAND_TIMEOUT_MS),
        cdp::send_to::<CaptureSnapshot>(
            &target,
            "DOMSnapshot.captureSnapshot",
            capture_snapshot_params(),
            SNAPSHOT_TIMEOUT_MS
        ),
    );
    let frame_tree = frame_tree?;
    let frames: Vec<String> = frame_tree.frame_tree.frames().iter().map(|f| f.id.clone()).collect();
    let trees = join_all(frames.into_iter().map(|frame| {
        let target = target.clone();
        async move {
            // Frames of another process answer through their own session: skip them here.
            let tree = cdp::send_to::<FullAxTree>(
                &target,
                "Accessibility.getFullAXTree",
                ax_tree_params(&frame),
                cdp::COMMAND_TIMEOUT_MS,
            )
            .await
            .ok()?;
            Some(FrameAxTree { frame_id: frame, tree })
        }
    }))
    .await;
    Ok(TargetCapture {
        frame_tree,
        snapshot: snapshot?,
        ax_trees: trees.into_iter().flatten().collect(),
        owner_backend_node_id: None,
        owner_frame_id: None,
    })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameOwner {
    backend_node_id: i64,
}

async fn capture_child(tab_id: i32, session: String) -> Result<TargetCapture, CdpError> {
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
