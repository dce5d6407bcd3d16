//! The tools that change the page: navigate, click, type, press a key. Each waits for the page
//! to settle and answers with what changed, through the (session, tab) page state.
//!
//! An agent may say which version its refs come from (`since_version`). If the page changed
//! since and that version is still in history, the action runs and the answer starts with what
//! had changed before it; if the version is older than the history, the action is not run and
//! the agent gets the current page. An action that fails changes nothing: no version, no refs.
//!
//! Each action waits for its tab within the call's time limit, and starts only with enough of
//! that limit left to act and answer; the session's previous action on the tab must not be
//! awaiting confirmation (see [`super::refuse_if_unconfirmed`]).

use std::collections::HashMap;

use futures::future::{Either, select};
use sightline_core::actions::invalid_fields::{self, Flagged};
use sightline_core::dialogs::OpenDialog;
use sightline_core::downloads::claims::DECISION_WAIT_MS;
use sightline_core::keys;
use sightline_core::loading;
use sightline_core::page_state::{Answer, Delta, Staleness};
use sightline_core::protocol::{
    ClickParams, HandleDialogParams, HoverParams, NavigateParams, PressKeyParams, SelectOptionParams, ToolOutput,
    TypeParams,
};
use sightline_core::refs::{NodeKey, RefError, format_ref};
use sightline_core::urls::redact_url;

use super::snapshot::{answer, answer_waited};
use super::{
    CallContext, Failure, ToolResult, capitalised, refuse_if_dialog, refuse_if_unconfirmed, resolve_ref, target_tab,
};
use crate::cdp::{self, Subscription};
use crate::choose;
use crate::error::ToolError;
use crate::input;
use crate::navigation::{self, Settled};
use crate::options::Options;
use crate::state::{AsksState, Reach, Sessions, TabsState};
use crate::validity;

/// What an action returns.
pub(super) type ActionResult = Result<ToolOutput, Failure>;

/// Least time that must be left of the call's limit to start an action: enough to act, let
/// the page settle a moment and read it, so an action is not sent only to be cut short.
const LEAST_TIME_TO_ACT_MS: u32 = 2_000;

/// Takes a tab's lock, saying meanwhile that the call is queued behind another.
pub(super) async fn lock_tab<'a>(
    lock: &'a futures::lock::Mutex<()>,
    ctx: &CallContext,
) -> futures::lock::MutexGuard<'a, ()> {
    ctx.queued(true);
    let guard = lock.lock().await;
    ctx.queued(false);
    guard
}

/// Refuses to start an action with too little of the call's time left.
pub(super) fn enough_time_to_act(ctx: &CallContext, tool: &str) -> Result<(), Failure> {
    let left = ctx.deadline().left_ms();
    if left >= LEAST_TIME_TO_ACT_MS {
        return Ok(());
    }
    Err(Failure::Explained(format!(
        "{tool} was not run: only {:.1} s of its time limit were left after waiting for the tab, too little to act \
         and show the result. Nothing was sent to the page; retry.",
        f64::from(left) / 1000.0
    )))
}

/// `browser_navigate`.
pub async fn navigate(reach: &Reach<'_>, session: &str, params: NavigateParams, ctx: &CallContext) -> ActionResult {
    match (&params.url, params.go) {
        (Some(_), Some(_)) => return Err(ToolError::Arguments("give either `url` or `go`, not both").into()),
        (None, None) => {
            return Err(ToolError::Arguments("give `url` to load, or `go`: back, forward or reload").into());
        }
        _ => {}
    }
    match (params.url, params.go) {
        (Some(url), _) => {
            let tab = target_tab(&reach.custody, session, params.tab, true).await?;
            load_within(reach, session, tab, &url, ctx).await
        }
        (None, Some(step)) => {
            on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
                refuse_if_dialog(reach.custody.tabs, tab, "browser_navigate")?;
                enough_time_to_act(ctx, "browser_navigate")?;
                ctx.acting_on(tab);
                match or_dialog(
                    reach.custody.tabs,
                    tab,
                    ctx,
                    navigation::history(reach.custody.tabs, reach.custody.timeline, reach.asks, tab, step),
                )
                .await?
                {
                    Ok(settled) => page_after_load(reach, session, tab, settled, None).await,
                    Err(dialog) => Ok(dialog_opened(dialog.opened_by("browser_navigate"))),
                }
            })
            .await
        }
        (None, None) => unreachable!("checked above"),
    }
}

