//! The one authority on what an agent has seen of a tab.
//!
//! There is one [`PageState`] per (MCP session, tab). It alone assigns refs, numbers versions,
//! keeps the history of what the agent was shown, tracks open overlays, remembers the regions of
//! the last baseline, and decides what a response says: the full page, "no change", a delta, an
//! overlay opened or closed. No cache or second state answers around it: every response is
//! computed from it and updates it, in one place.
//!
//! * Versions are monotonic across navigations and only move when the page's content changes
//!   (a content hash, so nothing is counted twice).
//! * A delta is exactly what turns the agent's previous view into its new one
//!   ([`view::apply`]); refs that died are listed first.
//! * While an overlay (a modal, a dialog, a dropdown) is open, the page behind it is frozen in
//!   the agent's view: changes there are told when the overlay closes.
//! * A field judged secret (`crate::snapshot::secrets`) stays masked, even after a "show
//!   password" toggle makes it a text field.
//! * A full snapshot is sent, with its reason, at first look, after a main-frame navigation,
//!   when a delta would mislead (confidence below 0.6 or more than 40 % of lines changed, unless
//!   the delta is at most half as long as the page), when a document's frame is unknown, or on
//!   request. Baselines collapse regions that have not
//!   changed since the previous baseline.

pub mod delta;
pub mod error;
mod fallback;
pub mod find;
mod held;
pub mod outcome;
pub mod overlay;
pub mod pointed;
pub mod regions;
pub mod response;
mod resume;
pub mod view;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use crate::capture::Capture;
use crate::protocol::{SnapshotParams, ToolOutput};
use crate::refs::{GoneReason, NodeKey, RefError, RefRegistry};
use crate::snapshot::render::RenderOptions;
use crate::snapshot::secrets::SecretFields;
use crate::snapshot::{Snapshot, compile_with};
use crate::tab_refs::TabRefs;
use crate::urls::UrlPolicy;
pub use delta::Delta;
pub use error::PageError;
pub use fallback::{MAX_CHANGED_SHARE, MIN_CONFIDENCE, SHORT_DELTA_SHARE};
use find::FindQuery;
pub use outcome::{Answer, FullReason, Outcome, Response, Staleness};
use overlay::{OpenOverlay, compose, overlays_in};
use regions::RegionSignature;
use response::Structured;
pub use resume::ResumePoint;
use view::{View, diff};

/// How many past versions of the agent's view are kept for agents that act on an older one.
pub const HISTORY: usize = 3;
/// How many versions of the agent's view are held for a person to compare (the panel).
pub const HELD_VERSIONS: usize = 30;
/// At most this many bytes of held views (the oldest go first).
pub const HELD_BYTES: usize = 4 * 1024 * 1024;

/// The page state of one (MCP session, tab).
#[derive(Debug, Clone, Default)]
pub struct PageState {
    registry: RefRegistry,
    version: u64,
    /// What the agent has been shown: its current view.
    shown: Option<View>,
    /// The version `shown` was shown at.
    shown_version: u64,
    /// Earlier views the agent was shown, newest last.
    history: VecDeque<(u64, View)>,
    /// Hash of the page's full content at the current version.
    content: Option<[u8; 32]>,
    /// The base page as the agent last saw it, while overlays are open.
    frozen_base: Option<View>,
    /// Open overlays, outermost first.
    overlays: Vec<OpenOverlay>,
    main_loader: String,
    baseline_regions: Option<HashMap<String, RegionSignature>>,
    last: Option<Snapshot>,
    /// The last full response: later pages of it render from here.
    last_full: Option<Response>,
    /// Views shown, by version, for a person to compare (newest last), at most `held_limit`.
    held: VecDeque<(u64, View)>,
    held_limit: Option<usize>,
    /// Regions (and those inside them) the last full page wrote as unchanged: the line it was.
    folded: BTreeMap<String, String>,
    /// Set when this page state goes on after a restart that lost the one before, until the
    /// agent is shown the page again: the version it had then.
    restarted_after: Option<u64>,
    /// Fields judged secret before: they stay masked after a "show password" toggle.
    secret_fields: SecretFields,
    /// Which URLs the user allows; frames showing others are not read.
    url_policy: UrlPolicy,
}

