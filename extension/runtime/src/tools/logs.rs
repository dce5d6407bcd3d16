//! `browser_console_messages` and `browser_network_requests`: the full console and network rings
//! of the agent's tabs, a page at a time, and the requests still waiting for their response, as
//! the engine renders them (`sightline_core::changes::listing`). This module only reads the
//! browser's timeline and the clock their wait is measured by. Only tabs the session may still
//! use are listed: a tab unshared or closed is no longer readable, nor one another agent holds,
//! nor what was recorded on a site the person gave agents no access to.

use sightline_core::changes::listing::render_network;
use sightline_core::protocol::{ConsoleMessagesParams, NetworkRequestsParams, ToolOutput};

use super::ToolResult;
use crate::state::{TabsState, TimelineState};
use crate::{flood, permissions, timer};

/// `browser_console_messages`, ending with the consoles paused for flooding and what they
/// dropped.
pub async fn console_messages(
    tabs: &TabsState,
    timeline: &TimelineState,
    session: &str,
    params: ConsoleMessagesParams,
) -> ToolResult {
    permissions::hide_no_access(tabs, timeline).await;
    if let Some(tab) = params.tab {
        tabs.require_usable(tab as i32, session)?;
        permissions::refuse_hidden(timeline, tab as i32)?;
    }
    flood::record_dropped(timeline);
    Ok(ToolOutput::text(timeline.with_session_timeline(tabs, session, |t| t.console_listing(&params))))
}

/// `browser_network_requests`.
pub async fn network_requests(
    tabs: &TabsState,
    timeline: &TimelineState,
    session: &str,
    params: NetworkRequestsParams,
) -> ToolResult {
    permissions::hide_no_access(tabs, timeline).await;
    if let Some(tab) = params.tab {
        tabs.require_usable(tab as i32, session)?;
        permissions::refuse_hidden(timeline, tab as i32)?;
    }
    let mut pending = timeline.pending_requests(tabs);
    let now = timer::epoch_ms();
    Ok(ToolOutput::text(timeline.with_session_timeline(tabs, session, |t| {
        pending.retain(|p| t.readable_at(p.tab, Some(&p.url)));
        render_network(t.network().iter().filter(|e| t.readable_at(e.tab, Some(&e.url))), &pending, &params, now)
    })))
}