/// Loads `url` in `tab` (if the user's options allow it) and answers with the page (for
/// `browser_tabs new`, whose call is bounded as a whole), read within the navigation's caps as
/// `browser_navigate` reads it.
pub async fn load(reach: &Reach<'_>, session: &str, tab: i32, url: &str) -> ToolResult {
    let url = Options::for_call(reach.asks).url_policy().check(url)?.to_string();
    crate::permissions::gate_navigation(reach, session, None, &url, None).await.map_err(|refused| match refused {
        Failure::Explained(text) | Failure::Unseen(text) => ToolError::NotPermitted(text),
        Failure::Tool(e) => e,
    })?;
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock.lock().await;
    let mut settled = match reach.custody.tabs.ensure_attached(tab).await {
        Ok(()) => navigation::goto(reach.custody.tabs, reach.custody.timeline, tab, &url).await?,
        // The tab shows a page the browser does not let extensions debug (a browser page, a
        // source view): move it away without the debugger, then take control again.
        Err(ToolError::Refused { .. }) => {
            navigation::goto_without_debugger(reach.custody.tabs, reach.custody.timeline, tab, &url).await?
        }
        Err(e) => return Err(e),
    };
    // The error is shown after the tool's name (`browser_tabs: opened tab 7 at …`).
    let did = format!("opened tab {tab} at {}", redact_url(&url));
    let waited = std::mem::take(&mut settled.waited);
    let read = answer_waited(reach, session, tab, Answer::Baseline, &settled.notes, None, waited);
    read_loaded_page(&settled, std::future::ready(did), read).await.map_err(|failure| match failure {
        Failure::Explained(text) | Failure::Unseen(text) => ToolError::NotYet(text),
        Failure::Tool(e) => e,
    })
}

/// Loads `url` in `tab` for `browser_navigate` and answers with the page.
async fn load_within(reach: &Reach<'_>, session: &str, tab: i32, url: &str, ctx: &CallContext) -> ActionResult {
    let url = Options::for_call(reach.asks).url_policy().check(url).map_err(ToolError::from)?.to_string();
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock_tab(&lock, ctx).await;
    // A tab showing a page the browser does not let extensions debug (a browser page, a source
    // view) is moved away without the debugger, then taken control of again.
    let attached = match reach.custody.tabs.ensure_attached(tab).await {
        Ok(()) => true,
        Err(ToolError::Refused { .. }) => false,
        Err(e) => return Err(e.into()),
    };
    refuse_if_dialog(reach.custody.tabs, tab, "browser_navigate")?;
    let allowed = crate::permissions::gate_navigation(reach, session, Some(tab), &url, Some(ctx)).await?;
    enough_time_to_act(ctx, "browser_navigate")?;
    ctx.acting_on(tab);
    let settled = if attached {
        // A page that asks before it is left ("leave this page?") holds the navigation until
        // that question is answered: the answer is the question, at once.
        match or_dialog(
            reach.custody.tabs,
            tab,
            ctx,
            navigation::goto(reach.custody.tabs, reach.custody.timeline, tab, &url),
        )
        .await?
        {
            Ok(settled) => settled,
            Err(dialog) => return Ok(dialog_opened(dialog.opened_by("browser_navigate"))),
        }
    } else {
        navigation::goto_without_debugger(reach.custody.tabs, reach.custody.timeline, tab, &url).await?
    };
    let mut answer = page_after_load(reach, session, tab, settled, Some(&url)).await?;
    if let Some(note) = allowed {
        answer.text = format!("{note}\n{}", answer.text);
    }
    Ok(answer)
}

/// The page after a navigation, read within its cap ([`read_loaded_page`]).
async fn page_after_load(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    mut settled: Settled,
    url: Option<&str>,
) -> ActionResult {
    let did = match url {
        Some(url) => format!("browser_navigate opened {}", redact_url(url)),
        None => "browser_navigate moved the tab".to_owned(),
    };
    let waited = std::mem::take(&mut settled.waited);
    let read = answer_waited(reach, session, tab, Answer::Baseline, &settled.notes, None, waited);
    read_loaded_page(&settled, std::future::ready(did), read).await
}

