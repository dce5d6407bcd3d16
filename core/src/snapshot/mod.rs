//! The snapshot pipeline: from a CDP capture to the compact, lossless page an agent reads.
//!
//! ```text
//! Capture ─► tree        join DOM, layout, styles and accessibility across frames
//!         ─► signal      visibility, lone separators, noise tags, a page hidden while it loads
//!         ─► occlusion   what something painted on top covers entirely
//!         ─► actionable  what gets a ref; propagating bounds (one click target, one ref);
//!                        hover menus' triggers (`hover_menus`)
//!         ─► outline     text collapsing, wrapper hoisting, name promotion, label dedup,
//!                        container refinement, regions and overlays
//!         ─► element     role, name, value, states; attribute pruning and short names;
//!                        compound controls; secret values masked (judged in `secrets`,
//!                        with what the page state remembers of each field)
//!         ─► refs        short stable refs
//!         ─► render      text, boxes on request, lossless paging; facts with state buckets
//! ```
//!
//! The pipeline is deterministic: the same capture and the same ref assignments give the same
//! bytes (the refs already held count: a hover menu's trigger named before stays a target).
//! Nothing visible is summarised or dropped; a response over the ceiling is paged.
//!
//! A compiled [`Snapshot`] holds three tables of records, each indexed by its own id type:
//! elements ([`ElementId`]), regions ([`RegionId`]) and lines. Lines say which elements they
//! show, so nothing downstream ever reads refs back out of rendered text.

pub mod accessibility;
pub mod actionable;
pub mod depth;
pub mod element;
pub mod escape;
pub mod frames;
pub mod hover_menus;
mod joined;
pub mod occlusion;
pub mod outline;
pub mod render;
pub mod secrets;
pub mod semantics;
pub mod signal;
pub mod tags;
pub mod text;
pub mod tree;

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::capture::Capture;
use crate::protocol::{ElementFacts as ElementOutput, SnapshotFacts, SnapshotStats};
use crate::refs::{ElementIdentity, NodeKey, RefRegistry, format_ref};
use crate::urls::{UrlPolicy, redact_url};
use element::ElementFacts;
use outline::{LineContent, Overlay};
use signal::DropReason;
use tree::PageTree;

/// Index of an element in [`Snapshot::elements`] (and in the outline it was built from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementId(pub usize);

/// Index of a region in [`Snapshot::regions`] (and in the outline it was built from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(pub usize);

/// An element an agent can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementRecord {
    /// Its node (frame, document, backend node).
    pub key: NodeKey,
    /// Its ref number (`e12` → 12).
    pub number: u32,
    /// What the agent is told about it.
    pub facts: ElementFacts,
    /// The innermost region it is shown in.
    pub region: Option<RegionId>,
    /// Its border box in page coordinates.
    pub bbox: Option<[i64; 4]>,
    /// The nearest enclosing actionable element.
    pub enclosing: Option<ElementId>,
}

/// A landmark region or an overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionRecord {
    /// Short kind: `header`, `nav`, `main`, `footer`, `aside`, `search`, `form`, `section`,
    /// `dialog`.
    pub kind: &'static str,
    /// Accessible name, if any.
    pub label: String,
    /// Stable name across documents (`nav "Primary"`, `main`, `nav #2`).
    pub name: String,
    /// The enclosing region.
    pub parent: Option<RegionId>,
    /// The region's own element, when it can be acted on (a focusable landmark).
    pub element: Option<ElementId>,
    /// Set when the region is an overlay (a modal, a dialog, a dropdown).
    pub overlay: Option<Overlay>,
    /// The node that makes the region.
    pub key: NodeKey,
}

/// One line of the page, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct LineRecord {
    /// The node the line stands for.
    pub key: NodeKey,
    /// Lines of the same node are numbered from 0.
    pub ordinal: u32,
    /// The innermost region.
    pub region: Option<RegionId>,
    /// Nesting depth (lists, groups, controls inside controls).
    pub indent: u8,
    /// What the line says.
    pub content: LineContent,
}

/// A compiled snapshot. Owns everything it needs; the capture can be dropped.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Page URL, its secrets masked ([`crate::urls::redact_url`]).
    pub url: String,
    /// Page title.
    pub title: String,
    /// Actionable elements in reading order.
    pub elements: Vec<ElementRecord>,
    /// Regions, outermost first.
    pub regions: Vec<RegionRecord>,
    /// Lines in reading order.
    pub lines: Vec<LineRecord>,
    /// Some document's frame was unknown, so its refs could not be scoped.
    pub unknown_frames: bool,
    /// What the agent should know about the page before its content (also its first lines).
    pub notes: Vec<String>,
    /// The main frame's id.
    pub main_frame: String,
    /// Loader id of the main frame's document.
    pub main_loader: String,
    /// What the pipeline did.
    pub stats: SnapshotStats,
}

