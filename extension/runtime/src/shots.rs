//! Before and after screenshots of the agent's actions, for the Sightline panel only: taken
//! while the panel is open for the tab (it asks for the tab's model every second), as small
//! JPEGs of the viewport with the action's target outlined, and kept in the core's bounded
//! [`ShotStore`](sightline_core::review::ShotStore). They never reach the agent's answer.

use serde::Deserialize;
use serde_json::json;
use sightline_core::cdp::page::LayoutMetrics;
use sightline_core::protocol::ToolCall;
use sightline_core::refs::NodeKey;
use sightline_core::review::Shot;

use crate::input::NodeTarget;
use crate::state::{ReviewState, Sessions, TabsState};
use crate::timer;

/// The panel counts as open for a tab it asked about this recently.
const OPEN_WITHIN_MS: f64 = 3_000.0;
/// Widest screenshot, in pixels.
const MAX_WIDTH: f64 = 480.0;
/// JPEG quality.
const QUALITY: u32 = 60;
/// Longest a screenshot may take before it is skipped.
const SHOT_TIMEOUT_MS: u32 = 3_000;

#[derive(Deserialize)]
struct Captured {
    data: String,
}

/// Notes that the panel looked at `tab` now.
pub fn panel_looked(review: &ReviewState, tab: i32) {
    review.panel_seen.borrow_mut().insert(tab, timer::now_ms());
}

/// Whether the panel is open for `tab`.
pub fn panel_open(review: &ReviewState, tab: i32) -> bool {
    review.panel_seen.borrow().get(&tab).is_some_and(|seen| timer::now_ms() - seen < OPEN_WITHIN_MS)
}

/// The tab and target of an action `call` of `session` whose screenshots the panel wants.
pub fn wanted(
    tabs: &TabsState,
    sessions: &Sessions,
    review: &ReviewState,
    session: &str,
    call: &ToolCall,
) -> Option<i32> {
    call.action()?;
    let tab = call.tab().map(|t| t as i32).or_else(|| sessions.with_session(session, |s| s.current_tab))?;
    (panel_open(review, tab) && tabs.registry.borrow().is_controlled(tab)).then_some(tab)
}

/// The node an action `call` names on `tab`, while its ref resolves.
pub fn target(tabs: &TabsState, sessions: &Sessions, session: &str, tab: i32, call: &ToolCall) -> Option<NodeKey> {
    crate::tools::resolve_ref(tabs, sessions, session, tab, call.element_ref()?).ok()
}

/// The viewport of `tab` now, scaled to at most [`MAX_WIDTH`], with `target` outlined when it is
/// in the page; `None` when the screenshot cannot be taken (it is then simply missing).
pub async fn take(tabs: &TabsState, tab: i32, target: Option<NodeKey>) -> Option<Shot> {
    let metrics: LayoutMetrics = crate::cdp::send_to(
        &crate::chrome::DebuggeeTarget::main(tab),
        "Page.getLayoutMetrics",
        json!({}),
        SHOT_TIMEOUT_MS,
    )
    .await
    .ok()?;
    let viewport = metrics.css_visual_viewport?;
    let (width, height) = (viewport.client_width.max(1.0), viewport.client_height.max(1.0));
    let scale = (MAX_WIDTH / width).min(1.0);
    let clip = json!({"x": viewport.page_x, "y": viewport.page_y, "width": width, "height": height, "scale": scale});
    let params = json!({"format": "jpeg", "quality": QUALITY, "clip": clip});
    let captured: Captured = crate::cdp::send_to(
        &crate::chrome::DebuggeeTarget::main(tab),
        "Page.captureScreenshot",
        params,
        SHOT_TIMEOUT_MS,
    )
    .await
    .ok()?;
    let outline = match target {
        Some(node) => box_of(tabs, tab, &node).await.map(|[x, y, w, h]| [x * scale, y * scale, w * scale, h * scale]),
        None => None,
    };
    Some(Shot {
        jpeg_base64: captured.data,
        width: (width * scale).round() as u32,
        height: (height * scale).round() as u32,
        outline,
    })
}

/// `node`'s border box in viewport coordinates (main frame only).
async fn box_of(tabs: &TabsState, tab: i32, node: &NodeKey) -> Option<[f64; 4]> {
    let at = NodeTarget::of(tabs, tab, node);
    if at.target.session_id.is_some() {
        return None;
    }
    let rect = "function() { const r = this.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }";
    let value = crate::input::call_on(&at, node, "the action's target", rect, &[]).await.ok()?;
    let values: Vec<f64> = serde_json::from_value(value).ok()?;
    match values[..] {
        [x, y, w, h] if w > 0.0 && h > 0.0 => Some([x, y, w, h]),
        _ => None,
    }
}
