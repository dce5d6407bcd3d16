//! `browser_user_selection`: the node the person pointed at for the agent on a tab (see
//! [`crate::selection`]), found in a fresh capture of the page by the session's page state in
//! core, which writes the answer: the element's ref and its line, or the text it is part of.

use sightline_core::page_state::pointed::{Pointed, locate};
use sightline_core::page_state::{Answer, Staleness};
use sightline_core::protocol::{ToolOutput, UserSelectionParams};

use super::snapshot::{answer, capture_and_compile};
use super::{ToolResult, target_tab};
use crate::error::ToolError;
use crate::state::Reach;

/// `browser_user_selection`.
pub async fn run(reach: &Reach<'_>, session: &str, params: UserSelectionParams) -> ToolResult {
    let tab = target_tab(&reach.custody, session, params.tab, false).await?;
    let Some(selection) = reach.custody.tabs.selections.borrow().get(&tab).cloned() else {
        return Err(ToolError::NothingSelected { tab });
    };
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock.lock().await;
    reach.custody.tabs.ensure_attached(tab).await?;
    super::refuse_if_dialog(reach.custody.tabs, tab, "browser_user_selection")?;
    let version = reach.custody.sessions.with_session(session, |s| s.pages.get(&tab).map_or(0, |p| p.version()));
    let behind = match reach
        .custody
        .sessions
        .with_session(session, |s| s.pages.get(&tab).map(|p| p.check_since(params.since_version)))
    {
        Some(Err(e)) => return Err(e.into()),
        Some(Ok(Staleness::Behind(_) | Staleness::TooStale(_))) => params.since_version,
        _ => None,
    };
    // A session that has not seen the page yet looks first, so the ref it gets is one it knows.
    let (looked, snapshot) = if version == 0 {
        let looked = answer(reach, session, tab, Answer::Baseline, &[], None).await?;
        (
            Some(looked),
            reach.custody.sessions.with_session(session, |s| s.pages.get(&tab).and_then(|p| p.snapshot().cloned())),
        )
    } else {
        (None, Some(capture_and_compile(reach, session, tab).await?))
    };
    let version = reach.custody.sessions.with_session(session, |s| s.pages.get(&tab).map_or(0, |p| p.version()));
    // Backend ids are per process: only frames of the process the node came from can match.
    let tabs = reach.custody.tabs.registry.borrow();
    let in_process = |frame: &str| tabs.frames(tab).session_of(frame) == selection.session.as_deref();
    let pointed = snapshot.and_then(|snap| locate(&snap, &selection.chain, &in_process));
    drop(tabs);
    let Some(pointed) = pointed else {
        return Err(ToolError::SelectionNotShown { tab });
    };
    let mut output = pointed.answer(version, selection.by);
    if let Some(ToolOutput { text, .. }) = looked {
        output.text = format!("{text}\n{}", output.text);
    }
    if let Some(since) = behind {
        output.text = format!("{}\n{}", Pointed::behind_note(since, version), output.text);
    }
    Ok(output)
}
