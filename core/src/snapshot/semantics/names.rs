//! Accessible names from content and references: an element's rendered text (images by `alt`,
//! SVG by title, generated text, blocks set apart), the text `aria-labelledby` points at, a
//! label's text.

use crate::snapshot::text::normalise;
use crate::snapshot::tree::{NodeId, NodeKind, PageTree};

use super::roles::landmark_in_context;
use super::tables::table_part;

/// The text of the elements `ids` (space-separated) point at, in the frame of `id`; `None`
/// where one holds what these rules do not follow.
pub(super) fn referenced_text(tree: &PageTree, id: NodeId, ids: &str) -> Option<String> {
    let frame = tree.nodes[id].frame;
    let mut out = String::new();
    for wanted in ids.split_whitespace() {
        let Some(target) = tree.id_index().element(frame, wanted) else { continue };
        let node = &tree.nodes[target];
        if let Some(label) = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty()) {
            out.push_str(&label);
        } else {
            let mut text = String::new();
            all_text(tree, target, &mut text);
            out.push_str(&text);
        }
        out.push(' ');
    }
    Some(normalise(&out))
}

/// Every text of a subtree, shown or not (a label may point at hidden text).
fn all_text(tree: &PageTree, id: NodeId, out: &mut String) {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            NodeKind::Text => out.push_str(node.layout_text.unwrap_or(node.text)),
            NodeKind::Element if node.tag == "script" || node.tag == "style" => {}
            NodeKind::Element => all_text(tree, child, out),
            _ => {}
        }
    }
}

/// A label's text, leaving out the field it names; `None` where it holds other fields.
pub(super) fn label_text(tree: &PageTree, id: NodeId, field: NodeId, out: &mut String) -> Option<()> {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            // Text the layout dropped (collapsed whitespace, hidden) says nothing.
            NodeKind::Text => out.push_str(node.layout_text.unwrap_or("")),
            NodeKind::Element if child == field => {}
            NodeKind::Element if matches!(node.tag.as_str(), "input" | "select" | "textarea" | "button") => {
                return None;
            }
            NodeKind::Element => {
                let mut inner = String::new();
                content_text(tree, child, &mut inner)?;
                out.push_str(&inner);
            }
            _ => return None,
        }
    }
    Some(())
}

/// What an element inside another's content gives that element's name, by its role.
enum Part {
    /// Its own content, walked in turn.
    Content,
    /// Only its own name: a container of many things (a menu, a navigation landmark, a data
    /// table, an image) does not lend its content to an ancestor's name.
    OwnName,
    /// Something these rules do not follow (a field's value, MathML, an unknown role).
    Unsure,
}

/// Roles whose content names them or their ancestors (as Chrome's name computation has it).
const CONTENT_ROLES: &[&str] = &[
    "button",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "tooltip",
    "heading",
    "option",
    "switch",
    "checkbox",
    "radio",
    "cell",
    "gridcell",
    "columnheader",
    "rowheader",
    "generic",
    "none",
    "presentation",
    "list",
    "listitem",
    "paragraph",
    "region",
    "term",
    "definition",
    "caption",
    "code",
    "emphasis",
    "strong",
    "deletion",
    "insertion",
    "subscript",
    "superscript",
    "time",
    "mark",
];

/// Roles that never lend their content to a name: containers of many things.
const CONTAINER_ROLES: &[&str] = &[
    "menu",
    "menubar",
    "navigation",
    "banner",
    "main",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "tablist",
    "tabpanel",
    "group",
    "toolbar",
    "alert",
    "status",
    "img",
    "image",
    "listbox",
    "tree",
    "grid",
    "treegrid",
    "table",
    "article",
    "note",
    "form",
    "separator",
    "log",
    "marquee",
    "timer",
    "radiogroup",
    "feed",
    "figure",
    "document",
    "application",
];

fn part(tree: &PageTree, id: NodeId) -> Part {
    let node = &tree.nodes[id];
    if let Some(role) = node.attr("role").and_then(|r| r.split_whitespace().next()) {
        let role = role.to_ascii_lowercase();
        return if CONTENT_ROLES.contains(&role.as_str()) {
            Part::Content
        } else if CONTAINER_ROLES.contains(&role.as_str()) {
            Part::OwnName
        } else {
            Part::Unsure
        };
    }
    let labelled = node.has_attr("aria-label");
    match node.tag.as_str() {
        "nav" | "article" | "figure" | "main" | "dialog" | "iframe" | "video" | "audio" => Part::OwnName,
        "header" | "footer" | "aside" => match landmark_in_context(tree, id, labelled) {
            // A section's footer lends its text (a teaser's "7 comments"), its header not: so
            // Chrome's names read on the recorded pages.
            Some("generic" | "sectionfooter") => Part::Content,
            _ => Part::OwnName,
        },
        "form" if labelled => Part::OwnName,
        "table" => match table_part(tree, id) {
            Some("table") => Part::OwnName,
            Some(_) => Part::Content,
            None => Part::Unsure,
        },
        "input" | "select" | "textarea" | "object" | "embed" | "math" | "fieldset" | "canvas" => Part::Unsure,
        _ => Part::Content,
    }
}

