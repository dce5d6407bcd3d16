//! Reading each server's reply into a [`Page`], the way an agent reads it:
//!
//! * Sightline: the `structuredContent` of a snapshot (`elements` with ref, role, name, value;
//!   `states` bucketed by state) beside its text lines (`e12 checkbox "Subscribe"`, text lines,
//!   inline `[e12 text]` links); for a delta, the `lines` it added or changed, each carrying
//!   its elements.
//! * Playwright MCP: the YAML accessibility snapshot in a reply (`- button "Submit" [ref=e5]`).
//! * chrome-devtools-mcp: its snapshot lines (`uid=3_12 link "Home" url="…"`).
//!
//! Nothing here adds to what a reply says; a reply without a snapshot reads as an empty page.

use std::collections::HashMap;

use serde_json::Value;

use super::page::{Node, Page};
use crate::client::Reply;
use crate::grammar::unescape;

// ---------------------------------------------------------------------------------------------
// Sightline

/// What a Sightline reply showed: a full page (snapshot, or an action answered with the whole
/// page), or the lines a delta added or changed, and the refs it said are gone.
#[derive(Debug, Clone, Default)]
pub struct SightlineShown {
    /// The nodes shown.
    pub page: Page,
    /// Whether this was the whole page.
    pub full: bool,
    /// Refs the reply said no longer resolve.
    pub gone: Vec<String>,
}

/// Reads a Sightline reply (snapshot or action).
pub fn sightline(reply: &Reply) -> SightlineShown {
    let Some(facts) = &reply.structured else { return SightlineShown::default() };
    match facts["kind"].as_str() {
        Some("full") => SightlineShown { page: sightline_full(&reply.text, facts), full: true, gone: Vec::new() },
        Some(_) => {
            let mut nodes = Vec::new();
            let lines = &facts["lines"];
            for changed in lines["changed"].as_array().into_iter().flatten() {
                let elements = element_table(changed["elements"].as_array().into_iter().flatten());
                nodes.extend(sightline_line(changed["after"].as_str().unwrap_or(""), &elements));
            }
            for added in lines["added"].as_array().into_iter().flatten() {
                let elements = element_table(added["line"]["elements"].as_array().into_iter().flatten());
                nodes.extend(sightline_line(added["line"]["text"].as_str().unwrap_or(""), &elements));
            }
            let gone = facts["gone"].as_array().into_iter().flatten().filter_map(|g| g.as_str().map(str::to_owned));
            SightlineShown { page: Page { nodes }, full: false, gone: gone.collect() }
        }
        None => SightlineShown::default(),
    }
}

/// The agent's copy of a Sightline page, kept current from deltas alone, as `docs/changes.md`
/// says a program can: full pages replace it; a delta's removed, changed and added lines (with the
/// elements they carry) are applied to it. Lines of a full page have no keys the client can
/// see except element lines (`e12`), so other lines are found by their text; a change that
/// cannot be placed makes the copy uncertain, and the agent then asks for a snapshot.
#[derive(Debug, Clone, Default)]
pub struct SightlineView {
    lines: Vec<ViewLine>,
}

#[derive(Debug, Clone)]
struct ViewLine {
    /// The line's key when known (`e12` for an element's line, or the key a delta gave).
    key: Option<String>,
    /// The line's text, trimmed.
    text: String,
    nodes: Vec<Node>,
}

impl SightlineView {
    /// The view of a full page (`kind: full`).
    pub fn full(reply: &Reply) -> Option<SightlineView> {
        let facts = reply.structured.as_ref().filter(|f| f["kind"] == "full")?;
        let elements = full_elements(facts);
        let lines = body_lines(&reply.text)
            .map(|line| ViewLine {
                key: leading_ref(line.trim_start()).map(|(r, _)| r.to_owned()),
                text: line.trim().to_owned(),
                nodes: sightline_line(line, &elements),
            })
            .collect();
        Some(SightlineView { lines })
    }

