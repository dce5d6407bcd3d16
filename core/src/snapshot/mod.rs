//! The snapshot pipeline: from a CDP capture to the compact, lossless page an agent reads.
//!
//! ```text
//! Capture ─► tree (join DOM, layout, styles, accessibility across frames)
//!         ─► signal (F1 visibility, F2 tiny text, F3 noise)  ─► occlusion (F5)
//!         ─► actionable (candidates, S2.4 propagating bounds)
//!         ─► outline (S2.1 text collapsing, S2.2 hoisting, S2.3 label dedup, F4 containers)
//!         ─► element facts (P3.2 pruning, P3.3 short names, S2.3 dedup, E0 compounds, redaction)
//!         ─► refs (P3.1) ─► render (P3.4 boxes, paging) / facts (P3.5 state buckets)
//! ```
//!
//! The pipeline is deterministic: the same capture and the same ref assignments give the same
//! bytes. Nothing visible is summarised or dropped; a response over the ceiling is paged.

pub mod actionable;
pub mod element;
pub mod occlusion;
pub mod outline;
pub mod render;
pub mod signal;
pub mod text;
pub mod tree;

use std::collections::BTreeMap;

use crate::capture::Capture;
use crate::protocol::{ElementFacts as ElementOutput, SnapshotFacts, SnapshotStats};
use std::collections::HashMap;

use crate::refs::{ElementIdentity, NodeKey, RefAssigner};
use outline::{Line, OutlineElement, Region};
use signal::DropReason;
use tree::PageTree;

/// A compiled snapshot. Owns everything it needs; the capture can be dropped.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Regions.
    pub regions: Vec<Region>,
    /// Identity of each region's element.
    pub region_keys: Vec<NodeKey>,
    /// Stable name of each region across documents (`nav "Primary"`, `main`, `nav #2`).
    pub region_names: Vec<String>,
    /// The innermost region of each element.
    pub element_regions: Vec<Option<usize>>,
    /// Lines in reading order.
    pub lines: Vec<Line>,
    /// Identity of each line: its anchor node and its ordinal among that anchor's lines.
    pub line_keys: Vec<(NodeKey, u32)>,
    /// Actionable elements in reading order.
    pub elements: Vec<OutlineElement>,
    /// Identity of each element.
    pub element_keys: Vec<NodeKey>,
    /// Ref number of each element (`e12` → 12).
    pub refs: Vec<u32>,
    /// Border box of each element, in page coordinates.
    pub boxes: Vec<Option<[i64; 4]>>,
    /// Index of the nearest enclosing actionable element.
    pub enclosing: Vec<Option<usize>>,
    /// Some document's frame was unknown, so its refs could not be scoped.
    pub unknown_frames: bool,
    /// The main frame's id.
    pub main_frame: String,
    /// Loader id of the main frame's document.
    pub main_loader: String,
    /// What the pipeline did.
    pub stats: SnapshotStats,
}

impl Snapshot {
    /// The ref of element `i`, e.g. `e12`.
    pub fn element_ref(&self, i: usize) -> String {
        format!("e{}", self.refs[i])
    }

    /// P3.4: the box of element `i`, unless it repeats its enclosing element's box.
    pub fn bbox_shown(&self, i: usize) -> Option<[i64; 4]> {
        let own = self.boxes[i]?;
        match self.enclosing[i].and_then(|p| self.boxes[p]) {
            Some(parent) if parent == own => None,
            _ => Some(own),
        }
    }

    /// P3.5: the structured facts, with states bucketed by state rather than repeated per
    /// element.
    pub fn facts(&self, version: u64) -> SnapshotFacts {
        let mut states: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let elements = self
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                for s in &e.facts.states {
                    states.entry((*s).to_owned()).or_default().push(self.element_ref(i));
                }
                ElementOutput {
                    element_ref: self.element_ref(i),
                    role: e.facts.role.clone(),
                    name: e.facts.name.clone(),
                    value: e.facts.value.clone(),
                }
            })
            .collect();
        SnapshotFacts {
            url: self.url.clone(),
            title: self.title.clone(),
            version,
            kind: "full".into(),
            reason: None,
            unchanged_regions: Vec::new(),
            elements,
            states,
            stats: self.stats.clone(),
        }
    }
}

