//! The console flood guard's decisions: which events it counts, and per tab and target (a tab's
//! page and each of its out-of-process frames apart) whether a message is kept, dropped, or
//! trips a pause of that target's console, with what each pause dropped for the timeline.
//!
//! A page that logs faster than the browser can hand its events to the extension builds a
//! queue in front of everything else from the tab, answers to commands included. So when a
//! target logs more than [`LIMIT_PER_S`] messages, or more than [`TEXT_LIMIT_PER_S`] characters,
//! within a second of the page's own clock (the time each message was logged, not when it
//! arrived: a queue delivers a flood slower than it was logged, and counted on arrival it could
//! stay under the limit while the queue grows without end), its console is paused for
//! [`PAUSE_MS`]. A target that floods again within [`RELAPSE_MS`] of resuming is paused twice as
//! long as the time before (up to [`MAX_PAUSE_MS`]) and trips at a tenth of the limits. Messages
//! stamped before a resumption are replays and are dropped.
//!
//! The extension's runtime measures each event, asks [`FloodGuard::admit`], switches the
//! target's console off and on over CDP, and hands what was dropped to the timeline.

use std::collections::HashMap;

use crate::text::thousands;

/// The events the guard counts: every kind the recorder turns into a console message. The service
/// worker measures and cuts the same ones (`GUARDED` in `sw.js`).
pub const GUARDED: &[&str] = &["Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"];
/// Messages a target may log within one second before its console is paused.
pub const LIMIT_PER_S: u32 = 1_000;
/// Characters of text a target may log within one second before its console is paused: four
/// strings of 1 MiB, a thousand messages of 4,000 characters.
pub const TEXT_LIMIT_PER_S: f64 = 4_000_000.0;
/// How long a flooding target's console stays paused the first time.
pub const PAUSE_MS: u32 = 5_000;
/// The longest pause, for a target that floods again each time it is turned back on.
pub const MAX_PAUSE_MS: u32 = 60_000;
/// A flood this soon after reporting resumed (on the page's clock) counts as the same flood.
pub const RELAPSE_MS: f64 = 2_000.0;
/// Within [`RELAPSE_MS`] of resuming, a target trips at this fraction of the limits: what it logs
/// until the guard trips reaches the worker as a burst, with what follows until the browser takes
/// in `Runtime.disable`, and a target that floods again at once need not be given a thousand
/// messages to show it.
const RELAPSE_LIMIT_DIVISOR: u32 = 10;

/// Which limit a target went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flooded {
    /// More than [`LIMIT_PER_S`] messages within a second.
    Messages,
    /// More than [`TEXT_LIMIT_PER_S`] characters within a second.
    Text,
}

impl Flooded {
    /// Why the console was paused, as the timeline says it.
    pub fn reason(self) -> String {
        match self {
            Flooded::Messages => {
                format!("it logged more than {} messages within a second", thousands(LIMIT_PER_S as usize))
            }
            Flooded::Text => {
                format!(
                    "it logged more than {} characters of text within a second",
                    thousands(TEXT_LIMIT_PER_S as usize)
                )
            }
        }
    }
}

/// What to do with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Record it.
    Keep,
    /// Drop it (its target's console is paused, or it was logged during the pause).
    Drop,
    /// Drop it, and pause its target's console now, for `pause_ms`.
    Trip {
        /// How long (ms).
        pause_ms: u32,
        /// Which limit it went past.
        why: Flooded,
    },
}

/// One target's rate and pause.
#[derive(Debug, Default)]
struct TargetWindow {
    /// Start of the current one-second window (epoch ms, the page's clock where messages say).
    start_ms: f64,
    count: u32,
    characters: f64,
    paused: bool,
    /// The timeline's id of its latest pause.
    pause_id: Option<u64>,
    /// Messages dropped, and their characters, not yet handed to the timeline.
    dropped: u64,
    dropped_characters: u64,
    /// When reporting resumed (epoch ms): messages stamped earlier are replays.
    resumed_epoch_ms: f64,
    /// The last pause (ms), doubled when the target floods again right after it.
    last_pause_ms: u32,
    /// An out-of-process frame's id (its target's) and the URL of its document.
    frame: Option<(String, String)>,
    /// Its session went away while it was paused: forgotten when the pause ends.
    detached: bool,
}

