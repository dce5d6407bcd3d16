//! Regions across baselines: a region that is the same as in the previous baseline collapses
//! to one tag, and `browser_find` reaches whatever a collapsed or trimmed region holds.
//!
//! A region's signature is the ordered list of refs inside it (its own lines and the regions
//! nested in it) plus a hash of its lines' text. "Unchanged" means both are equal: the same
//! elements in the same order and the same words — so a collapsed region never hides a change,
//! such as a basket count in the header. Refs survive navigations by identity (see
//! [`super::registry`]), which is what makes the navigation bar of the next page unchanged.

use std::collections::{BTreeSet, HashMap};

use crate::snapshot::Snapshot;
use crate::snapshot::render::{body_lines, element_line, within};

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
    (0..snapshot.regions.len())
        .map(|r| {
            let refs = snapshot
                .element_regions
                .iter()
                .zip(&snapshot.refs)
                .filter(|(region, _)| within(snapshot, **region, r))
                .map(|(_, n)| *n)
                .collect();
            let mut hasher = blake3::Hasher::new();
            for (_, text) in lines.iter().filter(|(region, _)| within(snapshot, *region, r)) {
                hasher.update(text.as_bytes());
                hasher.update(b"\n");
            }
            (snapshot.region_names[r].clone(), RegionSignature { refs, content: *hasher.finalize().as_bytes() })
        })
        .collect()
}

/// The regions of `snapshot` that are unchanged since the previous baseline's `previous`
/// signatures: equal signature and at least one ref (a region without refs has nothing to
/// recognise it by, so it is always written out).
pub fn unchanged(snapshot: &Snapshot, previous: &HashMap<String, RegionSignature>) -> BTreeSet<usize> {
    let now = signatures(snapshot);
    (0..snapshot.regions.len())
        .filter(|&r| {
            let name = &snapshot.region_names[r];
            match (now.get(name), previous.get(name)) {
                (Some(a), Some(b)) => a == b && !a.refs.is_empty(),
                _ => false,
            }
        })
        .collect()
}

/// What `browser_find` looks for; every given field must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindQuery {
    /// Words in the element's name, value or text (case-insensitive), or in a text line.
    pub text: Option<String>,
    /// The element's role.
    pub role: Option<String>,
    /// Part of the region's name (`nav`, `main`, `dialog "Cookies"`).
    pub region: Option<String>,
}

/// One match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The region's name (empty outside regions).
    pub region: String,
    /// The line, as a snapshot writes it.
    pub line: String,
}

/// Elements (and, for a text query without a role, text lines) of `snapshot` matching
/// `query`, in reading order, at most `limit`.
pub fn find(snapshot: &Snapshot, query: &FindQuery, limit: usize) -> Vec<Found> {
    let text = query.text.as_deref().map(str::to_lowercase);
    let region_ok = |r: Option<usize>| match &query.region {
        None => true,
        Some(wanted) => {
            let wanted = wanted.to_lowercase();
            r.is_some_and(|r| snapshot.region_names[r].to_lowercase().contains(&wanted))
        }
    };
    let region_name = |r: Option<usize>| r.map(|r| snapshot.region_names[r].clone()).unwrap_or_default();
    let mut found = Vec::new();
    for (i, element) in snapshot.elements.iter().enumerate() {
        let f = &element.facts;
        let role_ok = query.role.as_deref().is_none_or(|role| f.role.eq_ignore_ascii_case(role));
        let text_ok = text.as_deref().is_none_or(|t| {
            [Some(&f.name), f.value.as_ref(), f.text.as_ref()]
                .into_iter()
                .flatten()
                .any(|s| s.to_lowercase().contains(t))
        });
        if role_ok && text_ok && region_ok(snapshot.element_regions[i]) {
            found.push((
                i,
                Found {
                    region: region_name(snapshot.element_regions[i]),
                    line: element_line(f, &snapshot.element_ref(i), None),
                },
            ));
        }
    }
    let mut positions = vec![usize::MAX; snapshot.elements.len()];
    for (p, line) in snapshot.lines.iter().enumerate() {
        for i in line.elements() {
            positions[i] = positions[i].min(p);
        }
    }
    let mut found: Vec<(usize, Found)> = found.into_iter().map(|(i, f)| (positions[i], f)).collect();
    if let (Some(t), None) = (&text, &query.role) {
        for (position, (region, line)) in body_lines(snapshot, false).into_iter().enumerate() {
            let is_element_line =
                matches!(snapshot.lines[position].content, crate::snapshot::outline::LineContent::Element(_));
            if !is_element_line && line.to_lowercase().contains(t.as_str()) && region_ok(region) {
                found.push((position, Found { region: region_name(region), line: line.trim().to_owned() }));
            }
        }
    }
    found.sort_by_key(|(position, _)| *position);
    found.into_iter().map(|(_, f)| f).take(limit).collect()
}