/// Reads the page a call loaded (`read`, the answer's capture) within what is left of its time
/// to be read ([`Settled::read_by`]). A page that stopped answering the browser while it loaded
/// is not read (it would only time out), and one too slow to read in time is given up on: the
/// agent is told what the call did (`did`, tool first, worked out only then) and what to do
/// instead, as an action it has not seen the outcome of ([`Failure::Unseen`]). A call that
/// loaded no page (no cap, no silence) is simply read.
async fn read_loaded_page(
    settled: &Settled,
    did: impl std::future::Future<Output = String>,
    read: impl std::future::Future<Output = ToolResult>,
) -> ActionResult {
    if let Some(silent_ms) = settled.silent_ms {
        let did = did.await;
        return Err(Failure::Unseen(match &settled.on_its_way_to {
            Some(next) => loading::stuck_on_the_way(&did, next, silent_ms),
            None => loading::silent_after_load(&did, silent_ms),
        }));
    }
    match navigation::within_read_cap(settled.read_by, read).await {
        Some(answer) => Ok(answer?),
        None => Err(Failure::Unseen(loading::unread_after_load(&did.await))),
    }
}

/// What an action that loaded a new page did, for an answer that cannot show the page: the
/// tool, and the address the tab shows now (its secrets masked).
async fn action_opened(tool: &str, tab: i32) -> String {
    match crate::chrome::get_tab(tab).await.ok().and_then(|t| t.url) {
        Some(url) => format!("{tool} ran and opened {}", redact_url(&url)),
        None => format!("{tool} ran and loaded a new page"),
    }
}

/// Where an action stands before it runs.
enum Before {
    /// Run it; `notice` tells what changed since the agent's version.
    Run(Option<Delta>),
    /// Do not run it: the answer is the current page.
    NotRun(u64),
}

fn before_action(sessions: &Sessions, session: &str, tab: i32, since: Option<u64>) -> Result<Before, ToolError> {
    let staleness = sessions.with_session(session, |s| s.pages.entry(tab).or_default().check_since(since));
    match staleness.map_err(ToolError::from)? {
        Staleness::Current => Ok(Before::Run(None)),
        Staleness::Behind(delta) => Ok(Before::Run(Some(delta))),
        Staleness::TooStale(version) => Ok(Before::NotRun(version)),
    }
}

/// Runs an input action and answers with what it changed. The tab's lock is held.
pub(super) async fn act(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    since: Option<u64>,
    ctx: &CallContext,
    tool: &'static str,
    action: impl std::future::Future<Output = Result<(), ToolError>>,
) -> ActionResult {
    act_noting(reach, session, tab, since, ctx, tool, async { action.await.map(|()| Vec::new()) }).await
}

/// The actions that can open a file chooser: a click (on the element or at a point) or a key
/// on a file input, and a form fill, which clicks its checkboxes and radios.
const OPEN_FILE_CHOOSERS: &[&str] =
    &["browser_click", "browser_mouse_click_xy", "browser_press_key", "browser_fill_form"];

