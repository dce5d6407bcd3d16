//! Why a page-state request cannot be answered, worded for the agent: what happened and what
//! to do.

use crate::refs::RefError;

/// A request the page state cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// `since_version` names a version that does not exist yet.
    #[error("v{asked} does not exist yet: the current version is v{current}")]
    FutureVersion {
        /// The version the agent named.
        asked: u64,
        /// The current version.
        current: u64,
    },
    /// `region` names no region of the page.
    #[error("no region named {wanted:?}; regions: {available}")]
    NoSuchRegion {
        /// What the agent asked for.
        wanted: String,
        /// The page's region names, or "none on this page".
        available: String,
    },
    /// A later page of a snapshot was asked for before any snapshot.
    #[error("there is no snapshot to continue: call browser_snapshot without `page` first")]
    NothingToContinue,
    /// `browser_find` was given nothing to look for.
    #[error("give at least one of `text`, `role` or `region`")]
    EmptyQuery,
    /// A ref that cannot be used.
    #[error(transparent)]
    Ref(#[from] RefError),
}
