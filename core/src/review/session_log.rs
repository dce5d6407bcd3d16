//! The log of an agent's calls on each tab, as the Sightline panel shows it to the person
//! watching: which tool, its arguments with secrets masked, when and for how long, the page
//! version before and after, the exact text the agent read, and what that text cost in tokens
//! against the full page it stood in for.
//!
//! The log is bounded per tab in count ([`MAX_CALLS`]) and in bytes ([`MAX_BYTES`]); the oldest
//! calls go first. The runtime records into it; [`SessionLog::model`] is what the panel draws.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;
use serde_json::Value;

use super::cards::{ReportCards, checkpoint_cards, report_cards};
use super::target::ActionTarget;
use crate::changes::prefix_bytes;
use crate::changes::{ChangeReport, CheckpointReply};
use crate::protocol::{ToolCall, ToolOutput};
use crate::snapshot::render::estimate_tokens;
use crate::urls::secrets::{MASK, is_secret_name};
use crate::urls::{redact_text_urls, redact_url};

/// Most calls kept per tab.
pub const MAX_CALLS: usize = 200;
/// Most bytes of answers and arguments kept per tab.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Longest answer text kept for one call; the rest is cut with a note.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// One call an agent made on a tab.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// Its number on this tab, from 1 (numbers are never reused while the worker lives).
    pub seq: u64,
    /// The MCP session that made it.
    pub session: String,
    /// The tool's MCP name.
    pub tool: String,
    /// Its arguments, secrets masked.
    pub args: Value,
    /// When it started (milliseconds since the epoch).
    pub started_ms: f64,
    /// How long it took.
    pub duration_ms: f64,
    /// The page version the session had before it, if it had seen the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_before: Option<u64>,
    /// The page version after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_after: Option<u64>,
    /// What the answer was: `full`, `delta`, `no_change`, `overlay_opened`, `overlay_closed`,
    /// or `error`, when the answer says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Why a full page was sent, or the overlay that opened or closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The exact text the agent read (cut at [`MAX_ANSWER_BYTES`]).
    pub answer: String,
    /// Whether the call failed.
    pub is_error: bool,
    /// Estimated tokens of the answer.
    pub answer_tokens: usize,
    /// Estimated tokens of the full page at the time, when the session had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page_tokens: Option<usize>,
    /// A change report or checkpoint reply as cards, made from the same value as the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards: Option<ReportCards>,
    /// The elements the call acted on, as the page showed them just before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<ActionTarget>,
}

impl CallRecord {
    fn bytes(&self) -> usize {
        let cards = self.cards.as_ref().map_or(0, |c| c.cards.iter().map(|c| c.title.len() + 96).sum::<usize>());
        let targets = self.targets.iter().map(|t| t.name.len() + 64).sum::<usize>();
        self.answer.len() + self.args.to_string().len() + self.session.len() + cards + targets + 128
    }
}

/// The cards of a call's answer, for `get_changes_since` and `browser_checkpoint` answers that
/// carry their report or reply.
fn cards_of(call: &ToolCall, output: &ToolOutput) -> Option<ReportCards> {
    if output.is_error {
        return None;
    }
    let structured = output.structured.clone()?;
    match call {
        ToolCall::GetChangesSince(_) => {
            serde_json::from_value::<ChangeReport>(structured).ok().map(|r| report_cards(&r))
        }
        ToolCall::BrowserCheckpoint(_) => {
            serde_json::from_value::<CheckpointReply>(structured).ok().map(|r| checkpoint_cards(&r))
        }
        _ => None,
    }
}

/// What the runtime knows of a call once it has answered.
#[derive(Debug, Clone)]
pub struct Finished<'a> {
    /// The session that made it.
    pub session: &'a str,
    /// The call.
    pub call: &'a ToolCall,
    /// Whether `browser_type` typed into a field the page treats as secret (or one that could
    /// not be checked): its text is then masked.
    pub typed_secret: bool,
    /// When it started.
    pub started_ms: f64,
    /// When it answered.
    pub ended_ms: f64,
    /// The session's version of the page before and after.
    pub version_before: Option<u64>,
    /// After.
    pub version_after: Option<u64>,
    /// Estimated tokens of the whole page as the session last saw it.
    pub full_page_tokens: Option<usize>,
    /// The answer.
    pub output: &'a ToolOutput,
    /// The elements it acted on, found in the page the session had before it.
    pub targets: Vec<ActionTarget>,
}

/// The calls of every tab.
#[derive(Debug, Default)]
pub struct SessionLog {
    tabs: BTreeMap<i32, TabLog>,
}

#[derive(Debug, Default)]
struct TabLog {
    calls: VecDeque<CallRecord>,
    bytes: usize,
    next_seq: u64,
    /// Sessions that ever called on this tab (kept when their calls are dropped).
    sessions: BTreeSet<String>,
}

