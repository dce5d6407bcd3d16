//! A plain listing of a frame's accessibility tree: one line per meaningful node, with a ref
//! on every node an agent can act on.

use crate::cdp::accessibility::{AxNode, FullAxTree};
use crate::protocol::ElementFacts;
use crate::refs::{NodeKey, RefTable, format_ref};
use std::collections::HashMap;

/// Roles an agent can act on.
const ACTIONABLE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
    "PopUpButton",
];

/// Roles that only group other nodes and are left out of the listing.
const TRANSPARENT: &[&str] =
    &["generic", "none", "presentation", "InlineTextBox", "LineBreak", "RootWebArea", "WebArea"];

/// A rendered listing and the elements it names.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The text, one node per line.
    pub text: String,
    /// Actionable elements in document order.
    pub elements: Vec<ElementFacts>,
}

/// Lists `tree` (one frame, identified by `frame_id`/`loader_id`), assigning refs in `refs`.
pub fn list(tree: &FullAxTree, frame_id: &str, loader_id: &str, refs: &mut RefTable) -> Listing {
    let by_id: HashMap<&str, &AxNode> = tree.nodes.iter().map(|n| (n.node_id.as_str(), n)).collect();
    let mut listing = Listing::default();
    if let Some(root) = tree.nodes.first() {
        walk(root, None, 0, &by_id, frame_id, loader_id, refs, &mut listing);
    }
    listing
}

#[allow(clippy::too_many_arguments)]
fn walk(
    node: &AxNode,
    parent_name: Option<&str>,
    depth: usize,
    by_id: &HashMap<&str, &AxNode>,
    frame_id: &str,
    loader_id: &str,
    refs: &mut RefTable,
    out: &mut Listing,
) {
    let role = node.role();
    let name = node.name().trim().to_owned();
    let shown = !node.ignored
        && !TRANSPARENT.contains(&role.as_str())
        && !(role == "StaticText" && (name.trim().is_empty() || parent_name == Some(name.as_str())));
    let child_depth = if shown { depth + 1 } else { depth };
    if shown {
        let mut line = "  ".repeat(depth);
        if role == "StaticText" {
            line.push_str(&quote(&name));
        } else {
            let actionable = ACTIONABLE.contains(&role.as_str());
            let element_ref = match (actionable, node.backend_dom_node_id) {
                (true, Some(id)) => Some(format_ref(refs.assign(&NodeKey {
                    frame_id: frame_id.to_owned(),
                    loader_id: loader_id.to_owned(),
                    backend_node_id: id,
                }))),
                _ => None,
            };
            if let Some(r) = &element_ref {
                line.push_str(r);
                line.push(' ');
            }
            line.push_str(&role);
            if !name.is_empty() {
                line.push(' ');
                line.push_str(&quote(&name));
            }
            let value = node.value.as_ref().map(|v| v.text()).filter(|v| !v.is_empty());
            if let Some(v) = &value {
                line.push_str(" = ");
                line.push_str(&quote(v));
            }
            let states = states(node);
            for s in &states {
                line.push(' ');
                line.push_str(s);
            }
            if let Some(element_ref) = element_ref {
                out.elements.push(ElementFacts { element_ref, role: role.clone(), name: name.clone(), value, states });
            }
        }
        out.text.push_str(&line);
        out.text.push('\n');
    }
    // The text of a named leaf-like element is already in its name.
    if shown && role != "StaticText" && ACTIONABLE.contains(&role.as_str()) {
        return;
    }
    for child in &node.child_ids {
        if let Some(child) = by_id.get(child.as_str()) {
            walk(child, Some(name.as_str()), child_depth, by_id, frame_id, loader_id, refs, out);
        }
    }
}

fn states(node: &AxNode) -> Vec<String> {
    let mut out = Vec::new();
    for (prop, shown_as) in [
        ("checked", "checked"),
        ("disabled", "disabled"),
        ("expanded", "expanded"),
        ("selected", "selected"),
        ("required", "required"),
    ] {
        match node.property(prop).and_then(|v| v.value.as_ref()) {
            Some(serde_json::Value::Bool(true)) => out.push(shown_as.to_owned()),
            Some(serde_json::Value::String(s)) if s == "true" => out.push(shown_as.to_owned()),
            Some(serde_json::Value::String(s)) if s == "mixed" => out.push(format!("{shown_as}=mixed")),
            _ => {}
        }
    }
    if let Some(level) = node.property("level").map(|v| v.text()) {
        out.push(format!("level={level}"));
    }
    out
}

fn quote(s: &str) -> String {
    serde_json::to_string(s.trim()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> FullAxTree {
        serde_json::from_value(serde_json::json!({"nodes": [
            {"nodeId": "1", "role": {"type": "role", "value": "RootWebArea"}, "childIds": ["2", "3", "5"]},
            {"nodeId": "2", "role": {"type": "role", "value": "heading"}, "name": {"type": "computedString", "value": "Shop"},
             "properties": [{"name": "level", "value": {"type": "integer", "value": 1}}], "childIds": [], "backendDOMNodeId": 20},
            {"nodeId": "3", "role": {"type": "role", "value": "button"}, "name": {"type": "computedString", "value": "Buy"},
             "properties": [{"name": "disabled", "value": {"type": "boolean", "value": true}}], "childIds": ["4"], "backendDOMNodeId": 30},
            {"nodeId": "4", "role": {"type": "role", "value": "StaticText"}, "name": {"type": "computedString", "value": "Buy"}, "childIds": []},
            {"nodeId": "5", "ignored": true, "role": {"type": "role", "value": "none"}, "childIds": [], "unknownField": 1}
        ]}))
        .unwrap()
    }

    #[test]
    fn actionable_nodes_get_refs_and_states() {
        let mut refs = RefTable::default();
        let listing = list(&tree(), "F", "L", &mut refs);
        assert_eq!(listing.text, "heading \"Shop\" level=1\ne1 button \"Buy\" disabled\n");
        assert_eq!(listing.elements.len(), 1);
        assert_eq!(listing.elements[0].states, vec!["disabled"]);
        assert_eq!(refs.resolve("e1").unwrap().backend_node_id, 30);
    }

    #[test]
    fn listing_twice_keeps_refs() {
        let mut refs = RefTable::default();
        let a = list(&tree(), "F", "L", &mut refs);
        let b = list(&tree(), "F", "L", &mut refs);
        assert_eq!(a.text, b.text);
    }
}