/// Compiles a capture. `refs` gives each element its ref number (P3.1), seeing each element's
/// node and identity.
pub fn compile(capture: &Capture, refs: &mut dyn RefAssigner) -> Snapshot {
    let tree = PageTree::build(capture);
    let mut actionable = actionable::candidates(&tree);
    let mut signal = signal::filter(&tree, &actionable);
    occlusion::apply(&tree, &mut signal);
    for (id, a) in actionable.iter_mut().enumerate() {
        *a &= signal.kept(id) && !signal.ax_hidden[id];
    }
    let nested = actionable::propagate_bounds(&tree, &signal, &mut actionable);
    let outline = outline::build(&tree, &signal, &actionable);

    let key = |id: tree::NodeId| {
        let frame = tree.frame_of(id);
        NodeKey {
            frame_id: frame.frame_id.clone(),
            loader_id: frame.loader_id.clone(),
            backend_node_id: tree.nodes[id].backend_id,
        }
    };
    let element_keys: Vec<NodeKey> = outline.elements.iter().map(|e| key(e.node)).collect();
    let region_names = region_names(&outline.regions);
    let main_frame_id = capture.main.frame_tree.frame_tree.frame.id.as_str();
    let element_regions = element_regions(&outline);
    let mut seen: HashMap<(String, String, String), u32> = HashMap::new();
    let identities: Vec<(NodeKey, ElementIdentity)> = outline
        .elements
        .iter()
        .zip(&element_keys)
        .zip(&element_regions)
        .map(|((e, key), region)| {
            let region = region.map(|r| region_names[r].clone()).unwrap_or_default();
            let counter = seen.entry((region.clone(), e.facts.role.clone(), e.facts.name.clone())).or_insert(0);
            let identity = ElementIdentity {
                main_frame: key.frame_id == main_frame_id,
                region,
                role: e.facts.role.clone(),
                name: e.facts.name.clone(),
                ordinal: *counter,
            };
            *counter += 1;
            (key.clone(), identity)
        })
        .collect();
    let refs = refs.assign_refs(&identities);
    let boxes: Vec<Option<[i64; 4]>> = outline
        .elements
        .iter()
        .map(|e| {
            tree.nodes[e.node]
                .bounds()
                .map(|b| [b.x.round() as i64, b.y.round() as i64, b.w.round() as i64, b.h.round() as i64])
        })
        .collect();
    let index_of: std::collections::HashMap<tree::NodeId, usize> =
        outline.elements.iter().enumerate().map(|(i, e)| (e.node, i)).collect();
    let enclosing =
        outline.elements.iter().map(|e| tree.ancestors(e.node).find_map(|a| index_of.get(&a).copied())).collect();

    let mut stats = SnapshotStats { nodes_in: tree.nodes.len(), nested_clickables: nested, ..SnapshotStats::default() };
    for reason in signal.dropped.iter().flatten() {
        match reason {
            DropReason::Invisible => stats.dropped_invisible += 1,
            DropReason::TinyText => stats.dropped_tiny_text += 1,
            DropReason::Noise => stats.dropped_noise += 1,
            DropReason::Occluded => stats.dropped_occluded += 1,
        }
    }
    stats.aria_hidden = signal.ax_hidden.iter().zip(&signal.dropped).filter(|(h, d)| **h && d.is_none()).count();
    stats.hoisted_containers = outline.hoisted_containers;
    stats.promoted_names = outline.promoted_names;
    stats.lines_out = outline.lines.len();
    stats.elements_out = outline.elements.len();

    let main_frame = &capture.main.frame_tree.frame_tree.frame;
    let title = capture
        .main
        .snapshot
        .documents
        .first()
        .map(|d| capture.main.snapshot.string(d.title).to_owned())
        .unwrap_or_default();
    let mut snapshot = Snapshot {
        url: main_frame.url.clone(),
        title: text::normalise(&title),
        region_keys: outline.regions.iter().map(|r| key(r.anchor)).collect(),
        region_names,
        element_regions,
        regions: outline.regions,
        line_keys: outline.lines.iter().map(|l| (key(l.anchor), l.ordinal)).collect(),
        lines: outline.lines,
        elements: outline.elements,
        element_keys,
        refs,
        boxes,
        enclosing,
        unknown_frames: tree.unknown_frames > 0,
        main_frame: main_frame.id.clone(),
        main_loader: main_frame.loader_id.clone(),
        stats,
    };
    let full =
        render::render(&snapshot, 0, &render::RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() });
    snapshot.stats.chars = full.text.chars().count();
    snapshot.stats.estimated_tokens = render::estimate_tokens(&full.text);
    snapshot
}

/// Names for regions that stay the same from one document to the next: the region's kind and
/// label, numbered when several share them.
fn region_names(regions: &[Region]) -> Vec<String> {
    let mut count: HashMap<(&str, &str), u32> = HashMap::new();
    regions
        .iter()
        .map(|r| {
            let n = count.entry((r.kind, r.label.as_str())).or_insert(0);
            *n += 1;
            let base = if r.label.is_empty() { r.kind.to_owned() } else { format!("{} {:?}", r.kind, r.label) };
            if *n == 1 { base } else { format!("{base} #{n}") }
        })
        .collect()
}

/// The innermost region of each element: the region of the line that shows it (an inline link
/// is in its paragraph's region), or the region it is itself (a focusable landmark).
fn element_regions(outline: &outline::Outline) -> Vec<Option<usize>> {
    let mut regions = vec![None; outline.elements.len()];
    for line in &outline.lines {
        for i in line.elements() {
            regions[i] = regions[i].or(line.region);
        }
    }
    for (r, region) in outline.regions.iter().enumerate() {
        if let Some(e) = region.element {
            regions[e] = Some(r);
        }
    }
    regions
}
