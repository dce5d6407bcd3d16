//! The tools that change the page: navigate, click, type, press a key. Each waits for the page
//! to settle and answers with what changed, through the (session, tab) page state.
//!
//! An agent may say which version its refs come from (`since_version`). If the page changed
//! since and that version is still in history, the action runs and the answer starts with what
//! had changed before it; if the version is older than the history, the action is not run and
//! the agent gets the current page. An action that fails changes nothing: no version, no refs.

use std::rc::Rc;

use sightline_core::keys;
use sightline_core::page_state::{Answer, Delta, Staleness};
use sightline_core::protocol::{ClickParams, NavigateParams, PressKeyParams, TypeParams};

use super::snapshot::answer;
use super::{ToolResult, resolve_ref, target_tab};
use crate::error::ToolError;
use crate::input;
use crate::navigation::{self, Settled};
use crate::options::Options;
use crate::state::State;

/// `browser_navigate`.
pub async fn navigate(state: &Rc<State>, session: &str, params: NavigateParams) -> ToolResult {
    match (&params.url, params.go) {
        (Some(_), Some(_)) => return Err(ToolError::Arguments("give either `url` or `go`, not both")),
        (None, None) => return Err(ToolError::Arguments("give `url` to load, or `go`: back, forward or reload")),
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
            answer(state, session, tab, Answer::Baseline, &settled.notes, None).await
        }
        (None, None) => unreachable!("checked above"),
    }
}

/// Loads `url` in `tab` (if the user's options allow it) and answers with the page.
pub async fn load(state: &Rc<State>, session: &str, tab: i32, url: &str) -> ToolResult {
    let url = Options::read().await.url_policy().check(url)?.to_string();
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    let settled = match state.ensure_attached(tab).await {
        Ok(()) => navigation::goto(state, tab, &url).await?,
        // The tab shows a page the browser does not let extensions debug (a browser page, a
        // source view): move it away without the debugger, then take control again.
        Err(ToolError::Refused { .. }) => navigation::goto_without_debugger(state, tab, &url).await?,
        Err(e) => return Err(e),
    };
    answer(state, session, tab, Answer::Baseline, &settled.notes, None).await
}

/// Where an action stands before it runs.
enum Before {
    /// Run it; `notice` tells what changed since the agent's version.
    Run(Option<Delta>),
    /// Do not run it: the answer is the current page.
    NotRun(u64),
}

fn before_action(state: &State, session: &str, tab: i32, since: Option<u64>) -> Result<Before, ToolError> {
    let staleness = state.with_session(session, |s| s.pages.entry(tab).or_default().check_since(since));
    match staleness? {
        Staleness::Current => Ok(Before::Run(None)),
        Staleness::Behind(delta) => Ok(Before::Run(Some(delta))),
        Staleness::TooStale(version) => Ok(Before::NotRun(version)),
    }
}

/// Runs an input action and answers with what it changed.
async fn act(
    state: &Rc<State>,
    session: &str,
    tab: i32,
    since: Option<u64>,
    action: impl std::future::Future<Output = Result<(), ToolError>>,
) -> ToolResult {
    let notice = match before_action(state, session, tab, since)? {
        Before::NotRun(version) => return answer(state, session, tab, Answer::NotRun(version), &[], None).await,
        Before::Run(notice) => notice,
    };
    let settled: Settled = navigation::act_and_settle(state, tab, action).await?;
    answer(state, session, tab, Answer::AfterAction, &settled.notes, notice.as_ref()).await
}

/// `browser_click`.
pub async fn click(state: &Rc<State>, session: &str, params: ClickParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let node = resolve_ref(state, session, tab, &params.element_ref)?;
    let at = input::NodeTarget::of(state, tab, &node);
    let button = params.button.unwrap_or_default();
    let element_ref = params.element_ref.clone();
    act(state, session, tab, params.since_version, async move {
        let (x, y) = input::click_point(&at, &node, &element_ref).await?;
        input::click_at(tab, x, y, button, params.double).await
    })
    .await
}

/// `browser_type`.
pub async fn type_text(state: &Rc<State>, session: &str, params: TypeParams) -> ToolResult {
    let tab = target_tab(state, session, params.tab, false).await?;
    let lock = state.tab_lock(tab);
    let _guard = lock.lock().await;
    state.ensure_attached(tab).await?;
    let node = resolve_ref(state, session, tab, &params.element_ref)?;
    let at = input::NodeTarget::of(state, tab, &node);
    let enter = keys::parse_chord("Enter")?;
    act(state, session, tab, params.since_version, async {
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
    let key = keys::parse_chord(&params.key)?;
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
    act(state, session, tab, params.since_version, async {
        if let Some((at, node, r)) = &node {
            input::focus(at, node, r).await?;
        }
        input::press(tab, &key).await
    })
    .await
}
