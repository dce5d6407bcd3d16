//! Web-first assertions for what an action visibly changed, read from the delta the agent was
//! answered with: an added element becomes `toBeVisible()`, an added or changed text line
//! `getByText(…)` `toBeVisible()`, a changed value `toHaveValue(…)`, a changed state
//! `toBeChecked()` / `toBeEnabled()` (or their negations). A line that carries a masked value
//! is skipped: the test would have to write the secret down to check it.
//!
//! The delta's lines are written by [`crate::page_state::delta`]; this reads them back.

use super::locators::{by_role, is_aria_role, js};
use crate::snapshot::element::MASK;

/// Most assertions written after one action: enough to pin what it did, few enough that the
/// test does not restate the page.
pub const MAX_ASSERTIONS: usize = 6;
/// Longest text an assertion looks for; a longer line is looked for by its start.
const MAX_TEXT_CHARS: usize = 60;

/// The lines of the delta in `answer`, after its `v5 · 3 changes since v4` line (which may
/// follow what the agent was told first, such as a dialog it answered); none when the answer
/// holds no delta.
pub fn delta_body(answer: &str) -> impl Iterator<Item = &str> {
    let is_head = |line: &str| {
        line.strip_prefix('v')
            .and_then(|rest| rest.split_once(" · "))
            .is_some_and(|(version, what)| version.chars().all(|c| c.is_ascii_digit()) && what.contains(" since v"))
    };
    answer.lines().skip_while(move |line| !is_head(line)).skip(1)
}

/// The assertions for an action whose answer was `answer` (only a delta yields any).
pub fn assertions(answer: &str) -> Vec<String> {
    let lines = delta_body(answer);
    let mut out = Vec::new();
    let mut in_frame = false;
    for line in lines {
        if line.starts_with("<frame") {
            in_frame = true;
        } else if line.starts_with("</frame") {
            in_frame = false;
        }
        if in_frame || line.contains(MASK) {
            continue;
        }
        let assertion = if let Some(added) = line.strip_prefix("+ ") {
            added_line(strip_place(added))
        } else if let Some(changed) = line.strip_prefix("~ ") {
            changed_line(changed)
        } else {
            None
        };
        if let Some(a) = assertion.filter(|a| !out.contains(a)) {
            out.push(a);
        }
        if out.len() == MAX_ASSERTIONS {
            break;
        }
    }
    out
}

/// An added line without the `at the top: ` or `after e16: ` that says where it went.
fn strip_place(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix("at the top: ") {
        return rest;
    }
    let Some(rest) = line.strip_prefix("after ") else { return line };
    let tokens = tokens(rest);
    match tokens.first() {
        Some(Token::Word(w)) if w.strip_suffix(':').is_some_and(is_ref) => {
            rest.split_once(": ").map_or(line, |(_, r)| r)
        }
        Some(Token::Quoted(_, end)) if rest[*end..].starts_with(": ") => &rest[end + 2..],
        _ => line,
    }
}

/// `expect(…).toBeVisible()` for an added element or text line.
fn added_line(line: &str) -> Option<String> {
    if let Some((role, name)) = element_of(line) {
        return (is_aria_role(&role) && !name.is_empty())
            .then(|| format!("await expect({}.first()).toBeVisible();", by_role("page", &role, &name)));
    }
    text_visible(line)
}

/// The assertion for a changed line: `~ "before" → "after"` for text, `~ e4 textbox "Search" =
/// "red" → "red shoes"` for an element.
fn changed_line(line: &str) -> Option<String> {
    if line.starts_with('"') {
        // Text lines are written unescaped between quotes: `"before" → "after"`.
        let (_, after) = line.rsplit_once("\" → \"")?;
        return text_visible(after.strip_suffix('"')?);
    }
    let tokens = tokens(line);
    let arrow = tokens.iter().position(|t| matches!(t, Token::Word(w) if w == "→"))?;
    let (before, after) = (&tokens[..arrow], &tokens[arrow + 1..]);
    let role = match before.get(1) {
        Some(Token::Word(role)) if is_aria_role(role) => role.clone(),
        _ => return None,
    };
    let old_name = match before.get(2) {
        Some(Token::Quoted(name, _)) => name.clone(),
        _ => String::new(),
    };
    // The name itself changed: the element is found by its new one.
    if before.len() == 3
        && !old_name.is_empty()
        && let Some(Token::Quoted(new_name, _)) = after.first()
    {
        return Some(format!("await expect({}.first()).toBeVisible();", by_role("page", &role, new_name)));
    }
    if old_name.is_empty() {
        return None;
    }
    let element = format!("{}.first()", by_role("page", &role, &old_name));
    // A value written where there was none (`→ = "ada@example.com"`), or changed (`= "a" → "b"`).
    let is_equals = |t: Option<&Token>| matches!(t, Some(Token::Word(w)) if w == "=");
    let value = match (after.first(), after.get(1)) {
        (Some(Token::Quoted(value, _)), _) if before.iter().any(|t| is_equals(Some(t))) => Some(value),
        (first, Some(Token::Quoted(value, _))) if is_equals(first) => Some(value),
        _ => None,
    };
    if let Some(value) = value {
        return Some(format!("await expect({element}).toHaveValue({});", js(value)));
    }
    let state = after.iter().find_map(|t| match t {
        Token::Word(w) => match w.as_str() {
            "checked" => Some("toBeChecked()"),
            "unchecked" => Some("not.toBeChecked()"),
            "disabled" => Some("toBeDisabled()"),
            "enabled" => Some("toBeEnabled()"),
            _ => None,
        },
        Token::Quoted(..) => None,
    })?;
    Some(format!("await expect({element}).{state};"))
}

