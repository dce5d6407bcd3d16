//! `browser_take_screenshot`, and the coordinate tools an agent falls back on for what has no
//! element (a canvas, an SVG chart): a click or a drag at points of the viewport.

use serde::Deserialize;
use sightline_core::protocol::{ImageData, ImageFormat, MouseButton, MouseClickXyParams, MouseDragXyParams};
use sightline_core::protocol::{ScreenshotParams, ToolOutput};

use sightline_core::refs::NodeKey;
use sightline_core::screenshot::{self, Clip, Label, MaskedField, PaintPlan, Rect};

use super::actions::{ActionResult, act, on_tab};
use super::{CallContext, ToolResult, refuse_if_dialog, resolve_ref};
use crate::cdp::{self, CdpError};
use crate::error::{ElementProblem, ToolError};
use crate::input::{self, NodeTarget};
use crate::paint::Crop;
use crate::state::{Reach, Sessions, TabsState};
use crate::still::Still;
use crate::{drag, timer};

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
    /// The same viewport in device pixels.
    #[serde(default)]
    visual_viewport: Option<Viewport>,
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

/// `browser_take_screenshot`.
pub async fn screenshot(reach: &Reach<'_>, session: &str, params: ScreenshotParams, ctx: &CallContext) -> ActionResult {
    if let Some(scale) = params.scale
        && !(0.1..=1.0).contains(&scale)
    {
        return Err(ToolError::Invalid(format!("`scale` is from 0.1 to 1, not {scale}")).into());
    }
    if params.full_page && params.element_ref.is_some() {
        return Err(ToolError::Arguments("give `ref` or `full_page`, not both").into());
    }
    let params = &params;
    on_tab(reach, session, params.tab, params.element_ref.as_deref(), ctx, |tab, node| async move {
        refuse_if_dialog(reach.custody.tabs, tab, "browser_take_screenshot")?;
        Ok(shoot(reach.custody.tabs, reach.custody.sessions, session, tab, node, params).await?)
    })
    .await
}

/// How many times a screenshot is taken again when a masked field moved during the capture.
const MOST_TRIES: usize = 3;

/// Takes the screenshot `params` ask for on the tab, locked and attached: of `node` when the
/// call names one. Every field a snapshot masks is painted over in the image, and the ref labels
/// drawn into it (`sightline_core::screenshot`); while it is measured and captured, the page is
/// held still (`crate::still`).
async fn shoot(
    tabs: &TabsState,
    sessions: &Sessions,
    session: &str,
    tab: i32,
    node: Option<NodeKey>,
    params: &ScreenshotParams,
) -> ToolResult {
    // The fields masked now: judged on the page as it is, with what the session remembers.
    let captured = crate::capture::capture(tabs, tab).await?;
    let masked = sessions.with_session(session, |s| s.pages.entry(tab).or_default().masked_fields(&captured.capture));
    let masks = Masks {
        refused_frame: masked.iter().map(|m| m.refused_frame).collect(),
        nodes: masked.into_iter().map(|m| m.node).collect(),
    };
    let masked = &masks.nodes;
    drop(captured);
    let element = node.zip(params.element_ref.clone()).map(|(node, r)| (NodeTarget::of(tabs, tab, &node), node, r));
    if let Some((_, node, r)) = &element
        && masked.iter().any(|m| m.frame_id == node.frame_id && m.backend_node_id == node.backend_node_id)
    {
        return Err(ToolError::element(r, ElementProblem::Masked));
    }
    if let Some((at, node, r)) = &element {
        at.send::<serde_json::Value>(
            "DOM.scrollIntoViewIfNeeded",
            serde_json::json!({"backendNodeId": node.backend_node_id}),
        )
        .await
        .map_err(|e| input::node_error(e, r))?;
    }
    let whole_page = if params.full_page { Some(WholePage::lay_out(tab).await?) } else { None };
    let shot = take(tabs, sessions, session, tab, &Request { element: element.as_ref(), params, masks: &masks }).await;
    if let Some(whole_page) = whole_page {
        whole_page.restore(tab).await;
    }
    shot
}