impl Snapshot {
    /// Element `id`.
    pub fn element(&self, id: ElementId) -> &ElementRecord {
        &self.elements[id.0]
    }

    /// Region `id`.
    pub fn region(&self, id: RegionId) -> &RegionRecord {
        &self.regions[id.0]
    }

    /// Every element id, in reading order.
    pub fn element_ids(&self) -> impl Iterator<Item = ElementId> + use<> {
        (0..self.elements.len()).map(ElementId)
    }

    /// Every region id, outermost first.
    pub fn region_ids(&self) -> impl Iterator<Item = RegionId> + use<> {
        (0..self.regions.len()).map(RegionId)
    }

    /// The ref of element `id`, e.g. `e12`.
    pub fn element_ref(&self, id: ElementId) -> String {
        format_ref(self.element(id).number)
    }

    /// Boxes on request: the box of element `id`, unless it repeats its enclosing element's box.
    pub fn bbox_shown(&self, id: ElementId) -> Option<[i64; 4]> {
        let own = self.element(id).bbox?;
        match self.element(id).enclosing.and_then(|p| self.element(p).bbox) {
            Some(parent) if parent == own => None,
            _ => Some(own),
        }
    }

    /// Whether region `r` is `ancestor` or inside it.
    pub fn within(&self, r: Option<RegionId>, ancestor: RegionId) -> bool {
        let mut at = r;
        while let Some(i) = at {
            if i == ancestor {
                return true;
            }
            at = self.region(i).parent;
        }
        false
    }

    /// The chain of regions from the outermost to `region`.
    pub fn region_path(&self, region: Option<RegionId>) -> Vec<RegionId> {
        let mut path = Vec::new();
        let mut r = region;
        while let Some(i) = r {
            path.push(i);
            r = self.region(i).parent;
        }
        path.reverse();
        path
    }

    /// The outermost overlay region holding `region`, if any.
    pub fn overlay_of(&self, region: Option<RegionId>) -> Option<RegionId> {
        self.region_path(region).into_iter().find(|&r| self.region(r).overlay.is_some())
    }

    /// What a client is told about element `id` on its own (with its states).
    pub fn element_output(&self, id: ElementId) -> ElementOutput {
        let e = self.element(id);
        ElementOutput {
            element_ref: format_ref(e.number),
            role: e.facts.role.clone(),
            name: e.facts.name.clone(),
            value: e.facts.value.clone(),
            states: e.facts.states.iter().map(|s| (*s).to_owned()).collect(),
            frame: self.frame_origin(id),
        }
    }

    /// Ref numbers of the elements inside region `r` (and the regions inside it), in order.
    pub fn refs_in_region(&self, r: RegionId) -> Vec<u32> {
        self.elements.iter().filter(|e| self.within(e.region, r)).map(|e| e.number).collect()
    }

    /// The region named `wanted`: an exact name, else the first whose name starts with it.
    pub fn region_named(&self, wanted: &str) -> Option<RegionId> {
        let position = |f: &dyn Fn(&RegionRecord) -> bool| self.regions.iter().position(f).map(RegionId);
        position(&|r| r.name == wanted).or_else(|| position(&|r| r.name.starts_with(wanted)))
    }

    /// State buckets: the structured facts, with states listed once per state rather than
    /// repeated per element.
    pub fn facts(&self, version: u64) -> SnapshotFacts {
        let mut states: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let elements = self
            .element_ids()
            .zip(&self.elements)
            .map(|(id, e)| {
                let element_ref = format_ref(e.number);
                for s in &e.facts.states {
                    states.entry((*s).to_owned()).or_default().push(element_ref.clone());
                }
                ElementOutput {
                    element_ref,
                    role: e.facts.role.clone(),
                    name: e.facts.name.clone(),
                    value: e.facts.value.clone(),
                    states: Vec::new(),
                    frame: self.frame_origin(id),
                }
            })
            .collect();
        SnapshotFacts {
            url: self.url.clone(),
            title: self.title.clone(),
            version,
            kind: "full".into(),
            reason: None,
            notes: self.notes.clone(),
            unchanged_regions: Vec::new(),
            page: 1,
            pages: 1,
            next_page: None,
            elements,
            frames: self.frame_facts(),
            states,
            stats: self.stats.clone(),
        }
    }
}

