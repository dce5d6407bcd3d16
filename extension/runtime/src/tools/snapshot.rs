//! `browser_snapshot`, and the snapshot every action answers with.

use std::rc::Rc;

use sightline_core::protocol::{SnapshotParams, ToolOutput};
use sightline_core::snapshot::render::{RenderOptions, render};
use sightline_core::snapshot::{Snapshot, compile};

use super::{ToolError, ToolResult, target_tab};
use crate::state::State;
use crate::{capture, timer};

/// `browser_snapshot`.
pub async fn run(state: &Rc<State>, session: &str, params: SnapshotParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let options =
        RenderOptions { bbox: params.bbox, page: params.page.unwrap_or(1).max(1) as usize, ..RenderOptions::default() };
    if options.page > 1 {
        // Later pages continue the snapshot the agent is reading, not a new one.
        let stored =
            state.with_session(session, |s| s.pages.get(&tab).and_then(|v| v.last.clone().map(|l| (l, v.version))));
        let Some((snapshot, version)) = stored else {
            return Err(ToolError(
                "there is no snapshot to continue: call browser_snapshot without `page` first".into(),
            ));
        };
        return Ok(output(&snapshot, version, &options, &[]));
    }
    capture(state, session, tab, &[], &options).await
}

/// Captures the tab, compiles it for `session`, and renders it prefixed by `notes`.
pub async fn capture(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    notes: &[String],
    options: &RenderOptions,
) -> ToolResult {
    let captured = capture::capture(state, tab).await?;
    let started = timer::now_ms();
    let (mut snapshot, version) = state.with_session(session, |s| {
        let view = s.pages.entry(tab).or_default();
        let snapshot = compile(&captured.capture, &mut |key, _| view.refs.assign(key));
        view.version += 1;
        (snapshot, view.version)
    });
    snapshot.stats.capture_ms = Some(captured.capture_ms);
    snapshot.stats.convert_ms = Some(captured.convert_ms);
    snapshot.stats.pipeline_ms = Some(timer::now_ms() - started);
    let out = output(&snapshot, version, options, notes);
    state.with_session(session, |s| {
        if let Some(view) = s.pages.get_mut(&tab) {
            view.last = Some(snapshot);
        }
    });
    Ok(out)
}

fn output(snapshot: &Snapshot, version: u64, options: &RenderOptions, notes: &[String]) -> ToolOutput {
    let rendered = render(snapshot, version, options);
    let mut text = String::new();
    for note in notes {
        text.push_str("! ");
        text.push_str(note);
        text.push('\n');
    }
    text.push_str(&rendered.text);
    ToolOutput { text, structured: serde_json::to_value(snapshot.facts(version)).ok(), ..ToolOutput::default() }
}
