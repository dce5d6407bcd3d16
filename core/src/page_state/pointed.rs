//! The node a person pointed at for the agent (selected in DevTools' Elements panel, or picked
//! on the page from the Sightline panel), found in the page as the agent reads it: the element's
//! ref and its line, or the line of text it is part of.
//!
//! The runtime hands in the node and its ancestors as backend node ids, innermost first; the
//! first of them the page shows (an element with a ref, or a line of text) answers. A node the
//! agent is never shown (hidden, covered, gone) answers nothing, and the agent is told why.
//! Only the page's own lines go into the answer, never the node's markup.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::view::{LineKey, View};
use crate::protocol::ToolOutput;
use crate::refs::format_ref;
use crate::snapshot::Snapshot;

/// How the person pointed at the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PointedBy {
    /// Selected in DevTools' Elements panel.
    ElementsPanel,
    /// Picked on the page with the Sightline panel's Pick button.
    Pick,
}

impl PointedBy {
    fn phrase(self) -> &'static str {
        match self {
            PointedBy::ElementsPanel => "in the Elements panel",
            PointedBy::Pick => "with Pick in the Sightline panel",
        }
    }
}

/// What the person pointed at, as the agent reads the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointed {
    /// The element's ref number, when the node is (or is inside) an element with a ref.
    pub element: Option<u32>,
    /// The line that shows it.
    pub line: String,
    /// Whether the node itself answers (not one of its ancestors).
    pub exact: bool,
}

/// The structured result of `browser_user_selection`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct UserSelectionFacts {
    /// The page version the agent holds.
    pub version: u64,
    /// The element's ref, when the selection is (or is inside) one.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// The snapshot line that shows it.
    pub line: String,
    /// False when the selected node is inside the element or text named.
    pub exact: bool,
    /// How the user pointed at it.
    pub by: PointedBy,
}

/// The first of `chain` (a node, then its ancestors) that `snapshot` shows. Backend node ids
/// are only unique within one browser process: `in_process` says which frames are in the
/// process the chain comes from (the tab's own, or one out-of-process iframe's), and only
/// their nodes are matched.
pub fn locate(snapshot: &Snapshot, chain: &[i64], in_process: &dyn Fn(&str) -> bool) -> Option<Pointed> {
    let elements: HashMap<i64, u32> = snapshot
        .elements
        .iter()
        .filter(|e| in_process(&e.key.frame_id))
        .map(|e| (e.key.backend_node_id, e.number))
        .collect();
    locate_in(&View::of(snapshot), &elements, chain, in_process)
}

/// [`locate`] on a view, with the ref number of each element's backend node (of the process).
pub fn locate_in(
    view: &View,
    elements: &HashMap<i64, u32>,
    chain: &[i64],
    in_process: &dyn Fn(&str) -> bool,
) -> Option<Pointed> {
    chain.iter().enumerate().find_map(|(depth, node)| {
        let exact = depth == 0;
        if let Some(&number) = elements.get(node) {
            let own = view.lines.iter().find(|l| l.id == LineKey::Element(number));
            let line = own.or_else(|| view.lines.iter().find(|l| l.refs.contains(&number)))?;
            return Some(Pointed { element: Some(number), line: line.text.clone(), exact });
        }
        let line = view
            .lines
            .iter()
            .find(|l| matches!(&l.id, LineKey::Node { node: n, frame, .. } if n == node && in_process(frame)))?;
        Some(Pointed { element: None, line: line.text.clone(), exact })
    })
}

impl Pointed {
    /// The note that goes first when the agent's refs come from `since`, older than `version`.
    pub fn behind_note(since: u64, version: u64) -> String {
        format!("! your refs are from v{since}; the page is at v{version} now: browser_snapshot shows what changed")
    }

