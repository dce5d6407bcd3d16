//! Extension points for measurements that other parts of Sightline will provide. Each one is
//! called by the bench at the right moment with what it needs, and returns nothing until it is
//! implemented: the report shows a column or section only when someone fills it, so nothing
//! here may ever return an invented or constant value.
//!
//! * [`sightline_page_extras`]: per corpus page, beside Sightline's snapshot tokens — fidelity
//!   (interactive coverage, text coverage) and a profile of the call: the pipeline time in wasm,
//!   the CDP capture with each method's own wait, payload conversion, and the rest of the wall
//!   time (settling, page state, bridge, host, MCP).
//! * [`sightline_changes`]: after the scripted errors of the tracking page, the size of
//!   `get_changes_since`, compared in the report with reading each peer's console and network
//!   lists after the same errors.

use std::path::Path;

use crate::client::Reply;
use serde::Serialize;

use super::servers::Server;
use super::tokens::{Size, Tokenizer};
use crate::paths::Corpus;

/// One extra measurement of one page, shown as a column named `name`.
#[derive(Debug, Clone, Serialize)]
pub struct ExtraColumn {
    /// The column header, e.g. `interactive coverage`.
    pub name: String,
    /// The value.
    pub value: ExtraValue,
}

/// The value of an extra column, which also says how to print it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraValue {
    /// A share between 0 and 1, printed as a percentage.
    Ratio(f64),
    /// A duration in milliseconds.
    Millis(f64),
}

impl std::fmt::Display for ExtraValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtraValue::Ratio(r) => write!(f, "{:.1}%", r * 100.0),
            ExtraValue::Millis(ms) => write!(f, "{ms:.0} ms"),
        }
    }
}

/// What a per-page measurement can use: the live Sightline server showing the page, the page's
/// URL and saved source, and the `browser_snapshot` reply the bench just measured.
#[allow(dead_code, reason = "read by the measures that plug into `sightline_page_extras`")]
pub struct PageProbe<'a> {
    /// Sightline, with the page loaded in its current tab.
    pub server: &'a Server,
    /// The corpus the page belongs to.
    pub corpus: Corpus,
    /// The corpus case (its directory or file name).
    pub case: &'a str,
    /// The URL the page was loaded from.
    pub url: &'a str,
    /// The saved page.
    pub source: &'a Path,
    /// The snapshot reply measured for this page.
    pub snapshot: &'a Reply,
    /// Its wall time as the MCP client saw it, when it took one call.
    pub wall_ms: Option<f64>,
    /// The navigation to the page that came before, and its wall time: a new document, so
    /// always a fresh capture (taken ahead of its settle wait when that held).
    pub navigate: Option<(&'a Reply, f64)>,
}

/// Sightline's extra columns for one corpus page: fidelity beside its tokens (interactive
/// coverage, text coverage) and its pipeline time in wasm against the CDP capture time.
///
/// Called once per page, right after Sightline's snapshot of it. Return one [`ExtraColumn`] per
/// measure, always with the same names (a measure a page has no value for is left out); an empty
/// list adds no column to the report.
pub async fn sightline_page_extras(probe: &PageProbe<'_>) -> Vec<ExtraColumn> {
    let mut columns = fidelity(probe.corpus, probe.case);
    // The extension measures its times itself and reports them with every answer that shows a
    // page.
    columns.extend(profile("", probe.snapshot, probe.wall_ms));
    let stats = probe.snapshot.structured.as_ref().map(|s| &s["stats"]);
    if let Some(stats) = stats.filter(|s| s["probe_ms"].is_number()) {
        let reused = if stats["capture_reused"] == true { 1.0 } else { 0.0 };
        columns.push(ExtraColumn { name: "snapshot reused the last capture".into(), value: ExtraValue::Ratio(reused) });
    }
    if let Some((navigate, wall)) = probe.navigate {
        columns.extend(profile("navigate: ", navigate, Some(wall)));
        // Whether the capture taken as soon as the page loaded still held after the settle wait.
        if let Some(stats) = navigate.structured.as_ref().map(|s| &s["stats"]).filter(|s| s["probe_ms"].is_number()) {
            let ahead = if stats["captured_ahead"] == true { 1.0 } else { 0.0 };
            columns.push(ExtraColumn {
                name: "navigate: captured ahead of the settle wait".into(),
                value: ExtraValue::Ratio(ahead),
            });
        }
    }
    columns
}

