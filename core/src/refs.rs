//! Short, stable element refs (`e12`): which element every ref stands for, on one tab, for one
//! MCP session.
//!
//! CDP's `backendNodeId` is only unique within one document of one frame, so a node's identity
//! is (frame id, loader id, backend node id). A ref is bound to a node and to the element's
//! identity (frame, region, role, name, position among equals). While the node lives, the ref
//! follows the node, whatever its text becomes. When the node goes (a navigation, a
//! re-render) an element with the same identity in the new document takes the ref over: the
//! nav bar's "Home" keeps `e3` from page to page, which is what lets an unchanged region be
//! recognised. A ref whose element is gone is rejected with the reason and is never given to an
//! element of another identity.

use std::collections::{HashMap, HashSet};

use crate::snapshot::escape::word_char;

/// The identity of a DOM node in one document of one frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// CDP frame id.
    pub frame_id: String,
    /// CDP loader id of the frame's document when the node was seen.
    pub loader_id: String,
    /// CDP backend node id.
    pub backend_node_id: i64,
}

/// Who an element is, beyond its node: what lets a page state recognise "the same element" in
/// a new document (the nav bar's "Home" link on the next page).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementIdentity {
    /// Whether the element is in the main frame.
    pub main_frame: bool,
    /// Its region's stable name (`nav "Primary"`), empty outside regions.
    pub region: String,
    /// Role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Position among elements of the same region, role and name (0 for the first).
    pub ordinal: u32,
}

/// Why a ref cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Not of the form of a ref: one of [`REF_LETTERS`] and a number from 1 to 999 (`e` also
    /// takes larger ones).
    #[error("`{0}` is not an element ref; refs look like `e12` and come from browser_snapshot")]
    Malformed(String),
    /// Never issued on this tab.
    #[error("ref `{0}` is unknown on this tab; take a browser_snapshot to get current refs")]
    Unknown(String),
    /// Issued once, but its element is gone.
    #[error("{element_ref} is gone: {why}. Use the refs of your latest snapshot, or take a browser_snapshot")]
    Gone {
        /// The ref.
        element_ref: String,
        /// What happened, e.g. "the page navigated away at v7".
        why: String,
    },
    /// Issued before the extension restarted, when what each ref stood for was lost.
    #[error(
        "{element_ref} is from before the extension restarted (after v{version}): refs from before are gone. Take a \
         browser_snapshot for current refs"
    )]
    FromBeforeRestart {
        /// The ref.
        element_ref: String,
        /// The last version shown before the restart.
        version: u64,
    },
}

impl RefError {
    /// The ref's element left the page after the snapshot that named it (found when acting on
    /// it: the registry still holds it, the page does not).
    pub fn removed_since_snapshot(element_ref: &str) -> RefError {
        RefError::Gone { element_ref: element_ref.trim().to_owned(), why: describe(GoneReason::Removed, None) }
    }
}

/// Why a ref no longer resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoneReason {
    /// Its document was replaced by a navigation.
    NavigatedAway,
    /// Its element was removed from the page.
    Removed,
    /// Its frame was detached.
    FrameDetached,
}

#[derive(Debug, Clone, PartialEq)]
enum Binding {
    Live(NodeKey),
    Gone { key: NodeKey, reason: GoneReason, version: u64 },
}

/// The refs of one (session, tab).
#[derive(Debug, Clone, Default)]
pub struct RefRegistry {
    next: u32,
    /// Refs up to this number were issued before a restart that lost their bindings, as of
    /// version `.1`.
    before_restart: Option<(u32, u64)>,
    by_key: HashMap<NodeKey, u32>,
    bindings: HashMap<u32, Binding>,
    by_identity: HashMap<ElementIdentity, u32>,
    identity_of: HashMap<u32, ElementIdentity>,
}