impl TargetWindow {
    fn take_dropped(&mut self) -> Option<Dropped> {
        let dropped = Dropped {
            pause_id: self.pause_id?,
            messages: std::mem::take(&mut self.dropped),
            characters: std::mem::take(&mut self.dropped_characters),
        };
        (dropped.messages > 0).then_some(dropped)
    }
}

/// Messages a pause dropped, for the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// The timeline's id of the pause.
    pub pause_id: u64,
    /// How many.
    pub messages: u64,
    /// Their characters of text.
    pub characters: u64,
}

/// What ended with a pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumed {
    /// The timeline's id of the pause, unless the timeline it was kept on was replaced.
    pub pause_id: Option<u64>,
    /// What it dropped that the timeline was not told yet.
    pub dropped: Option<Dropped>,
    /// Whether the target is still there.
    pub still_there: bool,
}

/// Which of a tab's sessions: the page's own (`None`) or an out-of-process frame's.
pub type Session = Option<String>;

/// Per tab and target, how fast it logs and whether its console is paused.
#[derive(Debug, Default)]
pub struct FloodGuard {
    tabs: HashMap<i32, HashMap<Session, TargetWindow>>,
}

impl FloodGuard {
    fn window(&mut self, tab: i32, session: &Session) -> &mut TargetWindow {
        let targets = self.tabs.entry(tab).or_default();
        // Looked up before inserting, so a known target costs no allocation.
        if !targets.contains_key(session) {
            targets.insert(session.clone(), TargetWindow::default());
        }
        targets.get_mut(session).expect("inserted above")
    }

    /// Decides about one message from `session` of `tab`, holding `characters` of text, stamped
    /// `stamp_epoch_ms` by the page, arriving at `now_epoch_ms` (which counts for a message
    /// without a stamp).
    pub fn admit(
        &mut self,
        tab: i32,
        session: &Session,
        stamp_epoch_ms: Option<f64>,
        now_epoch_ms: f64,
        characters: f64,
    ) -> Admit {
        let w = self.window(tab, session);
        if w.paused || stamp_epoch_ms.is_some_and(|t| t < w.resumed_epoch_ms) {
            w.dropped += 1;
            w.dropped_characters += characters as u64;
            return Admit::Drop;
        }
        let logged = stamp_epoch_ms.unwrap_or(now_epoch_ms);
        if logged - w.start_ms >= 1_000.0 {
            w.start_ms = logged;
            w.count = 0;
            w.characters = 0.0;
        }
        w.count += 1;
        w.characters += characters;
        let relapse = w.last_pause_ms > 0 && logged - w.resumed_epoch_ms < RELAPSE_MS;
        let divisor = if relapse { RELAPSE_LIMIT_DIVISOR } else { 1 };
        let why = if w.count > LIMIT_PER_S / divisor {
            Flooded::Messages
        } else if w.characters > TEXT_LIMIT_PER_S / f64::from(divisor) {
            Flooded::Text
        } else {
            return Admit::Keep;
        };
        w.paused = true;
        w.last_pause_ms = if relapse { (w.last_pause_ms * 2).min(MAX_PAUSE_MS) } else { PAUSE_MS };
        Admit::Trip { pause_ms: w.last_pause_ms, why }
    }

    /// What an earlier pause of the target dropped and the timeline was not told yet.
    pub fn take_dropped_of(&mut self, tab: i32, session: &Session) -> Option<Dropped> {
        self.tabs.get_mut(&tab)?.get_mut(session)?.take_dropped()
    }

    /// The timeline keeps the target's new pause as `pause_id`; the message that tripped it,
    /// of `characters`, is its first dropped.
    pub fn paused_as(&mut self, tab: i32, session: &Session, pause_id: u64, characters: f64) {
        let w = self.window(tab, session);
        w.pause_id = Some(pause_id);
        w.dropped = 1;
        w.dropped_characters = characters as u64;
    }