/// Everything the panel draws for one tab, in one message.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PanelModel {
    /// The tab.
    pub tab: i32,
    /// The calls kept, oldest first.
    pub calls: Vec<CallRecord>,
    /// Sessions that called on this tab.
    pub sessions: Vec<String>,
    /// Tokens of every kept answer.
    pub answer_tokens: usize,
    /// Tokens of the full pages those answers stood in for (a call without a full page counts
    /// its own answer).
    pub full_page_tokens: usize,
}

impl SessionLog {
    /// Records a finished call on `tab`; returns its number there.
    pub fn record(&mut self, tab: i32, done: &Finished<'_>) -> u64 {
        let log = self.tabs.entry(tab).or_default();
        log.next_seq += 1;
        let mut answer = done.output.text.clone();
        if answer.len() > MAX_ANSWER_BYTES {
            answer.truncate(prefix_bytes(&answer, MAX_ANSWER_BYTES).len());
            answer.push_str("\n… (the rest of this answer is not kept)");
        }
        let structured = done.output.structured.as_ref();
        let text_field = |name: &str| structured.and_then(|s| s.get(name)).and_then(Value::as_str).map(str::to_owned);
        let kind = if done.output.is_error { Some("error".to_owned()) } else { text_field("kind") };
        let record = CallRecord {
            seq: log.next_seq,
            session: done.session.to_owned(),
            tool: done.call.name().to_owned(),
            args: masked_args(done.call, done.typed_secret),
            started_ms: done.started_ms,
            duration_ms: (done.ended_ms - done.started_ms).max(0.0),
            version_before: done.version_before,
            version_after: done.version_after,
            kind,
            reason: text_field("reason").or_else(|| text_field("overlay")),
            answer_tokens: estimate_tokens(&done.output.text),
            answer,
            is_error: done.output.is_error,
            full_page_tokens: done.full_page_tokens,
            cards: cards_of(done.call, done.output),
            targets: done.targets.clone(),
        };
        log.sessions.insert(done.session.to_owned());
        log.bytes += record.bytes();
        log.calls.push_back(record);
        while log.calls.len() > MAX_CALLS || (log.bytes > MAX_BYTES && log.calls.len() > 1) {
            if let Some(old) = log.calls.pop_front() {
                log.bytes -= old.bytes();
            }
        }
        log.next_seq
    }

    /// What the panel shows for `tab`.
    pub fn model(&self, tab: i32) -> PanelModel {
        let Some(log) = self.tabs.get(&tab) else { return PanelModel { tab, ..PanelModel::default() } };
        let calls: Vec<CallRecord> = log.calls.iter().cloned().collect();
        PanelModel {
            tab,
            answer_tokens: calls.iter().map(|c| c.answer_tokens).sum(),
            full_page_tokens: calls.iter().map(|c| c.full_page_tokens.unwrap_or(c.answer_tokens)).sum(),
            sessions: log.sessions.iter().cloned().collect(),
            calls,
        }
    }

    /// Tabs with recorded calls.
    pub fn tabs(&self) -> Vec<i32> {
        self.tabs.keys().copied().collect()
    }

    /// Forgets `tab`'s calls (the tab closed).
    pub fn forget_tab(&mut self, tab: i32) {
        self.tabs.remove(&tab);
    }

    /// Forgets every call.
    pub fn clear(&mut self) {
        self.tabs.clear();
    }
}

/// A call's arguments as a person may see them: URLs with their secret parameters masked,
/// arguments named like secrets masked, and the text typed into a secret field masked.
pub fn masked_args(call: &ToolCall, typed_secret: bool) -> Value {
    let mut args = serde_json::to_value(call).ok().and_then(|mut v| v.get_mut("args").map(Value::take));
    let Some(Value::Object(map)) = args.as_mut() else { return Value::Object(Default::default()) };
    for (name, value) in map.iter_mut() {
        if name == "fields" {
            mask_fields(value, typed_secret);
            continue;
        }
        let Value::String(text) = value else { continue };
        *text = if is_secret_name(name) || (name == "text" && typed_secret) {
            MASK.to_owned()
        } else if name == "url" {
            redact_url(text)
        } else {
            redact_text_urls(text)
        };
    }
    args.unwrap_or_default()
}