/// Compiles a capture; `refs` gives each element its ref number, seeing each element's node and
/// identity. Secret fields are judged on this capture alone; a page state compiles with
/// [`compile_with`], so that a field once secret stays masked.
pub fn compile(capture: &Capture, refs: &mut RefRegistry) -> Snapshot {
    compile_with(capture, refs, &mut secrets::SecretFields::default(), &UrlPolicy::default())
}

/// Every field of `capture` whose value a snapshot masks (judged secret now, or remembered as
/// secret by `secret_fields`, which learns the ones secret now), in every frame, and every
/// element holding a frame whose URL `policy` refuses: what a screenshot must paint over. Those
/// that are not drawn are listed too; they have no box.
pub fn masked_fields(capture: &Capture, secret_fields: &mut secrets::SecretFields, policy: &UrlPolicy) -> Vec<Masked> {
    let mut tree = PageTree::build_with(capture, policy);
    secret_fields.apply(&mut tree);
    let key = |id: usize| tree.node_key(id);
    let refused = |id: usize| tree.nodes[id].framed.iter().any(|f| matches!(f, frames::Framed::Refused { .. }));
    (0..tree.nodes.len())
        .filter_map(|id| match (secrets::is_secret(&tree, id), refused(id)) {
            (true, _) => Some(Masked { node: key(id), refused_frame: false }),
            (false, true) => Some(Masked { node: key(id), refused_frame: true }),
            (false, false) => None,
        })
        .collect()
}

/// What a screenshot paints over: a field whose value the snapshot masks, or the element holding
/// a frame whose URL is refused (its content is not read, so it is not shown either).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Masked {
    /// The node.
    pub node: NodeKey,
    /// Whether it holds a refused frame rather than a secret value.
    pub refused_frame: bool,
}

