//! What one capture of a page gathers, and the exact CDP requests that gather it.
//!
//! [`plan::CapturePlan`] says which requests to send and in what order; the extension runtime
//! and the test recorder (`cargo xtask capture`) both drive it, so captures recorded for tests
//! and benchmarks are the same payloads the engine sees in the browser.

pub mod plan;
pub mod probe;

use serde::Deserialize;

use crate::cdp::accessibility::FullAxTree;
use crate::cdp::dom_snapshot::CaptureSnapshot;
use crate::cdp::page::{FrameTreeResult, LayoutMetrics};

/// Computed style properties requested from `DOMSnapshot.captureSnapshot`, in this order:
/// what visibility, occlusion, clickability, preformatted text, overlay detection and secret
/// fields need, and nothing more. New ones go at the end, so captures recorded before them
/// still read (a missing style reads as empty).
pub const COMPUTED_STYLES: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "background-color",
    "cursor",
    "white-space",
    "position",
    "z-index",
    "-webkit-text-security",
];

/// Index of each computed style in a layout object's `styles`.
pub mod style {
    /// `display`.
    pub const DISPLAY: usize = 0;
    /// `visibility`.
    pub const VISIBILITY: usize = 1;
    /// `opacity`.
    pub const OPACITY: usize = 2;
    /// `background-color`.
    pub const BACKGROUND_COLOR: usize = 3;
    /// `cursor`.
    pub const CURSOR: usize = 4;
    /// `white-space`.
    pub const WHITE_SPACE: usize = 5;
    /// `position`.
    pub const POSITION: usize = 6;
    /// `z-index`.
    pub const Z_INDEX: usize = 7;
    /// `-webkit-text-security` (a field the page masks itself).
    pub const TEXT_SECURITY: usize = 8;
}

/// Parameters of `DOMSnapshot.captureSnapshot`: the styles above and paint order. Offset,
/// client and scroll rectangles (`includeDOMRects`) are not asked for: nothing reads them, and
/// they were three small arrays per layout object to carry and convert.
pub fn capture_snapshot_params() -> serde_json::Value {
    serde_json::json!({
        "computedStyles": COMPUTED_STYLES,
        "includePaintOrder": true,
    })
}

/// Parameters of `Accessibility.getFullAXTree` for one frame.
pub fn ax_tree_params(frame_id: &str) -> serde_json::Value {
    serde_json::json!({ "frameId": frame_id })
}

/// Everything captured from one page.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// The page's own renderer process (main frame and same-process iframes).
    pub main: TargetCapture,
    /// Out-of-process iframes, each captured through its own session.
    #[serde(default)]
    pub children: Vec<TargetCapture>,
    /// Viewport and document size.
    #[serde(default)]
    pub layout: LayoutMetrics,
}

impl Capture {
    /// The capture as the extension takes it, for a recording that kept Chrome's accessibility
    /// trees: without them, so roles and names are derived from the DOM snapshot.
    pub fn without_accessibility_trees(mut self) -> Capture {
        for target in std::iter::once(&mut self.main).chain(self.children.iter_mut()) {
            target.ax_trees.clear();
        }
        self
    }
}

/// The capture of one CDP target (a page or an out-of-process iframe).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCapture {
    /// `Page.getFrameTree`.
    #[serde(default)]
    pub frame_tree: FrameTreeResult,
    /// `DOMSnapshot.captureSnapshot`.
    #[serde(default)]
    pub snapshot: CaptureSnapshot,
    /// `Accessibility.getFullAXTree` per frame of this target.
    #[serde(default)]
    pub ax_trees: Vec<FrameAxTree>,
    /// For an out-of-process iframe: the backend node id of its `<iframe>` element in the
    /// parent target (`DOM.getFrameOwner`).
    #[serde(default)]
    pub owner_backend_node_id: Option<i64>,
    /// For an out-of-process iframe: the frame id of the document that owns the `<iframe>`.
    #[serde(default)]
    pub owner_frame_id: Option<String>,
}

/// One frame's accessibility tree.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameAxTree {
    /// The frame.
    pub frame_id: String,
    /// Its tree.
    pub tree: FullAxTree,
}
