//! What the extension's own pages (the Sightline panel, the popup, the options page) ask of the
//! runtime through `chrome.runtime` messaging: a tab's calls and status, the human diff of two
//! versions, stopping the agent on a tab, sharing a tab, highlighting a ref in the page,
//! exporting a tab's session, the bounds of the history and log sizes, and forgetting the
//! recorded calls. The service worker hands each message to
//! [`crate::Runtime::handle_page_message`]; the answers are plain JSON for the pages to draw.
//!
//! Every call an agent makes is recorded here too ([`record_call`]), into the core's
//! [`SessionLog`](sightline_core::review::SessionLog).

use std::rc::Rc;

use serde::Deserialize;
use serde_json::{Value, json};
use sightline_core::changes::NoiseRules;
use sightline_core::protocol::{ToolCall, ToolOutput};
use sightline_core::review::{
    ActionTarget, Finished, SessionExport, ShotPair, SpecRange, lane_events, playwright_spec, session_markdown,
    session_replay, targets_of,
};
use sightline_core::snapshot::element::MASK;

use crate::input::NodeTarget;
use crate::state::{Custody, ReviewState, Sessions, State, TabsState, TimelineState};
use crate::tabs::Grant;
use crate::{chrome, selection};
use sightline_core::tab_refs::TabLoss;

/// Lines of unchanged context kept around each change in a review.
const REVIEW_CONTEXT: usize = 2;

/// A message from an extension page.
#[derive(Debug, Deserialize)]
#[serde(tag = "panel", rename_all = "snake_case")]
pub enum PageMessage {
    /// Everything the panel draws for a tab.
    Model {
        /// The tab.
        tab: i32,
    },
    /// The human diff between two held versions of a session's view of a tab.
    Review {
        /// The tab.
        tab: i32,
        /// The MCP session whose view it is (default: the last one that called on the tab).
        #[serde(default)]
        session: Option<String>,
        /// Older version.
        from: u64,
        /// Newer version.
        to: u64,
    },
    /// Stops the agent on a tab: revokes its grant and detaches the debugger.
    Stop {
        /// The tab.
        tab: i32,
    },
    /// Shares a tab with the agent (the toolbar button's share).
    Share {
        /// The tab.
        tab: i32,
    },
    /// Hands a tab to another connected agent (MCP session).
    HandOver {
        /// The tab.
        tab: i32,
        /// The MCP session to hand it to.
        to: String,
    },
    /// Outlines the element behind a ref in the page.
    Highlight {
        /// The tab.
        tab: i32,
        /// The session whose ref it is (default: the last one that called on the tab).
        #[serde(default)]
        session: Option<String>,
        /// The ref (`e12`).
        #[serde(rename = "ref")]
        element_ref: String,
    },
    /// Removes the outline.
    Unhighlight {
        /// The tab.
        tab: i32,
    },
    /// Connection, tabs and sessions, for the popup.
    Status {
        /// The tab the popup was opened on.
        #[serde(default)]
        tab: Option<i32>,
    },
    /// The built-in noise rules, for the options page.
    NoiseDefaults,
    /// Checks site permissions the person edited or imports (JSON text), for the options page:
    /// answers the rules as they will be stored, or what is wrong with them.
    CheckPermissions {
        /// The rules, as JSON text.
        json: String,
    },
    /// What agents may do on a tab's site, for the popup.
    PermissionsFor {
        /// The tab.
        tab: i32,
    },
    /// The bounds and defaults of the history and log sizes, for the options page.
    SizeBounds,
    /// Forgets every recorded call (tools, arguments, answers) and every recorded console
    /// message, request, WebSocket event and action.
    Forget,
    /// The node selected in DevTools' Elements panel, put under `globalThis[key]` in the page.
    Selected {
        /// The tab.
        tab: i32,
        /// The one-time global name.
        key: String,
    },
    /// Puts the node behind a ref under `globalThis[key]`, for DevTools to reveal.
    Reveal {
        /// The tab.
        tab: i32,
        /// The session whose ref it is (default: the last one that called on the tab).
        #[serde(default)]
        session: Option<String>,
        /// The ref (`e12`).
        #[serde(rename = "ref")]
        element_ref: String,
        /// The one-time global name.
        key: String,
    },
    /// The screenshots before and after a call.
    Shots {
        /// The tab.
        tab: i32,
        /// The call's number on the tab.
        seq: u64,
    },
    /// The page as the session last saw it, in sections by region.
    View {
        /// The tab.
        tab: i32,
        /// The MCP session whose view it is (default: the last one that called on the tab).
        #[serde(default)]
        session: Option<String>,
    },
    /// Lets the person pick a node on the page for the agent.
    Pick {
        /// The tab.
        tab: i32,
    },
    /// The session on a tab as a file for a bug report.
    Export {
        /// The tab.
        tab: i32,
        /// `json` or `markdown`.
        format: ExportFormat,
    },
}

