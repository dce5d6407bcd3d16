//! Roles, accessible names, descriptions and states worked out from the DOM snapshot alone,
//! the way Chrome's accessibility tree has them.
//!
//! The engine reads them for a frame whose accessibility tree the capture lacks (the request
//! for it failed), so such a frame still shows its links, buttons, fields, headings and tables. The tree is the larger part of a capture's cost; these rules are how a capture
//! may one day do without it.
//!
//! `derive` answers for an element where its rules follow what Chrome does, and `None` where
//! they do not (the element is then left unknown, as it was without them). The workspace test
//! `tests/tests/derived_semantics.rs` measures every answer against Chrome's tree in the
//! recorded captures of both corpora, and each page's snapshot written from these answers
//! against the one written from Chrome's tree.

use super::text::normalise;
use super::tree::{NodeId, NodeKind, PageTree};

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
    /// States and relations, as Chrome names them, their values as text (`expanded`: `false`).
    pub properties: Vec<(&'static str, String)>,
    /// The name came from the element's content.
    from_content: bool,
}

impl Semantics {
    fn new(role: &'static str, name: String) -> Semantics {
        Semantics { role, name, ignored: false, description: None, properties: Vec::new(), from_content: false }
    }

    fn from_content(role: &'static str, name: String) -> Semantics {
        Semantics { from_content: true, ..Semantics::new(role, name) }
    }
}

/// Elements whose role follows from their tag alone and which Chrome gives no name.
fn unnamed_role(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "div" | "span" | "b" | "i" | "small" | "u" | "font" | "center" | "cite" | "q" | "pre" | "big" | "tt"
        | "bdi" | "bdo" | "var" | "kbd" | "samp" | "wbr" | "nobr" | "hgroup" | "address" => "generic",
        "p" => "paragraph",
        "ul" | "ol" | "menu" => "list",
        "li" => "listitem",
        "strong" => "strong",
        "em" => "emphasis",
        "article" => "article",
        "blockquote" => "blockquote",
        "code" => "code",
        "figure" => "figure",
        "hr" => "separator",
        "dd" => "definition",
        "sup" => "superscript",
        "sub" => "subscript",
        "time" => "time",
        "mark" => "mark",
        "s" | "del" => "deletion",
        "ins" => "insertion",
        "label" => "LabelText",
        "figcaption" => "Figcaption",
        "nav" => "navigation",
        "main" => "main",
        "body" => "generic",
        "caption" => "caption",
        "dl" => "DescriptionList",
        "legend" => "Legend",
        "abbr" => "Abbr",
        "iframe" => "Iframe",
        _ => return None,
    })
}

/// Elements named by their content when nothing names them otherwise.
fn content_named_role(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "a" => "link",
        "button" => "button",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "dt" => "term",
        "summary" => "DisclosureTriangle",
        "option" => "option",
        _ => return None,
    })
}

/// The role, name, description and states of element `id`, where the rules here know them.
pub fn derive(tree: &PageTree, id: NodeId) -> Option<Semantics> {
    let node = &tree.nodes[id];
    if node.kind != NodeKind::Element {
        return None;
    }
    // What these rules do not follow yet.
    let unsure = |k: &str| {
        let k = k.to_ascii_lowercase();
        matches!(k.as_str(), "aria-owns" | "aria-roledescription" | "contenteditable" | "popover" | "inert" | "hidden")
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
            let repeats = *t == semantics.name
                && if semantics.from_content { !named_by_title } else { named_by_title && node.tag != "img" };
            !t.is_empty() && !repeats
        }),
    };
    semantics.properties = properties(tree, id, semantics.role);
    Some(semantics)
}