/// What one screenshot call asks for, the same on every try: the element it is of (its frame,
/// node and ref), the call's parameters, and the fields painted over.
struct Request<'a> {
    element: Option<&'a (NodeTarget, NodeKey, String)>,
    params: &'a ScreenshotParams,
    masks: &'a Masks,
}

/// The fields a screenshot paints over: each node, and whether it stands for a frame the
/// snapshot refuses to read (rather than one masked field).
struct Masks {
    nodes: Vec<NodeKey>,
    refused_frame: Vec<bool>,
}

/// The frames holding `masked` fields, each once.
fn frames_of(tabs: &TabsState, tab: i32, masked: &[NodeKey]) -> Vec<NodeTarget> {
    let mut frames: Vec<NodeTarget> = Vec::new();
    for key in masked {
        if !frames.iter().any(|f| f.frame_id == key.frame_id) {
            frames.push(NodeTarget::of(tabs, tab, key));
        }
    }
    frames
}

/// Measures, captures and paints, taking the screenshot again (at most [`MOST_TRIES`] times)
/// when a masked field moved meanwhile.
async fn take(tabs: &TabsState, sessions: &Sessions, session: &str, tab: i32, request: &Request<'_>) -> ToolResult {
    let params = request.params;
    let masked = &request.masks.nodes;
    for _ in 0..MOST_TRIES {
        let still = if masked.is_empty() { None } else { Some(Still::hold(tab, frames_of(tabs, tab, masked)).await) };
        let taken = capture_once(tabs, sessions, session, tab, request, still.as_ref()).await;
        if let Some(still) = still {
            still.release().await;
        }
        let Shot { mut output, plan, image, crop } = taken?;
        if plan.moved {
            continue;
        }
        output.image = Some(match crop {
            Some(crop) => {
                let mime = image.mime.clone();
                let quality = (mime == "image/jpeg").then_some(0.8);
                let painted =
                    crate::paint::paint(&image.base64, &crop, &mime, quality, &plan).await.map_err(|message| {
                        ToolError::Unexpected { what: "painting over the screenshot's masked fields", message }
                    })?;
                ImageData { mime, base64: painted }
            }
            None => image,
        });
        if let (Some(structured), true) = (output.structured.as_mut(), params.refs) {
            structured["labels"] = serde_json::json!(plan.labels);
        }
        return Ok(output);
    }
    Err(ToolError::Invalid(
        "a field whose value Sightline masks kept moving while the screenshot was taken, so none was returned (a \
         screenshot never shows a masked value); try again when the page is still, or take a browser_snapshot"
            .to_owned(),
    ))
}

/// One capture: the answer without its image, what to paint, the image as captured, and how to
/// crop it when it is painted.
struct Shot {
    output: ToolOutput,
    plan: PaintPlan,
    image: ImageData,
    crop: Option<Crop>,
}

