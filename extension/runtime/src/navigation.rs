//! Loading pages and waiting until they settle: navigation with a bounded wait for `load`,
//! history moves, and the bounded DOM stabilisation that runs before every capture after an
//! action (a 100 ms quiet window, a 2 s hard cap).

use std::future::Future;
use std::rc::Rc;

use serde::Deserialize;
use sightline_core::protocol::HistoryMove;

use crate::cdp::{self, CdpError, CdpEvent, Subscription};
use crate::chrome;
use crate::error::ToolError;
use crate::state::State;
use crate::timer;

/// Longest wait for a page's `load` event.
const LOAD_TIMEOUT_MS: u32 = 30_000;
/// A DOM with no mutation for this long is stable.
const QUIET_WINDOW_MS: u32 = 100;
/// Stabilisation gives up after this long.
const STABILIZE_CAP_MS: u32 = 2_000;
/// After an action, how long to watch for a navigation it may have started.
const NAVIGATION_GRACE_MS: u32 = 150;

/// Longest wait for child frames an action set loading.
const FRAME_LOAD_TIMEOUT_MS: u32 = 5_000;

const FRAME_LOADING_EVENTS: &[&str] = &["Page.frameStartedLoading", "Page.frameStoppedLoading"];

const NAVIGATION_EVENTS: &[&str] = &[
    "Page.lifecycleEvent",
    "Page.loadEventFired",
    "Page.frameNavigated",
    "Page.frameRequestedNavigation",
    "Page.frameStartedLoading",
    "Page.navigatedWithinDocument",
];