    /// Reporting is back on for the target from `epoch_ms` (a frame whose session went away
    /// during the pause is forgotten now).
    pub fn resume(&mut self, tab: i32, session: &Session, epoch_ms: f64) -> Resumed {
        let gone = Resumed { pause_id: None, dropped: None, still_there: false };
        let Some(targets) = self.tabs.get_mut(&tab) else { return gone };
        let Some(w) = targets.get_mut(session) else { return gone };
        w.paused = false;
        w.resumed_epoch_ms = epoch_ms;
        w.start_ms = epoch_ms;
        w.count = 0;
        w.characters = 0.0;
        let resumed = Resumed { pause_id: w.pause_id, dropped: w.take_dropped(), still_there: !w.detached };
        if w.detached {
            targets.remove(session);
        }
        resumed
    }

    /// The timeline the pauses were kept on was replaced by the one saved before a worker restart
    /// (read once, after events may have arrived): the pauses' ids mean nothing there, and what
    /// they drop from now on goes untold rather than to another pause.
    pub fn timeline_replaced(&mut self) {
        for w in self.tabs.values_mut().flat_map(HashMap::values_mut) {
            w.pause_id = None;
            w.dropped = 0;
            w.dropped_characters = 0;
        }
    }

    /// Everything dropped that the timeline was not told yet, in every tab.
    pub fn take_all_dropped(&mut self) -> Vec<Dropped> {
        self.tabs.values_mut().flat_map(|targets| targets.values_mut().filter_map(TargetWindow::take_dropped)).collect()
    }

    /// An out-of-process frame of `tab`, `frame_id`, at `url`, was attached as `session`.
    pub fn frame_attached(&mut self, tab: i32, session: &str, frame_id: &str, url: &str) {
        self.window(tab, &Some(session.to_owned())).frame = Some((frame_id.to_owned(), url.to_owned()));
    }

    /// Frame `frame_id` of `session` of `tab` shows `url` now: when it is the out-of-process frame
    /// the session serves (not one inside it), that is the URL its pauses are told by. Returns the
    /// target's latest pause when it began before the URL was known.
    pub fn frame_navigated(&mut self, tab: i32, session: &str, frame_id: &str, url: &str) -> Option<u64> {
        let w = self.tabs.get_mut(&tab)?.get_mut(&Some(session.to_owned()))?;
        let (id, shown) = w.frame.as_mut()?;
        if id != frame_id || url.is_empty() {
            return None;
        }
        let was_unknown = shown.is_empty();
        *shown = url.to_owned();
        w.pause_id.filter(|_| was_unknown)
    }

    /// An out-of-process frame's session went away: it is forgotten, once its pause (if any)
    /// ends. Returns what it dropped that the timeline was not told yet.
    pub fn frame_detached(&mut self, tab: i32, session: &str) -> Option<Dropped> {
        let targets = self.tabs.get_mut(&tab)?;
        let session = Some(session.to_owned());
        let w = targets.get_mut(&session)?;
        let dropped = w.take_dropped();
        if w.paused {
            w.detached = true;
        } else {
            targets.remove(&session);
        }
        dropped
    }

    /// The URL of the frame `session` of `tab` serves, when it is an out-of-process frame (empty
    /// while it is not known).
    pub fn frame_url(&self, tab: i32, session: &Session) -> Option<String> {
        session.as_ref()?;
        let frame = self.tabs.get(&tab).and_then(|t| t.get(session)).and_then(|w| w.frame.as_ref());
        Some(frame.map(|(_, url)| url.clone()).unwrap_or_default())
    }

    /// Forgets a tab that closed; returns what it dropped that the timeline was not told yet.
    pub fn forget(&mut self, tab: i32) -> Vec<Dropped> {
        let Some(mut targets) = self.tabs.remove(&tab) else { return Vec::new() };
        targets.values_mut().filter_map(TargetWindow::take_dropped).collect()
    }
}

/// Whether the guard counts an event of `method` (a log entry's from `log_source`): every kind
/// the recorder makes a console message of. A browser log entry about a failed load is not one
/// (the recorder leaves the failure to the network side), so a page whose requests fail is not
/// paused for it.
pub fn counts(method: &str, log_source: Option<&str>) -> bool {
    GUARDED.contains(&method) && !(method == "Log.entryAdded" && log_source == Some("network"))
}

#[cfg(test)]
mod tests;
