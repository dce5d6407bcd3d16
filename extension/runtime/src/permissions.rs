//! The person's site permissions applied to each call: the rules are read from
//! `chrome.storage.local` ([`POLICY_KEY`]) as the call reaches its tab, the facts of what the
//! action would do are gathered from the page through the debugger (in an isolated world, where
//! the page's own scripts cannot redefine what is read), `sightline_core::permissions` decides,
//! and when it says ask, the person is asked in a window of the extension's own
//! ([`crate::question`]). A refused or denied action is not run, and its answer says so.

use sightline_core::permissions::classes::{ActionFacts, ElementFacts, classify, host_of};
use sightline_core::permissions::{ActionClass, Decision, Level, Policy, decide};
use sightline_core::refs::NodeKey;

use crate::chrome;
use crate::error::ToolError;
use crate::input::{self, NodeTarget};
use crate::question::{self, Answered};
use crate::state::{Reach, Sessions, TabsState, TimelineState};
use crate::tools::{CallContext, Failure};

/// `chrome.storage.local` key of the person's rules (`sightline_core::permissions::Policy` as
/// JSON). Absent: ask before consequential actions everywhere.
pub const POLICY_KEY: &str = "sightline.permissions";

/// The person's rules as stored now; rules that cannot be read count as the default (ask
/// everywhere), never as looser ones.
pub async fn read_policy() -> Policy {
    match chrome::local_storage_get::<serde_json::Value>(POLICY_KEY).await {
        Ok(Some(value)) => match serde_json::from_value::<Policy>(value).map_err(|e| e.to_string()) {
            Ok(policy) => policy.validated().unwrap_or_else(|e| {
                chrome::warn(&format!("Sightline ignores its stored site permissions: {e}"));
                Policy::default()
            }),
            Err(e) => {
                chrome::warn(&format!("Sightline ignores its stored site permissions: {e}"));
                Policy::default()
            }
        },
        Ok(None) => Policy::default(),
        Err(e) => {
            chrome::warn(&format!("Sightline could not read its site permissions: {e}"));
            Policy::default()
        }
    }
}

/// The host a URL's rules are looked up by (empty for a page of no host).
pub fn host(url: &str) -> String {
    host_of(url).unwrap_or_default()
}

/// The host of the page `tab` shows now.
pub async fn tab_host(tab: i32) -> String {
    chrome::get_tab(tab).await.ok().and_then(|t| t.url).map(|u| host(&u)).unwrap_or_default()
}

/// Refuses every call on `tab` while it shows a site the person gave agents no access to: it
/// may not be read, acted on or moved.
pub async fn refuse_no_access(tab: i32) -> Result<(), ToolError> {
    let host = tab_host(tab).await;
    let policy = read_policy().await;
    if policy.level_for(&host) != Level::NoAccess {
        return Ok(());
    }
    let decision = decide(&policy, &host, &[ActionClass::Read], &Default::default());
    Err(ToolError::NotPermitted(decision.refusal("the call", &host).unwrap_or_default()))
}

/// What reads of the timeline keep out for the person's no-access rules: the rules, and the
/// controlled tabs showing a site of no access now (their entries that carry no URL of their
/// own are judged by it).
#[derive(Debug, Default, Clone)]
pub struct NoAccessView {
    /// The rules as last read (`None`: not read yet, nothing kept out).
    pub policy: Option<Policy>,
    /// The tabs on a site of no access, with the host each shows.
    pub tabs: std::collections::BTreeMap<u32, String>,
}

/// Reads the rules and the controlled tabs' sites again, for a read of logs or changes: what was
/// recorded on a site of no access (by the URL an entry carries, else by its tab's site now) is
/// not given out. The tabs are looked up side by side, and only when some rule refuses a site.
pub async fn hide_no_access(tabs: &TabsState, timeline: &TimelineState) {
    let policy = read_policy().await;
    let mut hidden = std::collections::BTreeMap::new();
    if policy.refuses_some_site() {
        let controlled: Vec<i32> = tabs.registry.borrow().grants.tabs.keys().copied().collect();
        let hosts = futures::future::join_all(controlled.iter().map(|&tab| tab_host(tab))).await;
        for (tab, host) in controlled.into_iter().zip(hosts) {
            if policy.level_for(&host) == Level::NoAccess
                && let Ok(tab) = u32::try_from(tab)
            {
                hidden.insert(tab, host);
            }
        }
    }
    *timeline.no_access.borrow_mut() = NoAccessView { policy: Some(policy), tabs: hidden };
    timeline.sync_readable_tabs(tabs);
}