    /// Applies a delta's (or an overlay's) line changes; `false` when one could not be placed.
    pub fn apply(&mut self, facts: &Value) -> bool {
        let Some(lines) = facts.get("lines").filter(|l| !l.is_null()) else {
            // `no_change` (or an outcome without lines): nothing to apply.
            return facts["kind"] == "no_change";
        };
        let mut placed = true;
        for removed in lines["removed"].as_array().into_iter().flatten() {
            match self.position(removed["id"].as_str(), removed["text"].as_str()) {
                Some(i) => {
                    self.lines.remove(i);
                }
                None => placed = false,
            }
        }
        for changed in lines["changed"].as_array().into_iter().flatten() {
            let after = changed["after"].as_str().unwrap_or("");
            let elements = element_table(changed["elements"].as_array().into_iter().flatten());
            match self.position(changed["id"].as_str(), changed["before"].as_str()) {
                Some(i) => {
                    self.lines[i] = ViewLine {
                        key: changed["id"].as_str().map(str::to_owned),
                        text: after.trim().to_owned(),
                        nodes: sightline_line(after, &elements),
                    };
                }
                None => placed = false,
            }
        }
        for added in lines["added"].as_array().into_iter().flatten() {
            let line = &added["line"];
            let text = line["text"].as_str().unwrap_or("");
            let elements = element_table(line["elements"].as_array().into_iter().flatten());
            let at = match added["after"].as_str() {
                None => Some(0),
                Some(key) => self.lines.iter().position(|l| l.key.as_deref() == Some(key)).map(|i| i + 1),
            };
            let new = ViewLine {
                key: line["id"].as_str().map(str::to_owned),
                text: text.trim().to_owned(),
                nodes: sightline_line(text, &elements),
            };
            match at {
                Some(i) => self.lines.insert(i, new),
                None => {
                    placed = false;
                    self.lines.push(new);
                }
            }
        }
        placed
    }

    /// The page this view shows.
    pub fn page(&self) -> Page {
        Page { nodes: self.lines.iter().flat_map(|l| l.nodes.iter().cloned()).collect() }
    }

    /// The line with key `id`, or else the first unkeyed line reading `text`.
    fn position(&self, id: Option<&str>, text: Option<&str>) -> Option<usize> {
        if let Some(i) = id.and_then(|id| self.lines.iter().position(|l| l.key.as_deref() == Some(id))) {
            return Some(i);
        }
        let text = text?.trim();
        self.lines.iter().position(|l| l.text == text && (l.key.is_none() || l.key.as_deref() == id))
    }
}

/// The lines after a full page's header: title, then the URL and version line; or, for the
/// page an action was on, the version line alone (`v5 · full page: …`).
fn body_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut lines = text.lines();
    let header = text.lines().position(crate::grammar::ends_page_header).map_or(0, |i| i + 1);
    for _ in 0..header {
        lines.next();
    }
    lines
}

/// Elements by ref of a full page's facts, with the states bucketed beside them.
fn full_elements(facts: &Value) -> HashMap<String, Node> {
    let mut elements = element_table(facts["elements"].as_array().into_iter().flatten());
    for (state, refs) in facts["states"].as_object().into_iter().flatten() {
        for r in refs.as_array().into_iter().flatten().filter_map(Value::as_str) {
            if let Some(node) = elements.get_mut(r)
                && !node.has(state)
            {
                node.states.push(state.clone());
            }
        }
    }
    elements
}

/// A full page: the lines after the header (title, then the URL and version line).
fn sightline_full(text: &str, facts: &Value) -> Page {
    let elements = full_elements(facts);
    Page { nodes: body_lines(text).flat_map(|line| sightline_line(line, &elements)).collect() }
}

