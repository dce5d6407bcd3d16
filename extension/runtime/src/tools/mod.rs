//! Tool dispatch: each tool checks consent, drives the tab, and answers with what the agent
//! needs to see next.

mod actions;
mod changes;
mod find;
mod logs;
mod snapshot;
mod tabs;

use std::rc::Rc;

use sightline_core::protocol::{ToolCall, ToolOutput};
use sightline_core::refs::{NodeKey, RefError};

use crate::chrome;
use crate::error::ToolError;
use crate::state::State;

/// What a tool returns.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// Runs one tool call for an MCP session.
pub async fn run(state: &Rc<State>, session: &str, call: ToolCall) -> ToolOutput {
    let tool = call.name();
    // An action is recorded on the timeline, and page input meanwhile is taken for the agent's.
    let action = call.action();
    let acting = action.is_some().then(|| state.agent_acting());
    let result = match call {
        ToolCall::BrowserTabs(p) => tabs::run(state, session, p).await,
        ToolCall::BrowserNavigate(p) => actions::navigate(state, session, p).await,
        ToolCall::BrowserSnapshot(p) => snapshot::run(state, session, p).await,
        ToolCall::BrowserClick(p) => actions::click(state, session, p).await,
        ToolCall::BrowserType(p) => actions::type_text(state, session, p).await,
        ToolCall::BrowserPressKey(p) => actions::press_key(state, session, p).await,
        ToolCall::BrowserFind(p) => find::run(state, session, p).await,
        ToolCall::GetChangesSince(p) => changes::changes_since(state, session, p).await,
        ToolCall::BrowserCheckpoint(p) => changes::checkpoint(state, p).await,
        ToolCall::BrowserConsoleMessages(p) => logs::console_messages(state, p),
        ToolCall::BrowserNetworkRequests(p) => logs::network_requests(state, p),
    };
    drop(acting);
    // Every successful action's response ends with the line on new errors and failed requests.
    let result = match (result, action) {
        (Ok(output), Some(action)) => Ok(changes::after_action(state, session, output, action).await),
        (result, _) => result,
    };
    result.unwrap_or_else(|e| ToolOutput::error(format!("{tool}: {e}")))
}

/// The tab a call acts on: the one it names, else the session's current tab, else (when
/// `open_if_none`) a new tab the agent owns.
pub async fn target_tab(
    state: &Rc<State>,
    session: &str,
    named: Option<u32>,
    open_if_none: bool,
) -> Result<i32, ToolError> {
    if let Some(tab) = named {
        let tab = tab as i32;
        state.require_controlled(tab)?;
        state.with_session(session, |s| s.current_tab = Some(tab));
        return Ok(tab);
    }
    let current = state.with_session(session, |s| s.current_tab);
    if let Some(tab) = current
        && state.tabs.borrow().is_controlled(tab)
    {
        return Ok(tab);
    }
    // After a worker restart the session has no current tab yet: use the newest controlled one.
    let newest = state.tabs.borrow().grants.tabs.keys().next_back().copied();
    if let Some(tab) = newest
        && chrome::get_tab(tab).await.is_ok()
    {
        state.with_session(session, |s| s.current_tab = Some(tab));
        return Ok(tab);
    }
    if open_if_none {
        return tabs::open_tab(state, session).await;
    }
    Err(ToolError::NoTab)
}

/// The node behind `element_ref` in this session's view of the tab, if it still exists in the
/// document it was seen in.
pub fn resolve_ref(state: &State, session: &str, tab_id: i32, element_ref: &str) -> Result<NodeKey, ToolError> {
    let frames = state.tabs.borrow().frames(tab_id);
    state.with_session(session, |s| match s.pages.get(&tab_id) {
        Some(page) => page.resolve(element_ref, frames.loaders()).map_err(ToolError::from),
        None => Err(ToolError::from(RefError::Unknown(element_ref.trim().to_owned()))),
    })
}
