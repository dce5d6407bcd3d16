//! Fidelity of a snapshot against the ground truth recorded with its capture.
//!
//! * Interactive coverage: the share of ground-truth interactive elements (see
//!   `ground_truth.js`) that the snapshot gives a ref — directly, or through an enclosing
//!   element with a ref whose box contains the element (≥ 99 %), the one click target a user
//!   sees (propagating bounds).
//! * Text coverage: the share of the words of `document.body.innerText` (counted with
//!   multiplicity, case-insensitive; each CJK character is a word) that occur in the snapshot's
//!   text, read without its link markup. `innerText` joins adjacent inline boxes without a space
//!   ("FacebookTwitter") where the snapshot may keep them apart, and the other way round, so a
//!   word of four or more characters with no exact match still counts when it occurs in the
//!   snapshot's text with whitespace and markup removed. Words that are lost have neither.
//! * Where the ground truth is wrong, the words are counted apart, never silently: `innerText`
//!   lists every option of a closed `<select>`, which the page does not show and the snapshot
//!   summarises (compound controls) past a few options; and it includes text that an opaque
//!   element painted on top of it covers entirely (a cookie wall, a sticky banner), which a user
//!   cannot see. [`Fidelity::text_shown`] reports the coverage of the text shown on the page,
//!   beside the raw figure [`Fidelity::text`]; [`CorpusFidelity`] adds pages up, each kind of
//!   discount with its count.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use sightline_core::capture::Capture;
use sightline_core::snapshot::signal::DropReason;
use sightline_core::snapshot::tree::{NodeKind, PageTree};
use sightline_core::snapshot::{Snapshot, actionable, occlusion, render, signal, text};

/// The ground truth recorded by `cargo xtask capture`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundTruth {
    /// Elements a user can see and act on.
    #[serde(default)]
    pub interactive: Vec<GroundTruthElement>,
    /// `document.body.innerText`.
    #[serde(default)]
    pub inner_text: String,
    /// The option texts of the page's rendered `<select>`s (which `innerText` includes).
    #[serde(default)]
    pub select_options: String,
}

/// One ground-truth element.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundTruthElement {
    /// Backend node id (unique within its target).
    pub backend_node_id: i64,
    /// Tag name.
    #[serde(default)]
    pub tag: String,
}

/// A capture file: the capture plus its ground truth.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedPage {
    /// The main target's ground truth.
    #[serde(default)]
    pub ground_truth: GroundTruth,
    /// Ground truth of each out-of-process iframe, in capture order.
    #[serde(default)]
    pub children: Vec<ChildTruth>,
}

/// The ground truth of one out-of-process iframe.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildTruth {
    /// Its ground truth.
    #[serde(default)]
    pub ground_truth: GroundTruth,
}

/// How faithful one snapshot is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fidelity {
    /// Ground-truth interactive elements.
    pub interactive_total: usize,
    /// Of those, reachable through a ref.
    pub interactive_covered: usize,
    /// The ones without a ref (tag and backend id), for diagnosis.
    pub missing: Vec<(String, i64)>,
    /// Words of innerText.
    pub words_total: usize,
    /// Of those, present in the snapshot.
    pub words_covered: usize,
    /// Words of innerText that are options of closed selects.
    pub option_words: usize,
    /// Of the missing words, how many are such options.
    pub option_words_missing: usize,
    /// Words of innerText in text an opaque element painted on top covers entirely.
    pub covered_words: usize,
    /// Of the missing words, how many are such covered text.
    pub covered_words_missing: usize,
    /// Up to 20 missing words, for diagnosis.
    pub missing_words: Vec<String>,
}

impl Fidelity {
    /// Interactive coverage in [0, 1].
    pub fn interactive(&self) -> f64 {
        if self.interactive_total == 0 { 1.0 } else { self.interactive_covered as f64 / self.interactive_total as f64 }
    }

    /// Text coverage in [0, 1], over every word of innerText.
    pub fn text(&self) -> f64 {
        if self.words_total == 0 { 1.0 } else { self.words_covered as f64 / self.words_total as f64 }
    }

    /// The words of innerText a user can see: all of them less the options of closed selects
    /// and the covered text the snapshot leaves out.
    pub fn words_shown(&self) -> usize {
        self.words_total - self.option_words_missing - self.covered_words_missing
    }

