//! Which tabs the agent may touch, and the debugger attachment to each.
//!
//! The agent sees and drives only tabs it created or that the user shared with the toolbar
//! button. Tabs the user shared sit in a tab group named "Sightline"; each MCP session's own
//! tabs sit in a group of their own named after its client, removed when the session ends. A
//! tab a session opened is that session's: another session uses it only when told to (by its
//! id). Grants, and each session's place (its current tab and where its page states were), are
//! kept in `chrome.storage.session` so a service-worker restart keeps them. When the user
//! cancels the debugging infobar, every grant is revoked and nothing is opened or controlled
//! again until the user shares a tab: the cancel is a stop.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use sightline_core::cdp::page::FrameTreeResult;
use sightline_core::dialogs::OpenDialog;
use sightline_core::frames::FrameTracker;
use sightline_core::page_state::ResumePoint;

use crate::cdp;
use crate::chrome::{self, ChromeError};
use crate::error::ToolError;
use crate::state::State;

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
    /// The MCP session that opened each tab the agent opened.
    #[serde(default)]
    pub owners: BTreeMap<i32, String>,
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
}

impl Grants {
    /// Whether `session` may use `tab` without naming it: a tab the user shared, or one it opened.
    pub fn usable_by(&self, tab: i32, session: &str) -> bool {
        match self.tabs.get(&tab) {
            Some(Grant::Shared) => true,
            Some(Grant::Created) => self.owners.get(&tab).is_none_or(|owner| owner == session),
            None => false,
        }
    }
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

impl State {
    /// Reads the grants from session storage once per worker lifetime.
    pub async fn load_grants(&self) {
        if self.tabs.borrow().loaded {
            return;
        }
        let stored = chrome::session_storage_get::<Grants>(GRANTS_KEY).await.ok().flatten();
        let restored = {
            let mut tabs = self.tabs.borrow_mut();
            if tabs.loaded {
                return;
            }
            tabs.grants = stored.unwrap_or_default();
            tabs.loaded = true;
            tabs.grants.sessions.clone()
        };
        self.restore_sessions(&restored);
        self.sync_readable_tabs();
    }

    /// Records where `session` is (after each of its calls), so a restart does not lose it.
    pub async fn save_session_place(&self, session: &str) {
        let Some(place) = self.session_place(session) else { return };
        let changed = {
            let mut tabs = self.tabs.borrow_mut();
            let before = tabs.grants.sessions.insert(session.to_owned(), place.clone());
            before.as_ref() != Some(&place)
        };
        if changed {
            self.save_grants().await;
        }
    }

    /// An MCP session ended: its tab group goes (its tabs stay open, ungrouped) and so does
    /// what was kept of it.
    pub async fn session_ended(&self, session: &str) {
        let (tabs, groups): (Vec<i32>, Vec<String>) = {
            let mut registry = self.tabs.borrow_mut();
            registry.grants.sessions.remove(session);
            let owned = registry.grants.owners.iter().filter(|(_, o)| *o == session).map(|(t, _)| *t).collect();
            let suffix = format!("/{session}");
            let groups = registry.grants.session_groups.keys().filter(|k| k.ends_with(&suffix)).cloned().collect();
            (owned, groups)
        };
        for tab in tabs {
            let _ = chrome::ungroup_tab(tab).await;
        }
        {
            let mut registry = self.tabs.borrow_mut();
            for key in groups {
                registry.grants.session_groups.remove(&key);
            }
        }
        self.sessions.borrow_mut().remove(session);
        self.save_grants().await;
    }

    /// Saves the grants and where every session is (after a call, a grant or a revoke).
    pub async fn save_grants(&self) {
        self.sync_readable_tabs();
        let grants = self.tabs.borrow().grants.clone();
        let Err(e) = chrome::session_storage_set(GRANTS_KEY, &grants).await else {
            self.saved("tab grants", Ok(()));
            return;
        };
        self.saved("tab grants", Err(e.to_string()));
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
            let mut tabs = self.tabs.borrow_mut();
            tabs.grants.tabs.insert(tab_id, grant);
            tabs.grants.revoked.remove(&tab_id);
            match opened_by {
                Some(session) => {
                    tabs.grants.owners.insert(tab_id, session.to_owned());
                }
                None => {
                    tabs.grants.owners.remove(&tab_id);
                }
            }
            if grant == Grant::Shared {
                tabs.grants.stopped = false;
            }
        }
        self.add_to_group(tab_id, opened_by).await;
        let _ = chrome::set_badge(tab_id, "ON").await;
        self.save_grants().await;
    }

    /// Fails when the user stopped Sightline (cancelled the debugging infobar) and has not
    /// shared a tab since.
    pub fn require_not_stopped(&self) -> Result<(), ToolError> {
        if self.tabs.borrow().grants.stopped { Err(ToolError::Stopped) } else { Ok(()) }
    }

