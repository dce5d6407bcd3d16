//! Structured results some tools return beside their text (MCP `structuredContent`), declared
//! to clients through each tool's `outputSchema`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The facts of a snapshot, in machine-readable form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SnapshotFacts {
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Page version the snapshot describes.
    pub version: u64,
    /// Always `full`: the whole page (action tools otherwise answer with a delta's facts).
    #[serde(default = "full_kind")]
    pub kind: String,
    /// Why the whole page was sent (`first look`, `new page`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notes on the whole page, also its first `!` lines (a page hiding itself while loading).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Regions written as unchanged since the previous page; their elements are still listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchanged_regions: Vec<String>,
    /// This page of the snapshot's text (1-based).
    #[serde(default = "first_page")]
    pub page: usize,
    /// How many pages the text has.
    #[serde(default = "first_page")]
    pub pages: usize,
    /// The `page` argument that reads the rest of the text, when there is more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page: Option<usize>,
    /// Elements an agent can act on, in reading order (all of them, whichever page this is).
    pub elements: Vec<ElementFacts>,
    /// Frames of other sites than the page's (their content is written inside a `<frame …>`
    /// line), and frames whose content is not read, in reading order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<FrameFacts>,
    /// Refs by state (`checked`, `disabled`, `expanded`, `collapsed`, `selected`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub states: BTreeMap<String, Vec<String>>,
    /// What the pipeline did.
    #[serde(default)]
    pub stats: SnapshotStats,
}

fn full_kind() -> String {
    "full".into()
}

fn first_page() -> usize {
    1
}

/// One element an agent can act on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ElementFacts {
    /// Ref to pass to action tools, e.g. `e12`.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value, for form fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// State flags (`checked`, `disabled`…). In a delta's lines; a snapshot lists refs by
    /// state under `states` instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// The origin of another site's frame the element is in (`https://bank.example`): what it
    /// shows comes from that site, not from the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
}

/// A frame of the page that is of another site than the page, or that is not read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FrameFacts {
    /// Its origin (`https://bank.example`).
    pub origin: String,
    /// Why its content is not read, for a frame whose URL is refused (a file, a browser page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The refs of the elements inside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
}

/// What the snapshot pipeline did to one page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SnapshotStats {
    /// DOM nodes captured.
    pub nodes_in: usize,
    /// Lines written.
    pub lines_out: usize,
    /// Actionable elements (refs).
    pub elements_out: usize,
    /// Nodes not rendered or not visible.
    pub dropped_invisible: usize,
    /// The page hid its own root while loading; its content is shown under a note.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden_root: bool,
    /// Nodes hidden from assistive technology, kept as plain text without refs.
    pub aria_hidden: usize,
    /// Nodes of non-content tags.
    pub dropped_noise: usize,
    /// One-character separators.
    pub dropped_tiny_text: usize,
    /// Nodes covered by something on top.
    pub dropped_occluded: usize,
    /// Clickables nested in a larger click target.
    pub nested_clickables: usize,
    /// Containers with nothing to act on, flattened.
    pub hoisted_containers: usize,
    /// Wrapper names given to the control inside.
    pub promoted_names: usize,
    /// Characters of the full text.
    pub chars: usize,
    /// Estimated tokens of the full text.
    pub estimated_tokens: usize,
    /// Milliseconds the pipeline took (measured by the caller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_ms: Option<f64>,
    /// Milliseconds the CDP capture spent waiting on the browser, less the converting done
    /// meanwhile (measured by the caller): with `convert_ms`, the capture's wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_ms: Option<f64>,
    /// Milliseconds spent converting the captured payloads into the engine's types, each as it
    /// arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convert_ms: Option<f64>,
    /// Milliseconds from request to reply of each CDP method of the capture (the slowest, for a
    /// method sent once per frame), measured by the caller. The requests run concurrently, so
    /// these overlap: the slowest one bounds `capture_ms`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub capture_by_method: std::collections::BTreeMap<String, f64>,
    /// Milliseconds the probe took that asked whether the page changed since the last capture
    /// (`capture::probe`), measured by the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_ms: Option<f64>,
    /// Whether the last capture was used again because the probe vouched nothing changed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capture_reused: bool,
    /// Whether the capture is kept for the next look to use again: the probe read before it
    /// vouched for the page. A page the probe cannot read whole (an iframe whose watch is not
    /// running yet) is captured afresh at the next look.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capture_kept: bool,
    /// For a navigation: its capture was taken as soon as the page loaded and drew a frame, ahead
    /// of the wait for a quiet DOM, and the main frame's DOM did not change from just before it to
    /// the end of that wait (a page whose DOM changed is captured again after the wait, and this
    /// is false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub captured_ahead: bool,
    /// For a navigation: milliseconds from sending it to the new document's `load`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_ms: Option<f64>,
    /// Milliseconds spent waiting for the page to settle (for a navigation, after the capture
    /// taken ahead of that wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<f64>,
    /// For a navigation: milliseconds spent waiting for the page's next frame after its `load`,
    /// before the capture taken ahead of the settle wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_ms: Option<f64>,
    /// Milliseconds spent waiting, just before the capture, for images, style sheets and fonts
    /// the page was still loading (absent when it was loading none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loads_ms: Option<f64>,
}
