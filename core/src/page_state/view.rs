//! What an agent has been shown of a page, line by line, and the exact difference between two
//! such views.
//!
//! Every line has an id that stays the same while the line's node stays in the document: an
//! element line is its ref (`e12`), any other line is its anchor node and its position among
//! that node's lines. A [`LineDiff`] turns one view into another exactly ([`apply`]): lines
//! removed, lines whose text changed, and lines added after a given line. That is what deltas
//! are built from, and what the replay checks verify.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::snapshot::Snapshot;
use crate::snapshot::element::ElementFacts;
use crate::snapshot::outline::LineContent;
use crate::snapshot::render::body_lines;

/// One line an agent has been shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewLine {
    /// Stable id (`e12`, or the anchor node and ordinal).
    pub id: String,
    /// The line as rendered.
    pub text: String,
    /// The stable name of the line's innermost region (empty outside regions).
    pub region: String,
    /// The outermost overlay region containing the line, if any.
    pub overlay: Option<String>,
}

/// A whole view: lines in order, and the facts of every element shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    /// Lines in reading order.
    pub lines: Vec<ViewLine>,
    /// Facts of each element shown, by ref number.
    pub elements: BTreeMap<u32, ElementFacts>,
}

impl View {
    /// The view a full rendering of `snapshot` gives.
    pub fn of(snapshot: &Snapshot) -> View {
        let rendered = body_lines(snapshot, false);
        let overlay_of = |region: Option<usize>| {
            let mut outermost = None;
            let mut r = region;
            while let Some(i) = r {
                if snapshot.regions[i].overlay.is_some() {
                    outermost = Some(snapshot.region_names[i].clone());
                }
                r = snapshot.regions[i].parent;
            }
            outermost
        };
        let lines = snapshot
            .lines
            .iter()
            .zip(rendered)
            .enumerate()
            .map(|(i, (line, (region, text)))| {
                let id = match line.content {
                    LineContent::Element(e) => snapshot.element_ref(e),
                    _ => {
                        let (key, ordinal) = &snapshot.line_keys[i];
                        format!("{}/{}/{}#{}", key.frame_id, key.loader_id, key.backend_node_id, ordinal)
                    }
                };
                let region_name = region.map(|r| snapshot.region_names[r].clone()).unwrap_or_default();
                ViewLine { id, text, region: region_name, overlay: overlay_of(region) }
            })
            .collect();
        let elements = snapshot.refs.iter().zip(&snapshot.elements).map(|(r, e)| (*r, e.facts.clone())).collect();
        View { lines, elements }
    }

    /// The part of the view outside every overlay.
    pub fn base(&self) -> View {
        self.filtered(|l| l.overlay.is_none())
    }

    /// The part of the view inside overlay `name`.
    pub fn overlay(&self, name: &str) -> View {
        self.filtered(|l| l.overlay.as_deref() == Some(name))
    }

    fn filtered(&self, keep: impl Fn(&ViewLine) -> bool) -> View {
        let lines: Vec<ViewLine> = self.lines.iter().filter(|l| keep(l)).cloned().collect();
        let refs: std::collections::BTreeSet<u32> = lines.iter().flat_map(|l| refs_in(&l.text)).collect();
        let elements = self.elements.iter().filter(|(r, _)| refs.contains(r)).map(|(r, f)| (*r, f.clone())).collect();
        View { lines, elements }
    }

    /// Every ref the view shows.
    pub fn refs(&self) -> std::collections::BTreeSet<u32> {
        self.lines.iter().flat_map(|l| refs_in(&l.text)).collect()
    }

    /// A content hash of the view (ids and texts), for "did anything change".
    pub fn hash(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        for line in &self.lines {
            hasher.update(line.id.as_bytes());
            hasher.update(&[0]);
            hasher.update(line.text.as_bytes());
            hasher.update(&[1]);
        }
        *hasher.finalize().as_bytes()
    }
}

/// The ref numbers mentioned in a rendered line (`e12 …`, `[…](e12)`, `ref="e12"`).
pub fn refs_in(text: &str) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || matches!(bytes[i - 1], b' ' | b'(' | b'"');
        if bytes[i] == b'e' && boundary {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            let end = i + 1 + digits;
            let closed = end == bytes.len() || matches!(bytes[end], b' ' | b')' | b'"' | b':');
            if digits > 0
                && closed
                && let Ok(n) = text[i + 1..end].parse()
            {
                out.push(n);
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// A line added by a diff, and the line it follows (`None`: first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedLine {
    /// Id of the line it comes after in the new view.
    pub after: Option<String>,
    /// The line.
    pub line: ViewLine,
}

/// A line whose text changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedLine {
    /// Its id.
    pub id: String,
    /// Text before.
    pub before: String,
    /// Text after.
    pub after: String,
}

/// The exact difference between two views.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineDiff {
    /// Lines that are gone (ids and their last text).
    pub removed: Vec<ViewLine>,
    /// Lines whose text changed.
    pub changed: Vec<ChangedLine>,
    /// Lines that appeared (or moved), in new-view order.
    pub added: Vec<AddedLine>,
}