/// For a read of logs or changes naming `tab`, after [`hide_no_access`]: refused, as
/// [`refuse_no_access`] would, when the tab shows a site of no access (read from the view, not
/// from the browser and the storage again).
pub fn refuse_hidden(timeline: &TimelineState, tab: i32) -> Result<(), ToolError> {
    let view = timeline.no_access.borrow();
    let (Some(policy), Some(host)) = (&view.policy, u32::try_from(tab).ok().and_then(|t| view.tabs.get(&t))) else {
        return Ok(());
    };
    let decision = decide(policy, host, &[ActionClass::Read], &Default::default());
    Err(ToolError::NotPermitted(decision.refusal("the call", host).unwrap_or_default()))
}

/// What the call told the gate before it acts: the element it acts on, a key it presses,
/// whether it presses Enter after typing.
#[derive(Debug, Default, Clone)]
pub struct Hint {
    /// The element the action lands on.
    pub node: Option<NodeKey>,
    /// The key pressed (`browser_press_key`).
    pub key: Option<String>,
    /// Whether Enter follows the typing (`browser_type` with `submit`).
    pub enter: bool,
    /// The viewport point a click without a ref lands on (`browser_mouse_click_xy`).
    pub point: Option<(f64, f64)>,
}

/// Decides whether `tool` may act on `tab` now, asking the person when the rules say so.
/// `Ok(Some(note))`: it runs, and its answer starts with `note` (who allowed it); `Ok(None)`: it
/// runs; `Err`: it was not run, and the error says why and that nothing was done.
pub async fn gate(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    tool: &'static str,
    ctx: &CallContext,
) -> Result<Option<String>, Failure> {
    let hint = ctx.hint.borrow().clone();
    let host = tab_host(tab).await;
    let policy = read_policy().await;
    // Where everything runs freely there is nothing to judge: no element is read.
    if policy.allows_everything_on(&host) {
        return Ok(None);
    }
    // An action without a ref is judged by what it would reach: the element under a click's
    // point, hit-tested as a click is; the element with the focus, for a key.
    let node = match (&hint.node, hint.point) {
        (Some(node), _) => Some(node.clone()),
        (None, Some((x, y))) => input::node_at_point(reach.custody.tabs, tab, x, y).await,
        (None, None) if tool == "browser_press_key" => focused_node(reach.custody.tabs, tab).await,
        (None, None) => None,
    };
    let element = match &node {
        Some(node) => element_facts(reach.custody.tabs, tab, node).await,
        None => None,
    };
    let label = element.as_ref().map(|(_, label)| label.clone()).unwrap_or_default();
    let element = element.map(|(facts, _)| facts);
    let facts = match tool {
        "browser_click" | "browser_mouse_click_xy" => ActionFacts::Click { element, site: Some(host.clone()) },
        "browser_type" => ActionFacts::Type { element, enter: hint.enter },
        "browser_press_key" => ActionFacts::Key { element, key: hint.key.clone().unwrap_or_default() },
        "browser_file_upload" => ActionFacts::Upload,
        "browser_evaluate" => ActionFacts::Evaluate,
        _ => ActionFacts::Gentle { element },
    };
    let classes = classify(&facts);
    let words = action_words(tool, &label, &hint, &classes, &host);
    let allowed = judge(reach, session, &policy, tab, tool, &host, &classes, words, node.as_ref(), ctx).await?;
    ctx.download_allowed.set(classes.contains(&ActionClass::Download));
    Ok(allowed)
}

/// Decides whether `browser_navigate` (or a new tab) may load `url` in `tab`: never a site of
/// no access, and leaving for another site as the current site's rule says.
pub async fn gate_navigation(
    reach: &Reach<'_>,
    session: &str,
    tab: Option<i32>,
    url: &str,
    ctx: Option<&CallContext>,
) -> Result<Option<String>, Failure> {
    let policy = read_policy().await;
    let to = host(url);
    if policy.level_for(&to) == Level::NoAccess {
        let decision = decide(&policy, &to, &[ActionClass::Read], &Default::default());
        return Err(Failure::Explained(decision.refusal("browser_navigate", &to).unwrap_or_default()));
    }
    let (Some(tab), Some(ctx)) = (tab, ctx) else { return Ok(None) };
    let from = tab_host(tab).await;
    let facts = ActionFacts::Navigate { from: (!from.is_empty()).then(|| from.clone()), to: Some(to.clone()) };
    let classes: Vec<ActionClass> = classify(&facts).into_iter().filter(|c| *c != ActionClass::Read).collect();
    if classes.is_empty() {
        return Ok(None);
    }
    let words = format!("go from {from} to {to} (leave for another site)");
    judge(reach, session, &policy, tab, "browser_navigate", &from, &classes, words, None, ctx).await
}