/// The profile of a snapshot of the page after the bench changed it, its columns named
/// `changed page: …`: a snapshot that cannot reuse a capture, so probe, capture, conversion and
/// pipeline all run. `wall_ms` is its wall time when it took one call.
pub fn changed_page_extras(snapshot: &Reply, wall_ms: Option<f64>) -> Vec<ExtraColumn> {
    profile("changed page: ", snapshot, wall_ms)
}

/// The profile of one call that captured the page, each column's name after `prefix`: the
/// pipeline in wasm, the probe, the CDP capture with each method's own wait, payload conversion,
/// loading and settling (a navigation), and the rest of the wall time: page-state work and
/// rendering in the worker, then the bridge, the host and MCP.
fn profile(prefix: &str, reply: &Reply, wall_ms: Option<f64>) -> Vec<ExtraColumn> {
    let mut columns = Vec::new();
    let mut push = |name: &str, value: ExtraValue| columns.push(ExtraColumn { name: format!("{prefix}{name}"), value });
    let stats = reply.structured.as_ref().map(|s| &s["stats"]);
    let millis = |key: &str| stats.and_then(|s| s[key].as_f64());
    if let (Some(pipeline), Some(capture)) = (millis("pipeline_ms"), millis("capture_ms")) {
        push("wasm pipeline", ExtraValue::Millis(pipeline));
        let probe = millis("probe_ms").unwrap_or_default();
        if millis("probe_ms").is_some() {
            push("probe", ExtraValue::Millis(probe));
        }
        push("CDP capture", ExtraValue::Millis(capture));
        if let Some(convert) = millis("convert_ms") {
            push("payload conversion", ExtraValue::Millis(convert));
        }
        if capture > 0.0 {
            push("pipeline ÷ capture", ExtraValue::Ratio(pipeline / capture));
        }
        // A navigation's waits: loading, its next frame, then settling; and the images, style
        // sheets and fonts still loading just before the capture.
        let mut waits = 0.0;
        let waited = [
            ("load_ms", "load"),
            ("frame_ms", "next frame"),
            ("settle_ms", "settle"),
            ("loads_ms", "subresource loads"),
        ];
        for (key, name) in waited {
            if let Some(ms) = millis(key) {
                waits += ms;
                push(name, ExtraValue::Millis(ms));
            }
        }
        if let (Some(wall), Some(convert)) = (wall_ms, millis("convert_ms")) {
            let measured = waits + probe + capture + convert + pipeline;
            // The extension also says how long the whole call took in its worker: the rest is
            // then split between the worker and the way to and fro.
            match millis("worker_ms") {
                Some(worker) => {
                    push("rest in the worker", ExtraValue::Millis((worker - measured).max(0.0)));
                    push("bridge, host and MCP", ExtraValue::Millis((wall - worker).max(0.0)));
                }
                None => push("rest of the call", ExtraValue::Millis((wall - measured).max(0.0))),
            }
        }
    }
    // Each CDP method's own wait (they overlap; the slowest bounds the capture).
    if let Some(methods) = stats.and_then(|s| s["capture_by_method"].as_object()) {
        for method in CAPTURE_METHODS {
            if let Some(ms) = methods.get(method).and_then(serde_json::Value::as_f64) {
                push(&format!("CDP {method}"), ExtraValue::Millis(ms));
            }
        }
    }
    columns
}

/// The CDP methods of a capture, in the order the profile lists them.
const CAPTURE_METHODS: [&str; 5] = [
    "DOMSnapshot.captureSnapshot",
    "Accessibility.getFullAXTree",
    "Page.getFrameTree",
    "Page.getLayoutMetrics",
    "DOM.getFrameOwner",
];

