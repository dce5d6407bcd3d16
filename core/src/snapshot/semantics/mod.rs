//! Roles, accessible names, descriptions and states worked out from the DOM snapshot alone,
//! the way Chrome's accessibility tree has them.
//!
//! The capture asks for no accessibility tree (describing every node was most of a capture's
//! cost in the renderer), so these are the roles, names and states the engine reads. A frame
//! recorded with Chrome's tree (the test captures) is read from that tree instead.
//!
//! `derive` answers for an element where its rules follow what Chrome does, and `None` where
//! they do not (the element then has no role, and the pipeline reads it by its tag, its cursor
//! and its listeners). The workspace test `harness/tests/e2e/derived_semantics.rs` measures every
//! answer against Chrome's tree in the recorded captures of both corpora, and each page's
//! snapshot written from these answers against the one written from Chrome's tree.

mod names;
mod roles;
mod tables;

pub use super::accessibility::Semantics;
use super::text::normalise;
use super::tree::{NodeId, NodeKind, PageTree};
use names::referenced_text;
use roles::{explicit, implicit};

/// The role, name, description and states of element `id`, where the rules here know them.
pub fn derive(tree: &PageTree, id: NodeId) -> Option<Semantics> {
    let node = &tree.nodes[id];
    if node.kind != NodeKind::Element {
        return None;
    }
    // What these rules do not follow yet.
    let unsure = |k: &str| {
        let k = k.to_ascii_lowercase();
        matches!(k.as_str(), "aria-owns" | "aria-roledescription" | "popover" | "inert" | "hidden")
    };
    if node.attrs.iter().any(|(k, _)| unsure(k)) {
        return None;
    }
    if hidden_from_tree(tree, id) {
        return None;
    }
    let mut semantics = match node.attr("role").map(str::trim).filter(|r| !r.is_empty()) {
        Some(role) => explicit(tree, id, role)?,
        None => implicit(tree, id)?,
    };
    let mut named_by_title = false;
    if let Some(ids) = node.attr("aria-labelledby") {
        let text = referenced_text(tree, id, ids)?;
        if !text.is_empty() {
            semantics.name = text;
        }
    } else if semantics.name.is_empty()
        && let Some(title) = node.attr("title").map(normalise)
        && !semantics.ignored
        && semantics.role != "generic"
    {
        semantics.name = title;
        named_by_title = true;
    } else {
        // An image without `alt` is named by its title.
        named_by_title = node.tag == "img" && !node.has_attr("alt") && !node.has_attr("aria-label");
    }
    semantics.description = match node.attr("aria-describedby") {
        Some(ids) => Some(referenced_text(tree, id, ids)?).filter(|d| !d.is_empty()),
        // A title says nothing more where the content already named the element with it.
        None => node.attr("title").map(normalise).filter(|t| {
            let repeats = *t == semantics.name && (semantics.from_content || named_by_title && node.tag != "img");
            !t.is_empty() && !repeats
        }),
    };
    semantics.properties = properties(tree, id, semantics.role);
    semantics.value = range_value(tree, id, semantics.role);
    Some(semantics)
}

/// The value of an element given a range role by ARIA: its `aria-valuenow`, a number (Chrome
/// reports `aria-valuetext` apart, as a property). Native fields carry their own value.
fn range_value(tree: &PageTree, id: NodeId, role: &str) -> Option<String> {
    let node = &tree.nodes[id];
    if node.tag == "input" || !matches!(role, "slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter") {
        return None;
    }
    // A whole number prints without a fraction (`3`), as Chrome's JSON has it.
    let now = node.attr("aria-valuenow")?.trim().parse::<f64>().ok().filter(|v| v.is_finite())?;
    Some(now.to_string())
}

