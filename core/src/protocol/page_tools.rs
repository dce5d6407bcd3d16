//! Parameter types of the tools that fill forms, scroll, wait and drag. Their doc comments are
//! what an agent reads in `tools/list`: short on purpose.

use serde::{Deserialize, Serialize};

/// What kind of control a form field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// Text typed into it.
    Textbox,
    /// `true` or `false`.
    Checkbox,
    /// `true` selects it.
    Radio,
    /// An option's value or label.
    Combobox,
    /// A number.
    Slider,
}

impl FieldKind {
    /// The kind's name, as agents write it.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Textbox => "textbox",
            FieldKind::Checkbox => "checkbox",
            FieldKind::Radio => "radio",
            FieldKind::Combobox => "combobox",
            FieldKind::Slider => "slider",
        }
    }
}

/// One field to fill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FormField {
    /// Its label, for messages.
    pub name: String,
    /// textbox, checkbox, radio, combobox or slider.
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// Element ref.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Text; `true`/`false` (checkbox, radio); an option (combobox); a number (slider).
    pub value: String,
}

/// Fill several form fields in one call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FillFormParams {
    /// Fields, filled in order.
    pub fields: Vec<FormField>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Where to scroll.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    /// Towards the end.
    #[default]
    Down,
    /// Towards the start.
    Up,
    /// Leftwards.
    Left,
    /// Rightwards.
    Right,
}

impl ScrollDirection {
    /// The direction's name.
    pub fn name(self) -> &'static str {
        match self {
            ScrollDirection::Down => "down",
            ScrollDirection::Up => "up",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        }
    }
}

/// Scroll the page or an element by an amount, or until an element is in view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScrollParams {
    /// Element to scroll (default: the page).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Default `down`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollDirection>,
    /// Pixels (default: 90% of the view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<u32>,
    /// Instead, bring this element into view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_ref: Option<String>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Wait until text appears or goes, an element goes, or some time passes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WaitForParams {
    /// Text to appear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Text to disappear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_gone: Option<String>,
    /// Element ref to disappear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_gone: Option<String>,
    /// Seconds; with a condition, the longest wait (default 10, at most 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Drag an element onto another, or by an offset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DragParams {
    /// Element to drag.
    pub start_ref: String,
    /// Element to drop it on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ref: Option<String>,
    /// Or pixels to move it right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// And down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// An image format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// Lossless.
    #[default]
    Png,
    /// Smaller.
    Jpeg,
}

/// Take a screenshot of the viewport, the whole page or one element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScreenshotParams {
    /// Only this element.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// The whole page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_page: bool,
    /// Default `png`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub format: Option<ImageFormat>,
    /// 0.1 to 1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Draw refs on elements.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refs: bool,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Click at a point of the viewport (CSS pixels).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MouseClickXyParams {
    /// X.
    pub x: f64,
    /// Y.
    pub y: f64,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Drag the mouse between two points of the viewport (CSS pixels).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MouseDragXyParams {
    /// Start x.
    pub start_x: f64,
    /// Start y.
    pub start_y: f64,
    /// End x.
    pub end_x: f64,
    /// End y.
    pub end_y: f64,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Choose files for a file input, or for the file chooser an action opened.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FileUploadParams {
    /// Absolute file paths (none: clear, or cancel the chooser).
    pub paths: Vec<String>,
    /// The file input (default: the open chooser).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Run a JavaScript function in the page (only when the user allowed it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EvaluateParams {
    /// `() => …`, or `(element) => …` with `ref`; may be async.
    pub function: String,
    /// Element passed to the function.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Run with the page's own scripts (default: an isolated world).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub main_world: bool,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Select the first `text` on the page or in an element, or all of an element's text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SelectTextParams {
    /// Element ref (default: the page).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Words to select (default: all the element's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}
