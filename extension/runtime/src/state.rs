//! The runtime's state: consent and debugger sessions per tab, per MCP session the current
//! tab and what that session has been shown of each page, and the calls in flight (so the host
//! can call one off).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use std::collections::BTreeMap;

use sightline_core::calls::UnconfirmedActions;
use sightline_core::page_state::PageState;
use sightline_core::tab_refs::{TabLoss, TabRefs};

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
    pub unconfirmed: UnconfirmedActions,
    /// The numbers of its refs on every tab, and the tabs it lost: a ref acts only on its tab.
    pub refs: TabRefs,
    /// The current tab it lost (the person stopped it there, closed it, handed it on): until
    /// it names a tab, calls that name none are refused with this.
    pub lost: Option<(i32, TabLoss)>,
    /// What the person did that the session has not been told yet (a tab handed to it or taken
    /// from it), said at the start of its next answer.
    pub notices: Vec<String>,
    /// What the person allowed this session for the rest of it: a class on a host.
    pub permission_grants: sightline_core::permissions::SessionGrants,
}

/// The MCP sessions by id, and what each has been shown.
#[derive(Default)]
pub struct Sessions(RefCell<HashMap<String, Session>>);

impl std::ops::Deref for Sessions {
    type Target = RefCell<HashMap<String, Session>>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Sessions {
    /// Runs `f` on a session's state, creating it on first use.
    pub fn with_session<R>(&self, session: &str, f: impl FnOnce(&mut Session) -> R) -> R {
        f(self.0.borrow_mut().entry(session.to_owned()).or_default())
    }

    /// Notes that `session` is in use, and its client's name when the call carries one.
    pub fn met_session(&self, session: &str, client: Option<String>) {
        if let Some(client) = client {
            self.with_session(session, |s| s.client = Some(client));
        }
    }

    /// Where `session` is now, as a restart must not lose it.
    pub fn session_place(&self, session: &str) -> Option<SavedSession> {
        let sessions = self.0.borrow();
        let s = sessions.get(session)?;
        Some(SavedSession {
            client: s.client.clone(),
            current_tab: s.current_tab,
            pages: s.pages.iter().map(|(tab, page)| (*tab, page.resume_point())).collect(),
            last_ref: s.refs.last_issued(),
            lost: s.lost,
            notices: s.notices.clone(),
        })
    }

    /// Brings back the sessions saved before a restart: each goes on at its current tab, its
    /// page states resumed where they were (refs from before are refused with the reason).
    pub fn restore_sessions(&self, saved: &BTreeMap<String, SavedSession>) {
        let mut sessions = self.0.borrow_mut();
        for (id, place) in saved {
            sessions.entry(id.clone()).or_insert_with(|| Session {
                client: place.client.clone(),
                current_tab: place.current_tab,
                pages: place.pages.iter().map(|(tab, point)| (*tab, PageState::resumed(point.clone()))).collect(),
                unconfirmed: UnconfirmedActions::default(),
                refs: TabRefs::resumed(place.pages.values().map(|p| p.last_ref).fold(place.last_ref, u32::max)),
                lost: place.lost,
                notices: place.notices.clone(),
                permission_grants: Default::default(),
            });
        }
    }

    /// The notices `session` has not been told yet, taken.
    pub fn take_notices(&self, session: &str) -> Vec<String> {
        self.0.borrow_mut().get_mut(session).map(|s| std::mem::take(&mut s.notices)).unwrap_or_default()
    }
}

/// The tabs Sightline controls: consent and debugger sessions, the routing of their debugger
/// events, the locks that serialise calls on each, and what the person pointed at on them. What
/// drives a page (probe, capture, navigation, input) needs this and nothing else.
#[derive(Default)]
pub struct TabsState {
    /// Debugger event routing.
    pub hub: Rc<RefCell<EventHub>>,
    /// Consent and debugger sessions.
    pub registry: RefCell<TabRegistry>,
    /// Per tab, the lock that serialises tool calls on it.
    locks: RefCell<HashMap<i32, Rc<futures::lock::Mutex<()>>>>,
    /// Per tab, the node the person last pointed at for the agent.
    pub selections: RefCell<HashMap<i32, crate::selection::Selection>>,
    /// Tabs in the inspect mode of Pick, waiting for the person to click.
    pub picking: RefCell<std::collections::HashSet<i32>>,
}

impl TabsState {
    /// The lock that serialises tool calls on one tab, so two sessions never interleave
    /// their CDP commands and page-state updates.
    pub fn lock(&self, tab_id: i32) -> Rc<futures::lock::Mutex<()>> {
        self.locks.borrow_mut().entry(tab_id).or_default().clone()
    }