/// States from ARIA attributes and the form's own state, as Chrome reports them.
fn properties(tree: &PageTree, id: NodeId, role: &str) -> Vec<(&'static str, String)> {
    let node = &tree.nodes[id];
    let mut out = Vec::new();
    let aria = |name: &str| node.attr(name).map(|v| v.trim().to_ascii_lowercase());
    // Only roles that open and close take `aria-expanded`.
    let expands = matches!(
        role,
        "button"
            | "link"
            | "combobox"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "tab"
            | "treeitem"
            | "row"
            | "gridcell"
            | "columnheader"
            | "rowheader"
            | "checkbox"
            | "switch"
            | "listbox"
            | "application"
            | "DisclosureTriangle"
    );
    if let Some(v) = aria("aria-expanded").filter(|v| expands && (v == "true" || v == "false")) {
        out.push(("expanded", v));
    } else if role == "combobox" && node.tag == "select" {
        out.push(("expanded", "false".into()));
    } else if node.tag == "details" {
        out.push(("expanded", node.has_attr("open").to_string()));
    } else if node.tag == "summary"
        && let Some(details) = tree.nodes[id].parent.filter(|&p| tree.nodes[p].tag == "details")
    {
        out.push(("expanded", tree.nodes[details].has_attr("open").to_string()));
    }
    if let Some(v) = aria("aria-pressed").filter(|v| matches!(v.as_str(), "true" | "false" | "mixed")) {
        out.push(("pressed", v));
    }
    if let Some(v) = aria("aria-selected").filter(|v| v == "true" || v == "false") {
        out.push(("selected", v));
    } else if node.tag == "option" {
        out.push(("selected", node.option_selected.to_string()));
    }
    if let Some(v) = aria("aria-checked").filter(|v| matches!(v.as_str(), "true" | "false" | "mixed")) {
        out.push(("checked", v));
    } else if matches!(role, "checkbox" | "radio") && node.tag == "input" {
        out.push(("checked", node.checked.to_string()));
    }
    if let Some(v) = aria("aria-invalid").filter(|v| !v.is_empty() && v != "false") {
        out.push(("invalid", if v == "grammar" || v == "spelling" { v } else { "true".into() }));
    } else if role == "checkbox" && node.tag == "input" && node.has_attr("required") && !node.checked {
        // A required box left unticked fails the form's own validation.
        out.push(("invalid", "true".into()));
    }
    if aria("aria-readonly").as_deref() == Some("true") || (node.has_attr("readonly") && node.tag != "select") {
        out.push(("readonly", "true".into()));
    }
    if aria("aria-required").as_deref() == Some("true") || node.has_attr("required") {
        out.push(("required", "true".into()));
    }
    if aria("aria-disabled").as_deref() == Some("true") || node.has_attr("disabled") {
        out.push(("disabled", "true".into()));
    }
    let level = aria("aria-level")
        .and_then(|l| l.parse::<u64>().ok())
        .or_else(|| node.tag.strip_prefix('h').and_then(|d| d.parse::<u64>().ok()).filter(|l| (1..=6).contains(l)));
    if let Some(level) = level.filter(|_| role == "heading") {
        out.push(("level", level.to_string()));
    }
    out
}

/// Under `aria-hidden="true"`: the tree ignores it, which these rules do not work out yet.
fn hidden_from_tree(tree: &PageTree, id: NodeId) -> bool {
    std::iter::once(id).chain(tree.ancestors(id)).any(|a| tree.nodes[a].aria_hidden())
}

/// Derives the roles and names of every element of `tree` whose frame `capture` recorded
/// without Chrome's accessibility tree (a live capture asks for none).
pub fn derive_missing(tree: &mut PageTree, capture: &crate::capture::Capture) {
    let with_tree: std::collections::HashSet<&str> = std::iter::once(&capture.main)
        .chain(&capture.children)
        .flat_map(|t| t.ax_trees.iter().map(|a| a.frame_id.as_str()))
        .collect();
    for id in 0..tree.nodes.len() {
        if tree.nodes[id].kind == NodeKind::Element
            && !with_tree.contains(tree.frames[tree.nodes[id].frame].frame_id.as_str())
        {
            tree.nodes[id].ax.derived = derive(tree, id);
        }
    }
}
