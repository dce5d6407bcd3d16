//! Which tabs the agent may touch, and the debugger attachment to each.
//!
//! The agent sees and drives only tabs it created or that the user shared with the toolbar
//! button. Tabs the user shared sit in a tab group named "Sightline"; each MCP session's own
//! tabs sit in a group of their own named after its client, removed when the session ends. Each
//! tab is held by one session at most (`sightline_core::custody`): the one that opened it, the
//! first one to use a tab the user shared, or the one the person handed it to; other sessions
//! see it only as in use by another agent. Grants, holders and each session's place (its
//! current tab and where its page states were) are kept in `chrome.storage.session` so a
//! service-worker restart keeps them. When the user cancels the debugging infobar, every grant
//! is revoked and nothing is opened or controlled again until the user shares a tab: the cancel
//! is a stop.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use sightline_core::cdp::page::FrameTreeResult;
use sightline_core::custody::{self, Access, Candidate};
use sightline_core::dialogs::OpenDialog;
use sightline_core::frames::FrameTracker;
use sightline_core::page_state::ResumePoint;
use sightline_core::tab_refs::TabLoss;

use crate::cdp;
use crate::chrome::{self, ChromeError};
use crate::error::ToolError;
use crate::state::{Custody, State, TabsState};

const GRANTS_KEY: &str = "sightline.grants";
/// The group of the tabs the user shared.
const GROUP_TITLE: &str = "Sightline";

/// How the agent came to control a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// The agent opened it.
    Created,
    /// The user shared it with the toolbar button.
    Shared,
}

/// What survives a service-worker restart.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Grants {
    /// Controlled tabs.
    pub tabs: BTreeMap<i32, Grant>,
    /// Why a tab's grant was withdrawn, for a clear error when the agent tries it again.
    #[serde(default)]
    pub revoked: BTreeMap<i32, String>,
    /// The Sightline tab group (of the tabs the user shared) per window.
    #[serde(default)]
    pub groups: BTreeMap<i32, i32>,
    /// The MCP session holding each tab: the one that opened it, the first one to use a tab
    /// the user shared, or the one the person handed it to. A tab missing here is free.
    #[serde(default, alias = "owners")]
    pub holders: BTreeMap<i32, String>,
    /// Each MCP session's own tab group, per window (`"<window>/<session>"`).
    #[serde(default)]
    pub session_groups: BTreeMap<String, i32>,
    /// The user cancelled the debugging infobar: nothing is opened or controlled until the user
    /// shares a tab again.
    #[serde(default)]
    pub stopped: bool,
    /// Where each MCP session was, for it to go on after a restart.
    #[serde(default)]
    pub sessions: BTreeMap<String, SavedSession>,
}

impl Grants {
    /// How `session` stands to `tab` (which must be controlled to be used at all).
    pub fn access(&self, tab: i32, session: &str) -> Access {
        custody::access(self.holders.get(&tab).map(String::as_str), session)
    }

    /// The controlled tabs as candidates for a call's tab, oldest first.
    pub fn candidates(&self) -> Vec<Candidate<'_>> {
        self.tabs.keys().map(|&tab| Candidate { tab, holder: self.holders.get(&tab).map(String::as_str) }).collect()
    }
}

/// What a worker restart must not make an MCP session lose.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    /// Its client's name, from MCP `initialize`.
    #[serde(default)]
    pub client: Option<String>,
    /// The tab it acts on when it names none.
    #[serde(default)]
    pub current_tab: Option<i32>,
    /// Per tab, where its page state was.
    #[serde(default)]
    pub pages: BTreeMap<i32, ResumePoint>,
    /// The last ref number it issued on any tab.
    #[serde(default)]
    pub last_ref: u32,
    /// The current tab it lost, until it names another.
    #[serde(default)]
    pub lost: Option<(i32, TabLoss)>,
    /// What it has not been told yet.
    #[serde(default)]
    pub notices: Vec<String>,
}

/// What the runtime knows about one controlled tab's debugger session.
#[derive(Debug, Clone, Default)]
pub struct TabSession {
    /// Whether our debugger is attached.
    pub attached: bool,
    /// The tab's frames and their documents, as events report them.
    pub frames: FrameTracker,
    /// The dialog the page shows and waits for, if any.
    pub dialog: Option<OpenDialog>,
    /// The page hooks' `Runtime.addBinding` parameters, to add again after `Runtime.disable`.
    pub bindings: Vec<serde_json::Value>,
    /// The file input whose chooser an agent's action opened and nobody answered yet.
    pub chooser: Option<FileChooser>,
    /// The last capture, kept while a probe vouches the page did not change (`crate::probe`).
    pub kept: Option<Rc<crate::probe::KeptCapture>>,
    /// Whether the main frame's renderer counts layouts for the probe (`Performance.enable`).
    pub counting_layouts: bool,
}

