//! Stage 3 of the pipeline: the text an agent reads, and lossless paging.
//!
//! ```text
//! Tiny shop
//! http://127.0.0.1:8000/shop.html · v2
//! <nav label="Main">
//! [e1 Home]
//! [e2 Sale]
//! </nav>
//! # Tiny shop
//! Basket: 0 items
//! e3 button "Add to basket"
//! e4 textbox "Search" = "red shoes" hint="e.g. blue"
//! e5 combobox "Size" = "M" [S|M|L|XL] required
//! Read [e6 our guide] before ordering.
//! ```
//!
//! A ref appears only on what an agent can act on; links sit inside their sentence; an element
//! with nothing to name it by says `(no name)`. Regions
//! are marked only at landmarks, indentation only where hierarchy carries meaning (lists,
//! groups, controls inside controls). What another site's frame shows sits between
//! `<frame site="other" origin="https://bank.example">` and `</frame>`; a refused frame is one
//! line, `<frame origin="file://" refused="…" />`. Element boxes are added on request (`@x,y,w,h`, CSS
//! pixels, page coordinates), except where a box repeats the enclosing element's. A page that
//! would exceed the ceiling is split into pages at line boundaries; every page says how to get
//! the next one, and nothing is dropped.
//!
//! Every line is written beside the refs it shows ([`BodyLine::refs`]), taken from the outline:
//! nothing reads refs back out of the text. Page text is written by the rules of
//! [`super::escape`], so that no page can write a line, a ref or a tag of its own; preformatted
//! text of several lines is fenced (` ``` `).

use std::collections::BTreeSet;

use super::element::ElementFacts;
use super::escape;
use super::outline::{LineContent, Run};
pub use super::tags::{
    FRAME_CLOSE, frame_open, in_frames, region_attributes, region_close, region_open, region_tag,
    unchanged_region_line, with_regions,
};
use super::{ElementId, RegionId, Snapshot};
use crate::text::prefix_bytes;

/// Default ceiling of one response, in estimated tokens.
pub const DEFAULT_CEILING_TOKENS: usize = 12_000;

/// How to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// Add element boxes.
    pub bbox: bool,
    /// Split into pages above this many estimated tokens.
    pub ceiling_tokens: usize,
    /// Which page (1-based).
    pub page: usize,
    /// Regions written as one self-closing `unchanged` tag (their content is what the agent
    /// already has).
    pub collapsed: BTreeSet<RegionId>,
    /// Only this region (and the regions inside it).
    pub region: Option<RegionId>,
    /// Show at most this many lines of each region (its first and last lines), with a
    /// `<trimmed …/>` marker saying what was left out and how to get it.
    pub trim: Option<usize>,
    /// Said at the end of the header's version line (why the full page is sent).
    pub header_note: Option<String>,
    /// Leave the title and URL out of the header, which is then the version line alone (`v5 ·
    /// …`): the agent has them (a full page answering its action on the same page).
    pub omit_address: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            bbox: false,
            ceiling_tokens: DEFAULT_CEILING_TOKENS,
            page: 1,
            collapsed: BTreeSet::new(),
            region: None,
            trim: None,
            header_note: None,
            omit_address: false,
        }
    }
}

/// One rendered page of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// This page (1-based).
    pub page: usize,
    /// Number of pages.
    pub pages: usize,
}

/// Estimated tokens of a text (about four characters per token; measured with the o200k
/// tokenizer on the corpus, Sightline's text averages 3.9).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Quotes a name or value as JSON, so quotes and line breaks inside stay readable and nothing
/// inside can pose as structure ([`escape::quote`]).
pub fn quote(s: &str) -> String {
    escape::quote(s)
}

/// Written in place of the name of an element that has none at all (no accessible name, title,
/// description, icon or text, and no hint).
pub const NO_NAME: &str = "(no name)";

/// Whether an element says nothing that could name it.
fn nameless(facts: &ElementFacts) -> bool {
    facts.name.is_empty() && facts.text.is_none() && !facts.attrs.iter().any(|(k, _)| *k == "hint")
}

