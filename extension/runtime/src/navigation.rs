//! Loading pages and waiting until they settle: navigation with a bounded wait for `load`,
//! history moves, and the bounded DOM stabilisation that runs before every capture after an
//! action (a 100 ms quiet window, a 2 s hard cap). After a load, the page is captured ahead of
//! that wait, and the capture is answered with when the DOM did not change until it settled
//! ([`capture_then_settle`]).
//!
//! Every wait here holds to its cap in total, not per step: the wait for `load` is one
//! [`Deadline`] shared by the navigation command, the wait for the new document and every
//! readiness probe, and each probe is itself cut to what is left. A page whose scripts keep it
//! busy answers no probe; that is noted, and the waits that would only time out too are skipped.

use std::future::Future;

use serde::Deserialize;
use sightline_core::downloads::claims::DOWNLOAD_BEGAN;
use sightline_core::loading::{
    self, LOAD_CAP_MS, LoadEvent, LoadWait, PROBE_TIMEOUT_MS, ProbeAnswer, READ_CAP_MS, Settling, Step,
};
use sightline_core::protocol::HistoryMove;

use crate::capture::{self, CaptureCosts};
use crate::cdp::{self, CdpError, CdpEvent, Subscription};
use crate::chrome::{self, DebuggeeTarget};
use crate::error::ToolError;
use crate::state::{AsksState, TabsState, TimelineState};
use crate::timer::{self, Deadline};

/// Beyond the stabilisation cap, how long the settling script's round trip may take; a page
/// too busy to run it at all is given up on after the cap plus this.
const STABILIZE_SLACK_MS: u32 = 3_000;
/// A DOM with no mutation for this long is stable.
const QUIET_WINDOW_MS: u32 = 100;
/// Stabilisation gives up after this long.
const STABILIZE_CAP_MS: u32 = 2_000;
/// After an action, how long to watch for a navigation it may have started: as long as the
/// quiet window watched beside it, so an action that changes nothing costs one window. A link
/// or a form's submit asks for its navigation while the click is handled, well within it.
const NAVIGATION_GRACE_MS: u32 = QUIET_WINDOW_MS;

/// Longest wait before a capture for the images, style sheets and fonts a page is loading.
const RENDERING_LOADS_CAP_MS: u32 = 1_000;
/// Loads sent longer ago than this are not waited for: one that hangs must not hold up every
/// capture after it.
const RENDERING_LOAD_AGE_MS: u64 = 5_000;
/// How often the wait for those loads looks again.
const RENDERING_LOADS_POLL_MS: u32 = 20;

/// Longest wait for a page that just loaded to render its next frame.
const FRAME_WAIT_MS: u32 = 100;

/// Longest wait for child frames an action set loading.
const FRAME_LOAD_TIMEOUT_MS: u32 = 5_000;

const FRAME_LOADING_EVENTS: &[&str] = &["Page.frameStartedLoading", "Page.frameStoppedLoading"];

/// The responses an action's navigation may get, and the tab's word that it became a download,
/// to say what happened when no new page came of it.
const DOCUMENT_EVENTS: &[&str] = &["Network.responseReceived", DOWNLOAD_BEGAN];

const NAVIGATION_EVENTS: &[&str] = &[
    "Page.lifecycleEvent",
    "Page.loadEventFired",
    "Page.frameNavigated",
    "Page.frameRequestedNavigation",
    "Page.frameStartedLoading",
    "Page.navigatedWithinDocument",
    "Page.frameStoppedLoading",
];

/// How waiting went; each note is reported to the agent.
#[derive(Debug, Default)]
pub struct Settled {
    /// Things the agent should know, e.g. that the DOM was still changing.
    pub notes: Vec<String>,
    /// Whether the main frame loaded a new document.
    pub navigated: bool,
    /// For how long the page had not answered the browser when the wait for its load ended (a
    /// script keeps its main thread busy), if it had stopped answering: reading it now would
    /// only time out.
    pub silent_ms: Option<f64>,
    /// Where the page sent the browser on to (its secrets masked), when that navigation had not
    /// committed as the wait for its load ended and the page answered no probe meanwhile.
    pub on_its_way_to: Option<String>,
    /// How long the waits took.
    pub waited: Waited,
    /// When reading the page after its load must be done by ([`READ_CAP_MS`] from the load's
    /// end); set by every wait that follows a load. Passed already when they ran out of it.
    pub read_by: Option<Deadline>,
}

