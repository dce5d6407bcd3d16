//! The facts of one actionable element, as an agent reads them.
//!
//! * Role, accessible name, value and short state flags (`checked`, `disabled`, `expanded`…).
//! * Names for what has none: an element without an accessible name takes one from its `title`,
//!   its description (`aria-describedby`), an icon's alternative text, or its own text, in
//!   that order; one with none at all says so (`(no name)`, written by the render stage). The
//!   text of an actionable element is never dropped as a separator: a stepper's `-` and `+`, a
//!   close button's `×` stay what the control says.
//! * A visible `<label>` standing for the hidden native checkbox, radio or switch it labels
//!   ([`label_facts`]) is shown as that control, with its state; clicking the label toggles it.
//! * Attribute pruning — only attributes that help an agent survive (`placeholder`,
//!   `type`, `title`, `id`, `data-testid`, the description); classes, styles, `data-*` and
//!   handlers never do.
//! * Short names — `placeholder` is written `hint`, `data-testid` `testid`,
//!   `aria-describedby` text `desc`.
//! * Attribute deduplication — the tag is kept only when the role does not imply it, an
//!   attribute equal to the name (or to an attribute already kept) is dropped, and an element's
//!   own text is repeated only where the name does not already say it.
//! * Compound controls — selects (option count, first options, a format hint), ranges,
//!   numbers, date and time formats, file inputs.
//! * The values of secret fields (passwords, one-time codes, PINs, payment and bank data, as
//!   judged by [`super::secrets`]) are replaced by a fixed mask; they never leave the browser.

use super::escape::{MAX_NAME_BYTES, MAX_VALUE_BYTES, cap};
pub use super::secrets::MASK;
use super::secrets::is_secret;
use super::text::{normalise, words, words_covered};
use super::tree::{NodeId, NodeKind, PageTree};

/// Number of options a select shows before summarising.
pub const OPTIONS_SHOWN_IN_FULL: usize = 6;
/// Number of first options shown when summarising.
pub const FIRST_OPTIONS: usize = 4;

/// Everything the agent is told about one actionable element.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementFacts {
    /// Role as shown (`button`, `textbox`, `combobox`, `date`, `clickable`…).
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value (masked for secrets).
    pub value: Option<String>,
    /// Short state flags, in a fixed order.
    pub states: Vec<&'static str>,
    /// Pruned attributes under their short names.
    pub attrs: Vec<(&'static str, String)>,
    /// The tag, only when the role does not imply it.
    pub tag: Option<String>,
    /// Compound controls: a compact description of the control's parts.
    pub compound: Option<String>,
    /// Visible text inside the element that its name does not already carry.
    pub text: Option<String>,
}

