//! What an agent has been shown of a page, line by line, and the exact difference between two
//! such views.
//!
//! Every line has a key that stays the same while the line's node stays in the document: an
//! element line is its ref (`e12`), any other line is its anchor node and its position among
//! that node's lines. Each line also carries the refs it shows, taken from the snapshot's
//! outline, so nothing ever reads refs back out of a line's text (a page whose text says
//! ` e12 ` holds no ref e12). A [`LineDiff`] turns one view into another exactly ([`apply`]):
//! lines removed, lines whose text changed, and lines added after a given line. That is what
//! deltas are built from, and what the replay checks verify.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::refs::{format_ref, parse_ref};
use crate::snapshot::Snapshot;
use crate::snapshot::element::ElementFacts;
use crate::snapshot::outline::LineContent;
use crate::snapshot::render::{body_lines, element_parts};

/// The stable key of a line: `e12` for an element line, the anchor node and ordinal otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LineKey {
    /// The line of element `e<N>`.
    Element(u32),
    /// A line of text (or a row, a heading…) anchored at a node.
    Node {
        /// CDP frame id.
        frame: String,
        /// Loader id of the frame's document.
        loader: String,
        /// Backend node id.
        node: i64,
        /// Position among that node's lines.
        ordinal: u32,
    },
}

impl LineKey {
    /// The ref number when this is an element's line.
    pub fn element(&self) -> Option<u32> {
        match self {
            LineKey::Element(r) => Some(*r),
            LineKey::Node { .. } => None,
        }
    }
}

impl std::fmt::Display for LineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineKey::Element(r) => f.write_str(&format_ref(*r)),
            LineKey::Node { frame, loader, node, ordinal } => write!(f, "{frame}/{loader}/{node}#{ordinal}"),
        }
    }
}

impl std::str::FromStr for LineKey {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Ok(r) = parse_ref(s) {
            return Ok(LineKey::Element(r));
        }
        let bad = || format!("`{s}` is not a line key");
        let (rest, ordinal) = s.rsplit_once('#').ok_or_else(bad)?;
        let (rest, node) = rest.rsplit_once('/').ok_or_else(bad)?;
        let (frame, loader) = rest.rsplit_once('/').ok_or_else(bad)?;
        Ok(LineKey::Node {
            frame: frame.to_owned(),
            loader: loader.to_owned(),
            node: node.parse().map_err(|_| bad())?,
            ordinal: ordinal.parse().map_err(|_| bad())?,
        })
    }
}

impl Serialize for LineKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LineKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One line an agent has been shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewLine {
    /// Stable key (`e12`, or the anchor node and ordinal).
    pub id: LineKey,
    /// The line as rendered.
    pub text: String,
    /// The stable name of the line's innermost region (empty outside regions).
    pub region: String,
    /// The outermost overlay region containing the line, if any.
    pub overlay: Option<String>,
    /// The origin of the frame of another site the line is in, if any: what it says comes from
    /// that site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Ref numbers the line shows, from the outline.
    #[serde(skip)]
    pub refs: Vec<u32>,
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
        let lines = snapshot
            .lines
            .iter()
            .zip(rendered)
            .map(|(line, body)| {
                let id = match line.content {
                    LineContent::Element(e) => LineKey::Element(snapshot.element(e).number),
                    _ => LineKey::Node {
                        frame: line.key.frame_id.clone(),
                        loader: line.key.loader_id.clone(),
                        node: line.key.backend_node_id,
                        ordinal: line.ordinal,
                    },
                };
                ViewLine {
                    id,
                    text: body.text,
                    region: line.region.map(|r| snapshot.region(r).name.clone()).unwrap_or_default(),
                    overlay: snapshot.overlay_of(line.region).map(|r| snapshot.region(r).name.clone()),
                    frame: snapshot.frame_of(line.region).map(|r| snapshot.region(r).label.clone()),
                    refs: body.refs,
                }
            })
            .collect();
        let elements = snapshot.elements.iter().map(|e| (e.number, e.facts.clone())).collect();
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
        let refs: BTreeSet<u32> = lines.iter().flat_map(|l| l.refs.iter().copied()).collect();
        let elements = self.elements.iter().filter(|(r, _)| refs.contains(r)).map(|(r, f)| (*r, f.clone())).collect();
        View { lines, elements }
    }

    /// Every ref the view shows.
    pub fn refs(&self) -> BTreeSet<u32> {
        self.lines.iter().flat_map(|l| l.refs.iter().copied()).collect()
    }

    /// A content hash of the view (keys and texts), for "did anything change".
    pub fn hash(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        for line in &self.lines {
            hasher.update(line.id.to_string().as_bytes());
            hasher.update(&[0]);
            hasher.update(line.text.as_bytes());
            hasher.update(&[1]);
        }
        *hasher.finalize().as_bytes()
    }
}

/// A line added by a diff, and the line it follows (`None`: first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedLine {
    /// Key of the line it comes after in the new view.
    pub after: Option<LineKey>,
    /// The line.
    pub line: ViewLine,
}