/// `Network.enable` for the timeline, which reads requests and responses but never their
/// bodies: the browser keeps no copy of bodies for us (by default it copies every response's
/// data into a buffer, which measurably slowed page loads).
fn network_enable_params() -> serde_json::Value {
    serde_json::json!({"maxTotalBufferSize": 0, "maxResourceBufferSize": 0, "maxPostDataSize": 0})
}

/// A file chooser an agent's action opened (intercepted, so no window showed).
#[derive(Debug, Clone, PartialEq)]
pub struct FileChooser {
    /// The file input's node in the main frame.
    pub backend_node_id: i64,
    /// Whether it takes several files.
    pub multiple: bool,
}

/// The CDP events that open and close a page's JavaScript dialogs.
pub const DIALOG_EVENTS: &[&str] = &["Page.javascriptDialogOpening", "Page.javascriptDialogClosed"];

/// Consent and attachment state of all tabs.
#[derive(Debug, Default)]
pub struct TabRegistry {
    /// Persisted grants.
    pub grants: Grants,
    /// Whether `grants` was read from storage yet.
    pub loaded: bool,
    /// Debugger sessions by tab.
    pub sessions: HashMap<i32, TabSession>,
}

impl TabRegistry {
    /// Whether the agent may use `tab_id`.
    pub fn is_controlled(&self, tab_id: i32) -> bool {
        self.grants.tabs.contains_key(&tab_id)
    }

    /// Follows frame navigations, detaches and child sessions of a tab.
    pub fn observe(&mut self, event: &cdp::CdpEvent) {
        if let Some(session) = self.sessions.get_mut(&event.tab_id) {
            session.frames.observe(&event.method, event.session_id.as_deref(), &event.params);
            if event.session_id.is_none() {
                match event.method.as_str() {
                    "Page.javascriptDialogOpening" => session.dialog = OpenDialog::from_event(&event.params),
                    "Page.javascriptDialogClosed" => session.dialog = None,
                    "Page.frameNavigated" if event.params["frame"]["parentId"].is_null() => {
                        session.dialog = None;
                        session.chooser = None;
                    }
                    _ => {}
                }
            }
        }
    }

    /// The dialog `tab_id`'s page shows and waits for, if any.
    pub fn dialog(&self, tab_id: i32) -> Option<OpenDialog> {
        self.sessions.get(&tab_id).and_then(|s| s.dialog.clone())
    }

    /// The frames of `tab_id` (empty when it is not attached).
    pub fn frames(&self, tab_id: i32) -> &FrameTracker {
        static UNTRACKED: LazyLock<FrameTracker> = LazyLock::new(FrameTracker::default);
        self.sessions.get(&tab_id).map_or(&UNTRACKED, |s| &s.frames)
    }

    /// The frames of `tab_id` to change, when it is attached.
    pub fn frames_of_mut(&mut self, tab_id: i32) -> Option<&mut FrameTracker> {
        self.sessions.get_mut(&tab_id).map(|s| &mut s.frames)
    }
}

impl TabsState {
    /// Fails unless `session` may use `tab_id`: controlled, and not held by another session.
    pub fn require_usable(&self, tab_id: i32, session: &str) -> Result<(), ToolError> {
        self.require_controlled(tab_id)?;
        match self.registry.borrow().grants.access(tab_id, session) {
            Access::Another => Err(ToolError::HeldByAnother { tab: tab_id }),
            Access::Held | Access::Free => Ok(()),
        }
    }

    /// Fails when the user stopped Sightline (cancelled the debugging infobar) and has not
    /// shared a tab since.
    pub fn require_not_stopped(&self) -> Result<(), ToolError> {
        if self.registry.borrow().grants.stopped { Err(ToolError::Stopped) } else { Ok(()) }
    }

    /// Fails unless the agent may use `tab_id`, explaining why not.
    pub fn require_controlled(&self, tab_id: i32) -> Result<(), ToolError> {
        let tabs = self.registry.borrow();
        if tabs.is_controlled(tab_id) {
            return Ok(());
        }
        match tabs.grants.revoked.get(&tab_id) {
            Some(reason) => Err(ToolError::Revoked { tab: tab_id, reason: reason.clone() }),
            None => Err(ToolError::NotShared { tab: tab_id }),
        }
    }

