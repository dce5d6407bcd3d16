//! Regions across baselines: a region that is the same as in the previous baseline collapses
//! to one tag (`browser_find` still reaches what it holds, see [`super::find`]).
//!
//! A region's signature is the ordered list of refs inside it (its own lines and the regions
//! nested in it) plus a hash of its lines' text. "Unchanged" means both are equal: the same
//! elements in the same order and the same words — so a collapsed region never hides a change,
//! such as a basket count in the header. Refs survive navigations by identity (see
//! [`crate::refs`]), which is what makes the navigation bar of the next page unchanged.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::snapshot::render::{body_lines, unchanged_region_line};
use crate::snapshot::{RegionId, Snapshot};

/// What identifies a region's content between baselines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionSignature {
    /// Refs inside the region, in order.
    pub refs: Vec<u32>,
    /// Hash of the region's lines.
    pub content: [u8; 32],
}

/// The signature of every region of `snapshot`, by region name.
pub fn signatures(snapshot: &Snapshot) -> HashMap<String, RegionSignature> {
    let lines = body_lines(snapshot, false);
    snapshot
        .region_ids()
        .map(|r| {
            let refs = snapshot.refs_in_region(r);
            let mut hasher = blake3::Hasher::new();
            for line in lines.iter().filter(|l| snapshot.within(l.region, r)) {
                hasher.update(line.text.as_bytes());
                hasher.update(b"\n");
            }
            (snapshot.region(r).name.clone(), RegionSignature { refs, content: *hasher.finalize().as_bytes() })
        })
        .collect()
}

/// The regions of `snapshot` that are unchanged since the previous baseline's `previous`
/// signatures: equal signature and at least one ref (a region without refs has nothing to
/// recognise it by, so it is always written out).
pub fn unchanged(snapshot: &Snapshot, previous: &HashMap<String, RegionSignature>) -> BTreeSet<RegionId> {
    let now = signatures(snapshot);
    snapshot
        .region_ids()
        .filter(|&r| {
            let name = &snapshot.region(r).name;
            match (now.get(name), previous.get(name)) {
                (Some(a), Some(b)) => a == b && !a.refs.is_empty(),
                _ => false,
            }
        })
        .collect()
}

/// For every region in `collapsed` and every region inside one, by name, the line its
/// outermost collapsed region was written as.
pub fn folded(snapshot: &Snapshot, collapsed: &BTreeSet<RegionId>) -> BTreeMap<String, String> {
    snapshot
        .region_ids()
        .filter_map(|r| {
            let outer = snapshot.region_path(Some(r)).into_iter().find(|c| collapsed.contains(c))?;
            Some((snapshot.region(r).name.clone(), unchanged_region_line(snapshot, outer)))
        })
        .collect()
}