/// One capture (see [`Shot`]).
async fn capture_once(
    tabs: &TabsState,
    sessions: &Sessions,
    session: &str,
    tab: i32,
    request: &Request<'_>,
    still: Option<&Still>,
) -> Result<Shot, ToolError> {
    let Request { element, params, masks } = *request;
    let (masked, frames) = (&masks.nodes, &masks.refused_frame);
    let metrics: Metrics = cdp::send(tab, "Page.getLayoutMetrics", serde_json::json!({})).await?;
    let view = &metrics.css_visual_viewport;
    let (mut what, [x, y, mut width, mut height]) = match element {
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
    // With nothing to paint, the browser crops and scales. Otherwise the viewport is captured as
    // it is drawn (a full page was laid out into it whole) and cropped and scaled while painted:
    // a capture with a clip restyles the page, which would hide a page that restyles itself.
    let painting = !masked.is_empty() || params.refs;
    let mut capture = match painting {
        false => serde_json::json!({
            "format": name,
            "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale},
            "fromSurface": true,
        }),
        true => serde_json::json!({"format": "png", "fromSurface": true}),
    };
    if format == ImageFormat::Jpeg && !painting {
        capture["quality"] = 80.into();
    }
    let crop = painting.then(|| Crop {
        area: Rect { x: x - view.page_x, y: y - view.page_y, width, height },
        // Device pixels per CSS pixel (the capture is in device pixels).
        ratio: metrics
            .visual_viewport
            .as_ref()
            .map(|device| device.client_width / view.client_width.max(1.0))
            .filter(|r| r.is_finite() && *r > 0.0)
            .unwrap_or(1.0),
        width: (width * scale).round().max(1.0) as u32,
        height: (height * scale).round().max(1.0) as u32,
    });
    let labels = if params.refs { label_boxes(tabs, sessions, session, tab, view).await } else { Vec::new() };
    // Measuring lays the page out: the counters read after it count only what changes later.
    let before = measure(tabs, tab, masked, view).await?;
    let counted = match still {
        Some(still) => still.counters().await,
        None => Vec::new(),
    };
    let captured: Captured = cdp::send(tab, "Page.captureScreenshot", capture).await?;
    // Read before measuring again: measuring may restyle a paused animation's element.
    let changed = match still {
        Some(still) => {
            let now = still.counters().await;
            now != counted || now.iter().any(Option::is_none)
        }
        None => false,
    };
    let after = measure(tabs, tab, masked, view).await?;
    let fields: Vec<MaskedField> =
        before.into_iter().zip(after).map(|(before, after)| MaskedField { before, after }).collect();
    let clip = Clip { area: Rect { x, y, width, height }, scale };
    let mut plan = screenshot::plan(clip, &fields, &labels);
    // The page laid out or restyled something while it was photographed: a field may have
    // been elsewhere in the image than where it was measured.
    plan.moved |= changed;
    let (w, h) = ((width * scale).round() as u64, (height * scale).round() as u64);
    let mut text = format!("Screenshot of {what}: {w}×{h} px {name}");
    if scale < 1.0 {
        text.push_str(&format!(", scaled to {scale:.2}"));
    }
    if !plan.covers.is_empty() {
        let drawn = |frame: bool| {
            fields
                .iter()
                .zip(frames)
                .filter(|(f, is_frame)| **is_frame == frame && (f.before.is_some() || f.after.is_some()))
                .count()
        };
        let refused = match drawn(true) {
            0 => String::new(),
            n => format!(" and {n} refused frame(s)"),
        };
        text.push_str(&format!(", {} masked field(s){refused} painted over", drawn(false)));
    }
    if params.refs {
        text.push_str(&format!(", {} refs drawn", plan.labels.len()));
    }
    let output = ToolOutput {
        text,
        structured: Some(serde_json::json!({"width": w, "height": h, "type": name, "masked": plan.covers.len()})),
        ..ToolOutput::default()
    };
    Ok(Shot { output, plan, image: ImageData { mime: mime.to_owned(), base64: captured.data }, crop })
}

/// Each masked field's border box in document coordinates, `None` where it is not drawn. A
/// field that cannot be measured for another reason fails the screenshot: a cover cannot be
/// placed over what was not found.
async fn measure(
    tabs: &TabsState,
    tab: i32,
    masked: &[NodeKey],
    view: &Viewport,
) -> Result<Vec<Option<Rect>>, ToolError> {
    #[derive(Deserialize)]
    struct BoxModel {
        model: Model,
    }
    #[derive(Deserialize)]
    struct Model {
        border: Vec<f64>,
    }
    let mut boxes = Vec::with_capacity(masked.len());
    for key in masked {
        let at = NodeTarget::of(tabs, tab, key);
        let model: Result<BoxModel, _> =
            at.send("DOM.getBoxModel", serde_json::json!({"backendNodeId": key.backend_node_id})).await;
        let quad = match model {
            Ok(model) => model.model.border,
            // Not drawn (no layout box), or gone from the document: nothing shows it.
            Err(CdpError::NoSuchNode { .. }) => {
                boxes.push(None);
                continue;
            }
            Err(CdpError::Failed { message, .. }) if message.contains("Could not compute box model") => {
                boxes.push(None);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let (dx, dy) = at.offset().await?;
        boxes.push(quad_bounds(&quad).map(|[x, y, w, h]| Rect {
            x: x + dx + view.page_x,
            y: y + dy + view.page_y,
            width: w,
            height: h,
        }));
    }
    Ok(boxes)
}

/// The bounding box `[x, y, width, height]` of a quad's corners.
fn quad_bounds(quad: &[f64]) -> Option<[f64; 4]> {
    let points: Vec<(f64, f64)> = quad.chunks(2).filter(|p| p.len() == 2).map(|p| (p[0], p[1])).collect();
    let (x0, y0) = points.iter().fold((f64::MAX, f64::MAX), |(a, b), (x, y)| (a.min(*x), b.min(*y)));
    let (x1, y1) = points.iter().fold((f64::MIN, f64::MIN), |(a, b), (x, y)| (a.max(*x), b.max(*y)));
    (!points.is_empty() && x1 >= x0 && y1 >= y0).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// The page laid out whole for a full-page screenshot: the viewport made as tall as the page
/// (at most [`MOST_HEIGHT`]), so that what is measured is where the capture draws it, and put
/// back afterwards with the scroll position the person had.
struct WholePage {
    scroll: (f64, f64),
}

impl WholePage {
    async fn lay_out(tab: i32) -> Result<WholePage, ToolError> {
        let metrics: Metrics = cdp::send(tab, "Page.getLayoutMetrics", serde_json::json!({})).await?;
        let view = &metrics.css_visual_viewport;
        let height = metrics.css_content_size.height.clamp(1.0, MOST_HEIGHT).ceil();
        let width = view.client_width.max(1.0).round();
        cdp::send::<serde_json::Value>(
            tab,
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 0, "mobile": false}),
        )
        .await?;
        Ok(WholePage { scroll: (view.page_x, view.page_y) })
    }

    async fn restore(self, tab: i32) {
        let _ =
            cdp::send::<serde_json::Value>(tab, "Emulation.clearDeviceMetricsOverride", serde_json::json!({})).await;
        let (x, y) = self.scroll;
        let back = format!("window.scrollTo({x}, {y})");
        let _ = cdp::send::<serde_json::Value>(tab, "Runtime.evaluate", serde_json::json!({"expression": back})).await;
    }
}

/// The offset of a node's frame in the page's viewport (zero for the main frame's process).
async fn frame_offset(at: &NodeTarget) -> (f64, f64) {
    at.offset().await.unwrap_or((0.0, 0.0))
}

/// The boxes of the elements the agent was last shown on the page, in document coordinates,
/// for their ref labels.
async fn label_boxes(tabs: &TabsState, sessions: &Sessions, session: &str, tab: i32, view: &Viewport) -> Vec<Label> {
    let numbers: Vec<u32> = sessions.with_session(session, |s| {
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
        let element_ref = sightline_core::refs::format_ref(number);
        let Ok(node) = resolve_ref(tabs, sessions, session, tab, &element_ref) else { continue };
        let at = NodeTarget::of(tabs, tab, &node);
        if let Some([x, y, w, h]) = bounds(&at, node.backend_node_id).await {
            let (dx, dy) = frame_offset(&at).await;
            let rect = Rect { x: x + dx + view.page_x, y: y + dy + view.page_y, width: w, height: h };
            labels.push(Label { element_ref, rect });
        }
    }
    labels
}

/// `browser_mouse_click_xy`: a click at a point, for what has no element to click.
pub async fn click_xy(reach: &Reach<'_>, session: &str, params: MouseClickXyParams, ctx: &CallContext) -> ActionResult {
    let (x, y) = (params.x, params.y);
    // The person's rules judge the click by the element under the point.
    ctx.hint.borrow_mut().point = Some((x, y));
    on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
        in_view(tab, &[(x, y)]).await?;
        act(reach, session, tab, None, ctx, "browser_mouse_click_xy", async {
            input::click_at(tab, x, y, MouseButton::Left, false).await
        })
        .await
    })
    .await
}

/// `browser_mouse_drag_xy`: a drag between two points.
pub async fn drag_xy(reach: &Reach<'_>, session: &str, params: MouseDragXyParams, ctx: &CallContext) -> ActionResult {
    let (from, to) = ((params.start_x, params.start_y), (params.end_x, params.end_y));
    on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
        in_view(tab, &[from, to]).await?;
        act(reach, session, tab, None, ctx, "browser_mouse_drag_xy", drag::drag(reach.custody.tabs, tab, from, to))
            .await
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