/// How long a navigation's waits took, in milliseconds.
#[derive(Debug, Default, Clone)]
pub struct Waited {
    /// From sending the navigation to the new document's load (or the wait's end).
    pub load_ms: Option<f64>,
    /// Waiting for the DOM to settle.
    pub settle_ms: Option<f64>,
    /// Waiting for the page's next frame before the capture ahead of the settle wait.
    pub frame_ms: Option<f64>,
    /// The capture taken as soon as the page loaded, before the wait for a quiet DOM.
    pub ahead: Option<CapturedAhead>,
}

/// The capture taken ahead of the wait for a quiet DOM (see [`capture_then_settle`]).
#[derive(Debug, Clone)]
pub struct CapturedAhead {
    /// Waiting for images, style sheets and fonts still loading just before it.
    pub loads_ms: Option<f64>,
    /// What it cost.
    pub costs: CaptureCosts,
    /// Whether it holds: the DOM did not change from before it until the page settled. It is
    /// then the tab's kept capture, and the navigation answers with it.
    pub held: bool,
}

impl Settled {
    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Starts the [`READ_CAP_MS`] the page that just loaded is read within, and returns it.
    fn start_read_cap(&mut self) -> Deadline {
        let read_by = Deadline::after(READ_CAP_MS);
        self.read_by = Some(read_by);
        read_by
    }
}