/// [`act`] for an action that has something to say first (how far a scroll went): its notes
/// head the answer.
pub(super) async fn act_noting(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    since: Option<u64>,
    ctx: &CallContext,
    tool: &'static str,
    action: impl std::future::Future<Output = Result<Vec<String>, ToolError>>,
) -> ActionResult {
    refuse_if_unconfirmed(reach.custody.sessions, session, tab, tool)?;
    refuse_if_dialog(reach.custody.tabs, tab, tool)?;
    let notice = match before_action(reach.custody.sessions, session, tab, since)? {
        Before::NotRun(version) => return Ok(answer(reach, session, tab, Answer::NotRun(version), &[], None).await?),
        Before::Run(notice) => notice,
    };
    // The person's rules, asked before anything reaches the page: a refusal or a denial sends nothing.
    let allowed = crate::permissions::gate(reach, session, tab, tool, ctx).await?;
    enough_time_to_act(ctx, tool)?;
    ctx.acting_on(tab);
    let noted = std::cell::RefCell::new(Vec::new());
    // A file chooser the action opens is intercepted (no window shows) and kept for
    // browser_file_upload; the user's own clicks in a shared tab still open theirs. Only the
    // actions that can open one pay for the two calls, and neither is waited for: the browser
    // handles a tab's commands in the order they were sent, so interception is on before the
    // action's first command arrives (it is sent first, beside the action), and is turned off
    // after the action while the answer is captured.
    let mut choosers = Subscription::new(&reach.custody.tabs.hub, tab, &["Page.fileChooserOpened"]);
    let intercept = |on: bool| async move {
        let params = serde_json::json!({"enabled": on});
        let _ = cdp::send::<serde_json::Value>(tab, "Page.setInterceptFileChooserDialog", params).await;
    };
    let intercepting = OPEN_FILE_CHOOSERS.contains(&tool);
    // A download that begins while the action runs is this session's; when its tab says it
    // began one, the answer waits (bounded) until the browser named it and the rules decided.
    let downloading = DownloadsOfAction {
        asks: reach.asks,
        token: reach.asks.downloads.borrow_mut().action_starts(session, tab, ctx.download_allowed.get()),
    };
    let action = async {
        *noted.borrow_mut() = action.await?;
        Ok(())
    };
    let intercepted = async {
        if intercepting {
            intercept(true).await;
        }
    };
    let ((), outcome) = futures::join!(intercepted, settle_or_dialog(reach.custody.tabs, tab, ctx, action));
    if intercepting {
        wasm_bindgen_futures::spawn_local(intercept(false));
    }
    let wait_ms = DECISION_WAIT_MS.min(ctx.deadline().left_ms().saturating_sub(1_000));
    let download_lines = downloading.end(wait_ms).await;
    noted.borrow_mut().extend(download_lines);
    if let Some(opened) = choosers.drain().into_iter().rfind(|e| e.session_id.is_none())
        && let Some(backend_node_id) = opened.params["backendNodeId"].as_i64()
    {
        let multiple = opened.params["mode"] == "selectMultiple";
        let chooser = crate::tabs::FileChooser { backend_node_id, multiple };
        if let Some(session) = reach.custody.tabs.registry.borrow_mut().sessions.get_mut(&tab) {
            session.chooser = Some(chooser);
        }
        let files = if multiple { "files" } else { "a file" };
        noted.borrow_mut().push(format!(
            "a file chooser opened for {files}: choose with browser_file_upload (paths), or cancel it with no paths"
        ));
    }
    let mut output = match outcome? {
        Ok(mut settled) => {
            // A page the action loaded is read within the same caps as a navigation's.
            let own = noted.take();
            let notes: Vec<String> = own.iter().cloned().chain(std::mem::take(&mut settled.notes)).collect();
            let read = answer(reach, session, tab, Answer::AfterAction, &notes, notice.as_ref());
            read_loaded_page(&settled, action_opened(tool, tab), read).await.map_err(|failure| match failure {
                // What the action itself noted (a download it began) is not lost with the page.
                Failure::Unseen(text) => Failure::Unseen(with_notes(text, &own)),
                failure => failure,
            })
        }
        Err(dialog) => Ok(dialog_opened(dialog.opened_by(tool))),
    };
    // Who allowed it, first.
    if let Some(note) = allowed {
        match &mut output {
            Ok(output) => output.text = format!("{note}\n{}", output.text),
            Err(Failure::Explained(text) | Failure::Unseen(text)) => *text = format!("{note}\n{text}"),
            Err(Failure::Tool(_)) => {}
        }
    }
    output
}

/// `text` followed by `notes`, each on a `! ` line, as an answer shows them.
fn with_notes(text: String, notes: &[String]) -> String {
    notes.iter().fold(text, |text, note| format!("{text}\n! {note}"))
}

/// The downloads of one action: ends the action's claim on downloads when dropped, also when
/// the action is called off where it waits.
struct DownloadsOfAction<'s> {
    asks: &'s AsksState,
    token: u64,
}