#[allow(clippy::too_many_arguments)]
async fn judge(
    reach: &Reach<'_>,
    session: &str,
    policy: &Policy,
    tab: i32,
    tool: &'static str,
    host: &str,
    classes: &[ActionClass],
    words: String,
    node: Option<&NodeKey>,
    ctx: &CallContext,
) -> Result<Option<String>, Failure> {
    let grants = reach.custody.sessions.with_session(session, |s| s.permission_grants.clone());
    match decide(policy, host, classes, &grants) {
        Decision::Allow => Ok(None),
        refused @ Decision::Refuse { .. } => Err(Failure::Explained(refused.refusal(tool, host).unwrap_or_default())),
        Decision::Ask { class } => {
            let asked = question::Asked { tab, host: host.to_owned(), class, words, tool };
            let wait_ms = u64::from(policy.answer_seconds) * 1000;
            let outcome = question::ask(reach, session, asked.clone(), node, wait_ms, ctx).await;
            match outcome.answered {
                Answered::AllowOnce | Answered::AllowSession => Ok(Some(outcome.note())),
                _ => Err(Failure::Explained(outcome.note())),
            }
        }
    }
}

/// Decides a download an agent's action started, as the *download* class on the site of the
/// tab the action acts on: it proceeds (`Ok`), or it is refused or denied (`Err`, what the
/// action's answer says). When the rules say ask, the person is asked in the browser, for at
/// most their answer time; the browser holds the download meanwhile. A download whose action
/// the rules already let through as a download (a link with `download`) is not asked again.
pub async fn gate_download(reach: &Reach<'_>, claim: &sightline_core::downloads::claims::Claim) -> Result<(), String> {
    if claim.allowed_already {
        return Ok(());
    }
    let host = tab_host(claim.tab).await;
    let not_saved = |why: String| format!("a download of {} from {} was not saved: {why}", claim.file_name, claim.site);
    let policy = read_policy().await;
    let grants = reach.custody.sessions.with_session(&claim.session, |s| s.permission_grants.clone());
    let classes = [ActionClass::Download];
    match decide(&policy, &host, &classes, &grants) {
        Decision::Allow => Ok(()),
        refused @ Decision::Refuse { .. } => Err(not_saved(refused.refusal("the download", &host).unwrap_or_default())),
        Decision::Ask { class } => {
            let on = if host.is_empty() { "this page".to_owned() } else { host.clone() };
            let words = format!("download \"{}\" from {} ({}) on {on}", claim.file_name, claim.site, class.words());
            let asked = question::Asked { tab: claim.tab, host: host.clone(), class, words, tool: "browser_download" };
            let wait_ms = u64::from(policy.answer_seconds) * 1000;
            let waiting = format!(
                "a download of {} from {} waits for the person's answer in the browser (browser_downloads lists it \
                 once they allow it)",
                claim.file_name, claim.site
            );
            reach.asks.downloads.borrow_mut().note(claim, waiting);
            // The question is the download's own, not bound to the action's call, which may
            // have answered already: it waits the person's time, and a little to act after.
            let ctx = CallContext::new("browser_download", wait_ms + 5_000);
            let outcome = question::ask(reach, &claim.session, asked, None, wait_ms, &ctx).await;
            match outcome.answered {
                Answered::AllowOnce | Answered::AllowSession => Ok(()),
                _ => Err(not_saved(outcome.note())),
            }
        }
    }
}

/// The action in the person's words: `click "Place order" (submit) on shop.example`.
fn action_words(tool: &str, label: &str, hint: &Hint, classes: &[ActionClass], host: &str) -> String {
    let verb = match tool {
        "browser_click" | "browser_mouse_click_xy" => "click".to_owned(),
        "browser_type" if hint.enter => "type into and press Enter in".to_owned(),
        "browser_type" => "type into".to_owned(),
        "browser_press_key" => format!("press {}", hint.key.as_deref().unwrap_or("a key")),
        "browser_file_upload" => "upload files".to_owned(),
        "browser_evaluate" => "run a script".to_owned(),
        other => other.trim_start_matches("browser_").replace('_', " "),
    };
    let label: String = label.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(80).collect();
    let what = if label.is_empty() { String::new() } else { format!(" \"{label}\"") };
    let on = if host.is_empty() { "this page".to_owned() } else { host.to_owned() };
    format!("{verb}{what} ({}) on {on}", ActionClass::headline(classes).words())
}

