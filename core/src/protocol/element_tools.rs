//! Parameter types of the tools that manage tabs, load pages, read a page and act on one
//! element by ref.
//!
//! Doc comments on these types become the JSON Schema descriptions an agent reads in
//! `tools/list`, so they are kept short: every word here is paid for on every session.

use serde::{Deserialize, Serialize};

/// What `browser_tabs` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TabsAction {
    /// List the tabs the agent may use.
    #[default]
    List,
    /// Open a new tab (optionally at `url`) and make it current.
    New,
    /// Make `tab` the current tab.
    Select,
    /// Close `tab` (default: the current tab).
    Close,
}

/// List, open, select or close tabs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TabsParams {
    /// Default `list`.
    #[serde(default)]
    pub action: TabsAction,
    /// Tab id, for `select` and `close`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
    /// URL to open, for `new`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// History moves for `browser_navigate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HistoryMove {
    /// Go back one entry.
    Back,
    /// Go forward one entry.
    Forward,
    /// Reload the page.
    Reload,
}

/// Load a URL, or move through history; waits for load and a quiet DOM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NavigateParams {
    /// URL to load. Give either `url` or `go`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `back`, `forward` or `reload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go: Option<HistoryMove>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Read the page: element refs, roles, names, values, states and visible text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SnapshotParams {
    /// Page of a long snapshot (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Add element boxes `@x,y,w,h`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bbox: bool,
    /// Write regions unchanged since your last page as one line each (fewer tokens).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collapse: bool,
    /// Only this region, e.g. `nav` or `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// At most this many lines of each region (its first and last), with a marker saying how
    /// to read the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<u32>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Click an element by ref.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClickParams {
    /// Element ref from the snapshot, e.g. `e12`.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Double click.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub double: bool,
    /// Mouse button (default left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// Primary button.
    #[default]
    Left,
    /// Context-menu button.
    Right,
    /// Wheel button.
    Middle,
}

/// Replace the text of an editable element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TypeParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Text to type.
    pub text: String,
    /// Press Enter afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submit: bool,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Press a key or chord, e.g. `Enter`, `ArrowDown`, `Control+a`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PressKeyParams {
    /// Key name or chord.
    pub key: String,
    /// Focus this element first.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Choose options of a `<select>` or listbox by value or label (several for `multiple`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SelectOptionParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Values or labels to select; they replace the selection.
    pub values: Vec<String>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Move the mouse over an element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HoverParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Answer the page's open alert, confirm, prompt or leave-page dialog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandleDialogParams {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// Text to answer a prompt with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_arguments_are_rejected_with_their_name() {
        let err = serde_json::from_value::<ClickParams>(serde_json::json!({"ref": "e1", "foo": 1})).unwrap_err();
        assert!(err.to_string().contains("unknown field `foo`"), "{err}");
    }
}