/// Interactive and text coverage of the page, measured on the capture `cargo xtask test` (or
/// `cargo xtask capture --corpus NAME --all`) recorded of the same page with its ground truth,
/// by the same pipeline the extension runs (compiled natively). Nothing when no capture exists.
fn fidelity(corpus: Corpus, case: &str) -> Vec<ExtraColumn> {
    let path = corpus.captures_dir().join(format!("{case}.json"));
    let Ok(bytes) = std::fs::read(&path) else { return Vec::new() };
    let (Ok(capture), Ok(recorded)) = (
        serde_json::from_slice::<sightline_core::capture::Capture>(&bytes).map(|c| c.without_accessibility_trees()),
        serde_json::from_slice::<crate::fidelity::RecordedPage>(&bytes),
    ) else {
        return Vec::new();
    };
    let mut refs = sightline_core::refs::RefRegistry::default();
    let snapshot = sightline_core::snapshot::compile(&capture, &mut refs);
    let f = crate::fidelity::measure(&capture, &recorded, &snapshot);
    vec![
        ExtraColumn { name: "interactive coverage".into(), value: ExtraValue::Ratio(f.interactive()) },
        ExtraColumn { name: "text coverage".into(), value: ExtraValue::Ratio(f.text_shown()) },
        ExtraColumn { name: "text coverage (raw innerText)".into(), value: ExtraValue::Ratio(f.text()) },
    ]
}

/// The checkpoint Sightline marks before loading the tracking page.
pub const CHECKPOINT: &str = "before_tracking";

/// Marks a named checkpoint on Sightline before the tracking page loads, as an agent that wants
/// to know what a page broke does. Its reply is counted with the report.
pub async fn sightline_checkpoint(server: &Server, tokenizer: &Tokenizer) -> anyhow::Result<Size> {
    let args = serde_json::json!({"action": "create", "name": CHECKPOINT});
    let timed = server.call("browser_checkpoint", args, std::time::Duration::from_secs(30)).await?;
    anyhow::ensure!(!timed.reply.is_error, "browser_checkpoint failed: {}", timed.reply.text);
    Ok(Size::of(tokenizer, &timed.reply.text))
}

/// What Sightline's `get_changes_since` costs after the tracking page's scripted errors.
///
/// Called with Sightline showing the tracking page once its scripted errors have all happened
/// (the same moment the peers' console and network lists are read), after
/// [`sightline_checkpoint`] marked the moment before the page loaded: the window is the page's,
/// like the peers' lists. `marked` is the checkpoint reply's size, counted in. The tool label
/// carries the time the extension's engine took to build the report in wasm (`wasm_ms` of the
/// structured result), which the report has no column for.
pub async fn sightline_changes(server: &Server, tokenizer: &Tokenizer, marked: Size) -> Option<ChangesReading> {
    const TOOL: &str = "get_changes_since";
    let args = serde_json::json!({"checkpoint": CHECKPOINT});
    let timed = match server.call(TOOL, args, std::time::Duration::from_secs(30)).await {
        Ok(timed) => timed,
        Err(e) => {
            eprintln!("bench: Sightline {TOOL} failed: {e:#}");
            return Some(ChangesReading { tools: vec![TOOL.to_owned()], size: Size::default(), ok: false });
        }
    };
    // Saved beside the other replies the bench counted (best effort).
    let dir = super::report_dir().join("replies").join(super::servers::ServerKind::Sightline.slug()).join("changes");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join(format!("{TOOL}.txt")), &timed.reply.text);
    }
    let wasm_ms = timed.reply.structured.as_ref().and_then(|s| s["wasm_ms"].as_f64());
    let tool = match wasm_ms {
        Some(ms) => format!("{TOOL} since a checkpoint (report built in {ms:.2} ms in wasm)"),
        None => format!("{TOOL} since a checkpoint"),
    };
    eprintln!("bench: Sightline {tool}: {} bytes", timed.reply.text.len());
    let report = Size::of(tokenizer, &timed.reply.text);
    let size = Size { tokens: marked.tokens + report.tokens, chars: marked.chars + report.chars };
    Some(ChangesReading { tools: vec!["browser_checkpoint".to_owned(), tool], size, ok: !timed.reply.is_error })
}

/// What one server costs to tell an agent about the console errors and failed requests.
#[derive(Debug, Clone, Serialize)]
pub struct ChangesReading {
    /// The tools called, in order.
    pub tools: Vec<String>,
    /// The size of all their replies together.
    pub size: Size,
    /// Whether every reply succeeded.
    pub ok: bool,
}
