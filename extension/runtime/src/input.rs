//! Acting on elements through CDP `Input` events, the way a user would: scroll the element
//! into view, then click, type or press keys at its centre.
//!
//! Input goes to coordinates and to whatever has focus, not to an element, so both are checked
//! first: a click's point is hit-tested (`DOM.getNodeForLocation`) and must land on the target
//! or something inside it (a sticky header or an invisible overlay over the element makes the
//! element scroll to the viewport's centre and be tried again, then the click is refused with
//! what covers it); typing and keys go ahead only when focus is on the target.

use serde::Deserialize;
use sightline_core::cdp::page::{LayoutMetrics, VisualViewport};
use sightline_core::keys::KeyPress;
use sightline_core::protocol::MouseButton;
use sightline_core::refs::NodeKey;

use crate::cdp::{self, CdpError};
use crate::chrome::DebuggeeTarget;
use crate::error::{ElementProblem, ToolError};
use crate::state::State;

/// Where to send commands about a node: its frame's session, and the offset that turns that
/// frame's viewport coordinates into the page's.
pub struct NodeTarget {
    /// The session of the node's frame.
    pub target: DebuggeeTarget,
    /// The node's frame id.
    pub frame_id: String,
}

impl NodeTarget {
    /// The target for `node` on `tab_id`.
    pub fn of(state: &State, tab_id: i32, node: &NodeKey) -> NodeTarget {
        let session_id = state.tabs.borrow().frames(tab_id).session_of(&node.frame_id).map(str::to_owned);
        NodeTarget { target: DebuggeeTarget { tab_id, session_id }, frame_id: node.frame_id.clone() }
    }

    /// Sends a command to the node's frame session.
    pub async fn send<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<T, CdpError> {
        cdp::send_to(&self.target, method, params, cdp::COMMAND_TIMEOUT_MS).await
    }