/// Builds the facts of actionable element `id`; `inner_text` is its visible text, `icon` the
/// alternative text of the first image inside it, if any.
pub fn facts(tree: &PageTree, id: NodeId, inner_text: &str, icon: Option<&str>) -> ElementFacts {
    let node = &tree.nodes[id];
    let ax_role = node.ax.role();
    let input_type = node.attr("type").unwrap_or("").to_ascii_lowercase();
    let editing_host = super::actionable::is_editing_host(tree, id);
    let role = shown_role(node, &input_type, &ax_role, editing_host);
    let text_field = matches!(role.as_str(), "textbox" | "searchbox" | "combobox" | "listbox");
    let own_text = normalise(inner_text);
    // Names for what has none: its title, its description, an icon's alternative text, its
    // own text (not a field's: that is its value).
    let description = node.ax.description().map(|d| normalise(&d));
    let name = [
        Some(normalise(&node.ax.name())),
        node.attr("title").map(normalise),
        description,
        icon.map(normalise),
        (!text_field).then(|| own_text.clone()),
    ]
    .into_iter()
    .flatten()
    .find(|n| !n.is_empty())
    .unwrap_or_default();
    // A name taken from the content with its parts run together ("Mobile PaymentAnzeige", as
    // the browser joins blocks) reads as the text shows it.
    let name = if !text_field && text_parts_words_of(&name, &own_text) { own_text.clone() } else { name };
    let secret = is_secret(tree, id);
    let mut value = current_value(tree, id, &role, editing_host.then_some(inner_text))
        .map(|v| if secret && !v.is_empty() { MASK.to_owned() } else { v });
    if value.as_deref() == Some("") {
        value = None;
    }
    // Deduplication: a button whose value is its name (`<input type=submit value=Send>`).
    if value.as_deref() == Some(name.as_str()) && !matches!(role.as_str(), "textbox" | "searchbox" | "combobox") {
        value = None;
    }
    let states = states(tree, id);
    let attrs = pruned_attrs(tree, id, &name, &role, &input_type);
    let tag = implied_tag_differs(&node.tag, &role).then(|| node.tag.clone());
    let compound = compound(tree, id, &role, &input_type);
    // A widget showing its own value (a slider's "3") says nothing more.
    let shows_value = value.as_deref().is_some_and(|v| normalise(v) == own_text);
    let text = (!text_field && !shows_value && !says_all_of(&name, &own_text)).then_some(own_text);
    // Bounded: a giant name, value or text is cut with a marker saying how much.
    let name = cap(&name, MAX_NAME_BYTES).into_owned();
    let value = value.map(|v| cap(&v, MAX_VALUE_BYTES).into_owned());
    let text = text.map(|t| cap(&t, MAX_NAME_BYTES).into_owned());
    let compound = compound.map(|c| cap(&c, MAX_NAME_BYTES).into_owned());
    let attrs = attrs.into_iter().map(|(k, v)| (k, cap(&v, MAX_NAME_BYTES).into_owned())).collect();
    ElementFacts { role, name, value, states, attrs, tag, compound, text }
}

/// A visible `<label>` standing for the hidden native checkbox, radio or switch `control` it
/// labels: the control's role, name and states, under the label (whose click toggles it).
pub fn label_facts(tree: &PageTree, label: NodeId, control: NodeId, inner_text: &str) -> ElementFacts {
    // A hidden control often has no accessibility node: its name then comes from the label's
    // text, through the fallbacks.
    let mut facts = facts(tree, control, inner_text, None);
    facts.attrs.retain(|(k, _)| *k != "id");
    facts.tag = Some(tree.nodes[label].tag.clone());
    facts
}

/// Whether `text` is `name` with more words apart: the same letters, spaced differently, and
/// words the name runs together stand apart in the text ("PaymentAnzeige", "Payment Anzeige").
fn text_parts_words_of(name: &str, text: &str) -> bool {
    let letters = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    letters(name) == letters(text) && words(text).count() > words(name).count()
}

/// Whether `name` already says everything `text` says: every word of it, or for text without
/// words (`+`, `×`, `☰`), the text itself.
pub fn says_all_of(name: &str, text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    if words(text).next().is_none() {
        return name.contains(text);
    }
    words_covered(text, name)
}