/// Elements by ref, from structured facts.
fn element_table<'a>(elements: impl Iterator<Item = &'a Value>) -> HashMap<String, Node> {
    elements
        .filter_map(|e| {
            let reference = e["ref"].as_str()?.to_owned();
            let node = Node {
                depth: 0,
                role: e["role"].as_str().unwrap_or("").to_lowercase(),
                name: e["name"].as_str().unwrap_or("").to_owned(),
                reference: Some(reference.clone()),
                value: e["value"].as_str().map(str::to_owned),
                states: e["states"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect(),
                options: Vec::new(),
            };
            Some((reference, node))
        })
        .collect()
}

/// The nodes one line of Sightline's text shows.
fn sightline_line(line: &str, elements: &HashMap<String, Node>) -> Vec<Node> {
    let trimmed = line.trim_start();
    let depth = (line.len() - trimmed.len()) / 2;
    let trimmed = trimmed.trim_end();
    if trimmed.is_empty() || trimmed.starts_with("</") || trimmed.starts_with("! ") {
        return Vec::new();
    }
    // Page text never starts a line with `<` unmarked: such a line is a region's tag.
    if let Some(region) = trimmed.strip_prefix('<') {
        // A region is a node only when it can be acted on (it carries a ref).
        return attribute(region, "ref")
            .and_then(|r| elements.get(&r))
            .map(|n| vec![Node { depth, ..n.clone() }])
            .unwrap_or_default();
    }
    if let Some((reference, rest)) = leading_ref(trimmed) {
        let mut node = elements.get(reference).cloned().unwrap_or_else(|| Node {
            role: rest.split([' ', ':']).next().unwrap_or("").to_lowercase(),
            reference: Some(reference.to_owned()),
            ..Node::default()
        });
        node.depth = depth;
        // A nameless element that shows text writes it after a colon: `e1 clickable: justo.`
        if node.name.is_empty()
            && let Some((_, text)) = split_unquoted(rest, ": ")
        {
            node.name = unescape(text);
        }
        if let Some(id) = attribute(rest, "id") {
            node.states.push(format!("id={id}"));
        }
        if let Some(options) = bracketed_options(rest) {
            node.options = options;
        }
        return vec![node];
    }
    // A text line, possibly with inline links `[e12 text]`; headings and list bullets lose
    // their markers.
    if trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
        return Vec::new(); // a table's header rule
    }
    // A table row `| a | b |` reads as one text node per cell, as on the other servers.
    if let Some(row) = trimmed.strip_prefix("| ").and_then(|r| r.strip_suffix(" |")) {
        return row
            .split(" | ")
            .flat_map(|cell| sightline_line(&format!("{}{cell}", "  ".repeat(depth)), elements))
            .collect();
    }
    // A heading `## Title` is a heading node, as on the other servers.
    if let Some(title) = trimmed.strip_prefix('#').map(|t| t.trim_start_matches('#'))
        && title.starts_with(' ')
    {
        return vec![Node { depth, role: "heading".into(), name: unescape(title.trim()), ..Node::default() }];
    }
    let text = trimmed.strip_prefix("- ").unwrap_or(trimmed);
    let (plain, links) = inline_links(text);
    // Page text is read as the page has it: `\k9` is the page's `k9`, not a ref.
    let mut nodes = vec![Node::text(depth, &unescape(&plain))];
    for (label, reference) in links {
        let mut node = elements.get(&reference).cloned().unwrap_or_else(|| Node {
            role: "link".into(),
            reference: Some(reference.clone()),
            ..Node::default()
        });
        if node.name.is_empty() {
            node.name = unescape(&label);
        }
        node.depth = depth + 1;
        nodes.push(node);
    }
    nodes
}

/// `e12` and the rest, when `line` starts with a ref.
fn leading_ref(line: &str) -> Option<(&str, &str)> {
    let end = sightline_core::refs::leading_ref_len(line)?;
    let rest = &line[end..];
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((&line[..end], rest.trim_start()))
}

/// `name="value"` inside `text`.
fn attribute(text: &str, name: &str) -> Option<String> {
    let start = text.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = text[start..].find('"')?;
    Some(text[start..start + end].to_owned())
}

/// Splits `text` at the first `sep` outside double quotes.
fn split_unquoted<'a>(text: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            _ if !quoted && text[i..].starts_with(sep) => return Some((&text[..i], &text[i + sep.len()..])),
            _ => {}
        }
    }
    None
}

/// The options of `[a|b|c|… 9 options]`.
fn bracketed_options(text: &str) -> Option<Vec<String>> {
    let (_, rest) = split_unquoted(text, "[")?;
    let inner = &rest[..rest.find(']')?];
    Some(inner.split('|').filter(|o| !o.starts_with('…')).map(str::to_owned).collect())
}