/// Appends the name `id`'s content gives it: its shown text, images by their `alt`, blocks set
/// apart by spaces. `None` where the content holds something these rules do not follow.
pub(super) fn content_text(tree: &PageTree, id: NodeId, out: &mut String) -> Option<()> {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            // Text the layout dropped (collapsed whitespace, hidden) says nothing.
            NodeKind::Text => out.push_str(node.layout_text.unwrap_or("")),
            NodeKind::Element => {
                if node.aria_hidden() {
                    continue;
                }
                if node.has_attr("aria-labelledby") {
                    return None;
                }
                if let Some(label) = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty()) {
                    set_apart(out, &label);
                    continue;
                }
                match part(tree, child) {
                    Part::Content => {}
                    Part::OwnName => {
                        // A container gives only what names it (here, no more than a title).
                        set_apart(out, node.attr("title").unwrap_or(""));
                        continue;
                    }
                    Part::Unsure => return None,
                }
                let Some(layout) = node.layout.as_ref() else {
                    // Not laid out: hidden with all it holds (not part of the name), or
                    // `display: contents`, whose children are laid out in its place.
                    if !laid_out_within(tree, child) {
                        continue;
                    }
                    content_text(tree, child, out)?;
                    continue;
                };
                if layout.visibility != "visible" && !layout.visibility.is_empty() {
                    return None;
                }
                match node.tag.as_str() {
                    "img" => {
                        // An image is named by its `alt`, else its `title`.
                        set_apart(out, node.attr("alt").or(node.attr("title")).unwrap_or(""));
                        continue;
                    }
                    "svg" => {
                        set_apart(out, &svg_name(tree, child)?);
                        continue;
                    }
                    // Generated text (`content`), or an image with nothing to say.
                    "::before" | "::after" if !node.children.is_empty() => return None,
                    "::before" | "::after" => {}
                    "br" => {
                        out.push('\n');
                        continue;
                    }
                    // A list marker or a disclosure triangle is not part of a name.
                    "::marker" => continue,
                    t if t.starts_with("::") => return None,
                    _ => {}
                }
                // A block is set apart from what stands beside it; inline content runs on.
                let block = !layout.display.starts_with("inline");
                if block {
                    out.push(' ');
                }
                match node.tag.as_str() {
                    "::before" | "::after" => out.push_str(node.layout_text.unwrap_or("")),
                    _ => content_text(tree, child, out)?,
                }
                if block {
                    out.push(' ');
                }
            }
            NodeKind::Document | NodeKind::Other => return None,
        }
    }
    Some(())
}

/// The name of an inline `<svg>` drawing: its title; `None` where it holds text of its own,
/// which these rules do not follow.
pub(super) fn svg_name(tree: &PageTree, id: NodeId) -> Option<String> {
    let node = &tree.nodes[id];
    if node.has_attr("aria-labelledby") || node.has_attr("role") {
        return None;
    }
    if let Some(label) = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty()) {
        return Some(label);
    }
    let mut stack = vec![id];
    while let Some(at) = stack.pop() {
        if tree.nodes[at].tag == "text" || tree.nodes[at].tag == "foreignobject" {
            return None;
        }
        stack.extend(tree.nodes[at].children.iter().copied());
    }
    Some(svg_title(tree, id).unwrap_or_default())
}

/// The text of an `<svg>`'s own `<title>`, if it has one.
pub(super) fn svg_title(tree: &PageTree, svg: NodeId) -> Option<String> {
    let &title = tree.nodes[svg].children.iter().find(|&&c| tree.nodes[c].tag == "title")?;
    let mut text = String::new();
    all_text(tree, title, &mut text);
    Some(normalise(&text))
}

/// Appends `text` set apart by spaces, as a name computation joins a piece named on its own
/// (an image's `alt`, a label).
fn set_apart(out: &mut String, text: &str) {
    out.push(' ');
    out.push_str(text);
    out.push(' ');
}

/// Every text `id` shows, blocks set apart by spaces (the fallback name of a table cell).
pub(super) fn shown_text(tree: &PageTree, id: NodeId, out: &mut String) {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            NodeKind::Text => out.push_str(node.layout_text.unwrap_or("")),
            NodeKind::Element if node.tag == "img" => set_apart(out, node.attr("alt").unwrap_or("")),
            NodeKind::Element if node.layout.is_some() => {
                out.push(' ');
                shown_text(tree, child, out);
                out.push(' ');
            }
            _ => {}
        }
    }
}

/// Whether anything under `id` is laid out (a `display: contents` element), rather than the
/// whole subtree being hidden.
fn laid_out_within(tree: &PageTree, id: NodeId) -> bool {
    tree.nodes[id].children.iter().any(|&c| tree.nodes[c].layout.is_some() || laid_out_within(tree, c))
}