impl DownloadsOfAction<'_> {
    /// What the action's answer says of the downloads it started, a line each, once those its
    /// tab said it began are decided, or after `wait_ms` at most.
    async fn end(self, wait_ms: u32) -> Vec<String> {
        let deadline = crate::timer::now_ms() + f64::from(wait_ms);
        while !self.asks.downloads.borrow().decided(self.token) && crate::timer::now_ms() < deadline {
            crate::timer::sleep(50).await;
        }
        self.asks.downloads.borrow_mut().action_ends(self.token, crate::timer::now_ms())
    }
}

impl Drop for DownloadsOfAction<'_> {
    fn drop(&mut self) {
        if let Ok(mut downloads) = self.asks.downloads.try_borrow_mut() {
            downloads.action_ends(self.token, crate::timer::now_ms());
        }
    }
}

/// The answer of an action that opened a JavaScript dialog.
pub(super) fn dialog_opened(text: String) -> ToolOutput {
    ToolOutput { structured: Some(serde_json::json!({"kind": "dialog_opened"})), ..ToolOutput::text(text) }
}

/// Runs an action and waits for the page to settle, unless the action opens a JavaScript
/// dialog: the page (and the input that opened it) then waits for the dialog, so the answer is
/// the dialog, at once, instead of a wait that cannot end.
async fn settle_or_dialog(
    tabs: &TabsState,
    tab: i32,
    ctx: &CallContext,
    action: impl std::future::Future<Output = Result<(), ToolError>>,
) -> Result<Result<Settled, OpenDialog>, ToolError> {
    or_dialog(tabs, tab, ctx, navigation::act_and_settle(tabs, tab, action)).await
}

/// Runs `work` unless the page opens a JavaScript dialog first (a navigation held by a
/// leave-page question): then the dialog, and `work` is dropped where it waits.
async fn or_dialog<T>(
    tabs: &TabsState,
    tab: i32,
    ctx: &CallContext,
    work: impl std::future::Future<Output = Result<T, ToolError>>,
) -> Result<Result<T, OpenDialog>, ToolError> {
    let mut dialogs = Subscription::new(&tabs.hub, tab, &["Page.javascriptDialogOpening"]);
    let work = std::pin::pin!(work);
    let opened = std::pin::pin!(dialogs.next_where(ctx.deadline().left_ms(), |e| e.session_id.is_none()));
    match select(work, opened).await {
        Either::Left((done, _)) => Ok(Ok(done?)),
        Either::Right((Some(event), work)) => match OpenDialog::from_event(&event.params) {
            Some(dialog) => Ok(Err(dialog)),
            None => Ok(Ok(work.await?)),
        },
        Either::Right((None, work)) => Ok(Ok(work.await?)),
    }
}

/// The node behind `element_ref`, or, for a ref from before the extension restarted (when what
/// it stood for was lost), the page as it is now: the action is not run.
pub(super) async fn node_or_page(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    element_ref: &str,
) -> Result<Result<NodeKey, ToolOutput>, Failure> {
    match resolve_ref(reach.custody.tabs, reach.custody.sessions, session, tab, element_ref) {
        Ok(node) => Ok(Ok(node)),
        Err(ToolError::Ref(RefError::FromBeforeRestart { element_ref, .. })) => {
            Ok(Err(answer(reach, session, tab, Answer::RefFromBeforeRestart(element_ref), &[], None).await?))
        }
        Err(e) => Err(e.into()),
    }
}

/// What every tool that works on a tab does first: takes the tab (the session's current one
/// unless `tab` names another), waits for its lock, attaches the debugger, and resolves
/// `element_ref` when one is given; then runs `work` with the tab and that node, the lock held
/// until it is done. A ref from before a restart is answered with the page instead, and `work`
/// is not run.
pub(super) async fn on_tab<F, Fut>(
    reach: &Reach<'_>,
    session: &str,
    tab: Option<u32>,
    element_ref: Option<&str>,
    ctx: &CallContext,
    work: F,
) -> ActionResult
where
    F: FnOnce(i32, Option<NodeKey>) -> Fut,
    Fut: std::future::Future<Output = ActionResult>,
{
    let tab = target_tab(&reach.custody, session, tab, false).await?;
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock_tab(&lock, ctx).await;
    reach.custody.tabs.ensure_attached(tab).await?;
    let node = match element_ref {
        Some(r) => match node_or_page(reach, session, tab, r).await? {
            Ok(node) => Some(node),
            Err(page) => return Ok(page),
        },
        None => None,
    };
    ctx.hint.borrow_mut().node = node.clone();
    work(tab, node).await
}

