//! What changed between two versions of the agent's view, and how a delta reads.
//!
//! ```text
//! gone: e40 e41
//! ~ e12 radio "Black" checked → unchecked
//! ~ e16 button "Add to bag" disabled → enabled
//! ~ "Basket: 0 items" → "Basket: 1 items"
//! + after e16: Added to your basket.
//! ```
//!
//! Refs that died come first: the agent must stop using them. Element lines that changed show
//! only what changed, compared part by part (never by re-reading the rendered line); added
//! lines say where they are; removed text lines are named briefly.

use std::collections::HashSet;

use super::view::{ChangedLine, LineDiff, LineKey};
use crate::refs::{GoneReason, format_ref};
use crate::snapshot::render::{in_frames, quote};

/// What changed between two versions of the agent's view.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The version the agent had.
    pub from: u64,
    /// The version it has now.
    pub to: u64,
    /// Refs the agent held that no longer resolve, and why.
    pub gone: Vec<(u32, GoneReason)>,
    /// The exact line changes.
    pub lines: LineDiff,
}

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

/// A notice for an agent that acted on an older version: what changed before its action.
pub fn render_notice(delta: &Delta) -> String {
    let mut out = vec![format!("note: you acted on v{}; before your action, v{} had changed:", delta.from, delta.to)];
    out.extend(delta_lines(delta));
    out.join("\n")
}

/// "1 change", "3 changes".
pub fn count(delta: &Delta) -> String {
    let n = delta.lines.size();
    if n == 1 { "1 change".into() } else { format!("{n} changes") }
}

/// The lines of a delta, gone refs first.
pub fn delta_lines(delta: &Delta) -> Vec<String> {
    let mut out = Vec::new();
    if !delta.gone.is_empty() {
        let refs: Vec<String> = delta.gone.iter().map(|(r, _)| format_ref(*r)).collect();
        let why =
            if delta.gone.iter().all(|(_, g)| *g == GoneReason::FrameDetached) { " (frame detached)" } else { "" };
        out.push(format!("gone: {}{why}", refs.join(" ")));
    }
    // What comes from another site's frame is said between `<frame …>` and `</frame>` lines,
    // as in a full page.
    out.extend(in_frames(delta.lines.changed.iter().map(|c| (c.frame.as_deref(), changed_line(c)))));
    let LineDiff { added, removed, .. } = &delta.lines;
    let added_ids: HashSet<&LineKey> = added.iter().map(|a| &a.line.id).collect();
    let mut added_lines = Vec::new();
    for (i, add) in added.iter().enumerate() {
        let starts_group = i == 0 || add.after.as_ref() != Some(&added[i - 1].line.id);
        let text = add.line.text.trim_start();
        let place = match (&add.after, starts_group) {
            (_, false) => String::new(),
            (None, true) => "at the top: ".into(),
            (Some(after), true) if added_ids.contains(after) => String::new(),
            (Some(after), true) => match after_label(delta, after) {
                Some(label) => format!("after {label}: "),
                None => String::new(),
            },
        };
        added_lines.push((add.line.frame.as_deref(), format!("+ {place}{text}")));
    }
    out.extend(in_frames(added_lines));
    let gone: HashSet<u32> = delta.gone.iter().map(|(r, _)| *r).collect();
    let removed_lines = removed
        .iter()
        // Removed element lines are already said by "gone"; moved lines come back as added.
        .filter(|line| !added_ids.contains(&line.id) && !line.id.element().is_some_and(|r| gone.contains(&r)))
        .map(|line| (line.frame.as_deref(), format!("- {}", short(line.text.trim()))));
    out.extend(in_frames(removed_lines));
    out
}