/// The parts of one actionable element's line, in order: ref, role, quoted name, `=` and the
/// quoted value, the compound description, states, attributes (`key="…"`), the element's own
/// text (joined to the part before it with `: `), the box. [`element_line`] joins them with
/// spaces; deltas compare them part by part.
pub fn element_parts(facts: &ElementFacts, element_ref: &str, bbox: Option<[i64; 4]>) -> Vec<String> {
    let mut parts = vec![element_ref.to_owned(), facts.role.clone()];
    if !facts.name.is_empty() {
        parts.push(quote(&facts.name));
    } else if nameless(facts) {
        parts.push(NO_NAME.to_owned());
    }
    if let Some(value) = &facts.value {
        parts.push("=".to_owned());
        parts.push(quote(value));
    }
    if let Some(compound) = &facts.compound {
        parts.push(escape::text(compound));
    }
    parts.extend(facts.states.iter().map(|s| (*s).to_owned()));
    parts.extend(facts.attrs.iter().map(|(key, value)| format!("{key}={}", quote(value))));
    if let Some(text) = &facts.text
        && let Some(last) = parts.last_mut()
    {
        last.push_str(": ");
        last.push_str(&escape::text(text));
    }
    if let Some([x, y, w, h]) = bbox {
        parts.push(format!("@{x},{y},{w},{h}"));
    }
    parts
}

/// The line of one actionable element: `e12 combobox "Size" = "M" [S|M|L] required hint="…"`.
pub fn element_line(facts: &ElementFacts, element_ref: &str, bbox: Option<[i64; 4]>) -> String {
    element_parts(facts, element_ref, bbox).join(" ")
}

/// A link's text (written between `[` and `]`, escaped): its name, or title, or id.
fn link_label(facts: &ElementFacts) -> String {
    if !facts.name.is_empty() {
        return facts.name.clone();
    }
    facts
        .attrs
        .iter()
        .find(|(k, _)| *k == "title" || *k == "id")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "link".into())
}

/// Page text written on one line so far, against [`escape::MAX_LINE_TEXT_BYTES`]: text, link
/// text, names of inline elements. Past it, text is left out and link texts become `…`; the
/// line ends with one marker saying how much was cut. Refs are always written.
struct Budget {
    left: usize,
    cut: usize,
}

impl Budget {
    fn new() -> Budget {
        Budget { left: escape::MAX_LINE_TEXT_BYTES, cut: 0 }
    }

    /// As much of `text` as is left, cut at a character boundary.
    fn take<'t>(&mut self, text: &'t str) -> &'t str {
        let kept = prefix_bytes(text, self.left);
        self.left -= kept.len();
        self.cut += text.len() - kept.len();
        kept
    }

    /// `line` with the marker of what was cut at its end.
    fn close(&self, line: String) -> String {
        if self.cut == 0 { line } else { format!("{line} {}", escape::cut_marker(self.cut)) }
    }
}

/// The runs of a line as one string. Preformatted text keeps its line breaks when
/// `keep_breaks` (a fenced block), else they become spaces.
fn runs_text(snapshot: &Snapshot, runs: &[Run], bbox: bool, budget: &mut Budget, keep_breaks: bool) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push_str(&escape::text(budget.take(t))),
            Run::Pre(t) if keep_breaks => out.push_str(&escape::pre(budget.take(t))),
            Run::Pre(t) => out.push_str(&escape::text(budget.take(t))),
            Run::Link(i) => {
                let e = snapshot.element(*i);
                let label = link_label(&e.facts);
                let kept = budget.take(&label);
                let label = if kept.is_empty() && !label.is_empty() { "…".to_owned() } else { escape::label(kept) };
                // The ref first: `[e6 our guide]` costs a token less than `[our guide](e6)`
                // under the usual tokenizers, and reads the way element lines do.
                let element_ref = snapshot.element_ref(*i);
                if label.is_empty() {
                    out.push_str(&format!("[{element_ref}]"));
                } else {
                    out.push_str(&format!("[{element_ref} {label}]"));
                }
                if bbox && let Some([x, y, w, h]) = snapshot.bbox_shown(*i) {
                    out.push_str(&format!("@{x},{y},{w},{h}"));
                }
            }
            Run::Element(i) => {
                let e = snapshot.element(*i);
                // A ref glued to a word would not read as a ref.
                if out.chars().last().is_some_and(escape::word_char) {
                    out.push(' ');
                }
                let mut s = format!("{} {}", snapshot.element_ref(*i), e.facts.role);
                if !e.facts.name.is_empty() {
                    s.push(' ');
                    s.push_str(&quote(budget.take(&e.facts.name)));
                } else if nameless(&e.facts) {
                    s.push(' ');
                    s.push_str(NO_NAME);
                }
                for state in &e.facts.states {
                    s.push(' ');
                    s.push_str(state);
                }
                out.push_str(&s);
            }
            Run::Image(alt) => out.push_str(&format!("![{}]", escape::label(budget.take(alt)))),
        }
    }
    out
}

