//! Stage 3 of the pipeline: the text an agent reads, and lossless paging.
//!
//! ```text
//! Tiny shop
//! http://127.0.0.1:8000/shop.html · v2
//! <region name="nav" label="Main">
//! - [Home](e1)
//! </region>
//! # Tiny shop
//! Basket: 0 items
//! e3 button "Add to basket"
//! e4 textbox "Search" = "red shoes" hint="e.g. blue"
//! e5 combobox "Size" = "M" [S|M|L|XL] required
//! Read [our guide](e6) before ordering.
//! ```
//!
//! A ref appears only on what an agent can act on; links sit inside their sentence. Regions
//! are marked only at landmarks, indentation only where hierarchy carries meaning (lists,
//! groups, controls inside controls). P3.4: element boxes are added on request (`@x,y,w,h`,
//! CSS pixels, page coordinates), except where a box repeats the enclosing element's. A page
//! that would exceed the ceiling is split into pages at line boundaries; every page says how to
//! get the next one, and nothing is dropped.

use std::collections::BTreeSet;

use super::Snapshot;
use super::element::ElementFacts;
use super::outline::{LineContent, Run};

/// Default ceiling of one response, in estimated tokens.
pub const DEFAULT_CEILING_TOKENS: usize = 12_000;

/// How to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// P3.4: add element boxes.
    pub bbox: bool,
    /// Split into pages above this many estimated tokens.
    pub ceiling_tokens: usize,
    /// Which page (1-based).
    pub page: usize,
    /// Regions written as one self-closing `unchanged` tag (their content is what the agent
    /// already has).
    pub collapsed: BTreeSet<usize>,
    /// Only this region (and the regions inside it).
    pub region: Option<usize>,
    /// Show at most this many lines of each region (its first and last lines), with a
    /// `<trimmed …/>` marker saying what was left out and how to get it.
    pub trim: Option<usize>,
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

/// Quotes a name or value the way JSON does, so quotes and line breaks inside stay readable.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// The line of one actionable element: `e12 combobox "Size" = "M" [S|M|L] required hint="…"`.
pub fn element_line(facts: &ElementFacts, element_ref: &str, bbox: Option<[i64; 4]>) -> String {
    let mut line = format!("{element_ref} {}", facts.role);
    if !facts.name.is_empty() {
        line.push(' ');
        line.push_str(&quote(&facts.name));
    }
    if let Some(value) = &facts.value {
        line.push_str(" = ");
        line.push_str(&quote(value));
    }
    if let Some(compound) = &facts.compound {
        line.push(' ');
        line.push_str(compound);
    }
    for state in &facts.states {
        line.push(' ');
        line.push_str(state);
    }
    for (key, value) in &facts.attrs {
        line.push_str(&format!(" {key}={}", quote(value)));
    }
    if let Some(text) = &facts.text {
        line.push_str(": ");
        line.push_str(text);
    }
    if let Some([x, y, w, h]) = bbox {
        line.push_str(&format!(" @{x},{y},{w},{h}"));
    }
    line
}

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

fn runs_text(snapshot: &Snapshot, runs: &[Run], bbox: bool) -> String {
    let mut out = String::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push_str(t),
            Run::Pre(t) => out.push_str(t),
            Run::Link(i) => {
                let e = &snapshot.elements[*i];
                out.push_str(&format!("[{}]({})", link_label(&e.facts), snapshot.element_ref(*i)));
                if bbox && let Some([x, y, w, h]) = snapshot.bbox_shown(*i) {
                    out.push_str(&format!("@{x},{y},{w},{h}"));
                }
            }
            Run::Element(i) => {
                let e = &snapshot.elements[*i];
                let mut s = format!("{} {}", snapshot.element_ref(*i), e.facts.role);
                if !e.facts.name.is_empty() {
                    s.push(' ');
                    s.push_str(&quote(&e.facts.name));
                }
                for state in &e.facts.states {
                    s.push(' ');
                    s.push_str(state);
                }
                out.push_str(&s);
            }
            Run::Image(alt) => out.push_str(&format!("![{alt}]")),
        }
    }
    out
}

/// The text of every line of the snapshot body, with the region each belongs to.
pub fn body_lines(snapshot: &Snapshot, bbox: bool) -> Vec<(Option<usize>, String)> {
    let mut out = Vec::with_capacity(snapshot.lines.len());
    for line in &snapshot.lines {
        let pad = "  ".repeat(line.indent as usize);
        let text = match &line.content {
            LineContent::Text(runs) => {
                let t = runs_text(snapshot, runs, bbox);
                // Preformatted text keeps its own line breaks.
                t.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
            }
            LineContent::Heading { level, runs } => {
                format!("{pad}{} {}", "#".repeat(*level as usize), runs_text(snapshot, runs, bbox))
            }
            LineContent::Item { marker, runs } => format!("{pad}{marker} {}", runs_text(snapshot, runs, bbox)),
            LineContent::Row { cells, header } => {
                let cells: Vec<String> = cells.iter().map(|c| runs_text(snapshot, c, bbox)).collect();
                let row = format!("{pad}| {} |", cells.join(" | "));
                if *header { format!("{row}\n{pad}|{}|", vec!["---"; cells.len()].join("|")) } else { row }
            }
            LineContent::Element(i) => {
                let bbox = if bbox { snapshot.bbox_shown(*i) } else { None };
                format!("{pad}{}", element_line(&snapshot.elements[*i].facts, &snapshot.element_ref(*i), bbox))
            }
            LineContent::Group { role, name } => format!("{pad}{role} {}:", quote(name)),
        };
        out.push((line.region, text));
    }
    out
}