/// `text` with `[e12 label]` links replaced by their labels, and the links.
fn inline_links(text: &str) -> (String, Vec<(String, String)>) {
    let mut plain = String::new();
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let found = leading_ref(after.split(']').next().unwrap_or_default()).and_then(|(reference, _)| {
            let label_start = (reference.len() + 1).min(after.len());
            // The link's text ends at its first `]` that is not escaped.
            let close = after
                .char_indices()
                .skip(reference.len())
                .find_map(|(i, c)| (c == ']' && !after[..i].ends_with('\\')).then_some(i))?;
            Some((reference, label_start.min(close), close))
        });
        match found {
            Some((reference, label_start, close)) => {
                plain.push_str(&rest[..open]);
                plain.push_str(&after[label_start..close]);
                links.push((after[label_start..close].to_owned(), reference.to_owned()));
                rest = &after[close + 1..];
            }
            None => {
                plain.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    plain.push_str(rest);
    (plain, links)
}

// ---------------------------------------------------------------------------------------------
// Playwright MCP

/// Reads the YAML snapshot in a Playwright MCP reply (empty when the reply has none).
pub fn playwright(text: &str) -> Page {
    let Some(start) = text.find("```yaml") else { return Page::default() };
    let body = &text[start + 7..];
    let body = &body[..body.find("```").unwrap_or(body.len())];
    let mut nodes = Vec::new();
    for line in body.lines() {
        let trimmed = line.trim_start();
        let Some(item) = trimmed.strip_prefix("- ") else { continue };
        let depth = (line.len() - trimmed.len()) / 2;
        if item.starts_with('/') {
            continue; // a property such as `/url: …`
        }
        let (key, value) = yaml_item(item);
        if key == "text" {
            if let Some(v) = value {
                nodes.push(Node::text(depth, &v));
            }
            continue;
        }
        let mut node = playwright_key(&key);
        node.depth = depth;
        match value {
            Some(v) if is_field(&node.role) => node.value = Some(v),
            Some(v) => {
                // Text inside an element: a nameless element (a `generic` with a click
                // handler) reads as that text, as on the other servers.
                if node.name.is_empty() && node.reference.is_some() {
                    node.name = v.clone();
                }
                nodes.push(node);
                nodes.push(Node::text(depth + 1, &v));
                continue;
            }
            None => {}
        }
        if node.role == "option"
            && let Some(select) = nodes.iter_mut().rev().find(|n| n.depth < depth)
        {
            select.options.push(node.name.clone());
            if node.has("selected") && select.value.is_none() {
                select.value = Some(node.name.clone());
            }
        }
        nodes.push(node);
    }
    Page { nodes }
}

/// Roles whose inline YAML value is the element's value rather than text inside it.
fn is_field(role: &str) -> bool {
    matches!(role, "textbox" | "searchbox" | "combobox" | "spinbutton" | "slider")
}

/// Splits a YAML list item into its key (unquoted) and its value (unquoted), if any.
fn yaml_item(item: &str) -> (String, Option<String>) {
    let (key, rest) = if let Some(quoted) = item.strip_prefix('\'') {
        // A single-quoted key: '' is a quote.
        let mut key = String::new();
        let mut chars = quoted.char_indices().peekable();
        let mut end = quoted.len();
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                if chars.peek().map(|&(_, n)| n) == Some('\'') {
                    key.push('\'');
                    chars.next();
                    continue;
                }
                end = i + 1;
                break;
            }
            key.push(c);
        }
        (key, &quoted[end..])
    } else {
        match split_unquoted(item, ": ") {
            Some((k, v)) => (k.to_owned(), v),
            None => (item.trim_end_matches(':').to_owned(), ""),
        }
    };
    let rest = rest.trim_start_matches(':').trim();
    let value = if rest.is_empty() { None } else { Some(yaml_scalar(rest)) };
    (key, value)
}

/// A YAML scalar: double-quoted (JSON escapes), single-quoted, or plain.
fn yaml_scalar(s: &str) -> String {
    if s.starts_with('"') {
        return serde_json::from_str::<String>(s).unwrap_or_else(|_| s.trim_matches('"').to_owned());
    }
    if let Some(inner) = s.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    s.to_owned()
}

/// `role "name" [attr] [ref=e5]` → a node.
fn playwright_key(key: &str) -> Node {
    let role_end = key.find([' ', '[']).unwrap_or(key.len());
    let mut node = Node { role: key[..role_end].to_lowercase(), ..Node::default() };
    let mut rest = key[role_end..].trim_start();
    if rest.starts_with('"') {
        let (name, after) = quoted_prefix(rest);
        node.name = name;
        rest = after.trim_start();
    }
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else { break };
        let attr = &rest[open + 1..open + close];
        match attr.split_once('=') {
            Some(("ref", r)) => node.reference = Some(r.to_owned()),
            Some(("cursor", _)) => {}
            Some(("checked", "true")) => node.states.push("checked".into()),
            Some((k, v)) => node.states.push(format!("{k}={v}")),
            None if attr == "active" => node.states.push("focused".into()),
            None => node.states.push(attr.to_owned()),
        }
        rest = &rest[open + close + 1..];
    }
    node
}