/// The fence around preformatted text of more than one line; page text inside cannot close
/// it (a line of it starting with the fence is marked).
pub const FENCE: &str = "```";

/// One line of a snapshot's body as written, with the region it belongs to and the refs it
/// shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyLine {
    /// The innermost region.
    pub region: Option<RegionId>,
    /// The text.
    pub text: String,
    /// Ref numbers the line shows, in order.
    pub refs: Vec<u32>,
}

/// The text of one line of the snapshot body.
pub fn line_text(snapshot: &Snapshot, indent: u8, content: &LineContent, bbox: bool) -> String {
    let pad = "  ".repeat(indent as usize);
    let mut budget = Budget::new();
    match content {
        LineContent::Text(runs) => {
            let pre = runs.iter().any(|r| matches!(r, Run::Pre(_)));
            let t = runs_text(snapshot, runs, bbox, &mut budget, pre);
            let t = budget.close(t);
            let starts_with_text = matches!(runs.first(), Some(Run::Text(_) | Run::Pre(_)));
            if !t.contains('\n') {
                // Page text that would start like structure is marked.
                let t = if starts_with_text { escape::line_start(t) } else { t };
                return format!("{pad}{t}");
            }
            // Preformatted text keeps its own line breaks, fenced; each line is marked as a
            // line of its own would be, so none can close the fence or pose as structure.
            let lines: Vec<&str> = t.lines().collect();
            let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
            let last = lines.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(0);
            let mut out = vec![format!("{pad}{FENCE}")];
            out.extend(lines[first..=last].iter().map(|l| format!("{pad}{}", escape::line_start((*l).to_owned()))));
            out.push(format!("{pad}{FENCE}"));
            out.join("\n")
        }
        LineContent::Heading { level, runs } => {
            let t = runs_text(snapshot, runs, bbox, &mut budget, false);
            format!("{pad}{} {}", "#".repeat(*level as usize), budget.close(t))
        }
        LineContent::Item { marker, runs } => {
            let t = runs_text(snapshot, runs, bbox, &mut budget, false);
            format!("{pad}{marker} {}", budget.close(t))
        }
        LineContent::Row { cells, header } => {
            let cells: Vec<String> = cells.iter().map(|c| runs_text(snapshot, c, bbox, &mut budget, false)).collect();
            let row = budget.close(format!("{pad}| {} |", cells.join(" | ")));
            if *header { format!("{row}\n{pad}|{}|", vec!["---"; cells.len()].join("|")) } else { row }
        }
        LineContent::Element(i) => {
            let bbox = if bbox { snapshot.bbox_shown(*i) } else { None };
            format!("{pad}{}", element_line(&snapshot.element(*i).facts, &snapshot.element_ref(*i), bbox))
        }
        LineContent::Group { role, name } => {
            format!("{pad}{role} {}:", quote(&escape::cap(name, escape::MAX_NAME_BYTES)))
        }
        LineContent::Note(note) => format!("{pad}! {note}"),
        LineContent::RefusedFrame { origin, reason } => {
            format!("{pad}<frame origin={} refused={} />", quote(origin), quote(reason))
        }
    }
}

/// The ref numbers of the elements `content` shows.
pub fn line_refs(snapshot: &Snapshot, content: &LineContent) -> Vec<u32> {
    content.elements().into_iter().map(|e: ElementId| snapshot.element(e).number).collect()
}

/// Every line of the snapshot body, with its region and refs.
pub fn body_lines(snapshot: &Snapshot, bbox: bool) -> Vec<BodyLine> {
    snapshot
        .lines
        .iter()
        .map(|line| BodyLine {
            region: line.region,
            text: line_text(snapshot, line.indent, &line.content, bbox),
            refs: line_refs(snapshot, &line.content),
        })
        .collect()
}

/// The title as the header's first line: page text, marked with `\` when it would start like
/// structure or read as the URL and version line that follows it.
fn title_line(title: &str) -> String {
    escape::line_start(escape::text(&escape::cap(title, escape::MAX_NAME_BYTES)))
}