/// What an export is written as.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// The export's JSON, indented.
    Json,
    /// A Markdown report.
    Markdown,
    /// A Playwright Test spec that does the agent's actions again.
    Playwright,
    /// One self-contained HTML file: the timeline, answers, diffs, screenshots and events.
    Replay,
}

/// What the service worker knows of the native host's port.
#[derive(Debug, Default, Deserialize)]
pub struct HostLink {
    /// The port is open.
    #[serde(default)]
    pub connected: bool,
    /// Why it last closed, if it did.
    #[serde(default)]
    pub error: Option<String>,
}

/// Answers one page message.
pub async fn answer(state: &Rc<State>, message: PageMessage, host: HostLink) -> Value {
    state.custody().load_grants().await;
    match message {
        PageMessage::Model { tab } => {
            crate::shots::panel_looked(&state.review, tab);
            model(&state.custody(), &state.review, tab).await
        }
        PageMessage::Review { tab, session, from, to } => {
            let Some(session) = session.or_else(|| last_session(&state.review, tab)) else {
                return json!({"error": "no agent has looked at this tab yet"});
            };
            let rows = state
                .sessions
                .with_session(&session, |s| s.pages.get(&tab).and_then(|p| p.review(from, to, REVIEW_CONTEXT)));
            match rows {
                Some(rows) => json!({"session": session, "from": from, "to": to, "rows": rows}),
                None => json!({"error": format!("v{from} or v{to} is no longer held for this tab")}),
            }
        }
        PageMessage::Stop { tab } => {
            let controlled = state.tabs.registry.borrow().is_controlled(tab);
            state
                .custody()
                .revoke(
                    tab,
                    Some("the user stopped the agent on this tab from the Sightline panel".into()),
                    TabLoss::Stopped,
                )
                .await;
            let _ = chrome::detach(tab).await;
            json!({"stopped": controlled})
        }
        PageMessage::Share { tab } => {
            state.custody().grant(tab, Grant::Shared, None).await;
            let attached = state.tabs.ensure_attached(tab).await;
            // Shared even when the debugger cannot attach yet (a page the browser shuts
            // extensions out of): the agent may navigate it away, as from the toolbar.
            json!({"shared": true, "note": attached.err().map(|e| e.to_string())})
        }
        PageMessage::HandOver { tab, to } => {
            let title = chrome::get_tab(tab).await.ok().and_then(|t| t.title).unwrap_or_default();
            match state.custody().hand_over(tab, &to, &title).await {
                Ok(()) => json!({"handed": true, "status": grant_of(&state.tabs, &state.sessions, tab)}),
                Err(why) => json!({"error": why}),
            }
        }
        PageMessage::Highlight { tab, session, element_ref } => {
            highlight(&state.tabs, &state.sessions, &state.review, tab, session, &element_ref).await
        }
        PageMessage::Unhighlight { tab } => {
            let target = chrome::DebuggeeTarget::main(tab);
            for method in ["Overlay.hideHighlight", "Overlay.disable", "DOM.disable"] {
                let _ = chrome::send_command(&target, method, &json!({})).await;
            }
            json!({"ok": true})
        }
        PageMessage::Status { tab } => status(&state.tabs, &state.sessions, &state.version, tab, host).await,
        PageMessage::NoiseDefaults => json!({"rules": NoiseRules::default().rules()}),
        PageMessage::SizeBounds => json!({"bounds": sightline_core::sizes::BOUNDS}),
        PageMessage::CheckPermissions { json } => match sightline_core::permissions::Policy::from_json(&json) {
            Ok(policy) => json!({"policy": policy}),
            Err(e) => json!({"invalid": e.to_string()}),
        },
        PageMessage::PermissionsFor { tab } => {
            let host = crate::permissions::tab_host(tab).await;
            let policy = crate::permissions::read_policy().await;
            let rule = policy.rule_for(&host).cloned();
            json!({
                "host": host,
                "level": policy.level_for(&host),
                "level_words": policy.level_for(&host).words(),
                "rule": rule,
                "policy": policy,
            })
        }
        PageMessage::Forget => {
            state.review.session_log.borrow_mut().clear();
            state.review.shots.borrow_mut().clear();
            // The panel's lanes too: every console message, request, socket event and action.
            state.timeline.load_timeline().await;
            let events = state.timeline.with_timeline(|t| t.forget_entries());
            crate::timeline::save_soon(&state.timeline);
            json!({"forgotten": true, "events": events})
        }
        PageMessage::Export { tab, format } => {
            export(&state.review, &state.timeline, &state.version, tab, format).await
        }
        PageMessage::Selected { tab, key } => selection::from_elements_panel(&state.tabs, tab, &key).await,
        PageMessage::Pick { tab } => selection::pick(&state.tabs, tab).await,
        PageMessage::Shots { tab, seq } => match state.review.shots.borrow().get(tab, seq) {
            Some(pair) => json!(pair),
            None => json!({"error": format!("no screenshots of call #{seq} are kept")}),
        },
        PageMessage::View { tab, session } => {
            let Some(session) = session.or_else(|| last_session(&state.review, tab)) else {
                return json!({"error": "no agent has looked at this tab yet"});
            };
            let view = state.sessions.with_session(&session, |s| {
                s.pages.get(&tab).and_then(sightline_core::page_state::PageState::current_view)
            });
            match view {
                Some(view) => json!({"session": session, "view": view}),
                None => json!({"error": "this agent has not read the page on this tab yet"}),
            }
        }
        PageMessage::Reveal { tab, session, element_ref, key } => {
            match session.or_else(|| last_session(&state.review, tab)) {
                Some(session) => {
                    selection::reveal(&state.tabs, &state.sessions, tab, &session, &element_ref, &key).await
                }
                None => json!({"error": "no agent has looked at this tab yet"}),
            }
        }
    }
}

