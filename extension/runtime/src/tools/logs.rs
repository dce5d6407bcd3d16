//! `browser_console_messages` and `browser_network_requests`: the full console and network rings
//! of the agent's tabs, a page at a time, and the requests still waiting for their response, as
//! the engine renders them (`sightline_core::changes::listing`). This module only reads the
//! browser's timeline and the clock their wait is measured by. Only tabs the session may still
//! use are listed: a tab unshared or closed is no longer readable, nor one another agent holds,
//! nor what was recorded on a site the person gave agents no access to.

use std::rc::Rc;

use sightline_core::changes::listing::render_network;
use sightline_core::protocol::{ConsoleMessagesParams, NetworkRequestsParams, ToolOutput};

use super::ToolResult;
use crate::state::State;
use crate::{flood, permissions, timer};

/// `browser_console_messages`, ending with the consoles paused for flooding and what they
/// dropped.
pub async fn console_messages(state: &Rc<State>, session: &str, params: ConsoleMessagesParams) -> ToolResult {
    permissions::hide_no_access(state).await;
    if let Some(tab) = params.tab {
        state.require_usable(tab as i32, session)?;
        permissions::refuse_hidden(state, tab as i32)?;
    }
    flood::record_dropped(&state.timeline);
    Ok(ToolOutput::text(state.with_session_timeline(session, |t| t.console_listing(&params))))
}

/// `browser_network_requests`.
pub async fn network_requests(state: &Rc<State>, session: &str, params: NetworkRequestsParams) -> ToolResult {
    permissions::hide_no_access(state).await;
    if let Some(tab) = params.tab {
        state.require_usable(tab as i32, session)?;
        permissions::refuse_hidden(state, tab as i32)?;
    }
    let mut pending = state.pending_requests();
    let now = timer::epoch_ms();
    Ok(ToolOutput::text(state.with_session_timeline(session, |t| {
        pending.retain(|p| t.readable_at(p.tab, Some(&p.url)));
        render_network(t.network().iter().filter(|e| t.readable_at(e.tab, Some(&e.url))), &pending, &params, now)
    })))
}