/// The text of the elements `ids` (space-separated) point at, in the frame of `id`; `None`
/// where one holds what these rules do not follow.
fn referenced_text(tree: &PageTree, id: NodeId, ids: &str) -> Option<String> {
    let frame = tree.nodes[id].frame;
    let mut out = String::new();
    for wanted in ids.split_whitespace() {
        let Some(target) = tree
            .nodes
            .iter()
            .position(|n| n.frame == frame && n.kind == NodeKind::Element && n.attr("id") == Some(wanted))
        else {
            continue;
        };
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

/// States from ARIA attributes and the form's own state, as Chrome reports them.
fn properties(tree: &PageTree, id: NodeId, role: &str) -> Vec<(&'static str, String)> {
    let node = &tree.nodes[id];
    let mut out = Vec::new();
    let aria = |name: &str| node.attr(name).map(|v| v.trim().to_ascii_lowercase());
    if let Some(v) = aria("aria-expanded").filter(|v| v == "true" || v == "false") {
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

/// ARIA roles these rules follow, as Chrome names them, and whether their content names them.
fn aria_role(role: &str) -> Option<(&'static str, bool)> {
    Some(match role {
        "button" => ("button", true),
        "link" => ("link", true),
        "tab" => ("tab", true),
        "menuitem" => ("menuitem", true),
        "menuitemcheckbox" => ("menuitemcheckbox", true),
        "menuitemradio" => ("menuitemradio", true),
        "heading" => ("heading", true),
        "option" => ("option", true),
        "switch" => ("switch", true),
        "checkbox" => ("checkbox", true),
        "radio" => ("radio", true),
        "treeitem" => ("treeitem", true),
        "tooltip" => ("tooltip", true),
        "navigation" => ("navigation", false),
        "banner" => ("banner", false),
        "main" => ("main", false),
        "contentinfo" => ("contentinfo", false),
        "complementary" => ("complementary", false),
        "search" => ("search", false),
        "dialog" => ("dialog", false),
        "alertdialog" => ("alertdialog", false),
        "menu" => ("menu", false),
        "menubar" => ("menubar", false),
        "tablist" => ("tablist", false),
        "tabpanel" => ("tabpanel", false),
        "list" => ("list", false),
        "listitem" => ("listitem", false),
        "group" => ("group", false),
        "toolbar" => ("toolbar", false),
        "alert" => ("alert", false),
        "status" => ("status", false),
        "img" | "image" => ("image", false),
        "presentation" | "none" => ("none", false),
        "textbox" => ("textbox", false),
        "searchbox" => ("searchbox", false),
        "listbox" => ("listbox", false),
        "article" => ("article", false),
        "note" => ("note", false),
        "form" => ("form", false),
        "region" => ("region", false),
        "separator" => ("separator", false),
        _ => return None,
    })
}

/// An element with a `role` attribute: the first role these rules follow, its name from
/// `aria-label`, or from content where the role takes it.
fn explicit(tree: &PageTree, id: NodeId, roles: &str) -> Option<Semantics> {
    let node = &tree.nodes[id];
    let (role, from_content) = aria_role(&roles.split_whitespace().next()?.to_ascii_lowercase())?;
    // A focusable or labelled element is not presentational; leave that to the tree.
    if role == "none" && (node.has_attr("tabindex") || node.has_attr("aria-label") || node.has_attr("aria-labelledby"))
    {
        return None;
    }
    if let Some(label) = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty()) {
        return Some(Semantics::new(role, label));
    }
    if node.tag == "svg"
        && let Some(&title) = node.children.iter().find(|&&c| tree.nodes[c].tag == "title")
    {
        let mut text = String::new();
        all_text(tree, title, &mut text);
        return Some(Semantics::new(role, normalise(&text)));
    }
    if !from_content {
        return Some(Semantics::new(role, String::new()));
    }
    let mut text = String::new();
    content_text(tree, id, &mut text)?;
    Some(Semantics::from_content(role, normalise(&text)))
}

/// The role and name HTML gives element `id`, where the rules here know them.
fn implicit(tree: &PageTree, id: NodeId) -> Option<Semantics> {
    let node = &tree.nodes[id];
    let tag = node.tag.as_str();
    let titled = node.has_attr("title");
    let label = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty());
    match tag {
        "br" => return Some(Semantics::new("LineBreak", "\n".into())),
        "::marker" => return Some(Semantics::new("ListMarker", node.layout_text?.trim().to_owned())),
        "img" if label.is_some() => return Some(Semantics::new("image", label.unwrap_or_default())),
        "img" => {
            return match node.attr("alt") {
                Some("") => Some(Semantics { ignored: true, ..Semantics::new("none", String::new()) }),
                Some(alt) if !alt.trim().is_empty() => Some(Semantics::new("image", normalise(alt))),
                None if titled => Some(Semantics::new("image", normalise(node.attr("title").unwrap_or("")))),
                None => Some(Semantics::new("image", String::new())),
                _ => None,
            };
        }
        _ => {}
    }
    if tag == "svg" {
        let title = node.children.iter().find(|&&c| tree.nodes[c].tag == "title").map(|&c| {
            let mut text = String::new();
            for &t in &tree.nodes[c].children {
                text.push_str(tree.nodes[t].text);
            }
            normalise(&text)
        });
        return match (label, title, titled) {
            (Some(label), _, _) => Some(Semantics::new("image", label)),
            (None, Some(title), _) => Some(Semantics::new("image", title)),
            (None, None, false) => Some(Semantics::new("image", String::new())),
            _ => None,
        };
    }
    if (tag == "input" || tag == "textarea" || tag == "select") && !node.has_attr("alt") {
        return field(tree, id, label);
    }
    if titled && unnamed_role(tag).is_none() && tag != "a" {
        return None;
    }
    let labelled = |role: &'static str| Some(Semantics::new(role, label.clone().unwrap_or_default()));
    if matches!(tag, "table" | "thead" | "tbody" | "tfoot" | "tr" | "td" | "th") {
        let role = table_part(tree, id)?;
        return match role {
            "cell" | "columnheader" | "rowheader" | "LayoutTableCell" => {
                // A cell is named by all it shows, nested tables and fields too.
                named_by_content(tree, id, role, label.clone()).or_else(|| {
                    let mut text = String::new();
                    shown_text(tree, id, &mut text);
                    Some(Semantics::from_content(role, normalise(&text)))
                })
            }
            "table" if label.is_none() => {
                let caption = children_tagged(tree, id, &["caption"]).next();
                let mut text = String::new();
                if let Some(caption) = caption {
                    content_text(tree, caption, &mut text)?;
                }
                Some(Semantics::new(role, normalise(&text)))
            }
            _ => labelled(role),
        };
    }
    if let Some(role) = unnamed_role(tag) {
        // An empty box drawn as an image by its style (`content: url(…)`) is an image to the
        // tree, which the capture cannot tell; as an unnamed image it would show nothing.
        return labelled(role);
    }
    if let Some(role) = landmark_in_context(tree, id, label.is_some()) {
        return labelled(role);
    }
    match tag {
        "section" if label.is_some() => return labelled("region"),
        "form" if label.is_some() => return labelled("form"),
        "section" | "form" => return labelled("generic"),
        "fieldset" if label.is_none() => {
            // Named by its legend.
            let mut text = String::new();
            if let Some(legend) = children_tagged(tree, id, &["legend"]).next() {
                content_text(tree, legend, &mut text)?;
            }
            return Some(Semantics::new("group", normalise(&text)));
        }
        "fieldset" => return labelled("group"),
        "a" if !node.has_attr("href") => {
            return (!titled && !node.clickable).then(|| labelled("generic")).flatten();
        }
        _ => {}
    }
    named_by_content(tree, id, content_named_role(tag)?, label)
}

/// `role`, named by `aria-label` where there is one, else by the element's content.
fn named_by_content(tree: &PageTree, id: NodeId, role: &'static str, label: Option<String>) -> Option<Semantics> {
    if let Some(label) = label {
        return Some(Semantics::new(role, label));
    }
    let mut text = String::new();
    content_text(tree, id, &mut text)?;
    Some(Semantics::from_content(role, normalise(&text)))
}

/// A text field or a button drawn by `<input>`: its role from its type, its name from its
/// label (`aria-label`, a `<label>` pointing at it or around it, `title`, `placeholder`), or for a
/// button its value.
fn field(tree: &PageTree, id: NodeId, label: Option<String>) -> Option<Semantics> {
    let node = &tree.nodes[id];
    let kind = node.attr("type").unwrap_or("text").trim().to_ascii_lowercase();
    let listbox = node.has_attr("multiple")
        || node.attr("size").and_then(|v| v.trim().parse::<u32>().ok()).is_some_and(|n| n > 1);
    let role = match (node.tag.as_str(), kind.as_str()) {
        ("select", _) if listbox => "listbox",
        ("select", _) => "combobox",
        ("textarea", _) => "textbox",
        (_, "text" | "email" | "tel" | "url" | "password" | "") => "textbox",
        (_, "search") => "searchbox",
        (_, "submit" | "reset" | "button") => "button",
        (_, "checkbox") => "checkbox",
        (_, "radio") => "radio",
        (_, "number") => "spinbutton",
        (_, "range") => "slider",
        (_, "date" | "month" | "week") => "date",
        (_, "datetime-local") => "dateTime",
        (_, "time") => "InputTime",
        (_, "color") => "ColorWell",
        (_, "file") => "button",
        _ => return None,
    };
    if let Some(label) = label {
        return Some(Semantics::new(role, label));
    }
    if role == "button" && kind != "file" {
        let name = match node.attr("value") {
            Some(value) => normalise(value),
            None if kind == "reset" => "Reset".into(),
            None if kind == "submit" => "Submit".into(),
            None => String::new(),
        };
        return Some(Semantics::new(role, name));
    }
    let mut labels = Vec::new();
    if let Some(own) = node.attr("id").filter(|i| !i.is_empty()) {
        for (other, n) in tree.nodes.iter().enumerate() {
            if n.tag == "label" && n.frame == node.frame && n.attr("for") == Some(own) {
                labels.push(other);
            }
        }
    }
    if let Some(around) = tree.ancestors(id).find(|&a| tree.nodes[a].tag == "label")
        && !labels.contains(&around)
    {
        labels.push(around);
    }
    if !labels.is_empty() {
        let mut text = String::new();
        for l in labels {
            if tree.nodes[l].attrs.iter().any(|(k, _)| k.starts_with("aria-")) {
                return None;
            }
            label_text(tree, l, id, &mut text)?;
            text.push(' ');
        }
        let name = normalise(&text);
        if !name.is_empty() {
            return Some(Semantics::new(role, name));
        }
    }
    let hint = node.attr("title").or(node.attr("placeholder")).map(normalise).unwrap_or_default();
    Some(Semantics::new(role, hint))
}

/// A label's text, leaving out the field it names; `None` where it holds other fields.
fn label_text(tree: &PageTree, id: NodeId, field: NodeId, out: &mut String) -> Option<()> {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            NodeKind::Text => {
                if let Some(text) = node.layout_text {
                    out.push_str(text);
                }
            }
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

/// Under `aria-hidden="true"`: the tree ignores it, which these rules do not work out yet.
fn hidden_from_tree(tree: &PageTree, id: NodeId) -> bool {
    std::iter::once(id)
        .chain(tree.ancestors(id))
        .any(|a| tree.nodes[a].attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")))
}

/// `<header>`, `<footer>` and `<aside>`, whose role depends on whether sectioning content holds
/// them.
fn landmark_in_context(tree: &PageTree, id: NodeId, named: bool) -> Option<&'static str> {
    let tag = tree.nodes[id].tag.as_str();
    let frame = tree.nodes[id].frame;
    let scoped = |sections: &[&str]| {
        tree.ancestors(id)
            .take_while(|&a| tree.nodes[a].frame == frame)
            .any(|a| sections.contains(&tree.nodes[a].tag.as_str()))
    };
    Some(match tag {
        "header" if scoped(&["article", "aside", "main", "nav", "section"]) => "sectionheader",
        "header" => "banner",
        "footer" if scoped(&["article", "aside", "main", "nav", "section"]) => "sectionfooter",
        "footer" => "contentinfo",
        "aside" if !named && scoped(&["article", "aside", "nav", "section"]) => "generic",
        "aside" => "complementary",
        _ => return None,
    })
}

/// Appends the name `id`'s content gives it: its shown text, images by their `alt`, blocks set
/// apart by spaces. `None` where the content holds something these rules do not follow.
fn content_text(tree: &PageTree, id: NodeId, out: &mut String) -> Option<()> {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            NodeKind::Text => {
                if let Some(text) = node.layout_text {
                    out.push_str(text);
                }
            }
            NodeKind::Element => {
                if node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
                    continue;
                }
                if node.has_attr("role") || node.has_attr("aria-labelledby") {
                    return None;
                }
                if let Some(label) = node.attr("aria-label").map(normalise).filter(|l| !l.is_empty()) {
                    out.push(' ');
                    out.push_str(&label);
                    out.push(' ');
                    continue;
                }
                let Some(layout) = node.layout.as_ref() else {
                    // Not laid out: hidden, or `display: contents`.
                    if node.children.is_empty() || node.tag == "br" {
                        continue;
                    }
                    return None;
                };
                if layout.visibility != "visible" && !layout.visibility.is_empty() {
                    return None;
                }
                match node.tag.as_str() {
                    "img" => {
                        // An image is named by its `alt`, else its `title`.
                        out.push(' ');
                        out.push_str(node.attr("alt").or(node.attr("title")).unwrap_or(""));
                        out.push(' ');
                        continue;
                    }
                    "svg" => {
                        out.push(' ');
                        out.push_str(&svg_name(tree, child)?);
                        out.push(' ');
                        continue;
                    }
                    "::before" | "::after" => {
                        // Generated text (`content`), or an image with nothing to say.
                        if !node.children.is_empty() {
                            return None;
                        }
                        let block = !layout.display.starts_with("inline");
                        if block {
                            out.push(' ');
                        }
                        out.push_str(node.layout_text.unwrap_or(""));
                        if block {
                            out.push(' ');
                        }
                        continue;
                    }
                    "br" => {
                        out.push('\n');
                        continue;
                    }
                    "iframe" | "input" | "select" | "textarea" | "video" | "audio" | "canvas" | "object" | "embed"
                    | "math" | "table" | "header" | "footer" | "nav" | "section" | "article" | "figure" | "aside"
                    | "main" | "form" | "fieldset" | "details" | "dialog" | "legend" | "label" => {
                        return None;
                    }
                    // A list marker or a disclosure triangle is not part of a name.
                    "::marker" => continue,
                    t if t.starts_with("::") => return None,
                    _ => {}
                }
                let block = !layout.display.starts_with("inline");
                if block {
                    out.push(' ');
                }
                content_text(tree, child, out)?;
                if block {
                    out.push(' ');
                }
            }
            NodeKind::Document | NodeKind::Other => return None,
        }
    }
    Some(())
}