    /// Drops the lock of a tab that went away.
    fn forget_lock(&self, tab_id: i32) {
        self.locks.borrow_mut().remove(&tab_id);
    }
}

/// What happened on the tabs and whether it is kept: the timeline, its console flood guard,
/// what could not be saved, and what the person's no-access rules keep out of its reads.
pub struct TimelineState {
    /// Console, network, WebSocket and action history of every tab, with checkpoints.
    pub store: RefCell<TimelineStore>,
    /// Held while the saved timeline is read.
    pub load: futures::lock::Mutex<()>,
    /// Console flood guard, per tab.
    pub flood: RefCell<crate::flood::FloodGuard>,
    /// What could not be saved to `chrome.storage.session` (`"tab grants"`, `"timeline"`) and
    /// why, until a save of it succeeds; every answer says so meanwhile.
    pub unsaved: RefCell<BTreeMap<&'static str, String>>,
    /// What the latest read of the timeline keeps out for the person's no-access rules (see
    /// [`crate::permissions::hide_no_access`]).
    pub no_access: RefCell<crate::permissions::NoAccessView>,
}

impl TimelineState {
    /// Notes how saving `what` to `chrome.storage.session` went (logged when it failed).
    pub fn saved(&self, what: &'static str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => {
                self.unsaved.borrow_mut().remove(what);
            }
            Err(e) => {
                crate::chrome::warn(&format!("Sightline could not save its {what}: {e}"));
                self.unsaved.borrow_mut().insert(what, e);
            }
        }
    }

    /// The line every answer carries while something could not be saved, if anything.
    pub fn unsaved_note(&self) -> Option<String> {
        let unsaved = self.unsaved.borrow();
        if unsaved.is_empty() {
            return None;
        }
        let what: Vec<String> = unsaved.iter().map(|(what, why)| format!("{what}: {why}")).collect();
        Some(format!(
            "! Sightline could not save its state in the browser's session storage ({}). It goes on, but if its \
             service worker restarts now, the tabs it controls must be shared again and recent history is lost.",
            what.join("; ")
        ))
    }
}

impl Default for TimelineState {
    fn default() -> Self {
        TimelineState {
            store: RefCell::default(),
            load: futures::lock::Mutex::new(()),
            flood: RefCell::default(),
            unsaved: RefCell::default(),
            no_access: RefCell::default(),
        }
    }
}

/// What the person reviews in the Sightline panel: the agents' calls, the screenshots around
/// their actions, and when the panel last looked.
#[derive(Default)]
pub struct ReviewState {
    /// Every agent call per tab, for the Sightline panel.
    pub session_log: RefCell<sightline_core::review::SessionLog>,
    /// Screenshots around the agent's actions, for the panel.
    pub shots: RefCell<sightline_core::review::ShotStore>,
    /// When the panel last asked about each tab ([`crate::timer::now_ms`]).
    pub panel_seen: RefCell<HashMap<i32, f64>>,
}

/// What the person is asked or has set: questions waiting for an answer, their options, and
/// the downloads the agents' actions started.
#[derive(Default)]
pub struct AsksState {
    /// Questions to the person waiting for an answer, by their one-time id.
    pub questions: RefCell<HashMap<String, crate::question::Pending>>,
    /// The user's options as the latest call read them as it started (see
    /// [`crate::options::Options::for_call`]).
    pub options: RefCell<crate::options::Options>,
    /// The downloads the agents' actions started, and the actions running now.
    pub downloads: RefCell<sightline_core::downloads::claims::Downloads>,
}

