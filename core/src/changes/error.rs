//! Why a checkpoint or change-report request could not be served.
//!
//! Every message reaches an agent as is, so each says what happened and what to do next.

/// A checkpoint or change-report request that cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangesError {
    /// The name breaks the naming rules; the message says which rule and gives a valid example.
    #[error("{0}")]
    InvalidName(String),
    /// `create` was given a name already in use.
    #[error(
        "a checkpoint named `{name}` already exists (made {created}); delete it first with action `delete`, or \
         choose another name such as `{suggestion}`"
    )]
    NameTaken {
        /// The name asked for.
        name: String,
        /// When the existing checkpoint was made (ISO 8601).
        created: String,
        /// A free name to use instead.
        suggestion: String,
    },
    /// All named-checkpoint slots are in use.
    #[error(
        "{limit} named checkpoints exist, the most kept; delete one you no longer need with action `delete` \
         (the oldest is `{oldest}`)"
    )]
    TooManyCheckpoints {
        /// How many named checkpoints are kept.
        limit: usize,
        /// The oldest one's name.
        oldest: String,
    },
    /// `delete` named a checkpoint that does not exist.
    #[error("no checkpoint named `{name}`; {known}")]
    UnknownCheckpoint {
        /// The name asked for.
        name: String,
        /// The names that do exist, or how to make one.
        known: String,
    },
    /// The reference of a change report is neither a checkpoint name nor a time.
    #[error(
        "`{reference}` is neither a checkpoint name nor an ISO 8601 time such as 2025-01-02T03:04:05Z; {known}. \
         Leave `checkpoint` out to see the changes since your previous call."
    )]
    UnknownReference {
        /// The reference as given.
        reference: String,
        /// The names that do exist, or how to make one.
        known: String,
    },
    /// `create` or `delete` came without a name.
    #[error("action `{action}` needs a `name`, e.g. `before_refactor`")]
    NameMissing {
        /// The action that needs it.
        action: &'static str,
    },
    /// Saved state from an incompatible build.
    #[error("saved change-tracking state has format {found}, this build reads format {expected}; start afresh")]
    StateVersion {
        /// The format found.
        found: u32,
        /// The format this build reads.
        expected: u32,
    },
}