/// Runs `read` (the answer's capture of the page) within what is left of a navigation's time to
/// read it ([`Settled::read_by`]); `None` when the page could not be read in time.
pub async fn within_read_cap<F: Future>(read_by: Option<Deadline>, read: F) -> Option<F::Output> {
    match read_by {
        Some(by) if by.passed() => None,
        Some(by) => timer::within(by.left_ms(), read).await,
        None => Some(read.await),
    }
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
pub async fn goto(tabs: &TabsState, timeline: &TimelineState, tab_id: i32, url: &str) -> Result<Settled, ToolError> {
    let started = timer::now_ms();
    let mut events = Subscription::new(&tabs.hub, tab_id, NAVIGATION_EVENTS);
    let load = Deadline::after(LOAD_CAP_MS);
    let timeout = load.cap(cdp::COMMAND_TIMEOUT_MS);
    // The counters are turned off before the navigation, without waiting for the browser's
    // answer first: it handles the tab's commands in the order they were sent.
    let main = DebuggeeTarget::main(tab_id);
    let (_, result) = futures::join!(
        crate::probe::pause_layout_counters(tabs, tab_id),
        cdp::send_to::<NavigateResult>(&main, "Page.navigate", serde_json::json!({ "url": url }), timeout),
    );
    let result = result?;
    if let Some(error) = result.error_text.filter(|e| !e.is_empty()) {
        return Err(ToolError::LoadFailed { url: sightline_core::urls::redact_url(url), error });
    }
    let mut settled = Settled::default();
    if let Some(loader) = result.loader_id {
        settled.navigated = true;
        wait_for_load(tabs, tab_id, &mut events, Some(&loader), load, &mut settled).await?;
    }
    settled.waited.load_ms = Some(timer::now_ms() - started);
    capture_then_settle(tabs, timeline, tab_id, &mut settled).await;
    Ok(settled)
}

/// Loads `url` in a tab whose page the browser does not let extensions debug (a browser page,
/// a source view), through `chrome.tabs` instead of the debugger; once the new page lets the
/// debugger in again, waits (bounded, as a navigation) for it to load and settle.
pub async fn goto_without_debugger(
    tabs: &TabsState,
    timeline: &TimelineState,
    tab_id: i32,
    url: &str,
) -> Result<Settled, ToolError> {
    let load = Deadline::after(LOAD_CAP_MS);
    chrome::navigate_tab(tab_id, url).await?;
    let mut settled = Settled { navigated: true, ..Settled::default() };
    // The old page may still be showing for a moment: attaching fails until the new one commits.
    loop {
        timer::sleep(load.cap(100)).await;
        match tabs.ensure_attached(tab_id).await {
            Ok(()) => break,
            Err(ToolError::Refused { .. }) if !load.passed() => continue,
            Err(e) => return Err(e),
        }
    }
    loop {
        if let ProbeAnswer::Answered(ready) = ready_state(tab_id, load.cap(PROBE_TIMEOUT_MS)).await
            && ready == "complete"
        {
            break;
        }
        if load.passed() {
            settled.note(format!(
                "the page had not finished loading after {} s; what follows is what had loaded",
                LOAD_CAP_MS / 1000
            ));
            break;
        }
        timer::sleep(load.cap(100)).await;
    }
    capture_then_settle(tabs, timeline, tab_id, &mut settled).await;
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
    #[serde(default)]
    url: String,
}

/// Moves back, forward, or reloads, then waits for the page to settle. A move to an entry
/// whose URL the user's URL policy refuses (a `file:` page while those are off, a browser page,
/// `javascript:`, `data:`) is refused before it is made, as `browser_navigate` refuses the URL:
/// the person may have been there, the agent may not go there.
pub async fn history(
    tabs: &TabsState,
    timeline: &TimelineState,
    asks: &AsksState,
    tab_id: i32,
    step: HistoryMove,
) -> Result<Settled, ToolError> {
    let mut events = Subscription::new(&tabs.hub, tab_id, NAVIGATION_EVENTS);
    let load = Deadline::after(LOAD_CAP_MS);
    crate::probe::pause_layout_counters(tabs, tab_id).await;
    match step {
        HistoryMove::Reload => {
            let timeout = load.cap(cdp::COMMAND_TIMEOUT_MS);
            cdp::send_to::<serde_json::Value>(
                &DebuggeeTarget::main(tab_id),
                "Page.reload",
                serde_json::json!({}),
                timeout,
            )
            .await?;
        }
        HistoryMove::Back | HistoryMove::Forward => {
            let timeout = load.cap(cdp::COMMAND_TIMEOUT_MS);
            let h: NavigationHistory = cdp::send_to(
                &DebuggeeTarget::main(tab_id),
                "Page.getNavigationHistory",
                serde_json::json!({}),
                timeout,
            )
            .await?;
            let target = h.current_index + if step == HistoryMove::Back { -1 } else { 1 };
            let direction = if step == HistoryMove::Back { "back" } else { "forward" };
            let Some(entry) = usize::try_from(target).ok().and_then(|i| h.entries.get(i)) else {
                return Err(ToolError::NoHistory { direction });
            };
            if let Err(why) = crate::options::Options::for_call(asks).url_policy().check(&entry.url) {
                let url = sightline_core::urls::redact_url(&entry.url);
                return Err(ToolError::HistoryRefused { direction, url, why });
            }
            cdp::send_to::<serde_json::Value>(
                &DebuggeeTarget::main(tab_id),
                "Page.navigateToHistoryEntry",
                serde_json::json!({"entryId": entry.id}),
                load.cap(cdp::COMMAND_TIMEOUT_MS),
            )
            .await?;
        }
    }
    let mut settled = Settled::default();
    // A history move either loads a document or stays within one.
    let main = main_frame(tabs, tab_id);
    let first = events
        .next_where(load.left_ms(), |e| {
            matches!(e.method.as_str(), "Page.frameNavigated" | "Page.navigatedWithinDocument")
                && is_main_frame_event(e, &main)
        })
        .await;
    events.still_there()?;
    match first {
        Some(e) if e.method == "Page.frameNavigated" => {
            settled.navigated = true;
            let loader = e.params["frame"]["loaderId"].as_str().map(str::to_owned);
            wait_for_load(tabs, tab_id, &mut events, loader.as_deref(), load, &mut settled).await?;
        }
        Some(_) => {}
        None => settled.note(format!("the page did not navigate within {} s", LOAD_CAP_MS / 1000)),
    }
    capture_then_settle(tabs, timeline, tab_id, &mut settled).await;
    Ok(settled)
}

/// Runs an input action, then waits for whatever it set off: a navigation (bounded wait for
/// load) and DOM mutations (bounded stabilisation). The watch for a navigation and the wait for
/// a quiet DOM run side by side, so an action that does not navigate costs the longer of the
/// two, not their sum.
pub async fn act_and_settle<F>(tabs: &TabsState, tab_id: i32, action: F) -> Result<Settled, ToolError>
where
    F: Future<Output = Result<(), ToolError>>,
{
    let mut events = Subscription::new(&tabs.hub, tab_id, NAVIGATION_EVENTS);
    let mut frames = Subscription::new(&tabs.hub, tab_id, FRAME_LOADING_EVENTS);
    let mut documents = Subscription::new(&tabs.hub, tab_id, DOCUMENT_EVENTS);
    let main = main_frame(tabs, tab_id);
    action.await?;
    let mut settled = Settled::default();
    // Give a click that follows a link a moment to start the navigation.
    let watch = events.next_where(NAVIGATION_GRACE_MS, |e| {
        matches!(
            e.method.as_str(),
            "Page.frameRequestedNavigation" | "Page.frameStartedLoading" | "Page.frameNavigated"
        ) && is_main_frame_event(e, &main)
    });
    let (started, quiet) = futures::join!(watch, stabilize(tabs, tab_id, QuietFrom::Now));
    events.still_there()?;
    // One load cap for everything the action set loading, from the moment a navigation shows.
    let mut load: Option<Deadline> = None;
    let wait = match started {
        Some(event) => {
            // The document the DOM wait watched is going away: wait for the new one.
            settled.navigated = true;
            let load = *load.get_or_insert_with(|| Deadline::after(LOAD_CAP_MS));
            let committed = if event.method == "Page.frameNavigated" {
                Commit::Document(event.params["frame"]["loaderId"].as_str().map(str::to_owned))
            } else {
                wait_for_commit(&mut events, &main, load).await
            };
            match committed {
                Commit::Document(loader) => {
                    wait_for_load(tabs, tab_id, &mut events, loader.as_deref(), load, &mut settled).await?;
                    settle_after_load(tabs, tab_id, &mut settled).await
                }
                // A route of a single-page app: no new document, and the page draws the new
                // content itself, after the action: the quiet window counts from now.
                Commit::WithinDocument => {
                    settled.navigated = false;
                    note_stabilization(stabilize(tabs, tab_id, QuietFrom::Now).await, &mut settled)
                }
                // The browser ended the navigation without a new document: the page stayed.
                Commit::None => {
                    settled.navigated = false;
                    settled.note(no_new_page(&mut documents, &main));
                    stabilize_into(tabs, tab_id, &mut settled).await
                }
            }
        }
        None => note_stabilization(quiet, &mut settled),
    };
    if wait == Wait::Navigated {
        // The page left while we waited for it to settle: wait for the new document instead.
        settled.navigated = true;
        let load = *load.get_or_insert_with(|| Deadline::after(LOAD_CAP_MS));
        let loader = events
            .next_where(load.left_ms(), |e| e.method == "Page.frameNavigated" && is_main_frame_event(e, &main))
            .await
            .and_then(|e| e.params["frame"]["loaderId"].as_str().map(str::to_owned));
        wait_for_load(tabs, tab_id, &mut events, loader.as_deref(), load, &mut settled).await?;
        settle_after_load(tabs, tab_id, &mut settled).await;
    }
    if !settled.navigated {
        wait_for_child_frames(&mut frames, &main, &mut settled).await;
    }
    Ok(settled)
}

/// What a navigation the page started came to.
enum Commit {
    /// A new document committed (its loader id, when the event gave it).
    Document(Option<String>),
    /// The browser ended it without a new document: a `204 No Content` or `205` answer, a
    /// download, a navigation the page stopped or the browser blocked. The page stayed.
    None,
    /// The page moved within its document (`history.pushState`, a fragment): a single-page
    /// app's route, whose new content the page draws itself.
    WithinDocument,
}

/// Waits, until `load` at the latest, for the main frame's navigation to commit a document, to
/// stay within the document, or to end without one (its loading stops before any document
/// commits; the browser may report a move within the document just after that stop).
async fn wait_for_commit(events: &mut Subscription, main: &str, load: Deadline) -> Commit {
    const METHODS: [&str; 3] = ["Page.frameNavigated", "Page.frameStoppedLoading", "Page.navigatedWithinDocument"];
    let ended = events
        .next_where(load.left_ms(), |e| METHODS.contains(&e.method.as_str()) && is_main_frame_event(e, main))
        .await;
    match ended {
        Some(e) if e.method == "Page.navigatedWithinDocument" => Commit::WithinDocument,
        Some(e) if e.method == "Page.frameStoppedLoading" => {
            let within = events
                .next_where(WITHIN_DOCUMENT_GRACE_MS, |e| {
                    e.method == "Page.navigatedWithinDocument" && is_main_frame_event(e, main)
                })
                .await;
            if within.is_some() { Commit::WithinDocument } else { Commit::None }
        }
        Some(e) => Commit::Document(e.params["frame"]["loaderId"].as_str().map(str::to_owned)),
        // Out of time: the load wait that follows says so.
        None => Commit::Document(None),
    }
}

/// How long after a navigation stopped without a document the browser may still report that
/// the page moved within its document.
const WITHIN_DOCUMENT_GRACE_MS: u32 = 20;

/// What the agent is told about a navigation that ended without a new page, with what the
/// server answered when a response for the main frame's document arrived.
fn no_new_page(documents: &mut Subscription, main: &str) -> String {
    let events = documents.drain();
    let of_main = |e: &&CdpEvent| e.params["frameId"].as_str() == Some(main);
    let answer = events
        .iter()
        .filter(of_main)
        .filter(|e| e.params["type"] == "Document")
        .filter_map(|e| e.params["response"]["status"].as_u64())
        .next_back();
    let download = events
        .iter()
        .filter(of_main)
        .filter(|e| e.method == DOWNLOAD_BEGAN)
        .filter_map(|e| e.params["suggestedFilename"].as_str())
        .next_back();
    loading::no_new_page(answer, download)
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
        settled.note(format!(
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

fn main_frame(tabs: &TabsState, tab_id: i32) -> String {
    tabs.registry.borrow().frames(tab_id).main_frame().to_owned()
}

/// Waits, until `load` at the latest, for the main frame's document (the one with `loader`,
/// when known) to finish loading, as `sightline_core::loading::LoadWait` decides: this only
/// listens, probes and hands over what it heard. What the agent should know is added to
/// `settled`.
async fn wait_for_load(
    tabs: &TabsState,
    tab_id: i32,
    events: &mut Subscription,
    loader: Option<&str>,
    load: Deadline,
    settled: &mut Settled,
) -> Result<(), CdpError> {
    let main = main_frame(tabs, tab_id);
    let mut wait = LoadWait::new(loader.map(str::to_owned), timer::now_ms(), load.left_ms());
    loop {
        match wait.step(timer::now_ms()) {
            Step::Done => break,
            Step::Listen(ms) => {
                let ended = events.next_where(ms, |e| wait.observe(load_event(e, &main))).await.is_some();
                if !ended {
                    events.still_there()?;
                    let committed = tabs.registry.borrow().frames(tab_id).main_loader().map(str::to_owned);
                    wait.quiet(committed.as_deref());
                }
            }
            Step::Probe(ms) => {
                let asked = timer::now_ms();
                wait.probed(ready_state(tab_id, ms).await, asked);
            }
        }
    }
    let outcome = wait.outcome(timer::now_ms());
    for note in outcome.notes {
        settled.note(note);
    }
    settled.silent_ms = outcome.silent_ms;
    settled.on_its_way_to = outcome.on_its_way_to;
    Ok(())
}

/// A CDP event as the load wait reads it: only the main frame's navigation events count.
fn load_event<'e>(e: &'e CdpEvent, main: &str) -> LoadEvent<'e> {
    let str_at = |v: &'e serde_json::Value| v.as_str().unwrap_or_default();
    match e.method.as_str() {
        "Page.lifecycleEvent" if e.params["name"] == "load" && is_main_frame_event(e, main) => {
            LoadEvent::Loaded { loader: str_at(&e.params["loaderId"]) }
        }
        _ if !is_main_frame_event(e, main) => LoadEvent::Other,
        "Page.frameRequestedNavigation" => LoadEvent::Requested { url: str_at(&e.params["url"]) },
        "Page.frameNavigated" => LoadEvent::Committed { loader: str_at(&e.params["frame"]["loaderId"]) },
        "Page.navigatedWithinDocument" => LoadEvent::WithinDocument,
        _ => LoadEvent::Other,
    }
}

/// Waits (at most [`RENDERING_LOADS_CAP_MS`]) until the tab has no image, style sheet or font
/// in flight that it asked for in the last [`RENDERING_LOAD_AGE_MS`], and returns how long it
/// waited, or `None` when nothing was loading. A page that has just built its content (a
/// script adding icons drawn by style rules) shows it only once those arrive: an icon whose
/// image is not in yet has no width, and a capture taken then would not see it.
pub async fn await_rendering_loads(timeline: &TimelineState, tab_id: i32) -> Option<f64> {
    if timeline.rendering_loads(tab_id, RENDERING_LOAD_AGE_MS) == 0 {
        return None;
    }
    let started = timer::now_ms();
    let deadline = Deadline::after(RENDERING_LOADS_CAP_MS);
    while !deadline.passed() && timeline.rendering_loads(tab_id, RENDERING_LOAD_AGE_MS) > 0 {
        timer::sleep(deadline.cap(RENDERING_LOADS_POLL_MS)).await;
    }
    Some(timer::now_ms() - started)
}

/// Asks the page for its `document.readyState`, waiting at most `timeout_ms`.
async fn ready_state(tab_id: i32, timeout_ms: u32) -> ProbeAnswer {
    let params = serde_json::json!({"expression": "document.readyState", "returnByValue": true});
    match cdp::send_to::<EvaluateResult>(&DebuggeeTarget::main(tab_id), "Runtime.evaluate", params, timeout_ms).await {
        Ok(result) => {
            ProbeAnswer::Answered(result.result.value.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())
        }
        Err(CdpError::Timeout { .. }) => ProbeAnswer::Unanswered,
        Err(_) => ProbeAnswer::Failed,
    }
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
    /// The mutation records the page's watch counted since the document started, when the
    /// script ran beside it.
    #[serde(default, rename = "domMutations")]
    pub dom_mutations: Option<u64>,
    // The script also reports `hidden`: the page still hid its own root when the wait ended.
    // The engine sees that in the capture and says it in the snapshot's first line, so it is
    // not read here.
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

/// Where a stabilisation counts its quiet window from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuietFrom {
    /// The last DOM mutation of the document, as the page's watch (`crate::probe`) saw it
    /// since the document started: after a load, a page already quiet for the window is
    /// settled at once instead of being watched for another 100 ms.
    LastMutation,
    /// Now: after an action, whose effects may still be on their way (a handler that answers a
    /// click 50 ms later), the window starts when the wait does.
    Now,
}

/// Waits until the DOM has been quiet for 100 ms and the page no longer hides its own root, at
/// most 2 s (and 5 s in all for a page too busy to run the settling script).
///
/// From the last mutation, the script runs in the watch's isolated world; from now, or where the
/// watch is not running, in the page's world, where it watches the whole window out.
async fn stabilize(tabs: &TabsState, tab_id: i32, from: QuietFrom) -> Result<Stabilization, ToolError> {
    let expression =
        SETTLE_SCRIPT.replace("QUIET", &QUIET_WINDOW_MS.to_string()).replace("CAP", &STABILIZE_CAP_MS.to_string());
    let main = DebuggeeTarget::main(tab_id);
    let params = serde_json::json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
    let timeout = STABILIZE_CAP_MS + STABILIZE_SLACK_MS;
    let in_watch = match from {
        QuietFrom::LastMutation => {
            let frame = main_frame(tabs, tab_id);
            crate::probe::evaluate_in_watch(tabs, &main, &frame, &params, timeout).await
        }
        QuietFrom::Now => None,
    };
    let result: EvaluateResult = match in_watch {
        Some(result) => result?,
        None => cdp::send_to(&main, "Runtime.evaluate", params, timeout).await?,
    };
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

/// After a load: captures the page at once, then waits for its DOM to settle. When the page's
/// DOM did not change from just before that capture to the end of the wait (the main frame's
/// watch counted no mutation), the capture is the settled page's and the navigation answers
/// with it: a page already quiet when it loaded costs one capture, not a wait and then a
/// capture. A page that changed meanwhile is captured afresh after the wait, as it would have
/// been without the capture ahead. All of it holds to [`READ_CAP_MS`] from now, and so does
/// the answer's capture after it ([`within_read_cap`]).
async fn capture_then_settle(tabs: &TabsState, timeline: &TimelineState, tab_id: i32, settled: &mut Settled) -> Wait {
    if settled.silent_ms.is_some() {
        // It answered no probe while loading; capturing and settling would only time out too.
        return Wait::Done;
    }
    let read_by = settled.start_read_cap();
    // Out of time, the answer's read finds the deadline passed and says so.
    timer::within(read_by.left_ms(), capture_then_settle_uncapped(tabs, timeline, tab_id, settled))
        .await
        .unwrap_or(Wait::Done)
}

/// [`capture_then_settle`] without its cap.
async fn capture_then_settle_uncapped(
    tabs: &TabsState,
    timeline: &TimelineState,
    tab_id: i32,
    settled: &mut Settled,
) -> Wait {
    let loads_ms = await_rendering_loads(timeline, tab_id).await;
    let framing = timer::now_ms();
    next_frame(tabs, tab_id).await;
    settled.waited.frame_ms = Some(timer::now_ms() - framing);
    let ahead = capture::capture_ahead(tabs, tab_id).await;
    let outcome = settle_timed(tabs, tab_id, settled).await;
    if let Some(ahead) = ahead {
        let held = matches!(&outcome, Ok(s) if s.stable && s.dom_mutations == Some(ahead.dom_mutations));
        settled.waited.ahead = Some(CapturedAhead { loads_ms, costs: ahead.costs, held });
    }
    note_stabilization(outcome, settled)
}

/// Waits (at most [`FRAME_WAIT_MS`], counted here, not by the page's timers) until the page has
/// rendered a frame: a document that just loaded is laid out once more by its first frame (its
/// viewport settles, its fonts and images are drawn), and a capture taken before that would be
/// out of date at the next look. A hidden page draws no frames, so it is not waited for.
async fn next_frame(tabs: &TabsState, tab_id: i32) {
    let main = DebuggeeTarget::main(tab_id);
    let frame = main_frame(tabs, tab_id);
    let expression = "document.visibilityState !== 'visible' || \
                      new Promise((drawn) => requestAnimationFrame(() => setTimeout(drawn, 0)))";
    let params = serde_json::json!({"expression": expression, "awaitPromise": true});
    // A page that draws nothing in time, or whose watch world cannot be found, is captured as it is.
    let _ = crate::probe::evaluate_in_watch::<serde_json::Value>(tabs, &main, &frame, &params, FRAME_WAIT_MS).await;
}

/// After an action's navigation loaded its page: waits for a quiet DOM within the page's
/// [`READ_CAP_MS`], which the answer's capture after it holds to as well ([`within_read_cap`]),
/// as a navigation's does.
async fn settle_after_load(tabs: &TabsState, tab_id: i32, settled: &mut Settled) -> Wait {
    let read_by = settled.start_read_cap();
    timer::within(read_by.left_ms(), stabilize_into(tabs, tab_id, settled)).await.unwrap_or(Wait::Done)
}

async fn stabilize_into(tabs: &TabsState, tab_id: i32, settled: &mut Settled) -> Wait {
    if settled.silent_ms.is_some() {
        // It answered no probe while loading; the settling script would only time out too.
        return Wait::Done;
    }
    let outcome = settle_timed(tabs, tab_id, settled).await;
    note_stabilization(outcome, settled)
}

/// Waits for the DOM to settle, counting from its last mutation, and records how long that took.
async fn settle_timed(tabs: &TabsState, tab_id: i32, settled: &mut Settled) -> Result<Stabilization, ToolError> {
    let started = timer::now_ms();
    let outcome = stabilize(tabs, tab_id, QuietFrom::LastMutation).await;
    settled.waited.settle_ms = Some(timer::now_ms() - started);
    outcome
}

/// Turns a stabilisation's outcome into the agent's notes (`sightline_core::loading`).
fn note_stabilization(outcome: Result<Stabilization, ToolError>, settled: &mut Settled) -> Wait {
    let settling = match outcome {
        Ok(s) if s.stable => Settling::Quiet,
        Ok(s) => Settling::StillChanging { elapsed_ms: s.elapsed, mutations: s.mutations },
        Err(ToolError::Cdp(CdpError::ContextGone { .. } | CdpError::UnknownContext { .. })) => Settling::Navigated,
        Err(ToolError::Cdp(CdpError::Timeout { ms, .. })) => Settling::Unanswered { waited_ms: ms },
        Err(e) => {
            settled.note(format!("could not wait for the page to settle: {e}"));
            return Wait::Done;
        }
    };
    if let Some(note) = loading::settling_note(settling) {
        settled.note(note);
    }
    if settling == Settling::Navigated { Wait::Navigated } else { Wait::Done }
}