    /// Text coverage in [0, 1] over the words of innerText a user can see: not options of a
    /// closed `<select>` the snapshot summarises, not text covered by an opaque element painted
    /// on top.
    pub fn text_shown(&self) -> f64 {
        let total = self.words_shown();
        if total == 0 { 1.0 } else { self.words_covered as f64 / total as f64 }
    }
}

/// Measures `snapshot` (compiled from `capture`) against the recorded ground truth.
pub fn measure(capture: &Capture, recorded: &RecordedPage, snapshot: &Snapshot) -> Fidelity {
    let tree = PageTree::build(capture);
    let main_frames: HashSet<String> =
        capture.main.frame_tree.frame_tree.frames().iter().map(|f| f.id.clone()).collect();
    // Refs by (target, backend id): target 0 is the page, i + 1 the i-th child capture.
    let target_of_frame = |frame: &str| -> usize {
        if main_frames.contains(frame) {
            return 0;
        }
        capture
            .children
            .iter()
            .position(|c| c.frame_tree.frame_tree.frames().iter().any(|f| f.id == frame))
            .map(|i| i + 1)
            .unwrap_or(usize::MAX)
    };
    let with_ref: HashSet<(usize, i64)> =
        snapshot.elements.iter().map(|e| (target_of_frame(&e.key.frame_id), e.key.backend_node_id)).collect();
    let node_of: HashMap<(usize, i64), usize> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| ((target_of_frame(&tree.frames[n.frame].frame_id), n.backend_id), i))
        .collect();

    let mut f = Fidelity::default();
    let truths = std::iter::once(&recorded.ground_truth).chain(recorded.children.iter().map(|c| &c.ground_truth));
    for (target, truth) in truths.enumerate() {
        for el in &truth.interactive {
            f.interactive_total += 1;
            let key = (target, el.backend_node_id);
            let covered = with_ref.contains(&key)
                || node_of.get(&key).is_some_and(|&id| {
                    let Some(bounds) = tree.nodes[id].bounds() else { return false };
                    tree.ancestors(id).any(|a| {
                        let k = (target_of_frame(&tree.frames[tree.nodes[a].frame].frame_id), tree.nodes[a].backend_id);
                        with_ref.contains(&k)
                            && tree.nodes[a].bounds().is_some_and(|outer| actionable::contained(bounds, outer, 0.99))
                    })
                });
            if covered {
                f.interactive_covered += 1;
            } else {
                f.missing.push((el.tag.clone(), el.backend_node_id));
            }
        }
    }

    let full = render::render(snapshot, 0, &render::RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() });
    let plain = without_link_markup(&full.text);
    let squeezed: String = plain.to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect();
    let mut available: HashMap<String, usize> = HashMap::new();
    for w in text::words(&plain) {
        *available.entry(w).or_default() += 1;
    }
    let mut options: HashMap<String, usize> = HashMap::new();
    for w in text::words(&recorded.ground_truth.select_options) {
        *options.entry(w).or_default() += 1;
        f.option_words += 1;
    }
    let mut covered: HashMap<String, usize> = HashMap::new();
    for w in covered_text(&tree).iter().flat_map(|t| text::words(t)) {
        *covered.entry(w).or_default() += 1;
        f.covered_words += 1;
    }
    let mut missing = Vec::new();
    for w in text::words(&recorded.ground_truth.inner_text) {
        f.words_total += 1;
        match available.get_mut(&w) {
            Some(n) if *n > 0 => {
                *n -= 1;
                f.words_covered += 1;
            }
            _ => missing.push(w),
        }
    }
    for w in missing {
        if w.chars().count() >= 4 && squeezed.contains(&w) {
            f.words_covered += 1;
            continue;
        }
        match (options.get_mut(&w), covered.get_mut(&w)) {
            (Some(n), _) if *n > 0 => {
                *n -= 1;
                f.option_words_missing += 1;
            }
            (_, Some(n)) if *n > 0 => {
                *n -= 1;
                f.covered_words_missing += 1;
            }
            _ => {
                if f.missing_words.len() < 20 {
                    f.missing_words.push(w);
                }
            }
        }
    }
    f
}