/// The element children of `id` with one of `tags`.
fn children_tagged<'t>(tree: &'t PageTree, id: NodeId, tags: &'t [&str]) -> impl Iterator<Item = NodeId> + 't {
    tree.nodes[id]
        .children
        .iter()
        .copied()
        .filter(move |&c| tree.nodes[c].kind == NodeKind::Element && tags.contains(&tree.nodes[c].tag.as_str()))
}

/// A table's rows: its own `<tr>`s and those of its row groups.
fn table_rows(tree: &PageTree, table: NodeId) -> Vec<NodeId> {
    let mut rows = Vec::new();
    for child in children_tagged(tree, table, &["tr", "thead", "tbody", "tfoot"]) {
        if tree.nodes[child].tag == "tr" {
            rows.push(child);
        } else {
            rows.extend(children_tagged(tree, child, &["tr"]));
        }
    }
    rows
}

/// Whether the accessibility tree takes `table` for a data table rather than one that only
/// lays the page out, as far as the capture can tell: its markup says so (a caption, header or
/// footer group, columns, header cells or header attributes, 20 rows or more), or its rows are
/// striped in turn. Chrome also counts cells drawn with borders, or set apart from the table by
/// colour and spacing; the capture does not carry borders or spacing, so such a table reads
/// here as a layout one.
fn data_table(tree: &PageTree, table: NodeId) -> bool {
    let node = &tree.nodes[table];
    if node.layout.is_none() {
        return true;
    }
    if node.attr("summary").is_some_and(|v| !v.is_empty())
        || node.attr("rules").is_some_and(|r| !r.is_empty())
        || children_tagged(tree, table, &["caption", "thead", "tfoot", "col", "colgroup"]).next().is_some()
    {
        return true;
    }
    let rows = table_rows(tree, table);
    if rows.len() >= 20 {
        return true;
    }
    let Some(&first) = rows.first() else { return false };
    if rows.len() == 1 && children_tagged(tree, first, &["td", "th"]).count() == 1 {
        return false;
    }
    let mut valid = 0;
    let mut row_colours: Vec<&str> = Vec::new();
    for (r, &row) in rows.iter().enumerate() {
        for cell in children_tagged(tree, row, &["td", "th"]) {
            let c = &tree.nodes[cell];
            if c.tag == "th"
                || ["headers", "abbr", "axis", "scope"].iter().any(|a| c.attr(a).is_some_and(|v| !v.is_empty()))
            {
                return true;
            }
            let Some(cell_layout) = c.layout.as_ref() else { continue };
            if cell_layout.bounds.w < 1.0 || cell_layout.bounds.h < 1.0 {
                continue;
            }
            valid += 1;
            if r < 5
                && r == row_colours.len()
                && let Some(row_layout) = tree.nodes[row].layout.as_ref()
            {
                row_colours.push(&row_layout.background);
            }
        }
    }
    valid > 1
        && row_colours.len() > 2
        && row_colours.iter().enumerate().skip(1).all(|(k, c)| (k % 2 == 0) == (*c == row_colours[0]))
}

