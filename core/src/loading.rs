//! The wait for a page to load, decided in the engine: a [`LoadWait`] is fed the main frame's
//! navigation events and the answers of `document.readyState` probes, and says what to do next
//! (listen for events, probe, or stop) and, at the end, what the agent should be told. The
//! runtime listens, probes and feeds the answers back; it decides nothing.
//!
//! The wait ends when the awaited document fires `load`, or (a document restored from the
//! back/forward cache fires none) when it is the committed one and answers that it is complete.
//! A document that navigates on before it finishes loading (a script sending the page elsewhere
//! at once, which may end on an error page) hands the wait to the one that replaced it. The whole
//! wait holds to one cap, and each probe waits only what is left of it (at most
//! [`PROBE_TIMEOUT_MS`]), so a page too busy to answer probes cannot stretch the wait. When the
//! cap passes, the agent is told what is known: that the page had not finished loading, that it
//! has not answered the browser for so long (a script keeps it busy), or that it is on its way to
//! an address that has not answered.

use crate::urls::redact_url;

/// Longest one readiness probe waits for a busy page.
pub const PROBE_TIMEOUT_MS: u32 = 1_000;
/// How long the wait listens for events before it probes the page again.
pub const SLICE_MS: u32 = 250;

/// A navigation event of the tab's main frame, as the wait reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadEvent<'a> {
    /// The page asked to go to `url` (`Page.frameRequestedNavigation`).
    Requested {
        /// Where.
        url: &'a str,
    },
    /// A document committed (`Page.frameNavigated`), with its loader id.
    Committed {
        /// Its loader id.
        loader: &'a str,
    },
    /// The page moved within its document (`Page.navigatedWithinDocument`).
    WithinDocument,
    /// A document's `load` lifecycle event.
    Loaded {
        /// Its loader id.
        loader: &'a str,
    },
    /// Anything else.
    Other,
}

/// What asking the page for its `document.readyState` gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeAnswer {
    /// The page's answer.
    Answered(String),
    /// No answer in time: the page's main thread is busy.
    Unanswered,
    /// Any other failure (the document went away, …).
    Failed,
}

/// What the driver does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Listen for events for at most this long, feeding each to [`LoadWait::observe`] and, when
    /// none ended the listening, telling [`LoadWait::quiet`].
    Listen(u32),
    /// Ask the page for its `document.readyState`, waiting at most this long, and hand the answer
    /// to [`LoadWait::probed`].
    Probe(u32),
    /// The wait is over: read [`LoadWait::outcome`].
    Done,
}

/// How the wait ended, and what the agent is told.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOutcome {
    /// The awaited document finished loading.
    pub loaded: bool,
    /// What the agent should know.
    pub notes: Vec<String>,
    /// For how long the page had not answered when the wait ended, if it had stopped answering.
    pub silent_ms: Option<f64>,
    /// Where the page was on its way to (masked), when that navigation had not committed and the
    /// page answered no probe meanwhile.
    pub on_its_way_to: Option<String>,
}

/// One wait for the main frame's document to load.
#[derive(Debug, Clone)]
pub struct LoadWait {
    /// The document awaited, when known.
    loader: Option<String>,
    /// When the cap passes (ms on the driver's clock).
    deadline_ms: f64,
    cap_ms: u32,
    loaded: bool,
    /// Whether the next step is a probe (the last listening heard nothing that ended it and the
    /// document is the committed one).
    probe_next: bool,
    /// Since when probes have gone unanswered, if the last one did.
    silent_since: Option<f64>,
    /// Where the page asked to go, until a document commits.
    requested: Option<String>,
}

impl LoadWait {
    /// A wait, started at `now_ms`, for the document `loader` (the next to commit when `None`),
    /// holding to `cap_ms` in all.
    pub fn new(loader: Option<String>, now_ms: f64, cap_ms: u32) -> LoadWait {
        LoadWait {
            loader,
            deadline_ms: now_ms + f64::from(cap_ms),
            cap_ms,
            loaded: false,
            probe_next: false,
            silent_since: None,
            requested: None,
        }
    }