/// The JSON-style quoted string at the start of `s`, and what follows it.
fn quoted_prefix(s: &str) -> (String, &str) {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            let name = serde_json::from_str::<String>(&s[..=i]).unwrap_or_else(|_| s[1..i].to_owned());
            return (name, &s[i + 1..]);
        }
    }
    (s.trim_matches('"').to_owned(), "")
}

// ---------------------------------------------------------------------------------------------
// chrome-devtools-mcp

/// Reads the snapshot in a chrome-devtools-mcp reply (empty when the reply has none). Its names
/// are quoted without escaping inner quotes, and a name may run over several lines.
pub fn devtools(text: &str) -> Page {
    // Entries start with `uid=`; other lines continue the entry before them.
    let mut entries: Vec<(usize, String)> = Vec::new();
    let mut in_snapshot = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("uid=") {
            in_snapshot = true;
            entries.push(((line.len() - trimmed.len()) / 2, trimmed.to_owned()));
        } else if line.starts_with('#') {
            in_snapshot = false;
        } else if in_snapshot && let Some((_, last)) = entries.last_mut() {
            last.push('\n');
            last.push_str(line);
        }
    }
    let mut nodes: Vec<Node> = Vec::new();
    for (depth, entry) in entries {
        let Some(node) = devtools_entry(depth, &entry) else { continue };
        if node.role == "option"
            && let Some(select) = nodes.iter_mut().rev().find(|n| n.depth < depth)
        {
            select.options.push(node.name.clone());
        }
        nodes.push(node);
    }
    Page { nodes }
}

fn devtools_entry(depth: usize, entry: &str) -> Option<Node> {
    let entry = entry.strip_prefix("uid=")?;
    let (uid, rest) = entry.split_once(' ').unwrap_or((entry, ""));
    let reference = Some(uid.to_owned());
    if rest.starts_with('"') {
        // Text (a StaticText node): everything between the first and last quote.
        let text = rest.get(1..rest.rfind('"').filter(|&e| e > 0)?)?.to_owned();
        return Some(Node { depth, role: "text".into(), name: text, reference, ..Node::default() });
    }
    let role_end = rest.find(' ').unwrap_or(rest.len());
    let role = rest[..role_end].to_owned();
    if role == "LineBreak" || role == "InlineTextBox" {
        return None;
    }
    let mut node = Node { depth, role: role.to_lowercase(), reference, ..Node::default() };
    let mut attrs = &rest[role_end..];
    if attrs.trim_start().starts_with('"') {
        attrs = attrs.trim_start();
        // The name ends at the first quote after which only attributes follow.
        let end = attrs
            .char_indices()
            .skip(1)
            .filter(|&(_, c)| c == '"')
            .map(|(i, _)| i)
            .find(|&i| parse_devtools_attributes(&attrs[i + 1..]).is_some())
            .unwrap_or(attrs.len().saturating_sub(1));
        node.name = attrs.get(1..end).unwrap_or("").to_owned();
        attrs = attrs.get(end + 1..).unwrap_or("");
    }
    for (key, value) in parse_devtools_attributes(attrs).unwrap_or_default() {
        match (key.as_str(), value) {
            ("value", Some(v)) => node.value = Some(v),
            (_, Some(v)) => node.states.push(format!("{key}={v}")),
            (_, None) => node.states.push(key),
        }
    }
    Some(node)
}

