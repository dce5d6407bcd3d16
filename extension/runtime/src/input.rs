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
use sightline_core::actions::reach::{self, Approach, ApproachStep, Hit, Hover, HoverStep, Point, Reached, Sight};
use sightline_core::actions::{Refusal, whole_values};
use sightline_core::cdp::page::{LayoutMetrics, VisualViewport};
use sightline_core::keys::KeyPress;
use sightline_core::protocol::MouseButton;
use sightline_core::refs::NodeKey;

use crate::cdp::{self, CdpError};
use crate::chrome::DebuggeeTarget;
use crate::error::{ElementProblem, ToolError};
use crate::state::TabsState;

/// Where to send commands about a node: its frame's session, and the offset that turns that
/// frame's viewport coordinates into the page's.
pub struct NodeTarget {
    /// The session of the node's frame.
    pub target: DebuggeeTarget,
    /// The node's frame id.
    pub frame_id: String,
    /// The frame's isolated world (its execution context id), once known.
    world: Cell<Option<i64>>,
    /// The last node checks ran on, as an object of the isolated world (backend node id, object
    /// id): the checks of one action run on one node, which is resolved once for all of them and
    /// released when the action is done.
    checked: std::cell::RefCell<Option<(i64, String)>>,
}

impl Drop for NodeTarget {
    fn drop(&mut self) {
        if let Some((_, object_id)) = self.checked.take() {
            let (target, params) = (self.target.clone(), serde_json::json!({"objectId": object_id}));
            wasm_bindgen_futures::spawn_local(async move {
                let method = "Runtime.releaseObject";
                let _ = cdp::send_to::<serde_json::Value>(&target, method, params, cdp::COMMAND_TIMEOUT_MS).await;
            });
        }
    }
}

impl NodeTarget {
    /// The target for `node` on `tab_id`.
    pub fn of(tabs: &TabsState, tab_id: i32, node: &NodeKey) -> NodeTarget {
        let tabs = tabs.registry.borrow();
        let frames = tabs.frames(tab_id);
        let session_id = frames.session_of(&node.frame_id).map(str::to_owned);
        let world = frames.world_context(session_id.as_deref(), &node.frame_id, crate::probe::WATCH_WORLD);
        NodeTarget {
            target: DebuggeeTarget { tab_id, session_id },
            frame_id: node.frame_id.clone(),
            world: Cell::new(world),
            checked: Default::default(),
        }
    }

