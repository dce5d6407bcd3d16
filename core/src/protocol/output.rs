//! Structured results some tools return beside their text (MCP `structuredContent`), declared
//! to clients through each tool's `outputSchema`.

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
    /// Elements an agent can act on, in document order.
    pub elements: Vec<ElementFacts>,
}

/// One element an agent can act on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ElementFacts {
    /// Ref to pass to action tools, e.g. `e12`.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// ARIA role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value, for form fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// States such as `checked`, `disabled`, `expanded`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
}