/// Runs an action aimed at `element_ref` ([`on_tab`]), handing `action` the node's frame
/// target, the node and the tab.
#[allow(clippy::too_many_arguments)]
pub(super) async fn act_on_ref<F, Fut>(
    reach: &Reach<'_>,
    session: &str,
    tab: Option<u32>,
    element_ref: &str,
    since: Option<u64>,
    ctx: &CallContext,
    tool: &'static str,
    action: F,
) -> ActionResult
where
    F: FnOnce(input::NodeTarget, NodeKey, i32) -> Fut,
    Fut: std::future::Future<Output = Result<(), ToolError>>,
{
    on_tab(reach, session, tab, Some(element_ref), ctx, |tab, node| async move {
        let Some(node) = node else { return Err(ToolError::Arguments("give `ref`").into()) };
        let at = input::NodeTarget::of(reach.custody.tabs, tab, &node);
        // A click or an Enter may submit a form that its constraints stop: the fields the
        // browser flagged meanwhile are read in the node's frame and named in the answer.
        let submits = tool == "browser_click" || ctx.hint.borrow().enter;
        let checks = submits.then(|| input::NodeTarget::of(reach.custody.tabs, tab, &node));
        act_noting(reach, session, tab, since, ctx, tool, async move {
            let started = crate::timer::epoch_ms();
            action(at, node, tab).await?;
            match checks {
                Some(checks) => Ok(fields_flagged(reach.custody.sessions, session, tab, &checks, started).await),
                None => Ok(Vec::new()),
            }
        })
        .await
    })
    .await
}

/// How much earlier than the action's start a field may have been flagged and still count as
/// the action's: the page's wall clock and the worker's are the system's, read in different
/// processes (a margin for their rounding, not for the time a message takes).
const FLAGGED_SLACK_MS: u64 = 100;

/// The note (none or one) naming the fields the browser flagged in the frame of `at` since the
/// action `started`, by the refs the session's last snapshot gave them.
async fn fields_flagged(
    sessions: &Sessions,
    session: &str,
    tab: i32,
    at: &input::NodeTarget,
    started: u64,
) -> Vec<String> {
    let fields = validity::flagged(at, started.saturating_sub(FLAGGED_SLACK_MS)).await;
    if fields.is_empty() {
        return Vec::new();
    }
    let frame = at.frame_id.as_str();
    let refs: HashMap<i64, u32> = sessions
        .with_session(session, |s| {
            let snapshot = s.pages.get(&tab)?.snapshot()?;
            let in_frame = snapshot.elements.iter().filter(|e| e.key.frame_id == frame);
            Some(in_frame.map(|e| (e.key.backend_node_id, e.number)).collect())
        })
        .unwrap_or_default();
    let flagged: Vec<Flagged> = fields
        .into_iter()
        .map(|f| Flagged { element_ref: refs.get(&f.backend_node_id).map(|n| format_ref(*n)), ..f.said })
        .collect();
    invalid_fields::note(&flagged).into_iter().collect()
}

/// `browser_click`.
pub async fn click(reach: &Reach<'_>, session: &str, params: ClickParams, ctx: &CallContext) -> ActionResult {
    let (button, double) = (params.button.unwrap_or_default(), params.double);
    let element_ref = &params.element_ref;
    act_on_ref(
        reach,
        session,
        params.tab,
        element_ref,
        params.since_version,
        ctx,
        "browser_click",
        |at, node, _| async move { input::click_element(&at, &node, element_ref, button, double).await },
    )
    .await
}