impl RefRegistry {
    /// Ref numbers for `elements` (their node keys and identities), in order: the same node
    /// keeps its ref, a new node with the identity of an element that is gone takes its ref
    /// over, anything else gets a new one.
    pub fn assign_refs(&mut self, elements: &[(NodeKey, ElementIdentity)]) -> Vec<u32> {
        let present: HashSet<&NodeKey> = elements.iter().map(|(k, _)| k).collect();
        let mut taken: HashSet<u32> = HashSet::new();
        let mut out: Vec<Option<u32>> = vec![None; elements.len()];
        // 1. The same node keeps its ref.
        for (slot, (key, _)) in out.iter_mut().zip(elements) {
            if let Some(&r) = self.by_key.get(key)
                && taken.insert(r)
            {
                *slot = Some(r);
            }
        }
        // 2. A new node with the identity of an element that is gone takes its ref over.
        for (slot, (_, identity)) in out.iter_mut().zip(elements) {
            if slot.is_some() {
                continue;
            }
            if let Some(&r) = self.by_identity.get(identity)
                && !taken.contains(&r)
                && self.node_of(r).is_none_or(|old| !present.contains(old))
            {
                taken.insert(r);
                *slot = Some(r);
            }
        }
        // 3. Everything else gets a new ref.
        let refs: Vec<u32> = out
            .into_iter()
            .map(|slot| {
                slot.unwrap_or_else(|| {
                    self.next += 1;
                    self.next
                })
            })
            .collect();
        for ((key, identity), &r) in elements.iter().zip(&refs) {
            if let Some(Binding::Live(old) | Binding::Gone { key: old, .. }) = self.bindings.get(&r)
                && old != key
            {
                self.by_key.remove(&old.clone());
            }
            self.bindings.insert(r, Binding::Live(key.clone()));
            self.by_key.insert(key.clone(), r);
            self.by_identity.insert(identity.clone(), r);
            self.identity_of.insert(r, identity.clone());
        }
        refs
    }
}

impl RefRegistry {
    fn node_of(&self, r: u32) -> Option<&NodeKey> {
        match self.bindings.get(&r)? {
            Binding::Live(key) | Binding::Gone { key, .. } => Some(key),
        }
    }

    /// Marks ref `r` as gone, for `reason`, as of `version`.
    pub fn mark_gone(&mut self, r: u32, reason: GoneReason, version: u64) {
        if let Some(Binding::Live(key)) = self.bindings.get(&r) {
            let key = key.clone();
            self.bindings.insert(r, Binding::Gone { key, reason, version });
        }
    }

    /// Why `r` would be gone if its element is missing now: its frame's document changed, its
    /// frame is gone, or it was removed. `frames` maps frame ids to their current loader ids.
    pub fn reason_for(&self, r: u32, frames: &HashMap<String, String>) -> GoneReason {
        match self.node_of(r) {
            Some(key) => match frames.get(&key.frame_id) {
                None => GoneReason::FrameDetached,
                Some(loader) if *loader != key.loader_id => GoneReason::NavigatedAway,
                Some(_) => GoneReason::Removed,
            },
            None => GoneReason::Removed,
        }
    }

    /// The live node behind a ref such as `e12`. `frames` maps each frame of the tab to the
    /// loader id of its current document (what the browser says now).
    pub fn resolve(&self, element_ref: &str, frames: &HashMap<String, String>) -> Result<NodeKey, RefError> {
        let n = parse_ref(element_ref)?;
        let gone = |why: String| RefError::Gone { element_ref: format_ref(n), why };
        match self.bindings.get(&n) {
            None => match self.before_restart {
                Some((last, version)) if n <= last => {
                    Err(RefError::FromBeforeRestart { element_ref: format_ref(n), version })
                }
                _ => Err(RefError::Unknown(element_ref.trim().to_owned())),
            },
            Some(Binding::Gone { reason, version, .. }) => Err(gone(describe(*reason, Some(*version)))),
            Some(Binding::Live(key)) => match frames.get(&key.frame_id) {
                None => Err(gone(describe(GoneReason::FrameDetached, None))),
                Some(loader) if *loader != key.loader_id => Err(gone(describe(GoneReason::NavigatedAway, None))),
                Some(_) => Ok(key.clone()),
            },
        }
    }

    /// Whether a ref is bound to `key`'s node now: issued for it, not taken over by another
    /// node and not gone.
    pub fn is_live(&self, key: &NodeKey) -> bool {
        self.by_key.get(key).is_some_and(|r| matches!(self.bindings.get(r), Some(Binding::Live(bound)) if bound == key))
    }

    /// The nodes refs are bound to now.
    pub fn live_keys(&self) -> impl Iterator<Item = &NodeKey> {
        self.bindings.values().filter_map(|b| match b {
            Binding::Live(key) => Some(key),
            Binding::Gone { .. } => None,
        })
    }

