//! Filling forms, scrolling, waiting and dragging: each answers with what changed, like every
//! action, through the (session, tab) page state.

use sightline_core::page_state::Answer;
use sightline_core::protocol::{DragParams, FillFormParams, ScrollDirection, ScrollParams, WaitForParams};
use sightline_core::refs::NodeKey;

use super::actions::{ActionResult, act, act_noting, act_on_ref, lock_tab, node_or_page, on_tab};
use super::snapshot::answer;
use super::{CallContext, refuse_if_dialog, resolve_ref, target_tab};
use crate::cdp::{self, CdpError};
use crate::chrome::DebuggeeTarget;
use crate::error::ToolError;
use crate::input::{self, NodeTarget};
use crate::state::Reach;
use crate::{drag, fill, timer};

/// `browser_fill_form`: every ref is resolved and every value checked before the first field
/// is touched; the fields are then filled in order, and the answer shows what they changed.
pub async fn fill_form(reach: &Reach<'_>, session: &str, params: FillFormParams, ctx: &CallContext) -> ActionResult {
    if params.fields.is_empty() {
        return Err(ToolError::Arguments("give `fields`: at least one {name, type, ref, value}").into());
    }
    // Until filling starts, no field is filled; then, every field before the one that failed.
    let field_error = |index: usize, filling: bool, source: ToolError| {
        let field = &params.fields[index];
        ToolError::Field {
            index,
            filled: if filling { index } else { 0 },
            name: field.name.clone(),
            element_ref: field.element_ref.clone(),
            source: Box::new(source),
        }
    };
    for (index, field) in params.fields.iter().enumerate() {
        fill::check_value(field).map_err(|e| field_error(index, false, e))?;
    }
    let (fields, since, field_error) = (&params.fields, params.since_version, &field_error);
    on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
        let mut nodes: Vec<NodeKey> = Vec::with_capacity(fields.len());
        for (index, field) in fields.iter().enumerate() {
            match node_or_page(reach, session, tab, &field.element_ref).await {
                Ok(Ok(node)) => nodes.push(node),
                Ok(Err(page)) => return Ok(page),
                Err(super::Failure::Tool(e)) => return Err(field_error(index, false, e).into()),
                Err(other) => return Err(other),
            }
        }
        act(reach, session, tab, since, ctx, "browser_fill_form", async {
            for (index, (field, node)) in fields.iter().zip(&nodes).enumerate() {
                let at = NodeTarget::of(reach.custody.tabs, tab, node);
                fill::fill(&at, node, field).await.map_err(|e| field_error(index, true, e))?;
            }
            Ok(())
        })
        .await
    })
    .await
}

/// Scrolls the element, or its nearest ancestor that scrolls that way, or else the page.
/// Answers what moved, where it is now, and how much there is.
const SCROLL: &str = r#"function (direction, amount) {
  const horizontal = direction === 'left' || direction === 'right';
  const doc = this.ownerDocument || document;
  const page = doc.scrollingElement || doc.documentElement;
  const scrolls = (el) => {
    if (el === page) return true;
    const overflow = getComputedStyle(el)[horizontal ? 'overflowX' : 'overflowY'];
    const room = horizontal ? el.scrollWidth > el.clientWidth : el.scrollHeight > el.clientHeight;
    return room && /(auto|scroll|overlay)/.test(overflow);
  };
  let el = this.nodeType === 9 ? page : this;
  while (el && el !== page && !scrolls(el)) el = el.parentElement;
  if (!el) el = page;
  const isPage = el === page;
  const win = doc.defaultView;
  const seen = isPage ? (horizontal ? win.innerWidth : win.innerHeight) : (horizontal ? el.clientWidth : el.clientHeight);
  const sign = direction === 'up' || direction === 'left' ? -1 : 1;
  const by = sign * (amount > 0 ? amount : Math.max(1, Math.round(seen * 0.9)));
  const pos = () => horizontal ? (isPage ? win.scrollX : el.scrollLeft) : (isPage ? win.scrollY : el.scrollTop);
  const before = pos();
  const step = { left: horizontal ? by : 0, top: horizontal ? 0 : by, behavior: 'instant' };
  if (isPage) win.scrollBy(step); else el.scrollBy(step);
  const size = horizontal ? el.scrollWidth : el.scrollHeight;
  return { moved: Math.round(pos() - before), at: Math.round(pos()), seen: Math.round(seen), size: Math.round(size),
           what: isPage ? 'the page' : '<' + el.localName + (el.id ? ' id="' + el.id + '"' : '') + '>' };
}"#;

/// Scrolls an element into the middle of the view.
const INTO_VIEW: &str =
    "function () { this.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' }); return true; }";