/// How waiting went; each note is reported to the agent.
#[derive(Debug, Default)]
pub struct Settled {
    /// Things the agent should know, e.g. that the DOM was still changing.
    pub notes: Vec<String>,
    /// Whether the main frame loaded a new document.
    pub navigated: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NavigateResult {
    #[serde(default)]
    loader_id: Option<String>,
    #[serde(default)]
    error_text: Option<String>,
}

/// Loads `url` in the tab and waits for it to settle.
pub async fn goto(state: &Rc<State>, tab_id: i32, url: &str) -> Result<Settled, ToolError> {
    let mut events = Subscription::new(&state.hub, tab_id, NAVIGATION_EVENTS);
    let result: NavigateResult = cdp::send(tab_id, "Page.navigate", serde_json::json!({ "url": url })).await?;
    if let Some(error) = result.error_text.filter(|e| !e.is_empty()) {
        return Err(ToolError::LoadFailed { url: url.to_owned(), error });
    }
    let mut settled = Settled::default();
    if let Some(loader) = result.loader_id {
        settled.navigated = true;
        wait_for_load(state, tab_id, &mut events, Some(&loader), &mut settled).await;
    }
    stabilize_into(tab_id, &mut settled).await;
    Ok(settled)
}

/// Loads `url` in a tab whose page the browser does not let extensions debug (a browser page,
/// a source view), through `chrome.tabs` instead of the debugger; once the new page lets the
/// debugger in again, waits (bounded, as a navigation) for it to load and settle.
pub async fn goto_without_debugger(state: &Rc<State>, tab_id: i32, url: &str) -> Result<Settled, ToolError> {
    chrome::navigate_tab(tab_id, url).await?;
    let mut settled = Settled { navigated: true, ..Settled::default() };
    let deadline = timer::now_ms() + f64::from(LOAD_TIMEOUT_MS);
    // The old page may still be showing for a moment: attaching fails until the new one commits.
    loop {
        timer::sleep(100).await;
        match state.ensure_attached(tab_id).await {
            Ok(()) => break,
            Err(ToolError::Refused { .. }) if timer::now_ms() < deadline => continue,
            Err(e) => return Err(e),
        }
    }
    while ready_state(tab_id).await.as_deref() != Some("complete") {
        if timer::now_ms() >= deadline {
            settled.notes.push(format!(
                "the page had not finished loading after {} s; what follows is what had loaded",
                LOAD_TIMEOUT_MS / 1000
            ));
            break;
        }
        timer::sleep(100).await;
    }
    stabilize_into(tab_id, &mut settled).await;
    Ok(settled)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NavigationHistory {
    current_index: i64,
    entries: Vec<HistoryEntry>,
}

#[derive(Deserialize)]
struct HistoryEntry {
    id: i64,
}

/// Moves back, forward, or reloads, then waits for the page to settle.
pub async fn history(state: &Rc<State>, tab_id: i32, step: HistoryMove) -> Result<Settled, ToolError> {
    let mut events = Subscription::new(&state.hub, tab_id, NAVIGATION_EVENTS);
    match step {
        HistoryMove::Reload => {
            cdp::send::<serde_json::Value>(tab_id, "Page.reload", serde_json::json!({})).await?;
        }
        HistoryMove::Back | HistoryMove::Forward => {
            let h: NavigationHistory = cdp::send(tab_id, "Page.getNavigationHistory", serde_json::json!({})).await?;
            let target = h.current_index + if step == HistoryMove::Back { -1 } else { 1 };
            let Some(entry) = usize::try_from(target).ok().and_then(|i| h.entries.get(i)) else {
                let direction = if step == HistoryMove::Back { "back" } else { "forward" };
                return Err(ToolError::NoHistory { direction });
            };
            cdp::send::<serde_json::Value>(
                tab_id,
                "Page.navigateToHistoryEntry",
                serde_json::json!({"entryId": entry.id}),
            )
            .await?;
        }
    }
    let mut settled = Settled::default();
    // A history move either loads a document or stays within one.
    let main = main_frame(state, tab_id);
    let first = events
        .next_where(LOAD_TIMEOUT_MS, |e| {
            matches!(e.method.as_str(), "Page.frameNavigated" | "Page.navigatedWithinDocument")
                && is_main_frame_event(e, &main)
        })
        .await;
    match first {
        Some(e) if e.method == "Page.frameNavigated" => {
            settled.navigated = true;
            let loader = e.params["frame"]["loaderId"].as_str().map(str::to_owned);
            wait_for_load(state, tab_id, &mut events, loader.as_deref(), &mut settled).await;
        }
        Some(_) => {}
        None => settled.notes.push(format!("the page did not navigate within {} s", LOAD_TIMEOUT_MS / 1000)),
    }
    stabilize_into(tab_id, &mut settled).await;
    Ok(settled)
}

/// Runs an input action, then waits for whatever it set off: a navigation (bounded wait for
/// load) and DOM mutations (bounded stabilisation). The watch for a navigation and the wait for
/// a quiet DOM run side by side, so an action that does not navigate costs the longer of the
/// two, not their sum.
pub async fn act_and_settle<F>(state: &Rc<State>, tab_id: i32, action: F) -> Result<Settled, ToolError>
where
    F: Future<Output = Result<(), ToolError>>,
{
    let mut events = Subscription::new(&state.hub, tab_id, NAVIGATION_EVENTS);
    let mut frames = Subscription::new(&state.hub, tab_id, FRAME_LOADING_EVENTS);
    let main = main_frame(state, tab_id);
    action.await?;
    let mut settled = Settled::default();
    // Give a click that follows a link a moment to start the navigation.
    let watch = events.next_where(NAVIGATION_GRACE_MS, |e| {
        matches!(
            e.method.as_str(),
            "Page.frameRequestedNavigation" | "Page.frameStartedLoading" | "Page.frameNavigated"
        ) && is_main_frame_event(e, &main)
    });
    let (started, quiet) = futures::join!(watch, stabilize(tab_id));
    let wait = match started {
        Some(event) => {
            // The document the DOM wait watched is going away: wait for the new one.
            settled.navigated = true;
            let loader = if event.method == "Page.frameNavigated" {
                event.params["frame"]["loaderId"].as_str().map(str::to_owned)
            } else {
                events
                    .next_where(LOAD_TIMEOUT_MS, |e| e.method == "Page.frameNavigated" && is_main_frame_event(e, &main))
                    .await
                    .and_then(|e| e.params["frame"]["loaderId"].as_str().map(str::to_owned))
            };
            wait_for_load(state, tab_id, &mut events, loader.as_deref(), &mut settled).await;
            stabilize_into(tab_id, &mut settled).await
        }
        None => note_stabilization(quiet, &mut settled),
    };
    if wait == Wait::Navigated {
        // The page left while we waited for it to settle: wait for the new document instead.
        settled.navigated = true;
        let loader = events
            .next_where(LOAD_TIMEOUT_MS, |e| e.method == "Page.frameNavigated" && is_main_frame_event(e, &main))
            .await
            .and_then(|e| e.params["frame"]["loaderId"].as_str().map(str::to_owned));
        wait_for_load(state, tab_id, &mut events, loader.as_deref(), &mut settled).await;
        stabilize_into(tab_id, &mut settled).await;
    }
    if !settled.navigated {
        wait_for_child_frames(&mut frames, &main, &mut settled).await;
    }
    Ok(settled)
}

/// Waits (bounded) for the child frames that started loading since the action to stop, so a
/// frame the action navigated is captured with its new document.
async fn wait_for_child_frames(frames: &mut Subscription, main: &str, settled: &mut Settled) {
    let mut loading: Vec<String> = Vec::new();
    let track = |e: &CdpEvent, loading: &mut Vec<String>| {
        let Some(frame) = e.params["frameId"].as_str().filter(|f| *f != main) else { return };
        match e.method.as_str() {
            "Page.frameStartedLoading" if !loading.iter().any(|f| f == frame) => loading.push(frame.to_owned()),
            "Page.frameStoppedLoading" => loading.retain(|f| f != frame),
            _ => {}
        }
    };
    for event in frames.drain() {
        track(&event, &mut loading);
    }
    let deadline = crate::timer::now_ms() + f64::from(FRAME_LOAD_TIMEOUT_MS);
    while !loading.is_empty() {
        let left = deadline - crate::timer::now_ms();
        if left <= 0.0 {
            break;
        }
        match frames.next_where(left as u32, |_| true).await {
            Some(event) => track(&event, &mut loading),
            None => break,
        }
    }
    if !loading.is_empty() {
        settled.notes.push(format!(
            "{} frame{} still loading after {} s",
            loading.len(),
            if loading.len() == 1 { " was" } else { "s were" },
            FRAME_LOAD_TIMEOUT_MS / 1000
        ));
    }
}

/// Whether an event concerns the tab's main frame (`main` is its id).
fn is_main_frame_event(e: &CdpEvent, main: &str) -> bool {
    if e.session_id.is_some() {
        return false;
    }
    let frame = &e.params["frame"];
    if frame.is_object() {
        return frame["parentId"].is_null();
    }
    e.params["frameId"].as_str() == Some(main)
}

fn main_frame(state: &State, tab_id: i32) -> String {
    state.tabs.borrow().frames(tab_id).main_frame().to_owned()
}

/// Waits for the main frame's document (the one with `loader`, when known) to finish loading:
/// its `load` lifecycle event, or — for documents restored from the back-forward cache, which
/// fire none — `document.readyState == "complete"` once that document is the committed one.
async fn wait_for_load(
    state: &State,
    tab_id: i32,
    events: &mut Subscription,
    loader: Option<&str>,
    settled: &mut Settled,
) {
    const SLICE_MS: u32 = 250;
    let mut waited = 0;
    while waited < LOAD_TIMEOUT_MS {
        let fired = events
            .next_where(SLICE_MS, |e| {
                e.method == "Page.lifecycleEvent"
                    && e.params["name"] == "load"
                    && loader.is_none_or(|l| e.params["loaderId"].as_str() == Some(l))
            })
            .await;
        if fired.is_some() {
            return;
        }
        waited += SLICE_MS;
        let committed = {
            let frames = state.tabs.borrow().frames(tab_id);
            loader.is_none_or(|l| frames.main_loader() == Some(l))
        };
        if committed && ready_state(tab_id).await.as_deref() == Some("complete") {
            return;
        }
    }
    settled.notes.push(format!(
        "the page had not finished loading after {} s; what follows is what had loaded",
        LOAD_TIMEOUT_MS / 1000
    ));
}

async fn ready_state(tab_id: i32) -> Option<String> {
    let params = serde_json::json!({"expression": "document.readyState", "returnByValue": true});
    let result: EvaluateResult = cdp::send(tab_id, "Runtime.evaluate", params).await.ok()?;
    result.result.value.and_then(|v| v.as_str().map(str::to_owned))
}

/// The outcome of one stabilisation wait, measured in the page.
#[derive(Debug, Deserialize)]
pub struct Stabilization {
    /// True when a quiet window was reached before the cap.
    pub stable: bool,
    /// Milliseconds waited.
    pub elapsed: f64,
    /// Mutation records observed.
    pub mutations: u64,
}

/// The settling script (shared with the test recorder); `QUIET` and `CAP` are filled in.
const SETTLE_SCRIPT: &str = include_str!("hooks/settle.js");

#[derive(Deserialize)]
struct EvaluateResult {
    result: RemoteValue,
    #[serde(default, rename = "exceptionDetails")]
    exception: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RemoteValue {
    #[serde(default)]
    value: Option<serde_json::Value>,
}

/// Waits until the DOM has been quiet for 100 ms, at most 2 s.
pub async fn stabilize(tab_id: i32) -> Result<Stabilization, ToolError> {
    let expression =
        SETTLE_SCRIPT.replace("QUIET", &QUIET_WINDOW_MS.to_string()).replace("CAP", &STABILIZE_CAP_MS.to_string());
    let target = crate::chrome::DebuggeeTarget { tab_id, session_id: None };
    let params = serde_json::json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
    let result: EvaluateResult = cdp::send_to(&target, "Runtime.evaluate", params, STABILIZE_CAP_MS + 3_000).await?;
    if let Some(exception) = result.exception {
        return Err(ToolError::Unexpected { what: "the settling script", message: exception.to_string() });
    }
    let value = result.result.value.unwrap_or_default();
    serde_json::from_value(value)
        .map_err(|e| ToolError::Unexpected { what: "the settling script's result", message: e.to_string() })
}

/// How a stabilisation wait ended.
#[derive(Debug, PartialEq, Eq)]
enum Wait {
    /// Quiet, or given up on (with a note).
    Done,
    /// The document went away mid-wait (noted).
    Navigated,
}

async fn stabilize_into(tab_id: i32, settled: &mut Settled) -> Wait {
    note_stabilization(stabilize(tab_id).await, settled)
}

/// Turns a stabilisation's outcome into the agent's notes.
fn note_stabilization(outcome: Result<Stabilization, ToolError>, settled: &mut Settled) -> Wait {
    match outcome {
        Ok(s) if s.stable => Wait::Done,
        Ok(s) => {
            settled.notes.push(format!(
                "the page was still changing after {:.1} s ({} mutations); this snapshot may be mid-update",
                s.elapsed / 1000.0,
                s.mutations
            ));
            Wait::Done
        }
        Err(ToolError::Cdp(CdpError::ContextGone { .. })) => {
            settled.notes.push("the page navigated while waiting for it to settle".into());
            Wait::Navigated
        }
        Err(e) => {
            settled.notes.push(format!("could not wait for the page to settle: {e}"));
            Wait::Done
        }
    }
}
