//! How a response reads, for the agent (text) and for machines (structured facts).
//!
//! ```text
//! v8 · 4 changes since v7
//! gone: e40 e41
//! ~ e12 radio "Black" checked → unchecked
//! ~ e16 button "Add to bag" disabled → enabled
//! ~ "Basket: 0 items" → "Basket: 1 items"
//! + after e16: Added to your basket.
//! ```
//!
//! Refs that died come first: the agent must stop using them. Element lines that changed show
//! only what changed; added lines say where they are; removed text lines are named briefly.

use serde::Serialize;

use super::registry::GoneReason;
use super::view::{ChangedLine, LineDiff, refs_in};
use super::{Delta, FullReason, Outcome, Response};
use crate::snapshot::Snapshot;
use crate::snapshot::render::{RenderOptions, render};

/// Flags with a word for their absence.
const OPPOSITES: &[(&str, &str)] = &[
    ("checked", "unchecked"),
    ("disabled", "enabled"),
    ("expanded", "collapsed"),
    ("collapsed", "expanded"),
    ("selected", "unselected"),
    ("pressed", "not pressed"),
    ("required", "optional"),
    ("invalid", "valid"),
    ("readonly", "editable"),
    ("mixed", "unchecked"),
];

/// Renders a response for the agent. `snapshot` is the page the response was computed from.
pub fn render_response(snapshot: &Snapshot, response: &Response, options: &RenderOptions) -> String {
    match &response.outcome {
        Outcome::Full { reason, collapsed } => {
            let options = RenderOptions { collapsed: collapsed.clone(), ..options.clone() };
            let text = render(snapshot, response.version, &options).text;
            match reason {
                FullReason::FirstLook | FullReason::Requested => text,
                other => {
                    // The reason goes on the header's version line.
                    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                    if let Some(line) = lines.iter_mut().find(|l| l.contains(&format!(" · v{}", response.version))) {
                        line.push_str(&format!(" · full page: {other}"));
                    }
                    lines.join("\n")
                }
            }
        }
        Outcome::NoChange => format!("v{} · no change", response.version),
        Outcome::Changed(delta) => {
            let mut out = vec![format!("v{} · {} since v{}", delta.to, count(delta), delta.from)];
            out.extend(delta_lines(delta));
            out.join("\n")
        }
        Outcome::OverlayOpened { overlay, delta } => {
            let mut out = vec![format!(
                "v{} · {overlay} opened (the page behind it is frozen for you until it closes):",
                delta.to
            )];
            out.extend(delta_lines(delta));
            out.join("\n")
        }
        Outcome::OverlayClosed { overlay, delta } => {
            let mut out = vec![format!("v{} · {overlay} closed", delta.to)];
            let lines = delta_lines(delta);
            if lines.is_empty() || delta.lines.added.is_empty() && delta.lines.changed.is_empty() {
                out.extend(lines);
                out.push("the page behind it did not change".into());
            } else {
                out.push("the page behind it changed while it was open:".into());
                out.extend(lines);
            }
            out.join("\n")
        }
    }
}

/// A notice for an agent that acted on an older version: what changed before its action.
pub fn render_notice(delta: &Delta) -> String {
    let mut out = vec![format!("note: you acted on v{}; before your action, v{} had changed:", delta.from, delta.to)];
    out.extend(delta_lines(delta));
    out.join("\n")
}

fn count(delta: &Delta) -> String {
    let n = delta.lines.size();
    if n == 1 { "1 change".into() } else { format!("{n} changes") }
}

