//! Acting on elements through CDP `Input` events, the way a user would: scroll the element
//! into view, then click, type or press keys at its centre.
//!
//! Input goes to coordinates and to whatever has focus, not to an element, so both are checked
//! first: a click's point is hit-tested (`DOM.getNodeForLocation`) and must land on the target
//! or something inside it, in the target's own frame (a sticky header or an invisible overlay
//! over the element makes the element scroll to the viewport's centre and be tried again, then
//! the click is refused with what covers it; a frame over it, or inside it, is refused at once:
//! the input would go to another document); typing and keys go ahead only when focus is on the
//! target, confirmed again right before each key.
//!
//! Every check that needs JavaScript runs in the extension's isolated world of the node's frame
//! (the watch world, `crate::probe`), never in the page's own: a page can redefine
//! `Node.prototype.parentNode`, `contains`, `focus` or `select` in its world, but not in ours.

use std::cell::Cell;

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
    /// The frame's isolated world (its execution context id), once known.
    world: Cell<Option<i64>>,
}

impl NodeTarget {
    /// The target for `node` on `tab_id`.
    pub fn of(state: &State, tab_id: i32, node: &NodeKey) -> NodeTarget {
        let tabs = state.tabs.borrow();
        let frames = tabs.frames(tab_id);
        let session_id = frames.session_of(&node.frame_id).map(str::to_owned);
        let world = frames.world_context(session_id.as_deref(), &node.frame_id, crate::probe::WATCH_WORLD);
        NodeTarget {
            target: DebuggeeTarget { tab_id, session_id },
            frame_id: node.frame_id.clone(),
            world: Cell::new(world),
        }
    }

    /// The target for frame `frame_id` reached through `target`.
    pub fn frame(target: DebuggeeTarget, frame_id: String) -> NodeTarget {
        NodeTarget { target, frame_id, world: Cell::new(None) }
    }