    /// Attaches the debugger to a controlled tab if it is not attached yet, and enables the
    /// domains the runtime listens to.
    pub async fn ensure_attached(&self, tab_id: i32) -> Result<(), ToolError> {
        self.require_controlled(tab_id)?;
        if self.registry.borrow().sessions.get(&tab_id).is_some_and(|s| s.attached) {
            return Ok(());
        }
        match chrome::attach(tab_id).await {
            Ok(()) => {}
            // After a worker restart our own session is still attached: it is ours.
            Err(ChromeError::AlreadyAttached) => {}
            Err(ChromeError::NoAccess(message)) => return Err(ToolError::Refused { tab: tab_id, message }),
            Err(e) => return Err(prepare_error(tab_id, e.into())),
        }
        for (method, params) in [
            ("Page.enable", serde_json::json!({})),
            ("Page.setLifecycleEventsEnabled", serde_json::json!({"enabled": true})),
            ("Runtime.enable", serde_json::json!({})),
            // Console messages, requests and WebSockets for the timeline.
            ("Network.enable", network_enable_params()),
            ("Log.enable", serde_json::json!({})),
            // The page behaves as if it had focus, so focusing an element runs the page's focus
            // handlers at once (a background tab would run them later, while keys arrive).
            ("Emulation.setFocusEmulationEnabled", serde_json::json!({"enabled": true})),
            // Out-of-process iframes arrive as flat child sessions (Target.attachedToTarget).
            (
                "Target.setAutoAttach",
                serde_json::json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
            ),
        ] {
            cdp::send::<serde_json::Value>(tab_id, method, params)
                .await
                .map_err(|e| prepare_error(tab_id, e.into()))?;
        }
        // The accessibility domain stays off: the engine derives roles and names from the DOM
        // snapshot, and a renderer keeping a tree nobody reads would pay for it on every change
        // the page makes. (The layout counters the probe reads are turned on by the probe
        // itself: `crate::probe`.)
        let tree: FrameTreeResult = cdp::send(tab_id, "Page.getFrameTree", serde_json::json!({}))
            .await
            .map_err(|e| prepare_error(tab_id, e.into()))?;
        let session = TabSession {
            attached: true,
            frames: FrameTracker::from_tree(&tree),
            dialog: None,
            bindings: Vec::new(),
            chooser: None,
            kept: None,
            counting_layouts: false,
        };
        self.registry.borrow_mut().sessions.insert(tab_id, session);
        let shared = self.registry.borrow().grants.tabs.get(&tab_id) == Some(&Grant::Shared);
        let bindings = crate::page_hooks::install(tab_id, shared).await;
        if let Some(session) = self.registry.borrow_mut().sessions.get_mut(&tab_id) {
            session.bindings = bindings;
        }
        Ok(())
    }
}

