//! What one node is to assistive technology: its accessibility node where the capture holds
//! Chrome's tree for its frame, else what the engine derived from the DOM snapshot
//! ([`super::semantics`]). Every stage reads roles, names, states and values through here, so
//! the two sources are decided between in one place.

use super::semantics::Semantics;
use crate::cdp::accessibility::AxNode;

/// The accessibility facts of a node.
#[derive(Debug, Clone, Default)]
pub struct Accessibility<'a> {
    /// The accessibility node.
    pub node: Option<&'a AxNode>,
    /// What the DOM says, for a frame captured without its accessibility tree.
    pub derived: Option<Semantics>,
}

impl<'a> Accessibility<'a> {
    /// Reads a fact from Chrome's node where there is one, else from the derived semantics.
    fn either<T>(&self, chrome: impl FnOnce(&AxNode) -> T, dom: impl FnOnce(&Semantics) -> T) -> Option<T> {
        match (self.node, &self.derived) {
            (Some(node), _) => Some(chrome(node)),
            (None, Some(derived)) => Some(dom(derived)),
            (None, None) => None,
        }
    }
    /// The role (`""` when unknown).
    pub fn role(&self) -> String {
        self.either(AxNode::role, |d| d.role.to_owned()).unwrap_or_default()
    }
    /// The accessible name.
    pub fn name(&self) -> String {
        self.either(AxNode::name, |d| d.name.clone()).unwrap_or_default()
    }
    /// A state or relation (`expanded`, `level`, …) as text.
    pub fn property(&self, name: &str) -> Option<String> {
        self.either(
            |n| {
                n.property(name).and_then(|v| v.value.as_ref()).map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
            },
            |d| d.properties.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone()),
        )
        .flatten()
    }
    /// The accessible description.
    pub fn description(&self) -> Option<String> {
        self.either(|n| n.description.as_ref().map(|d| d.text()), |d| d.description.clone()).flatten()
    }
    /// The accessible value (of a slider, a spin button, a text field).
    pub fn value(&self) -> Option<String> {
        self.either(|n| n.value.as_ref().map(|v| v.text()), |d| d.value.clone()).flatten()
    }
    /// Whether the node is ignored by assistive technology.
    pub fn ignored(&self) -> bool {
        self.either(|n| n.ignored, |d| d.ignored).unwrap_or(false)
    }
}