/// The text of the text nodes an opaque element painted on top covers entirely (the pipeline's
/// paint-order verdict, on the page's own boxes, paint orders and colours).
fn covered_text<'a>(tree: &PageTree<'a>) -> Vec<&'a str> {
    // A fresh page: nothing was named before it.
    let (candidates, _) = actionable::candidates(tree, &|_| false);
    let mut verdict = signal::filter(tree, &candidates);
    occlusion::apply(tree, &mut verdict);
    tree.nodes
        .iter()
        .enumerate()
        .filter(|(id, n)| n.kind == NodeKind::Text && verdict.dropped[*id] == Some(DropReason::Occluded))
        .map(|(_, n)| n.text)
        .collect()
}

/// The fidelity of a whole corpus: pages added up, each kind of discounted word with its count.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CorpusFidelity {
    /// Pages measured.
    pub pages: usize,
    /// Ground-truth interactive elements over all pages.
    pub interactive_total: usize,
    /// Of those, reachable through a ref.
    pub interactive_covered: usize,
    /// Pages where every interactive element has a ref.
    pub pages_all_interactive: usize,
    /// Words of innerText over all pages.
    pub words_total: usize,
    /// Of those, present in the snapshots.
    pub words_covered: usize,
    /// Missing words that are options of closed selects (discounted).
    pub option_words_missing: usize,
    /// Missing words of text covered by an opaque element painted on top (discounted).
    pub covered_words_missing: usize,
    /// Each page's text coverage over the words shown, by page name.
    pub page_text: Vec<(String, f64)>,
}

impl CorpusFidelity {
    /// Adds page `name`.
    pub fn add(&mut self, name: &str, f: &Fidelity) {
        self.pages += 1;
        self.interactive_total += f.interactive_total;
        self.interactive_covered += f.interactive_covered;
        self.pages_all_interactive += usize::from(f.interactive_covered == f.interactive_total);
        self.words_total += f.words_total;
        self.words_covered += f.words_covered;
        self.option_words_missing += f.option_words_missing;
        self.covered_words_missing += f.covered_words_missing;
        self.page_text.push((name.to_owned(), f.text_shown()));
    }

    /// Interactive coverage over the corpus.
    pub fn interactive(&self) -> f64 {
        ratio(self.interactive_covered, self.interactive_total)
    }

    /// Text coverage over the corpus, of the words shown (the documented kinds discounted).
    pub fn text_shown(&self) -> f64 {
        ratio(self.words_covered, self.words_total - self.option_words_missing - self.covered_words_missing)
    }

    /// Text coverage over the corpus, of every word of innerText.
    pub fn text_raw(&self) -> f64 {
        ratio(self.words_covered, self.words_total)
    }

    /// The median page's text coverage (words shown).
    pub fn median_page_text(&self) -> f64 {
        let mut v: Vec<f64> = self.page_text.iter().map(|(_, t)| *t).collect();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 1.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }

    /// The page with the lowest text coverage (words shown).
    pub fn lowest_page_text(&self) -> Option<(&str, f64)> {
        self.page_text.iter().min_by(|a, b| a.1.total_cmp(&b.1)).map(|(n, t)| (n.as_str(), *t))
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 { 1.0 } else { part as f64 / whole as f64 }
}

/// The text with inline link markup removed: `[e12 label]` becomes `label`.
pub fn without_link_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut in_link = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_link && bytes.get(i + 1) == Some(&b']') => {
                out.push_str("\\]");
                i += 2;
                continue;
            }
            b']' if in_link => {
                in_link = false;
                i += 1;
                continue;
            }
            b'[' => {
                let after = sightline_core::refs::leading_ref_len(&text[i + 1..]).map_or(i, |len| i + 1 + len);
                if after > i && matches!(bytes.get(after), Some(b' ' | b']')) {
                    in_link = bytes[after] == b' ';
                    i = after + 1;
                    continue;
                }
            }
            _ => {}
        }
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    out.replace("![", "").replace('[', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_markup_is_read_as_the_page_text() {
        assert_eq!(
            without_link_markup("[e5 Trump]42 and ![logo] [e1 x\\]y] [\\e2 z]"),
            "Trump42 and logo] x\\]y \\e2 z]"
        );
    }
}