    /// The offset of the frame's viewport in the page (zero for the page's own process).
    pub async fn offset(&self) -> Result<(f64, f64), CdpError> {
        if self.target.session_id.is_none() {
            return Ok((0.0, 0.0));
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Owner {
            backend_node_id: i64,
        }
        #[derive(Deserialize)]
        struct BoxModel {
            model: Model,
        }
        #[derive(Deserialize)]
        struct Model {
            content: Vec<f64>,
        }
        let main = DebuggeeTarget::main(self.target.tab_id);
        let owner: Owner = cdp::send_to(
            &main,
            "DOM.getFrameOwner",
            serde_json::json!({"frameId": self.frame_id}),
            cdp::COMMAND_TIMEOUT_MS,
        )
        .await?;
        let model: BoxModel = cdp::send_to(
            &main,
            "DOM.getBoxModel",
            serde_json::json!({"backendNodeId": owner.backend_node_id}),
            cdp::COMMAND_TIMEOUT_MS,
        )
        .await?;
        Ok((model.model.content.first().copied().unwrap_or(0.0), model.model.content.get(1).copied().unwrap_or(0.0)))
    }
}

#[derive(Deserialize)]
struct ContentQuads {
    quads: Vec<Vec<f64>>,
}

/// Scrolls the element into view and returns a point of it that a click would reach, in the
/// page's viewport coordinates: the centre of its first visible box, checked by hit-testing.
/// When something else is on top there, the element is scrolled to the viewport's centre and
/// tried again; when it is still covered, the click is refused with what covers it.
pub async fn click_point(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(f64, f64), ToolError> {
    let id = serde_json::json!({"backendNodeId": node.backend_node_id});
    at.send::<serde_json::Value>("DOM.scrollIntoViewIfNeeded", id.clone())
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let mut cover = String::new();
    for attempt in 0..2 {
        if attempt == 1 {
            call_on(at, node, element_ref, SCROLL_TO_CENTRE, &[]).await?;
        }
        match reach(at, node, element_ref).await? {
            Ok(point) => return Ok(point),
            Err(what) => cover = what,
        }
    }
    Err(ToolError::element(element_ref, ElementProblem::Covered { by: cover }))
}

/// The element's visible centre in the page's viewport coordinates when a click there reaches
/// it now (no scrolling), else a description of what is there instead.
async fn reach(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Result<(f64, f64), String>, ToolError> {
    let (x, y) = visible_centre(at, node, element_ref).await?;
    Ok(match hit(at, node, element_ref, x, y, Reached::Inside).await? {
        Hit::Target => {
            let (dx, dy) = at.offset().await?;
            Ok((x + dx, y + dy))
        }
        Hit::Other(what) => Err(what),
    })
}

/// How long a click waits, after the pointer comes to rest over its target, for what the hover
/// changed to settle, and how often it looks meanwhile.
const HOVER_SETTLE_MS: u32 = 300;
const HOVER_LOOK_MS: u32 = 25;

/// Clicks the element as a user would: the pointer comes to rest over it first, then presses.
/// A hover can move or collapse the target (a `:hover` rule that swaps an icon's image leaves the
/// element empty until the new image loads, and the click would land on its parent), so the
/// point is hit-tested again after the move and the press waits, for at most
/// [`HOVER_SETTLE_MS`], until the target is under the pointer again. When it is not by then, the
/// press goes to the point found before the move only if it still reaches the target or one of
/// the elements holding it (the button around an emptied icon); a target the hover took away
/// (a suggestion list that closed) is not pressed through onto whatever lies beneath.
pub async fn click_element(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    button: MouseButton,
    double: bool,
) -> Result<(), ToolError> {
    let (x, y) = click_point(at, node, element_ref).await?;
    move_mouse(at.target.tab_id, x, y).await?;
    let deadline = crate::timer::Deadline::after(HOVER_SETTLE_MS);
    let (mut px, mut py) = (x, y);
    loop {
        if let Some(point) = reaching_point(at, node, element_ref).await? {
            (px, py) = point;
            break;
        }
        if deadline.passed() {
            if let Some(instead) = beneath_after_hover(at, node, element_ref, x, y).await? {
                return Err(ToolError::element(element_ref, ElementProblem::GoneOnHover { instead }));
            }
            break;
        }
        crate::timer::sleep(deadline.cap(HOVER_LOOK_MS)).await;
    }
    click_at(at.target.tab_id, px, py, button, double).await
}

/// After the hover wait found the target away from the pointer: `None` when a press at `(x, y)`
/// (the page's viewport coordinates) still reaches the target or an element holding it, else
/// what it would reach instead.
async fn beneath_after_hover(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    x: f64,
    y: f64,
) -> Result<Option<String>, ToolError> {
    let (dx, dy) = at.offset().await?;
    Ok(match hit(at, node, element_ref, x - dx, y - dy, Reached::InsideOrHolding).await? {
        Hit::Target => None,
        Hit::Other(what) => Some(what),
    })
}

/// Where a click reaches the element now, or `None` while it has no box or something else is
/// there (see [`reach`]).
async fn reaching_point(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Option<(f64, f64)>, ToolError> {
    match reach(at, node, element_ref).await {
        Ok(reached) => Ok(reached.ok()),
        Err(ToolError::Element { problem: ElementProblem::NoBox, .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The centre of the element's first visible box, in its frame's viewport coordinates.
async fn visible_centre(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(f64, f64), ToolError> {
    let id = serde_json::json!({"backendNodeId": node.backend_node_id});
    let quads: ContentQuads = at.send("DOM.getContentQuads", id).await.map_err(|e| node_error(e, element_ref))?;
    quads
        .quads
        .iter()
        .filter(|q| q.len() == 8 && quad_area(q) > 1.0)
        .map(|q| ((q[0] + q[2] + q[4] + q[6]) / 4.0, (q[1] + q[3] + q[5] + q[7]) / 4.0))
        .next()
        .ok_or_else(|| ToolError::element(element_ref, ElementProblem::NoBox))
}

/// The centre of the element's first visible box in the page's viewport coordinates, without
/// scrolling; refused when it is outside the viewport.
pub async fn centre_in_view(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(f64, f64), ToolError> {
    let (x, y) = visible_centre(at, node, element_ref).await?;
    let (dx, dy) = at.offset().await?;
    let (x, y) = (x + dx, y + dy);
    if !viewport(at.target.tab_id).await?.shows(x, y) {
        return Err(ToolError::Invalid(format!(
            "{element_ref} is out of view once the element dragged is in view; scroll (browser_scroll) so both show, or \
             drag in steps with dx/dy"
        )));
    }
    Ok((x, y))
}

/// The tab's visual viewport now.
pub async fn viewport(tab: i32) -> Result<VisualViewport, ToolError> {
    let metrics: LayoutMetrics = crate::cdp::send(tab, "Page.getLayoutMetrics", serde_json::json!({})).await?;
    Ok(metrics.css_visual_viewport.unwrap_or_default())
}

/// What a click at a point would reach.
enum Hit {
    /// The target, or something inside it.
    Target,
    /// Something else, described for the agent.
    Other(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeAtPoint {
    backend_node_id: i64,
}

/// What counts as reaching the target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reached {
    /// The target or something inside it.
    Inside,
    /// That, or an element holding the target other than the page's body and root (the button
    /// around an icon a hover emptied). A target no longer in the document is held by nothing.
    InsideOrHolding,
}

/// Hit-tests `(x, y)` (frame viewport coordinates) the way a click would (honouring
/// `pointer-events`), and says whether it reaches the target.
async fn hit(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    x: f64,
    y: f64,
    reached: Reached,
) -> Result<Hit, ToolError> {
    // `DOM.getNodeForLocation` takes document coordinates: the viewport point plus the scroll.
    let metrics: LayoutMetrics = at.send("Page.getLayoutMetrics", serde_json::json!({})).await?;
    let view = metrics.css_visual_viewport.unwrap_or_default();
    let (px, py) = (view.page_x, view.page_y);
    let params = serde_json::json!({"x": (x + px).round(), "y": (y + py).round(), "ignorePointerEventsNone": false});
    let found: NodeAtPoint = at.send("DOM.getNodeForLocation", params).await.map_err(|e| node_error(e, element_ref))?;
    if found.backend_node_id == node.backend_node_id {
        return Ok(Hit::Target);
    }
    let other: ResolvedNode = at
        .send("DOM.resolveNode", serde_json::json!({"backendNodeId": found.backend_node_id}))
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let arguments = serde_json::json!([
        {"objectId": other.object.object_id},
        {"value": reached == Reached::InsideOrHolding},
    ]);
    let verdict = call_on_with(at, node, element_ref, REACHES, arguments).await;
    release(at, &other.object.object_id).await;
    Ok(match verdict? {
        serde_json::Value::String(what) => Hit::Other(what),
        _ => Hit::Target,
    })
}

/// Called on the target with the hit node: `true` when the hit node is the target or inside it
/// (across shadow roots) — or, with `holding`, an element holding the connected target other
/// than the body and the root — else a short description of what is there.
const REACHES: &str = r#"function (hit, holding) {
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
  const doc = this.ownerDocument;
  if (holding && this.isConnected && hit !== doc.body && hit !== doc.documentElement) {
    for (let n = this; n; n = n.parentNode || n.host) if (n === hit) return true;
  }
  const el = hit.nodeType === 1 ? hit : hit.parentElement;
  if (!el) return 'something outside the page';
  let what = '<' + el.localName;
  if (el.id) what += ' id="' + el.id + '"';
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).slice(0, 3).join(' ') : '';
  if (cls) what += ' class="' + cls + '"';
  what += '>';
  const words = (el.getAttribute('aria-label') || el.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  return words ? what + ' "' + words + '"' : what;
}"#;

/// Scrolls the element to the middle of the viewport, clear of sticky headers and footers.
const SCROLL_TO_CENTRE: &str =
    "function () { this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); return true; }";

/// Called on the target: `true` when focus is on it (or inside it, for an editable area),
/// else a short description of what has focus.
const HAS_FOCUS: &str = r#"function () {
  let a = this.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  for (let n = a; n; n = n.parentNode || n.host) if (n === this) return true;
  if (!a || a === this.ownerDocument.body) return 'nothing';
  return '<' + a.localName + (a.id ? ' id="' + a.id + '"' : '') + '>';
}"#;

/// Runs `function` on the element with `args` (object ids) and returns its value.
pub async fn call_on(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    function: &str,
    args: &[&str],
) -> Result<serde_json::Value, ToolError> {
    let arguments: Vec<serde_json::Value> = args.iter().map(|id| serde_json::json!({"objectId": id})).collect();
    call_on_with(at, node, element_ref, function, serde_json::Value::Array(arguments)).await
}

/// Runs `function` on the element with `arguments` (CDP call arguments: `{"value": …}` or
/// `{"objectId": …}`) and returns its value.
pub async fn call_on_with(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    function: &str,
    arguments: serde_json::Value,
) -> Result<serde_json::Value, ToolError> {
    let resolved: ResolvedNode = at
        .send("DOM.resolveNode", serde_json::json!({"backendNodeId": node.backend_node_id}))
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let outcome: Result<CallResult, CdpError> = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": resolved.object.object_id, "functionDeclaration": function,
                "arguments": arguments, "returnByValue": true}),
        )
        .await;
    release(at, &resolved.object.object_id).await;
    let outcome = outcome.map_err(|e| node_error(e, element_ref))?;
    // A check that threw has not passed.
    if let Some(exception) = outcome.exception {
        return Err(ToolError::Unexpected { what: "a check on the element", message: exception.to_string() });
    }
    Ok(outcome.result.value.unwrap_or_default())
}

/// Releases a remote object the runtime no longer needs.
pub async fn release(at: &NodeTarget, object_id: &str) {
    let _ = at.send::<serde_json::Value>("Runtime.releaseObject", serde_json::json!({"objectId": object_id})).await;
}

fn quad_area(q: &[f64]) -> f64 {
    // Shoelace formula over the four corners.
    let mut twice = 0.0;
    for i in 0..4 {
        let (x1, y1) = (q[2 * i], q[2 * i + 1]);
        let (x2, y2) = (q[(2 * i + 2) % 8], q[(2 * i + 3) % 8]);
        twice += x1 * y2 - x2 * y1;
    }
    (twice / 2.0).abs()
}

/// Maps a CDP failure on a node to what it says about the ref.
pub fn node_error(e: CdpError, element_ref: &str) -> ToolError {
    match e {
        CdpError::NoSuchNode { .. } => ToolError::element(element_ref, ElementProblem::Removed),
        CdpError::NotFocusable { .. } => ToolError::element(element_ref, ElementProblem::NotFocusable),
        other => other.into(),
    }
}

/// Moves the mouse to `(x, y)` and clicks.
pub async fn click_at(tab_id: i32, x: f64, y: f64, button: MouseButton, double: bool) -> Result<(), ToolError> {
    let button = match button {
        MouseButton::Left => "left",
        MouseButton::Right => "right",
        MouseButton::Middle => "middle",
    };
    let buttons = match button {
        "left" => 1,
        "right" => 2,
        _ => 4,
    };
    mouse(tab_id, serde_json::json!({"type": "mouseMoved", "x": x, "y": y})).await?;
    let clicks = if double { 2 } else { 1 };
    for count in 1..=clicks {
        mouse(tab_id, serde_json::json!({"type": "mousePressed", "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": count})).await?;
        mouse(tab_id, serde_json::json!({"type": "mouseReleased", "x": x, "y": y, "button": button, "buttons": 0, "clickCount": count})).await?;
    }
    Ok(())
}

/// Moves the mouse to `(x, y)`, as a pointer coming to rest over what is there.
pub async fn move_mouse(tab_id: i32, x: f64, y: f64) -> Result<(), ToolError> {
    mouse(tab_id, serde_json::json!({"type": "mouseMoved", "x": x, "y": y})).await
}

pub async fn mouse(tab_id: i32, params: serde_json::Value) -> Result<(), ToolError> {
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchMouseEvent", params).await?;
    Ok(())
}

/// Focuses an element, and fails unless focus is really on it afterwards (a page may move it
/// elsewhere, and keys would then go there).
pub async fn focus(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(), ToolError> {
    at.send::<serde_json::Value>("DOM.focus", serde_json::json!({"backendNodeId": node.backend_node_id}))
        .await
        .map_err(|e| node_error(e, element_ref))?;
    match call_on(at, node, element_ref, HAS_FOCUS, &[]).await? {
        serde_json::Value::String(holder) => Err(ToolError::element(element_ref, ElementProblem::Unfocused { holder })),
        _ => Ok(()),
    }
}

/// What `DOM.resolveNode` answers: the node as a remote object.
#[derive(Deserialize)]
pub struct ResolvedNode {
    /// The node.
    pub object: RemoteObject,
}

/// A remote object (its id) that a node resolved to.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// Its id, until released.
    pub object_id: String,
}

/// What `Runtime.callFunctionOn` answers.
#[derive(Deserialize)]
pub struct CallResult {
    /// The function's result.
    pub result: ValueHolder,
    /// Set when the function threw.
    #[serde(default, rename = "exceptionDetails")]
    pub exception: Option<serde_json::Value>,
}

/// A result: by value when asked for (`returnByValue`), otherwise as a remote object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueHolder {
    /// The value.
    #[serde(default)]
    pub value: Option<serde_json::Value>,
    /// The remote object's id.
    #[serde(default)]
    pub object_id: Option<String>,
}

/// Selects the whole content of an editable element, so typing replaces it. Fails when the
/// element is not editable.
const SELECT_CONTENTS: &str = r#"function () {
  const tag = this.localName;
  const textual = ['text','search','email','url','tel','password','number',''].includes((this.getAttribute && this.getAttribute('type') || '').toLowerCase());
  if ((tag === 'input' && textual) || tag === 'textarea') {
    if (this.disabled || this.readOnly) return 'readonly';
    this.select();
    return 'ok';
  }
  if (tag === 'input') return 'input:' + this.type;
  if (this.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(this);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return 'ok';
  }
  return 'not-editable';
}"#;

/// Replaces the text of an editable element with `text`.
pub async fn replace_text(at: &NodeTarget, node: &NodeKey, element_ref: &str, text: &str) -> Result<(), ToolError> {
    focus(at, node, element_ref).await?;
    let resolved: ResolvedNode = at
        .send("DOM.resolveNode", serde_json::json!({"backendNodeId": node.backend_node_id}))
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let outcome: CallResult = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": resolved.object.object_id, "functionDeclaration": SELECT_CONTENTS, "returnByValue": true}),
        )
        .await?;
    let _ = at
        .send::<serde_json::Value>("Runtime.releaseObject", serde_json::json!({"objectId": resolved.object.object_id}))
        .await;
    let tab_id = at.target.tab_id;
    match outcome.result.value.as_ref().and_then(|v| v.as_str()).unwrap_or("") {
        "ok" => {}
        "readonly" => return Err(ToolError::element(element_ref, ElementProblem::ReadOnly)),
        other if let Some(kind) = other.strip_prefix("input:") => {
            return Err(ToolError::element(element_ref, ElementProblem::NotTextInput(kind.to_owned())));
        }
        _ => return Err(ToolError::element(element_ref, ElementProblem::NotEditable)),
    }
    if text.is_empty() {
        press(tab_id, &sightline_core::keys::parse_chord("Delete")?).await
    } else {
        cdp::send::<serde_json::Value>(tab_id, "Input.insertText", serde_json::json!({"text": text})).await?;
        Ok(())
    }
}

/// Presses and releases one key (with its modifiers).
pub async fn press(tab_id: i32, key: &KeyPress) -> Result<(), ToolError> {
    let mut down = serde_json::json!({
        "type": if key.text.is_some() { "keyDown" } else { "rawKeyDown" },
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.windows_virtual_key_code,
        "nativeVirtualKeyCode": key.windows_virtual_key_code,
        "modifiers": key.modifiers,
    });
    if let Some(text) = &key.text {
        down["text"] = text.clone().into();
        down["unmodifiedText"] = text.clone().into();
    }
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchKeyEvent", down).await?;
    let up = serde_json::json!({
        "type": "keyUp",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.windows_virtual_key_code,
        "nativeVirtualKeyCode": key.windows_virtual_key_code,
        "modifiers": key.modifiers,
    });
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchKeyEvent", up).await?;
    Ok(())
}