    /// The answer an agent reads: a header saying what was selected, then its line.
    pub fn answer(&self, version: u64, by: PointedBy) -> ToolOutput {
        let how = by.phrase();
        let header = match (self.element, self.exact) {
            (Some(n), true) => format!("v{version} · the user selected {} {how}", format_ref(n)),
            (Some(n), false) => format!("v{version} · the user selected a node inside {} {how}", format_ref(n)),
            (None, true) => format!("v{version} · the user selected this text {how}"),
            (None, false) => format!("v{version} · the user selected a node inside this text {how}"),
        };
        let facts = UserSelectionFacts {
            version,
            element_ref: self.element.map(format_ref),
            line: self.line.clone(),
            exact: self.exact,
            by,
        };
        ToolOutput {
            text: format!("{header}\n{}", self.line),
            structured: serde_json::to_value(facts).ok(),
            ..ToolOutput::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page_state::view::ViewLine;

    fn line(id: LineKey, text: &str, refs: &[u32]) -> ViewLine {
        ViewLine { id, text: text.into(), region: String::new(), overlay: None, frame: None, refs: refs.to_vec() }
    }

    fn node(n: i64) -> LineKey {
        LineKey::Node { frame: "F".into(), loader: "L".into(), node: n, ordinal: 0 }
    }

    fn any(_: &str) -> bool {
        true
    }

    #[test]
    fn text_of_a_frame_in_another_process_never_answers_for_a_node_of_this_one() {
        let (view, elements) = page();
        let elsewhere = |frame: &str| frame != "F";
        assert_eq!(locate_in(&view, &elements, &[10, 1], &elsewhere), None);
    }

    fn page() -> (View, HashMap<i64, u32>) {
        let view = View {
            lines: vec![
                line(node(10), "Basket: 0 items", &[]),
                line(LineKey::Element(3), "e3 button \"Add to basket\"", &[3]),
                line(node(30), "Read the [e4 terms] first", &[4]),
            ],
            ..View::default()
        };
        (view, [(300, 3), (400, 4)].into_iter().collect())
    }

    #[test]
    fn an_element_answers_with_its_ref_and_line_and_a_node_inside_it_says_so() {
        let (view, elements) = page();
        let exact = locate_in(&view, &elements, &[300, 1, 0], &any);
        assert_eq!(exact, Some(Pointed { element: Some(3), line: "e3 button \"Add to basket\"".into(), exact: true }));
        // A span inside the button: the button answers, not exactly.
        let inside = locate_in(&view, &elements, &[301, 300, 1], &any).map(|p| (p.element, p.exact));
        assert_eq!(inside, Some((Some(3), false)));
        // An inline link answers with the line it sits in.
        let link = locate_in(&view, &elements, &[400, 30], &any).map(|p| p.line);
        assert_eq!(link.as_deref(), Some("Read the [e4 terms] first"));
    }

    #[test]
    fn text_answers_with_its_line_and_a_node_the_page_never_shows_answers_nothing() {
        let (view, elements) = page();
        let text = locate_in(&view, &elements, &[10, 1], &any);
        assert_eq!(text, Some(Pointed { element: None, line: "Basket: 0 items".into(), exact: true }));
        assert_eq!(locate_in(&view, &elements, &[77, 78], &any), None);
    }

    #[test]
    fn the_answer_names_the_ref_and_how_it_was_pointed_at() {
        let pointed = Pointed { element: Some(3), line: "e3 button \"Add to basket\"".into(), exact: true };
        let out = pointed.answer(4, PointedBy::ElementsPanel);
        assert_eq!(out.text, "v4 · the user selected e3 in the Elements panel\ne3 button \"Add to basket\"");
        let facts = out.structured.unwrap_or_default();
        assert_eq!(facts["ref"], "e3");
        assert_eq!(facts["by"], "elements_panel");
        assert_eq!(
            Pointed::behind_note(2, 4),
            "! your refs are from v2; the page is at v4 now: browser_snapshot shows what changed"
        );
        let text = Pointed { element: None, line: "Basket: 0 items".into(), exact: false };
        assert_eq!(
            text.answer(4, PointedBy::Pick).text,
            "v4 · the user selected a node inside this text with Pick in the Sightline panel\nBasket: 0 items"
        );
    }
}