    /// The number the last ref issued has (0 before any).
    pub fn last_issued(&self) -> u32 {
        self.next
    }

    /// Issues new refs above `last` from now on: a session draws the numbers of all its tabs
    /// from one counter ([`crate::tab_refs::TabRefs`]), so a number names one element of one tab.
    pub fn issue_above(&mut self, last: u32) {
        self.next = self.next.max(last);
    }

    /// A registry that goes on after a restart lost this one: refs up to `last_issued` (from
    /// before, as of `version`) are refused with that reason and never issued again.
    pub fn resumed(last_issued: u32, version: u64) -> RefRegistry {
        RefRegistry { next: last_issued, before_restart: Some((last_issued, version)), ..RefRegistry::default() }
    }

    /// The identity a ref was last given to.
    pub fn identity(&self, r: u32) -> Option<&ElementIdentity> {
        self.identity_of.get(&r)
    }
}

fn describe(reason: GoneReason, version: Option<u64>) -> String {
    let at = version.map(|v| format!(" at v{v}")).unwrap_or_else(|| " since your last snapshot".into());
    match reason {
        GoneReason::NavigatedAway => format!("the page navigated away{at}"),
        GoneReason::Removed => format!("it was removed from the page{at}"),
        GoneReason::FrameDetached => format!("its frame was detached{at}"),
    }
}

/// The letters a ref starts with, in the order refs take them: `e1` … `e999`, then `f1` …
/// `f999`, and so on to `Y999`. Each letter, alone or after `[`, is one o200k token, as is every
/// number from 1 to 999, so each of the first 32,967 refs of a session costs two tokens, where a
/// number of four digits or more would cost a third. Page text shaped like a ref is escaped
/// (`\x86`), so the letters are those that rarely start a word of digits: the lower-case ones
/// but `l` and `o` (they read like digits) and `v` (it starts a version, `v3`), and ten
/// capitals. The others make product names and codes (`A4`, `Galaxy S24`, `M3`, `X9`, the `%E3`
/// of a percent-encoded address), or are not one token after `[`. Past `Y999`, refs go on as
/// `e1000`, `e1001`, … (what `e` and a number of four digits or more can only mean).
pub const REF_LETTERS: &[u8] = b"efghijkmnpqrstuwxyzabcdBCDGJKNRTY";

/// The numbers each letter takes before refs move to the next: 1 to 999.
const PER_LETTER: u32 = 999;

/// The refs written with a letter and a number of at most three digits: `e1` to `Y999`.
const SHORT_REFS: u32 = REF_LETTERS.len() as u32 * PER_LETTER;

/// Whether `c` is one of [`REF_LETTERS`].
pub fn is_ref_letter(c: char) -> bool {
    c.is_ascii() && REF_LETTERS.contains(&(c as u8))
}

/// A ref written at `chars[i]`: one of [`REF_LETTERS`] and a number without a leading zero, as
/// a word of its own (no letter, digit or `_` on either side). Returns where it ends. What
/// reads as a ref in page text is escaped ([`crate::snapshot::escape`]), so every ref this
/// finds in a snapshot is a real one.
pub fn ref_at(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && chars.get(i - 1).is_some_and(|&c| word_char(c)) {
        return None;
    }
    Some(i + ref_len(chars.get(i..)?.iter().copied())?)
}

/// The length in bytes of a ref at the start of `s` (as [`ref_at`] reads it; refs are ASCII,
/// so characters and bytes count alike), for readers that walk bytes. Whatever precedes `s` is
/// the caller's to check.
pub fn leading_ref_len(s: &str) -> Option<usize> {
    ref_len(s.chars())
}

/// The one rule both readers share: the length of the ref `chars` start with, if they do.
fn ref_len(mut chars: impl Iterator<Item = char>) -> Option<usize> {
    if !chars.next().is_some_and(is_ref_letter) {
        return None;
    }
    let mut digits = 0;
    let mut leading_zero = false;
    let after = loop {
        match chars.next() {
            Some(c) if c.is_ascii_digit() => {
                leading_zero |= digits == 0 && c == '0';
                digits += 1;
            }
            other => break other,
        }
    };
    (digits > 0 && !leading_zero && after.is_none_or(|c| !word_char(c))).then_some(1 + digits)
}

