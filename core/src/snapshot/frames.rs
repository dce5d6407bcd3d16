//! Frames of other sites, and frames that are not read.
//!
//! A page can frame another site's document: a recipe page can show the person's bank, where
//! they are logged in, with its balance and its "Transfer funds" button. Read through as one
//! page, the bank's words and buttons would pass for the recipe page's. So, as the page tree is
//! built:
//!
//! * the document of every frame whose site (`crate::urls::site`: scheme and the registrable
//!   domain the browser gives) differs from the top document's is set apart: it is not among its `<iframe>`'s
//!   children and has no parent, but hangs at the `<iframe>` as [`Framed::OtherSite`] with
//!   its origin. Nothing that reads the page's own content (a name taken from content, a
//!   label's words, a click target merged with the element around it) reaches into it, and
//!   nothing inside it reaches out. The stages that judge the whole page (visibility,
//!   occlusion, click targets) go in on purpose ([`PageTree::children_and_framed`]), and the
//!   outline writes its content inside a frame region that names its origin;
//! * inside such a frame, a frame is set apart again only when it is of a third site: one of
//!   the framing site or of the top document's site is what the other site shows, and stays
//!   inside its frame;
//! * a frame whose URL the URL policy refuses ([`UrlPolicy::frame_refusal`]: a file, a browser
//!   page, another extension's page, `data:`) is not added to the tree at all, nor any frame
//!   inside it. Its `<iframe>` holds a [`Framed::Refused`] with the reason, and the outline
//!   writes one line saying so. The browser's error page, in a frame that did not load, is not
//!   read either, but writes nothing: it holds no site's content. So does an `<iframe>` whose `src` is
//!   such a URL while its document is still the first, empty one (the browser blocks a web
//!   page's `file:` frame, and the page may write into it).
//!
//! `about:blank` and `about:srcdoc` frames, and a frame's first document (whose URL is empty),
//! hold what their embedder wrote into them: they are of their embedder's site, and read with
//! it.

use std::collections::HashMap;

use super::outline::LineContent;
use super::outline::frames::FRAME_REGION;
use super::tree::{NodeId, NodeKind, PageTree};
use super::{ElementId, RegionId, Snapshot};
use crate::capture::Capture;
use crate::protocol::FrameFacts;
use crate::refs::format_ref;
use crate::urls::policy::embedders_document;
use crate::urls::site::{origin, site};
use crate::urls::{UrlPolicy, redact_url};

/// What an element holds apart from its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Framed {
    /// The document of another site's frame.
    OtherSite {
        /// Its document node.
        document: NodeId,
        /// Its origin, as the frame region names it.
        origin: String,
    },
    /// A frame whose URL is refused: nothing of it is in the tree.
    Refused {
        /// Its origin (for the browser's error page, the origin of the URL that did not load).
        origin: String,
        /// Why it is not read, worded for the agent.
        reason: String,
    },
}

impl Framed {
    /// The document of another site's frame.
    pub fn document(&self) -> Option<NodeId> {
        match self {
            Framed::OtherSite { document, .. } => Some(*document),
            Framed::Refused { .. } => None,
        }
    }
}

/// What the frame trees say of one frame.
#[derive(Debug, Clone, Default)]
pub struct FrameSource {
    /// Loader id of its document.
    pub loader: String,
    /// Its document's URL.
    pub url: String,
    /// The registrable domain of the URL's host, as the browser gave it.
    pub registrable: String,
}

/// Why a frame is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Its origin.
    pub origin: String,
    /// The reason; `None` for a frame that says nothing of its own (one inside a refused
    /// frame, or one showing the browser's error page).
    pub reason: Option<String>,
}

impl Refusal {
    /// What its `<iframe>` holds, for a frame whose own URL is refused.
    pub fn shown(&self) -> Option<Framed> {
        let reason = self.reason.clone()?;
        Some(Framed::Refused { origin: self.origin.clone(), reason })
    }
}

/// Every frame of a capture's frame trees, and the ones that are not read.
#[derive(Debug, Default)]
pub struct FrameSources {
    frames: HashMap<String, FrameSource>,
    refused: HashMap<String, Refusal>,
    main: String,
    policy: UrlPolicy,
}

