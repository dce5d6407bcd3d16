//! Which role an element has: HTML's implicit roles (by tag, by type for fields, by context for
//! landmarks), explicit ARIA roles, and the name each takes from its own attributes or labels.

use super::Semantics;
use super::names::{content_text, label_text, shown_text, svg_title};
use super::tables::{children_tagged, table_part};
use crate::snapshot::text::normalise;
use crate::snapshot::tree::{NodeId, PageTree};

/// Elements whose role follows from their tag alone and which Chrome gives no name.
pub(super) fn unnamed_role(tag: &str) -> Option<&'static str> {
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
pub(super) fn content_named_role(tag: &str) -> Option<&'static str> {
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

/// ARIA roles these rules follow, as Chrome names them, and whether their content names them.
pub(super) fn aria_role(role: &str) -> Option<(&'static str, bool)> {
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
        // Parts of grids and tables, named by what they show.
        "cell" => ("cell", true),
        "gridcell" => ("gridcell", true),
        "columnheader" => ("columnheader", true),
        "rowheader" => ("rowheader", true),
        "row" => ("row", true),
        "term" => ("term", true),
        "rowgroup" => ("rowgroup", false),
        "table" => ("table", false),
        "grid" => ("grid", false),
        "tree" => ("tree", false),
        "treegrid" => ("treegrid", false),
        // Widgets named only by their labels, with a value of their own.
        "combobox" => ("combobox", false),
        "slider" => ("slider", false),
        "spinbutton" => ("spinbutton", false),
        "progressbar" => ("progressbar", false),
        "scrollbar" => ("scrollbar", false),
        "meter" => ("meter", false),
        "radiogroup" => ("radiogroup", false),
        // Containers and live regions.
        "figure" => ("figure", false),
        "log" => ("log", false),
        "marquee" => ("marquee", false),
        "timer" => ("timer", false),
        "feed" => ("feed", false),
        "definition" => ("definition", false),
        "application" => ("application", false),
        "document" => ("document", false),
        "paragraph" => ("paragraph", false),
        "blockquote" => ("blockquote", false),
        "generic" => ("generic", false),
        _ => return None,
    })
}

/// An element with a `role` attribute: the first role these rules follow, its name from
/// `aria-label`, or from content where the role takes it.
pub(super) fn explicit(tree: &PageTree, id: NodeId, roles: &str) -> Option<Semantics> {
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
        && let Some(title) = svg_title(tree, id)
    {
        return Some(Semantics::new(role, title));
    }
    if !from_content {
        return Some(Semantics::new(role, String::new()));
    }
    // A field inside a menu item: the role the page gave still holds.
    Some(named_by_content_or_shown(tree, id, role, None))
}

/// The role and name HTML gives element `id`, where the rules here know them.
pub(super) fn implicit(tree: &PageTree, id: NodeId) -> Option<Semantics> {
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
        return match (label, svg_title(tree, id), titled) {
            (Some(label), _, _) => Some(Semantics::new("image", label)),
            (None, Some(title), _) => Some(Semantics::new("image", title)),
            (None, None, false) => Some(Semantics::new("image", String::new())),
            _ => None,
        };
    }
    if tag == "input" || tag == "textarea" || tag == "select" {
        return field(tree, id, label);
    }
    if titled && unnamed_role(tag).is_none() && content_named_role(tag).is_none() && tag != "a" {
        return None;
    }
    let labelled = |role: &'static str| Some(Semantics::new(role, label.clone().unwrap_or_default()));
    if matches!(tag, "table" | "thead" | "tbody" | "tfoot" | "tr" | "td" | "th") {
        let role = table_part(tree, id)?;
        return match role {
            "cell" | "columnheader" | "rowheader" | "LayoutTableCell" => {
                // A cell is named by all it shows, nested tables and fields too.
                Some(named_by_content_or_shown(tree, id, role, label.clone()))
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
        // Without an `href`, an anchor is a link only when something listens for its clicks.
        "a" if !node.has_attr("href") && !node.clickable => return labelled("generic"),
        "a" if !node.has_attr("href") => return named_by_content(tree, id, "link", label),
        _ => {}
    }
    named_by_content(tree, id, content_named_role(tag)?, label)
}

/// `role`, named by `aria-label` where there is one, else by the element's content.
pub(super) fn named_by_content(
    tree: &PageTree,
    id: NodeId,
    role: &'static str,
    label: Option<String>,
) -> Option<Semantics> {
    if let Some(label) = label {
        return Some(Semantics::new(role, label));
    }
    let mut text = String::new();
    content_text(tree, id, &mut text)?;
    Some(Semantics::from_content(role, normalise(&text)))
}

/// `role`, named as [`named_by_content`] names it, or by all the element shows where its
/// content holds what these rules cannot name by (a field, a nested table).
pub(super) fn named_by_content_or_shown(
    tree: &PageTree,
    id: NodeId,
    role: &'static str,
    label: Option<String>,
) -> Semantics {
    named_by_content(tree, id, role, label).unwrap_or_else(|| {
        let mut text = String::new();
        shown_text(tree, id, &mut text);
        Semantics::from_content(role, normalise(&text))
    })
}

/// A text field or a button drawn by `<input>`: its role from its type, its name from its
/// label (`aria-label`, a `<label>` pointing at it or around it, `title`, `placeholder`), or for a
/// button its value.
pub(super) fn field(tree: &PageTree, id: NodeId, label: Option<String>) -> Option<Semantics> {
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
        (_, "image") => {
            // A picture that submits: named by its `alt`, else its `value`, else its title.
            let name = [node.attr("alt"), node.attr("value"), node.attr("title")]
                .into_iter()
                .flatten()
                .map(normalise)
                .find(|n| !n.is_empty())
                .unwrap_or_else(|| "Submit".into());
            return Some(Semantics::new("button", label.unwrap_or(name)));
        }
        (_, "checkbox") => "checkbox",
        (_, "radio") => "radio",
        (_, "number") => "spinbutton",
        (_, "range") => "slider",
        (_, "date" | "month" | "week") => "date",
        (_, "datetime-local") => "dateTime",
        (_, "time") => "InputTime",
        (_, "color") => "ColorWell",
        (_, "file") => "button",
        (_, "hidden") => return None,
        // A type HTML does not know (`type="input"`) makes a text field.
        _ => "textbox",
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
        labels.extend(tree.id_index().labels(node.frame, own));
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
        // A label names the field even when it shows nothing: the title and placeholder
        // then name it no more.
        return Some(Semantics::new(role, normalise(&text)));
    }
    let hint = node.attr("title").or(node.attr("placeholder")).map(normalise).unwrap_or_default();
    Some(Semantics::new(role, hint))
}

/// `<header>`, `<footer>` and `<aside>`, whose role depends on whether sectioning content holds
/// them.
pub(super) fn landmark_in_context(tree: &PageTree, id: NodeId, named: bool) -> Option<&'static str> {
    let tag = tree.nodes[id].tag.as_str();
    let frame = tree.nodes[id].frame;
    // Sectioning content by its tag, or an element given the matching role.
    let scoped = |sections: &[&str]| {
        tree.ancestors(id).take_while(|&a| tree.nodes[a].frame == frame).any(|a| {
            let node = &tree.nodes[a];
            let by_role = match node.attr("role").and_then(|r| r.split_whitespace().next()) {
                Some("article") => "article",
                Some("complementary") => "aside",
                Some("main") => "main",
                Some("navigation") => "nav",
                Some("region") => "section",
                _ => "",
            };
            sections.contains(&node.tag.as_str()) || sections.contains(&by_role)
        })
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