/// ` flag key="value" key=value …` → pairs; `None` unless all of `s` reads as attributes.
fn parse_devtools_attributes(s: &str) -> Option<Vec<(String, Option<String>)>> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            return Some(out);
        }
        if trimmed.len() == rest.len() {
            return None; // attributes are separated by spaces
        }
        let key_end =
            trimmed.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).unwrap_or(trimmed.len());
        if key_end == 0 {
            return None;
        }
        let key = trimmed[..key_end].to_owned();
        let after = &trimmed[key_end..];
        if let Some(value) = after.strip_prefix("=\"") {
            let end = value.find('"')?;
            out.push((key, Some(value[..end].to_owned())));
            rest = &value[end + 1..];
        } else if let Some(value) = after.strip_prefix('=') {
            let end = value.find(' ').unwrap_or(value.len());
            out.push((key, Some(value[..end].to_owned())));
            rest = &value[end..];
        } else {
            out.push((key, None));
            rest = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refs(page: &Page) -> Vec<String> {
        page.nodes.iter().map(|n| format!("{}|{}|{}", n.role, n.name, n.reference.as_deref().unwrap_or(""))).collect()
    }

    #[test]
    fn sightline_full_pages_join_lines_with_structured_elements() {
        let reply = Reply {
            text: "Click Link Task\nhttp://x/ · v4\nClick on the link \"nam\".\n<header label=\"Section #1\" ref=\"e33\">\ne1 clickable: justo.\nsee [e7 Home] now\ne14 combobox = \"Aurora\" [Aurora|Bernelle|… 7 options] id=\"options\"\n</header>".into(),
            is_error: false,
            images: Vec::new(),
            structured: Some(json!({"kind": "full", "elements": [
                {"ref": "e33", "role": "tab", "name": "Section #1"},
                {"ref": "e1", "role": "clickable", "name": ""},
                {"ref": "e7", "role": "link", "name": "Home"},
                {"ref": "e14", "role": "combobox", "name": "", "value": "Aurora"}],
                "states": {"collapsed": ["e33"]}})),
        };
        let shown = sightline(&reply);
        assert!(shown.full);
        assert_eq!(
            refs(&shown.page),
            [
                "text|Click on the link \"nam\".|",
                "tab|Section #1|e33",
                "clickable|justo.|e1",
                "text|see Home now|",
                "link|Home|e7",
                "combobox||e14"
            ]
        );
        assert!(shown.page.nodes[1].has("collapsed"));
        assert_eq!(shown.page.nodes[5].options, ["Aurora", "Bernelle"]);
        assert_eq!(shown.page.nodes[5].value.as_deref(), Some("Aurora"));
        assert_eq!(shown.page.instruction(), "Click on the link \"nam\".");
    }

    #[test]
    fn page_text_shaped_like_a_ref_is_read_as_the_page_has_it() {
        // The page's `k9`, `x86` and `f1` are escaped so they cannot pass for refs; an agent
        // matching the instruction's words against names reads them without the backslash.
        let reply = Reply {
            text: "T\nhttp://x/ · v1\nSelect \\k9 and click Submit.\n# About \\f1\nsee [e7 \\x86 guide] now\n\
                   e2 clickable: \\b2\ne4 checkbox \"\\u006b9\""
                .into(),
            is_error: false,
            images: Vec::new(),
            structured: Some(json!({"kind": "full", "elements": [
                {"ref": "e7", "role": "link", "name": ""},
                {"ref": "e2", "role": "clickable", "name": ""},
                {"ref": "e4", "role": "checkbox", "name": "k9"}]})),
        };
        let shown = sightline(&reply);
        assert_eq!(
            refs(&shown.page),
            [
                "text|Select k9 and click Submit.|",
                "heading|About f1|",
                "text|see x86 guide now|",
                "link|x86 guide|e7",
                "clickable|b2|e2",
                "checkbox|k9|e4"
            ]
        );
        assert_eq!(shown.page.instruction(), "Select k9 and click Submit.");
    }

    #[test]
    fn a_full_page_headed_by_its_version_line_alone_has_every_line() {
        let reply = Reply {
            text: "v5 · full page: 40% of lines changed\nClick on the numbers in ascending order.\ne9 graphics-symbol (no name)".into(),
            is_error: false,
            images: Vec::new(),
            structured: Some(json!({"kind": "full", "elements": [{"ref": "e9", "role": "graphics-symbol", "name": ""}]})),
        };
        let shown = sightline(&reply);
        assert!(shown.full);
        assert_eq!(refs(&shown.page), ["text|Click on the numbers in ascending order.|", "graphics-symbol||e9"]);
    }

    #[test]
    fn sightline_deltas_show_added_and_changed_lines() {
        let reply = Reply {
            text: String::new(),
            is_error: false,
            images: Vec::new(),
            structured: Some(json!({"kind": "delta", "gone": ["e3"], "lines": {
                "removed": [],
                "changed": [{"after": "e4 checkbox \"A\" checked", "elements": [{"ref": "e4", "role": "checkbox", "name": "A", "states": ["checked"]}]}],
                "added": [{"after": null, "line": {"text": "Correct!", "region": ""}}]}})),
        };
        let shown = sightline(&reply);
        assert!(!shown.full);
        assert_eq!(shown.gone, ["e3"]);
        assert_eq!(refs(&shown.page), ["checkbox|A|e4", "text|Correct!|"]);
        assert!(shown.page.nodes[0].checked());
    }

    #[test]
    fn a_sightline_view_follows_deltas() {
        let full = Reply {
            text: "T\nhttp://x/ · v1\nSelect A and click Submit.\ne4 checkbox \"A\"\ne5 button \"Submit\"".into(),
            is_error: false,
            images: Vec::new(),
            structured: Some(json!({"kind": "full", "elements": [
                {"ref": "e4", "role": "checkbox", "name": "A"}, {"ref": "e5", "role": "button", "name": "Submit"}]})),
        };
        let mut view = SightlineView::full(&full).expect("a full page");
        let delta = json!({"kind": "delta", "lines": {
            "removed": [{"id": "f/l/9#0", "text": "Select A and click Submit.", "region": ""}],
            "changed": [{"id": "e4", "before": "e4 checkbox \"A\"", "after": "e4 checkbox \"A\" checked",
                         "elements": [{"ref": "e4", "role": "checkbox", "name": "A", "states": ["checked"]}]}],
            "added": [{"after": "e5", "line": {"id": "f/l/12#0", "text": "Done.", "region": ""}},
                      {"after": "f/l/12#0", "line": {"id": "e6", "text": "e6 link \"Next\"", "region": "",
                       "elements": [{"ref": "e6", "role": "link", "name": "Next"}]}}]}});
        assert!(view.apply(&delta));
        assert_eq!(refs(&view.page()), ["checkbox|A|e4", "button|Submit|e5", "text|Done.|", "link|Next|e6"]);
        assert!(view.page().nodes[0].checked());
        let unplaceable = json!({"kind": "delta", "lines": {"removed": [{"id": "f/l/1#0", "text": "nowhere"}], "changed": [], "added": []}});
        assert!(!view.apply(&unplaceable));
    }

    #[test]
    fn playwright_yaml_reads_roles_names_states_values_and_text() {
        let text = "### Snapshot\n```yaml\n- generic [ref=f1e2]:\n  - generic [ref=f1e3]: Enter \"x\" here.\n  - 'tab \"Section #1\" [expanded] [ref=f1e4]'\n  - paragraph [ref=f1e6]:\n    - text: Username\n    - textbox [ref=f1e7]: vina\n  - checkbox \"USa\" [checked] [ref=f1e8]\n  - combobox [ref=f1e9]:\n    - option \"A\"\n    - option \"B\" [selected]\n  - generic [ref=f1e10]: \"-6\"\n```";
        let page = playwright(text);
        assert_eq!(page.instruction(), "Enter \"x\" here.");
        assert_eq!(page.find("tab", "Section #1").and_then(|n| n.reference.as_deref()), Some("f1e4"));
        assert!(page.find("tab", "Section #1").is_some_and(|n| n.has("expanded")));
        assert_eq!(page.after_text("Username", &["textbox"]).and_then(|n| n.value.as_deref()), Some("vina"));
        assert!(page.find("checkbox", "USa").is_some_and(Node::checked));
        let select = page.all("combobox")[0];
        assert_eq!(select.options, ["A", "B"]);
        assert_eq!(select.value.as_deref(), Some("B"));
        assert!(page.texts().contains(&"-6"));
    }

    #[test]
    fn devtools_lines_keep_unescaped_quotes_in_names() {
        let text = "## Latest page snapshot\nuid=2_0 RootWebArea \"Task\" url=\"http://x/\"\n  uid=2_1 \"Click on the link \"nam\".\"\n  uid=2_2 checkbox \"USa\" checked\n  uid=2_3 LineBreak \"\n\"\n  uid=2_4 button \"Say \"hi\"\" focusable focused\n  uid=2_5 combobox expandable haspopup=\"menu\" value=\"Aurora\"\n    uid=2_6 option \"Aurora\" selected\n    uid=2_7 option \"Bobine\"\n  uid=2_8 textbox readonly";
        let page = devtools(text);
        assert_eq!(page.instruction(), "Click on the link \"nam\".");
        assert!(page.find("checkbox", "USa").is_some_and(Node::checked));
        let button = page.find("button", "Say \"hi\"").expect("button");
        assert!(button.has("focused"));
        let select = page.all("combobox")[0];
        assert_eq!(select.value.as_deref(), Some("Aurora"));
        assert_eq!(select.options, ["Aurora", "Bobine"]);
        assert!(page.all("textbox")[0].has("readonly"));
        assert_eq!(page.nodes.len(), 8, "{:?}", refs(&page));
    }
}