impl FrameSources {
    /// The frames of `capture`, judged by `policy`. The main frame is never refused here: which
    /// tabs an agent may use is decided before any capture.
    pub fn of(capture: &Capture, policy: &UrlPolicy) -> FrameSources {
        let main = capture.main.frame_tree.frame_tree.frame.id.as_str();
        let mut sources = FrameSources { main: main.to_owned(), policy: *policy, ..FrameSources::default() };
        let mut parents: HashMap<&str, &str> = HashMap::new();
        let mut own: HashMap<&str, Refusal> = HashMap::new();
        for target in std::iter::once(&capture.main).chain(&capture.children) {
            for frame in target.frame_tree.frame_tree.frames() {
                if let Some(parent) = &frame.parent_id {
                    parents.entry(&frame.id).or_insert(parent);
                }
                if frame.id != main
                    && let Some(reason) = policy.frame_refusal(&frame.url)
                {
                    let shown = frame.unreachable_url.as_deref().unwrap_or(&frame.url);
                    // The browser's error page, in a frame that did not load, holds no site's
                    // content: it says nothing, or every ad slot a blocker stopped would cost a
                    // line.
                    let error_page = frame.url.starts_with("chrome-error:");
                    let reason = (!error_page).then_some(reason);
                    own.entry(&frame.id).or_insert(Refusal { origin: shown_origin(shown), reason });
                }
                sources.frames.entry(frame.id.clone()).or_insert(FrameSource {
                    loader: frame.loader_id.clone(),
                    url: frame.url.clone(),
                    registrable: frame.domain_and_registry.clone(),
                });
            }
        }
        for id in sources.frames.keys() {
            let mut at = Some(id.as_str());
            let mut depth = 0;
            while let Some(frame) = at.filter(|_| depth <= sources.frames.len()) {
                if let Some(refusal) = own.get(frame) {
                    let nested = frame != id;
                    let reason = if nested { None } else { refusal.reason.clone() };
                    sources.refused.insert(id.clone(), Refusal { origin: refusal.origin.clone(), reason });
                    break;
                }
                at = parents.get(frame).copied();
                depth += 1;
            }
        }
        sources
    }

    /// What the frame trees say of frame `id`.
    pub fn get(&self, id: &str) -> Option<&FrameSource> {
        self.frames.get(id)
    }

    /// Why the document of frame `id` at `document_url` is not read, if it is not: its URL, or
    /// a frame around it, is refused. A frame no frame tree knows is judged by the document's
    /// own URL.
    pub fn refusal(&self, id: &str, document_url: &str) -> Option<Refusal> {
        if let Some(refusal) = self.refused.get(id) {
            return Some(refusal.clone());
        }
        if self.frames.contains_key(id) || id == self.main {
            return None;
        }
        let reason = self.policy.frame_refusal(document_url)?;
        Some(Refusal { origin: shown_origin(document_url), reason: Some(reason) })
    }
}

/// The origin of `url` as a frame line names it, its secrets masked.
fn shown_origin(url: &str) -> String {
    redact_url(&origin(url).unwrap_or_else(|| "(unknown)".to_owned()))
}

impl PageTree<'_> {
    /// The documents of other sites' frames that hang at `id` apart from its children.
    pub fn framed_documents(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes[id].framed.iter().filter_map(Framed::document)
    }

    /// The children of `id` and then the documents of other sites' frames hanging at it: for
    /// the stages that judge the whole page (visibility, occlusion, click targets), never for
    /// what reads the page's own content.
    pub fn children_and_framed(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes[id].children.iter().copied().chain(self.framed_documents(id))
    }

    /// The node a node hangs at: its parent, or for the document of another site's frame, the
    /// element it is set apart at.
    pub fn host(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].parent.or_else(|| self.framed_at.get(&id).copied())
    }
}

/// Why an `<iframe>` whose document is still its first, empty one is not read: its `src`
/// names a URL of a scheme the policy refuses (the browser blocked `file:///etc/passwd`, or has
/// not loaded a `data:` URL yet). A `javascript:` URL writes the embedder's own content, and
/// a web URL (or one without a scheme) is judged once it loads.
fn refused_src(src: &str, policy: &UrlPolicy) -> Option<Refusal> {
    let src = src.trim();
    let (scheme, _) = src.split_once(':')?;
    let explicit = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let web = ["http", "https", "javascript", "about"].iter().any(|s| scheme.eq_ignore_ascii_case(s));
    if !explicit || web {
        return None;
    }
    let reason = policy.frame_refusal(src)?;
    Some(Refusal { origin: shown_origin(src), reason: Some(reason) })
}

