//! An agent's session on one tab, exported for a bug report: every kept call (arguments with
//! secrets masked, timing, versions, the answer as the agent read it, its cards) and the tab's
//! events, as JSON and as Markdown.
//!
//! Made only from what the panel already holds, where secrets were masked when it was recorded:
//! nothing is unmasked or read again here.

use serde::Serialize;

use super::lanes::LaneEvent;
use super::session_log::{CallRecord, PanelModel};
use crate::changes::format_iso;

/// What an export holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionExport {
    /// What made it and in which format version.
    pub exported_by: String,
    /// When it was made (ISO 8601).
    pub exported_at: String,
    /// The tab.
    pub tab: i32,
    /// The page's title when exported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The page's URL when exported, secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Tokens of every kept answer.
    pub answer_tokens: usize,
    /// Tokens of the full pages they stood in for.
    pub full_page_tokens: usize,
    /// The calls kept, oldest first.
    pub calls: Vec<CallRecord>,
    /// The tab's console, network, WebSocket and user events, oldest first.
    pub events: Vec<LaneEvent>,
}

impl SessionExport {
    /// The export of `model` and `events`, made at `now_ms` by Sightline `version`.
    pub fn new(
        model: PanelModel,
        events: Vec<LaneEvent>,
        page: (Option<String>, Option<String>),
        version: &str,
        now_ms: u64,
    ) -> Self {
        SessionExport {
            exported_by: format!("Sightline {version}"),
            exported_at: format_iso(now_ms),
            tab: model.tab,
            title: page.0,
            url: page.1,
            answer_tokens: model.answer_tokens,
            full_page_tokens: model.full_page_tokens,
            calls: model.calls,
            events,
        }
    }

    /// The file name to save it under, e.g. `sightline-tab-7-2026-11-22T01-15-58.md`.
    pub fn file_name(&self, extension: &str) -> String {
        let stamp: String = self.exported_at.chars().take(19).map(|c| if c == ':' { '-' } else { c }).collect();
        format!("sightline-tab-{}-{stamp}.{extension}", self.tab)
    }
}

/// A fence of backticks longer than any run of backticks in `text`, so `text` cannot close it.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// `text` on one line, safe in a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace(['\n', '\r'], " ").replace('|', "\\|")
}

fn epoch(ms: f64) -> String {
    format_iso(ms.max(0.0) as u64)
}

