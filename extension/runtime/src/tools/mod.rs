//! Tool dispatch: each tool checks consent, drives the tab, and answers with what the agent
//! needs to see next.
//!
//! Every call runs within the time its caller allows and can be called off: [`run_within`]
//! races the tool against its deadline and the host's cancel, and dropping the tool where it
//! stands releases its tab and stops whatever it waited for. An action is never started once
//! its caller has given up; when an action reached the page and its caller was not shown what
//! it did (it failed, ran out of time, or was called off after sending input), the answer says
//! it may have run, and that session's next action on the tab is not run until it has looked
//! at the page again, so a blind retry cannot do the thing twice.

mod actions;
mod changes;
mod downloads;
mod evaluate;
mod export;
mod files;
mod find;
mod logs;
mod page;
mod select;
mod selection;
mod shot;
mod snapshot;
mod tabs;

use std::cell::Cell;
use std::rc::Rc;

use futures::future::{Either, select};
use sightline_core::calls;
use sightline_core::changes::ActionKind;
use sightline_core::custody::{self, Target};
use sightline_core::protocol::{ToolCall, ToolOutput};
use sightline_core::refs::{NodeKey, RefError};

use crate::error::ToolError;
use crate::state::{Custody, Sessions, State, TabsState};
use crate::timer::{self, Deadline};
use crate::{cdp, chrome};

/// What a tool returns.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// Why a call answered with an error.
#[derive(Debug)]
pub enum Failure {
    /// A tool failure, answered as `<tool>: <error>`.
    Tool(ToolError),
    /// A complete explanation for the agent (what happened, what to do), answered as is.
    Explained(String),
    /// An explanation, answered as is, of an action that ran but whose outcome the agent is not
    /// shown (the page it loaded is too busy to read): like any action that reached the page
    /// unseen, the session's next action on the tab waits until it has looked.
    Unseen(String),
}

impl From<ToolError> for Failure {
    fn from(error: ToolError) -> Self {
        Failure::Tool(error)
    }
}

/// What the caller allows one call, and how far the call got: enough to say, if the call is
/// cut short, whether anything reached the page.
pub struct CallContext {
    tool: &'static str,
    /// The host's id for the call (`None` for work of the extension's own, e.g. a download's
    /// question).
    call_id: Option<u64>,
    /// When the caller stops waiting: later while the call waits for the person.
    deadline: Cell<Deadline>,
    limit_ms: u64,
    /// The tab the call acts on, and how many page-changing commands it had had before.
    acting: Cell<Option<(i32, u64)>>,
    /// Whether the call is waiting for another call to release its tab.
    queued: Cell<bool>,
    /// What the call tells the permission gate of the action it is about to do.
    pub hint: std::cell::RefCell<crate::permissions::Hint>,
    /// Set when the permission gate let this action proceed judging it a download (a link with
    /// `download`): the download it starts is not asked about again.
    pub download_allowed: Cell<bool>,
}

impl CallContext {
    /// A call of `tool` whose caller waits `limit_ms` from now.
    pub fn new(tool: &'static str, limit_ms: u64) -> Self {
        CallContext {
            tool,
            call_id: None,
            deadline: Cell::new(Deadline::after_u64(limit_ms)),
            limit_ms,
            acting: Cell::new(None),
            queued: Cell::new(false),
            hint: Default::default(),
            download_allowed: Cell::new(false),
        }
    }

    /// When the caller stops waiting.
    pub fn deadline(&self) -> Deadline {
        self.deadline.get()
    }

    /// Says the call waits for the person to answer a question about `question` (the action in
    /// their words) for up to `wait_ms`, and then needs time to act: the call runs that long
    /// from now (never shorter than it could already), and the host is told, so it waits as
    /// long (within its own maximum) and tells the agent what the call waits for.
    pub fn wait_on_person(&self, wait_ms: u64, question: &str) {
        let longer = Deadline::after_u64(wait_ms);
        if longer.left_ms() > self.deadline().left_ms() {
            self.deadline.set(longer);
        }
        if let Some(id) = self.call_id {
            let note = sightline_core::protocol::ExtensionToHost::Waiting {
                id,
                time_limit_ms: u64::from(self.deadline().left_ms()),
                question: question.to_owned(),
            };
            chrome::to_host(&note);
        }
    }

    /// Says the person's answer to the question this call waited on has come (or their time
    /// ran out), and whether it allows the action. Sent before an allowed action starts: the
    /// host counts a call it last heard waiting on the person as one that did not act.
    pub fn person_answered(&self, allowed: bool) {
        if let Some(id) = self.call_id {
            chrome::to_host(&sightline_core::protocol::ExtensionToHost::Answered { id, allowed });
        }
    }

