//! What the page state answers, for the agent (text) and for machines (`structuredContent`):
//! the full page with its reason, "no change", a delta, an overlay opened or closed, each
//! prefixed by what the agent should know first (waits that hit their limit, what changed
//! before the action of an agent that acted on an older version).

use std::collections::HashMap;

use serde::Serialize;

use super::delta::{Delta, count, delta_lines, render_notice};
use super::view::{ChangedLine, LineDiff, LineKey, ViewLine};
use super::{FullReason, Outcome, PageError, Response};
use crate::protocol::{ElementFacts as ElementOutput, SnapshotFacts, SnapshotParams, ToolOutput};
use crate::snapshot::render::{RenderOptions, Rendered, render};
use crate::snapshot::{ElementId, Snapshot};

/// Renders a response for the agent. `snapshot` is the page the response was computed from.
pub fn render_response(snapshot: &Snapshot, response: &Response, options: &RenderOptions) -> Rendered {
    // The address an action moved the page to comes right under the version line.
    let one_page = |text: String| {
        let text = match &response.moved_to {
            Some(url) => match text.split_once('\n') {
                Some((first, rest)) => format!("{first}\nthe address is now {url}\n{rest}"),
                None => format!("{text}\nthe address is now {url}"),
            },
            None => text,
        };
        Rendered { text, page: 1, pages: 1 }
    };
    match &response.outcome {
        Outcome::Full { reason, collapsed, address_known } => {
            // The reason goes on the header's version line.
            let header_note = match reason {
                FullReason::FirstLook | FullReason::Requested => None,
                other => Some(format!("full page: {other}")),
            };
            let options = RenderOptions {
                collapsed: collapsed.clone(),
                header_note,
                omit_address: *address_known,
                ..options.clone()
            };
            render(snapshot, response.version, &options)
        }
        Outcome::NoChange => one_page(format!("v{} · no change", response.version)),
        Outcome::Changed(delta) => {
            let mut out = vec![format!("v{} · {} since v{}", delta.to, count(delta), delta.from)];
            out.extend(delta_lines(delta));
            one_page(out.join("\n"))
        }
        Outcome::OverlayOpened { overlay, delta } => {
            let mut out = vec![format!(
                "v{} · {overlay} opened (the page behind it is frozen for you until it closes):",
                delta.to
            )];
            out.extend(delta_lines(delta));
            one_page(out.join("\n"))
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
            one_page(out.join("\n"))
        }
    }
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
    /// The exact line changes (apply them to the previous view to get the new one); added and
    /// changed lines carry the elements they show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineChanges>,
    /// Regions written as unchanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchanged_regions: Vec<String>,
    /// The page's new address, when the action moved it within its document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
}

/// A delta's line changes as a client reads them: [`LineDiff`] with, on every added and changed
/// line, the elements it shows (ref, role, name, value, states), so a client can keep its table
/// of elements from deltas alone.
#[derive(Debug, Clone, Serialize)]
pub struct LineChanges {
    /// Lines that are gone.
    pub removed: Vec<ViewLine>,
    /// Lines whose text changed.
    pub changed: Vec<ChangedLineFacts>,
    /// Lines that appeared (or moved), in new-view order.
    pub added: Vec<AddedLineFacts>,
}

/// A changed line and the elements it now shows.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedLineFacts {
    /// The change.
    #[serde(flatten)]
    pub line: ChangedLine,
    /// Elements the line shows after the change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<ElementOutput>,
}

/// An added line, where it goes, and the elements it shows.
#[derive(Debug, Clone, Serialize)]
pub struct AddedLineFacts {
    /// Key of the line it comes after (`None`: first).
    pub after: Option<LineKey>,
    /// The line.
    pub line: LineFacts,
}

/// A line and the elements it shows.
#[derive(Debug, Clone, Serialize)]
pub struct LineFacts {
    /// The line.
    #[serde(flatten)]
    pub line: ViewLine,
    /// Elements the line shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<ElementOutput>,
}

