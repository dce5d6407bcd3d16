//! `browser_snapshot`, and the snapshot every action answers with.

use std::rc::Rc;

use sightline_core::cdp::accessibility::FullAxTree;
use sightline_core::listing;
use sightline_core::protocol::{SnapshotFacts, SnapshotParams, ToolOutput};

use super::{ToolError, ToolResult, target_tab};
use crate::state::State;
use crate::{cdp, chrome};

/// `browser_snapshot`.
pub async fn run(state: &Rc<State>, session: &str, params: SnapshotParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    capture(state, session, tab, &[]).await
}

/// Captures the tab and renders it for `session`, prefixed by `notes`.
pub async fn capture(state: &Rc<State>, session: &str, tab: i32, notes: &[String]) -> ToolResult {
    let (frame_id, loader_id) = {
        let tabs = state.tabs.borrow();
        let s = tabs.sessions.get(&tab).ok_or_else(|| ToolError("the tab is not attached".into()))?;
        (s.main_frame.clone(), s.loaders.get(&s.main_frame).cloned().unwrap_or_default())
    };
    let tree: FullAxTree = cdp::send(tab, "Accessibility.getFullAXTree", serde_json::json!({})).await?;
    let info = chrome::get_tab(tab).await?;
    let (title, url) = (info.title.unwrap_or_default(), info.url.unwrap_or_default());
    let (version, listing) = state.with_session(session, |s| {
        let view = s.pages.entry(tab).or_default();
        view.version += 1;
        (view.version, listing::list(&tree, &frame_id, &loader_id, &mut view.refs))
    });
    let mut text = String::new();
    for note in notes {
        text.push_str("! ");
        text.push_str(note);
        text.push('\n');
    }
    text.push_str(&format!("# {title}\n{url} v{version}\n{}", listing.text));
    let facts = SnapshotFacts { url, title, version, elements: listing.elements };
    Ok(ToolOutput { text, structured: serde_json::to_value(facts).ok(), ..ToolOutput::default() })
}