/// The lines of a delta, gone refs first.
pub fn delta_lines(delta: &Delta) -> Vec<String> {
    let mut out = Vec::new();
    if !delta.gone.is_empty() {
        let refs: Vec<String> = delta.gone.iter().map(|(r, _)| format!("e{r}")).collect();
        let why =
            if delta.gone.iter().all(|(_, g)| *g == GoneReason::FrameDetached) { " (frame detached)" } else { "" };
        out.push(format!("gone: {}{why}", refs.join(" ")));
    }
    for c in &delta.lines.changed {
        out.push(changed_line(c));
    }
    let LineDiff { added, removed, .. } = &delta.lines;
    let added_ids: std::collections::HashSet<&str> = added.iter().map(|a| a.line.id.as_str()).collect();
    for (i, add) in added.iter().enumerate() {
        let starts_group = i == 0 || add.after.as_deref() != Some(added[i - 1].line.id.as_str());
        let text = add.line.text.trim_start();
        let place = match (&add.after, starts_group) {
            (_, false) => String::new(),
            (None, true) => "at the top: ".into(),
            (Some(after), true) if added_ids.contains(after.as_str()) => String::new(),
            (Some(after), true) => match after_label(delta, after) {
                Some(label) => format!("after {label}: "),
                None => String::new(),
            },
        };
        out.push(format!("+ {place}{text}"));
    }
    let gone: std::collections::HashSet<u32> = delta.gone.iter().map(|(r, _)| *r).collect();
    for line in removed {
        // Removed element lines are already said by "gone"; moved lines come back as added.
        if added_ids.contains(line.id.as_str())
            || refs_in(&line.text).iter().any(|r| gone.contains(r)) && is_element_line(&line.text)
        {
            continue;
        }
        out.push(format!("- {}", short(line.text.trim())));
    }
    out
}

