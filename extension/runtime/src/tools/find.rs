//! `browser_find`: search the page the agent last saw, including regions a snapshot wrote as
//! unchanged or trimmed.

use std::rc::Rc;

use sightline_core::page_state::regions::{FindQuery, find};
use sightline_core::protocol::{FindParams, ToolOutput};

use super::snapshot::{Answer, answer};
use super::{ToolError, ToolResult, target_tab};
use crate::state::State;

/// How many matches one answer lists.
const LIMIT: usize = 50;

/// `browser_find`.
pub async fn run(state: &Rc<State>, session: &str, params: FindParams) -> ToolResult {
    if params.text.is_none() && params.role.is_none() && params.region.is_none() {
        return Err(ToolError("give at least one of `text`, `role` or `region`".into()));
    }
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let mut looked = None;
    if state.with_session(session, |s| s.pages.get(&tab).is_none_or(|p| p.snapshot().is_none())) {
        // Nothing seen yet: look first, so the refs found are ones the agent can use.
        looked = Some(answer(state, session, tab, Answer::Baseline, &[], None).await?);
    }
    let query = FindQuery { text: params.text.clone(), role: params.role.clone(), region: params.region.clone() };
    let (version, found) = state.with_session(session, |s| {
        let ps = s.pages.get(&tab).expect("looked above");
        let snapshot = ps.snapshot().expect("looked above");
        (ps.version(), find(snapshot, &query, LIMIT + 1))
    });
    let mut text = String::new();
    if let Some(looked) = looked {
        text.push_str(&looked.text);
        text.push('\n');
    }
    let more = found.len() > LIMIT;
    text.push_str(&format!(
        "{} match{} in v{version}{}",
        found.len().min(LIMIT),
        if found.len() == 1 { "" } else { "es" },
        if more { format!(" (first {LIMIT}; narrow the search for the rest)") } else { String::new() }
    ));
    for f in found.iter().take(LIMIT) {
        let region = if f.region.is_empty() { String::new() } else { format!("[{}] ", f.region) };
        text.push_str(&format!("\n{region}{}", f.line));
    }
    Ok(ToolOutput::text(text))
}