/// `browser_fill_form`'s fields as a person may see them: the text of a field named like a
/// secret is masked, and when one of them is a secret field (`typed_secret`) every text typed.
fn mask_fields(fields: &mut Value, typed_secret: bool) {
    let Value::Array(fields) = fields else { return };
    for field in fields.iter_mut().filter_map(Value::as_object_mut) {
        let typed = field.get("type").and_then(Value::as_str) == Some("textbox");
        let secret_name = field.get("name").and_then(Value::as_str).is_some_and(is_secret_name);
        if let Some(Value::String(text)) = field.get_mut("value") {
            *text = if (typed && typed_secret) || secret_name { MASK.to_owned() } else { redact_text_urls(text) };
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{FieldKind, FillFormParams, FormField, NavigateParams, TypeParams};

    fn finished<'a>(call: &'a ToolCall, output: &'a ToolOutput, typed_secret: bool) -> Finished<'a> {
        Finished {
            session: "s1",
            call,
            typed_secret,
            started_ms: 1000.0,
            ended_ms: 1250.0,
            version_before: Some(1),
            version_after: Some(2),
            full_page_tokens: Some(400),
            output,
            targets: Vec::new(),
        }
    }

    fn typing(text: &str) -> ToolCall {
        ToolCall::BrowserType(TypeParams { element_ref: "e4".into(), text: text.into(), ..TypeParams::default() })
    }

    #[test]
    fn form_fields_typed_into_secret_fields_or_named_like_secrets_are_masked() {
        let field = |name: &str, kind: FieldKind, value: &str| FormField {
            name: name.into(),
            kind,
            element_ref: "e1".into(),
            value: value.into(),
        };
        let call = |fields| ToolCall::BrowserFillForm(FillFormParams { fields, ..FillFormParams::default() });
        let form = call(vec![
            field("Email", FieldKind::Textbox, "a@example.com"),
            field("Password", FieldKind::Textbox, "hunter2"),
            field("Remember me", FieldKind::Checkbox, "true"),
        ]);
        let args = masked_args(&form, false);
        assert_eq!(args["fields"][0]["value"], json!("a@example.com"));
        assert_eq!(args["fields"][1]["value"], json!(MASK), "named like a secret");
        let args = masked_args(&form, true);
        assert_eq!(args["fields"][0]["value"], json!(MASK), "a secret field among them masks all typed text");
        assert_eq!(args["fields"][2]["value"], json!("true"));
    }

    #[test]
    fn text_typed_into_a_secret_field_and_url_secrets_never_reach_the_log() {
        let mut log = SessionLog::default();
        let output = ToolOutput::text("v2 (delta from v1)\n~ e4 textbox \"Password\" = ••••••");
        log.record(7, &finished(&typing("hunter2"), &output, true));
        let nav = ToolCall::BrowserNavigate(NavigateParams {
            url: Some("https://example.com/cb?code=abc123&state=7f".into()),
            ..NavigateParams::default()
        });
        log.record(7, &finished(&nav, &ToolOutput::text("v3"), false));
        let shown = serde_json::to_string(&log.model(7)).unwrap_or_default();
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!shown.contains("abc123"), "{shown}");
        let model = log.model(7);
        assert_eq!(model.calls[0].args["text"], json!(MASK));
        assert_eq!(model.calls[1].args["url"], json!("https://example.com/cb?code=••••••&state=7f"));
        // Text typed into an ordinary field is shown as it was.
        log.record(7, &finished(&typing("rain jacket"), &output, false));
        assert_eq!(log.model(7).calls[2].args["text"], json!("rain jacket"));
    }

    #[test]
    fn a_record_carries_timing_versions_kind_and_tokens() {
        let mut log = SessionLog::default();
        let call = typing("x");
        let output = ToolOutput {
            text: "v2 (delta from v1)\n~ e4 textbox \"Search\" = \"x\"".into(),
            structured: Some(json!({"kind": "delta", "version": 2})),
            ..ToolOutput::default()
        };
        log.record(3, &finished(&call, &output, false));
        let model = log.model(3);
        let c = &model.calls[0];
        assert_eq!((c.seq, c.tool.as_str(), c.duration_ms), (1, "browser_type", 250.0));
        assert_eq!((c.version_before, c.version_after), (Some(1), Some(2)));
        assert_eq!(c.kind.as_deref(), Some("delta"));
        assert_eq!(c.answer_tokens, estimate_tokens(&output.text));
        assert_eq!(model.full_page_tokens, 400);
        assert_eq!(model.answer_tokens, c.answer_tokens);
        assert_eq!(model.sessions, vec!["s1".to_owned()]);
        let failed = ToolOutput::error("browser_click: e9 is not on this page");
        log.record(3, &finished(&call, &failed, false));
        assert_eq!(log.model(3).calls[1].kind.as_deref(), Some("error"));
        assert!(log.model(4).calls.is_empty());
    }

    #[test]
    fn the_log_is_bounded_in_count_and_bytes_dropping_the_oldest() {
        let mut log = SessionLog::default();
        let call = typing("x");
        let small = ToolOutput::text("v1");
        for _ in 0..MAX_CALLS + 5 {
            log.record(1, &finished(&call, &small, false));
        }
        let model = log.model(1);
        assert_eq!(model.calls.len(), MAX_CALLS);
        assert_eq!(model.calls[0].seq, 6);
        let big = ToolOutput::text("x".repeat(MAX_ANSWER_BYTES * 2));
        for _ in 0..40 {
            log.record(2, &finished(&call, &big, false));
        }
        let model = log.model(2);
        assert!(model.calls.iter().all(|c| c.answer.len() < MAX_ANSWER_BYTES + 100));
        let kept: usize = model.calls.iter().map(|c| c.answer.len()).sum();
        assert!(kept <= MAX_BYTES, "{kept}");
        assert_eq!(model.calls.last().map(|c| c.seq), Some(40));
        log.forget_tab(2);
        assert!(log.model(2).calls.is_empty());
        log.clear();
        assert!(log.tabs().is_empty());
    }
}
