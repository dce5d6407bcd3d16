//! Which tabs the agent may touch, and the debugger attachment to each.
//!
//! The agent sees and drives only tabs it created or that the user shared with the toolbar
//! button; both kinds sit in a tab group named "Sightline" so the user can see them. Grants
//! are kept in `chrome.storage.session` so a service-worker restart keeps them. When the user
//! cancels the debugging infobar, every grant is revoked and never silently restored: the user
//! must share again.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use sightline_core::cdp::page::FrameTreeResult;
use sightline_core::frames::FrameTracker;

use crate::cdp;
use crate::chrome::{self, ChromeError};
use crate::error::ToolError;
use crate::state::State;

const GRANTS_KEY: &str = "sightline.grants";
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
    /// The Sightline tab group per window.
    #[serde(default)]
    pub groups: BTreeMap<i32, i32>,
}

/// What the runtime knows about one controlled tab's debugger session.
#[derive(Debug, Clone, Default)]
pub struct TabSession {
    /// Whether our debugger is attached.
    pub attached: bool,
    /// The tab's frames and their documents, as events report them.
    pub frames: FrameTracker,
}

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
        }
    }

    /// The frames of `tab_id` (empty when it is not attached).
    pub fn frames(&self, tab_id: i32) -> FrameTracker {
        self.sessions.get(&tab_id).map(|s| s.frames.clone()).unwrap_or_default()
    }
}

impl State {
    /// Reads the grants from session storage once per worker lifetime.
    pub async fn load_grants(&self) {
        if self.tabs.borrow().loaded {
            return;
        }
        let stored = chrome::session_storage_get::<Grants>(GRANTS_KEY).await.ok().flatten();
        let mut tabs = self.tabs.borrow_mut();
        if !tabs.loaded {
            tabs.grants = stored.unwrap_or_default();
            tabs.loaded = true;
        }
    }

    async fn save_grants(&self) {
        let grants = self.tabs.borrow().grants.clone();
        if let Err(e) = chrome::session_storage_set(GRANTS_KEY, &grants).await {
            chrome::warn(&format!("Sightline could not save tab grants: {e}"));
        }
    }

    /// Gives the agent `tab_id` and shows it in the Sightline tab group.
    pub async fn grant(&self, tab_id: i32, grant: Grant) {
        {
            let mut tabs = self.tabs.borrow_mut();
            tabs.grants.tabs.insert(tab_id, grant);
            tabs.grants.revoked.remove(&tab_id);
        }
        self.add_to_group(tab_id).await;
        let _ = chrome::set_badge(tab_id, "ON").await;
        self.save_grants().await;
    }

    /// Takes `tab_id` away from the agent, remembering why.
    pub async fn revoke(&self, tab_id: i32, reason: Option<String>) {
        let was_controlled = {
            let mut tabs = self.tabs.borrow_mut();
            tabs.sessions.remove(&tab_id);
            if let Some(reason) = reason {
                tabs.grants.revoked.insert(tab_id, reason);
            }
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
        {
            let mut tabs = self.tabs.borrow_mut();
            tabs.sessions.remove(&tab_id);
            tabs.grants.tabs.remove(&tab_id);
            tabs.grants.revoked.remove(&tab_id);
        }
        self.forget_tab_pages(tab_id);
        self.save_grants().await;
    }

    async fn add_to_group(&self, tab_id: i32) {
        let Ok(tab) = chrome::get_tab(tab_id).await else { return };
        let existing = self.tabs.borrow().grants.groups.get(&tab.window_id).copied();
        let grouped = match existing {
            Some(group) => match chrome::group_tab(tab_id, Some(group)).await {
                Ok(g) => Ok(g),
                Err(_) => chrome::group_tab(tab_id, None).await,
            },
            None => chrome::group_tab(tab_id, None).await,
        };
        match grouped {
            Ok(group) => {
                self.tabs.borrow_mut().grants.groups.insert(tab.window_id, group);
                let _ = chrome::title_group(group, GROUP_TITLE).await;
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
            // Console messages, requests and WebSockets for the timeline (no bodies are read).
            ("Network.enable", serde_json::json!({})),
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
        let tree: FrameTreeResult = cdp::send(tab_id, "Page.getFrameTree", serde_json::json!({}))
            .await
            .map_err(|e| prepare_error(tab_id, e.into()))?;
        let session = TabSession { attached: true, frames: FrameTracker::from_tree(&tree) };
        self.tabs.borrow_mut().sessions.insert(tab_id, session);
        let shared = self.tabs.borrow().grants.tabs.get(&tab_id) == Some(&Grant::Shared);
        crate::page_hooks::install(tab_id, shared).await;
        Ok(())
    }

    /// Prepares an out-of-process iframe's session: frame events, its loader id, and
    /// auto-attach for iframes nested inside it.
    pub async fn prepare_child(&self, tab_id: i32, child: String) {
        let target = crate::chrome::DebuggeeTarget { tab_id, session_id: Some(child) };
        let timeout = cdp::COMMAND_TIMEOUT_MS;
        let _ = cdp::send_to::<serde_json::Value>(&target, "Page.enable", serde_json::json!({}), timeout).await;
        // The iframe's console and requests belong to the tab's timeline too.
        for domain in ["Runtime.enable", "Network.enable", "Log.enable"] {
            let _ = cdp::send_to::<serde_json::Value>(&target, domain, serde_json::json!({}), timeout).await;
        }
        if let Ok(tree) =
            cdp::send_to::<FrameTreeResult>(&target, "Page.getFrameTree", serde_json::json!({}), timeout).await
            && let Some(session) = self.tabs.borrow_mut().sessions.get_mut(&tab_id)
            && let Some(child) = &target.session_id
        {
            session.frames.add_child_tree(child, &tree);
        }
        let auto_attach = serde_json::json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true});
        let _ = cdp::send_to::<serde_json::Value>(&target, "Target.setAutoAttach", auto_attach, timeout).await;
    }

    /// The debugger left a tab. `canceled_by_user` withdraws every grant.
    pub async fn debugger_detached(&self, tab_id: i32, reason: &str) {
        if reason == "canceled_by_user" {
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