    /// Tells the timeline which tabs' entries may still be read: the controlled ones (a tab
    /// unshared or closed is no longer readable).
    pub fn sync_readable_tabs(&self) {
        let readable = self.tabs.borrow().grants.tabs.keys().filter_map(|&t| u32::try_from(t).ok()).collect();
        self.with_timeline(|t| t.set_readable_tabs(Some(readable)));
    }

    /// Takes `tab_id` away from the agent, remembering why.
    pub async fn revoke(&self, tab_id: i32, reason: Option<String>) {
        self.selections.borrow_mut().remove(&tab_id);
        let was_controlled = {
            let mut tabs = self.tabs.borrow_mut();
            tabs.sessions.remove(&tab_id);
            if let Some(reason) = reason {
                tabs.grants.revoked.insert(tab_id, reason);
            }
            tabs.grants.owners.remove(&tab_id);
            tabs.grants.tabs.remove(&tab_id).is_some()
        };
        self.forget_tab_pages(tab_id);
        if was_controlled {
            let _ = chrome::ungroup_tab(tab_id).await;
            let _ = chrome::set_badge(tab_id, "").await;
        }
        self.save_grants().await;
    }

    /// Forgets a closed tab entirely.
    pub async fn tab_closed(&self, tab_id: i32) {
        self.hub.borrow_mut().tab_gone(tab_id, "the tab was closed");
        crate::flood::tab_closed(self, tab_id);
        self.selections.borrow_mut().remove(&tab_id);
        {
            let mut tabs = self.tabs.borrow_mut();
            tabs.sessions.remove(&tab_id);
            tabs.grants.tabs.remove(&tab_id);
            tabs.grants.revoked.remove(&tab_id);
            tabs.grants.owners.remove(&tab_id);
        }
        self.forget_tab_pages(tab_id);
        self.save_grants().await;
    }

    /// Puts the tab into its group: the user's shared tabs' "Sightline" group, or the group of
    /// MCP session `opened_by`, named after its client.
    async fn add_to_group(&self, tab_id: i32, opened_by: Option<&str>) {
        let Ok(tab) = chrome::get_tab(tab_id).await else { return };
        let session_key = opened_by.map(|s| format!("{}/{s}", tab.window_id));
        let existing = {
            let tabs = self.tabs.borrow();
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
                    let mut tabs = self.tabs.borrow_mut();
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

    /// Fails unless the agent may use `tab_id`, explaining why not.
    pub fn require_controlled(&self, tab_id: i32) -> Result<(), ToolError> {
        let tabs = self.tabs.borrow();
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
        if self.tabs.borrow().sessions.get(&tab_id).is_some_and(|s| s.attached) {
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
        self.tabs.borrow_mut().sessions.insert(tab_id, session);
        let shared = self.tabs.borrow().grants.tabs.get(&tab_id) == Some(&Grant::Shared);
        let bindings = crate::page_hooks::install(tab_id, shared).await;
        if let Some(session) = self.tabs.borrow_mut().sessions.get_mut(&tab_id) {
            session.bindings = bindings;
        }
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
            crate::flood::frame_navigated(self, tab_id, child, &root.id, &root.url);
            if let Some(session) = self.tabs.borrow_mut().sessions.get_mut(&tab_id) {
                session.frames.add_child_tree(child, &tree);
            }
        }
        let auto_attach = serde_json::json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true});
        let _ = cdp::send_to::<serde_json::Value>(&target, "Target.setAutoAttach", auto_attach, timeout).await;
    }

    /// The debugger left a tab. `canceled_by_user` withdraws every grant.
    pub async fn debugger_detached(&self, tab_id: i32, reason: &str) {
        let why = format!("the debugger was detached from tab {tab_id} ({reason})");
        self.hub.borrow_mut().tab_gone(tab_id, &why);
        if reason == "canceled_by_user" {
            // A stop, not a pause: no tab is opened or controlled until the user shares one.
            self.tabs.borrow_mut().grants.stopped = true;
            let controlled: Vec<i32> = self.tabs.borrow().grants.tabs.keys().copied().collect();
            for tab in controlled {
                self.revoke(
                    tab,
                    Some(
                        "the user cancelled Sightline's debugging session. Ask the user to share the tab again with \
                         the Sightline toolbar button."
                            .into(),
                    ),
                )
                .await;
            }
        } else if let Some(session) = self.tabs.borrow_mut().sessions.get_mut(&tab_id) {
            session.attached = false;
        }
    }
}

fn prepare_error(tab_id: i32, e: ToolError) -> ToolError {
    ToolError::Prepare { tab: tab_id, source: Box::new(e) }
}
