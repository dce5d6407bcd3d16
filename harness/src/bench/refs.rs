//! Finding the ref an agent would use for an element, by role and accessible name, in one
//! server's own reply — the way an agent reads it:
//!
//! * Playwright MCP: `- link "Harbour Rain Jacket" [ref=e41] [cursor=pointer]:`
//! * chrome-devtools-mcp: `uid=3_12 link "Harbour Rain Jacket" url="…"`
//! * Sightline: the `structuredContent.elements` (`ref`, `role`, `name`) of a snapshot or action
//!   reply, or else its `e12 role "name"` text lines.
//!
//! Names are compared with surrounding and repeated whitespace collapsed (chrome-devtools-mcp
//! keeps a label's trailing space). The first match in document order wins. Nothing here depends
//! on more of Sightline's text than the `eN role "name"` line shape (a ref is a letter and a
//! number, `e12` or `f7`).

use std::fmt;
use std::sync::LazyLock;

use crate::client::Reply;
use crate::grammar::unescape;
use regex::Regex;

use super::servers::ServerKind;

/// An element named by role and accessible name, as the flow file names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// ARIA role (`link`, `button`, `radio`, `combobox`, `textbox`, …).
    pub role: String,
    /// Accessible name.
    pub name: String,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} \"{}\"", self.role, self.name)
    }
}

/// The ref of `target` in `reply` as `kind` writes it, if the reply shows the element.
pub fn find_ref(kind: ServerKind, reply: &Reply, target: &Target) -> Option<String> {
    if kind == ServerKind::Sightline
        && let Some(found) = structured_ref(reply, target)
    {
        return Some(found);
    }
    let parse: fn(&str) -> Option<Line> = match kind {
        ServerKind::Sightline => sightline_line,
        ServerKind::Playwright => playwright_line,
        ServerKind::Devtools => devtools_line,
    };
    let wanted = normalize(&target.name);
    reply
        .text
        .lines()
        .filter_map(parse)
        .find(|l| l.role == target.role && normalize(&l.name) == wanted)
        .map(|l| l.reference)
}

/// One element line of a reply.
#[derive(Debug, PartialEq, Eq)]
struct Line {
    reference: String,
    role: String,
    name: String,
}

fn structured_ref(reply: &Reply, target: &Target) -> Option<String> {
    let wanted = normalize(&target.name);
    reply.structured.as_ref()?["elements"].as_array()?.iter().find_map(|e| {
        let matches = e["role"].as_str() == Some(target.role.as_str())
            && e["name"].as_str().map(normalize) == Some(wanted.clone());
        if matches { e["ref"].as_str().map(str::to_owned) } else { None }
    })
}

static PLAYWRIGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*- ([a-zA-Z]+)(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\[ref=([^\]\s]+)\]"#).expect("valid regex")
});
static DEVTOOLS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*uid=(\S+) ([a-zA-Z]+)(?: "((?:[^"\\]|\\.)*)")?"#).expect("valid regex"));
static SIGHTLINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|\s)([a-zA-Z][1-9]\d*) ([a-zA-Z]+)(?: "((?:[^"\\]|\\.)*)")?"#).expect("valid regex")
});

fn playwright_line(line: &str) -> Option<Line> {
    let c = PLAYWRIGHT.captures(line)?;
    Some(Line {
        reference: c[3].to_owned(),
        role: c[1].to_owned(),
        name: unescape(c.get(2).map_or("", |m| m.as_str())),
    })
}

fn devtools_line(line: &str) -> Option<Line> {
    let c = DEVTOOLS.captures(line)?;
    Some(Line {
        reference: c[1].to_owned(),
        role: c[2].to_owned(),
        name: unescape(c.get(3).map_or("", |m| m.as_str())),
    })
}

fn sightline_line(line: &str) -> Option<Line> {
    let c = SIGHTLINE.captures(line)?;
    Some(Line {
        reference: c[1].to_owned(),
        role: c[2].to_owned(),
        name: unescape(c.get(3).map_or("", |m| m.as_str())),
    })
}

fn normalize(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn reply(text: &str) -> Reply {
        Reply { text: text.to_owned(), is_error: false, structured: None, images: Vec::new() }
    }

    fn target(role: &str, name: &str) -> Target {
        Target { role: role.to_owned(), name: name.to_owned() }
    }

    #[test]
    fn playwright_refs_come_from_yaml_lines() {
        let text = "```yaml\n- navigation \"Departments\" [ref=e10]:\n  - link \"Harbour Rain Jacket\" [ref=e41] [cursor=pointer]:\n    - /url: product.html\n  - radio \"Olive\" [ref=e52]\n  - combobox \"Size\" [ref=e55]:\n  - button \"Say \\\"hi\\\"\" [ref=e60]\n```";
        let r = reply(text);
        assert_eq!(
            find_ref(ServerKind::Playwright, &r, &target("link", "Harbour Rain Jacket")).as_deref(),
            Some("e41")
        );
        assert_eq!(find_ref(ServerKind::Playwright, &r, &target("combobox", "Size")).as_deref(), Some("e55"));
        assert_eq!(find_ref(ServerKind::Playwright, &r, &target("button", "Say \"hi\"")).as_deref(), Some("e60"));
        assert_eq!(find_ref(ServerKind::Playwright, &r, &target("radio", "Navy")), None);
    }

    #[test]
    fn devtools_uids_match_names_with_stray_spaces() {
        let text = "uid=1_0 RootWebArea \"Shop\" url=\"http://x/\"\n  uid=1_5 textbox \"Full name \" value=\"\"\n  uid=2_3 radio \"Olive\" checked";
        let r = reply(text);
        assert_eq!(find_ref(ServerKind::Devtools, &r, &target("textbox", "Full name")).as_deref(), Some("1_5"));
        assert_eq!(find_ref(ServerKind::Devtools, &r, &target("radio", "Olive")).as_deref(), Some("2_3"));
    }

    #[test]
    fn sightline_prefers_structured_elements_then_text_lines() {
        let mut r = reply("main\n  e12 radio \"Black\" checked\n~ e13 radio \"White\" → checked\n");
        assert_eq!(find_ref(ServerKind::Sightline, &r, &target("radio", "White")).as_deref(), Some("e13"));
        r.structured = Some(json!({"elements": [{"ref": "e7", "role": "radio", "name": "White"}]}));
        assert_eq!(find_ref(ServerKind::Sightline, &r, &target("radio", "White")).as_deref(), Some("e7"));
        assert_eq!(find_ref(ServerKind::Sightline, &r, &target("radio", "Black")).as_deref(), Some("e12"));
    }
}