    /// The frame's isolated world: the one its events reported, else the one
    /// `Page.createIsolatedWorld` finds (or makes) for the frame's current document.
    async fn world(&self, fresh: bool) -> Result<i64, CdpError> {
        if !fresh && let Some(id) = self.world.get() {
            return Ok(id);
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct World {
            execution_context_id: i64,
        }
        let params = serde_json::json!({"frameId": self.frame_id, "worldName": crate::probe::WATCH_WORLD});
        let world: World = self.send("Page.createIsolatedWorld", params).await?;
        self.world.set(Some(world.execution_context_id));
        Ok(world.execution_context_id)
    }

    /// The frame's isolated world (its execution context id).
    pub async fn isolated_context(&self) -> Result<i64, CdpError> {
        self.world(false).await
    }

    /// The node as an object of the frame's isolated world (a remembered world that is gone is
    /// looked up afresh, once).
    pub async fn resolve_isolated(&self, backend_node_id: i64) -> Result<RemoteObject, CdpError> {
        let resolve = |context: i64| {
            let params = serde_json::json!({"backendNodeId": backend_node_id, "executionContextId": context});
            self.send::<ResolvedNode>("DOM.resolveNode", params)
        };
        let remembered = self.world.get().is_some();
        match resolve(self.world(false).await?).await {
            Err(CdpError::UnknownContext { .. }) if remembered => Ok(resolve(self.world(true).await?).await?.object),
            other => Ok(other?.object),
        }
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
    let scrolled = scroll_and_reach(at, node, element_ref).await;
    attached_or(at, node, element_ref, scrolled).await
}

async fn scroll_and_reach(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(f64, f64), ToolError> {
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

/// Called on the target (in the isolated world): whether it is still in its document.
const IS_CONNECTED: &str = "function () { return this.isConnected; }";

/// Refuses with the stale-ref error when the element has left its document since the snapshot
/// that named it. Whatever took its place under the pointer is not the element the agent chose.
pub async fn ensure_attached(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(), ToolError> {
    match call_on(at, node, element_ref, IS_CONNECTED, &[]).await? {
        serde_json::Value::Bool(false) => {
            Err(sightline_core::refs::RefError::removed_since_snapshot(element_ref).into())
        }
        _ => Ok(()),
    }
}

/// `outcome` of a step on the element, unless it failed because the element left the page
/// meanwhile: then the stale-ref error, which says what to do, rather than the step's own
/// (a detached node has no box and cannot be scrolled).
async fn attached_or<T>(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    outcome: Result<T, ToolError>,
) -> Result<T, ToolError> {
    match outcome {
        Ok(value) => Ok(value),
        Err(e @ ToolError::Ref(_)) => Err(e),
        Err(e) => match ensure_attached(at, node, element_ref).await {
            Err(stale @ ToolError::Ref(_)) => Err(stale),
            _ => Err(e),
        },
    }
}

/// The element's visible centre in the page's viewport coordinates when a click there reaches
/// it now (no scrolling), else a description of what is there instead. A target in an
/// out-of-process frame is also hit-tested from the top page: there the point must land on the
/// element that holds the target's frame, or the page around the frame would get the click.
async fn reach(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Result<(f64, f64), String>, ToolError> {
    let (x, y) = visible_centre(at, node, element_ref).await?;
    let mut reached = hit(at, node, element_ref, x, y, Reached::Inside).await?;
    let (dx, dy) = at.offset().await?;
    if matches!(reached, Hit::Target) && at.target.session_id.is_some() {
        reached = hit_frame_owner(at, element_ref, x + dx, y + dy).await?;
    }
    match reached {
        Hit::Target => Ok(Ok((x + dx, y + dy))),
        Hit::Other(what) => Ok(Err(what)),
        Hit::Frame(what) => Err(ToolError::element(element_ref, ElementProblem::OtherFrame { what })),
    }
}

/// Hit-tests the page's viewport point `(x, y)` in the top page, for a target in the
/// out-of-process frame of `at`: reaching it means landing on the element holding that frame.
async fn hit_frame_owner(at: &NodeTarget, element_ref: &str, x: f64, y: f64) -> Result<Hit, ToolError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Owner {
        backend_node_id: i64,
    }
    let main = NodeTarget::frame(DebuggeeTarget::main(at.target.tab_id), String::new());
    let owner: Owner = match main.send("DOM.getFrameOwner", serde_json::json!({"frameId": at.frame_id})).await {
        Ok(owner) => owner,
        // Held by a frame of its own process (a frame nested in another site's frame): the
        // frame's own hit test is all there is to go on.
        Err(_) => return Ok(Hit::Target),
    };
    let found = node_at(&main, element_ref, x, y).await?;
    if found.backend_node_id == owner.backend_node_id {
        return Ok(Hit::Target);
    }
    let main = NodeTarget::frame(main.target, found.frame_id.clone().unwrap_or_default());
    let what = describe_isolated(&main, found.backend_node_id).await;
    let frame_like = ["<iframe", "<frame", "<object", "<embed"].iter().any(|tag| what.starts_with(tag));
    Ok(if frame_like { Hit::Frame(what) } else { Hit::Other(what) })
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
        let reached = reaching_point(at, node, element_ref).await;
        if let Some(point) = attached_or(at, node, element_ref, reached).await? {
            (px, py) = point;
            break;
        }
        if deadline.passed() {
            ensure_attached(at, node, element_ref).await?;
            if let Some(instead) = beneath_after_hover(at, node, element_ref, x, y).await? {
                return Err(ToolError::element(element_ref, ElementProblem::GoneOnHover { instead }));
            }
            break;
        }
        crate::timer::sleep(deadline.cap(HOVER_LOOK_MS)).await;
    }
    // The pointer's last move before the press can itself close what the target was in (a
    // suggestion list that closes on the next mouse move): look once more, right before the
    // press, so a target gone by then is refused rather than whatever took its place pressed.
    move_mouse(at.target.tab_id, px, py).await?;
    ensure_attached(at, node, element_ref).await?;
    press_at(at.target.tab_id, px, py, button, double).await
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
    match hit(at, node, element_ref, x - dx, y - dy, Reached::InsideOrHolding).await? {
        Hit::Target => Ok(None),
        Hit::Other(what) => Ok(Some(what)),
        Hit::Frame(what) => Err(ToolError::element(element_ref, ElementProblem::OtherFrame { what })),
    }
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
    /// Another frame's document (a frame laid over the target, or held inside it).
    Frame(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeAtPoint {
    backend_node_id: i64,
    #[serde(default)]
    frame_id: Option<String>,
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

/// The node a click at `(x, y)` (viewport coordinates of `at`'s frame's process) would reach,
/// honouring `pointer-events`, and its frame.
async fn node_at(at: &NodeTarget, element_ref: &str, x: f64, y: f64) -> Result<NodeAtPoint, ToolError> {
    // `DOM.getNodeForLocation` takes document coordinates: the viewport point plus the scroll.
    let metrics: LayoutMetrics = at.send("Page.getLayoutMetrics", serde_json::json!({})).await?;
    let view = metrics.css_visual_viewport.unwrap_or_default();
    let (px, py) = (view.page_x, view.page_y);
    let params = serde_json::json!({"x": (x + px).round(), "y": (y + py).round(), "ignorePointerEventsNone": false});
    at.send("DOM.getNodeForLocation", params).await.map_err(|e| node_error(e, element_ref))
}

/// The node a click at `(x, y)` of `tab`'s viewport would reach, hit-tested as a click at a
/// ref is ([`node_at`]): in a frame of the page's own process, the node in that frame; over a
/// frame of another process, the frame element. `None` when nothing can be told.
pub async fn node_at_point(state: &State, tab: i32, x: f64, y: f64) -> Option<NodeKey> {
    let main = state.tabs.borrow().frames(tab).main_frame().to_owned();
    let top = NodeTarget::frame(DebuggeeTarget::main(tab), main.clone());
    let found = node_at(&top, "", x, y).await.ok()?;
    Some(NodeKey {
        frame_id: found.frame_id.unwrap_or(main),
        loader_id: String::new(),
        backend_node_id: found.backend_node_id,
    })
}

/// Hit-tests `(x, y)` (frame viewport coordinates) the way a click would, and says whether it
/// reaches the target: in the target's own frame, and not a frame element other than the target.
/// Decided from CDP and in the isolated world: nothing the page's own scripts define is asked.
async fn hit(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    x: f64,
    y: f64,
    reached: Reached,
) -> Result<Hit, ToolError> {
    let found = node_at(at, element_ref, x, y).await?;
    if found.backend_node_id == node.backend_node_id {
        return Ok(Hit::Target);
    }
    // A frame of the same process under the point: the click goes into its document.
    if found.frame_id.as_deref().is_some_and(|frame| frame != node.frame_id) {
        let what = match &found.frame_id {
            Some(frame) => {
                let there = NodeTarget::frame(at.target.clone(), frame.clone());
                format!("{} in a frame of the page", describe_isolated(&there, found.backend_node_id).await)
            }
            None => "a frame of the page".to_owned(),
        };
        return Ok(Hit::Frame(what));
    }
    let other = at.resolve_isolated(found.backend_node_id).await.map_err(|e| node_error(e, element_ref))?;
    let arguments = serde_json::json!([
        {"objectId": other.object_id},
        {"value": reached == Reached::InsideOrHolding},
    ]);
    let verdict = call_on_with(at, node, element_ref, REACHES, arguments).await;
    release(at, &other.object_id).await;
    Ok(match verdict? {
        serde_json::Value::String(what) => match what.strip_prefix("frame:") {
            Some(frame) => Hit::Frame(frame.to_owned()),
            None => Hit::Other(what),
        },
        _ => Hit::Target,
    })
}

/// A short description of a node for the agent, read in the frame's isolated world.
async fn describe_isolated(at: &NodeTarget, backend_node_id: i64) -> String {
    let Ok(object) = at.resolve_isolated(backend_node_id).await else { return "something".to_owned() };
    let params =
        serde_json::json!({"objectId": object.object_id, "functionDeclaration": DESCRIBE, "returnByValue": true});
    let described: Result<CallResult, CdpError> = at.send("Runtime.callFunctionOn", params).await;
    release(at, &object.object_id).await;
    described
        .ok()
        .and_then(|d| d.result.value)
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "something".into())
}

/// A JavaScript `describe(node)`: a short description of a node for the agent
/// (`<div id="shield"> "Pay"`), shared by the functions below.
macro_rules! describe_js {
    () => {
        r#"const describe = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    if (!el) return 'something outside the page';
    let what = '<' + el.localName;
    if (el.id) what += ' id="' + el.id + '"';
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).slice(0, 3).join(' ') : '';
    if (cls) what += ' class="' + cls + '"';
    what += '>';
    const words = (el.getAttribute('aria-label') || el.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return words ? what + ' "' + words + '"' : what;
  };"#
    };
}

/// Called on a node: a short description of it for the agent.
const DESCRIBE: &str = concat!("function () {\n  ", describe_js!(), "\n  return describe(this);\n}");

/// Called on the target with the hit node: `true` when the hit node is the target or inside it
/// (across shadow roots) — or, with `holding`, an element holding the connected target other
/// than the body and the root; `frame:<what>` when the hit node is a frame element (its document
/// would get the click), else a short description of what is there. Runs in the isolated world,
/// where the page cannot have redefined `parentNode`, `host` or anything else it reads.
const REACHES: &str = concat!(
    "function (hit, holding) {\n  ",
    describe_js!(),
    r#"
  const frameLike = ['iframe', 'frame', 'object', 'embed', 'fencedframe', 'portal'];
  if (hit !== this && hit.nodeType === 1 && frameLike.includes(hit.localName)) {
    const src = hit.getAttribute('src') || hit.getAttribute('data') || '';
    let where = '';
    try { where = src ? new URL(src, hit.baseURI).origin : ''; } catch (e) { where = ''; }
    return 'frame:<' + hit.localName + (hit.id ? ' id="' + hit.id + '"' : '') + '>' + (where ? ' of ' + where : '');
  }
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
  const doc = this.ownerDocument;
  if (holding && this.isConnected && hit !== doc.body && hit !== doc.documentElement) {
    for (let n = this; n; n = n.parentNode || n.host) if (n === hit) return true;
  }
  return describe(hit);
}"#
);

/// Scrolls the element to the middle of the viewport, clear of sticky headers and footers.
const SCROLL_TO_CENTRE: &str =
    "function () { this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); return true; }";

/// Called on the target (in the isolated world): `true` when focus is on it (or inside it, for
/// an editable area) and its document has the focus, else a short description of what has it.
const HAS_FOCUS: &str = r#"function () {
  const doc = this.ownerDocument;
  let a = doc.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (a && ['iframe', 'frame', 'object', 'embed'].includes(a.localName) && a !== this) return 'another frame';
  for (let n = a; n; n = n.parentNode || n.host) if (n === this) return doc.hasFocus() ? true : 'another document';
  if (!a || a === doc.body) return 'nothing';
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
/// `{"objectId": …}` of the same world) and returns its value. It runs in the frame's isolated
/// world: the page's own redefinitions of built-ins do not reach it.
pub async fn call_on_with(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    function: &str,
    arguments: serde_json::Value,
) -> Result<serde_json::Value, ToolError> {
    let object = at.resolve_isolated(node.backend_node_id).await.map_err(|e| node_error(e, element_ref))?;
    let outcome: Result<CallResult, CdpError> = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": object.object_id, "functionDeclaration": function,
                "arguments": arguments, "returnByValue": true}),
        )
        .await;
    release(at, &object.object_id).await;
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
        CdpError::NoSuchNode { .. } => sightline_core::refs::RefError::removed_since_snapshot(element_ref).into(),
        CdpError::NotFocusable { .. } => ToolError::element(element_ref, ElementProblem::NotFocusable),
        other => other.into(),
    }
}