    fn left_ms(&self, now_ms: f64) -> u32 {
        (self.deadline_ms - now_ms).max(0.0) as u32
    }

    /// What to do at `now_ms`.
    pub fn step(&mut self, now_ms: f64) -> Step {
        let left = self.left_ms(now_ms);
        if self.loaded || left == 0 {
            return Step::Done;
        }
        if std::mem::take(&mut self.probe_next) {
            return Step::Probe(left.min(PROBE_TIMEOUT_MS));
        }
        Step::Listen(left.min(SLICE_MS))
    }

    /// Takes in one event of the main frame; `true` when it ends the listening (the awaited
    /// document loaded, or a later one replaced it and is awaited instead).
    pub fn observe(&mut self, event: LoadEvent<'_>) -> bool {
        match event {
            LoadEvent::Requested { url } => {
                self.requested = Some(url.to_owned());
                false
            }
            LoadEvent::WithinDocument => {
                self.requested = None;
                false
            }
            LoadEvent::Committed { loader } => {
                self.requested = None;
                // The awaited document was replaced by a later one (events are listened to
                // from before the navigation, so any other document committed since came after).
                if self.loader.as_deref().is_some_and(|awaited| awaited != loader) {
                    self.loader = Some(loader.to_owned());
                    return true;
                }
                false
            }
            LoadEvent::Loaded { loader } => {
                if self.loader.as_deref().is_none_or(|awaited| awaited == loader) {
                    self.loaded = true;
                    return true;
                }
                false
            }
            LoadEvent::Other => false,
        }
    }

    /// The listening ended with nothing; `committed` is the loader id of the main frame's
    /// committed document now. When it is the awaited one, the next step probes it.
    pub fn quiet(&mut self, committed: Option<&str>) {
        self.probe_next = self.loader.as_deref().is_none_or(|awaited| committed == Some(awaited));
    }

    /// The answer to a probe asked at `asked_ms`.
    pub fn probed(&mut self, answer: ProbeAnswer, asked_ms: f64) {
        match answer {
            ProbeAnswer::Answered(state) if state == "complete" => self.loaded = true,
            ProbeAnswer::Answered(_) => self.silent_since = None,
            ProbeAnswer::Unanswered => {
                self.silent_since.get_or_insert(asked_ms);
            }
            ProbeAnswer::Failed => {}
        }
    }

    /// How the wait ended at `now_ms`, and what to tell the agent.
    pub fn outcome(&self, now_ms: f64) -> LoadOutcome {
        if self.loaded {
            return LoadOutcome { loaded: true, ..LoadOutcome::default() };
        }
        let mut outcome = LoadOutcome {
            notes: vec![format!(
                "the page had not finished loading after {} s; what follows is what had loaded",
                self.cap_ms / 1000
            )],
            ..LoadOutcome::default()
        };
        if let Some(since) = self.silent_since {
            let silent_ms = now_ms - since;
            outcome.silent_ms = Some(silent_ms);
            match &self.requested {
                // No script is to blame: while a page is on its way elsewhere the browser may
                // answer nothing about it (seen with an address that never answers).
                Some(url) => {
                    let url = redact_url(url);
                    outcome.notes.push(format!(
                        "the page is on its way to {url}, which had not answered after {:.0} s",
                        silent_ms / 1000.0
                    ));
                    outcome.on_its_way_to = Some(url);
                }
                None => outcome.notes.push(format!(
                    "the page has not answered the browser for {:.0} s: a script on it is keeping it busy",
                    silent_ms / 1000.0
                )),
            }
        }
        outcome
    }
}

/// What the agent is told about a navigation that ended without a new page (a `204 No Content`
/// or `205` answer, a download, a navigation the page stopped or the browser blocked), with
/// what the server answered for the main frame's document when a response arrived, and the
/// file's suggested name when the tab said the navigation became a download.
pub fn no_new_page(status: Option<u64>, download: Option<&str>) -> String {
    if let Some(file) = download {
        let file = crate::downloads::claims::safe_file_name(file);
        return format!("the navigation became a download ({file}); the page stayed");
    }
    match status {
        Some(status @ (204 | 205)) => {
            format!("the request was sent; the server answered {status}, and the page stayed")
        }
        Some(status) => {
            format!("the navigation ended without a new page (the server answered {status}); the page stayed")
        }
        None => "the navigation ended without a new page (the browser or the page stopped it, or it became a \
                 download); the page stayed"
            .to_owned(),
    }
}

