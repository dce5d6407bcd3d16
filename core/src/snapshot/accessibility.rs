//! What one node is to assistive technology: its accessibility node where the capture holds
//! Chrome's tree for its frame, else what the engine derived from the DOM snapshot
//! ([`super::semantics`]). Every stage reads roles, names, states and values through here, so
//! the two sources are decided between in one place.

use crate::cdp::accessibility::AxNode;

/// The accessibility facts of a node.
#[derive(Debug, Clone, Default)]
pub struct Accessibility<'a> {
    /// The accessibility node.
    pub node: Option<&'a AxNode>,
    /// What the DOM says, for a frame captured without its accessibility tree.
    pub derived: Option<super::semantics::Semantics>,
}

impl<'a> Accessibility<'a> {
    /// The role (`""` when unknown).
    pub fn role(&self) -> String {
        match (self.node, &self.derived) {
            (Some(node), _) => node.role(),
            (None, Some(derived)) => derived.role.to_owned(),
            (None, None) => String::new(),
        }
    }
    /// The accessible name.
    pub fn name(&self) -> String {
        match (self.node, &self.derived) {
            (Some(node), _) => node.name(),
            (None, Some(derived)) => derived.name.clone(),
            (None, None) => String::new(),
        }
    }
    /// A state or relation (`expanded`, `level`, …) as text.
    pub fn property(&self, name: &str) -> Option<String> {
        match (self.node, &self.derived) {
            (Some(node), _) => node.property(name).and_then(|v| v.value.as_ref()).map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            (None, Some(derived)) => derived.properties.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone()),
            (None, None) => None,
        }
    }
    /// The accessible description.
    pub fn description(&self) -> Option<String> {
        match (self.node, &self.derived) {
            (Some(node), _) => node.description.as_ref().map(|d| d.text()),
            (None, Some(derived)) => derived.description.clone(),
            (None, None) => None,
        }
    }
    /// The accessible value (of a slider, a spin button, a text field).
    pub fn value(&self) -> Option<String> {
        match (self.node, &self.derived) {
            (Some(node), _) => node.value.as_ref().map(|v| v.text()),
            (None, Some(derived)) => derived.value.clone(),
            (None, None) => None,
        }
    }
    /// Whether the node is ignored by assistive technology.
    pub fn ignored(&self) -> bool {
        self.node.is_some_and(|n| n.ignored) || self.derived.as_ref().is_some_and(|d| d.ignored)
    }
}
