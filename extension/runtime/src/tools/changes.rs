//! `get_changes_since` and `browser_checkpoint`, and what every agent action adds: the action
//! itself on the timeline, and one line at the end of its response on new console errors and
//! failed requests since the previous response.
//!
//! The engine (`sightline_core::changes`) builds every report, reply and line and their text;
//! this module only runs it on the browser's timeline, measures it, and saves what a call
//! changed.

use std::rc::Rc;

use sightline_core::changes::{ActionEntry, ActionKind, Actor};
use sightline_core::protocol::{ChangesParams, CheckpointAction, CheckpointParams, ToolOutput};

use super::ToolResult;
use crate::error::ToolError;
use crate::state::{Sessions, TabsState, TimelineState};
use crate::{chrome, flood, timeline, timer};

/// `get_changes_since`: the report as JSON text; the structured result adds `wasm_ms`, the time
/// the engine took to build it in the extension.
pub async fn changes_since(
    tabs: &TabsState,
    timeline: &Rc<TimelineState>,
    session: &str,
    params: ChangesParams,
) -> ToolResult {
    timeline.refresh_noise_rules().await;
    // Nothing recorded on a site of no access is reported.
    crate::permissions::hide_no_access(tabs, timeline).await;
    if let Some(tab) = params.tab {
        tabs.require_usable(tab as i32, session)?;
        crate::permissions::refuse_hidden(timeline, tab as i32)?;
    }
    // What the flood guard dropped so far belongs in this report.
    flood::record_dropped(timeline);
    let now = timer::epoch_ms();
    let started = timer::now_ms();
    let report = timeline.with_session_timeline(tabs, session, |t| t.changes_since(session, &params, now))?;
    let wasm_ms = timer::now_ms() - started;
    // The session's automatic checkpoint moved (unless a named one was asked for).
    timeline::save_soon(timeline);
    let text = serde_json::to_string(&report)
        .map_err(|e| ToolError::Unexpected { what: "the change report", message: e.to_string() })?;
    let mut structured = serde_json::to_value(&report).ok();
    if let Some(serde_json::Value::Object(fields)) = &mut structured {
        fields.insert("wasm_ms".into(), serde_json::json!((wasm_ms * 1000.0).round() / 1000.0));
    }
    Ok(ToolOutput { text, structured, ..ToolOutput::default() })
}

/// `browser_checkpoint`: create, list or delete named checkpoints. A change is saved before
/// answering, for worker restarts and for browser restarts.
pub async fn checkpoint(
    tabs: &TabsState,
    timeline: &TimelineState,
    session: &str,
    params: CheckpointParams,
) -> ToolResult {
    let reply = timeline.with_session_timeline(tabs, session, |t| t.checkpoint(&params, timer::epoch_ms()))?;
    if params.action != CheckpointAction::List {
        timeline.save_named_checkpoints().await;
        timeline.save_timeline().await;
    }
    let text = reply.text(params.action);
    Ok(ToolOutput { text, structured: serde_json::to_value(&reply).ok(), ..ToolOutput::default() })
}

/// After an agent action succeeded: records it on the tab it acted on, and ends its response
/// with one line on console errors and failed requests since the previous response.
pub async fn after_action(
    tabs: &TabsState,
    sessions: &Sessions,
    timeline: &Rc<TimelineState>,
    session: &str,
    mut output: ToolOutput,
    (kind, description): (ActionKind, String),
) -> ToolOutput {
    let tab = sessions.with_session(session, |s| s.current_tab);
    if let Some(tab) = tab
        && let Ok(tab_number) = u32::try_from(tab)
    {
        let url = chrome::get_tab(tab).await.ok().and_then(|t| t.url);
        timeline.record_agent_action(ActionEntry {
            kind,
            by: Actor::Agent,
            description,
            url,
            time_ms: timer::epoch_ms(),
            tab: tab_number,
        });
    }
    // The line quotes console errors and failed requests: none from a site of no access.
    crate::permissions::hide_no_access(tabs, timeline).await;
    timeline.with_timeline(|t| t.end_action_response(session, &mut output.text));
    timeline::schedule_save(timeline);
    output
}