/// The tab's console, network, WebSocket and user events for the panel's lanes.
async fn events(timeline: &Rc<TimelineState>, tab: i32) -> Vec<sightline_core::review::LaneEvent> {
    timeline.load_timeline().await;
    let Ok(tab) = u32::try_from(tab) else { return Vec::new() };
    timeline.with_timeline(|t| lane_events(t, tab))
}

async fn export(
    review: &ReviewState,
    timeline: &Rc<TimelineState>,
    version: &str,
    tab: i32,
    format: ExportFormat,
) -> Value {
    let model = review.session_log.borrow().model(tab);
    let events = events(timeline, tab).await;
    let page = chrome::get_tab(tab).await.ok();
    let page = page.map_or((None, None), |p| (p.title, p.url.as_deref().map(sightline_core::urls::redact_url)));
    let export = SessionExport::new(model, events, page, version, crate::timer::epoch_ms());
    let (file_name, mime, text) = match format {
        ExportFormat::Json => {
            (export.file_name("json"), "application/json", serde_json::to_string_pretty(&export).unwrap_or_default())
        }
        ExportFormat::Markdown => (export.file_name("md"), "text/markdown", session_markdown(&export)),
        ExportFormat::Playwright => match playwright_spec(&export, SpecRange::default()) {
            Ok(spec) => (export.file_name("spec.ts"), "text/typescript", spec),
            Err(why) => return json!({"error": why}),
        },
        ExportFormat::Replay => {
            let shots: Vec<ShotPair> =
                export.calls.iter().filter_map(|c| review.shots.borrow().get(tab, c.seq).cloned()).collect();
            (export.file_name("html"), "text/html", session_replay(&export, &shots))
        }
    };
    json!({"file_name": file_name, "mime": mime, "text": text})
}