/// `browser_type`.
pub async fn type_text(reach: &Reach<'_>, session: &str, params: TypeParams, ctx: &CallContext) -> ActionResult {
    let enter = keys::parse_chord("Enter").map_err(ToolError::from)?;
    let (element_ref, text, submit) = (&params.element_ref, &params.text, params.submit);
    ctx.hint.borrow_mut().enter = submit;
    act_on_ref(
        reach,
        session,
        params.tab,
        element_ref,
        params.since_version,
        ctx,
        "browser_type",
        |at, node, tab| async move {
            input::replace_text(&at, &node, element_ref, text).await?;
            if submit {
                // Enter submits the form the field is in only while the field has the focus.
                input::confirm_focus(&at, &node, element_ref).await?;
                input::press(tab, &enter).await?;
            }
            Ok(())
        },
    )
    .await
}

/// `browser_press_key`.
pub async fn press_key(reach: &Reach<'_>, session: &str, params: PressKeyParams, ctx: &CallContext) -> ActionResult {
    let key = &keys::parse_chord(&params.key).map_err(ToolError::from)?;
    let (element_ref, since) = (params.element_ref.as_deref(), params.since_version);
    ctx.hint.borrow_mut().key = Some(params.key.clone());
    on_tab(reach, session, params.tab, element_ref, ctx, |tab, node| async move {
        let node = node.map(|n| (input::NodeTarget::of(reach.custody.tabs, tab, &n), n));
        act_noting(reach, session, tab, since, ctx, "browser_press_key", async {
            let started = crate::timer::epoch_ms();
            if let (Some((at, node)), Some(r)) = (&node, element_ref) {
                input::focus(at, node, r).await?;
            }
            input::press(tab, key).await?;
            // Enter in a field submits its form, which its constraints may stop.
            match &node {
                Some((at, _)) if key.key == "Enter" => {
                    Ok(fields_flagged(reach.custody.sessions, session, tab, at, started).await)
                }
                _ => Ok(Vec::new()),
            }
        })
        .await
    })
    .await
}

/// `browser_select_option`.
pub async fn select_option(
    reach: &Reach<'_>,
    session: &str,
    params: SelectOptionParams,
    ctx: &CallContext,
) -> ActionResult {
    if params.values.is_empty() {
        return Err(ToolError::Arguments("give `values`: at least one value or label to select").into());
    }
    let (element_ref, values) = (&params.element_ref, &params.values);
    let tool = "browser_select_option";
    act_on_ref(reach, session, params.tab, element_ref, params.since_version, ctx, tool, |at, node, _| async move {
        choose::choose(&at, &node, element_ref, values).await
    })
    .await
}

/// `browser_hover`.
pub async fn hover(reach: &Reach<'_>, session: &str, params: HoverParams, ctx: &CallContext) -> ActionResult {
    let element_ref = &params.element_ref;
    act_on_ref(
        reach,
        session,
        params.tab,
        element_ref,
        params.since_version,
        ctx,
        "browser_hover",
        |at, node, tab| async move {
            let (x, y) = input::click_point(&at, &node, element_ref).await?;
            input::move_mouse(tab, x, y).await
        },
    )
    .await
}

/// `browser_handle_dialog`: answers the dialog the page waits for, then shows what changed.
pub async fn handle_dialog(
    reach: &Reach<'_>,
    session: &str,
    params: HandleDialogParams,
    ctx: &CallContext,
) -> ActionResult {
    let (accept, prompt_text) = (params.accept, params.prompt_text.as_deref());
    on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
        let Some(dialog) = reach.custody.tabs.registry.borrow().dialog(tab) else {
            return Err(ToolError::NoDialog { tab }.into());
        };
        enough_time_to_act(ctx, "browser_handle_dialog")?;
        ctx.acting_on(tab);
        let mut answer_params = serde_json::json!({"accept": accept});
        if let Some(text) = prompt_text {
            answer_params["promptText"] = text.into();
        }
        let answered = dialog.answered(accept, prompt_text);
        let respond = async move {
            cdp::send::<serde_json::Value>(tab, "Page.handleJavaScriptDialog", answer_params).await?;
            Ok(())
        };
        match settle_or_dialog(reach.custody.tabs, tab, ctx, respond).await? {
            Ok(settled) => {
                let notes: Vec<String> = std::iter::once(answered).chain(settled.notes).collect();
                Ok(answer(reach, session, tab, Answer::AfterAction, &notes, None).await?)
            }
            Err(next) => Ok(dialog_opened(format!("{}; then {}", capitalised(&answered), next.opened_by("it")))),
        }
    })
    .await
}
