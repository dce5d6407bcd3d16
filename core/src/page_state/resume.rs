//! What a page state keeps across a service-worker restart (or the replacement of a failed
//! runtime), and the page state that goes on from it: versions keep rising, ref numbers are
//! never reused, refs from before the restart are refused with the reason, and a field once
//! secret stays masked.

use super::PageState;
use crate::refs::RefRegistry;
use crate::snapshot::secrets::{RememberedFields, SecretFields};

/// What a (session, tab) page state keeps across a service-worker restart: enough that versions
/// go on rising, no ref number is ever reused for another element, and no field it knew as
/// secret is shown after the restart (a password field a "show password" toggle made a text
/// field is secret by nothing else).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResumePoint {
    /// The version the agent was last shown.
    pub version: u64,
    /// The number of the last ref issued.
    pub last_ref: u32,
    /// The fields it remembers as secret (at most
    /// [`crate::snapshot::secrets::REMEMBERED_MAX`]).
    #[serde(default)]
    pub secret_fields: RememberedFields,
}

impl PageState {
    /// What to keep across a worker restart.
    pub fn resume_point(&self) -> ResumePoint {
        ResumePoint {
            version: self.version,
            last_ref: self.registry.last_issued(),
            secret_fields: self.secret_fields.remembered(),
        }
    }

    /// The page state that goes on after a restart lost the one whose [`ResumePoint`] is `point`:
    /// versions go on from there, refs from before are refused with the reason, and the next
    /// look at the page is the full page saying why.
    pub fn resumed(point: ResumePoint) -> PageState {
        PageState {
            registry: RefRegistry::resumed(point.last_ref, point.version),
            version: point.version,
            restarted_after: Some(point.version),
            secret_fields: SecretFields::restored(&point.secret_fields),
            ..PageState::default()
        }
    }
}