/// Moves the mouse to `(x, y)` and clicks.
pub async fn click_at(tab_id: i32, x: f64, y: f64, button: MouseButton, double: bool) -> Result<(), ToolError> {
    mouse(tab_id, serde_json::json!({"type": "mouseMoved", "x": x, "y": y})).await?;
    press_at(tab_id, x, y, button, double).await
}

/// Presses and releases `button` at `(x, y)` where the pointer already is (twice for `double`).
pub async fn press_at(tab_id: i32, x: f64, y: f64, button: MouseButton, double: bool) -> Result<(), ToolError> {
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
    confirm_focus(at, node, element_ref).await
}

/// Fails unless focus is on the element (or inside it, for an editable area) and its frame's
/// document has it: what is checked right before each key is sent, since a page may move focus
/// at any time (in a `focus` or `select` handler, or a redefined `focus()`).
pub async fn confirm_focus(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(), ToolError> {
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

/// Replaces the text of an editable element with `text`: focus, select its content (in the
/// isolated world), confirm focus once more, then insert.
pub async fn replace_text(at: &NodeTarget, node: &NodeKey, element_ref: &str, text: &str) -> Result<(), ToolError> {
    focus(at, node, element_ref).await?;
    let selected = call_on(at, node, element_ref, SELECT_CONTENTS, &[]).await?;
    let tab_id = at.target.tab_id;
    match selected.as_str().unwrap_or("") {
        "ok" => {}
        "readonly" => return Err(ToolError::element(element_ref, ElementProblem::ReadOnly)),
        other if let Some(kind) = other.strip_prefix("input:") => {
            return Err(ToolError::element(element_ref, ElementProblem::NotTextInput(kind.to_owned())));
        }
        _ => return Err(ToolError::element(element_ref, ElementProblem::NotEditable)),
    }
    // A `select` handler of the page may have moved focus elsewhere.
    confirm_focus(at, node, element_ref).await?;
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
