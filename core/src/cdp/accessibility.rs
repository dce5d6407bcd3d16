//! `Accessibility.getFullAXTree`.

use serde::Deserialize;

/// The result of `Accessibility.getFullAXTree`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FullAxTree {
    /// Every node of the frame's accessibility tree; the first is the root.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

/// One accessibility node.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// Id unique within this tree.
    pub node_id: String,
    /// Ignored nodes are not exposed to assistive technology.
    #[serde(default)]
    pub ignored: bool,
    /// Role.
    #[serde(default)]
    pub role: Option<AxValue>,
    /// Accessible name.
    #[serde(default)]
    pub name: Option<AxValue>,
    /// Accessible value.
    #[serde(default)]
    pub value: Option<AxValue>,
    /// Accessible description (e.g. from `aria-describedby`).
    #[serde(default)]
    pub description: Option<AxValue>,
    /// States and relations.
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    /// Children, by `node_id`.
    #[serde(default)]
    pub child_ids: Vec<String>,
    /// The DOM node this accessibility node stands for.
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
    /// The frame the node belongs to.
    #[serde(default)]
    pub frame_id: Option<String>,
}

/// A typed accessibility value.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxValue {
    /// Value type (`role`, `string`, `boolean`, `tristate`, ...).
    #[serde(default, rename = "type")]
    pub kind: String,
    /// The value itself.
    #[serde(default)]
    pub value: Option<serde_json::Value>,
}

impl AxValue {
    /// The value as text (strings as they are, other scalars printed).
    pub fn text(&self) -> String {
        match &self.value {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

/// A named state or relation.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxProperty {
    /// Property name (`checked`, `disabled`, `level`, ...).
    pub name: String,
    /// Its value.
    #[serde(default)]
    pub value: AxValue,
}

impl AxNode {
    /// The role, or an empty string.
    pub fn role(&self) -> String {
        self.role.as_ref().map(AxValue::text).unwrap_or_default()
    }

    /// The accessible name, or an empty string.
    pub fn name(&self) -> String {
        self.name.as_ref().map(AxValue::text).unwrap_or_default()
    }

    /// A property by name.
    pub fn property(&self, name: &str) -> Option<&AxValue> {
        self.properties.iter().find(|p| p.name == name).map(|p| &p.value)
    }
}