/// The role of a table part (`table`, `thead`/`tbody`/`tfoot`, `tr`, `td`, `th`) laid out as
/// one; `None` where the markup around it is not a plain table these rules follow.
fn table_part(tree: &PageTree, id: NodeId) -> Option<&'static str> {
    let node = &tree.nodes[id];
    let parent = |id: NodeId| tree.nodes[id].parent.filter(|&p| tree.nodes[p].kind == NodeKind::Element);
    let plain = |id: NodeId, display: &str| {
        let n = &tree.nodes[id];
        !n.has_attr("role") && n.layout.as_ref().is_some_and(|l| l.display == display)
    };
    let table_of_row = |row: NodeId| {
        let up = parent(row)?;
        let table = if tree.nodes[up].tag == "table" { up } else { parent(up)? };
        (tree.nodes[table].tag == "table" && plain(table, "table")).then_some(table)
    };
    match node.tag.as_str() {
        "table" if plain(id, "table") => Some(if data_table(tree, id) { "table" } else { "LayoutTable" }),
        "thead" | "tbody" | "tfoot" => {
            let table = parent(id).filter(|&t| tree.nodes[t].tag == "table" && plain(t, "table"))?;
            Some(if data_table(tree, table) { "rowgroup" } else { "generic" })
        }
        "tr" if plain(id, "table-row") => {
            Some(if data_table(tree, table_of_row(id)?) { "row" } else { "LayoutTableRow" })
        }
        "td" | "th" if plain(id, "table-cell") => {
            let row = parent(id).filter(|&r| tree.nodes[r].tag == "tr" && plain(r, "table-row"))?;
            if !data_table(tree, table_of_row(row)?) {
                return Some("LayoutTableCell");
            }
            if node.tag == "td" {
                return Some("cell");
            }
            Some(header_role(tree, id, row))
        }
        _ => None,
    }
}