/// Everything the runtime keeps between calls. Lives as long as the service worker. Grouped by
/// job into handles, so code that needs one part takes that handle, not the whole state: the
/// tabs' custody ([`Custody`]) and what an agent's call may reach ([`Reach`]) are borrowed
/// from it, and only the dispatchers hold it whole.
pub struct State {
    /// Extension version.
    pub version: String,
    /// Browser user agent.
    pub browser: String,
    /// The tabs: registry, debugger events, locks, selections, picking.
    pub tabs: Rc<TabsState>,
    /// MCP sessions by id.
    pub sessions: Sessions,
    /// The timeline, the flood guard, and what could not be saved.
    pub timeline: Rc<TimelineState>,
    /// Calls running now, by the host's id: firing one's sender calls it off.
    pub calls: RefCell<HashMap<u64, futures::channel::oneshot::Sender<()>>>,
    /// The tool whose next call fails, and how (a drill's seam, see `Runtime::panic_on_next_call`).
    pub panic_armed: RefCell<Option<(String, crate::DrillFault)>>,
    /// The session log, screenshots and panel visits.
    pub review: ReviewState,
    /// Questions, options and downloads.
    pub asks: AsksState,
}

impl State {
    /// Fresh state.
    pub fn new(version: String, browser: String) -> Self {
        State {
            version,
            browser,
            tabs: Rc::default(),
            sessions: Sessions::default(),
            timeline: Rc::default(),
            calls: RefCell::default(),
            panic_armed: RefCell::default(),
            review: ReviewState::default(),
            asks: AsksState::default(),
        }
    }

    /// The custody of the tabs: which tabs each session may reach, borrowed from this state.
    pub fn custody(&self) -> Custody<'_> {
        Custody { tabs: &self.tabs, sessions: &self.sessions, timeline: &self.timeline }
    }

    /// What an agent's call may reach: the custody of the tabs, and the questions and options.
    pub fn reach(&self) -> Reach<'_> {
        Reach { custody: self.custody(), asks: &self.asks }
    }

    /// Takes `tab_id` from one session's view (see [`Custody::forget_tab_pages`]); `itself` when the
    /// session did it, so it needs no telling.
    pub fn lose(session: &mut Session, tab_id: i32, loss: TabLoss, itself: bool) {
        let had = session.pages.remove(&tab_id).is_some() || session.current_tab == Some(tab_id);
        session.unconfirmed.forget(tab_id);
        if session.current_tab == Some(tab_id) {
            session.current_tab = None;
            if !itself {
                session.lost = Some((tab_id, loss));
            }
        }
        if had && !itself {
            session.refs.lose(tab_id, loss);
        }
    }
}

/// The custody of the tabs: which tabs the agents may reach and which session holds each
/// (the tabs' grants and debugger sessions), what each session has been shown of them, and the
/// timeline that keeps what happened on them. Granting, revoking, taking up and handing over a
/// tab touch these three and nothing else of the state.
#[derive(Clone, Copy)]
pub struct Custody<'a> {
    /// The tabs: registry (grants, holders), debugger events, locks, selections.
    pub tabs: &'a Rc<TabsState>,
    /// The MCP sessions and what each has been shown.
    pub sessions: &'a Sessions,
    /// The timeline, and what could not be saved.
    pub timeline: &'a Rc<TimelineState>,
}

impl Custody<'_> {
    /// Drops every session's view of a tab that went away, `loss` saying how. A session that
    /// was acting on it has no current tab until it names one, except `by`, the session that
    /// closed the tab itself; every other session's refs of the tab are refused with `loss`.
    pub fn forget_tab_pages(&self, tab_id: i32, loss: TabLoss, by: Option<&str>) {
        for (id, session) in self.sessions.borrow_mut().iter_mut() {
            State::lose(session, tab_id, loss, by == Some(id.as_str()));
        }
        self.tabs.forget_lock(tab_id);
        crate::cdp::page_replaced(tab_id);
    }
}

/// What an agent's call may reach: the custody of the tabs it acts on, and the person's
/// questions, options and downloads (its permission gates ask, and it reads the options). Not
/// the calls in flight, the review, or the drill's seam.
#[derive(Clone, Copy)]
pub struct Reach<'a> {
    /// The tabs, the sessions and the timeline.
    pub custody: Custody<'a>,
    /// Questions, options and downloads.
    pub asks: &'a AsksState,
}
