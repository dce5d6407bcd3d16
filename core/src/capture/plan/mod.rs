//! The capture plan: which CDP requests one capture of a page sends, in what order, and how
//! their replies become a [`Capture`]. It performs no I/O: a driver asks it for the requests it
//! may send now, sends them (concurrently or one by one), and hands each reply back.
//!
//! For the page and for every out-of-process iframe (each through its own flat session):
//!
//! 1. `Page.getFrameTree` and `DOMSnapshot.captureSnapshot` (with the computed styles the
//!    pipeline reads, paint order and boxes); for the page also `Page.getLayoutMetrics`;
//! 2. once an iframe's frame tree is known: `DOM.getFrameOwner` on the page's session (where its
//!    `<iframe>` is).
//!
//! Roles, names and states are worked out by the engine from the DOM snapshot
//! ([`RolesFrom::Dom`], see `crate::snapshot::semantics`), so a capture asks for no
//! accessibility tree: describing every node is most of what a tree costs the renderer, and it
//! was the largest part of a capture. A capture that keeps Chrome's own answer
//! ([`RolesFrom::Chrome`], the recorder of test captures, which measures the derivation against
//! it) also asks for `Accessibility.getFullAXTree`: at once for the target's root frame, without a
//! frame id (CDP then answers for the target's root, so the largest request does not wait for the
//! frame tree's round trip), and for each child frame once the frame tree is in.
//!
//! Only the page's frame tree and DOM snapshot are required: when one of them fails the capture
//! fails. An iframe whose requests fail (it went away mid-capture) is left out, a frame whose
//! accessibility tree is refused (another process answers for it) has none, and missing layout
//! metrics read as defaults.
//!
//! Each reply is read into the engine's types as soon as it is handed back
//! ([`CapturePlan::reply`]), so a driver that keeps other requests waiting meanwhile converts
//! one payload while the browser still works on the next. An accessibility tree is asked for
//! before the DOM snapshot: the larger of the two to convert arrives first, and is read while the
//! renderer builds the snapshot. Each payload is also kept in the driver's own form (`P`),
//! for a recorder that writes them out as they came ([`CaptureParts::to_json`]).

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{Capture, FrameAxTree, TargetCapture, ax_tree_params, capture_snapshot_params};
use crate::cdp::accessibility::FullAxTree;
use crate::cdp::dom_snapshot::CaptureSnapshot;
use crate::cdp::page::{FrameTreeResult, LayoutMetrics};

/// Time limit of `DOMSnapshot.captureSnapshot`: a large page takes a while.
pub const SNAPSHOT_TIMEOUT_MS: u32 = 30_000;
/// Time limit of every other request.
pub const REQUEST_TIMEOUT_MS: u32 = 15_000;

/// Where a capture's roles, names and states come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RolesFrom {
    /// Worked out by the engine from the DOM snapshot; no accessibility tree is asked for.
    #[default]
    Dom,
    /// Chrome's accessibility tree of every frame, asked for beside the DOM snapshot.
    Chrome,
}

/// A CDP reply as a driver holds it: a JSON value natively, a JS value in the extension.
pub trait Payload {
    /// Reads the payload as `T`.
    fn decode<T: DeserializeOwned>(&self) -> Result<T, String>;
}

impl Payload for Value {
    fn decode<T: DeserializeOwned>(&self) -> Result<T, String> {
        T::deserialize(self).map_err(|e| e.to_string())
    }
}

/// Identifies a request of one plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestId(usize);

/// One CDP request to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Hand it back with the reply.
    pub id: RequestId,
    /// The flat session of an out-of-process iframe; `None` for the page's own session.
    pub session: Option<String>,
    /// CDP method.
    pub method: &'static str,
    /// Its parameters.
    pub params: Value,
    /// How long to wait for the reply.
    pub timeout_ms: u32,
    /// Whether the capture fails without this reply.
    pub required: bool,
}

/// Why a capture could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    /// A required reply is missing.
    #[error("the capture has no {0}")]
    Missing(&'static str),
    /// A reply could not be read.
    #[error("unreadable {what}: {message}")]
    Unreadable {
        /// Which reply.
        what: &'static str,
        /// Why.
        message: String,
    },
}

/// What a request is for: a target (by index, 0 for the page) and which of its payloads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    FrameTree(usize),
    Snapshot(usize),
    /// A frame's accessibility tree; `None` for the target's root frame, whose id is read from
    /// the frame tree once it is in.
    AxTree(usize, Option<String>),
    Owner(usize),
    Layout,
}

/// Everything gathered for one target, each payload as the driver handed it back and as read.
#[derive(Debug, Clone)]
pub struct TargetParts<P> {
    /// The flat session (`None` for the page itself).
    pub session: Option<String>,
    /// `Page.getFrameTree`.
    pub frame_tree: Option<(P, FrameTreeResult)>,
    /// `DOMSnapshot.captureSnapshot`.
    pub snapshot: Option<(P, CaptureSnapshot)>,
    /// `Accessibility.getFullAXTree` per frame id (`None`: the root frame).
    ax_trees: Vec<(Option<String>, P, FullAxTree)>,
    /// For an iframe: the backend node id of its `<iframe>` element in the page.
    pub owner_backend_node_id: Option<i64>,
    failed: bool,
}

