//! `browser_snapshot`, and how every tool that looks at the page answers: through the
//! (session, tab) page state, which decides between the full page, a delta, or "no change".

use std::rc::Rc;

use sightline_core::page_state::response::{facts, render_notice, render_response};
use sightline_core::page_state::{Delta, FullReason, Outcome, PageState, Response};
use sightline_core::protocol::{SnapshotParams, ToolOutput};
use sightline_core::snapshot::Snapshot;
use sightline_core::snapshot::render::RenderOptions;

use super::{ToolError, ToolResult, target_tab};
use crate::state::State;
use crate::{capture, timer};

/// `browser_snapshot`.
pub async fn run(state: &Rc<State>, session: &str, params: SnapshotParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let page = params.page.unwrap_or(1).max(1) as usize;
    if page > 1 {
        // Later pages continue the snapshot the agent is reading, not a new one.
        return state.with_session(session, |s| {
            let ps = s.pages.get(&tab);
            match (ps.and_then(PageState::snapshot), ps.and_then(PageState::last_full)) {
                (Some(snapshot), Some(response)) => {
                    let options = render_options(snapshot, &params, page)?;
                    Ok(output(snapshot, response, &options, &[], None, true))
                }
                _ => Err(ToolError(
                    "there is no snapshot to continue: call browser_snapshot without `page` first".into(),
                )),
            }
        });
    }
    let snapshot = capture_and_compile(state, session, tab).await?;
    state.with_session(session, |s| {
        let ps = s.pages.entry(tab).or_default();
        let options = render_options(&snapshot, &params, 1)?;
        let response = ps.baseline(snapshot, params.full || params.region.is_some());
        let snapshot = ps.snapshot().expect("a snapshot was just recorded");
        Ok(output(snapshot, &response, &options, &[], None, true))
    })
}

/// Captures the tab and compiles it with the session's page state, timing both.
pub async fn capture_and_compile(state: &Rc<State>, session: &str, tab: i32) -> Result<Snapshot, ToolError> {
    let captured = capture::capture(state, tab).await?;
    let started = timer::now_ms();
    let mut snapshot = state.with_session(session, |s| s.pages.entry(tab).or_default().compile(&captured.capture));
    snapshot.stats.capture_ms = Some(captured.capture_ms);
    snapshot.stats.convert_ms = Some(captured.convert_ms);
    snapshot.stats.pipeline_ms = Some(timer::now_ms() - started);
    Ok(snapshot)
}

/// How the page answers after something happened to it.
pub enum Answer {
    /// A baseline: `browser_navigate` (regions unchanged since the last baseline collapse).
    Baseline,
    /// After an action: a delta, no change, an overlay, or the full page with its reason.
    AfterAction,
    /// The action was not run because the agent's version is too old: the full page.
    NotRun(u64),
}

/// Captures the page and answers for `session`, prefixed by `notes` (waits that hit their
/// limit) and `notice` (what changed before the action of an agent acting on an older version).
pub async fn answer(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    how: Answer,
    notes: &[String],
    notice: Option<Delta>,
) -> ToolResult {
    let snapshot = capture_and_compile(state, session, tab).await?;
    Ok(state.with_session(session, |s| {
        let ps = s.pages.entry(tab).or_default();
        let response = match how {
            Answer::Baseline => ps.baseline(snapshot, false),
            Answer::AfterAction => ps.after_action(snapshot),
            Answer::NotRun(agent_version) => ps.full(snapshot, FullReason::TooStale { agent_version }, false),
        };
        let snapshot = ps.snapshot().expect("a snapshot was just recorded");
        output(snapshot, &response, &RenderOptions::default(), notes, notice.as_ref(), false)
    }))
}

fn render_options(snapshot: &Snapshot, params: &SnapshotParams, page: usize) -> Result<RenderOptions, ToolError> {
    let region = match &params.region {
        None => None,
        Some(wanted) => Some(find_region(snapshot, wanted)?),
    };
    let trim = params.trim.map(|n| n as usize);
    Ok(RenderOptions { bbox: params.bbox, page, region, trim, ..RenderOptions::default() })
}

/// The region named `wanted`: an exact name, else the first whose name starts with it.
fn find_region(snapshot: &Snapshot, wanted: &str) -> Result<usize, ToolError> {
    let names = &snapshot.region_names;
    names.iter().position(|n| n == wanted).or_else(|| names.iter().position(|n| n.starts_with(wanted))).ok_or_else(
        || {
            let available = if names.is_empty() { "none on this page".to_owned() } else { names.join(", ") };
            ToolError(format!("no region named {wanted:?}; regions: {available}"))
        },
    )
}

fn output(
    snapshot: &Snapshot,
    response: &Response,
    options: &RenderOptions,
    notes: &[String],
    notice: Option<&Delta>,
    snapshot_facts: bool,
) -> ToolOutput {
    let mut text = String::new();
    for note in notes {
        text.push_str("! ");
        text.push_str(note);
        text.push('\n');
    }
    if let Some(delta) = notice {
        text.push_str(&render_notice(delta));
        text.push('\n');
    }
    text.push_str(&render_response(snapshot, response, options));
    // A full page carries the snapshot's facts (browser_snapshot declares them in its output
    // schema); any other answer describes the change.
    let structured = if let Outcome::Full { reason, collapsed } = &response.outcome {
        let mut page = snapshot.facts(response.version);
        page.reason = Some(reason.to_string());
        page.unchanged_regions = collapsed.iter().map(|&r| snapshot.region_names[r].clone()).collect();
        serde_json::to_value(page).ok()
    } else if snapshot_facts {
        serde_json::to_value(snapshot.facts(response.version)).ok()
    } else {
        serde_json::to_value(facts(snapshot, response)).ok()
    };
    ToolOutput { text, structured, ..ToolOutput::default() }
}