/// Whether a `<th>` heads its column or its row: its `scope`, else what cells stand beside it.
fn header_role(tree: &PageTree, th: NodeId, row: NodeId) -> &'static str {
    match tree.nodes[th].attr("scope").map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("row" | "rowgroup") => return "rowheader",
        Some("col" | "colgroup") => return "columnheader",
        _ => {}
    }
    // Its neighbours are nodes of any kind (whitespace too); the row's ends are elements.
    let siblings = &tree.nodes[row].children;
    let at = siblings.iter().position(|&c| c == th).unwrap_or(0);
    let data = |c: Option<&NodeId>| c.is_some_and(|&c| tree.nodes[c].tag == "td" && !tree.nodes[c].children.is_empty());
    let header = |c: Option<&NodeId>| c.is_some_and(|&c| tree.nodes[c].tag == "th");
    let (before, after) = (at.checked_sub(1).and_then(|i| siblings.get(i)), siblings.get(at + 1));
    if before.is_none() && after.is_none() || header(before) && header(after) {
        return "columnheader";
    }
    if data(before) || data(after) {
        return "rowheader";
    }
    let cells: Vec<NodeId> = siblings.iter().copied().filter(|&c| tree.nodes[c].kind == NodeKind::Element).collect();
    let last = cells.len().saturating_sub(1);
    if data(cells.first())
        || data(cells.get(last))
        || data(cells.get(1))
        || data(last.checked_sub(1).and_then(|i| cells.get(i)))
    {
        return "rowheader";
    }
    "columnheader"
}

/// The name of an inline `<svg>` drawing: its title; `None` where it holds text of its own,
/// which these rules do not follow.
fn svg_name(tree: &PageTree, id: NodeId) -> Option<String> {
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
    let mut text = String::new();
    if let Some(&title) = node.children.iter().find(|&&c| tree.nodes[c].tag == "title") {
        all_text(tree, title, &mut text);
    }
    Some(normalise(&text))
}

/// Every text `id` shows, blocks set apart by spaces (the fallback name of a table cell).
fn shown_text(tree: &PageTree, id: NodeId, out: &mut String) {
    for &child in &tree.nodes[id].children {
        let node = &tree.nodes[child];
        match node.kind {
            NodeKind::Text => out.push_str(node.layout_text.unwrap_or("")),
            NodeKind::Element if node.tag == "img" => {
                out.push(' ');
                out.push_str(node.attr("alt").unwrap_or(""));
                out.push(' ');
            }
            NodeKind::Element if node.layout.is_some() => {
                out.push(' ');
                shown_text(tree, child, out);
                out.push(' ');
            }
            _ => {}
        }
    }
}
