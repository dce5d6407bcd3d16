//! What a page state's answers are made of: why a response is the full page, what a response
//! says, how the page answers after something happened, and where an agent's version stands.

use std::collections::BTreeSet;

use super::Delta;
use crate::snapshot::RegionId;

/// Why a response is the full page.
#[derive(Debug, Clone, PartialEq)]
pub enum FullReason {
    /// The agent had not seen the page yet.
    FirstLook,
    /// The main frame loaded a new document.
    Navigation,
    /// So much changed that a delta would mislead.
    Unreliable {
        /// 1 − 2 × changed share, clamped to [0, 1].
        confidence: f64,
        /// Share of lines that changed.
        changed_share: f64,
    },
    /// A document's frame could not be identified, so its refs cannot be scoped.
    UnknownFrames,
    /// The agent asked for it.
    Requested,
    /// The agent's version is older than the kept history; its action was not run.
    TooStale {
        /// The version the agent said it had.
        agent_version: u64,
    },
    /// The extension restarted and lost what the agent's refs stood for.
    Restarted {
        /// The last version shown before the restart.
        after_version: u64,
    },
}

impl std::fmt::Display for FullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FullReason::FirstLook => f.write_str("first look"),
            FullReason::Navigation => f.write_str("new page"),
            // Short: it heads every answer that could not be a delta.
            FullReason::Unreliable { changed_share, .. } => {
                write!(f, "{:.0}% of lines changed", changed_share * 100.0)
            }
            FullReason::UnknownFrames => f.write_str("a frame could not be identified"),
            FullReason::Requested => f.write_str("as requested"),
            FullReason::TooStale { agent_version } => write!(f, "v{agent_version} is too old to update"),
            FullReason::Restarted { after_version } => {
                write!(f, "the extension restarted after v{after_version}; refs from before are gone")
            }
        }
    }
}

/// What a response says.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The whole page (regions in `collapsed` are written as unchanged).
    Full {
        /// Why.
        reason: FullReason,
        /// Regions of the snapshot that are unchanged since the previous baseline.
        collapsed: BTreeSet<RegionId>,
        /// The agent already has this page's title and URL: it is the page its action was on,
        /// still at the same address under the same title. The header is then the version line
        /// alone.
        address_known: bool,
    },
    /// Nothing the agent sees changed.
    NoChange,
    /// The page changed.
    Changed(Delta),
    /// An overlay opened: its content, with the page behind it frozen.
    OverlayOpened {
        /// The overlay's region name.
        overlay: String,
        /// Its content as added lines.
        delta: Delta,
    },
    /// An overlay closed: its refs are gone, and what changed behind it while it was open.
    OverlayClosed {
        /// The overlay's region name.
        overlay: String,
        /// The changes.
        delta: Delta,
    },
}

/// One response to the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The page version the agent now has.
    pub version: u64,
    /// What it says.
    pub outcome: Outcome,
    /// The page's new address, when an action moved it within the same document (a link to an
    /// anchor, a route a script pushed) and the answer is not the whole page, which says it.
    pub moved_to: Option<String>,
}

/// How the page answers after something happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A baseline after `browser_navigate` (regions unchanged since the last baseline collapse).
    Baseline,
    /// After an action: a delta, no change, an overlay, or the full page with its reason.
    AfterAction,
    /// The action was not run because the agent's version (this one) is older than the
    /// history: the full page.
    NotRun(u64),
    /// The action was not run because its ref (this one) is from before the extension
    /// restarted: the full page.
    RefFromBeforeRestart(String),
}

/// Where an agent that names the version it acts on stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Staleness {
    /// It has the current version.
    Current,
    /// It has an older version that is still in history: here is what changed since.
    Behind(Delta),
    /// Its version is older than the history: the action must not run.
    TooStale(u64),
}