#[derive(serde::Deserialize)]
struct Scrolled {
    moved: f64,
    at: f64,
    seen: f64,
    size: f64,
    what: String,
}

impl Scrolled {
    fn note(&self, direction: ScrollDirection) -> String {
        let end = self.at + self.seen;
        if self.moved == 0.0 {
            let edge = match direction {
                ScrollDirection::Down | ScrollDirection::Right => "end",
                ScrollDirection::Up | ScrollDirection::Left => "start",
            };
            return format!(
                "{} did not scroll {}: it is at its {edge} (showing {:.0}–{end:.0} of {:.0} px)",
                self.what,
                direction.name(),
                self.at,
                self.size
            );
        }
        format!(
            "{} scrolled {:.0} px {}; it shows {:.0}–{end:.0} of {:.0} px",
            self.what,
            self.moved.abs(),
            direction.name(),
            self.at,
            self.size
        )
    }
}

/// `browser_scroll`.
pub async fn scroll(reach: &Reach<'_>, session: &str, params: ScrollParams, ctx: &CallContext) -> ActionResult {
    let tool = "browser_scroll";
    let direction = params.direction.unwrap_or_default();
    let amount = params.amount.unwrap_or(0);
    if let Some(to) = &params.to_ref {
        if params.element_ref.is_some() || params.direction.is_some() || params.amount.is_some() {
            return Err(ToolError::Arguments("give either `to_ref`, or `ref`/`direction`/`amount`, not both").into());
        }
        return act_on_ref(reach, session, params.tab, to, params.since_version, ctx, tool, |at, node, _| async move {
            input::call_on(&at, &node, to, INTO_VIEW, &[]).await.map(|_| ())
        })
        .await;
    }
    let args = serde_json::json!([{"value": direction.name()}, {"value": amount}]);
    let (element_ref, since) = (params.element_ref.as_deref(), params.since_version);
    on_tab(reach, session, params.tab, element_ref, ctx, |tab, node| async move {
        act_noting(reach, session, tab, since, ctx, tool, async {
            let value = match (&node, element_ref) {
                (Some(node), Some(r)) => {
                    input::call_on_with(&NodeTarget::of(reach.custody.tabs, tab, node), node, r, SCROLL, args).await
                }
                _ => on_document(tab, SCROLL, args).await,
            }
            .map_err(|e| e.or_timed_out(tool, "the scroll"))?;
            let scrolled: Scrolled = serde_json::from_value(value)
                .map_err(|e| ToolError::Unexpected { what: "the scroll's outcome", message: e.to_string() })?;
            Ok(vec![scrolled.note(direction)])
        })
        .await
    })
    .await
}

/// Longest `browser_wait_for` waits, in seconds.
const MOST_WAIT_S: f64 = 30.0;
/// How long `browser_wait_for` waits for a condition unless told.
const DEFAULT_WAIT_S: f64 = 10.0;
/// How often a condition is checked.
const POLL_MS: u32 = 200;
/// What an answer needs of the call's time after the wait.
const ANSWER_MS: u32 = 2_000;

/// Called on the document with a text and whether it should be there: whether it is (or is
/// not), in the text a person sees.
const HAS_TEXT: &str = r#"function (text) {
  const wanted = text.replace(/\s+/g, ' ').trim();
  const shows = (doc) => {
    if ((doc.body && doc.body.innerText || '').replace(/\s+/g, ' ').includes(wanted)) return true;
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      if (inner && shows(inner)) return true;
    }
    return false;
  };
  return shows(this);
}"#;