impl Custody<'_> {
    /// Reads the grants from session storage once per worker lifetime.
    pub async fn load_grants(&self) {
        if self.tabs.registry.borrow().loaded {
            return;
        }
        let stored = chrome::session_storage_get::<Grants>(GRANTS_KEY).await.ok().flatten();
        let restored = {
            let mut tabs = self.tabs.registry.borrow_mut();
            if tabs.loaded {
                return;
            }
            tabs.grants = stored.unwrap_or_default();
            tabs.loaded = true;
            tabs.grants.sessions.clone()
        };
        self.sessions.restore_sessions(&restored);
        self.timeline.sync_readable_tabs(self.tabs);
    }

    /// Records where `session` is (after each of its calls), so a restart does not lose it.
    pub async fn save_session_place(&self, session: &str) {
        let Some(place) = self.sessions.session_place(session) else { return };
        let changed = {
            let mut tabs = self.tabs.registry.borrow_mut();
            let before = tabs.grants.sessions.insert(session.to_owned(), place.clone());
            before.as_ref() != Some(&place)
        };
        if changed {
            self.save_grants().await;
        }
    }

    /// An MCP session ended: its tab group goes (its tabs stay open, ungrouped, and free for
    /// another agent to use) and so does what was kept of it.
    pub async fn session_ended(&self, session: &str) {
        let (tabs, groups): (Vec<i32>, Vec<String>) = {
            let mut registry = self.tabs.registry.borrow_mut();
            registry.grants.sessions.remove(session);
            let owned: Vec<i32> =
                registry.grants.holders.iter().filter(|(_, o)| *o == session).map(|(t, _)| *t).collect();
            for tab in &owned {
                registry.grants.holders.remove(tab);
            }
            let suffix = format!("/{session}");
            let groups = registry.grants.session_groups.keys().filter(|k| k.ends_with(&suffix)).cloned().collect();
            (owned, groups)
        };
        for tab in tabs {
            let _ = chrome::ungroup_tab(tab).await;
        }
        {
            let mut registry = self.tabs.registry.borrow_mut();
            for key in groups {
                registry.grants.session_groups.remove(&key);
            }
        }
        self.sessions.borrow_mut().remove(session);
        self.save_grants().await;
    }

    /// Saves the grants and where every session is (after a call, a grant or a revoke).
    pub async fn save_grants(&self) {
        self.timeline.sync_readable_tabs(self.tabs);
        let grants = self.tabs.registry.borrow().grants.clone();
        let Err(e) = chrome::session_storage_set(GRANTS_KEY, &grants).await else {
            self.timeline.saved("tab grants", Ok(()));
            return;
        };
        self.timeline.saved("tab grants", Err(e.to_string()));
        // What is stored must never grant more than what is in force (a revoke that was not
        // saved would come back with a restart): store that nothing is granted, which is
        // smaller than what it replaces, or failing that store nothing.
        let closed = Grants { stopped: grants.stopped, ..Grants::default() };
        if let Err(e) = chrome::session_storage_set(GRANTS_KEY, &closed).await {
            chrome::warn(&format!("Sightline could not clear its saved tab grants ({e}); removing them"));
            if let Err(e) = chrome::session_storage_remove(GRANTS_KEY).await {
                chrome::warn(&format!("Sightline could not remove its saved tab grants: {e}"));
            }
        }
    }

    /// Gives the agent `tab_id`: shared by the user (which also lifts a stop), or opened by
    /// MCP session `opened_by`; and shows it in its tab group.
    pub async fn grant(&self, tab_id: i32, grant: Grant, opened_by: Option<&str>) {
        {
            let mut tabs = self.tabs.registry.borrow_mut();
            tabs.grants.tabs.insert(tab_id, grant);
            tabs.grants.revoked.remove(&tab_id);
            match opened_by {
                Some(session) => {
                    tabs.grants.holders.insert(tab_id, session.to_owned());
                }
                None => {
                    tabs.grants.holders.remove(&tab_id);
                }
            }
            if grant == Grant::Shared {
                tabs.grants.stopped = false;
            }
        }
        if grant == Grant::Shared {
            self.given_back(tab_id);
        }
        self.add_to_group(tab_id, opened_by).await;
        let _ = chrome::set_badge(tab_id, "ON").await;
        self.save_grants().await;
    }

    /// A page in tab `opener` opened `tab_id` (a link with `target="_blank"`, `window.open`, a
    /// sign-in popup). When the agent controls the opener, the new tab is the agent's as the
    /// opener is: granted the same way, held by the same session, shown in the same group, and
    /// that session is told in its next answer (its current tab stays the opener). A tab opened
    /// by a tab the agent does not control stays out of its reach, as does any tab while
    /// Sightline is stopped.
    pub async fn opened_by_page(&self, tab_id: i32, opener: i32, url: &str) {
        let (grant, holder) = {
            let tabs = self.tabs.registry.borrow();
            if tabs.grants.stopped || tabs.is_controlled(tab_id) {
                return;
            }
            let Some(&grant) = tabs.grants.tabs.get(&opener) else { return };
            (grant, tabs.grants.holders.get(&opener).cloned())
        };
        self.grant(tab_id, grant, holder.as_deref()).await;
        if let Some(session) = holder {
            let url =
                if url.is_empty() { String::new() } else { format!(" at {}", sightline_core::urls::redact_url(url)) };
            let notice = format!(
                "The page in tab {opener} opened tab {tab_id}{url}; it is yours too: `browser_tabs select` it to use it."
            );
            self.sessions.with_session(&session, |s| s.notices.push(notice));
            self.save_session_place(&session).await;
        }
    }

    /// The person shared `tab_id` again: a session whose current tab it was, before it lost it,
    /// goes on there (and holds it), and is told so.
    fn given_back(&self, tab_id: i32) {
        let mut sessions = self.sessions.borrow_mut();
        let Some((id, session)) = sessions.iter_mut().find(|(_, s)| s.lost.is_some_and(|(lost, _)| lost == tab_id))
        else {
            return;
        };
        session.lost = None;
        session.current_tab = Some(tab_id);
        session.refs.regain(tab_id);
        session.notices.push(format!("The person shared tab {tab_id} with you again; it is your current tab."));
        self.tabs.registry.borrow_mut().grants.holders.insert(tab_id, id.clone());
    }

    /// Takes `tab_id` away from the agent, remembering why (`reason`, and `loss` for the
    /// sessions that were using it).
    pub async fn revoke(&self, tab_id: i32, reason: Option<String>, loss: TabLoss) {
        self.tabs.selections.borrow_mut().remove(&tab_id);
        let was_controlled = {
            let mut tabs = self.tabs.registry.borrow_mut();
            tabs.sessions.remove(&tab_id);
            if let Some(reason) = reason {
                tabs.grants.revoked.insert(tab_id, reason);
            }
            tabs.grants.holders.remove(&tab_id);
            tabs.grants.tabs.remove(&tab_id).is_some()
        };
        self.forget_tab_pages(tab_id, loss, None);
        if was_controlled {
            let _ = chrome::ungroup_tab(tab_id).await;
            let _ = chrome::set_badge(tab_id, "").await;
        }
        self.save_grants().await;
    }

    /// Forgets a closed tab entirely; `by` is the session that closed it, if one did.
    pub async fn tab_closed(&self, tab_id: i32, by: Option<&str>) {
        self.tabs.hub.borrow_mut().tab_gone(tab_id, "the tab was closed");
        crate::flood::tab_closed(self.timeline, tab_id);
        self.tabs.selections.borrow_mut().remove(&tab_id);
        {
            let mut tabs = self.tabs.registry.borrow_mut();
            tabs.sessions.remove(&tab_id);
            tabs.grants.tabs.remove(&tab_id);
            tabs.grants.revoked.remove(&tab_id);
            tabs.grants.holders.remove(&tab_id);
        }
        self.forget_tab_pages(tab_id, TabLoss::Closed, by);
        self.save_grants().await;
    }

    /// Puts the tab into its group: the user's shared tabs' "Sightline" group, or the group of
    /// MCP session `opened_by`, named after its client.
    async fn add_to_group(&self, tab_id: i32, opened_by: Option<&str>) {
        let Ok(tab) = chrome::get_tab(tab_id).await else { return };
        let session_key = opened_by.map(|s| format!("{}/{s}", tab.window_id));
        let existing = {
            let tabs = self.tabs.registry.borrow();
            match &session_key {
                Some(key) => tabs.grants.session_groups.get(key).copied(),
                None => tabs.grants.groups.get(&tab.window_id).copied(),
            }
        };
        let grouped = match existing {
            Some(group) => match chrome::group_tab(tab_id, Some(group)).await {
                Ok(g) => Ok(g),
                Err(_) => chrome::group_tab(tab_id, None).await,
            },
            None => chrome::group_tab(tab_id, None).await,
        };
        match grouped {
            Ok(group) => {
                let title = {
                    let mut tabs = self.tabs.registry.borrow_mut();
                    match (&session_key, opened_by) {
                        (Some(key), Some(session)) => {
                            tabs.grants.session_groups.insert(key.clone(), group);
                            let client = self.sessions.borrow().get(session).and_then(|s| s.client.clone());
                            format!("{GROUP_TITLE}: {}", client.unwrap_or_else(|| "agent".to_owned()))
                        }
                        _ => {
                            tabs.grants.groups.insert(tab.window_id, group);
                            GROUP_TITLE.to_owned()
                        }
                    }
                };
                let _ = chrome::title_group(group, &title).await;
            }
            Err(e) => chrome::warn(&format!("Sightline could not group tab {tab_id}: {e}")),
        }
    }

    /// Makes `session` the holder of `tab_id` when nobody holds it, and its current tab; the
    /// session has a tab to act on again and the tab's old refs are its own once more.
    pub async fn take_up(&self, tab_id: i32, session: &str) {
        let claimed = {
            let mut tabs = self.tabs.registry.borrow_mut();
            let free = !tabs.grants.holders.contains_key(&tab_id);
            if free {
                tabs.grants.holders.insert(tab_id, session.to_owned());
            }
            free
        };
        self.sessions.with_session(session, |s| {
            s.current_tab = Some(tab_id);
            s.lost = None;
            s.refs.regain(tab_id);
        });
        if claimed {
            self.save_grants().await;
        }
    }

    /// The person hands `tab_id` to `to` (an MCP session): the session holding it before loses
    /// it (its current tab too), and both are told in their next answer.
    pub async fn hand_over(&self, tab_id: i32, to: &str, title: &str) -> Result<(), String> {
        if !self.tabs.registry.borrow().is_controlled(tab_id) {
            return Err(format!("tab {tab_id} is not shared with Sightline"));
        }
        if !self.sessions.borrow().contains_key(to) {
            return Err("that agent is no longer connected".into());
        }
        let before = self.tabs.registry.borrow_mut().grants.holders.insert(tab_id, to.to_owned());
        if before.as_deref() == Some(to) {
            return Ok(());
        }
        let quoted = sightline_core::snapshot::render::quote(title);
        for (id, session) in self.sessions.borrow_mut().iter_mut() {
            if id == to {
                session.refs.regain(tab_id);
                session.notices.push(format!(
                    "The person handed you tab {tab_id} {quoted}: name it with `tab` (or browser_tabs select) to use it."
                ));
            } else if before.as_deref() == Some(id.as_str()) {
                State::lose(session, tab_id, TabLoss::HandedOver, false);
                session.notices.push(format!(
                    "The person handed tab {tab_id} to another agent: you can no longer read or act on it, and its \
                     refs no longer work."
                ));
            }
        }
        self.save_grants().await;
        Ok(())
    }

    /// Prepares an out-of-process iframe's session: frame events, its loader id, and
    /// auto-attach for iframes nested inside it.
    pub async fn prepare_child(&self, tab_id: i32, child: String) {
        let target = crate::chrome::DebuggeeTarget { tab_id, session_id: Some(child) };
        let timeout = cdp::COMMAND_TIMEOUT_MS;
        let _ = cdp::send_to::<serde_json::Value>(&target, "Page.enable", serde_json::json!({}), timeout).await;
        // The iframe's console and requests belong to the tab's timeline too.
        // Its counters and its watch, for the probe before each capture (`crate::probe`).
        for (domain, params) in [
            ("Runtime.enable", serde_json::json!({})),
            ("Network.enable", network_enable_params()),
            ("Log.enable", serde_json::json!({})),
            ("Performance.enable", serde_json::json!({})),
        ] {
            let _ = cdp::send_to::<serde_json::Value>(&target, domain, params, timeout).await;
        }
        let watch = crate::probe::watch_hook_params();
        let _ =
            cdp::send_to::<serde_json::Value>(&target, "Page.addScriptToEvaluateOnNewDocument", watch, timeout).await;
        if let Ok(tree) =
            cdp::send_to::<FrameTreeResult>(&target, "Page.getFrameTree", serde_json::json!({}), timeout).await
            && let Some(child) = &target.session_id
        {
            // Its document's URL, which says whose console it is if the guard pauses it.
            let root = &tree.frame_tree.frame;
            crate::flood::frame_navigated(self.timeline, tab_id, child, &root.id, &root.url);
            if let Some(session) = self.tabs.registry.borrow_mut().sessions.get_mut(&tab_id) {
                session.frames.add_child_tree(child, &tree);
            }
        }
        let auto_attach = serde_json::json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true});
        let _ = cdp::send_to::<serde_json::Value>(&target, "Target.setAutoAttach", auto_attach, timeout).await;
    }

    /// The debugger left a tab. `canceled_by_user` withdraws every grant.
    pub async fn debugger_detached(&self, tab_id: i32, reason: &str) {
        let why = format!("the debugger was detached from tab {tab_id} ({reason})");
        self.tabs.hub.borrow_mut().tab_gone(tab_id, &why);
        if reason == "canceled_by_user" {
            // A stop, not a pause: no tab is opened or controlled until the user shares one.
            self.tabs.registry.borrow_mut().grants.stopped = true;
            let controlled: Vec<i32> = self.tabs.registry.borrow().grants.tabs.keys().copied().collect();
            for tab in controlled {
                self.revoke(
                    tab,
                    Some(
                        "the user cancelled Sightline's debugging session. Ask the user to share the tab again with \
                         the Sightline toolbar button."
                            .into(),
                    ),
                    TabLoss::Unshared,
                )
                .await;
            }
        } else if let Some(session) = self.tabs.registry.borrow_mut().sessions.get_mut(&tab_id) {
            session.attached = false;
        }
    }
}

fn prepare_error(tab_id: i32, e: ToolError) -> ToolError {
    ToolError::Prepare { tab: tab_id, source: Box::new(e) }
}