/// Renders the snapshot (header and body) as one or more pages.
pub fn render(snapshot: &Snapshot, version: u64, options: &RenderOptions) -> Rendered {
    let header = if options.omit_address {
        format!("v{version}")
    } else {
        let title =
            if snapshot.title.is_empty() { String::new() } else { format!("{}\n", title_line(&snapshot.title)) };
        format!("{title}{} · v{version}", snapshot.url)
    };
    let body = shape(snapshot, body_lines(snapshot, options.bbox), options);
    let pages = paginate(&body, options.ceiling_tokens.max(200));
    let count = pages.len().max(1);
    let page = options.page.clamp(1, count);
    let mut out = vec![header];
    if count > 1 {
        out[0].push_str(&format!(" · page {page} of {count}"));
    }
    if let Some(note) = &options.header_note {
        out[0].push_str(&format!(" · {note}"));
    }
    let chosen = pages.get(page - 1).cloned().unwrap_or_default();
    with_regions(snapshot, &chosen, &mut out);
    if page < count {
        out.push(format!(
            "… {} more page(s): call browser_snapshot with page={} to continue (nothing is left out)",
            count - page,
            page + 1
        ));
    }
    Rendered { text: out.join("\n"), page, pages: count }
}

/// Applies the region options: one region only, collapsed regions, trimmed regions.
fn shape(snapshot: &Snapshot, lines: Vec<BodyLine>, options: &RenderOptions) -> Vec<BodyLine> {
    let mut out: Vec<BodyLine> = Vec::with_capacity(lines.len());
    let mut written: BTreeSet<RegionId> = BTreeSet::new();
    for line in lines {
        if let Some(only) = options.region
            && !snapshot.within(line.region, only)
        {
            continue;
        }
        // The outermost collapsed region holding the line stands for it.
        let collapsed = snapshot.region_path(line.region).into_iter().find(|r| options.collapsed.contains(r));
        match collapsed {
            Some(r) => {
                if written.insert(r) {
                    let text = unchanged_region_line(snapshot, r);
                    let refs = snapshot.region(r).element.map(|e| snapshot.element(e).number).into_iter().collect();
                    out.push(BodyLine { region: snapshot.region(r).parent, text, refs });
                }
            }
            None => out.push(line),
        }
    }
    match options.trim {
        Some(limit) => trim(snapshot, out, limit.max(2)),
        None => out,
    }
}

/// Keeps the first and last lines of each region's run of lines beyond `limit`, with a marker
/// for what is left out.
fn trim(snapshot: &Snapshot, lines: Vec<BodyLine>, limit: usize) -> Vec<BodyLine> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let region = lines[i].region;
        let end = lines[i..].iter().position(|l| l.region != region).map(|p| i + p).unwrap_or(lines.len());
        let run = &lines[i..end];
        match region {
            Some(r) if run.len() > limit => {
                let head = limit.div_ceil(2);
                let tail = limit / 2;
                out.extend_from_slice(&run[..head]);
                let hidden = &run[head..run.len() - tail];
                let refs: usize = hidden.iter().map(|l| l.refs.len()).sum();
                let name = &snapshot.region(r).name;
                out.push(BodyLine {
                    region,
                    text: format!(
                        "<trimmed count=\"{}\" refs=\"{refs}\" region=\"{}\" /> (browser_snapshot region={} shows them; browser_find searches them)",
                        hidden.len(),
                        name.replace('"', "'"),
                        quote(name),
                    ),
                    refs: Vec::new(),
                });
                out.extend_from_slice(&run[run.len() - tail..]);
            }
            _ => out.extend_from_slice(run),
        }
        i = end;
    }
    out
}

/// Splits lines into pages of at most `ceiling` estimated tokens (a single longer line gets a
/// page of its own).
fn paginate(lines: &[BodyLine], ceiling: usize) -> Vec<Vec<BodyLine>> {
    let mut pages = vec![Vec::new()];
    let mut used = 0;
    for line in lines {
        let cost = estimate_tokens(&line.text) + 1;
        if used + cost > ceiling && !pages.last().is_none_or(Vec::is_empty) {
            pages.push(Vec::new());
            used = 0;
        }
        used += cost;
        if let Some(page) = pages.last_mut() {
            page.push(line.clone());
        }
    }
    pages
}