/// `browser_wait_for`: waits (bounded) for its condition, then answers with what changed.
pub async fn wait_for(reach: &Reach<'_>, session: &str, params: WaitForParams, ctx: &CallContext) -> ActionResult {
    let conditions = [params.text.is_some(), params.text_gone.is_some(), params.ref_gone.is_some()];
    let count = conditions.iter().filter(|c| **c).count();
    if count > 1 {
        return Err(ToolError::Arguments("give one of `text`, `text_gone` and `ref_gone`, not several").into());
    }
    if let Some(time) = params.time
        && !(time > 0.0 && time <= MOST_WAIT_S)
    {
        return Err(ToolError::Invalid(format!("`time` is in seconds, above 0 and at most 30; not {time}")).into());
    }
    if count == 0 && params.time.is_none() {
        return Err(ToolError::Arguments("give `text`, `text_gone` or `ref_gone` to wait for, or a `time`").into());
    }
    if matches!((&params.text, &params.text_gone), (Some(t), _) | (_, Some(t)) if t.trim().is_empty()) {
        return Err(ToolError::Arguments("the text to wait for is empty").into());
    }
    let tab = target_tab(&reach.custody, session, params.tab, false).await?;
    reach.custody.tabs.ensure_attached(tab).await?;
    refuse_if_dialog(reach.custody.tabs, tab, "browser_wait_for")?;
    let wanted_s = params.time.unwrap_or(DEFAULT_WAIT_S);
    let left = ctx.deadline().left_ms().saturating_sub(ANSWER_MS);
    let limit_ms = ((wanted_s * 1000.0) as u32).min(left);
    let gone = match &params.ref_gone {
        Some(r) => match resolve_ref(reach.custody.tabs, reach.custody.sessions, session, tab, r) {
            Ok(node) => Some((NodeTarget::of(reach.custody.tabs, tab, &node), node, r.clone())),
            // Already gone from the page the agent saw.
            Err(ToolError::Ref(_)) => None,
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    let started = timer::now_ms();
    let what = if let Some(text) = &params.text {
        Some((quote(text), "appeared", "did not appear"))
    } else if let Some(text) = &params.text_gone {
        Some((quote(text), "is gone", "is still there"))
    } else {
        params.ref_gone.as_ref().map(|r| (r.clone(), "is gone", "is still there"))
    };
    let met = loop {
        let met = match (&params.text, &params.text_gone, &gone) {
            (Some(text), _, _) => page_has(reach.custody.tabs, tab, text, true).await?,
            (_, Some(text), _) => page_has(reach.custody.tabs, tab, text, false).await?,
            (_, _, Some((at, node, r))) => element_gone(at, node, r).await?,
            (None, None, None) => params.ref_gone.is_some(),
        };
        let waited = (timer::now_ms() - started).max(0.0);
        if met || waited >= f64::from(limit_ms) {
            break met;
        }
        timer::sleep(POLL_MS.min(limit_ms.saturating_sub(waited as u32)).max(1)).await;
    };
    let waited_s = (timer::now_ms() - started).max(0.0) / 1000.0;
    let note = match (&what, met) {
        (Some((subject, done, _)), true) => format!("waited {waited_s:.1} s: {subject} {done}"),
        (Some((subject, _, not_done)), false) => {
            let cut = if limit_ms < (wanted_s * 1000.0) as u32 { " (all the call's time limit allowed)" } else { "" };
            return Err(ToolError::NotYet(format!(
                "{subject} {not_done} after {waited_s:.1} s{cut}; wait again, or take a browser_snapshot"
            ))
            .into());
        }
        (None, _) => format!("waited {waited_s:.1} s"),
    };
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock_tab(&lock, ctx).await;
    refuse_if_dialog(reach.custody.tabs, tab, "browser_wait_for")?;
    Ok(answer(reach, session, tab, Answer::AfterAction, &[note], None).await?)
}

fn quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// Whether the page's text includes `text` (`wanted`), or not (`!wanted`): the text of the page
/// and of its iframes, those of the page's process (read from the page) and those the browser
/// runs in a process of their own (read through their sessions).
async fn page_has(tabs: &crate::state::TabsState, tab: i32, text: &str, wanted: bool) -> Result<bool, ToolError> {
    let children: Vec<String> = tabs.registry.borrow().frames(tab).child_sessions().map(str::to_owned).collect();
    let targets = std::iter::once(None).chain(children.into_iter().map(Some));
    for session_id in targets {
        let target = DebuggeeTarget { tab_id: tab, session_id };
        let shown = match on_document_in(&target, HAS_TEXT, serde_json::json!([{"value": text}])).await {
            Ok(value) => value == serde_json::Value::Bool(true),
            // An iframe's session can go while it is read (the frame navigated or was removed).
            Err(_) if target.session_id.is_some() => false,
            Err(e) => return Err(e),
        };
        if shown {
            return Ok(wanted);
        }
    }
    Ok(!wanted)
}

/// Whether the element left the page or no longer shows.
async fn element_gone(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<bool, ToolError> {
    const SHOWN: &str = "function () { return this.isConnected && this.getClientRects().length > 0; }";
    match input::call_on(at, node, element_ref, SHOWN, &[]).await {
        Ok(shown) => Ok(shown != serde_json::Value::Bool(true)),
        Err(ToolError::Element { .. }) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Runs `function` on the page's document with `args` (CDP call arguments).
pub(super) async fn on_document(
    tab: i32,
    function: &str,
    args: serde_json::Value,
) -> Result<serde_json::Value, ToolError> {
    on_document_in(&DebuggeeTarget::main(tab), function, args).await
}

/// Runs `function` on the document of `target` (the page, or an out-of-process iframe's
/// session) with `args`.
async fn on_document_in(
    target: &DebuggeeTarget,
    function: &str,
    args: serde_json::Value,
) -> Result<serde_json::Value, ToolError> {
    #[derive(serde::Deserialize)]
    struct Evaluated {
        result: input::ValueHolder,
    }
    let document: Evaluated = cdp::send_to(
        target,
        "Runtime.evaluate",
        serde_json::json!({"expression": "document", "returnByValue": false}),
        cdp::COMMAND_TIMEOUT_MS,
    )
    .await?;
    let Some(object) = document.result.object_id else {
        return Err(ToolError::Unexpected { what: "the page's document", message: "no object".into() });
    };
    let called: Result<input::CallResult, CdpError> = cdp::send_to(
        target,
        "Runtime.callFunctionOn",
        serde_json::json!({"objectId": object, "functionDeclaration": function, "arguments": args,
            "returnByValue": true}),
        cdp::COMMAND_TIMEOUT_MS,
    )
    .await;
    let release = serde_json::json!({"objectId": object});
    let _ = cdp::send_to::<serde_json::Value>(target, "Runtime.releaseObject", release, cdp::COMMAND_TIMEOUT_MS).await;
    let called = called?;
    if let Some(exception) = called.exception {
        return Err(ToolError::Unexpected { what: "a script on the page", message: exception.to_string() });
    }
    Ok(called.result.value.unwrap_or_default())
}

/// Called on an element: where its resize grip is (just inside its bottom-right corner, in its
/// frame's viewport) when the user can resize it, else `null`. A text area counts even when
/// its own grip is off: scripts that make it resizable (jQuery UI) turn that off and lay their
/// own grip over the same corner.
const RESIZE_GRIP: &str = r#"function () {
  const resize = getComputedStyle(this).resize;
  if (this.localName !== 'textarea' && (!resize || resize === 'none')) return null;
  const r = this.getBoundingClientRect();
  return [r.right - 4, r.bottom - 4];
}"#;

/// The page point of the element's resize grip, when it has one.
async fn resize_grip(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Option<(f64, f64)>, ToolError> {
    let grip = input::call_on(at, node, element_ref, RESIZE_GRIP, &[]).await?;
    let (Some(x), Some(y)) =
        (grip.get(0).and_then(serde_json::Value::as_f64), grip.get(1).and_then(serde_json::Value::as_f64))
    else {
        return Ok(None);
    };
    let (dx, dy) = at.offset().await?;
    Ok(Some((x + dx, y + dy)))
}

/// `browser_drag`: from the centre of `start_ref` (hit-tested like a click) to the centre of
/// `end_ref`, or by `dx`/`dy`. Moved by an offset, an element the user can resize (a
/// `<textarea>`) is dragged by its resize grip, as a person resizes it.
pub async fn drag(reach: &Reach<'_>, session: &str, params: DragParams, ctx: &CallContext) -> ActionResult {
    let offset = match (&params.end_ref, params.dx, params.dy) {
        (Some(_), None, None) => None,
        (None, dx, dy) if dx.is_some() || dy.is_some() => Some((dx.unwrap_or(0.0), dy.unwrap_or(0.0))),
        (None, _, _) => return Err(ToolError::Arguments("give `end_ref` to drop on, or `dx`/`dy` to move by").into()),
        (Some(_), _, _) => return Err(ToolError::Arguments("give either `end_ref` or `dx`/`dy`, not both").into()),
    };
    let end = match &params.end_ref {
        Some(r) => {
            let tab = target_tab(&reach.custody, session, params.tab, false).await?;
            Some(resolve_ref(reach.custody.tabs, reach.custody.sessions, session, tab, r)?)
        }
        None => None,
    };
    let (start_ref, end_ref) = (&params.start_ref, params.end_ref.as_deref().unwrap_or_default());
    let tool = "browser_drag";
    act_on_ref(reach, session, params.tab, start_ref, params.since_version, ctx, tool, |at, node, tab| async move {
        let mut from = input::click_point(&at, &node, start_ref).await?;
        if offset.is_some()
            && let Some(grip) = resize_grip(&at, &node, start_ref).await?
        {
            from = grip;
        }
        let to = match (offset, end) {
            (Some((dx, dy)), _) => (from.0 + dx, from.1 + dy),
            (None, Some(end)) => {
                input::centre_in_view(&NodeTarget::of(reach.custody.tabs, tab, &end), &end, end_ref).await?
            }
            (None, None) => unreachable!("checked above"),
        };
        drag::drag(reach.custody.tabs, tab, from, to).await
    })
    .await
}
