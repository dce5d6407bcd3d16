//! The page as the agent last saw it, for the panel: the lines of the session's current view in
//! reading order, grouped into one section per run of lines in the same region (or overlay), so
//! a person can fold regions away or open them. A region the agent's last full page wrote as
//! unchanged, one `<nav label="…" unchanged="true" count="N" />` line, is marked folded with
//! that very line: the person sees it closed as the agent did, and can still open it.
//!
//! Made from the page state's view, the very lines the agent's answers were written from; no
//! text is read back.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::page_state::view::View;

/// A run of lines in one region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewSection {
    /// The region's stable name (`nav "Primary"`, `main`); empty outside every region.
    pub region: String,
    /// The overlay the lines are in, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    /// The lines, as the agent read them.
    pub lines: Vec<String>,
    /// How many refs they show.
    pub refs: usize,
    /// The agent saw this region folded, as the line `folded_as`, not these lines.
    pub folded: bool,
    /// The line the agent read instead of the folded lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded_as: Option<String>,
}

/// The agent's current view of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CurrentView {
    /// The version the agent holds.
    pub version: u64,
    /// The sections, in reading order.
    pub sections: Vec<ViewSection>,
    /// Lines in all.
    pub lines: usize,
    /// Lines the agent saw folded away, in all.
    pub folded_lines: usize,
}

/// `view` (at `version`) in sections; those of the regions in `folded` (the regions the agent's
/// last full page wrote as unchanged and those inside them, each with the line it was written
/// as) are folded, the first section of each such region carrying its line.
pub fn current_view(view: &View, version: u64, folded: &BTreeMap<String, String>) -> CurrentView {
    let mut sections: Vec<ViewSection> = Vec::new();
    let mut last_folded_as: Option<&String> = None;
    let mut folded_lines = 0;
    for line in &view.lines {
        let folded_as = folded.get(&line.region);
        if folded_as.is_some() {
            folded_lines += 1;
        }
        match sections.last_mut() {
            Some(s) if s.region == line.region && s.overlay == line.overlay => {
                s.lines.push(line.text.clone());
                s.refs += line.refs.len();
            }
            _ => {
                // The line is told once, on the first section of the region it stands for.
                let first = folded_as.is_some() && folded_as != last_folded_as;
                sections.push(ViewSection {
                    region: line.region.clone(),
                    overlay: line.overlay.clone(),
                    lines: vec![line.text.clone()],
                    refs: line.refs.len(),
                    folded: folded_as.is_some(),
                    folded_as: if first { folded_as.cloned() } else { None },
                });
            }
        }
        last_folded_as = folded_as;
    }
    CurrentView { version, sections, lines: view.lines.len(), folded_lines }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page_state::view::{LineKey, ViewLine};

    fn line(region: &str, overlay: Option<&str>, text: &str, refs: &[u32]) -> ViewLine {
        ViewLine {
            id: LineKey::Element(refs.first().copied().unwrap_or(0)),
            text: text.into(),
            region: region.into(),
            overlay: overlay.map(str::to_owned),
            frame: None,
            refs: refs.to_vec(),
        }
    }

    #[test]
    fn runs_of_lines_in_one_region_make_one_section_each() {
        let view = View {
            lines: vec![
                line("header", None, "[e1 Home]", &[1]),
                line("header", None, "Outerwear", &[]),
                line("main", None, "# Jacket", &[]),
                line("main", None, "e2 button \"Buy\"", &[2]),
                line("dialog \"Sign in\"", Some("dialog \"Sign in\""), "e3 textbox \"Email\"", &[3]),
                line("main", None, "£89.00", &[]),
            ],
            ..View::default()
        };
        let current = current_view(&view, 4, &BTreeMap::new());
        let shape: Vec<(&str, usize, usize)> =
            current.sections.iter().map(|s| (s.region.as_str(), s.lines.len(), s.refs)).collect();
        assert_eq!(shape, [("header", 2, 1), ("main", 2, 1), ("dialog \"Sign in\"", 1, 1), ("main", 1, 0)]);
        assert_eq!(current.sections[2].overlay.as_deref(), Some("dialog \"Sign in\""));
        assert_eq!((current.version, current.lines), (4, 6));
        assert!(current.sections.iter().all(|s| !s.folded) && current.folded_lines == 0);
    }

    #[test]
    fn regions_the_agent_saw_as_unchanged_are_folded_with_the_line_it_read() {
        let view = View {
            lines: vec![
                line("header", None, "Harbour Outfitters", &[]),
                line("nav \"Primary\"", None, "[e1 Home] [e2 Sale]", &[1, 2]),
                line("header", None, "Basket: 0 items", &[]),
                line("main", None, "# Jacket", &[]),
                line("footer", None, "[e9 Contact]", &[9]),
            ],
            ..View::default()
        };
        let header = "<header unchanged=\"true\" count=\"2\" />".to_owned();
        let footer = "<footer unchanged=\"true\" count=\"1\" />".to_owned();
        let folded = BTreeMap::from([
            ("header".to_owned(), header.clone()),
            ("nav \"Primary\"".to_owned(), header.clone()),
            ("footer".to_owned(), footer.clone()),
        ]);
        let current = current_view(&view, 2, &folded);
        let shape: Vec<(&str, bool, Option<&str>)> =
            current.sections.iter().map(|s| (s.region.as_str(), s.folded, s.folded_as.as_deref())).collect();
        assert_eq!(
            shape,
            [
                ("header", true, Some(header.as_str())),
                ("nav \"Primary\"", true, None),
                ("header", true, None),
                ("main", false, None),
                ("footer", true, Some(footer.as_str())),
            ]
        );
        assert_eq!((current.lines, current.folded_lines), (5, 4));
    }
}
