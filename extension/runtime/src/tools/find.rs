//! `browser_find`: search the page the agent last saw (the page state in core searches and
//! writes the answer), looking at the page first when the agent has not seen it yet.

use sightline_core::page_state::find::FindQuery;
use sightline_core::page_state::{Answer, PageError};
use sightline_core::protocol::{FindParams, ToolOutput};

use super::snapshot::answer;
use super::{ToolResult, target_tab};
use crate::state::Reach;

/// `browser_find`.
pub async fn run(reach: &Reach<'_>, session: &str, params: FindParams) -> ToolResult {
    let query = FindQuery::of(&params).ok_or(PageError::EmptyQuery)?;
    let tab = target_tab(&reach.custody, session, params.tab, false).await?;
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock.lock().await;
    reach.custody.tabs.ensure_attached(tab).await?;
    super::refuse_if_dialog(reach.custody.tabs, tab, "browser_find")?;
    let found = reach.custody.sessions.with_session(session, |s| s.pages.get(&tab).and_then(|p| p.find(&query)));
    if let Some(found) = found {
        return Ok(found);
    }
    // Nothing seen yet: look first, so the refs found are ones the agent can use.
    let looked = answer(reach, session, tab, Answer::Baseline, &[], None).await?;
    let found = reach.custody.sessions.with_session(session, |s| s.pages.get(&tab).and_then(|p| p.find(&query)));
    let found = found.map(|f| f.text).unwrap_or_default();
    Ok(ToolOutput::text(format!("{}\n{found}", looked.text)))
}