fn is_element_line(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('e') && t[1..].chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// A short name for the line with id `id` in the new view: its ref, or its first words.
fn after_label(delta: &Delta, id: &str) -> Option<String> {
    if id.starts_with('e') && id[1..].chars().all(|c| c.is_ascii_digit()) {
        return Some(id.to_owned());
    }
    // A text line the agent already has: not in this delta, so name it by id only if it is
    // among the changed lines; otherwise say nothing rather than guess.
    delta.lines.changed.iter().find(|c| c.id == id).map(|c| format!("\"{}\"", short(&c.after)))
}

fn short(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}

/// `~ e12 radio "Black" checked → unchecked`, or `~ "old" → "new"` for text.
fn changed_line(c: &ChangedLine) -> String {
    let (before, after) = (c.before.trim(), c.after.trim());
    if is_element_line(before) && is_element_line(after) {
        let (b, a) = (tokens(before), tokens(after));
        let common = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
        let prefix = b[..common].join(" ");
        let (rest_b, rest_a) = (&b[common..], &a[common..]);
        let is_flag = |t: &String| OPPOSITES.iter().any(|(f, _)| f == t);
        if rest_b.iter().all(is_flag) && rest_a.iter().all(is_flag) {
            let removed: Vec<String> = rest_b
                .iter()
                .filter(|t| !rest_a.contains(t))
                .map(|t| OPPOSITES.iter().find(|(f, _)| f == t).map(|(_, o)| (*o).to_owned()).unwrap_or_default())
                .collect();
            let added: Vec<&String> = rest_a.iter().filter(|t| !rest_b.contains(t)).collect();
            let mut after_words: Vec<String> = removed;
            after_words.extend(added.into_iter().cloned());
            let before_words: Vec<&String> = rest_b.iter().filter(|t| !rest_a.contains(t)).collect();
            let before_text = before_words.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ");
            return if before_text.is_empty() {
                format!("~ {prefix} → {}", after_words.join(" "))
            } else {
                format!("~ {prefix} {before_text} → {}", after_words.join(" "))
            };
        }
        let show = |rest: &[String]| if rest.is_empty() { "(nothing)".to_owned() } else { rest.join(" ") };
        return format!("~ {prefix} {} → {}", show(rest_b), show(rest_a));
    }
    format!("~ \"{}\" → \"{}\"", short_change(before, after).0, short_change(before, after).1)
}

/// The parts of two long texts that differ, with a little context.
fn short_change(before: &str, after: &str) -> (String, String) {
    if before.chars().count() + after.chars().count() <= 120 {
        return (before.to_owned(), after.to_owned());
    }
    let b: Vec<char> = before.chars().collect();
    let a: Vec<char> = after.chars().collect();
    let prefix = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = b[prefix..].iter().rev().zip(a[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let context = 20;
    let cut = |s: &[char]| {
        let start = prefix.saturating_sub(context);
        let end = (s.len() - suffix + context).min(s.len());
        let mut out = String::new();
        if start > 0 {
            out.push('…');
        }
        out.extend(&s[start..end]);
        if end < s.len() {
            out.push('…');
        }
        out
    };
    (cut(&b), cut(&a))
}

/// Splits an element line into tokens, keeping quoted strings whole.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '\\' if quoted && !escaped => {
                escaped = true;
                current.push(c);
                continue;
            }
            '"' if !escaped => {
                quoted = !quoted;
                current.push(c);
            }
            ' ' if !quoted => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
        escaped = false;
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The machine-readable form of a response (MCP `structuredContent` of action tools).
#[derive(Debug, Clone, Serialize)]
pub struct ResponseFacts {
    /// The version the agent now has.
    pub version: u64,
    /// `full`, `no_change`, `delta`, `overlay_opened` or `overlay_closed`.
    pub kind: &'static str,
    /// Why the full page was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The version the delta starts from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    /// The overlay that opened or closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    /// Refs that no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gone: Vec<String>,
    /// The exact line changes (apply them to the previous view to get the new one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineDiff>,
    /// Regions written as unchanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchanged_regions: Vec<String>,
}

/// The structured facts of a response.
pub fn facts(snapshot: &Snapshot, response: &Response) -> ResponseFacts {
    let mut facts = ResponseFacts {
        version: response.version,
        kind: "no_change",
        reason: None,
        from: None,
        overlay: None,
        gone: Vec::new(),
        lines: None,
        unchanged_regions: Vec::new(),
    };
    let with_delta = |facts: &mut ResponseFacts, delta: &Delta| {
        facts.from = Some(delta.from);
        facts.gone = delta.gone.iter().map(|(r, _)| format!("e{r}")).collect();
        facts.lines = Some(delta.lines.clone());
    };
    match &response.outcome {
        Outcome::Full { reason, collapsed } => {
            facts.kind = "full";
            facts.reason = Some(reason.to_string());
            facts.unchanged_regions = collapsed.iter().map(|&r| snapshot.region_names[r].clone()).collect();
        }
        Outcome::NoChange => {}
        Outcome::Changed(delta) => {
            facts.kind = "delta";
            with_delta(&mut facts, delta);
        }
        Outcome::OverlayOpened { overlay, delta } => {
            facts.kind = "overlay_opened";
            facts.overlay = Some(overlay.clone());
            with_delta(&mut facts, delta);
        }
        Outcome::OverlayClosed { overlay, delta } => {
            facts.kind = "overlay_closed";
            facts.overlay = Some(overlay.clone());
            with_delta(&mut facts, delta);
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(before: &str, after: &str) -> String {
        changed_line(&ChangedLine { id: "x".into(), before: before.into(), after: after.into() })
    }

    #[test]
    fn state_changes_read_as_words() {
        assert_eq!(
            change("e12 radio \"Black\" checked", "e12 radio \"Black\""),
            "~ e12 radio \"Black\" checked → unchecked"
        );
        assert_eq!(change("e13 radio \"White\"", "e13 radio \"White\" checked"), "~ e13 radio \"White\" → checked");
        assert_eq!(
            change("e16 button \"Add to Bag\" disabled", "e16 button \"Add to Bag\""),
            "~ e16 button \"Add to Bag\" disabled → enabled"
        );
    }

    #[test]
    fn value_and_name_changes_show_before_and_after() {
        assert_eq!(
            change("e4 textbox \"Search\" = \"red\"", "e4 textbox \"Search\" = \"red shoes\""),
            "~ e4 textbox \"Search\" = \"red\" → \"red shoes\""
        );
        assert_eq!(change("e7 button \"Add\"", "e7 button \"Added\""), "~ e7 button \"Add\" → \"Added\"");
    }

    #[test]
    fn text_changes_are_quoted_and_long_ones_shortened_around_the_change() {
        assert_eq!(change("Basket: 0 items", "Basket: 1 items"), "~ \"Basket: 0 items\" → \"Basket: 1 items\"");
        let long_before = format!("{} 0 items in the basket {}", "a".repeat(80), "b".repeat(80));
        let long_after = format!("{} 1 items in the basket {}", "a".repeat(80), "b".repeat(80));
        let line = change(&long_before, &long_after);
        assert!(line.len() < 120 && line.contains("0 items") && line.contains("1 items"), "{line}");
    }
}