/// A short name for the line with key `id` in the new view: its ref, or its first words.
fn after_label(delta: &Delta, id: &LineKey) -> Option<String> {
    if let Some(r) = id.element() {
        return Some(format_ref(r));
    }
    // A text line the agent already has: not in this delta, so name it by id only if it is
    // among the changed lines; otherwise say nothing rather than guess.
    delta.lines.changed.iter().find(|c| &c.id == id).map(|c| quote(&short(&c.after)))
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
    if let Some(element) = &c.element {
        let (b, a) = (&element.before, &element.after);
        let common = b.iter().zip(a).take_while(|(x, y)| x == y).count();
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
            // `collapsed` gone and `expanded` come both say "expanded": once.
            let mut after_words: Vec<String> = removed;
            for word in added {
                if !after_words.contains(word) {
                    after_words.push(word.clone());
                }
            }
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
    let (before, after) = short_change(c.before.trim(), c.after.trim());
    format!("~ \"{before}\" → \"{after}\"")
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
        let mut start = prefix.saturating_sub(context);
        // Never cut between an escaping backslash and what it escapes: `\e2` would become a ref.
        let backslashes = s[..start].iter().rev().take_while(|&&c| c == '\\').count();
        if !backslashes.is_multiple_of(2) {
            start -= 1;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::refs::format_ref;
    use crate::snapshot::element::ElementFacts;
    use crate::snapshot::render::{element_line, element_parts};

    fn facts(role: &str, name: &str, value: Option<&str>, states: &[&'static str]) -> ElementFacts {
        ElementFacts {
            role: role.into(),
            name: name.into(),
            value: value.map(str::to_owned),
            states: states.to_vec(),
            attrs: Vec::new(),
            tag: None,
            compound: None,
            text: None,
        }
    }

    /// The change line of element `e<r>` going from `before` to `after`.
    fn element_change(r: u32, before: &ElementFacts, after: &ElementFacts) -> String {
        let element_ref = format_ref(r);
        changed_line(&ChangedLine {
            id: LineKey::Element(r),
            before: element_line(before, &element_ref, None),
            after: element_line(after, &element_ref, None),
            frame: None,
            refs: vec![r],
            element: Some(super::super::view::ElementChange {
                before: element_parts(before, &element_ref, None),
                after: element_parts(after, &element_ref, None),
            }),
        })
    }

    fn change(before: &str, after: &str) -> String {
        let id = LineKey::Node { frame: "F".into(), loader: "L".into(), node: 1, ordinal: 0 };
        changed_line(&ChangedLine {
            id,
            before: before.into(),
            after: after.into(),
            frame: None,
            refs: Vec::new(),
            element: None,
        })
    }

    #[test]
    fn state_changes_read_as_words() {
        let black = facts("radio", "Black", None, &["checked"]);
        assert_eq!(
            element_change(12, &black, &facts("radio", "Black", None, &[])),
            "~ e12 radio \"Black\" checked → unchecked"
        );
        let white = facts("radio", "White", None, &[]);
        assert_eq!(
            element_change(13, &white, &facts("radio", "White", None, &["checked"])),
            "~ e13 radio \"White\" → checked"
        );
        let add = facts("button", "Add to Bag", None, &["disabled"]);
        assert_eq!(
            element_change(16, &add, &facts("button", "Add to Bag", None, &[])),
            "~ e16 button \"Add to Bag\" disabled → enabled"
        );
        // A state whose opposite is a flag of its own is said once.
        let shipping = facts("disclosure", "Shipping", None, &["collapsed"]);
        assert_eq!(
            element_change(1, &shipping, &facts("disclosure", "Shipping", None, &["expanded"])),
            "~ e1 disclosure \"Shipping\" collapsed → expanded"
        );
    }

    #[test]
    fn value_and_name_changes_show_before_and_after() {
        let search = facts("textbox", "Search", Some("red"), &[]);
        assert_eq!(
            element_change(4, &search, &facts("textbox", "Search", Some("red shoes"), &[])),
            "~ e4 textbox \"Search\" = \"red\" → \"red shoes\""
        );
        let add = facts("button", "Add", None, &[]);
        assert_eq!(element_change(7, &add, &facts("button", "Added", None, &[])), "~ e7 button \"Add\" → \"Added\"");
    }

    #[test]
    fn page_text_that_looks_like_an_element_line_is_still_text() {
        assert_eq!(
            change("e2 button \"Delete\" checked", "e2 button \"Delete\""),
            "~ \"e2 button \"Delete\" checked\" → \"e2 button \"Delete\"\"",
            "a text line is compared as text, never read as an element's states"
        );
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