    /// Says the call is about to act on `tab`: page-changing commands sent to it from now on
    /// are this call's (the tab's lock is held).
    pub fn acting_on(&self, tab: i32) {
        self.acting.set(Some((tab, cdp::effects_sent(tab))));
    }

    /// Says the call is (or no longer is) waiting for its tab.
    pub fn queued(&self, queued: bool) {
        self.queued.set(queued);
    }

    /// The tab, if this call sent it anything that changes the page.
    fn reached(&self) -> Option<i32> {
        self.acting.get().and_then(|(tab, before)| (cdp::effects_sent(tab) > before).then_some(tab))
    }
}

/// How a call ended early.
enum CutShort {
    /// The host called it off; nobody reads an answer.
    CalledOff,
    /// Its time limit passed.
    OutOfTime,
}

/// Runs call `id` within `limit_ms` (longer while it waits for the person), unless
/// `called_off` fires first. `None` when it was called off: the caller is gone and wants no
/// answer.
pub async fn run_within(
    state: &Rc<State>,
    session: &str,
    id: u64,
    call: ToolCall,
    limit_ms: u64,
    called_off: futures::channel::oneshot::Receiver<()>,
) -> Option<ToolOutput> {
    let ctx = CallContext { call_id: Some(id), ..CallContext::new(call.name(), limit_ms) };
    let action = call.action();
    let commands_before = cdp::commands_sent();
    // The person's options, read once as the call starts. Their history and log sizes apply
    // before the call for what it reads, and after it for the page state it may have created.
    crate::options::apply_sizes(
        &state.sessions,
        &state.timeline,
        crate::options::Options::read_for_call(&state.asks).await.sizes,
    );
    let work = Box::pin(run(state, session, call, &ctx));
    let stop = Box::pin(async {
        // The deadline moves while the call waits for the person: wait for the latest one.
        let out_of_time = async {
            while !ctx.deadline().passed() {
                ctx.deadline().reached().await;
            }
        };
        match select(called_off, Box::pin(out_of_time)).await {
            Either::Left(_) => CutShort::CalledOff,
            Either::Right(_) => CutShort::OutOfTime,
        }
    });
    let how = match select(work, stop).await {
        Either::Left((mut output, _)) => {
            // The host lists browser_evaluate only while the user allows it.
            let options = crate::options::Options::for_call(&state.asks);
            output.evaluate_allowed = Some(options.allow_evaluate);
            crate::options::apply_sizes(&state.sessions, &state.timeline, options.sizes);
            count_commands(&mut output, cdp::commands_sent() - commands_before);
            return Some(output);
        }
        // Dropping the tool's future here releases its tab and every wait it was in.
        Either::Right((how, work)) => {
            drop(work);
            how
        }
    };
    let text = cut_short(&state.sessions, session, &ctx, action);
    match how {
        CutShort::CalledOff => None,
        CutShort::OutOfTime => Some(ToolOutput::error(text)),
    }
}

/// Says in a page's answer how many CDP commands the call sent (`cdp_calls`, in its `stats`, or
/// beside the `kind` of an action's answer): a count that does not drift with the machine's
/// load, for the bench and for anyone weighing what a call costs. Other calls running meanwhile
/// (another tab's) are counted too.
fn count_commands(output: &mut ToolOutput, commands: u64) {
    add_stat(output, "cdp_calls", commands.into());
}

/// Adds `key` to a page's `stats` in its answer, or beside the `kind` of an action's answer.
pub fn add_stat(output: &mut ToolOutput, key: &str, value: serde_json::Value) {
    let Some(facts) = output.structured.as_mut().and_then(serde_json::Value::as_object_mut) else { return };
    if let Some(stats) = facts.get_mut("stats").and_then(serde_json::Value::as_object_mut) {
        stats.insert(key.to_owned(), value);
    } else if facts.contains_key("kind") {
        facts.insert(key.to_owned(), value);
    }
}

/// What an agent reads about a call cut short by its time limit; records an action that may
/// have run.
fn cut_short(sessions: &Sessions, session: &str, ctx: &CallContext, action: Option<(ActionKind, String)>) -> String {
    let kind = action.as_ref().map(|(kind, _)| *kind);
    let reach = match ctx.reached() {
        Some(tab) => {
            remember_unconfirmed(sessions, session, tab, action.clone());
            calls::Reach::Sent { unanswered_ms: unanswered_ms(tab) }
        }
        None if ctx.queued.get() => calls::Reach::Queued,
        None => calls::Reach::Nothing,
    };
    calls::out_of_time(ctx.tool, ctx.limit_ms, kind, action.is_some(), reach)
}