/// The attributes of a region's tag: its name, label, and ref when it can be acted on.
pub fn region_attributes(snapshot: &Snapshot, region: usize) -> String {
    let r = &snapshot.regions[region];
    let mut attrs = format!("name=\"{}\"", r.kind);
    if !r.label.is_empty() {
        attrs.push_str(&format!(" label={}", quote(&r.label)));
    }
    if let Some(e) = r.element {
        attrs.push_str(&format!(" ref=\"{}\"", snapshot.element_ref(e)));
    }
    attrs
}

/// The opening tag of a region.
pub fn region_open(snapshot: &Snapshot, region: usize) -> String {
    format!("<region {}>", region_attributes(snapshot, region))
}

/// The chain of regions from the outermost to `region`.
fn region_path(snapshot: &Snapshot, region: Option<usize>) -> Vec<usize> {
    let mut path = Vec::new();
    let mut r = region;
    while let Some(i) = r {
        path.push(i);
        r = snapshot.regions[i].parent;
    }
    path.reverse();
    path
}

/// Writes body lines with region tags opened and closed around them.
pub fn with_regions(snapshot: &Snapshot, lines: &[(Option<usize>, String)], out: &mut Vec<String>) {
    let mut open: Vec<usize> = Vec::new();
    for (region, text) in lines {
        let path = region_path(snapshot, *region);
        let common = open.iter().zip(&path).take_while(|(a, b)| a == b).count();
        while open.len() > common {
            open.pop();
            out.push("</region>".into());
        }
        for &r in &path[common..] {
            out.push(region_open(snapshot, r));
            open.push(r);
        }
        out.push(text.clone());
    }
    for _ in open {
        out.push("</region>".into());
    }
}

/// Renders the snapshot (header and body) as one or more pages.
pub fn render(snapshot: &Snapshot, version: u64, options: &RenderOptions) -> Rendered {
    let title = if snapshot.title.is_empty() { String::new() } else { format!("{}\n", snapshot.title) };
    let header = format!("{title}{} · v{version}", snapshot.url);
    let body = shape(snapshot, body_lines(snapshot, options.bbox), options);
    let pages = paginate(&body, options.ceiling_tokens.max(200));
    let count = pages.len().max(1);
    let page = options.page.clamp(1, count);
    let mut out = vec![header];
    if count > 1 {
        out[0].push_str(&format!(" · page {page} of {count}"));
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

/// Whether region `r` is `ancestor` or inside it.
pub fn within(snapshot: &Snapshot, r: Option<usize>, ancestor: usize) -> bool {
    let mut at = r;
    while let Some(i) = at {
        if i == ancestor {
            return true;
        }
        at = snapshot.regions[i].parent;
    }
    false
}

/// Refs inside region `r` (and the regions inside it).
pub fn refs_in_region(snapshot: &Snapshot, r: usize) -> usize {
    snapshot.element_regions.iter().filter(|&&er| within(snapshot, er, r)).count()
}

/// Applies the region options: one region only, collapsed regions, trimmed regions.
fn shape(
    snapshot: &Snapshot,
    lines: Vec<(Option<usize>, String)>,
    options: &RenderOptions,
) -> Vec<(Option<usize>, String)> {
    let mut out: Vec<(Option<usize>, String)> = Vec::with_capacity(lines.len());
    let mut written: BTreeSet<usize> = BTreeSet::new();
    for (region, text) in lines {
        if let Some(only) = options.region
            && !within(snapshot, region, only)
        {
            continue;
        }
        // The outermost collapsed region holding the line stands for it.
        let collapsed = region_path(snapshot, region).into_iter().find(|r| options.collapsed.contains(r));
        match collapsed {
            Some(r) => {
                if written.insert(r) {
                    let tag = format!(
                        "<region {} unchanged=\"true\" count=\"{}\" />",
                        region_attributes(snapshot, r),
                        refs_in_region(snapshot, r)
                    );
                    out.push((snapshot.regions[r].parent, tag));
                }
            }
            None => out.push((region, text)),
        }
    }
    match options.trim {
        Some(limit) => trim(snapshot, out, limit.max(2)),
        None => out,
    }
}

/// Keeps the first and last lines of each region's run of lines beyond `limit`, with a marker
/// for what is left out.
fn trim(snapshot: &Snapshot, lines: Vec<(Option<usize>, String)>, limit: usize) -> Vec<(Option<usize>, String)> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let region = lines[i].0;
        let end = lines[i..].iter().position(|(r, _)| *r != region).map(|p| i + p).unwrap_or(lines.len());
        let run = &lines[i..end];
        match region {
            Some(r) if run.len() > limit => {
                let head = limit.div_ceil(2);
                let tail = limit / 2;
                out.extend_from_slice(&run[..head]);
                let hidden = &run[head..run.len() - tail];
                let refs: usize = hidden.iter().map(|(_, t)| crate::page_state::view::refs_in(t).len()).sum();
                out.push((
                    region,
                    format!(
                        "<trimmed count=\"{}\" refs=\"{refs}\" region=\"{}\" /> (browser_snapshot region={:?} shows them; browser_find searches them)",
                        hidden.len(),
                        snapshot.region_names[r].replace('"', "'"),
                        snapshot.region_names[r],
                    ),
                ));
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
fn paginate(lines: &[(Option<usize>, String)], ceiling: usize) -> Vec<Vec<(Option<usize>, String)>> {
    let mut pages = vec![Vec::new()];
    let mut used = 0;
    for line in lines {
        let cost = estimate_tokens(&line.1) + 1;
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
