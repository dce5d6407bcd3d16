//! Checkpoints: remembered moments to report changes against.
//!
//! A checkpoint records when it was made, the position reached in each ring, the page URL, and
//! what was known about every endpoint. Each MCP session has one automatic checkpoint (moved on
//! by every change report that names none) and a cursor for the one-line summary that ends
//! every action's response; the number of sessions kept is bounded, the least recently used
//! being forgotten first. Up to [`MAX_NAMED`] named checkpoints are shared by all sessions and
//! never move. This module never reads a clock and never touches the buffers beyond reading
//! their current positions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::buffers::{Buffers, Positions};
use super::endpoints::EndpointMarks;
use super::error::ChangesError;
use super::iso_time::format_iso;

/// How many named checkpoints are kept.
pub const MAX_NAMED: usize = 20;
/// Longest checkpoint name, in characters.
pub const MAX_NAME_LEN: usize = 50;

const EXAMPLE_NAME: &str = "before_refactor";

/// A remembered moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// When it was made, in epoch milliseconds.
    pub created_ms: u64,
    /// When it was made, as ISO 8601.
    pub created: String,
    /// The position reached in each ring.
    pub positions: Positions,
    /// The page URL at the time, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_url: Option<String>,
    /// What was known about each endpoint.
    #[serde(default)]
    pub endpoints: EndpointMarks,
}

impl Checkpoint {
    /// The moment `now_ms` over the current state of `buffers`.
    pub(crate) fn capture(buffers: &Buffers, now_ms: u64) -> Self {
        Checkpoint {
            created_ms: now_ms,
            created: format_iso(now_ms),
            positions: buffers.positions(),
            page_url: buffers.page_url.clone(),
            endpoints: buffers.endpoints.marks(),
        }
    }
}

/// A named checkpoint as listed to an agent or a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointInfo {
    /// Its name.
    pub name: String,
    /// When it was made (ISO 8601).
    pub created: String,
    /// The page URL at the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl CheckpointInfo {
    fn of(name: &str, checkpoint: &Checkpoint) -> Self {
        CheckpointInfo { name: name.to_owned(), created: checkpoint.created.clone(), url: checkpoint.page_url.clone() }
    }
}

/// Named checkpoints on their own, for keeping across browser restarts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NamedCheckpoints {
    /// Name → checkpoint.
    pub checkpoints: BTreeMap<String, Checkpoint>,
}

/// What one MCP session has seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SessionMarks {
    /// Where the session's previous change report ended; `None` before its first one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) auto: Option<Checkpoint>,
    /// Where the session's previous response line ended; `None` before its first one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cursor: Option<Positions>,
    #[serde(default)]
    last_used: u64,
}

/// Every checkpoint: the named ones and each session's automatic one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CheckpointStore {
    named: BTreeMap<String, Checkpoint>,
    sessions: BTreeMap<String, SessionMarks>,
    session_limit: usize,
    uses: u64,
}

impl CheckpointStore {
    pub(crate) fn new(session_limit: usize) -> Self {
        CheckpointStore {
            named: BTreeMap::new(),
            sessions: BTreeMap::new(),
            session_limit: session_limit.max(1),
            uses: 0,
        }
    }

    /// Makes a named checkpoint at the current state of `buffers`.
    pub(crate) fn create_named(
        &mut self,
        name: &str,
        buffers: &Buffers,
        now_ms: u64,
    ) -> Result<CheckpointInfo, ChangesError> {
        validate_name(name)?;
        if let Some(existing) = self.named.get(name) {
            return Err(ChangesError::NameTaken {
                name: name.to_owned(),
                created: existing.created.clone(),
                suggestion: self.free_name_like(name),
            });
        }
        if self.named.len() >= MAX_NAMED {
            let oldest = self.list_named().into_iter().next().map(|info| info.name).unwrap_or_default();
            return Err(ChangesError::TooManyCheckpoints { limit: MAX_NAMED, oldest });
        }
        let checkpoint = Checkpoint::capture(buffers, now_ms);
        let info = CheckpointInfo::of(name, &checkpoint);
        self.named.insert(name.to_owned(), checkpoint);
        Ok(info)
    }

