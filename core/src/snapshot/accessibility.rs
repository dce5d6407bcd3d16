//! What one node is to assistive technology: its accessibility node where the capture holds
//! Chrome's tree for its frame, else what the engine derived from the DOM snapshot
//! ([`super::semantics`], which fills in [`Semantics`]). Every stage reads roles, names, states and values through here, so
//! the two sources are decided between in one place.

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

/// An element's role and accessible name, as Chrome's accessibility tree has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semantics {
    /// Chrome's role name (`link`, `generic`, `LineBreak`, …).
    pub role: &'static str,
    /// The accessible name, whitespace collapsed.
    pub name: String,
    /// Not exposed to assistive technology (`aria-hidden`, an image with empty `alt`).
    pub ignored: bool,
    /// The accessible description (`aria-describedby`, or a title the name did not use).
    pub description: Option<String>,
    /// The value of a range widget given by ARIA (`aria-valuenow`), as Chrome prints it.
    pub value: Option<String>,
    /// States and relations, as Chrome names them, their values as text (`expanded`: `false`).
    pub properties: Vec<(&'static str, String)>,
    /// The name came from the element's content.
    pub(in crate::snapshot) from_content: bool,
}

impl Semantics {
    pub(in crate::snapshot) fn new(role: &'static str, name: String) -> Semantics {
        Semantics {
            role,
            name,
            ignored: false,
            description: None,
            value: None,
            properties: Vec::new(),
            from_content: false,
        }
    }

    pub(in crate::snapshot) fn from_content(role: &'static str, name: String) -> Semantics {
        Semantics { from_content: true, ..Semantics::new(role, name) }
    }
}