impl LineDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.changed.is_empty() && self.added.is_empty()
    }

    /// How many lines the diff touches.
    pub fn size(&self) -> usize {
        self.removed.len() + self.changed.len() + self.added.len()
    }
}

/// The diff that turns `old` into `new`. Lines that keep their id and relative order stay (the
/// longest such sequence); the others are removed and added again at their new place.
pub fn diff(old: &View, new: &View) -> LineDiff {
    let old_pos: HashMap<&str, usize> = old.lines.iter().enumerate().map(|(i, l)| (l.id.as_str(), i)).collect();
    // New lines that existed before, as positions in the old view; the longest increasing run
    // of those positions is what stays in place.
    let candidates: Vec<(usize, usize)> =
        new.lines.iter().enumerate().filter_map(|(j, l)| old_pos.get(l.id.as_str()).map(|&i| (j, i))).collect();
    let kept_new: std::collections::HashSet<usize> = longest_increasing(&candidates).into_iter().collect();
    let kept_ids: std::collections::HashSet<&str> = kept_new.iter().map(|&j| new.lines[j].id.as_str()).collect();

    let removed = old.lines.iter().filter(|l| !kept_ids.contains(l.id.as_str())).cloned().collect();
    let mut changed = Vec::new();
    let mut added = Vec::new();
    for (j, line) in new.lines.iter().enumerate() {
        if kept_new.contains(&j) {
            let before = &old.lines[old_pos[line.id.as_str()]];
            if before.text != line.text || before.region != line.region || before.overlay != line.overlay {
                changed.push(ChangedLine {
                    id: line.id.clone(),
                    before: before.text.clone(),
                    after: line.text.clone(),
                });
            }
        } else {
            let after = j.checked_sub(1).map(|p| new.lines[p].id.clone());
            added.push(AddedLine { after, line: line.clone() });
        }
    }
    LineDiff { removed, changed, added }
}

/// Indices (into `pairs`, as their first component) of a longest subsequence whose second
/// components increase.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<usize> {
    // Patience sorting with back-pointers: O(n log n).
    let mut tails: Vec<usize> = Vec::new(); // index into pairs of the smallest tail of each length
    let mut previous: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, value)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < value);
        previous[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut k = tails.last().copied();
    while let Some(i) = k {
        out.push(pairs[i].0);
        k = previous[i];
    }
    out.reverse();
    out
}

/// Applies a diff to a view. `apply(old, &diff(old, new))` has the lines of `new`.
pub fn apply(old: &View, diff: &LineDiff) -> Vec<ViewLine> {
    let removed: std::collections::HashSet<&str> = diff.removed.iter().map(|l| l.id.as_str()).collect();
    let changed: HashMap<&str, &ChangedLine> = diff.changed.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut lines: Vec<ViewLine> = old
        .lines
        .iter()
        .filter(|l| !removed.contains(l.id.as_str()))
        .map(|l| match changed.get(l.id.as_str()) {
            Some(c) => ViewLine { text: c.after.clone(), ..l.clone() },
            None => l.clone(),
        })
        .collect();
    for add in &diff.added {
        let at = match &add.after {
            None => 0,
            Some(after) => lines.iter().position(|l| &l.id == after).map(|p| p + 1).unwrap_or(lines.len()),
        };
        lines.insert(at, add.line.clone());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(lines: &[(&str, &str)]) -> View {
        View {
            lines: lines
                .iter()
                .map(|(id, text)| ViewLine {
                    id: (*id).into(),
                    text: (*text).into(),
                    region: String::new(),
                    overlay: None,
                })
                .collect(),
            elements: BTreeMap::new(),
        }
    }

    #[test]
    fn refs_are_found_wherever_a_line_shows_them() {
        assert_eq!(refs_in("e12 button \"Buy\""), vec![12]);
        assert_eq!(refs_in("Read [our guide](e3) and [more](e40)."), vec![3, 40]);
        assert_eq!(refs_in("<region name=\"nav\" ref=\"e7\">"), vec![7]);
        assert!(refs_in("the e-mail field, see e10x").is_empty());
    }

    #[test]
    fn a_diff_applied_to_the_old_view_gives_the_new_one() {
        let old = view(&[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")]);
        let new = view(&[("b", "B2"), ("x", "X"), ("d", "D"), ("c", "C"), ("y", "Y")]);
        let d = diff(&old, &new);
        assert_eq!(apply(&old, &d), new.lines);
        let removed: Vec<&str> = d.removed.iter().map(|l| l.id.as_str()).collect();
        assert!(removed.len() == 2 && removed[0] == "a", "a is gone and one of c, d moved: {removed:?}");
        assert_eq!(d.changed, vec![ChangedLine { id: "b".into(), before: "B".into(), after: "B2".into() }]);
    }

    #[test]
    fn identical_views_have_an_empty_diff() {
        let v = view(&[("a", "A"), ("b", "B")]);
        assert!(diff(&v, &v).is_empty());
        assert_eq!(v.hash(), v.clone().hash());
    }
}
