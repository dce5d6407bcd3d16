//! `browser_take_screenshot`, and the coordinate tools an agent falls back on for what has no
//! element (a canvas, an SVG chart): a click or a drag at points of the viewport.

use std::rc::Rc;

use serde::Deserialize;
use sightline_core::protocol::{ImageData, ImageFormat, MouseButton, MouseClickXyParams, MouseDragXyParams};
use sightline_core::protocol::{ScreenshotParams, ToolOutput};

use super::actions::{ActionResult, act, on_tab};
use super::{CallContext, ToolResult, refuse_if_dialog, resolve_ref};
use crate::cdp;
use crate::error::ToolError;
use crate::input::{self, NodeTarget};
use crate::state::State;
use crate::{drag, timer};
use sightline_core::refs::NodeKey;

/// Most pixels a screenshot holds (after scaling): a long page is scaled down to fit.
const MOST_PIXELS: f64 = 4_000_000.0;
/// Tallest full-page screenshot, in CSS pixels before scaling.
const MOST_HEIGHT: f64 = 16_000.0;
/// Most refs drawn on one screenshot.
const MOST_LABELS: usize = 300;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metrics {
    css_visual_viewport: Viewport,
    css_content_size: Size,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Viewport {
    page_x: f64,
    page_y: f64,
    client_width: f64,
    client_height: f64,
}

#[derive(Deserialize)]
struct Size {
    width: f64,
    height: f64,
}

#[derive(Deserialize)]
struct Captured {
    data: String,
}

#[derive(Deserialize)]
struct Quads {
    quads: Vec<Vec<f64>>,
}

/// The bounding box `[x, y, width, height]` of a node's boxes, in its frame's viewport.
async fn bounds(at: &NodeTarget, backend_node_id: i64) -> Option<[f64; 4]> {
    let quads: Quads =
        at.send("DOM.getContentQuads", serde_json::json!({"backendNodeId": backend_node_id})).await.ok()?;
    let points: Vec<(f64, f64)> =
        quads.quads.iter().filter(|q| q.len() == 8).flat_map(|q| q.chunks(2).map(|p| (p[0], p[1]))).collect();
    let (x0, y0) = points.iter().fold((f64::MAX, f64::MAX), |(a, b), (x, y)| (a.min(*x), b.min(*y)));
    let (x1, y1) = points.iter().fold((f64::MIN, f64::MIN), |(a, b), (x, y)| (a.max(*x), b.max(*y)));
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// Draws `labels` (ref, box in page coordinates) over the page, in a closed shadow root the
/// page cannot reach into; `LABELS_OFF` takes it away again.
const LABELS_ON: &str = r#"(labels) => {
  const host = document.createElement('sightline-refs');
  host.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
  const root = host.attachShadow({ mode: 'closed' });
  for (const [ref, x, y, w, h] of labels) {
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${x}px;top:${y}px;width:${w}px;height:${h}px;outline:1px solid #e0218a`;
    const tag = document.createElement('span');
    tag.textContent = ref;
    tag.style.cssText = 'position:absolute;left:0;top:0;font:bold 10px/12px monospace;color:#fff;background:#e0218a;padding:0 2px';
    box.appendChild(tag);
    root.appendChild(box);
  }
  document.documentElement.appendChild(host);
  globalThis.__sightlineRefs = host;
  return true;
}"#;
const LABELS_OFF: &str =
    "() => { const h = globalThis.__sightlineRefs; if (h) h.remove(); delete globalThis.__sightlineRefs; }";

/// `browser_take_screenshot`.
pub async fn screenshot(state: &Rc<State>, session: &str, params: ScreenshotParams, ctx: &CallContext) -> ActionResult {
    if let Some(scale) = params.scale
        && !(0.1..=1.0).contains(&scale)
    {
        return Err(ToolError::Invalid(format!("`scale` is from 0.1 to 1, not {scale}")).into());
    }
    if params.full_page && params.element_ref.is_some() {
        return Err(ToolError::Arguments("give `ref` or `full_page`, not both").into());
    }
    let params = &params;
    on_tab(state, session, params.tab, params.element_ref.as_deref(), ctx, |tab, node| async move {
        refuse_if_dialog(state, tab, "browser_take_screenshot")?;
        Ok(shoot(state, session, tab, node, params).await?)
    })
    .await
}

/// Takes the screenshot `params` ask for on the tab, locked and attached: of `node` when the
/// call names one.
async fn shoot(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    node: Option<NodeKey>,
    params: &ScreenshotParams,
) -> ToolResult {
    let element = node.zip(params.element_ref.clone()).map(|(node, r)| (NodeTarget::of(state, tab, &node), node, r));
    if let Some((at, node, r)) = &element {
        at.send::<serde_json::Value>(
            "DOM.scrollIntoViewIfNeeded",
            serde_json::json!({"backendNodeId": node.backend_node_id}),
        )
        .await
        .map_err(|e| input::node_error(e, r))?;
    }
    let metrics: Metrics = cdp::send(tab, "Page.getLayoutMetrics", serde_json::json!({})).await?;
    let view = &metrics.css_visual_viewport;
    let (mut what, [x, y, mut width, mut height]) = match &element {
        Some((at, node, r)) => {
            let Some([bx, by, bw, bh]) = bounds(at, node.backend_node_id).await else {
                return Err(ToolError::element(r, crate::error::ElementProblem::NoBox));
            };
            let (dx, dy) = frame_offset(at).await;
            (r.clone(), [bx + dx + view.page_x, by + dy + view.page_y, bw, bh])
        }
        None if params.full_page => {
            ("the whole page".to_owned(), [0.0, 0.0, metrics.css_content_size.width, metrics.css_content_size.height])
        }
        None => ("the viewport".to_owned(), [view.page_x, view.page_y, view.client_width, view.client_height]),
    };
    width = width.max(1.0);
    if height > MOST_HEIGHT {
        what.push_str(&format!(" (its first {MOST_HEIGHT:.0} px of {height:.0})"));
        height = MOST_HEIGHT;
    }
    let fit = (MOST_PIXELS / (width * height)).sqrt().min(1.0);
    let scale = params.scale.unwrap_or(1.0).min(fit);
    let format = params.format.unwrap_or_default();
    let (name, mime) = match format {
        ImageFormat::Png => ("png", "image/png"),
        ImageFormat::Jpeg => ("jpeg", "image/jpeg"),
    };
    let mut capture = serde_json::json!({
        "format": name,
        "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale},
        "captureBeyondViewport": params.full_page,
        "fromSurface": true,
    });
    if format == ImageFormat::Jpeg {
        capture["quality"] = 80.into();
    }
    let labelled = if params.refs { draw_refs(state, session, tab, view).await } else { 0 };
    let captured: Result<Captured, _> = cdp::send(tab, "Page.captureScreenshot", capture).await;
    if params.refs {
        let _ = cdp::send::<serde_json::Value>(
            tab,
            "Runtime.evaluate",
            serde_json::json!({"expression": format!("({LABELS_OFF})()")}),
        )
        .await;
    }
    let captured = captured?;
    let (w, h) = ((width * scale).round() as u64, (height * scale).round() as u64);
    let mut text = format!("Screenshot of {what}: {w}×{h} px {name}");
    if scale < 1.0 {
        text.push_str(&format!(", scaled to {scale:.2}"));
    }
    if params.refs {
        text.push_str(&format!(", {labelled} refs drawn"));
    }
    Ok(ToolOutput {
        text,
        structured: Some(serde_json::json!({"width": w, "height": h, "type": name})),
        image: Some(ImageData { mime: mime.to_owned(), base64: captured.data }),
        ..ToolOutput::default()
    })
}

/// The offset of a node's frame in the page's viewport (zero for the main frame's process).
async fn frame_offset(at: &NodeTarget) -> (f64, f64) {
    at.offset().await.unwrap_or((0.0, 0.0))
}

/// Draws the refs of the elements the agent was last shown on the page; how many were drawn.
async fn draw_refs(state: &Rc<State>, session: &str, tab: i32, view: &Viewport) -> usize {
    let numbers: Vec<u32> = state.with_session(session, |s| {
        let snapshot = s.pages.get(&tab).and_then(|p| p.snapshot());
        snapshot.map(|snap| snap.elements.iter().map(|e| e.number).collect()).unwrap_or_default()
    });
    let started = timer::now_ms();
    let mut labels = Vec::new();
    for number in numbers.into_iter().take(MOST_LABELS) {
        // Drawing is a help, not worth a long wait on a page with very many elements.
        if timer::now_ms() - started > 3_000.0 {
            break;
        }
        let element_ref = format!("e{number}");
        let Ok(node) = resolve_ref(state, session, tab, &element_ref) else { continue };
        let at = NodeTarget::of(state, tab, &node);
        if let Some([x, y, w, h]) = bounds(&at, node.backend_node_id).await {
            let (dx, dy) = frame_offset(&at).await;
            labels.push(serde_json::json!([element_ref, x + dx + view.page_x, y + dy + view.page_y, w, h]));
        }
    }
    let count = labels.len();
    let expression = format!("({LABELS_ON})({})", serde_json::Value::Array(labels));
    let drawn: Result<serde_json::Value, _> =
        cdp::send(tab, "Runtime.evaluate", serde_json::json!({"expression": expression})).await;
    if drawn.is_err() { 0 } else { count }
}

/// `browser_mouse_click_xy`: a click at a point, for what has no element to click.
pub async fn click_xy(state: &Rc<State>, session: &str, params: MouseClickXyParams, ctx: &CallContext) -> ActionResult {
    let (x, y) = (params.x, params.y);
    on_tab(state, session, params.tab, None, ctx, |tab, _| async move {
        in_view(tab, &[(x, y)]).await?;
        act(state, session, tab, None, ctx, "browser_mouse_click_xy", async {
            input::click_at(tab, x, y, MouseButton::Left, false).await
        })
        .await
    })
    .await
}

/// `browser_mouse_drag_xy`: a drag between two points.
pub async fn drag_xy(state: &Rc<State>, session: &str, params: MouseDragXyParams, ctx: &CallContext) -> ActionResult {
    let (from, to) = ((params.start_x, params.start_y), (params.end_x, params.end_y));
    on_tab(state, session, params.tab, None, ctx, |tab, _| async move {
        in_view(tab, &[from, to]).await?;
        act(state, session, tab, None, ctx, "browser_mouse_drag_xy", drag::drag(state, tab, from, to)).await
    })
    .await
}

/// Refuses points outside the viewport.
async fn in_view(tab: i32, points: &[(f64, f64)]) -> Result<(), ToolError> {
    let view = input::viewport(tab).await?;
    for &(x, y) in points {
        if !view.shows(x, y) {
            return Err(ToolError::Invalid(format!(
                "{x},{y} is outside the viewport (0,0 to {:.0},{:.0}); scroll with browser_scroll first",
                view.client_width, view.client_height
            )));
        }
    }
    Ok(())
}