/// How long input sent to `tab` has gone unprocessed, if it has.
fn unanswered_ms(tab: i32) -> Option<f64> {
    cdp::unanswered_input(tab).map(|input| timer::now_ms() - input.sent_ms)
}

/// Records that `action` reached `tab` without its outcome being shown.
fn remember_unconfirmed(sessions: &Sessions, session: &str, tab: i32, action: Option<(ActionKind, String)>) {
    let Some((kind, description)) = action else { return };
    sessions.with_session(session, |s| s.unconfirmed.record(tab, kind, description, timer::now_ms()));
}

/// Runs one tool call for an MCP session.
async fn run(state: &Rc<State>, session: &str, call: ToolCall, ctx: &CallContext) -> ToolOutput {
    let tool = call.name();
    // An action is recorded on the timeline, and page input meanwhile is taken for the agent's.
    let action = call.action();
    // A fresh look at the page: what an unconfirmed action did is in front of the agent.
    let looks = calls::is_a_look(&call);
    let acting = action.is_some().then(|| state.timeline.agent_acting());
    // What the tool may reach: the tabs' custody and the questions, not the whole state.
    let reach = state.reach();
    let result = match call {
        ToolCall::BrowserTabs(p) => tabs::run(&reach, session, p).await.map_err(Failure::from),
        ToolCall::BrowserNavigate(p) => actions::navigate(&reach, session, p, ctx).await,
        ToolCall::BrowserSnapshot(p) => snapshot::run(&reach, session, p).await.map_err(Failure::from),
        ToolCall::BrowserClick(p) => actions::click(&reach, session, p, ctx).await,
        ToolCall::BrowserType(p) => actions::type_text(&reach, session, p, ctx).await,
        ToolCall::BrowserPressKey(p) => actions::press_key(&reach, session, p, ctx).await,
        ToolCall::BrowserSelectOption(p) => actions::select_option(&reach, session, p, ctx).await,
        ToolCall::BrowserHover(p) => actions::hover(&reach, session, p, ctx).await,
        ToolCall::BrowserHandleDialog(p) => actions::handle_dialog(&reach, session, p, ctx).await,
        ToolCall::BrowserFind(p) => find::run(&reach, session, p).await.map_err(Failure::from),
        ToolCall::BrowserFillForm(p) => page::fill_form(&reach, session, p, ctx).await,
        ToolCall::BrowserScroll(p) => page::scroll(&reach, session, p, ctx).await,
        ToolCall::BrowserWaitFor(p) => page::wait_for(&reach, session, p, ctx).await,
        ToolCall::BrowserDrag(p) => page::drag(&reach, session, p, ctx).await,
        ToolCall::BrowserTakeScreenshot(p) => shot::screenshot(&reach, session, p, ctx).await,
        ToolCall::BrowserMouseClickXy(p) => shot::click_xy(&reach, session, p, ctx).await,
        ToolCall::BrowserMouseDragXy(p) => shot::drag_xy(&reach, session, p, ctx).await,
        ToolCall::BrowserFileUpload(p) => files::upload(&reach, session, p, ctx).await,
        ToolCall::BrowserEvaluate(p) => evaluate::run(&reach, session, p, ctx).await,
        ToolCall::BrowserSelectText(p) => select::select_text(&reach, session, p, ctx).await,
        ToolCall::GetChangesSince(p) => {
            changes::changes_since(&state.tabs, &state.timeline, session, p).await.map_err(Failure::from)
        }
        ToolCall::BrowserCheckpoint(p) => {
            changes::checkpoint(&state.tabs, &state.timeline, session, p).await.map_err(Failure::from)
        }
        ToolCall::BrowserConsoleMessages(p) => {
            logs::console_messages(&state.tabs, &state.timeline, session, p).await.map_err(Failure::from)
        }
        ToolCall::BrowserNetworkRequests(p) => {
            logs::network_requests(&state.tabs, &state.timeline, session, p).await.map_err(Failure::from)
        }
        ToolCall::BrowserUserSelection(p) => selection::run(&reach, session, p).await.map_err(Failure::from),
        ToolCall::BrowserExportTest(p) => {
            export::export_test(&reach.custody, &state.review, &state.version, session, p).await
        }
        ToolCall::BrowserDownloads(p) => downloads::downloads(&state.asks, session, p).await.map_err(Failure::from),
        ToolCall::BrowserPermissions(p) => {
            crate::permissions::tool(&state.tabs, &state.sessions, session, p).await.map_err(Failure::from)
        }
    };
    drop(acting);
    if result.is_ok()
        && looks
        && let Some(tab) = state.sessions.with_session(session, |s| s.current_tab)
    {
        state.sessions.with_session(session, |s| s.unconfirmed.looked(tab));
    }
    // Every successful action's response ends with the line on new errors and failed requests.
    match (result, action) {
        (Ok(output), Some(action)) => {
            changes::after_action(&state.tabs, &state.sessions, &state.timeline, session, output, action).await
        }
        (Ok(output), None) => output,
        (Err(Failure::Explained(text)), _) => ToolOutput::error(text),
        (Err(Failure::Unseen(text)), action) => {
            if let Some(tab) = ctx.reached() {
                remember_unconfirmed(&state.sessions, session, tab, action);
            }
            ToolOutput::error(text)
        }
        (Err(Failure::Tool(e)), action) => {
            let mut text = format!("{tool}: {e}");
            // It failed after reaching the page: whatever it sent may have acted.
            if let Some(tab) = ctx.reached() {
                text.push_str(&calls::may_have_run(action.as_ref().map(|(kind, _)| *kind), unanswered_ms(tab)));
                remember_unconfirmed(&state.sessions, session, tab, action);
            }
            ToolOutput::error(text)
        }
    }
}