/// The session that last called on `tab`.
fn last_session(review: &ReviewState, tab: i32) -> Option<String> {
    review.session_log.borrow().model(tab).calls.last().map(|c| c.session.clone())
}

/// How the agent holds `tab`: `shared`, `opened` or `none`, which session holds it (and its
/// client's name), and why it was taken away if it was.
fn grant_of(tabs: &TabsState, sessions: &Sessions, tab: i32) -> Value {
    let tabs = tabs.registry.borrow();
    let grant = match tabs.grants.tabs.get(&tab) {
        Some(Grant::Shared) => "shared",
        Some(Grant::Created) => "opened",
        None => "none",
    };
    json!({
        "grant": grant,
        "held_by": tabs.grants.holders.get(&tab),
        "held_by_client": tabs.grants.holders.get(&tab).and_then(|h| sessions.borrow().get(h).and_then(|s| s.client.clone())),
        "revoked": tabs.grants.revoked.get(&tab),
        "stopped": tabs.grants.stopped,
    })
}

async fn model(custody: &Custody<'_>, review: &ReviewState, tab: i32) -> Value {
    let model = review.session_log.borrow().model(tab);
    let versions: serde_json::Map<String, Value> = custody
        .sessions
        .borrow()
        .iter()
        .filter_map(|(id, s)| s.pages.get(&tab).map(|p| (id.clone(), json!(p.held_versions()))))
        .collect();
    let clients: serde_json::Map<String, Value> =
        custody.sessions.borrow().iter().map(|(id, s)| (id.clone(), json!(s.client))).collect();
    let page = chrome::get_tab(tab).await.ok();
    json!({
        "model": model,
        "events": events(custody.timeline, tab).await,
        "picking": custody.tabs.picking.borrow().contains(&tab),
        "shots": review.shots.borrow().seqs(tab),
        "selection": custody.tabs.selections.borrow().get(&tab).map(|s| json!({"node": s.node, "by": s.by, "at_ms": s.at_ms})),
        "status": grant_of(custody.tabs, custody.sessions, tab),
        "versions": versions,
        "clients": clients,
        "page": page.map(|p| json!({"title": p.title, "url": p.url.as_deref().map(sightline_core::urls::redact_url)})),
    })
}

async fn status(tabs: &TabsState, sessions: &Sessions, version: &str, tab: Option<i32>, host: HostLink) -> Value {
    let listed: Vec<Value> = sessions
        .borrow()
        .iter()
        .map(|(id, s)| json!({"id": id, "client": s.client, "current_tab": s.current_tab, "tabs": s.pages.keys().collect::<Vec<_>>()}))
        .collect();
    let controlled: Vec<Value> = {
        let tabs = tabs.registry.borrow();
        tabs.grants
            .tabs
            .iter()
            .map(|(t, g)| json!({"tab": t, "grant": g, "held_by": tabs.grants.holders.get(t)}))
            .collect()
    };
    json!({
        "version": version,
        "protocol": sightline_core::protocol::WIRE_PROTOCOL,
        "host": {"connected": host.connected, "error": host.error},
        "sessions": listed,
        "tabs": controlled,
        "tab": tab.map(|t| grant_of(tabs, sessions, t)),
    })
}