/// The role an agent reads: the accessible role, refined for inputs whose role says too little
/// (or that have none, being hidden from the accessibility tree) and for editable areas.
fn shown_role(node: &crate::snapshot::tree::Node, input_type: &str, ax_role: &str, editing_host: bool) -> String {
    let tag = node.tag.as_str();
    if tag == "input" {
        if node.attr("role").is_some_and(|r| r.trim().eq_ignore_ascii_case("switch")) {
            return "switch".into();
        }
        match input_type {
            "checkbox" if ax_role.is_empty() || ax_role == "none" || ax_role == "generic" => return "checkbox".into(),
            "radio" if ax_role.is_empty() || ax_role == "none" || ax_role == "generic" => return "radio".into(),
            "date" => return "date".into(),
            "time" => return "time".into(),
            "datetime-local" => return "datetime".into(),
            "month" => return "month".into(),
            "week" => return "week".into(),
            "color" => return "color".into(),
            "file" => return "file".into(),
            "range" => return "slider".into(),
            "number" => return "spinbutton".into(),
            _ => {}
        }
    }
    match ax_role {
        "" | "generic" | "none" | "presentation" | "StaticText" | "paragraph" | "image" | "img" | "listitem"
        | "cell" | "LayoutTableCell" | "Section" | "group" => match tag {
            "a" => "link".into(),
            "button" => "button".into(),
            "select" => "combobox".into(),
            "textarea" => "textbox".into(),
            "summary" => "disclosure".into(),
            // An editable area is typed into like a text field (Chrome calls it generic).
            _ if editing_host => "textbox".into(),
            // What can be picked up says so: it is what `browser_drag` starts from.
            _ if super::actionable::draggable(node) => "draggable".into(),
            _ => "clickable".into(),
        },
        "DisclosureTriangle" => "disclosure".into(),
        "PopUpButton" => "combobox".into(),
        "textField" => "textbox".into(),
        other => other.into(),
    }
}

/// Deduplication: whether the tag says something the role does not.
fn implied_tag_differs(tag: &str, role: &str) -> bool {
    let implied: &[&str] = match role {
        "button" => &["button", "input"],
        "link" => &["a", "area"],
        "textbox" | "searchbox" => &["input", "textarea"],
        "checkbox" | "radio" | "slider" | "spinbutton" | "date" | "time" | "datetime" | "month" | "week" | "color"
        | "file" => &["input"],
        "combobox" | "listbox" => &["select", "input"],
        "disclosure" => &["summary"],
        _ => &[],
    };
    !implied.contains(&tag)
}

/// `editable_text` is the text of an editable area (`None` for any other element).
fn current_value(tree: &PageTree, id: NodeId, role: &str, editable_text: Option<&str>) -> Option<String> {
    let node = &tree.nodes[id];
    match node.tag.as_str() {
        "select" => {
            let selected: Vec<String> = options(tree, id).into_iter().filter(|o| o.selected).map(|o| o.text).collect();
            (!selected.is_empty()).then(|| selected.join(", "))
        }
        "input" | "textarea" => match node.attr("type").unwrap_or("").to_ascii_lowercase().as_str() {
            "checkbox" | "radio" | "button" | "submit" | "reset" | "image" => None,
            "file" => {
                node.input_value.filter(|v| !v.is_empty()).map(|v| v.rsplit(['\\', '/']).next().unwrap_or(v).to_owned())
            }
            _ => node.input_value.map(str::to_owned),
        },
        // An editable area's value is the text it shows, line by line (Chrome's tree has it on
        // one line; roles derived from the DOM carry no value).
        _ if matches!(role, "combobox" | "textbox" | "searchbox") && editable_text.is_some() => {
            editable_text.map(str::to_owned)
        }
        _ if matches!(role, "slider" | "spinbutton" | "combobox" | "textbox" | "searchbox") => {
            node.ax.value().filter(|v| !v.is_empty()).map(|v| normalise(&v))
        }
        _ => None,
    }
}

fn states(tree: &PageTree, id: NodeId) -> Vec<&'static str> {
    let node = &tree.nodes[id];
    let prop = |name: &str| node.ax.property(name);
    let mut out = Vec::new();
    match prop("checked").as_deref() {
        Some("true") => out.push("checked"),
        Some("mixed") => out.push("mixed"),
        _ if node.checked => out.push("checked"),
        _ => {}
    }
    if prop("pressed").as_deref() == Some("true") {
        out.push("pressed");
    }
    if prop("selected").as_deref() == Some("true") {
        out.push("selected");
    }
    // A closed select is always collapsed; saying so would be noise.
    let select_like = node.tag == "select" || matches!(node.ax.role().as_str(), "combobox" | "listbox");
    match prop("expanded").as_deref() {
        Some("true") => out.push("expanded"),
        Some("false") if !select_like => out.push("collapsed"),
        _ => {}
    }
    if prop("disabled").as_deref() == Some("true") || node.has_attr("disabled") {
        out.push("disabled");
    }
    if prop("readonly").as_deref() == Some("true") {
        out.push("readonly");
    }
    if prop("required").as_deref() == Some("true") || node.has_attr("required") {
        out.push("required");
    }
    if prop("invalid").is_some_and(|v| v != "false") {
        out.push("invalid");
    }
    out
}

