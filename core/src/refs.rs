//! Short element refs (`e12`) for scoped node identities.
//!
//! CDP's `backendNodeId` is only unique within one document of one frame, so an element's
//! identity is (frame id, loader id, backend node id). Agents see a short ref instead; the
//! table keeps one ref per identity for the life of the table and never hands a ref to a
//! different element.

use std::collections::HashMap;

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

/// Gives the elements of a snapshot their ref numbers (P3.1).
pub trait RefAssigner {
    /// Ref numbers for `elements` (their node keys and identities), in order.
    fn assign_refs(&mut self, elements: &[(NodeKey, ElementIdentity)]) -> Vec<u32>;
}

impl RefAssigner for RefTable {
    fn assign_refs(&mut self, elements: &[(NodeKey, ElementIdentity)]) -> Vec<u32> {
        elements.iter().map(|(key, _)| self.assign(key)).collect()
    }
}

/// Why a ref cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Not of the form `e<number>`.
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
}

/// Assigns and resolves refs.
#[derive(Debug, Clone, Default)]
pub struct RefTable {
    by_key: HashMap<NodeKey, u32>,
    by_ref: HashMap<u32, NodeKey>,
    next: u32,
}

impl RefTable {
    /// The ref number of `key`, assigning the next one on first sight.
    pub fn assign(&mut self, key: &NodeKey) -> u32 {
        if let Some(&n) = self.by_key.get(key) {
            return n;
        }
        self.next += 1;
        let n = self.next;
        self.by_key.insert(key.clone(), n);
        self.by_ref.insert(n, key.clone());
        n
    }

    /// The identity behind a ref such as `e12`.
    pub fn resolve(&self, element_ref: &str) -> Result<&NodeKey, RefError> {
        let n = parse_ref(element_ref)?;
        self.by_ref.get(&n).ok_or_else(|| RefError::Unknown(element_ref.to_owned()))
    }
}

/// Parses `e12` (surrounding whitespace and a leading `@` or `[ref=…]` wrapper are forgiven).
pub fn parse_ref(text: &str) -> Result<u32, RefError> {
    let t = text.trim().trim_start_matches('@');
    let t = t.strip_prefix("[ref=").and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    t.strip_prefix('e')
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .ok_or_else(|| RefError::Malformed(text.to_owned()))
}

/// Formats a ref number.
pub fn format_ref(n: u32) -> String {
    format!("e{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: i64) -> NodeKey {
        NodeKey { frame_id: "F".into(), loader_id: "L1".into(), backend_node_id: id }
    }

    #[test]
    fn the_same_identity_keeps_its_ref() {
        let mut t = RefTable::default();
        let a = t.assign(&key(10));
        let b = t.assign(&key(11));
        assert_eq!((a, b), (1, 2));
        assert_eq!(t.assign(&key(10)), 1);
        assert_eq!(t.resolve("e2").unwrap(), &key(11));
    }

    #[test]
    fn a_new_document_gets_new_refs_for_the_same_backend_id() {
        let mut t = RefTable::default();
        let old = t.assign(&key(10));
        let new = t.assign(&NodeKey { loader_id: "L2".into(), ..key(10) });
        assert_ne!(old, new);
    }

    #[test]
    fn malformed_and_unknown_refs_are_explained() {
        let t = RefTable::default();
        assert_eq!(t.resolve("button").unwrap_err(), RefError::Malformed("button".into()));
        assert_eq!(t.resolve("e9").unwrap_err(), RefError::Unknown("e9".into()));
        assert_eq!(parse_ref("[ref=e5]").unwrap(), 5);
    }
}