    /// The target for frame `frame_id` reached through `target`.
    pub fn frame(target: DebuggeeTarget, frame_id: String) -> NodeTarget {
        NodeTarget { target, frame_id, world: Cell::new(None), checked: Default::default() }
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
/// What the hit tests found is judged by the engine's [`Approach`]: a covered element is
/// scrolled to the viewport's centre and tried again, then refused with what covers it.
pub async fn click_point(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Point, ToolError> {
    let approached = approach(at, node, element_ref).await;
    attached_or(at, node, element_ref, approached).await
}

/// Performs the steps of an [`Approach`] until it says where the click reaches the element.
async fn approach(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Point, ToolError> {
    let (mut plan, mut step) = Approach::new(at.target.session_id.is_some());
    loop {
        step = match step {
            ApproachStep::ScrollIntoView => {
                let id = serde_json::json!({"backendNodeId": node.backend_node_id});
                at.send::<serde_json::Value>("DOM.scrollIntoViewIfNeeded", id)
                    .await
                    .map_err(|e| node_error(e, element_ref))?;
                plan.saw(look(at, node, element_ref).await?)
            }
            ApproachStep::ScrollToCentre => {
                call_on(at, node, element_ref, SCROLL_TO_CENTRE, &[]).await?;
                plan.saw(look(at, node, element_ref).await?)
            }
            ApproachStep::LookFromTopPage((x, y)) => plan.top_page(hit_frame_owner(at, element_ref, x, y).await?),
            ApproachStep::CheckAttached => plan.attached(is_attached(at, node, element_ref).await?),
            ApproachStep::Reached(point) => return Ok(point),
            ApproachStep::Refuse(refusal) => return Err(refused(element_ref, refusal)),
        }
    }
}

/// The agent's error for what the engine refused about `element_ref`.
pub fn refused(element_ref: &str, refusal: Refusal) -> ToolError {
    match refusal {
        Refusal::Element(problem) => ToolError::element(element_ref, problem),
        Refusal::Stale => sightline_core::refs::RefError::removed_since_snapshot(element_ref).into(),
        Refusal::Invalid(text) => ToolError::Invalid(text),
        Refusal::Options(text) => ToolError::Options(text),
    }
}

/// Called on the target (in the isolated world): whether it is still in its document.
const IS_CONNECTED: &str = "function () { return this.isConnected; }";

/// Whether the element is still in its document.
async fn is_attached(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<bool, ToolError> {
    Ok(call_on(at, node, element_ref, IS_CONNECTED, &[]).await? != serde_json::Value::Bool(false))
}

/// Refuses with the stale-ref error when the element has left its document since the snapshot
/// that named it. Whatever took its place under the pointer is not the element the agent chose.
pub async fn ensure_attached(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(), ToolError> {
    if is_attached(at, node, element_ref).await? { Ok(()) } else { Err(refused(element_ref, Refusal::Stale)) }
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

/// Looks at the element without scrolling: its visible centre in the page's viewport
/// coordinates and what a click there reaches in its own frame, or that it has no box.
async fn look(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Sight, ToolError> {
    // The element's box and the frame's scroll do not depend on each other: asked side by side.
    let (centre, scroll) = futures::join!(frame_centre(at, node, element_ref), page_scroll(at));
    let Some((x, y)) = centre? else { return Ok(Sight::NoBox) };
    let hit = hit_scrolled(at, node, element_ref, x, y, scroll?, Reached::Inside).await?;
    let (dx, dy) = at.offset().await?;
    Ok(Sight::Seen { at: (x + dx, y + dy), hit })
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
    let main = NodeTarget::frame(main.target.clone(), found.frame_id.clone().unwrap_or_default());
    Ok(Hit::in_top_page(describe_isolated(&main, found.backend_node_id).await))
}

/// Clicks the element as a user would: the pointer comes to rest over it first, then presses.
/// A hover can move, empty or take away the target; what is looked at meanwhile, and whether
/// the press goes ahead, is the engine's [`Hover`].
pub async fn click_element(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    button: MouseButton,
    double: bool,
) -> Result<(), ToolError> {
    let (x, y) = click_point(at, node, element_ref).await?;
    let tab_id = at.target.tab_id;
    move_mouse(tab_id, x, y).await?;
    let now = crate::timer::now_ms;
    let (mut plan, mut step) = Hover::new((x, y), now(), at.target.session_id.is_some());
    loop {
        step = match step {
            // Most often the pointer's rest changed nothing: one look in the isolated world that
            // a click where the pointer is still reaches the target. When it does not, or cannot
            // say, the full look decides.
            HoverStep::Look if still_reached(at, node, element_ref, x, y).await => {
                plan.saw(Sight::Seen { at: (x, y), hit: Hit::Target }, now())
            }
            HoverStep::Look => {
                let seen = look(at, node, element_ref).await;
                plan.saw(attached_or(at, node, element_ref, seen).await?, now())
            }
            HoverStep::Wait(ms) => {
                crate::timer::sleep(ms).await;
                HoverStep::Look
            }
            HoverStep::LookFromTopPage((x, y)) => {
                let found = hit_frame_owner(at, element_ref, x, y).await;
                plan.top_page(attached_or(at, node, element_ref, found).await?, now())
            }
            HoverStep::CheckAttached => plan.attached(is_attached(at, node, element_ref).await?),
            HoverStep::LookBeneath((x, y)) => {
                let (dx, dy) = at.offset().await?;
                plan.beneath(hit(at, node, element_ref, x - dx, y - dy, Reached::InsideOrHolding).await?)
            }
            HoverStep::Settle((x, y)) => {
                move_mouse(tab_id, x, y).await?;
                plan.attached(is_attached(at, node, element_ref).await?)
            }
            HoverStep::Press((x, y)) => return press_at(tab_id, x, y, button, double).await,
            HoverStep::Refuse(refusal) => return Err(refused(element_ref, refusal)),
        }
    }
}

/// Whether a click at `(x, y)` (the page's viewport coordinates), where the full hit test found
/// the target before the pointer came to rest there, still reaches it: one call in the isolated
/// world (see [`STILL_REACHED`]). Only ever a yes that the full hit test would also give; for a
/// target in another process's frame it is not asked.
async fn still_reached(at: &NodeTarget, node: &NodeKey, element_ref: &str, x: f64, y: f64) -> bool {
    if at.target.session_id.is_some() {
        return false;
    }
    let arguments = serde_json::json!([{"value": x}, {"value": y}]);
    matches!(call_on_with(at, node, element_ref, STILL_REACHED, arguments).await, Ok(serde_json::Value::Bool(true)))
}

/// The centre of the element's first visible box, in its frame's viewport coordinates, or
/// `None` when it shows none.
async fn frame_centre(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Option<Point>, ToolError> {
    let id = serde_json::json!({"backendNodeId": node.backend_node_id});
    let quads: ContentQuads = at.send("DOM.getContentQuads", id).await.map_err(|e| node_error(e, element_ref))?;
    Ok(reach::visible_centre(&quads.quads))
}

/// The centre of the element's first visible box, in its frame's viewport coordinates.
async fn visible_centre(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Point, ToolError> {
    frame_centre(at, node, element_ref).await?.ok_or_else(|| ToolError::element(element_ref, ElementProblem::NoBox))
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeAtPoint {
    backend_node_id: i64,
    #[serde(default)]
    frame_id: Option<String>,
}

/// The node a click at `(x, y)` (viewport coordinates of `at`'s frame's process) would reach,
/// honouring `pointer-events`, and its frame.
async fn node_at(at: &NodeTarget, element_ref: &str, x: f64, y: f64) -> Result<NodeAtPoint, ToolError> {
    node_at_scrolled(at, element_ref, x, y, page_scroll(at).await?).await
}

/// How far `at`'s frame's process has scrolled its page (its visual viewport's offset).
async fn page_scroll(at: &NodeTarget) -> Result<(f64, f64), ToolError> {
    let metrics: LayoutMetrics = at.send("Page.getLayoutMetrics", serde_json::json!({})).await?;
    let view = metrics.css_visual_viewport.unwrap_or_default();
    Ok((view.page_x, view.page_y))
}

/// [`node_at`] with the page's scroll, read just before.
async fn node_at_scrolled(
    at: &NodeTarget,
    element_ref: &str,
    x: f64,
    y: f64,
    (px, py): (f64, f64),
) -> Result<NodeAtPoint, ToolError> {
    // `DOM.getNodeForLocation` takes document coordinates: the viewport point plus the scroll.
    let params = serde_json::json!({"x": (x + px).round(), "y": (y + py).round(), "ignorePointerEventsNone": false});
    at.send("DOM.getNodeForLocation", params).await.map_err(|e| node_error(e, element_ref))
}

/// The node a click at `(x, y)` of `tab`'s viewport would reach, hit-tested as a click at a
/// ref is ([`node_at`]): in a frame of the page's own process, the node in that frame; over a
/// frame of another process, the frame element. `None` when nothing can be told.
pub async fn node_at_point(tabs: &TabsState, tab: i32, x: f64, y: f64) -> Option<NodeKey> {
    let main = tabs.registry.borrow().frames(tab).main_frame().to_owned();
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
    hit_scrolled(at, node, element_ref, x, y, page_scroll(at).await?, reached).await
}

/// [`hit`] with the page's scroll, read just before.
async fn hit_scrolled(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    x: f64,
    y: f64,
    scroll: (f64, f64),
    reached: Reached,
) -> Result<Hit, ToolError> {
    let found = node_at_scrolled(at, element_ref, x, y, scroll).await?;
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
    Ok(Hit::from_verdict(verdict?.as_str()))
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

/// A JavaScript `sameControl(target, hit)`: whether a click on `hit` does what a click on
/// `target` does because one is a `<label>` of the other (a styled radio's label with its hidden
/// input laid over it, or a hidden checkbox's label covering it): a label's click is its
/// control's.
macro_rules! same_control_js {
    () => {
        r#"const sameControl = (target, hit) => {
    if (!hit || hit.nodeType !== 1) return false;
    if (target.localName === 'label' && target.control && target.control === hit) return true;
    const labels = target.labels ? Array.from(target.labels) : [];
    return labels.some((label) => label === hit || label.contains(hit));
  };
  "#
    };
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
/// (across shadow roots), or the control of a target label or a label of the target — or, with `holding`, an element holding the connected target other
/// than the body and the root; `frame:<what>` when the hit node is a frame element (its document
/// would get the click), else a short description of what is there. Runs in the isolated world,
/// where the page cannot have redefined `parentNode`, `host` or anything else it reads.
const REACHES: &str = concat!(
    "function (hit, holding) {\n  ",
    describe_js!(),
    same_control_js!(),
    r#"
  const frameLike = ['iframe', 'frame', 'object', 'embed', 'fencedframe', 'portal'];
  if (hit !== this && hit.nodeType === 1 && frameLike.includes(hit.localName)) {
    const src = hit.getAttribute('src') || hit.getAttribute('data') || '';
    let where = '';
    try { where = src ? new URL(src, hit.baseURI).origin : ''; } catch (e) { where = ''; }
    return 'frame:<' + hit.localName + (hit.id ? ' id="' + hit.id + '"' : '') + '>' + (where ? ' of ' + where : '');
  }
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
  if (sameControl(this, hit)) return true;
  const doc = this.ownerDocument;
  if (holding && this.isConnected && hit !== doc.body && hit !== doc.documentElement) {
    for (let n = this; n; n = n.parentNode || n.host) if (n === hit) return true;
  }
  return describe(hit);
}"#
);

/// Called on the connected target with a point of its frame's viewport: `true` when the element
/// a click there reaches (`elementFromPoint`, through open shadow roots) is the target, inside
/// it or its label's control (or a label of it), and is not a frame element (whose document would get the click). Anything it cannot see
/// into (a closed shadow root, a frame) answers `false`, and the CDP hit test decides instead.
const STILL_REACHED: &str = concat!(
    "function (x, y) {\n  ",
    same_control_js!(),
    r#"
  if (!this.isConnected) return false;
  let hit = this.ownerDocument.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit || (hit !== this && ['iframe', 'frame', 'object', 'embed', 'fencedframe', 'portal'].includes(hit.localName))) {
    return false;
  }
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return true;
  return sameControl(this, hit);
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
    let call = |object_id: String| {
        at.send::<CallResult>(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": object_id, "functionDeclaration": function,
                "arguments": arguments.clone(), "returnByValue": true}),
        )
    };
    // The node as resolved for an earlier check of this action; an object the browser no
    // longer knows (its document went) is dropped, and the node resolved afresh.
    let kept = at.checked.borrow().clone().filter(|(id, _)| *id == node.backend_node_id);
    let earlier = match kept {
        Some((_, object_id)) => match call(object_id).await {
            Ok(outcome) => Some(outcome),
            Err(e @ (CdpError::Timeout { .. } | CdpError::Detached | CdpError::Gone(_))) => {
                return Err(node_error(e, element_ref));
            }
            Err(_) => None,
        },
        None => None,
    };
    let outcome = match earlier {
        Some(outcome) => outcome,
        None => {
            let object = at.resolve_isolated(node.backend_node_id).await.map_err(|e| node_error(e, element_ref))?;
            let outcome = call(object.object_id.clone()).await;
            if let Some((_, replaced)) = at.checked.replace(Some((node.backend_node_id, object.object_id))) {
                release(at, &replaced).await;
            }
            outcome.map_err(|e| node_error(e, element_ref))?
        }
    };
    // A check that threw has not passed.
    if let Some(exception) = outcome.exception {
        return Err(ToolError::Unexpected { what: "a check on the element", message: exception.to_string() });
    }
    Ok(outcome.result.value.unwrap_or_default())
}

/// Releases a remote object the runtime no longer needs. Nothing waits for the browser's
/// answer (there is nothing to do with it): the commands sent after it still reach the browser
/// after it, and the call goes on a round trip sooner.
pub async fn release(at: &NodeTarget, object_id: &str) {
    let (target, params) = (at.target.clone(), serde_json::json!({"objectId": object_id}));
    wasm_bindgen_futures::spawn_local(async move {
        let _ =
            cdp::send_to::<serde_json::Value>(&target, "Runtime.releaseObject", params, cdp::COMMAND_TIMEOUT_MS).await;
    });
}

/// Maps a CDP failure on a node to what it says about the ref.
pub fn node_error(e: CdpError, element_ref: &str) -> ToolError {
    match e {
        CdpError::NoSuchNode { .. } => sightline_core::refs::RefError::removed_since_snapshot(element_ref).into(),
        CdpError::NotFocusable { .. } => ToolError::element(element_ref, ElementProblem::NotFocusable),
        CdpError::NotRendered { .. } => ToolError::element(element_ref, ElementProblem::NoBox),
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

/// What `Runtime.getProperties` answers: an object's own properties.
#[derive(Deserialize)]
pub struct Properties {
    /// The properties.
    pub result: Vec<Property>,
}

/// One property (`"0"`, `"length"`…) and its value.
#[derive(Deserialize)]
pub struct Property {
    /// Its name.
    pub name: String,
    /// Its value, as a remote object.
    #[serde(default)]
    pub value: Option<ValueHolder>,
}

/// What `DOM.describeNode` answers.
#[derive(Deserialize)]
pub struct Described {
    /// The node.
    pub node: DescribedNode,
}

/// A node as `DOM.describeNode` describes it (only what is read).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedNode {
    /// Its backend node id.
    pub backend_node_id: i64,
}

/// Selects the whole content of an editable element, so typing replaces it. Fails when the
/// element is not editable.
const SELECT_CONTENTS: &str = r#"function () {
  const tag = this.localName;
  const type = (this.getAttribute && this.getAttribute('type') || '').toLowerCase();
  const textual = ['text','search','email','url','tel','password','number',''].includes(type);
  if ((tag === 'input' && textual) || tag === 'textarea') {
    if (this.disabled || this.readOnly) return 'readonly';
    this.select();
    return tag === 'input' && type === 'number' ? 'number' : 'ok';
  }
  if (tag === 'input') return 'input:' + this.type;
  if ((this.getAttribute('role') || '').trim().toLowerCase() === 'slider') return 'slider';
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

/// Sets the whole value of a date, time, month, week or colour input, with the events a
/// person's pick fires; a value the browser does not take leaves the field as it was. Answers
/// `{taken: value}`, `"not-taken"` or `"readonly"` (see `sightline_core::actions::whole_values`).
const SET_WHOLE_VALUE: &str = r#"function (wanted) {
  if (this.disabled || this.readOnly) return 'readonly';
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const before = this.value;
  setter.call(this, wanted);
  if (this.value === '' && wanted !== '') {
    setter.call(this, before);
    return 'not-taken';
  }
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { taken: this.value };
}"#;

/// Replaces the text of an editable element with `text`: focus, select its content (in the
/// isolated world), confirm focus once more, then insert. A date, time or colour input takes
/// `text` as its whole value instead, and a slider (a range input, `role=slider`) is set or
/// moved to the number `text` says, as `browser_fill_form` does.
pub async fn replace_text(at: &NodeTarget, node: &NodeKey, element_ref: &str, text: &str) -> Result<(), ToolError> {
    focus(at, node, element_ref).await?;
    let selected = call_on(at, node, element_ref, SELECT_CONTENTS, &[]).await?;
    let tab_id = at.target.tab_id;
    match selected.as_str().unwrap_or("") {
        "ok" => {}
        "number" => sightline_core::actions::fill::typed_number(text).map_err(ToolError::Invalid)?,
        "readonly" => return Err(ToolError::element(element_ref, ElementProblem::ReadOnly)),
        "slider" | "input:range" => {
            let wanted = sightline_core::actions::fill::slider_number(text).map_err(ToolError::Invalid)?;
            return crate::fill::set_slider(at, node, element_ref, wanted, true).await;
        }
        other if let Some(kind) = other.strip_prefix("input:") => {
            if whole_values::format(kind).is_none() {
                return Err(ToolError::element(element_ref, ElementProblem::NotTextInput(kind.to_owned())));
            }
            let answer =
                call_on_with(at, node, element_ref, SET_WHOLE_VALUE, serde_json::json!([{"value": text}])).await?;
            let answer = whole_values::SetAnswer::from_value(&answer);
            return whole_values::judge(kind, text, &answer)
                .map_err(|problem| ToolError::element(element_ref, problem));
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