/// Reads, in an isolated world, what the element an action lands on would do: its tag and type,
/// its form and that form's fields, the link around it; and the words on it.
const ELEMENT_FACTS: &str = r#"function () {
  const field = (el) => {
    const names = [];
    for (const a of ['name', 'id', 'aria-label', 'placeholder']) {
      const v = el.getAttribute && el.getAttribute(a);
      if (v) names.push(v);
    }
    if (el.labels) for (const l of el.labels) names.push((l.textContent || '').trim().slice(0, 80));
    const type = typeof el.type === 'string' ? el.type : '';
    const autocomplete = (el.getAttribute && el.getAttribute('autocomplete')) || '';
    return { type, autocomplete, names };
  };
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  const control = el.closest('button, input, select, textarea') || el;
  const link = el.closest('a[href], area[href]');
  const form = control.form || control.closest('form');
  const form_fields = form ? Array.from(form.elements).slice(0, 200).map(field) : [];
  const label = (control.getAttribute('aria-label') || control.innerText || control.value || (link && link.innerText) || '').toString().slice(0, 200);
  return {
    facts: { tag: control.localName, field: field(control), in_form: !!form, form_fields,
             href: link ? link.href : null, download: !!(link && link.hasAttribute('download')) },
    label,
  };
}"#;

/// The element with the focus in `tab`'s page, as its isolated world sees it (a frame element
/// when the focus is inside a frame); `None` when it cannot be told.
async fn focused_node(tabs: &TabsState, tab: i32) -> Option<NodeKey> {
    #[derive(serde::Deserialize)]
    struct Evaluated {
        result: Object,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Object {
        #[serde(default)]
        object_id: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Described {
        node: DescribedNode,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct DescribedNode {
        backend_node_id: i64,
    }
    let main = tabs.registry.borrow().frames(tab).main_frame().to_owned();
    let top = NodeTarget::frame(crate::chrome::DebuggeeTarget::main(tab), main.clone());
    let context = top.isolated_context().await.ok()?;
    let params = serde_json::json!({"expression": "document.activeElement || document.body", "contextId": context});
    let object_id = top.send::<Evaluated>("Runtime.evaluate", params).await.ok()?.result.object_id?;
    let described = top.send::<Described>("DOM.describeNode", serde_json::json!({"objectId": object_id})).await;
    input::release(&top, &object_id).await;
    let backend_node_id = described.ok()?.node.backend_node_id;
    Some(NodeKey { frame_id: main, loader_id: String::new(), backend_node_id })
}

/// The facts of `node` and the words on it; `None` when they cannot be read (the action is then
/// judged as strictly as its tool allows).
async fn element_facts(tabs: &TabsState, tab: i32, node: &NodeKey) -> Option<(ElementFacts, String)> {
    let at = NodeTarget::of(tabs, tab, node);
    let value = input::call_on_with(&at, node, "", ELEMENT_FACTS, serde_json::json!([])).await.ok()?;
    let facts = serde_json::from_value::<ElementFacts>(value.get("facts")?.clone()).ok()?;
    let label = value.get("label").and_then(|l| l.as_str()).unwrap_or_default().to_owned();
    Some((facts, label))
}

/// `browser_permissions`: what the person lets the agent do on a tab's site (its current tab by
/// default), read even for a site of no access, so the agent can plan instead of being refused.
pub async fn tool(
    tabs: &TabsState,
    sessions: &Sessions,
    session: &str,
    params: sightline_core::protocol::PermissionsParams,
) -> Result<sightline_core::protocol::ToolOutput, ToolError> {
    let tab = match params.tab {
        Some(tab) => {
            tabs.require_usable(tab as i32, session)?;
            Some(tab as i32)
        }
        None => sessions.with_session(session, |s| s.current_tab),
    };
    let policy = read_policy().await;
    let grants = sessions.with_session(session, |s| s.permission_grants.clone());
    let text = match tab {
        Some(tab) => {
            let host = tab_host(tab).await;
            format!("Tab {tab}. {}", sightline_core::permissions::summary(&policy, &host, &grants))
        }
        None => format!(
            "You have no current tab; name one with `tab`. Elsewhere: {}",
            sightline_core::permissions::summary(&policy, "", &grants)
        ),
    };
    Ok(sightline_core::protocol::ToolOutput::text(text))
}