/// Attribute pruning and short names: the attributes worth an agent's tokens, under short
/// names, without repeating the name or each other.
fn pruned_attrs(tree: &PageTree, id: NodeId, name: &str, role: &str, input_type: &str) -> Vec<(&'static str, String)> {
    let node = &tree.nodes[id];
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let mut push = |key: &'static str, value: &str| {
        let value = normalise(value);
        if value.is_empty() || value == name || out.iter().any(|(_, v)| *v == value) {
            return;
        }
        out.push((key, value));
    };
    if matches!(role, "textbox" | "searchbox") && matches!(input_type, "email" | "tel" | "url" | "password" | "number")
    {
        push("type", input_type);
    }
    if let Some(p) = node.attr("placeholder") {
        push("hint", p);
    }
    if let Some(d) = node.ax.description() {
        push("desc", &d);
    }
    if let Some(t) = node.attr("title") {
        push("title", t);
    }
    if let Some(t) = node.attr("data-testid").or_else(|| node.attr("data-test-id")) {
        push("testid", t);
    }
    // An element with no name is identified by its id.
    if name.is_empty()
        && let Some(i) = node.attr("id")
    {
        push("id", i);
    }
    out
}

/// One option of a select.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectOption {
    /// Visible text.
    pub text: String,
    /// Submitted value.
    pub value: String,
    /// Currently selected.
    pub selected: bool,
}

/// The options of a `<select>` (through `<optgroup>`s).
pub fn options(tree: &PageTree, select: NodeId) -> Vec<SelectOption> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = tree.nodes[select].children.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        let node = &tree.nodes[id];
        match node.tag.as_str() {
            "option" => {
                let text: String = node
                    .children
                    .iter()
                    .filter(|&&c| tree.nodes[c].kind == NodeKind::Text)
                    .map(|&c| tree.nodes[c].text)
                    .collect();
                let text = normalise(node.attr("label").unwrap_or(&text));
                let value = node.attr("value").map(str::to_owned).unwrap_or_else(|| text.clone());
                out.push(SelectOption { text, value, selected: node.option_selected });
            }
            "optgroup" => stack.extend(node.children.iter().rev().copied()),
            _ => {}
        }
    }
    out
}

