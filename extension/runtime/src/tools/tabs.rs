//! `browser_tabs`: list, open, select and close the tabs the agent may use.

use sightline_core::protocol::{TabsAction, TabsParams, ToolOutput};
use sightline_core::snapshot::render::quote;
use sightline_core::urls::redact_url;

use sightline_core::dialogs::OpenDialog;

use super::{ToolResult, actions, target_tab};
use crate::cdp::Subscription;
use crate::chrome;
use crate::error::ToolError;
use crate::options::Options;
use crate::state::{Custody, Reach};
use crate::tabs::Grant;
use futures::future::Either;
use sightline_core::custody::Access;

/// How long a closing tab may take to ask whether it may be left.
const LEAVE_QUESTION_MS: u32 = 10_000;

/// `browser_tabs`.
pub async fn run(reach: &Reach<'_>, session: &str, params: TabsParams) -> ToolResult {
    match params.action {
        TabsAction::List => list(reach, session).await,
        TabsAction::New => {
            let tab = open_tab(&reach.custody, session).await?;
            match params.url {
                Some(url) => {
                    let mut out = actions::load(reach, session, tab, &url).await?;
                    out.text = format!("Opened tab {tab}.\n{}", out.text);
                    Ok(out)
                }
                None => list(reach, session).await,
            }
        }
        TabsAction::Select => {
            let tab = params.tab.ok_or(ToolError::Arguments("select needs `tab` (an id from browser_tabs list)"))?;
            let tab = target_tab(&reach.custody, session, Some(tab), false).await?;
            chrome::activate_tab(tab).await?;
            list(reach, session).await
        }
        TabsAction::Close => {
            let tab = target_tab(&reach.custody, session, params.tab, false).await?;
            // A page that asks before it is left ("leave this page?") stays open until the
            // question is answered: the answer is the question, as for browser_navigate.
            // The browser's removal waits for that answer; a tab that closes ends the wait for
            // a question at once (its debugger leaves).
            let mut dialogs = Subscription::new(&reach.custody.tabs.hub, tab, &["Page.javascriptDialogOpening"]);
            let remove = std::pin::pin!(chrome::remove_tab(tab));
            let asked = std::pin::pin!(dialogs.next_where(LEAVE_QUESTION_MS, |e| e.session_id.is_none()));
            match futures::future::select(remove, asked).await {
                Either::Left((removed, _)) => removed?,
                Either::Right((Some(event), remove)) => match OpenDialog::from_event(&event.params) {
                    Some(dialog) => return Ok(actions::dialog_opened(dialog.opened_by("browser_tabs close"))),
                    None => remove.await?,
                },
                Either::Right((None, remove)) => remove.await?,
            }
            reach.custody.tab_closed(tab, Some(session)).await;
            // The browser may have reported the close before the removal answered: the session
            // closed its own tab and needs no telling.
            reach.custody.sessions.with_session(session, |s| s.lost = s.lost.filter(|(lost, _)| *lost != tab));
            list(reach, session).await
        }
    }
}

/// Opens a blank tab owned by this session and makes it the session's current tab (unless the
/// user stopped Sightline).
pub async fn open_tab(custody: &Custody<'_>, session: &str) -> Result<i32, ToolError> {
    custody.tabs.require_not_stopped()?;
    let tab = chrome::create_tab("about:blank", true).await?;
    let id = tab.id.ok_or(ToolError::Unexpected { what: "a new tab", message: "it has no id".into() })?;
    custody.grant(id, Grant::Created, Some(session)).await;
    custody.sessions.with_session(session, |s| s.current_tab = Some(id));
    Ok(id)
}

async fn list(reach: &Reach<'_>, session: &str) -> ToolResult {
    let controlled: Vec<(i32, Grant)> =
        reach.custody.tabs.registry.borrow().grants.tabs.iter().map(|(t, g)| (*t, *g)).collect();
    let policy = Options::for_call(reach.asks).url_policy();
    let current = reach.custody.sessions.with_session(session, |s| s.current_tab);
    let mut text = String::new();
    let mut rows = Vec::new();
    for (tab, grant) in controlled {
        let Ok(info) = chrome::get_tab(tab).await else {
            reach.custody.tab_closed(tab, None).await;
            continue;
        };
        let marker = if current == Some(tab) { " (current)" } else { "" };
        let access = reach.custody.tabs.registry.borrow().grants.access(tab, session);
        let how = match (grant, access) {
            // Another agent's tab: that it exists, nothing of what it shows.
            (_, Access::Another) => {
                text.push_str(&format!("- tab {tab} [in use by another agent]\n"));
                rows.push(serde_json::json!({"tab": tab, "current": false, "grant": "in use by another agent",
                    "usable": false}));
                continue;
            }
            (Grant::Shared, Access::Held) => "shared by user, yours",
            (Grant::Shared, Access::Free) => "shared by user",
            (Grant::Created, Access::Held) => "opened by you",
            (Grant::Created, Access::Free) => "opened by an agent that left",
        };
        let title = info.title.unwrap_or_default();
        let raw_url = info.url.unwrap_or_default();
        // A page the agent may not act on (a browser page, a source view) can still be left.
        let usable = raw_url.is_empty() || policy.allows(&raw_url);
        let url = redact_url(&raw_url);
        let note = if usable { "" } else { " (cannot be acted on here: navigate it to a web page, or close it)" };
        text.push_str(&format!("- tab {tab}{marker} [{how}] {} {url}{note}\n", quote(&title)));
        rows.push(serde_json::json!({"tab": tab, "current": current == Some(tab), "title": title, "url": url,
            "grant": how, "usable": usable}));
    }
    if rows.is_empty() {
        text.push_str("No tabs yet. Open one with browser_tabs new (or browser_navigate with a url), or ask the user to share a tab with the Sightline toolbar button.\n");
    }
    Ok(ToolOutput { text, structured: Some(serde_json::json!({"tabs": rows})), ..ToolOutput::default() })
}
