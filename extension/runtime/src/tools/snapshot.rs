//! `browser_snapshot`, and the capture every tool that looks at the page starts from. What the
//! answer says (the full page, a delta, "no change") is decided and written by the session's
//! page state in core; this module captures, times and hands over.

use std::rc::Rc;

use sightline_core::page_state::{Answer, Delta, PageError};
use sightline_core::protocol::{SnapshotParams, ToolOutput};
use sightline_core::snapshot::Snapshot;

use super::{ToolResult, target_tab};
use crate::error::ToolError;
use crate::navigation::{self, Waited};
use crate::state::State;
use crate::{capture, timer};

/// `browser_snapshot`.
pub async fn run(state: &Rc<State>, session: &str, params: SnapshotParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    super::refuse_if_dialog(state, tab, "browser_snapshot")?;
    if params.page.unwrap_or(1) > 1 {
        // Later pages continue the snapshot the agent is reading, not a new one.
        return state.with_session(session, |s| match s.pages.get(&tab) {
            Some(page) => Ok(page.continue_snapshot(&params)?),
            None => Err(PageError::NothingToContinue.into()),
        });
    }
    let snapshot = capture_and_compile(state, session, tab).await?;
    state.with_session(session, |s| Ok(s.pages.entry(tab).or_default().answer_snapshot(snapshot, &params)?))
}

/// Captures the tab and compiles it with the session's page state, timing both. Images, style
/// sheets and fonts the page is still loading are waited for first (bounded; see
/// [`navigation::await_rendering_loads`]).
pub async fn capture_and_compile(state: &Rc<State>, session: &str, tab: i32) -> Result<Snapshot, ToolError> {
    let loads_ms = navigation::await_rendering_loads(state, tab).await;
    let captured = capture::capture(state, tab).await?;
    // The person's own secret words apply from the next look on.
    let words = crate::options::Options::read().await.secret_words;
    let started = timer::now_ms();
    let mut snapshot = state.with_session(session, |s| {
        let page = s.pages.entry(tab).or_default();
        page.set_secret_words(&words);
        page.compile(&captured.capture)
    });
    snapshot.stats.capture_ms = Some(captured.capture_ms);
    snapshot.stats.convert_ms = Some(captured.convert_ms);
    snapshot.stats.capture_by_method = captured.by_method;
    snapshot.stats.probe_ms = Some(captured.probe_ms);
    snapshot.stats.capture_reused = captured.reused;
    snapshot.stats.capture_kept = captured.kept;
    snapshot.stats.pipeline_ms = Some(timer::now_ms() - started);
    snapshot.stats.loads_ms = loads_ms;
    Ok(snapshot)
}

/// Captures the page and answers for `session`, prefixed by `notes` (waits that hit their
/// limit) and `notice` (what changed before the action of an agent acting on an older version).
pub async fn answer(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    how: Answer,
    notes: &[String],
    notice: Option<&Delta>,
) -> Result<ToolOutput, ToolError> {
    answer_waited(state, session, tab, how, notes, notice, Waited::default()).await
}

/// [`answer`] after a navigation, whose waits are reported in the snapshot's stats.
pub async fn answer_waited(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    how: Answer,
    notes: &[String],
    notice: Option<&Delta>,
    waited: Waited,
) -> Result<ToolOutput, ToolError> {
    let mut snapshot = capture_and_compile(state, session, tab).await?;
    snapshot.stats.load_ms = waited.load_ms;
    snapshot.stats.settle_ms = waited.settle_ms;
    Ok(state.with_session(session, |s| s.pages.entry(tab).or_default().answer(snapshot, how, notes, notice)))
}