    fn free_name_like(&self, name: &str) -> String {
        (2..)
            .map(|n| {
                let suffix = format!("_{n}");
                let stem: String = name.chars().take(MAX_NAME_LEN - suffix.len()).collect();
                format!("{stem}{suffix}")
            })
            .find(|candidate| !self.named.contains_key(candidate))
            .unwrap_or_else(|| EXAMPLE_NAME.to_owned())
    }

    /// Named checkpoints, oldest first.
    pub(crate) fn list_named(&self) -> Vec<CheckpointInfo> {
        let mut list: Vec<(&String, &Checkpoint)> = self.named.iter().collect();
        list.sort_by(|a, b| a.1.created_ms.cmp(&b.1.created_ms).then_with(|| a.0.cmp(b.0)));
        list.into_iter().map(|(name, checkpoint)| CheckpointInfo::of(name, checkpoint)).collect()
    }

    /// Removes a named checkpoint.
    pub(crate) fn delete_named(&mut self, name: &str) -> Result<CheckpointInfo, ChangesError> {
        match self.named.remove(name) {
            Some(checkpoint) => Ok(CheckpointInfo::of(name, &checkpoint)),
            None => Err(ChangesError::UnknownCheckpoint { name: name.to_owned(), known: self.known_names() }),
        }
    }

    /// A named checkpoint.
    pub(crate) fn named(&self, name: &str) -> Option<&Checkpoint> {
        self.named.get(name)
    }

    /// "existing: a, b" or how to make one; for error messages.
    pub(crate) fn known_names(&self) -> String {
        if self.named.is_empty() {
            return "no named checkpoints exist yet; make one with browser_checkpoint action `create`".to_owned();
        }
        let names: Vec<String> = self.list_named().into_iter().map(|info| info.name).collect();
        format!("existing checkpoints: {}", names.join(", "))
    }

    /// The marks of session `id`, made on first use; touching a session makes it the most
    /// recently used, and past the limit the least recently used session is forgotten.
    pub(crate) fn session(&mut self, id: &str) -> &mut SessionMarks {
        self.uses += 1;
        if !self.sessions.contains_key(id) {
            while self.sessions.len() >= self.session_limit {
                let Some(stalest) = self.sessions.iter().min_by_key(|(_, s)| s.last_used).map(|(k, _)| k.clone())
                else {
                    break;
                };
                self.sessions.remove(&stalest);
            }
        }
        let marks = self.sessions.entry(id.to_owned()).or_default();
        marks.last_used = self.uses;
        marks
    }

    /// Forgets a session (its MCP client went away).
    pub(crate) fn forget_session(&mut self, id: &str) -> bool {
        self.sessions.remove(id).is_some()
    }

    /// How many sessions are remembered.
    pub(crate) fn session_count(&self) -> usize {
        self.sessions.len()
    }

    pub(crate) fn export_named(&self) -> NamedCheckpoints {
        NamedCheckpoints { checkpoints: self.named.clone() }
    }

    /// Adds checkpoints kept from an earlier browser run. Their ring positions belong to buffers
    /// that no longer exist, and everything now recorded happened after them, so they are moved
    /// to the very start of the current rings; their times, URLs and endpoint marks stay. Names
    /// already in use, invalid names and those past the limit are skipped. Returns how many were
    /// added.
    pub(crate) fn import_named(&mut self, saved: NamedCheckpoints) -> usize {
        let mut saved: Vec<(String, Checkpoint)> = saved.checkpoints.into_iter().collect();
        saved.sort_by(|a, b| a.1.created_ms.cmp(&b.1.created_ms).then_with(|| a.0.cmp(&b.0)));
        let mut added = 0;
        for (name, mut checkpoint) in saved {
            if self.named.len() >= MAX_NAMED || self.named.contains_key(&name) || validate_name(&name).is_err() {
                continue;
            }
            checkpoint.positions = Positions::default();
            checkpoint.created = format_iso(checkpoint.created_ms);
            self.named.insert(name, checkpoint);
            added += 1;
        }
        added
    }

    /// Brings a store read from storage back within its invariants.
    pub(crate) fn repair(&mut self, session_limit: usize) {
        self.session_limit = session_limit.max(1);
        self.named.retain(|name, _| validate_name(name).is_ok());
        while self.named.len() > MAX_NAMED {
            let Some(newest) = self.list_named().pop() else { break };
            self.named.remove(&newest.name);
        }
        while self.sessions.len() > self.session_limit {
            let Some(stalest) = self.sessions.iter().min_by_key(|(_, s)| s.last_used).map(|(k, _)| k.clone()) else {
                break;
            };
            self.sessions.remove(&stalest);
        }
        self.uses = self.uses.max(self.sessions.values().map(|s| s.last_used).max().unwrap_or(0));
    }
}

