//! The runtime's state: consent and debugger sessions per tab, per MCP session the current
//! tab and what that session has been shown of each page, and the calls in flight (so the host
//! can call one off).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use std::collections::BTreeMap;

use sightline_core::page_state::PageState;

use crate::cdp::EventHub;
use crate::tabs::{SavedSession, TabRegistry};
use crate::timeline::TimelineStore;

/// One MCP session (one `sightline-host mcp` process).
#[derive(Debug, Default)]
pub struct Session {
    /// Its client's name, from MCP `initialize`, when it gave one.
    pub client: Option<String>,
    /// The tab tools act on when none is named.
    pub current_tab: Option<i32>,
    /// What this session has been shown of each tab: the one authority on refs, versions and
    /// deltas for that (session, tab).
    pub pages: HashMap<i32, PageState>,
    /// Per tab, this session's last action if it reached the page but the session was never
    /// shown what it did (it failed, ran out of time or was called off after sending input).
    /// Until the session looks at the page again, its next action there is not run: a blind
    /// retry must not do the thing twice.
    pub unconfirmed: HashMap<i32, UnconfirmedAction>,
}

/// An action that was sent to the page without its outcome being shown.
#[derive(Debug, Clone, PartialEq)]
pub struct UnconfirmedAction {
    /// What it was, as the timeline describes it (`click e5`).
    pub description: String,
    /// When it ended ([`crate::timer::now_ms`]).
    pub ended_ms: f64,
}

/// Everything the runtime keeps between calls. Lives as long as the service worker.
pub struct State {
    /// Extension version.
    pub version: String,
    /// Browser user agent.
    pub browser: String,
    /// Debugger event routing.
    pub hub: Rc<RefCell<EventHub>>,
    /// Consent and debugger sessions.
    pub tabs: RefCell<TabRegistry>,
    /// MCP sessions by id.
    pub sessions: RefCell<HashMap<String, Session>>,
    tab_locks: RefCell<HashMap<i32, Rc<futures::lock::Mutex<()>>>>,
    /// Console, network, WebSocket and action history of every tab, with checkpoints.
    pub timeline: RefCell<TimelineStore>,
    /// Held while the saved timeline is read.
    pub timeline_load: futures::lock::Mutex<()>,
    /// Calls running now, by the host's id: firing one's sender calls it off.
    pub calls: RefCell<HashMap<u64, futures::channel::oneshot::Sender<()>>>,
    /// Every agent call per tab, for the Sightline panel.
    pub session_log: RefCell<sightline_core::review::SessionLog>,
}

impl State {
    /// Fresh state.
    pub fn new(version: String, browser: String) -> Self {
        State {
            version,
            browser,
            hub: Rc::default(),
            tabs: RefCell::default(),
            sessions: RefCell::default(),
            tab_locks: RefCell::default(),
            timeline: RefCell::default(),
            timeline_load: futures::lock::Mutex::new(()),
            calls: RefCell::default(),
            session_log: RefCell::default(),
        }
    }

    /// The lock that serialises tool calls on one tab, so two sessions never interleave
    /// their CDP commands and page-state updates.
    pub fn tab_lock(&self, tab_id: i32) -> Rc<futures::lock::Mutex<()>> {
        self.tab_locks.borrow_mut().entry(tab_id).or_default().clone()
    }

    /// Runs `f` on a session's state, creating it on first use.
    pub fn with_session<R>(&self, session: &str, f: impl FnOnce(&mut Session) -> R) -> R {
        f(self.sessions.borrow_mut().entry(session.to_owned()).or_default())
    }

    /// Notes that `session` is in use, and its client's name when the call carries one.
    pub fn met_session(&self, session: &str, client: Option<String>) {
        if let Some(client) = client {
            self.with_session(session, |s| s.client = Some(client));
        }
    }

    /// Where `session` is now, as a restart must not lose it.
    pub fn session_place(&self, session: &str) -> Option<SavedSession> {
        let sessions = self.sessions.borrow();
        let s = sessions.get(session)?;
        Some(SavedSession {
            client: s.client.clone(),
            current_tab: s.current_tab,
            pages: s.pages.iter().map(|(tab, page)| (*tab, page.resume_point())).collect(),
        })
    }

    /// Brings back the sessions saved before a restart: each goes on at its current tab, its
    /// page states resumed where they were (refs from before are refused with the reason).
    pub fn restore_sessions(&self, saved: &BTreeMap<String, SavedSession>) {
        let mut sessions = self.sessions.borrow_mut();
        for (id, place) in saved {
            sessions.entry(id.clone()).or_insert_with(|| Session {
                client: place.client.clone(),
                current_tab: place.current_tab,
                pages: place.pages.iter().map(|(tab, point)| (*tab, PageState::resumed(*point))).collect(),
                unconfirmed: HashMap::new(),
            });
        }
    }

    /// Drops every session's view of a tab that went away.
    pub fn forget_tab_pages(&self, tab_id: i32) {
        for session in self.sessions.borrow_mut().values_mut() {
            session.pages.remove(&tab_id);
            session.unconfirmed.remove(&tab_id);
            if session.current_tab == Some(tab_id) {
                session.current_tab = None;
            }
        }
        self.tab_locks.borrow_mut().remove(&tab_id);
        crate::cdp::page_replaced(tab_id);
    }
}