impl<P> TargetParts<P> {
    fn new(session: Option<String>) -> Self {
        TargetParts {
            session,
            frame_tree: None,
            snapshot: None,
            ax_trees: Vec::new(),
            owner_backend_node_id: None,
            failed: false,
        }
    }
}

/// What a finished plan gathered.
#[derive(Debug, Clone)]
pub struct CaptureParts<P> {
    /// The page's own target.
    pub main: TargetParts<P>,
    /// Out-of-process iframes that answered, in the order they were given.
    pub children: Vec<TargetParts<P>>,
    /// `Page.getLayoutMetrics`.
    pub layout: Option<(P, LayoutMetrics)>,
}

/// One capture in progress.
#[derive(Debug)]
pub struct CapturePlan<P> {
    targets: Vec<TargetParts<P>>,
    layout: Option<(P, LayoutMetrics)>,
    slots: Vec<Slot>,
    outstanding: usize,
    queued: Vec<Request>,
    unreadable: Option<CaptureError>,
    roles: RolesFrom,
}

impl<P: Payload> CapturePlan<P> {
    /// A capture of the page and of the out-of-process iframes served by `child_sessions`, its
    /// roles and names from `roles`.
    pub fn new(child_sessions: impl IntoIterator<Item = String>, roles: RolesFrom) -> Self {
        let mut plan = CapturePlan {
            targets: vec![TargetParts::new(None)],
            layout: None,
            slots: Vec::new(),
            outstanding: 0,
            queued: Vec::new(),
            unreadable: None,
            roles,
        };
        plan.targets.extend(child_sessions.into_iter().map(|s| TargetParts::new(Some(s))));
        plan.queue(Slot::Layout, None, "Page.getLayoutMetrics", json!({}), REQUEST_TIMEOUT_MS);
        for t in 0..plan.targets.len() {
            let session = plan.targets[t].session.clone();
            plan.queue(Slot::FrameTree(t), session.clone(), "Page.getFrameTree", json!({}), REQUEST_TIMEOUT_MS);
            if roles == RolesFrom::Chrome {
                let root = json!({});
                let ax = "Accessibility.getFullAXTree";
                plan.queue(Slot::AxTree(t, None), session.clone(), ax, root, REQUEST_TIMEOUT_MS);
            }
            let snapshot = capture_snapshot_params();
            plan.queue(Slot::Snapshot(t), session, "DOMSnapshot.captureSnapshot", snapshot, SNAPSHOT_TIMEOUT_MS);
        }
        plan
    }

    fn queue(&mut self, slot: Slot, session: Option<String>, method: &'static str, params: Value, timeout_ms: u32) {
        let required = matches!(slot, Slot::FrameTree(0) | Slot::Snapshot(0));
        let id = RequestId(self.slots.len());
        self.slots.push(slot);
        self.outstanding += 1;
        self.queued.push(Request { id, session, method, params, timeout_ms, required });
    }

    /// Hands in replies the driver already holds, read just before the capture (the probe's:
    /// the page's frame tree and layout metrics), so their requests are not sent again. A reply
    /// not given is asked for as usual. Call it before the first [`Self::requests`].
    pub fn already_answered(&mut self, page_frame_tree: Option<P>, layout: Option<P>) {
        for (slot, reply) in [(Slot::FrameTree(0), page_frame_tree), (Slot::Layout, layout)] {
            let Some(reply) = reply else { continue };
            let Some(at) = self.queued.iter().position(|r| self.slots[r.id.0] == slot) else { continue };
            let request = self.queued.remove(at);
            self.reply(request.id, Some(reply));
        }
    }