/// Longest wait for a page's `load` event, counted from when its navigation starts (sending it,
/// waiting for the new document and for its `load` all share it).
pub const LOAD_CAP_MS: u32 = 30_000;

/// Longest a navigation reads the page it loaded, counted from the end of the wait for `load`:
/// waiting for a frame and a quiet DOM, capturing it and writing the answer all share it. A page
/// whose scripts keep its main thread busy answers each step slowly; its navigation is answered
/// within this all the same, saying so.
pub const READ_CAP_MS: u32 = 15_000;

/// What the agent is told when the page a call loaded could not be read within
/// [`READ_CAP_MS`]. `did` says what the call did, tool first unless the answer starts with it:
/// `browser_navigate opened https://…`, `browser_click ran and opened https://…`.
pub fn unread_after_load(did: &str) -> String {
    format!(
        "{did}, but the page answered the browser too slowly to be read within {} s (a script on it is keeping \
         it busy), so there is no snapshot of it yet. {COME_BACK_LATER}",
        READ_CAP_MS / 1000
    )
}

/// What the agent is told when the page a call loaded had not finished loading within
/// [`LOAD_CAP_MS`] and had not answered the browser for `silent_ms` (a script keeps its main
/// thread busy), so reading it would only time out. `did` as for [`unread_after_load`].
pub fn silent_after_load(did: &str, silent_ms: f64) -> String {
    format!(
        "{did}, but the page had not finished loading after {} s and has not answered the browser for {:.0} s \
         (a script on it is keeping it busy), so it cannot be read yet. {COME_BACK_LATER}",
        LOAD_CAP_MS / 1000,
        silent_ms / 1000.0
    )
}

/// What the agent is told when the page a call loaded sent the browser on to `next` (its
/// secrets already masked), which had not answered after `silent_ms`, the load cap's end.
/// `did` as for [`unread_after_load`].
pub fn stuck_on_the_way(did: &str, next: &str, silent_ms: f64) -> String {
    format!(
        "{did}, but the page sent the browser on to {next}, which had not answered after {:.0} s, so there is \
         no page to read yet. {COME_BACK_LATER}",
        silent_ms / 1000.0
    )
}

/// How each answer about a page that cannot be read yet ends: what the agent can do.
const COME_BACK_LATER: &str = "Take a browser_snapshot in a while, or navigate elsewhere.";

/// How a wait for a quiet DOM ended, as the agent is told it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Settling {
    /// Quiet in time.
    Quiet,
    /// Still changing at the cap, after `elapsed_ms`, with `mutations` counted.
    StillChanging {
        /// How long the wait took.
        elapsed_ms: f64,
        /// DOM mutations counted.
        mutations: u64,
    },
    /// The document went away during the wait.
    Navigated,
    /// The page did not answer within `waited_ms`.
    Unanswered {
        /// How long it was waited for.
        waited_ms: u32,
    },
}

/// The note about a wait for a quiet DOM, if there is one to make.
pub fn settling_note(settling: Settling) -> Option<String> {
    match settling {
        Settling::Quiet => None,
        Settling::StillChanging { elapsed_ms, mutations } => Some(format!(
            "the page was still changing after {:.1} s ({mutations} mutations); this snapshot may be mid-update",
            elapsed_ms / 1000.0
        )),
        Settling::Navigated => Some("the page navigated while waiting for it to settle".into()),
        Settling::Unanswered { waited_ms } => Some(format!(
            "the page did not answer within {:.0} s while waiting for it to settle (a script may be keeping it \
             busy); this snapshot may be mid-update",
            f64::from(waited_ms) / 1000.0
        )),
    }
}

#[cfg(test)]
mod tests;