/// Checks a checkpoint name against the naming rules: lowercase letters, digits and
/// underscores, starting with a letter, at most [`MAX_NAME_LEN`] characters, and nothing that
/// looks like a date or time (a checkpoint already records when it was made).
pub fn validate_name(name: &str) -> Result<(), ChangesError> {
    let shown: String = name.chars().take(60).collect();
    let shown = if shown.len() < name.len() { format!("{shown}…") } else { shown };
    let example = suggest_name(name);
    if name.is_empty() {
        return Err(ChangesError::InvalidName(format!(
            "the checkpoint name is empty; use lowercase letters, digits and underscores, e.g. `{EXAMPLE_NAME}`"
        )));
    }
    let length = name.chars().count();
    if length > MAX_NAME_LEN {
        return Err(ChangesError::InvalidName(format!(
            "checkpoint name `{shown}` is {length} characters long, over the limit of {MAX_NAME_LEN}; use a shorter \
             one such as `{example}`"
        )));
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        return Err(ChangesError::InvalidName(format!(
            "checkpoint name `{shown}` may hold only lowercase letters, digits and underscores; try `{example}`"
        )));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(ChangesError::InvalidName(format!(
            "checkpoint name `{shown}` must start with a letter, e.g. `{example}`"
        )));
    }
    if looks_like_a_time(name) {
        return Err(ChangesError::InvalidName(format!(
            "checkpoint name `{shown}` looks like it holds a date or time; a checkpoint already records when it \
             was made, so name what it marks instead, e.g. `{EXAMPLE_NAME}` or `session_start`"
        )));
    }
    Ok(())
}

/// A valid name close to `name` (lower-cased, separators turned into underscores, other
/// characters dropped, cut to length), or the stock example when none is close.
fn suggest_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        let c = match c {
            'a'..='z' | '0'..='9' => c,
            ' ' | '-' | '_' | '.' | '/' | ':' => '_',
            _ => continue,
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    out.truncate(MAX_NAME_LEN);
    let out = out.trim_end_matches('_').to_owned();
    let valid = out.starts_with(|c: char| c.is_ascii_lowercase()) && !looks_like_a_time(&out);
    if valid { out } else { EXAMPLE_NAME.to_owned() }
}

/// Whether a name (already known to hold only `[a-z0-9_]`) carries a date or time: a run of six
/// or more digits (`20250102`, a Unix time), three numeric parts in a row like a date or a
/// clock time (`2025_01_02`, `12_30_45`), or a year followed by a month (`2025_01`).
fn looks_like_a_time(name: &str) -> bool {
    let longest_digit_run = name.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
    if longest_digit_run >= 6 {
        return true;
    }
    let parts: Vec<&str> = name.split('_').collect();
    let numeric = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let short_number = |part: &str| numeric(part) && part.len() <= 2;
    parts.windows(2).any(|pair| {
        let is_year =
            numeric(pair[0]) && pair[0].len() == 4 && (pair[0].starts_with("19") || pair[0].starts_with("20"));
        let is_month = short_number(pair[1]) && pair[1].parse::<u8>().is_ok_and(|m| (1..=12).contains(&m));
        is_year && is_month
    }) || parts.windows(3).any(|triple| {
        numeric(triple[0]) && matches!(triple[0].len(), 2 | 4) && short_number(triple[1]) && short_number(triple[2])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_valid_names() {
        assert_eq!(suggest_name("Before Refactor"), "before_refactor");
        assert_eq!(suggest_name("after-auth.fix!"), "after_auth_fix");
        assert_eq!(suggest_name("123"), EXAMPLE_NAME);
        assert_eq!(suggest_name(&"a".repeat(70)), "a".repeat(50));
    }

    #[test]
    fn time_like_names_are_spotted() {
        for name in ["before_2025_01_02", "at_12_30_45", "snap_20250102", "t1735787045", "release_2025_06"] {
            assert!(looks_like_a_time(name), "{name}");
        }
        for name in ["step_1_2_3", "release_2025", "v2_migration", "baseline_checkout", "after_12345"] {
            assert!(!looks_like_a_time(name), "{name}");
        }
    }
}