/// Sets apart the document of every frame of another site (see the module's documentation),
/// and leaves unread the first, empty document of a frame whose `src` the policy refuses. Run
/// once every document is attached, before anything reads names or text from the tree.
pub fn set_apart_other_sites(tree: &mut PageTree, policy: &UrlPolicy) {
    if tree.nodes.is_empty() {
        return;
    }
    let site_of = |frame: &super::tree::FrameInfo| site(&frame.url, &frame.registrable);
    let top = site_of(&tree.frames[tree.nodes[tree.root].frame]);
    // Each node with the site its content is shown as: the top document's, or that of the
    // innermost frame set apart around it.
    let mut stack: Vec<(NodeId, Option<String>)> = vec![(tree.root, top.clone())];
    let mut apart: Vec<(NodeId, NodeId, String)> = Vec::new();
    let mut unread: Vec<(NodeId, NodeId, Framed)> = Vec::new();
    while let Some((id, context)) = stack.pop() {
        for &child in &tree.nodes[id].children {
            let node = &tree.nodes[child];
            if node.kind != NodeKind::Document || node.frame == tree.nodes[id].frame {
                stack.push((child, context.clone()));
                continue;
            }
            let frame = &tree.frames[node.frame];
            let url = &frame.url;
            let src = tree.nodes[id].attr("src").unwrap_or_default();
            if embedders_document(url)
                && let Some(framed) = refused_src(src, policy).and_then(|r| r.shown())
            {
                unread.push((id, child, framed));
                continue;
            }
            match site_of(frame) {
                // A frame without a site of its own (`about:blank`, `about:srcdoc`) is its
                // embedder's; one of the top's or its framing site's shows what that shows.
                None => stack.push((child, context.clone())),
                Some(own) if Some(&own) == top.as_ref() || Some(&own) == context.as_ref() => {
                    stack.push((child, context.clone()))
                }
                Some(own) => {
                    apart.push((id, child, shown_origin(url)));
                    stack.push((child, Some(own)));
                }
            }
        }
    }
    for (host, document, framed) in unread {
        tree.nodes[host].children.retain(|&c| c != document);
        tree.nodes[document].parent = None;
        tree.nodes[host].framed.push(framed);
    }
    for (host, document, origin) in apart {
        tree.nodes[host].children.retain(|&c| c != document);
        tree.nodes[document].parent = None;
        tree.nodes[host].framed.push(Framed::OtherSite { document, origin });
        tree.framed_at.insert(document, host);
    }
}

impl Snapshot {
    /// The innermost frame of another site around region `region` (a region of kind `frame`).
    pub fn frame_of(&self, region: Option<RegionId>) -> Option<RegionId> {
        self.region_path(region).into_iter().rev().find(|&r| self.region(r).kind == FRAME_REGION)
    }

    /// The origin of the frame of another site that element `id` is in.
    pub fn frame_origin(&self, id: ElementId) -> Option<String> {
        self.frame_of(self.element(id).region).map(|r| self.region(r).label.clone())
    }

    /// The frames of other sites that show something, and the refused frames, in reading order.
    pub fn frame_facts(&self) -> Vec<FrameFacts> {
        let mut out = Vec::new();
        let mut seen: Vec<RegionId> = Vec::new();
        for line in &self.lines {
            if let LineContent::RefusedFrame { origin, reason } = &line.content {
                out.push(FrameFacts { origin: origin.clone(), refused: Some(reason.clone()), refs: Vec::new() });
            }
            let Some(frame) = self.frame_of(line.region) else { continue };
            for r in self.region_path(Some(frame)) {
                if self.region(r).kind == FRAME_REGION && !seen.contains(&r) {
                    seen.push(r);
                    let refs = self
                        .element_ids()
                        .filter(|&e| self.frame_of(self.element(e).region) == Some(r))
                        .map(|e| format_ref(self.element(e).number))
                        .collect();
                    out.push(FrameFacts { origin: self.region(r).label.clone(), refused: None, refs });
                }
            }
        }
        out
    }
}