    /// The requests that may be sent now (each is handed out once).
    pub fn requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.queued)
    }

    /// Whether every request handed out has had its reply.
    pub fn is_done(&self) -> bool {
        self.outstanding == 0
    }

    /// The reply to request `id` (`None` when it failed or timed out), read into the engine's
    /// types at once.
    pub fn reply(&mut self, id: RequestId, reply: Option<P>) {
        let Some(slot) = self.slots.get(id.0).cloned() else { return };
        self.outstanding = self.outstanding.saturating_sub(1);
        match (slot, reply) {
            (Slot::Layout, reply) => {
                self.layout = reply.and_then(|raw| {
                    let read = raw.decode().ok()?;
                    Some((raw, read))
                });
            }
            (Slot::FrameTree(t), Some(raw)) => match raw.decode::<FrameTreeResult>() {
                Ok(tree) => {
                    let session = self.targets[t].session.clone();
                    let trees = self.roles == RolesFrom::Chrome;
                    for frame in tree.frame_tree.frames().into_iter().skip(1).filter(|_| trees) {
                        let params = ax_tree_params(&frame.id);
                        self.queue(
                            Slot::AxTree(t, Some(frame.id.clone())),
                            session.clone(),
                            "Accessibility.getFullAXTree",
                            params,
                            REQUEST_TIMEOUT_MS,
                        );
                    }
                    if t > 0 {
                        let params = json!({"frameId": tree.frame_tree.frame.id});
                        self.queue(Slot::Owner(t), None, "DOM.getFrameOwner", params, REQUEST_TIMEOUT_MS);
                    }
                    self.targets[t].frame_tree = Some((raw, tree));
                }
                Err(message) if t == 0 => {
                    self.unreadable = Some(CaptureError::Unreadable { what: "frame tree", message });
                }
                Err(_) => self.targets[t].failed = true,
            },
            (Slot::Snapshot(t), Some(raw)) => match raw.decode::<CaptureSnapshot>() {
                Ok(snapshot) => self.targets[t].snapshot = Some((raw, snapshot)),
                Err(message) if t == 0 => {
                    self.unreadable = Some(CaptureError::Unreadable { what: "DOM snapshot", message });
                }
                Err(_) => self.targets[t].failed = true,
            },
            (Slot::FrameTree(t) | Slot::Snapshot(t), None) => self.targets[t].failed = true,
            // A tree that cannot be read is left out, as one the browser refused.
            (Slot::AxTree(t, frame), Some(raw)) => {
                if let Ok(tree) = raw.decode::<FullAxTree>() {
                    self.targets[t].ax_trees.push((frame, raw, tree));
                }
            }
            (Slot::AxTree(..), None) => {}
            (Slot::Owner(t), reply) => {
                #[derive(serde::Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Owner {
                    backend_node_id: i64,
                }
                let owner = reply.and_then(|r| r.decode::<Owner>().ok());
                self.targets[t].owner_backend_node_id = owner.map(|o| o.backend_node_id);
            }
        }
    }

    /// What the capture gathered, once every reply is in.
    pub fn finish(mut self) -> Result<CaptureParts<P>, CaptureError> {
        if let Some(error) = self.unreadable.take() {
            return Err(error);
        }
        let mut targets = self.targets.into_iter();
        let main = targets.next().ok_or(CaptureError::Missing("page target"))?;
        if main.frame_tree.is_none() {
            return Err(CaptureError::Missing("frame tree of the page"));
        }
        if main.snapshot.is_none() {
            return Err(CaptureError::Missing("DOM snapshot of the page"));
        }
        let children = targets.filter(|t| !t.failed && t.frame_tree.is_some() && t.snapshot.is_some()).collect();
        Ok(CaptureParts { main, children, layout: self.layout })
    }
}

impl<P> TargetParts<P> {
    /// Each frame's accessibility tree (as handed back) by frame id, the root frame's id read
    /// from the frame tree.
    pub fn ax_trees(&self) -> impl Iterator<Item = (&str, &P)> {
        let root = self.frame_tree.as_ref().map(|(_, tree)| tree.frame_tree.frame.id.as_str());
        self.ax_trees.iter().filter_map(move |(frame, raw, _)| Some((frame.as_deref().or(root)?, raw)))
    }

    /// The target's payloads as the engine reads them; `None` without its frame tree or DOM
    /// snapshot ([`CapturePlan::finish`] lets no such target through).
    fn into_capture(self) -> Option<TargetCapture> {
        let (_, frame_tree) = self.frame_tree?;
        let (_, snapshot) = self.snapshot?;
        let root = frame_tree.frame_tree.frame.id.clone();
        let ax_trees = self
            .ax_trees
            .into_iter()
            .map(|(frame, _, tree)| FrameAxTree { frame_id: frame.unwrap_or_else(|| root.clone()), tree })
            .collect();
        Some(TargetCapture {
            frame_tree,
            snapshot,
            ax_trees,
            owner_backend_node_id: self.owner_backend_node_id,
            owner_frame_id: None,
        })
    }
}

impl<P> CaptureParts<P> {
    /// The capture in the engine's types, every payload already read as it arrived.
    pub fn into_capture(self) -> Capture {
        Capture {
            main: self.main.into_capture().unwrap_or_default(),
            children: self.children.into_iter().filter_map(TargetParts::into_capture).collect(),
            layout: self.layout.map(|(_, read)| read).unwrap_or_default(),
        }
    }
}

impl CaptureParts<Value> {
    /// The capture as one JSON document in the shape [`Capture`] reads: what recorded capture
    /// files hold.
    pub fn to_json(&self) -> Value {
        let target = |t: &TargetParts<Value>| {
            let mut out = json!({
                "frameTree": t.frame_tree.as_ref().map(|(raw, _)| raw.clone()),
                "snapshot": t.snapshot.as_ref().map(|(raw, _)| raw.clone()),
                "axTrees": t.ax_trees().map(|(frame, tree)| json!({"frameId": frame, "tree": tree})).collect::<Vec<_>>(),
            });
            if let Some(owner) = t.owner_backend_node_id {
                out["ownerBackendNodeId"] = owner.into();
            }
            out
        };
        json!({
            "main": target(&self.main),
            "children": self.children.iter().map(target).collect::<Vec<_>>(),
            "layout": self.layout.as_ref().map(|(raw, _)| raw.clone()),
        })
    }
}

#[cfg(test)]
mod tests;