/// `expect(page.getByText(…).first()).toBeVisible()` for a line of page text.
fn text_visible(line: &str) -> Option<String> {
    let text = line.trim_start_matches(['#', '-', '*', '>', ' ']).trim();
    let text = text.trim_end_matches('…').trim();
    // Tables, refused frames and notes are the snapshot's own words, not the page's.
    if text.is_empty() || text.starts_with('|') || text.starts_with('[') || text.starts_with('<') {
        return None;
    }
    let text: String = text.chars().take(MAX_TEXT_CHARS).collect();
    Some(format!("await expect(page.getByText({}).first()).toBeVisible();", js(text.trim())))
}

/// An element line's role and name: `e12 button "Add to basket" …`.
fn element_of(line: &str) -> Option<(String, String)> {
    let tokens = tokens(line);
    match tokens.as_slice() {
        [Token::Word(r), Token::Word(role), rest @ ..] if is_ref(r) => {
            let name = match rest.first() {
                Some(Token::Quoted(name, _)) => name.clone(),
                _ => String::new(),
            };
            Some((role.clone(), name))
        }
        _ => None,
    }
}

fn is_ref(word: &str) -> bool {
    crate::refs::leading_ref_len(word) == Some(word.len())
}

/// A word, or a quoted string (unescaped) with the byte offset just past its closing quote.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String, usize),
}

/// The words and quoted strings of a snapshot line, quotes read as the snapshot writes them.
fn tokens(line: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c == ' ' {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut text = String::new();
            let mut end = line.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    '\\' => match chars.next().map(|(_, e)| e) {
                        Some('n') => text.push('\n'),
                        Some('r') => text.push('\r'),
                        Some('t') => text.push('\t'),
                        Some('u') => {
                            let hex: String = (0..4).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                            text.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                        }
                        Some(other) => text.push(other),
                        None => {}
                    },
                    c => text.push(c),
                }
            }
            out.push(Token::Quoted(text, end));
        } else {
            let mut word = String::new();
            while let Some(&(_, c)) = chars.peek() {
                if c == ' ' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            let _ = start;
            out.push(Token::Word(word));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_elements_and_text_and_changed_text_become_visibility_checks() {
        let answer = "v5 · 3 changes since v4\n~ \"Basket: 0 items\" → \"Basket: 1 items\"\n+ after e16: Added to your basket.\n+ e31 link \"View basket\"";
        assert_eq!(
            assertions(answer),
            vec![
                "await expect(page.getByText(\"Basket: 1 items\").first()).toBeVisible();",
                "await expect(page.getByText(\"Added to your basket.\").first()).toBeVisible();",
                "await expect(page.getByRole(\"link\", { name: \"View basket\", exact: true }).first()).toBeVisible();",
            ]
        );
    }

    #[test]
    fn changed_values_states_and_names_become_their_own_checks() {
        let first_value =
            "v2 · 1 change since v1\n~ e3 textbox \"Email\" type=\"email\" → = \"ada@example.com\" type=\"email\"";
        assert_eq!(
            assertions(first_value),
            vec![
                "await expect(page.getByRole(\"textbox\", { name: \"Email\", exact: true }).first()).toHaveValue(\"ada@example.com\");"
            ]
        );
        let answer = "v3 · 4 changes since v2\n~ e4 textbox \"Search\" = \"red\" → \"red shoes\"\n~ e12 radio \"Olive\" → checked\n~ e16 button \"Add to basket\" disabled → enabled\n~ e7 button \"Add\" → \"Added\"";
        assert_eq!(
            assertions(answer),
            vec![
                "await expect(page.getByRole(\"textbox\", { name: \"Search\", exact: true }).first()).toHaveValue(\"red shoes\");",
                "await expect(page.getByRole(\"radio\", { name: \"Olive\", exact: true }).first()).toBeChecked();",
                "await expect(page.getByRole(\"button\", { name: \"Add to basket\", exact: true }).first()).toBeEnabled();",
                "await expect(page.getByRole(\"button\", { name: \"Added\", exact: true }).first()).toBeVisible();",
            ]
        );
    }

    #[test]
    fn masked_lines_full_pages_and_escaped_names_are_handled() {
        let answer = "v3 · 2 changes since v2\n~ e4 textbox \"Password\" = \"\" → \"••••••\"\n+ e9 button \"Say \\\"hi\\\" \\u0065\"";
        let out = assertions(answer);
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].contains("name: \"Say \\\"hi\\\" e\""), "{out:?}");
        assert!(out.iter().all(|a| !a.contains(MASK)));
        assert!(assertions("v1 · full page\n# Shop\ne1 button \"Buy\"").is_empty());
        // A delta after what the agent is told first.
        let after_dialog =
            "The confirm dialog was accepted.\nv7 · 1 change since v6\n~ \"Nothing yet\" → \"Order placed.\"";
        assert_eq!(
            assertions(after_dialog),
            vec!["await expect(page.getByText(\"Order placed.\").first()).toBeVisible();"]
        );
    }
}
