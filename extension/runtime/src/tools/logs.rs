//! `browser_console_messages` and `browser_network_requests`: the full console and network rings
//! of the agent's tabs, a page at a time, and the requests still waiting for their response, as
//! the engine renders them (`sightline_core::changes::listing`). This module only reads the
//! browser's timeline and the clock their wait is measured by. Only tabs the agent may still
//! use are listed: a tab unshared or closed is no longer readable.

use std::rc::Rc;

use sightline_core::changes::listing::render_network;
use sightline_core::protocol::{ConsoleMessagesParams, NetworkRequestsParams, ToolOutput};

use super::ToolResult;
use crate::state::State;
use crate::{flood, timer};

/// `browser_console_messages`, ending with the consoles paused for flooding and what they
/// dropped.
pub fn console_messages(state: &Rc<State>, params: ConsoleMessagesParams) -> ToolResult {
    flood::record_dropped(state);
    Ok(ToolOutput::text(state.with_timeline(|t| t.console_listing(&params))))
}

/// `browser_network_requests`.
pub fn network_requests(state: &Rc<State>, params: NetworkRequestsParams) -> ToolResult {
    let mut pending = state.pending_requests();
    let now = timer::epoch_ms();
    Ok(ToolOutput::text(state.with_timeline(|t| {
        pending.retain(|p| t.readable(p.tab));
        render_network(t.network().iter().filter(|e| t.readable(e.tab)), &pending, &params, now)
    })))
}