impl LineChanges {
    /// The changes of `diff`, with elements looked up in `snapshot` (the page after them).
    pub fn of(diff: &LineDiff, snapshot: &Snapshot) -> LineChanges {
        let by_ref: HashMap<u32, ElementId> =
            snapshot.element_ids().map(|id| (snapshot.element(id).number, id)).collect();
        let elements = |refs: &[u32]| -> Vec<ElementOutput> {
            refs.iter().filter_map(|r| by_ref.get(r)).map(|&id| snapshot.element_output(id)).collect()
        };
        LineChanges {
            removed: diff.removed.clone(),
            changed: diff
                .changed
                .iter()
                .map(|c| ChangedLineFacts { line: c.clone(), elements: elements(&c.refs) })
                .collect(),
            added: diff
                .added
                .iter()
                .map(|a| AddedLineFacts {
                    after: a.after.clone(),
                    line: LineFacts { line: a.line.clone(), elements: elements(&a.line.refs) },
                })
                .collect(),
        }
    }
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
        moved_to: response.moved_to.clone(),
    };
    let with_delta = |facts: &mut ResponseFacts, delta: &Delta| {
        facts.from = Some(delta.from);
        facts.gone = delta.gone.iter().map(|(r, _)| crate::refs::format_ref(*r)).collect();
        facts.lines = Some(LineChanges::of(&delta.lines, snapshot));
    };
    match &response.outcome {
        Outcome::Full { reason, collapsed, .. } => {
            facts.kind = "full";
            facts.reason = Some(reason.to_string());
            facts.unchanged_regions = collapsed.iter().map(|&r| snapshot.region(r).name.clone()).collect();
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

/// Which structured facts an answer carries besides its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structured {
    /// The snapshot's facts (what `browser_snapshot` declares in its output schema), whatever
    /// the outcome.
    Snapshot,
    /// The snapshot's facts for a full page, the change's facts otherwise (action tools).
    Outcome,
}

/// The whole answer: `notes` (each on a `! ` line), the `notice` for an agent that acted on an
/// older version, then the response; with its structured facts.
pub fn answer(
    snapshot: &Snapshot,
    response: &Response,
    options: &RenderOptions,
    notes: &[String],
    notice: Option<&Delta>,
    structured: Structured,
) -> ToolOutput {
    let mut text = String::new();
    for note in notes {
        text.push_str("! ");
        text.push_str(note);
        text.push('\n');
    }
    if let Some(delta) = notice {
        text.push_str(&render_notice(delta));
        text.push('\n');
    }
    let rendered = render_response(snapshot, response, options);
    text.push_str(&rendered.text);
    let paged = |mut page: SnapshotFacts| {
        page.page = rendered.page;
        page.pages = rendered.pages;
        page.next_page = (rendered.page < rendered.pages).then_some(rendered.page + 1);
        page
    };
    let structured = match (&response.outcome, structured) {
        (Outcome::Full { reason, collapsed, .. }, _) => {
            let mut page = paged(snapshot.facts(response.version));
            page.reason = Some(reason.to_string());
            page.unchanged_regions = collapsed.iter().map(|&r| snapshot.region(r).name.clone()).collect();
            serde_json::to_value(page).ok()
        }
        (_, Structured::Snapshot) => serde_json::to_value(paged(snapshot.facts(response.version))).ok(),
        (_, Structured::Outcome) => serde_json::to_value(facts(snapshot, response)).ok(),
    };
    ToolOutput { text, structured, ..ToolOutput::default() }
}

/// How to render page `page` of a snapshot for `params` (`region`, `bbox`, `trim`).
pub fn render_options(snapshot: &Snapshot, params: &SnapshotParams, page: usize) -> Result<RenderOptions, PageError> {
    let region = match &params.region {
        None => None,
        Some(wanted) => Some(snapshot.region_named(wanted).ok_or_else(|| PageError::NoSuchRegion {
            wanted: wanted.clone(),
            available: if snapshot.regions.is_empty() {
                "none on this page".to_owned()
            } else {
                snapshot.regions.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
            },
        })?),
    };
    let trim = params.trim.map(|n| n as usize);
    Ok(RenderOptions { bbox: params.bbox, page, region, trim, ..RenderOptions::default() })
}
