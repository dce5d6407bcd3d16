//! What a page state keeps across a service-worker restart, and the page state that goes on
//! from it: versions keep rising, ref numbers are never reused, and refs from before the
//! restart are refused with the reason.

use super::PageState;
use crate::refs::RefRegistry;

/// What a (session, tab) page state keeps across a service-worker restart: enough that versions
/// go on rising and no ref number is ever reused for another element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResumePoint {
    /// The version the agent was last shown.
    pub version: u64,
    /// The number of the last ref issued.
    pub last_ref: u32,
}

impl PageState {
    /// What to keep across a worker restart.
    pub fn resume_point(&self) -> ResumePoint {
        ResumePoint { version: self.version, last_ref: self.registry.last_issued() }
    }

    /// The page state that goes on after a restart lost the one whose [`ResumePoint`] is `point`:
    /// versions go on from there, refs from before are refused with the reason, and the next
    /// look at the page is the full page saying why.
    pub fn resumed(point: ResumePoint) -> PageState {
        PageState {
            registry: RefRegistry::resumed(point.last_ref, point.version),
            version: point.version,
            restarted_after: Some(point.version),
            ..PageState::default()
        }
    }
}