pub use calls::capitalised;

/// Refuses a tool that reads or acts on `tab`'s page while the page shows a JavaScript dialog
/// and waits for it (only `browser_handle_dialog` and the tab list work then).
pub fn refuse_if_dialog(tabs: &crate::state::TabsState, tab: i32, tool: &'static str) -> Result<(), ToolError> {
    match tabs.registry.borrow().dialog(tab) {
        Some(dialog) => Err(ToolError::DialogOpen { tool, dialog }),
        None => Ok(()),
    }
}

/// Refuses an action on `tab` while this session's previous action there is unconfirmed.
pub fn refuse_if_unconfirmed(sessions: &Sessions, session: &str, tab: i32, tool: &str) -> Result<(), Failure> {
    let pending = cdp::unanswered_input(tab).is_some();
    match sessions.with_session(session, |s| s.unconfirmed.refusal(tab, tool, timer::now_ms(), pending)) {
        Some(text) => Err(Failure::Explained(text)),
        None => Ok(()),
    }
}

/// The tab a call acts on: the one it names (which the session then holds, unless another
/// session does), else the session's current tab, else (see `sightline_core::custody`) the
/// newest tab it holds or a free one, else (when `open_if_none`) a new tab the agent owns. A
/// session that lost its current tab gets none until it names one.
pub async fn target_tab(
    custody: &Custody<'_>,
    session: &str,
    named: Option<u32>,
    open_if_none: bool,
) -> Result<i32, ToolError> {
    let tab = choose_target_tab(custody, session, named, open_if_none).await?;
    // A site the person gave agents no access to is neither read, acted on nor moved.
    crate::permissions::refuse_no_access(tab).await?;
    Ok(tab)
}

async fn choose_target_tab(
    custody: &Custody<'_>,
    session: &str,
    named: Option<u32>,
    open_if_none: bool,
) -> Result<i32, ToolError> {
    if let Some(tab) = named {
        let tab = tab as i32;
        custody.tabs.require_usable(tab, session)?;
        custody.take_up(tab, session).await;
        return Ok(tab);
    }
    let (current, lost) = custody.sessions.with_session(session, |s| (s.current_tab, s.lost));
    let choice = {
        let tabs = custody.tabs.registry.borrow();
        custody::choose_tab(session, current, lost, &tabs.grants.candidates(), open_if_none)
    };
    match choice {
        Target::Tab(tab) if Some(tab) == current => Ok(tab),
        Target::Tab(tab) if chrome::get_tab(tab).await.is_ok() => {
            custody.take_up(tab, session).await;
            Ok(tab)
        }
        Target::Lost { tab, loss } => {
            custody.tabs.require_not_stopped()?;
            Err(ToolError::CurrentTabLost { tab, loss })
        }
        Target::Open => tabs::open_tab(custody, session).await,
        Target::Tab(_) | Target::None if open_if_none => tabs::open_tab(custody, session).await,
        Target::Tab(_) | Target::None => {
            custody.tabs.require_not_stopped()?;
            Err(ToolError::NoTab)
        }
    }
}

/// The node behind `element_ref` in this session's view of the tab, if it still exists in the
/// document it was seen in.
pub fn resolve_ref(
    tabs: &TabsState,
    sessions: &Sessions,
    session: &str,
    tab_id: i32,
    element_ref: &str,
) -> Result<NodeKey, ToolError> {
    let tabs = tabs.registry.borrow();
    sessions.with_session(session, |s| s.refs.check(element_ref, tab_id))?;
    sessions.with_session(session, |s| match s.pages.get(&tab_id) {
        Some(page) => page.resolve(element_ref, tabs.frames(tab_id).loaders()).map_err(ToolError::from),
        None => Err(ToolError::from(RefError::Unknown(element_ref.trim().to_owned()))),
    })
}