/// Parses a ref such as `e12` or `f7` (surrounding whitespace and a leading `@` or `[ref=…]`
/// wrapper are forgiven).
pub fn parse_ref(text: &str) -> Result<u32, RefError> {
    let t = text.trim().trim_start_matches('@');
    let t = t.strip_prefix("[ref=").and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    let malformed = || RefError::Malformed(text.to_owned());
    if leading_ref_len(t) != Some(t.len()) {
        return Err(malformed());
    }
    let letter = REF_LETTERS.iter().position(|&l| l == t.as_bytes()[0]).unwrap_or(0) as u64;
    let number: u64 = t[1..].parse().map_err(|_| RefError::Unknown(t.to_owned()))?;
    let n = match number {
        1..=999 => letter * u64::from(PER_LETTER) + number,
        _ if t.starts_with('e') => u64::from(SHORT_REFS) + number - u64::from(PER_LETTER),
        _ => return Err(malformed()),
    };
    u32::try_from(n).map_err(|_| RefError::Unknown(t.to_owned()))
}

/// Writes ref number `n` (from 1): `e1` … `e999`, `f1` …, as [`REF_LETTERS`] says.
pub fn format_ref(n: u32) -> String {
    if n == 0 {
        // Never issued (refs count from 1), and refused by `parse_ref`.
        return "e0".to_owned();
    }
    if n > SHORT_REFS {
        // `e1000` follows `Y999` (no overflow: `SHORT_REFS` is larger than `PER_LETTER`).
        return format!("e{}", n - SHORT_REFS + PER_LETTER);
    }
    let letter = REF_LETTERS[((n - 1) / PER_LETTER) as usize] as char;
    format!("{letter}{}", (n - 1) % PER_LETTER + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(loader: &str, id: i64) -> NodeKey {
        NodeKey { frame_id: "F".into(), loader_id: loader.into(), backend_node_id: id }
    }

    fn identity(name: &str, ordinal: u32) -> ElementIdentity {
        ElementIdentity { main_frame: true, region: "nav".into(), role: "link".into(), name: name.into(), ordinal }
    }

    fn frames(loader: &str) -> HashMap<String, String> {
        HashMap::from([("F".to_owned(), loader.to_owned())])
    }

    #[test]
    fn refs_take_the_next_letter_past_999_and_read_back() {
        let last_short = REF_LETTERS.len() as u32 * 999;
        for (n, text) in [(1, "e1"), (999, "e999"), (1000, "f1"), (1998, "f999"), (last_short, "Y999")] {
            assert_eq!(format_ref(n), text);
            assert_eq!(parse_ref(text), Ok(n));
        }
        assert_eq!(format_ref(last_short + 1), "e1000");
        assert_eq!(parse_ref("e1000"), Ok(last_short + 1));
        for n in (1..200_000).step_by(997).chain([u32::MAX - 1, u32::MAX]) {
            assert_eq!(parse_ref(&format_ref(n)), Ok(n), "{n} as {}", format_ref(n));
        }
        assert_eq!(format_ref(0), "e0", "never issued, and no ref");
        assert_eq!(parse_ref(" @f7 "), Ok(1006));
        assert_eq!(parse_ref("[ref=e3]"), Ok(3));
    }

    #[test]
    fn what_is_not_a_ref_is_refused_as_malformed() {
        for text in ["e0", "e012", "f1000", "v3", "l5", "o1", "e", "12", "e12x", "ee1", "é1", "e-1", ""] {
            assert!(matches!(parse_ref(text), Err(RefError::Malformed(_))), "{text}: {:?}", parse_ref(text));
        }
        // Well formed, but past any number a session can issue.
        assert!(matches!(parse_ref("e99999999999"), Err(RefError::Unknown(_))));
    }

    #[test]
    fn the_same_node_keeps_its_ref_whatever_its_name_becomes() {
        let mut r = RefRegistry::default();
        assert_eq!(r.assign_refs(&[(key("L1", 5), identity("Add", 0))]), vec![1]);
        assert_eq!(r.assign_refs(&[(key("L1", 5), identity("Added", 0))]), vec![1]);
    }

    #[test]
    fn a_node_is_live_while_its_ref_is_bound_to_it() {
        let mut r = RefRegistry::default();
        assert!(!r.is_live(&key("L1", 5)), "never named");
        r.assign_refs(&[(key("L1", 5), identity("Home", 0))]);
        assert!(r.is_live(&key("L1", 5)));
        assert!(!r.is_live(&key("L2", 5)), "the same backend id in another document is another node");
        // A newcomer with its identity takes the ref over once the node is gone: the old node is
        // no longer named.
        r.mark_gone(1, GoneReason::Removed, 2);
        assert!(!r.is_live(&key("L1", 5)));
        r.assign_refs(&[(key("L1", 9), identity("Home", 0))]);
        assert!(r.is_live(&key("L1", 9)) && !r.is_live(&key("L1", 5)));
    }

    #[test]
    fn after_a_navigation_an_element_with_the_same_identity_keeps_its_ref() {
        let mut r = RefRegistry::default();
        r.assign_refs(&[(key("L1", 5), identity("Home", 0)), (key("L1", 6), identity("Shop", 0))]);
        let next = r.assign_refs(&[(key("L2", 90), identity("Shop", 0)), (key("L2", 91), identity("Cart", 0))]);
        assert_eq!(next, vec![2, 3], "Shop keeps e2, Cart is new");
        assert_eq!(r.resolve("e2", &frames("L2")).unwrap(), key("L2", 90));
    }

    #[test]
    fn a_ref_is_never_given_to_an_element_of_another_identity() {
        let mut r = RefRegistry::default();
        r.assign_refs(&[(key("L1", 5), identity("Home", 0))]);
        r.mark_gone(1, GoneReason::Removed, 4);
        let next = r.assign_refs(&[(key("L1", 7), identity("Other", 0))]);
        assert_eq!(next, vec![2]);
        let err = r.resolve("e1", &frames("L1")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "e1 is gone: it was removed from the page at v4. Use the refs of your latest snapshot, or take a browser_snapshot"
        );
    }

    #[test]
    fn a_live_node_keeps_its_ref_against_a_newcomer_with_its_identity() {
        let mut r = RefRegistry::default();
        r.assign_refs(&[(key("L1", 5), identity("Item", 0))]);
        // The old node is still there and a second, identical-looking one appears.
        let next = r.assign_refs(&[(key("L1", 5), identity("Item", 0)), (key("L1", 6), identity("Item", 0))]);
        assert_eq!(next, vec![1, 2]);
    }

    #[test]
    fn refs_of_a_replaced_document_or_a_detached_frame_are_refused_with_the_reason() {
        let mut r = RefRegistry::default();
        r.assign_refs(&[(key("L1", 5), identity("Home", 0))]);
        let navigated = r.resolve("e1", &frames("L2")).unwrap_err().to_string();
        assert!(navigated.contains("navigated away"), "{navigated}");
        let detached = r.resolve("e1", &HashMap::new()).unwrap_err().to_string();
        assert!(detached.contains("frame was detached"), "{detached}");
        assert_eq!(r.reason_for(1, &frames("L2")), GoneReason::NavigatedAway);
    }

    #[test]
    fn malformed_and_unknown_refs_are_explained() {
        let r = RefRegistry::default();
        assert_eq!(r.resolve("button", &frames("L1")).unwrap_err(), RefError::Malformed("button".into()));
        assert_eq!(r.resolve("e9", &frames("L1")).unwrap_err(), RefError::Unknown("e9".into()));
        assert_eq!(parse_ref("[ref=e5]").unwrap(), 5);
    }

    #[test]
    fn after_a_restart_old_refs_are_refused_with_the_reason_and_never_reissued() {
        let mut r = RefRegistry::resumed(40, 7);
        let err = r.resolve("e12", &frames("L1")).unwrap_err();
        assert_eq!(err, RefError::FromBeforeRestart { element_ref: "e12".into(), version: 7 });
        assert!(err.to_string().starts_with("e12 is from before the extension restarted (after v7)"), "{err}");
        assert_eq!(r.assign_refs(&[(key("L1", 5), identity("Home", 0))]), vec![41], "numbering goes on");
        assert_eq!(r.resolve("e99", &frames("L1")).unwrap_err(), RefError::Unknown("e99".into()));
    }
}
