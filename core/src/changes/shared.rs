//! A timeline shared between threads (native use: the host, tests, benchmarks).
//!
//! Two locks split the state the way it is used: a mutex over the checkpoints and a
//! read-write lock over the buffers. Recording an event takes only the buffer write lock, so
//! events keep flowing while reports are computed; a report takes the checkpoint lock and then a
//! buffer read lock, so reports for different sessions read the buffers side by side.
//!
//! Lock order: **the checkpoint lock first, the buffer lock second**, always. No method takes
//! the checkpoint lock while holding the buffer lock, and none holds a lock while calling out,
//! so the two locks cannot deadlock. A lock poisoned by a panicking thread is taken over as is:
//! every mutation here leaves the state consistent at each step, and a timeline that stops
//! answering would be worse than one event too many or too few.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::buffers::{Buffers, Limits};
use super::checkpoint::{CheckpointInfo, CheckpointStore, NamedCheckpoints};
use super::entries::{ActionEntry, ConsoleEntry, NetworkEntry, WebSocketEvent};
use super::error::ChangesError;
use super::noise::NoiseRule;
use super::query::{self, Reference};
use super::report::ChangeReport;
use super::{CheckpointReply, STATE_FORMAT, Timeline, TimelineState, created_reply, deleted_reply, list_reply};
use crate::protocol::{ChangesParams, CheckpointAction, CheckpointParams};

/// A [`Timeline`] behind a checkpoint mutex and a buffer read-write lock.
#[derive(Debug)]
pub struct SharedTimeline {
    checkpoints: Mutex<CheckpointStore>,
    buffers: RwLock<Buffers>,
}

impl Default for SharedTimeline {
    fn default() -> Self {
        SharedTimeline::from(Timeline::new())
    }
}

impl From<Timeline> for SharedTimeline {
    fn from(timeline: Timeline) -> Self {
        SharedTimeline { checkpoints: Mutex::new(timeline.checkpoints), buffers: RwLock::new(timeline.buffers) }
    }
}

impl SharedTimeline {
    /// An empty shared timeline with the default limits.
    pub fn new() -> Self {
        SharedTimeline::default()
    }

    /// An empty shared timeline keeping at most `limits`.
    pub fn with_limits(limits: Limits) -> Self {
        SharedTimeline::from(Timeline::with_limits(limits))
    }

    /// The plain timeline inside.
    pub fn into_inner(self) -> Timeline {
        Timeline {
            checkpoints: self.checkpoints.into_inner().unwrap_or_else(PoisonError::into_inner),
            buffers: self.buffers.into_inner().unwrap_or_else(PoisonError::into_inner),
        }
    }

    fn lock_checkpoints(&self) -> MutexGuard<'_, CheckpointStore> {
        self.checkpoints.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read_buffers(&self) -> RwLockReadGuard<'_, Buffers> {
        self.buffers.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_buffers(&self) -> RwLockWriteGuard<'_, Buffers> {
        self.buffers.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a console message (buffer lock only).
    pub fn record_console(&self, entry: ConsoleEntry) {
        self.write_buffers().record_console(entry);
    }

    /// Records a finished or failed request (buffer lock only).
    pub fn record_network(&self, entry: NetworkEntry) {
        self.write_buffers().record_network(entry);
    }

    /// Records a WebSocket event (buffer lock only).
    pub fn record_websocket(&self, event: WebSocketEvent) {
        self.write_buffers().record_websocket(event);
    }

    /// Records an action (buffer lock only).
    pub fn record_action(&self, action: ActionEntry) {
        self.write_buffers().record_action(action);
    }

    /// Sets the current page URL (buffer lock only).
    pub fn set_page_url(&self, url: impl Into<String>) {
        self.write_buffers().page_url = Some(url.into());
    }

    /// Adds a noise rule, replacing any of the same name (buffer lock only).
    pub fn add_noise_rule(&self, rule: NoiseRule) -> Option<NoiseRule> {
        self.write_buffers().noise.add(rule)
    }

    /// Removes a noise rule by name (buffer lock only).
    pub fn remove_noise_rule(&self, name: &str) -> Option<NoiseRule> {
        self.write_buffers().noise.remove(name)
    }

    /// Marks this moment as `name` (checkpoint lock, then buffer read lock).
    pub fn create_checkpoint(&self, name: &str, now_ms: u64) -> Result<CheckpointInfo, ChangesError> {
        let mut checkpoints = self.lock_checkpoints();
        let buffers = self.read_buffers();
        checkpoints.create_named(name, &buffers, now_ms)
    }

    /// Named checkpoints, oldest first (checkpoint lock only).
    pub fn list_checkpoints(&self) -> Vec<CheckpointInfo> {
        self.lock_checkpoints().list_named()
    }

    /// Removes a named checkpoint (checkpoint lock only).
    pub fn delete_checkpoint(&self, name: &str) -> Result<CheckpointInfo, ChangesError> {
        self.lock_checkpoints().delete_named(name)
    }

    /// Serves a `browser_checkpoint` call.
    pub fn checkpoint(&self, params: &CheckpointParams, now_ms: u64) -> Result<CheckpointReply, ChangesError> {
        match params.action {
            CheckpointAction::Create => {
                let name = params.name.as_deref().ok_or(ChangesError::NameMissing { action: "create" })?;
                Ok(created_reply(self.create_checkpoint(name, now_ms)?))
            }
            CheckpointAction::List => Ok(list_reply(self.list_checkpoints())),
            CheckpointAction::Delete => {
                let name = params.name.as_deref().ok_or(ChangesError::NameMissing { action: "delete" })?;
                Ok(deleted_reply(self.delete_checkpoint(name)?))
            }
        }
    }

    /// What a `checkpoint` argument refers to (checkpoint lock only).
    pub fn resolve(&self, checkpoint: Option<&str>) -> Result<Reference, ChangesError> {
        query::resolve(&self.lock_checkpoints(), checkpoint)
    }

    /// See [`Timeline::changes_since`] (checkpoint lock, then buffer read lock).
    pub fn changes_since(
        &self,
        session: &str,
        params: &ChangesParams,
        now_ms: u64,
    ) -> Result<ChangeReport, ChangesError> {
        let mut checkpoints = self.lock_checkpoints();
        let buffers = self.read_buffers();
        query::changes_since(&mut checkpoints, &buffers, session, params, now_ms)
    }

    /// See [`Timeline::last_response_line`] (checkpoint lock, then buffer read lock).
    pub fn last_response_line(&self, session: &str) -> Option<String> {
        let mut checkpoints = self.lock_checkpoints();
        let buffers = self.read_buffers();
        query::last_response_line(&mut checkpoints, &buffers, session)
    }

    /// Forgets a session (checkpoint lock only).
    pub fn forget_session(&self, session: &str) -> bool {
        self.lock_checkpoints().forget_session(session)
    }

    /// The whole state (checkpoint lock, then buffer read lock), consistent between the two.
    pub fn serialize(&self) -> TimelineState {
        let checkpoints = self.lock_checkpoints();
        let buffers = self.read_buffers();
        TimelineState { format: STATE_FORMAT, buffers: buffers.clone(), checkpoints: checkpoints.clone() }
    }

    /// The named checkpoints alone (checkpoint lock only).
    pub fn named_checkpoints(&self) -> NamedCheckpoints {
        self.lock_checkpoints().export_named()
    }

    /// See [`Timeline::restore_named`] (checkpoint lock only).
    pub fn restore_named(&self, saved: NamedCheckpoints) -> usize {
        self.lock_checkpoints().import_named(saved)
    }
}
