//! `DOMSnapshot.captureSnapshot`: the flattened DOM, layout and computed styles of every
//! document in one renderer process.
//!
//! Strings are interned: most fields are indexes into [`CaptureSnapshot::strings`], with `-1`
//! meaning "no string". "Rare" fields list only the nodes that have a value.

use serde::Deserialize;

/// The result of `DOMSnapshot.captureSnapshot`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot {
    /// One entry per document (the page and its same-process iframes).
    #[serde(default)]
    pub documents: Vec<DocumentSnapshot>,
    /// The string table.
    #[serde(default)]
    pub strings: Vec<String>,
}

impl CaptureSnapshot {
    /// The string at `index`, or `""` for `-1` and out-of-range indexes.
    pub fn string(&self, index: i64) -> &str {
        usize::try_from(index).ok().and_then(|i| self.strings.get(i)).map(String::as_str).unwrap_or("")
    }
}

/// One document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSnapshot {
    /// Document URL (string index).
    #[serde(default = "minus_one", rename = "documentURL")]
    pub document_url: i64,
    /// Title (string index).
    #[serde(default = "minus_one")]
    pub title: i64,
    /// Frame id (string index).
    #[serde(default = "minus_one")]
    pub frame_id: i64,
    /// The DOM nodes.
    #[serde(default)]
    pub nodes: NodeTreeSnapshot,
    /// The layout objects.
    #[serde(default)]
    pub layout: LayoutTreeSnapshot,
    /// Horizontal scroll offset.
    #[serde(default)]
    pub scroll_offset_x: f64,
    /// Vertical scroll offset.
    #[serde(default)]
    pub scroll_offset_y: f64,
    /// Document width.
    #[serde(default)]
    pub content_width: f64,
    /// Document height.
    #[serde(default)]
    pub content_height: f64,
}

fn minus_one() -> i64 {
    -1
}

/// DOM nodes as parallel arrays; node `i` is described by element `i` of each array.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeTreeSnapshot {
    /// Parent node index, `-1` for the root.
    #[serde(default)]
    pub parent_index: Vec<i64>,
    /// DOM node type (1 element, 3 text, 9 document, 11 fragment, ...).
    #[serde(default)]
    pub node_type: Vec<i64>,
    /// Shadow root type of shadow roots (`user-agent`, `open`, `closed`).
    #[serde(default)]
    pub shadow_root_type: RareStringData,
    /// Node name (string index).
    #[serde(default)]
    pub node_name: Vec<i64>,
    /// Node value (string index): the text of text nodes.
    #[serde(default)]
    pub node_value: Vec<i64>,
    /// Backend node id.
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    /// Attributes as flat name/value string index pairs.
    #[serde(default)]
    pub attributes: Vec<Vec<i64>>,
    /// Text value of textareas.
    #[serde(default)]
    pub text_value: RareStringData,
    /// Current value of inputs.
    #[serde(default)]
    pub input_value: RareStringData,
    /// Checked checkboxes and radios.
    #[serde(default)]
    pub input_checked: RareBooleanData,
    /// Selected options.
    #[serde(default)]
    pub option_selected: RareBooleanData,
    /// Iframe content documents: index into `documents`.
    #[serde(default)]
    pub content_document_index: RareIntegerData,
    /// Pseudo element type.
    #[serde(default)]
    pub pseudo_type: RareStringData,
    /// Nodes with a click listener or that are natively clickable.
    #[serde(default)]
    pub is_clickable: RareBooleanData,
}

/// A value for some nodes only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareStringData {
    /// Node indexes.
    #[serde(default)]
    pub index: Vec<i64>,
    /// String index per listed node.
    #[serde(default)]
    pub value: Vec<i64>,
}

/// A flag set for some nodes only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareBooleanData {
    /// Node indexes where the flag is set.
    #[serde(default)]
    pub index: Vec<i64>,
}

/// An integer for some nodes only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareIntegerData {
    /// Node indexes.
    #[serde(default)]
    pub index: Vec<i64>,
    /// Value per listed node.
    #[serde(default)]
    pub value: Vec<i64>,
}

/// Layout objects as parallel arrays; layout object `j` belongs to node `node_index[j]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutTreeSnapshot {
    /// The node each layout object belongs to.
    #[serde(default)]
    pub node_index: Vec<i64>,
    /// Computed style values (string indexes), in the order they were requested.
    #[serde(default)]
    pub styles: Vec<Vec<i64>>,
    /// Border box `[x, y, width, height]` in document coordinates.
    #[serde(default)]
    pub bounds: Vec<Vec<f64>>,
    /// Text of text layout objects (string index).
    #[serde(default)]
    pub text: Vec<i64>,
    /// Layout objects that start a stacking context.
    #[serde(default)]
    pub stacking_contexts: RareBooleanData,
    /// Paint order (higher paints later, on top).
    #[serde(default)]
    pub paint_orders: Vec<i64>,
}
