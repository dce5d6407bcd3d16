//! The page as the agent last saw it, for the panel: the lines of the session's current view in
//! reading order, grouped into one section per run of lines in the same region (or overlay), so
//! a person can fold regions away or open them.
//!
//! Made from the page state's view, the very lines the agent's answers were written from; no
//! text is read back.

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
}

/// `view` (at `version`) in sections.
pub fn current_view(view: &View, version: u64) -> CurrentView {
    let mut sections: Vec<ViewSection> = Vec::new();
    for line in &view.lines {
        match sections.last_mut() {
            Some(s) if s.region == line.region && s.overlay == line.overlay => {
                s.lines.push(line.text.clone());
                s.refs += line.refs.len();
            }
            _ => sections.push(ViewSection {
                region: line.region.clone(),
                overlay: line.overlay.clone(),
                lines: vec![line.text.clone()],
                refs: line.refs.len(),
            }),
        }
    }
    CurrentView { version, sections, lines: view.lines.len() }
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
            refs: refs.to_vec(),
        }
    }

    #[test]
    fn runs_of_lines_in_one_region_make_one_section_each() {
        let view = View {
            lines: vec![
                line("header", None, "[Home](e1)", &[1]),
                line("header", None, "Outerwear", &[]),
                line("main", None, "# Jacket", &[]),
                line("main", None, "e2 button \"Buy\"", &[2]),
                line("dialog \"Sign in\"", Some("dialog \"Sign in\""), "e3 textbox \"Email\"", &[3]),
                line("main", None, "£89.00", &[]),
            ],
            ..View::default()
        };
        let current = current_view(&view, 4);
        let shape: Vec<(&str, usize, usize)> =
            current.sections.iter().map(|s| (s.region.as_str(), s.lines.len(), s.refs)).collect();
        assert_eq!(shape, [("header", 2, 1), ("main", 2, 1), ("dialog \"Sign in\"", 1, 1), ("main", 1, 0)]);
        assert_eq!(current.sections[2].overlay.as_deref(), Some("dialog \"Sign in\""));
        assert_eq!((current.version, current.lines), (4, 6));
    }
}