async fn highlight(
    tabs: &TabsState,
    sessions: &Sessions,
    review: &ReviewState,
    tab: i32,
    session: Option<String>,
    element_ref: &str,
) -> Value {
    let Some(session) = session.or_else(|| last_session(review, tab)) else {
        return json!({"error": "no agent has looked at this tab yet"});
    };
    let node = match crate::tools::resolve_ref(tabs, sessions, &session, tab, element_ref) {
        Ok(node) => node,
        Err(e) => return json!({"error": e.to_string()}),
    };
    let at = NodeTarget::of(tabs, tab, &node);
    // The overlay needs the DOM domain; both are turned off again when the outline goes.
    for method in ["DOM.enable", "Overlay.enable"] {
        if let Err(e) = chrome::send_command(&at.target, method, &json!({})).await {
            return json!({"error": format!("the page cannot be outlined ({method}: {e})")});
        }
    }
    let config = json!({
        "showInfo": true,
        "contentColor": {"r": 111, "g": 168, "b": 220, "a": 0.45},
        "borderColor": {"r": 40, "g": 100, "b": 200, "a": 0.9},
    });
    let params = json!({"backendNodeId": node.backend_node_id, "highlightConfig": config});
    match chrome::send_command(&at.target, "Overlay.highlightNode", &params).await {
        Ok(_) => json!({"ok": true}),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// What a call found before it ran, for [`record_call`].
pub struct Before {
    tab: Option<i32>,
    /// The elements the call aims at, in the page the session has before it.
    targets: Vec<ActionTarget>,
    version: Option<u64>,
    started_ms: f64,
}

/// Notes the tab and version a call starts from.
pub fn before_call(sessions: &Sessions, session: &str, call: &ToolCall) -> Before {
    let tab = call.tab().map(|t| t as i32).or_else(|| sessions.with_session(session, |s| s.current_tab));
    let version = tab.and_then(|t| sessions.with_session(session, |s| s.pages.get(&t).map(|p| p.version())));
    let targets = tab
        .and_then(|t| {
            sessions.with_session(session, |s| {
                s.pages.get(&t).and_then(|p| p.snapshot()).map(|snap| targets_of(snap, call))
            })
        })
        .unwrap_or_default();
    Before { tab, version: version.filter(|v| *v > 0), targets, started_ms: js_sys::Date::now() }
}

/// Records a call that answered into the tab's log; returns the tab and the call's number there.
pub fn record_call(
    sessions: &Sessions,
    review: &ReviewState,
    session: &str,
    call: &ToolCall,
    before: Before,
    output: &ToolOutput,
) -> Option<(i32, u64)> {
    let tab = sessions.with_session(session, |s| s.current_tab).or(before.tab)?;
    let (version_after, full_page_tokens, typed_secret) = sessions.with_session(session, |s| {
        let page = s.pages.get(&tab);
        let snapshot = page.and_then(|p| p.snapshot());
        let typed_secret = match call {
            ToolCall::BrowserType(p) => snapshot.is_none_or(|snap| typed_into_secret(snap, &p.element_ref)),
            ToolCall::BrowserFillForm(p) => p.fields.iter().any(|f| {
                f.kind == sightline_core::protocol::FieldKind::Textbox
                    && snapshot.is_none_or(|snap| typed_into_secret(snap, &f.element_ref))
            }),
            _ => false,
        };
        (page.map(|p| p.version()).filter(|v| *v > 0), snapshot.map(|snap| snap.stats.estimated_tokens), typed_secret)
    });
    let done = Finished {
        targets: before.targets,
        session,
        call,
        typed_secret,
        started_ms: before.started_ms,
        ended_ms: js_sys::Date::now(),
        version_before: if before.tab == Some(tab) { before.version } else { None },
        version_after,
        full_page_tokens,
        output,
    };
    Some((tab, review.session_log.borrow_mut().record(tab, &done)))
}

/// Whether `element_ref` is (or cannot be shown not to be) a field whose value is secret: its
/// value is masked, or it is a password field.
fn typed_into_secret(snapshot: &sightline_core::snapshot::Snapshot, element_ref: &str) -> bool {
    let number = sightline_core::refs::parse_ref(element_ref).ok();
    let Some(element) = snapshot.elements.iter().find(|e| Some(e.number) == number) else { return true };
    element.facts.value.as_deref() == Some(MASK)
        || element.facts.attrs.iter().any(|(k, v)| *k == "type" && v.eq_ignore_ascii_case("password"))
}
