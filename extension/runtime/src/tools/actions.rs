//! The tools that change the page: navigate, click, type, press a key. Each waits for the
//! page to settle and answers with the page as it now is.

use std::rc::Rc;

use sightline_core::keys;
use sightline_core::protocol::{ClickParams, NavigateParams, PressKeyParams, TypeParams};

use super::{ToolError, ToolResult, resolve_ref, snapshot, target_tab};
use crate::input;
use crate::navigation::{self, Settled};
use crate::state::State;

/// `browser_navigate`.
pub async fn navigate(state: &Rc<State>, session: &str, params: NavigateParams) -> ToolResult {
    match (&params.url, params.go) {
        (Some(_), Some(_)) => return Err(ToolError("give either `url` or `go`, not both".into())),
        (None, None) => return Err(ToolError("give `url` to load, or `go`: back, forward or reload".into())),
        _ => {}
    }
    let tab = target_tab(state, session, params.tab, params.url.is_some()).await?;
    match (params.url, params.go) {
        (Some(url), _) => load(state, session, tab, &url).await,
        (None, Some(step)) => {
            let lock = state.tab_lock(tab);
            let _guard = lock.lock().await;
            state.ensure_attached(tab).await?;
            let settled = navigation::history(state, tab, step).await?;
            snapshot::capture(state, session, tab, &settled.notes, &Default::default()).await
        }
        (None, None) => unreachable!("checked above"),
    }
}

/// Loads `url` in `tab` and answers with the page.
pub async fn load(state: &Rc<State>, session: &str, tab: i32, url: &str) -> ToolResult {
    let url = normalise_url(url)?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let settled = navigation::goto(state, tab, &url).await?;
    snapshot::capture(state, session, tab, &settled.notes, &Default::default()).await
}

/// Accepts absolute URLs and bare host names (`example.com` → `https://example.com`).
fn normalise_url(url: &str) -> Result<String, ToolError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(ToolError("the url is empty".into()));
    }
    if url.contains("://") || url.starts_with("about:") || url.starts_with("data:") {
        if url.starts_with("chrome://") || url.starts_with("chrome-extension://") || url.starts_with("devtools://") {
            return Err(ToolError(format!("{url} is a browser-internal page, which Sightline may not control")));
        }
        return Ok(url.to_owned());
    }
    if url.starts_with("localhost") || url.starts_with("127.0.0.1") {
        return Ok(format!("http://{url}"));
    }
    Ok(format!("https://{url}"))
}

async fn act(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    action: impl std::future::Future<Output = Result<(), ToolError>>,
) -> ToolResult {
    let settled: Settled = navigation::act_and_settle(state, tab, action).await?;
    snapshot::capture(state, session, tab, &settled.notes, &Default::default()).await
}

/// `browser_click`.
pub async fn click(state: &Rc<State>, session: &str, params: ClickParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let node = resolve_ref(state, session, tab, &params.element_ref)?;
    let at = input::NodeTarget::of(state, tab, &node);
    let (x, y) = input::element_centre(&at, &node, &params.element_ref).await?;
    let button = params.button.unwrap_or_default();
    act(state, session, tab, input::click_at(tab, x, y, button, params.double)).await
}

/// `browser_type`.
pub async fn type_text(state: &Rc<State>, session: &str, params: TypeParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let node = resolve_ref(state, session, tab, &params.element_ref)?;
    let at = input::NodeTarget::of(state, tab, &node);
    let enter = keys::parse_chord("Enter").map_err(|e| ToolError(e.to_string()))?;
    act(state, session, tab, async {
        input::replace_text(&at, &node, &params.element_ref, &params.text).await?;
        if params.submit {
            input::press(tab, &enter).await?;
        }
        Ok(())
    })
    .await
}

/// `browser_press_key`.
pub async fn press_key(state: &Rc<State>, session: &str, params: PressKeyParams) -> ToolResult {
    let key = keys::parse_chord(&params.key).map_err(|e| ToolError(e.to_string()))?;
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let node = match &params.element_ref {
        Some(r) => {
            let key = resolve_ref(state, session, tab, r)?;
            Some((input::NodeTarget::of(state, tab, &key), key, r.clone()))
        }
        None => None,
    };
    act(state, session, tab, async {
        if let Some((at, node, r)) = &node {
            input::focus(at, node, r).await?;
        }
        input::press(tab, &key).await
    })
    .await
}