/// The export as Markdown: a header, one section per call, then the events as a table.
pub fn session_markdown(export: &SessionExport) -> String {
    let mut out = String::new();
    let title = export.title.as_deref().filter(|t| !t.is_empty()).unwrap_or("(no title)");
    out.push_str(&format!("# Sightline session: {}\n\n", cell(title)));
    if let Some(url) = &export.url {
        out.push_str(&format!("- page: <{}>\n", url.replace('>', "%3E")));
    }
    out.push_str(&format!("- tab: {}\n- exported: {} by {}\n", export.tab, export.exported_at, export.exported_by));
    out.push_str(&format!(
        "- {} call(s); the agent read {} tokens where full pages would have cost {}\n",
        export.calls.len(),
        export.answer_tokens,
        export.full_page_tokens
    ));
    out.push_str("\n## Calls\n");
    for c in &export.calls {
        let versions = match (c.version_before, c.version_after) {
            (Some(b), Some(a)) if a != b => format!(", v{b} → v{a}"),
            (_, Some(a)) => format!(", v{a}"),
            _ => String::new(),
        };
        let outcome = if c.is_error {
            ", failed".to_owned()
        } else {
            c.kind.as_deref().map(|k| format!(", {k}")).unwrap_or_default()
        };
        out.push_str(&format!(
            "\n### {}. `{}` at {} ({} ms{versions}{outcome})\n\n",
            c.seq,
            c.tool,
            epoch(c.started_ms),
            c.duration_ms.round()
        ));
        if c.args.as_object().is_some_and(|a| !a.is_empty()) {
            out.push_str(&format!("Arguments: `{}`\n\n", c.args.to_string().replace('`', "'")));
        }
        if let Some(cards) = &c.cards {
            out.push_str(&format!("{}\n\n", cell(&cards.summary)));
            for card in &cards.cards {
                let count = if card.count > 1 { format!(" ×{}", card.count) } else { String::new() };
                let change = match (&card.before, &card.after) {
                    (Some(b), Some(a)) => format!(" ({b} → {a})"),
                    (None, Some(a)) => format!(" ({a})"),
                    _ => String::new(),
                };
                let detail = card.detail.as_deref().map(|d| format!(": {}", cell(d))).unwrap_or_default();
                let kind = serde_json::to_value(card.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                out.push_str(&format!("- {kind}: {}{count}{change}{detail}\n", cell(&card.title)));
            }
            out.push('\n');
        }
        let fence = fence_for(&c.answer);
        out.push_str(&format!("{fence}text\n{}\n{fence}\n", c.answer.trim_end()));
    }
    out.push_str("\n## Events\n\n");
    if export.events.is_empty() {
        out.push_str("No console, network or WebSocket event recorded on this tab.\n");
    } else {
        out.push_str("| time | lane | level | what |\n|---|---|---|---|\n");
        for e in &export.events {
            let name = |v: serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_default();
            let lane = serde_json::to_value(e.lane).map(name).unwrap_or_default();
            let level = serde_json::to_value(e.level).map(name).unwrap_or_default();
            out.push_str(&format!("| {} | {lane} | {level} | {} |\n", format_iso(e.time_ms), cell(&e.label)));
        }
    }
    out
}

/// A recorded session for the review's tests: one typed secret answered with `answer`, one
/// console error labelled `console`, on a page titled `title`.
#[cfg(test)]
pub(crate) fn sample(answer: &str, console: &str, title: &str) -> SessionExport {
    use crate::protocol::{ToolCall, ToolOutput, TypeParams};
    use crate::review::lanes::{Lane, Level};
    use crate::review::session_log::{Finished, SessionLog};
    let mut log = SessionLog::default();
    let call =
        ToolCall::BrowserType(TypeParams { element_ref: "e4".into(), text: "hunter2".into(), ..Default::default() });
    let output = ToolOutput::text(answer);
    let done = Finished {
        session: "s1",
        call: &call,
        typed_secret: true,
        started_ms: 1_700_000_000_000.0,
        ended_ms: 1_700_000_000_250.0,
        version_before: Some(1),
        version_after: Some(2),
        full_page_tokens: Some(400),
        output: &output,
        targets: Vec::new(),
    };
    log.record(7, &done);
    let events =
        vec![LaneEvent { lane: Lane::Console, level: Level::Error, time_ms: 1_700_000_000_100, label: console.into() }];
    SessionExport::new(
        log.model(7),
        events,
        (Some(title.into()), Some("http://shop.test/".into())),
        "0.1.0",
        1_700_000_001_000,
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_markdown_export_has_every_call_its_answer_fenced_and_the_events_without_secrets() {
        let export = sample("v2 · 1 change since v1\n```\n~ e4 textbox \"Password\" = ••••••", "error: a | b", "Shop");
        let md = session_markdown(&export);
        assert!(md.starts_with("# Sightline session: Shop\n"), "{md}");
        assert!(md.contains("### 1. `browser_type` at 2023-11-14T22:13:20.000Z (250 ms, v1 → v2)"), "{md}");
        assert!(md.contains("Arguments: `{\"ref\":\"e4\",\"text\":\"••••••\"}`"), "{md}");
        // The answer's own fence cannot close the export's.
        assert!(md.contains("````text\nv2 · 1 change since v1\n```\n~ e4"), "{md}");
        assert!(md.contains("| 2023-11-14T22:13:20.100Z | console | error | error: a \\| b |"), "{md}");
        assert!(!md.contains("hunter2"), "{md}");
    }

    #[test]
    fn the_json_export_names_its_file_and_keeps_calls_and_events() {
        let export = sample("v2", "error: a | b", "Shop");
        assert_eq!(export.file_name("json"), "sightline-tab-7-2023-11-14T22-13-21.json");
        let value = serde_json::to_value(&export).unwrap_or_default();
        assert_eq!(value["calls"][0]["args"], json!({"ref": "e4", "text": "••••••"}));
        assert_eq!(value["events"][0]["lane"], "console");
        assert_eq!(value["exported_by"], "Sightline 0.1.0");
        assert!(!value.to_string().contains("hunter2"));
    }
}
