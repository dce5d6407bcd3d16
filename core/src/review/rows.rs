//! The difference between two views of a page as a person reads it: the new page in order,
//! changed lines with their changed words marked ([`super::words`]), added lines where they now
//! are, removed lines where they were, and unchanged lines folded away beyond a little context
//! around each change.
//!
//! It is computed from the same line diff the agent's delta comes from ([`diff`]), so the panel
//! and the agent are told the same facts.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::words::{WordDiff, word_diff};
use crate::page_state::view::{LineKey, View, diff};

/// One row of a human diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Row {
    /// An unchanged line kept for context.
    Same {
        /// The line.
        text: String,
    },
    /// Unchanged lines folded away.
    Folded {
        /// How many.
        count: usize,
    },
    /// A line whose text changed.
    Changed {
        /// Its key (`e12` or a node key).
        key: String,
        /// Its words, before and after.
        words: WordDiff,
    },
    /// A line that appeared (or moved here).
    Added {
        /// Its key.
        key: String,
        /// The line.
        text: String,
    },
    /// A line that went (or moved away).
    Removed {
        /// Its key.
        key: String,
        /// The line as it was.
        text: String,
    },
}

/// The rows that turn `old` into `new`, with `context` unchanged lines kept around each change.
pub fn rows(old: &View, new: &View, context: usize) -> Vec<Row> {
    let lines = diff(old, new);
    let added: HashSet<&LineKey> = lines.added.iter().map(|a| &a.line.id).collect();
    let removed: HashSet<&LineKey> = lines.removed.iter().map(|l| &l.id).collect();
    let changed: HashMap<&LineKey, (&str, &str)> =
        lines.changed.iter().map(|c| (&c.id, (c.before.as_str(), c.after.as_str()))).collect();
    let old_position: HashMap<&LineKey, usize> = old.lines.iter().enumerate().map(|(i, l)| (&l.id, i)).collect();
    let mut out = Vec::with_capacity(new.lines.len());
    let mut next_old = 0;
    let emit_removed_up_to = |out: &mut Vec<Row>, next_old: &mut usize, end: usize| {
        while *next_old < end {
            let line = &old.lines[*next_old];
            if removed.contains(&line.id) {
                out.push(Row::Removed { key: line.id.to_string(), text: line.text.trim_end().to_owned() });
            }
            *next_old += 1;
        }
    };
    for line in &new.lines {
        if added.contains(&line.id) {
            out.push(Row::Added { key: line.id.to_string(), text: line.text.trim_end().to_owned() });
            continue;
        }
        let Some(&at) = old_position.get(&line.id) else { continue };
        emit_removed_up_to(&mut out, &mut next_old, at);
        next_old = next_old.max(at + 1);
        out.push(match changed.get(&line.id) {
            Some((before, after)) => Row::Changed { key: line.id.to_string(), words: word_diff(before, after) },
            None => Row::Same { text: line.text.trim_end().to_owned() },
        });
    }
    emit_removed_up_to(&mut out, &mut next_old, old.lines.len());
    fold(out, context)
}

/// Folds runs of unchanged rows, keeping `context` of them next to each change.
fn fold(rows: Vec<Row>, context: usize) -> Vec<Row> {
    let changes: Vec<usize> =
        rows.iter().enumerate().filter(|(_, r)| !matches!(r, Row::Same { .. })).map(|(i, _)| i).collect();
    let near = |i: usize| changes.iter().any(|&c| c.abs_diff(i) <= context);
    let mut out = Vec::new();
    let mut folded = 0;
    for (i, row) in rows.into_iter().enumerate() {
        if matches!(row, Row::Same { .. }) && !near(i) {
            folded += 1;
            continue;
        }
        if folded > 0 {
            out.push(Row::Folded { count: folded });
            folded = 0;
        }
        out.push(row);
    }
    if folded > 0 {
        out.push(Row::Folded { count: folded });
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::page_state::view::ViewLine;
    use crate::review::words::Piece;

    fn view(lines: &[(&str, &str)]) -> View {
        View {
            lines: lines
                .iter()
                .map(|(key, text)| ViewLine {
                    id: LineKey::Node {
                        frame: "F".into(),
                        loader: "L".into(),
                        node: i64::from(key.as_bytes()[0]),
                        ordinal: 0,
                    },
                    text: (*text).into(),
                    region: String::new(),
                    overlay: None,
                    frame: None,
                    refs: Vec::new(),
                })
                .collect(),
            elements: BTreeMap::new(),
        }
    }

    #[test]
    fn changes_are_shown_in_place_with_context_and_the_rest_folded() {
        let old =
            view(&[("a", "Header"), ("b", "Basket: 0 items"), ("c", "Old note"), ("d", "Footer"), ("e", "Legal")]);
        let new = view(&[
            ("a", "Header"),
            ("b", "Basket: 1 items"),
            ("x", "Added to your basket"),
            ("d", "Footer"),
            ("e", "Legal"),
        ]);
        let got = rows(&old, &new, 0);
        assert_eq!(got.len(), 5, "{got:#?}");
        assert_eq!(got[0], Row::Folded { count: 1 });
        let Row::Changed { words, .. } = &got[1] else { panic!("{got:#?}") };
        assert_eq!(words.after[1], Piece::Added("1".into()));
        assert!(matches!(&got[2], Row::Added { text, .. } if text == "Added to your basket"));
        assert!(matches!(&got[3], Row::Removed { text, .. } if text == "Old note"));
        assert_eq!(got[4], Row::Folded { count: 2 });
        let with_context = rows(&old, &new, 1);
        assert!(matches!(&with_context[0], Row::Same { text } if text == "Header"), "{with_context:#?}");
        assert!(matches!(&with_context[4], Row::Same { text } if text == "Footer"));
        assert_eq!(with_context[5], Row::Folded { count: 1 });
    }

    #[test]
    fn identical_views_are_all_folded() {
        let v = view(&[("a", "A"), ("b", "B")]);
        assert_eq!(rows(&v, &v, 3), vec![Row::Folded { count: 2 }]);
    }
}