/// A line whose text changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedLine {
    /// Its key.
    pub id: LineKey,
    /// Text before.
    pub before: String,
    /// Text after.
    pub after: String,
    /// The origin of the frame of another site the line is in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Ref numbers the line shows after the change.
    #[serde(skip)]
    pub refs: Vec<u32>,
    /// For an element's line: the parts of its line before and after (ref, role, name, `=`,
    /// value, parts, states, attributes), so the change can be said part by part.
    #[serde(skip)]
    pub element: Option<ElementChange>,
}

/// The parts of an element's line before and after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementChange {
    /// Parts before.
    pub before: Vec<String>,
    /// Parts after.
    pub after: Vec<String>,
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

/// The diff that turns `old` into `new`. Lines that keep their key and relative order stay (the
/// longest such sequence); the others are removed and added again at their new place.
pub fn diff(old: &View, new: &View) -> LineDiff {
    let old_pos: HashMap<&LineKey, usize> = old.lines.iter().enumerate().map(|(i, l)| (&l.id, i)).collect();
    // New lines that existed before, as positions in the old view; the longest increasing run
    // of those positions is what stays in place.
    let candidates: Vec<(usize, usize)> =
        new.lines.iter().enumerate().filter_map(|(j, l)| old_pos.get(&l.id).map(|&i| (j, i))).collect();
    let kept_new: HashSet<usize> = longest_increasing(&candidates).into_iter().collect();
    let kept_ids: HashSet<&LineKey> = kept_new.iter().map(|&j| &new.lines[j].id).collect();

    let removed = old.lines.iter().filter(|l| !kept_ids.contains(&l.id)).cloned().collect();
    let mut changed = Vec::new();
    let mut added = Vec::new();
    for (j, line) in new.lines.iter().enumerate() {
        if kept_new.contains(&j) {
            let before = &old.lines[old_pos[&line.id]];
            if before.text != line.text
                || before.region != line.region
                || before.overlay != line.overlay
                || before.frame != line.frame
            {
                let element = line.id.element().and_then(|r| {
                    let (b, a) = (old.elements.get(&r)?, new.elements.get(&r)?);
                    let element_ref = format_ref(r);
                    Some(ElementChange {
                        before: element_parts(b, &element_ref, None),
                        after: element_parts(a, &element_ref, None),
                    })
                });
                changed.push(ChangedLine {
                    id: line.id.clone(),
                    before: before.text.clone(),
                    after: line.text.clone(),
                    frame: line.frame.clone(),
                    refs: line.refs.clone(),
                    element,
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
    let removed: HashSet<&LineKey> = diff.removed.iter().map(|l| &l.id).collect();
    let changed: HashMap<&LineKey, &ChangedLine> = diff.changed.iter().map(|c| (&c.id, c)).collect();
    let mut lines: Vec<ViewLine> = old
        .lines
        .iter()
        .filter(|l| !removed.contains(&l.id))
        .map(|l| match changed.get(&l.id) {
            Some(c) => ViewLine { text: c.after.clone(), refs: c.refs.clone(), ..l.clone() },
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

    fn key(id: &str) -> LineKey {
        LineKey::Node { frame: "F".into(), loader: "L".into(), node: id.as_bytes()[0] as i64, ordinal: 0 }
    }

    fn view(lines: &[(&str, &str)]) -> View {
        View {
            lines: lines
                .iter()
                .map(|(id, text)| ViewLine {
                    id: key(id),
                    text: (*text).into(),
                    region: String::new(),
                    overlay: None,
                    frame: None,
                    refs: Vec::new(),
                })
                .collect(),
            elements: BTreeMap::new(),
        }
    }

    #[test]
    fn line_keys_read_back_from_their_text_form() {
        for k in [LineKey::Element(12), key("a")] {
            assert_eq!(k.to_string().parse::<LineKey>().unwrap(), k);
        }
        assert_eq!(key("a").to_string(), "F/L/97#0");
        assert!("nonsense".parse::<LineKey>().is_err());
    }

    #[test]
    fn a_diff_applied_to_the_old_view_gives_the_new_one() {
        let old = view(&[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")]);
        let new = view(&[("b", "B2"), ("x", "X"), ("d", "D"), ("c", "C"), ("y", "Y")]);
        let d = diff(&old, &new);
        assert_eq!(apply(&old, &d), new.lines);
        let removed: Vec<&LineKey> = d.removed.iter().map(|l| &l.id).collect();
        assert!(removed.len() == 2 && *removed[0] == key("a"), "a is gone and one of c, d moved: {removed:?}");
        assert_eq!(
            d.changed,
            vec![ChangedLine {
                id: key("b"),
                before: "B".into(),
                after: "B2".into(),
                frame: None,
                refs: Vec::new(),
                element: None
            }]
        );
    }

    #[test]
    fn identical_views_have_an_empty_diff() {
        let v = view(&[("a", "A"), ("b", "B")]);
        assert!(diff(&v, &v).is_empty());
        assert_eq!(v.hash(), v.clone().hash());
    }
}