impl PageState {
    /// A page state that has shown nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current version (0 before the first response).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The last snapshot compiled and responded with.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.last.as_ref()
    }

    /// The last full response (its later pages are rendered from it and [`PageState::snapshot`]).
    pub fn last_full(&self) -> Option<&Response> {
        self.last_full.as_ref()
    }

    /// The agent's current view.
    pub fn view(&self) -> Option<&View> {
        self.shown.as_ref()
    }

    /// Names of the open overlays, outermost first.
    pub fn overlays(&self) -> Vec<&str> {
        self.overlays.iter().map(|o| o.name.as_str()).collect()
    }

    /// Sets the person's own words that make a field secret, for the next compile.
    pub fn set_secret_words(&mut self, words: &[String]) {
        self.secret_fields.set_extra_words(words);
    }

    /// Sets which URLs the user allows, for the next compile: a frame showing a URL that an
    /// agent could not load is not read.
    pub fn set_url_policy(&mut self, policy: UrlPolicy) {
        self.url_policy = policy;
    }

    /// Compiles a capture with this page state's refs, its memory of secret fields and the
    /// user's URL policy.
    pub fn compile(&mut self, capture: &Capture) -> Snapshot {
        compile_with(capture, &mut self.registry, &mut self.secret_fields, &self.url_policy)
    }

    /// What of `capture` a screenshot paints over: the fields a snapshot masks, and the frames
    /// it does not read.
    pub fn masked_fields(&mut self, capture: &Capture) -> Vec<crate::snapshot::Masked> {
        crate::snapshot::masked_fields(capture, &mut self.secret_fields, &self.url_policy)
    }

    /// [`Self::compile`] for tab `tab` of a session whose tabs draw ref numbers from `numbers`.
    pub fn compile_on_tab(&mut self, capture: &Capture, tab: i32, numbers: &mut TabRefs) -> Snapshot {
        let before = numbers.last_issued();
        self.registry.issue_above(before);
        let snapshot = self.compile(capture);
        numbers.issued(tab, before, self.registry.last_issued());
        snapshot
    }

    /// The live node behind a ref; `frames` maps each frame of the tab to its current loader.
    pub fn resolve(&self, element_ref: &str, frames: &HashMap<String, String>) -> Result<NodeKey, RefError> {
        self.registry.resolve(element_ref, frames)
    }

    /// Where an agent acting on `since` stands. An unknown future version is an error.
    pub fn check_since(&self, since: Option<u64>) -> Result<Staleness, PageError> {
        let Some(since) = since else { return Ok(Staleness::Current) };
        if since == self.version {
            return Ok(Staleness::Current);
        }
        if since > self.version {
            return Err(PageError::FutureVersion { asked: since, current: self.version });
        }
        let (Some(old), Some(now)) =
            (self.history.iter().find(|(v, _)| *v == since).map(|(_, view)| view), &self.shown)
        else {
            return Ok(Staleness::TooStale(since));
        };
        let gone = old.refs().difference(&now.refs()).map(|&r| (r, GoneReason::Removed)).collect();
        Ok(Staleness::Behind(Delta { from: since, to: self.version, gone, lines: diff(old, now) }))
    }

    /// A baseline: the full page, for `browser_snapshot` or `browser_navigate`; with
    /// `everything`, no region is collapsed as unchanged since the previous baseline.
    pub fn baseline(&mut self, snapshot: Snapshot, everything: bool) -> Response {
        let reason = if let (None, Some(after_version)) = (&self.shown, self.restarted_after) {
            FullReason::Restarted { after_version }
        } else if self.shown.is_none() {
            FullReason::FirstLook
        } else if snapshot.main_loader != self.main_loader {
            FullReason::Navigation
        } else {
            FullReason::Requested
        };
        self.full(snapshot, reason, !everything)
    }

    /// The agent's action ran and the page settled: what to tell it.
    pub fn after_action(&mut self, snapshot: Snapshot) -> Response {
        if let (None, Some(after_version)) = (&self.shown, self.restarted_after) {
            return self.full(snapshot, FullReason::Restarted { after_version }, false);
        }
        if self.shown.is_none() {
            return self.full(snapshot, FullReason::FirstLook, false);
        }
        if snapshot.main_loader != self.main_loader {
            return self.full(snapshot, FullReason::Navigation, true);
        }
        if snapshot.unknown_frames {
            return self.full(snapshot, FullReason::UnknownFrames, false);
        }
        let page = View::of(&snapshot);
        let open = overlays_in(&snapshot);
        let previous = self.shown.clone().unwrap_or_default();
        let base = match (&self.frozen_base, open.is_empty()) {
            // Overlays open: the page behind them stays as the agent last saw it.
            (Some(frozen), false) => frozen.clone(),
            (None, false) => previous.base(),
            (_, true) => page.base(),
        };
        let agent_view = compose(&base, &page);
        let lines = diff(&previous, &agent_view);
        let opened = open.len() > self.overlays.len() && open.starts_with(&self.overlays);
        let closed = open.len() < self.overlays.len() && self.overlays.starts_with(&open);
        // Another overlay in place of the open one (another element, frame or document, even
        // under the same name): the old one's refs are gone and the new one is shown as opened.
        let replaced = !opened && !closed && !open.is_empty() && open != self.overlays;
        let overlay_moved = opened || closed || replaced;
        if !overlay_moved && let Some(reason) = fallback::misleading(&previous, &agent_view, &lines, &snapshot) {
            return self.full(snapshot, reason, false);
        }
        let moved_to = self.last.as_ref().filter(|last| last.url != snapshot.url).map(|_| snapshot.url.clone());
        let version = self.advance(&page);
        let gone = self.retire(&previous, &agent_view, &snapshot, version);
        let delta = Delta { from: self.shown_version, to: version, gone, lines };
        let outcome = if opened || replaced {
            Outcome::OverlayOpened { overlay: open.last().map(|o| o.name.clone()).unwrap_or_default(), delta }
        } else if closed {
            Outcome::OverlayClosed { overlay: self.overlays.last().map(|o| o.name.clone()).unwrap_or_default(), delta }
        } else if delta.lines.is_empty() && delta.gone.is_empty() {
            Outcome::NoChange
        } else {
            Outcome::Changed(delta)
        };
        self.frozen_base = (!open.is_empty()).then_some(base);
        self.overlays = open;
        self.remember(agent_view, snapshot);
        Response { version: self.version, outcome, moved_to }
    }

    /// The full page, with the previous baseline's unchanged regions collapsed if `dedup`.
    pub fn full(&mut self, snapshot: Snapshot, reason: FullReason, dedup: bool) -> Response {
        // Only after an action on the page the agent was shown: any other full page is a new
        // start (a first look, a navigation, a restart, a request) and says where it is.
        let address_known = matches!(reason, FullReason::Unreliable { .. })
            && self.last.as_ref().is_some_and(|last| last.url == snapshot.url && last.title == snapshot.title);
        let view = View::of(&snapshot);
        let previous = self.shown.clone().unwrap_or_default();
        let version = self.advance(&view);
        self.retire(&previous, &view, &snapshot, version);
        let collapsed = match (&self.baseline_regions, dedup) {
            (Some(before), true) => regions::unchanged(&snapshot, before),
            _ => BTreeSet::new(),
        };
        self.baseline_regions = Some(regions::signatures(&snapshot));
        self.folded = regions::folded(&snapshot, &collapsed);
        self.overlays = overlays_in(&snapshot);
        self.frozen_base = (!self.overlays.is_empty()).then(|| view.base());
        self.main_loader = snapshot.main_loader.clone();
        self.remember(view, snapshot);
        let outcome = Outcome::Full { reason, collapsed, address_known };
        let response = Response { version: self.version, outcome, moved_to: None };
        self.last_full = Some(response.clone());
        response
    }

    /// `browser_snapshot`: the page as it is now, every region written out unless the agent asks
    /// for regions unchanged since its last page to be collapsed; with the snapshot's facts.
    pub fn answer_snapshot(&mut self, snapshot: Snapshot, params: &SnapshotParams) -> Result<ToolOutput, PageError> {
        let options = response::render_options(&snapshot, params, 1)?;
        let everything = !params.collapse || params.region.is_some();
        let response = self.baseline(snapshot, everything);
        let snapshot = self.last.as_ref().expect("a snapshot was just recorded");
        Ok(response::answer(snapshot, &response, &options, &[], None, Structured::Snapshot))
    }

    /// `browser_snapshot` with `page` > 1: a later page of the snapshot the agent is reading
    /// (not a new capture).
    pub fn continue_snapshot(&self, params: &SnapshotParams) -> Result<ToolOutput, PageError> {
        let (Some(snapshot), Some(response)) = (&self.last, &self.last_full) else {
            return Err(PageError::NothingToContinue);
        };
        // A later page is read on its own: it says where it is.
        let mut response = response.clone();
        if let Outcome::Full { address_known, .. } = &mut response.outcome {
            *address_known = false;
        }
        let page = params.page.unwrap_or(1).max(1) as usize;
        let options = response::render_options(snapshot, params, page)?;
        Ok(response::answer(snapshot, &response, &options, &[], None, Structured::Snapshot))
    }

    /// The answer to a navigation or an action, prefixed by `notes` (waits that hit their
    /// limit) and `notice` (what changed before the action of an agent acting on an older
    /// version).
    pub fn answer(&mut self, snapshot: Snapshot, how: Answer, notes: &[String], notice: Option<&Delta>) -> ToolOutput {
        let response = match &how {
            Answer::Baseline => self.baseline(snapshot, false),
            Answer::AfterAction => self.after_action(snapshot),
            Answer::NotRun(agent_version) => {
                self.full(snapshot, FullReason::TooStale { agent_version: *agent_version }, false)
            }
            Answer::RefFromBeforeRestart(_) => {
                let after_version = self.restarted_after.unwrap_or(self.version);
                self.full(snapshot, FullReason::Restarted { after_version }, false)
            }
        };
        let snapshot = self.last.as_ref().expect("a snapshot was just recorded");
        let mut out =
            response::answer(snapshot, &response, &RenderOptions::default(), notes, notice, Structured::Outcome);
        match how {
            Answer::NotRun(version) => {
                out.text = format!(
                    "Not run: your refs come from v{version}, which is older than the history kept. Here is the \
                     page now; act on these refs.\n{}",
                    out.text
                );
            }
            Answer::RefFromBeforeRestart(element_ref) => {
                out.text = format!(
                    "Not run: {element_ref} is from before the extension restarted, when what it stood for was \
                     lost. Here is the page now; act on these refs.\n{}",
                    out.text
                );
            }
            Answer::Baseline | Answer::AfterAction => {}
        }
        out
    }

    /// `browser_find` on the page the agent last saw; `None` when it has seen nothing yet.
    pub fn find(&self, query: &FindQuery) -> Option<ToolOutput> {
        self.last.as_ref().map(|snapshot| find::answer(snapshot, self.version, query))
    }

    /// Moves to a new version if the page's content changed since the current one.
    fn advance(&mut self, page: &View) -> u64 {
        let hash = page.hash();
        if self.content != Some(hash) || self.version == 0 {
            self.version += 1;
            self.content = Some(hash);
        }
        self.version
    }

    /// Marks the refs the agent held that the new view no longer shows as gone, and returns
    /// them with their reasons.
    fn retire(&mut self, previous: &View, now: &View, snapshot: &Snapshot, version: u64) -> Vec<(u32, GoneReason)> {
        let mut frames: HashMap<String, String> =
            snapshot.elements.iter().map(|e| (e.key.frame_id.clone(), e.key.loader_id.clone())).collect();
        frames.insert(snapshot.main_frame.clone(), snapshot.main_loader.clone());
        let now_refs = now.refs();
        let mut gone = Vec::new();
        for r in previous.refs().difference(&now_refs) {
            let reason = self.registry.reason_for(*r, &frames);
            self.registry.mark_gone(*r, reason, version);
            gone.push((*r, reason));
        }
        gone
    }

    fn remember(&mut self, view: View, snapshot: Snapshot) {
        if let Some(shown) = self.shown.take()
            && self.shown_version != self.version
        {
            self.history.push_back((self.shown_version, shown));
            while self.history.len() > HISTORY {
                self.history.pop_front();
            }
        }
        if self.held.back().is_none_or(|(v, _)| *v != self.version) {
            self.held.push_back((self.version, view.clone()));
        } else if let Some(last) = self.held.back_mut() {
            last.1 = view.clone();
        }
        self.trim_held();
        self.shown = Some(view);
        self.shown_version = self.version;
        self.last = Some(snapshot);
    }
}