/// [`compile`], with `secret_fields` remembering which fields were secret before (and learning
/// the ones secret now), and frames whose URL `policy` refuses left unread.
pub fn compile_with(
    capture: &Capture,
    refs: &mut RefRegistry,
    secret_fields: &mut secrets::SecretFields,
    policy: &UrlPolicy,
) -> Snapshot {
    let mut tree = PageTree::build_with(capture, policy);
    secret_fields.apply(&mut tree);
    let tree = tree;
    let key = |id: tree::NodeId| tree.node_key(id);
    // Which nodes hold a ref already (their backend ids first: a quick test for every node).
    let held: HashSet<i64> = refs.live_keys().map(|k| k.backend_node_id).collect();
    let named_before = |id: tree::NodeId| held.contains(&tree.nodes[id].backend_id) && refs.is_live(&key(id));
    let (mut actionable, open_menus) = actionable::candidates(&tree, &named_before);
    let mut signal = signal::filter(&tree, &actionable);
    occlusion::apply(&tree, &mut signal);
    for (id, a) in actionable.iter_mut().enumerate() {
        *a &= signal.kept(id) && !signal.ax_hidden[id];
    }
    let stands_for = actionable::labels_for_hidden_controls(&tree, &signal, &mut actionable);
    let nested = actionable::propagate_bounds(&tree, &signal, &mut actionable);
    let (merged, borrowed) = actionable::merge_same_name(&tree, &signal, &mut actionable);
    let open_menus = open_menus.into_iter().filter(|&id| actionable[id]).collect();
    let sources = outline::Sources { stands_for, borrowed, open_menus };
    let mut outline = outline::build(&tree, &signal, &actionable, &sources);
    let notes: Vec<String> = signal.hidden_root.iter().map(signal::HiddenRoot::note).collect();
    if let Some(hidden) = &signal.hidden_root {
        // The page's first line. It takes its node's last ordinal, so it never shares an
        // identity with a line of the node's own text.
        let note = outline::Line {
            anchor: hidden.node,
            ordinal: u32::MAX,
            region: None,
            indent: 0,
            content: LineContent::Note(hidden.note()),
        };
        outline.lines.insert(0, note);
    }

    let region_names = region_names(&outline.regions);
    let element_regions = element_regions(&outline);
    let element_keys: Vec<NodeKey> = outline.elements.iter().map(|e| key(e.node)).collect();
    let main_frame_id = capture.main.frame_tree.frame_tree.frame.id.as_str();
    let mut seen: HashMap<(String, String, String), u32> = HashMap::new();
    let identities: Vec<(NodeKey, ElementIdentity)> = outline
        .elements
        .iter()
        .zip(&element_keys)
        .zip(&element_regions)
        .map(|((e, key), region)| {
            let region = region.map(|r| region_names[r.0].clone()).unwrap_or_default();
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
    let numbers = refs.assign_refs(&identities);
    let index_of: HashMap<tree::NodeId, ElementId> =
        outline.elements.iter().enumerate().map(|(i, e)| (e.node, ElementId(i))).collect();

    let mut stats =
        SnapshotStats { nodes_in: tree.nodes.len(), nested_clickables: nested + merged, ..SnapshotStats::default() };
    for reason in signal.dropped.iter().flatten() {
        match reason {
            DropReason::Invisible => stats.dropped_invisible += 1,
            DropReason::TinyText => stats.dropped_tiny_text += 1,
            DropReason::Noise => stats.dropped_noise += 1,
            DropReason::Occluded => stats.dropped_occluded += 1,
        }
    }
    stats.hidden_root = signal.hidden_root.is_some();
    stats.aria_hidden = signal.ax_hidden.iter().zip(&signal.dropped).filter(|(h, d)| **h && d.is_none()).count();
    stats.hoisted_containers = outline.hoisted_containers;
    stats.promoted_names = outline.promoted_names;
    stats.lines_out = outline.lines.len();
    stats.elements_out = outline.elements.len();

    let elements = outline
        .elements
        .into_iter()
        .zip(element_keys)
        .zip(numbers)
        .zip(element_regions)
        .map(|(((e, key), number), region)| ElementRecord {
            bbox: tree.nodes[e.node]
                .bounds()
                .map(|b| [b.x.round() as i64, b.y.round() as i64, b.w.round() as i64, b.h.round() as i64]),
            enclosing: tree.ancestors(e.node).find_map(|a| index_of.get(&a).copied()),
            key,
            number,
            facts: e.facts,
            region,
        })
        .collect();
    let regions = outline
        .regions
        .into_iter()
        .zip(region_names)
        .map(|(r, name)| RegionRecord {
            kind: r.kind,
            label: r.label,
            name,
            parent: r.parent,
            element: r.element,
            overlay: r.overlay,
            key: key(r.anchor),
        })
        .collect();
    let lines = outline
        .lines
        .into_iter()
        .map(|l| LineRecord {
            key: key(l.anchor),
            ordinal: l.ordinal,
            region: l.region,
            indent: l.indent,
            content: l.content,
        })
        .collect();

    let main_frame = &capture.main.frame_tree.frame_tree.frame;
    let title = capture
        .main
        .snapshot
        .documents
        .first()
        .map(|d| capture.main.snapshot.string(d.title).to_owned())
        .unwrap_or_default();
    let mut snapshot = Snapshot {
        // Secrets in the page's URL (`?token=`, `#access_token=`) never reach an answer.
        // The address as the address bar shows it: a link to an anchor moves it.
        url: redact_url(&format!("{}{}", main_frame.url, main_frame.url_fragment.as_deref().unwrap_or(""))),
        title: text::normalise(&title),
        elements,
        regions,
        lines,
        unknown_frames: tree.unknown_frames > 0,
        notes,
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
fn region_names(regions: &[outline::Region]) -> Vec<String> {
    let mut count: HashMap<(&str, &str), u32> = HashMap::new();
    regions
        .iter()
        .map(|r| {
            let n = count.entry((r.kind, r.label.as_str())).or_insert(0);
            *n += 1;
            let base =
                if r.label.is_empty() { r.kind.to_owned() } else { format!("{} {}", r.kind, escape::quote(&r.label)) };
            if *n == 1 { base } else { format!("{base} #{n}") }
        })
        .collect()
}

/// The innermost region of each element: the region of the line that shows it (an inline link
/// is in its paragraph's region), or the region it is itself (a focusable landmark).
fn element_regions(outline: &outline::Outline) -> Vec<Option<RegionId>> {
    let mut regions = vec![None; outline.elements.len()];
    for line in &outline.lines {
        for ElementId(i) in line.content.elements() {
            regions[i] = regions[i].or(line.region);
        }
    }
    for (r, region) in outline.regions.iter().enumerate() {
        if let Some(ElementId(e)) = region.element {
            regions[e] = Some(RegionId(r));
        }
    }
    regions
}
