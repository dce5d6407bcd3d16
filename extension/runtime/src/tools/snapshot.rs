//! `browser_snapshot`, and the capture every tool that looks at the page starts from. What the
//! answer says (the full page, a delta, "no change") is decided and written by the session's
//! page state in core; this module captures, times and hands over.

use sightline_core::page_state::{Answer, Delta, PageError};
use sightline_core::protocol::{SnapshotParams, SnapshotStats, ToolOutput};
use sightline_core::snapshot::Snapshot;

use super::{ToolResult, target_tab};
use crate::capture::{self, Captured};
use crate::error::ToolError;
use crate::navigation::{self, CapturedAhead, Waited};
use crate::state::{AsksState, Reach, Sessions};
use crate::timer;

/// `browser_snapshot`.
pub async fn run(reach: &Reach<'_>, session: &str, params: SnapshotParams) -> ToolResult {
    let tab = target_tab(&reach.custody, session, params.tab, false).await?;
    let lock = reach.custody.tabs.lock(tab);
    let _guard = lock.lock().await;
    reach.custody.tabs.ensure_attached(tab).await?;
    super::refuse_if_dialog(reach.custody.tabs, tab, "browser_snapshot")?;
    if params.page.unwrap_or(1) > 1 {
        // Later pages continue the snapshot the agent is reading, not a new one.
        return reach.custody.sessions.with_session(session, |s| match s.pages.get(&tab) {
            Some(page) => Ok(page.continue_snapshot(&params)?),
            None => Err(PageError::NothingToContinue.into()),
        });
    }
    let snapshot = capture_and_compile(reach, session, tab).await?;
    reach
        .custody
        .sessions
        .with_session(session, |s| Ok(s.pages.entry(tab).or_default().answer_snapshot(snapshot, &params)?))
}

/// Captures the tab and compiles it with the session's page reach, timing both. Images, style
/// sheets and fonts the page is still loading are waited for first (bounded; see
/// [`navigation::await_rendering_loads`]).
pub async fn capture_and_compile(reach: &Reach<'_>, session: &str, tab: i32) -> Result<Snapshot, ToolError> {
    let loads_ms = navigation::await_rendering_loads(reach.custody.timeline, tab).await;
    let captured = capture::capture(reach.custody.tabs, tab).await?;
    Ok(compile(reach.custody.sessions, reach.asks, session, tab, captured, loads_ms).await)
}

/// Compiles a capture with the session's page reach, and says in its stats what it cost.
async fn compile(
    sessions: &Sessions,
    asks: &AsksState,
    session: &str,
    tab: i32,
    captured: Captured,
    loads_ms: Option<f64>,
) -> Snapshot {
    // The person's own secret words apply from the next look on, and so does what they allow
    // of `file:` URLs (a frame showing a URL an agent could not load is not read).
    let options = crate::options::Options::for_call(asks);
    let started = timer::now_ms();
    let mut snapshot = sessions.with_session(session, |s| {
        let page = s.pages.entry(tab).or_default();
        page.set_secret_words(&options.secret_words);
        page.set_url_policy(options.url_policy());
        page.compile_on_tab(&captured.capture, tab, &mut s.refs)
    });
    snapshot.stats.capture_ms = Some(captured.costs.capture_ms);
    snapshot.stats.convert_ms = Some(captured.costs.convert_ms);
    snapshot.stats.capture_by_method = captured.costs.by_method;
    snapshot.stats.probe_ms = Some(captured.costs.probe_ms);
    snapshot.stats.capture_reused = captured.reused;
    snapshot.stats.capture_kept = captured.kept;
    snapshot.stats.pipeline_ms = Some(timer::now_ms() - started);
    snapshot.stats.loads_ms = loads_ms;
    snapshot
}

/// Captures the page and answers for `session`, prefixed by `notes` (waits that hit their
/// limit) and `notice` (what changed before the action of an agent acting on an older version).
pub async fn answer(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    how: Answer,
    notes: &[String],
    notice: Option<&Delta>,
) -> Result<ToolOutput, ToolError> {
    answer_waited(reach, session, tab, how, notes, notice, Waited::default()).await
}

/// [`answer`] after a navigation, whose waits are reported in the snapshot's stats.
pub async fn answer_waited(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    how: Answer,
    notes: &[String],
    notice: Option<&Delta>,
    waited: Waited,
) -> Result<ToolOutput, ToolError> {
    // The capture taken as soon as the page loaded, when it held until the page settled.
    let held = waited.ahead.as_ref().filter(|ahead| ahead.held).and_then(|_| capture::kept(reach.custody.tabs, tab));
    let mut snapshot = match held {
        Some(captured) => compile(reach.custody.sessions, reach.asks, session, tab, captured, None).await,
        None => capture_and_compile(reach, session, tab).await?,
    };
    snapshot.stats.load_ms = waited.load_ms;
    snapshot.stats.settle_ms = waited.settle_ms;
    snapshot.stats.frame_ms = waited.frame_ms;
    if let Some(ahead) = waited.ahead {
        count_capture_ahead(&mut snapshot.stats, ahead);
    }
    Ok(reach
        .custody
        .sessions
        .with_session(session, |s| s.pages.entry(tab).or_default().answer(snapshot, how, notes, notice)))
}

/// Adds what the capture taken ahead of a navigation's settle wait cost to the stats of the
/// navigation's answer, so its profile counts every capture the navigation made. When the
/// answer shows that capture (it held, or a probe found nothing changed since), it is the
/// navigation's own capture, not a reuse of an earlier look's: the answer says it was captured
/// ahead, and its per-method waits are that capture's.
fn count_capture_ahead(stats: &mut SnapshotStats, ahead: CapturedAhead) {
    let add = |field: &mut Option<f64>, ms: f64| *field = Some(field.unwrap_or_default() + ms);
    add(&mut stats.probe_ms, ahead.costs.probe_ms);
    add(&mut stats.capture_ms, ahead.costs.capture_ms);
    add(&mut stats.convert_ms, ahead.costs.convert_ms);
    if let Some(ms) = ahead.loads_ms {
        add(&mut stats.loads_ms, ms);
    }
    if ahead.held || stats.capture_reused {
        stats.capture_reused = false;
        stats.captured_ahead = true;
        stats.capture_by_method = ahead.costs.by_method;
    }
}