/// Compound controls: what the agent needs to know about the parts of a control.
fn compound(tree: &PageTree, id: NodeId, role: &str, input_type: &str) -> Option<String> {
    let node = &tree.nodes[id];
    if node.tag == "select" {
        let opts = options(tree, id);
        if opts.is_empty() {
            return Some("[no options]".into());
        }
        let texts: Vec<&str> = opts.iter().map(|o| o.text.as_str()).collect();
        if opts.len() <= OPTIONS_SHOWN_IN_FULL {
            return Some(format!("[{}]", texts.join("|")));
        }
        let hint = format_hint(&opts).map(|h| format!(", {h}")).unwrap_or_default();
        return Some(format!("[{}|… {} options{hint}]", texts[..FIRST_OPTIONS].join("|"), opts.len()));
    }
    if let Some(suggested) = suggestions(tree, id) {
        return Some(suggested);
    }
    // A list item or box that opens a menu on hover: what it hides until then.
    if let Some((links, others)) = (role == "clickable" && super::hover_menus::menu_host(node))
        .then(|| super::hover_menus::hidden_menu(tree, id, &[]))
        .flatten()
    {
        let count = |n: usize, one: &str, many: &str| format!("{n} hidden {}", if n == 1 { one } else { many });
        return Some(match (links, others) {
            (links, 0) => format!("({})", count(links, "link", "links")),
            (0, others) => format!("({})", count(others, "control", "controls")),
            (links, others) => format!("({}, {})", count(links, "link", "links"), count(others, "control", "controls")),
        });
    }
    // A native field's bound, or an ARIA widget's (`aria-valuemin` for `min`).
    let bound = |name: &str| {
        let attr = |name: &str| node.attr(name).map(str::trim).filter(|v| !v.is_empty());
        attr(name).or_else(|| attr(&format!("aria-value{name}")))
    };
    match (role, input_type) {
        ("slider", _) => {
            let (min, max) = (bound("min").unwrap_or("0"), bound("max").unwrap_or("100"));
            let step = bound("step").filter(|s| *s != "1").map(|s| format!(" step {s}")).unwrap_or_default();
            Some(format!("({min}–{max}{step})"))
        }
        ("spinbutton", _) => match (bound("min"), bound("max")) {
            (Some(min), Some(max)) => Some(format!("({min}–{max})")),
            (Some(min), None) => Some(format!("(≥ {min})")),
            (None, Some(max)) => Some(format!("(≤ {max})")),
            _ => None,
        },
        // The format `browser_type` sets the value in.
        ("date" | "time" | "datetime" | "month" | "week" | "color", _) => {
            crate::actions::whole_values::format(input_type).map(|f| format!("({f})"))
        }
        ("file", _) => {
            let mut parts = Vec::new();
            if let Some(accept) = bound("accept") {
                parts.push(format!("accepts {accept}"));
            }
            if node.has_attr("multiple") {
                parts.push("multiple".into());
            }
            (!parts.is_empty()).then(|| format!("({})", parts.join(", ")))
        }
        _ => None,
    }
}

/// What a text field suggests (`<input list=…>` naming a `<datalist>`): the values its options
/// fill in, as `(suggests Chrome|Firefox|Safari)`, the first few and a count when there are
/// many. The browser draws them only as a person types, so without them an agent would guess
/// at what the page expects.
fn suggestions(tree: &PageTree, id: NodeId) -> Option<String> {
    let node = &tree.nodes[id];
    let textual = ["text", "search", "email", "url", "tel", "number", ""];
    if node.tag != "input" || !textual.contains(&node.attr("type").unwrap_or("").trim().to_ascii_lowercase().as_str()) {
        return None;
    }
    let list = tree.id_index().element(node.frame, node.attr("list")?.trim())?;
    if tree.nodes[list].tag != "datalist" {
        return None;
    }
    let mut values: Vec<String> = Vec::new();
    for option in options(tree, list) {
        if !option.value.trim().is_empty() && !values.contains(&option.value) {
            values.push(option.value);
        }
    }
    match values.len() {
        0 => None,
        n if n <= OPTIONS_SHOWN_IN_FULL => Some(format!("(suggests {})", values.join("|"))),
        n => Some(format!("(suggests {}|… {n} values)", values[..FIRST_OPTIONS].join("|"))),
    }
}

/// Compound controls: a hint about what the values of a long select look like.
pub fn format_hint(options: &[SelectOption]) -> Option<&'static str> {
    let values: Vec<&str> = options.iter().filter(|o| !o.value.is_empty()).take(8).map(|o| o.value.as_str()).collect();
    if values.len() < 2 {
        return None;
    }
    if values.iter().all(|v| v.chars().all(|c| c.is_ascii_digit())) {
        return Some("numeric");
    }
    if values.iter().all(|v| v.len() == 2 && v.chars().all(|c| c.is_ascii_uppercase())) {
        return Some("country/state codes");
    }
    if values.iter().all(|v| {
        v.len() >= 8
            && v.chars().filter(|c| *c == '-' || *c == '/').count() >= 2
            && v.chars().any(|c| c.is_ascii_digit())
    }) {
        return Some("dates");
    }
    if values.iter().any(|v| v.contains('@')) {
        return Some("email addresses");
    }
    None
}
