//! Where a snapshot's tokens go: each byte of a snapshot's text is given the part of the grammar
//! that wrote it (the page's own text, refs, structure, link markup, region and frame lines,
//! header lines, escapes, element names and names that repeat text already written), and each
//! o200k token is counted for the part that owns most of its bytes, so the parts add up to the
//! snapshot's tokens exactly. Beside them, the visible-text floor: the tokens of the page's
//! `innerText` (each line's whitespace collapsed, blank lines left out), the words a user sees.
//!
//! The bench prints the table for the snapshots it received; `cargo xtask tokens` prints it
//! natively from the recorded captures of both corpora, compiled by the pipeline the extension
//! runs, with no browser.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::fidelity::RecordedPage;
use crate::grammar::ends_page_header;
use crate::paths::Corpus;
use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_core::snapshot::render::{RenderOptions, render};

use super::stats::summarize;
use super::tokens::Tokenizer;

/// What wrote a byte of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The page's own words: text, link texts, own text of controls, options.
    Text,
    /// `e12` markers.
    Refs,
    /// Role words, states, attribute keys, quotes, `=`, list markers, heading hashes, table
    /// pipes, indentation, fences, line breaks.
    Structure,
    /// `[`, the space after the ref and `]` of a link (`[e6 our guide]`), `![`/`]` around an
    /// image's text.
    LinkMarkup,
    /// Region, frame and trimmed tags.
    Regions,
    /// Title, URL and version line, notes, trailers.
    Header,
    /// Backslashes and JSON escapes.
    Escapes,
    /// Names and attribute values of elements (quoted) seen for the first time.
    Names,
    /// Quoted names that repeat a name or a text line already written.
    RepeatedNames,
}

/// The parts in the order the table shows them.
pub const PARTS: [Part; 9] = [
    Part::Text,
    Part::Refs,
    Part::Structure,
    Part::LinkMarkup,
    Part::Regions,
    Part::Header,
    Part::Escapes,
    Part::Names,
    Part::RepeatedNames,
];

impl Part {
    /// The column heading.
    pub fn label(self) -> &'static str {
        match self {
            Part::Text => "text",
            Part::Refs => "refs",
            Part::Structure => "structure",
            Part::LinkMarkup => "link markup",
            Part::Regions => "regions/frames",
            Part::Header => "header",
            Part::Escapes => "escapes",
            Part::Names => "names",
            Part::RepeatedNames => "repeated names",
        }
    }

    fn index(self) -> usize {
        PARTS.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// One page's breakdown.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PageParts {
    /// The page.
    pub case: String,
    /// The snapshot's tokens.
    pub total: usize,
    /// Tokens per part, in the order of [`PARTS`]; they add up to `total`.
    pub parts: [usize; PARTS.len()],
    /// Tokens of the page's visible text.
    pub floor: usize,
}

/// The page's visible text as a user reads it: `innerText` of the page and of its
/// out-of-process frames, each line's whitespace collapsed, blank lines left out.
pub fn visible_text(recorded: &RecordedPage) -> String {
    let texts = std::iter::once(&recorded.ground_truth.inner_text)
        .chain(recorded.children.iter().map(|c| &c.ground_truth.inner_text));
    let mut lines = Vec::new();
    for text in texts {
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if !words.is_empty() {
                lines.push(words.join(" "));
            }
        }
    }
    lines.join("\n")
}

/// Splits a snapshot's text into parts, byte for byte.
struct Classifier {
    owner: Vec<Part>,
    /// Names and text lines written so far, for repeated names.
    written: HashSet<String>,
}

impl Classifier {
    fn mark(&mut self, part: Part, len: usize) {
        self.owner.extend(std::iter::repeat_n(part, len));
    }

    fn line(&mut self, line: &str) {
        let body = line.trim_start_matches(' ');
        self.mark(Part::Structure, line.len() - body.len());
        // Page text never starts a line with `<` unmarked: every such line is a tag.
        if body.starts_with('<') {
            return self.mark(Part::Regions, body.len());
        }
        if body.starts_with("! ") || body.starts_with("… ") && body.contains("more page(s)") {
            return self.mark(Part::Header, body.len());
        }
        if body == "```" || body.starts_with("|---") {
            return self.mark(Part::Structure, body.len());
        }
        let mut rest = body;
        let heading = rest.chars().take_while(|c| *c == '#').count();
        if heading > 0 && rest[heading..].starts_with(' ') {
            self.mark(Part::Structure, heading + 1);
            rest = &rest[heading + 1..];
        } else if let Some(r) = rest.strip_prefix("- ") {
            self.mark(Part::Structure, 2);
            rest = r;
        } else {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 && rest[digits..].starts_with(". ") {
                self.mark(Part::Structure, digits + 2);
                rest = &rest[digits + 2..];
            }
        }
        if rest.starts_with("| ") && rest.ends_with(" |") {
            return self.runs(rest, true);
        }
        if let Some(end) = ref_end(rest, 0) {
            return self.element(rest, end);
        }
        self.runs(rest, false);
    }

    /// An element line from its ref on: ref, role, quoted name and value, states, attributes,
    /// `: ` and the element's own text.
    fn element(&mut self, s: &str, ref_end: usize) {
        self.mark(Part::Refs, ref_end);
        let mut i = ref_end;
        let bytes = s.as_bytes();
        while i < s.len() {
            if s[i..].starts_with(": ") {
                self.mark(Part::Structure, 2);
                return self.runs(&s[i + 2..], false);
            }
            if bytes[i] == b'"' {
                let end = json_end(s, i);
                self.quoted(&s[i..end]);
                i = end;
                continue;
            }
            if bytes[i] == b'[' {
                // Options of a select: page text.
                let end = s[i..].find("] ").map(|p| i + p + 1).unwrap_or(s.len());
                let end = if s[i..].ends_with(']') && end == s.len() { s.len() } else { end };
                self.mark(Part::Text, end - i);
                i = end;
                continue;
            }
            let c = s[i..].chars().next().map_or(1, char::len_utf8);
            self.mark(Part::Structure, c);
            i += c;
        }
    }

    /// A quoted name or value: quotes are structure, escapes their own part, the rest a name
    /// (or a repeated one).
    fn quoted(&mut self, quoted: &str) {
        let inner = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')).unwrap_or(quoted);
        let value: String = serde_json::from_str(quoted).unwrap_or_else(|_| inner.to_owned());
        let part = if self.written.contains(&value) { Part::RepeatedNames } else { Part::Names };
        self.written.insert(value);
        self.mark(Part::Structure, 1);
        let mut i = 0;
        while i < inner.len() {
            if inner[i..].starts_with("\\u") {
                self.mark(Part::Escapes, 6.min(inner.len() - i));
                i += 6;
            } else if inner[i..].starts_with('\\') {
                self.mark(Part::Escapes, 1);
                let c = inner[i + 1..].chars().next().map_or(0, char::len_utf8);
                self.mark(part, c);
                i += 1 + c;
            } else {
                let c = inner[i..].chars().next().map_or(1, char::len_utf8);
                self.mark(part, c);
                i += c;
            }
        }
        if quoted.len() > inner.len() + 1 {
            self.mark(Part::Structure, 1);
        }
    }

    /// Running text with links, images, inline elements and escapes; table pipes when `row`.
    fn runs(&mut self, s: &str, row: bool) {
        let start = self.owner.len();
        let mut plain = String::new();
        let mut in_link = false;
        let mut i = 0;
        while i < s.len() {
            let rest = &s[i..];
            if let Some(escaped) = rest.strip_prefix('\\') {
                self.mark(Part::Escapes, 1);
                let c = escaped.chars().next().map_or(0, char::len_utf8);
                self.mark(Part::Text, c);
                plain.push_str(&escaped[..c]);
                i += 1 + c;
            } else if row && (rest.starts_with("| ") || rest == " |" || rest.starts_with(" | ")) {
                let len = if rest.starts_with(" | ") { 3 } else { 2 };
                self.mark(Part::Structure, len);
                i += len;
            } else if rest.starts_with("![") {
                self.mark(Part::LinkMarkup, 2);
                in_link = true;
                i += 2;
            } else if rest.starts_with('[')
                && let Some(end) = ref_end(rest, 1)
                && (rest[end..].starts_with(' ') || rest[end..].starts_with(']'))
            {
                // A link, `[e6 our guide]`: brackets and the space are markup, the ref a ref.
                self.mark(Part::LinkMarkup, 1);
                self.mark(Part::Refs, end - 1);
                self.mark(Part::LinkMarkup, 1);
                in_link = rest[end..].starts_with(' ');
                i += end + 1;
            } else if rest.starts_with(']') && in_link {
                in_link = false;
                self.mark(Part::LinkMarkup, 1);
                i += 1;
            } else if rest.starts_with("…[cut ") {
                let end = rest.find(']').map_or(rest.len(), |p| p + 1);
                self.mark(Part::Structure, end);
                i += end;
            } else if let Some(end) = ref_end(s, i) {
                // An inline element: ref, role word, quoted name, states.
                self.mark(Part::Refs, end - i);
                i = end;
                let role = s[i..].strip_prefix(' ').map_or(0, |r| {
                    let n = r.chars().take_while(|c| c.is_ascii_lowercase()).count();
                    if n > 0 { n + 1 } else { 0 }
                });
                self.mark(Part::Structure, role);
                i += role;
                if s[i..].starts_with(" \"") {
                    self.mark(Part::Structure, 1);
                    let end = json_end(s, i + 1);
                    self.quoted(&s[i + 1..end]);
                    i = end;
                }
            } else {
                let c = rest.chars().next().map_or(1, char::len_utf8);
                self.mark(Part::Text, c);
                plain.push_str(&rest[..c]);
                i += c;
            }
        }
        debug_assert_eq!(self.owner.len() - start, s.len());
        let plain = plain.trim();
        if !plain.is_empty() {
            self.written.insert(plain.to_owned());
        }
    }
}

/// The end of a ref (`e12`, `f7`, not inside a word) at byte `i` of `s`.
fn ref_end(s: &str, i: usize) -> Option<usize> {
    if i > 0 && s[..i].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    Some(i + sightline_core::refs::leading_ref_len(&s[i..])?)
}

/// The end (exclusive) of the JSON string starting at byte `i` of `s`.
fn json_end(s: &str, i: usize) -> usize {
    let bytes = s.as_bytes();
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    s.len()
}

/// Gives each byte of `text` (a full snapshot) the part that wrote it.
pub fn classify(text: &str) -> Vec<Part> {
    let mut c = Classifier { owner: Vec::with_capacity(text.len()), written: HashSet::new() };
    let lines: Vec<&str> = text.split('\n').collect();
    let header_end = lines.iter().position(|l| ends_page_header(l)).map_or(0, |p| p + 1);
    for (n, line) in lines.iter().enumerate() {
        if n > 0 {
            c.mark(Part::Structure, 1);
        }
        if n < header_end {
            c.mark(Part::Header, line.len());
        } else {
            c.line(line);
        }
    }
    c.owner.truncate(text.len());
    c.owner
}

/// The breakdown of one snapshot against the visible text of its page.
pub fn breakdown(tokenizer: &Tokenizer, case: &str, snapshot: &str, visible: &str) -> PageParts {
    let owner = classify(snapshot);
    let mut parts = [0usize; PARTS.len()];
    let mut at = 0;
    for len in tokenizer.token_lengths(snapshot) {
        let end = (at + len).min(owner.len());
        let mut counts = [0usize; PARTS.len()];
        for part in &owner[at..end] {
            counts[part.index()] += 1;
        }
        // The part owning most of the token's bytes; a tie goes to the later part (a space
        // before a ref or a word belongs with it).
        let mut best = 0;
        for (k, n) in counts.iter().enumerate() {
            if *n > counts[best] {
                best = k;
            }
        }
        if let Some(last) = owner.get(end.saturating_sub(1))
            && counts[last.index()] == counts[best]
        {
            best = last.index();
        }
        parts[best] += 1;
        at = end;
    }
    let total = parts.iter().sum();
    PageParts { case: case.to_owned(), total, parts, floor: tokenizer.count(visible) }
}

/// Each page's snapshot ÷ its visible-text floor (pages with no visible text left out).
fn floor_ratios(pages: &[PageParts]) -> Vec<f64> {
    pages.iter().filter(|p| p.floor > 0).map(|p| p.total as f64 / p.floor as f64).collect()
}

/// Each page's share of its tokens that `part` wrote (empty snapshots left out).
fn shares(pages: &[PageParts], part: Part) -> Vec<f64> {
    pages.iter().filter(|p| p.total > 0).map(|p| p.parts[part.index()] as f64 / p.total as f64).collect()
}

/// The table of one corpus: pages, the median of snapshot ÷ floor, the total, and each part's
/// median share of a page's tokens and its share of all tokens.
pub fn table(title: &str, pages: &[PageParts]) -> String {
    let mut out = String::new();
    let ratios = floor_ratios(pages);
    let total: usize = pages.iter().map(|p| p.total).sum();
    let floor: usize = pages.iter().map(|p| p.floor).sum();
    let _ = writeln!(
        out,
        "{title}: {} pages, snapshot ÷ visible-text floor: median {:.3}×, overall {:.3}× ({total} / {floor} tokens)",
        pages.len(),
        median(&ratios),
        total as f64 / floor.max(1) as f64,
    );
    let _ = writeln!(out, "| part | median share | share of all | median × floor |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for part in PARTS {
        let k = part.index();
        let shares = shares(pages, part);
        let of_floor: Vec<f64> =
            pages.iter().filter(|p| p.floor > 0).map(|p| p.parts[k] as f64 / p.floor as f64).collect();
        let all: usize = pages.iter().map(|p| p.parts[k]).sum();
        let _ = writeln!(
            out,
            "| {} | {:.1}% | {:.1}% | {:.3} |",
            part.label(),
            median(&shares) * 100.0,
            all as f64 * 100.0 / total.max(1) as f64,
            median(&of_floor),
        );
    }
    out
}

/// The median of `values` (0 when there are none).
fn median(values: &[f64]) -> f64 {
    summarize(values).map_or(0.0, |s| s.median)
}

/// The breakdown of a snapshot the bench received for `case` of `corpus`, against the visible
/// text recorded with the page's capture (`None` when the page has no capture to read it from).
pub fn of_reply(corpus: Corpus, case: &str, snapshot: &str, tokenizer: &Tokenizer) -> Option<PageParts> {
    let bytes = std::fs::read(corpus.captures_dir().join(format!("{case}.json"))).ok()?;
    let recorded: RecordedPage = serde_json::from_slice(&bytes).ok()?;
    Some(breakdown(tokenizer, case, snapshot, &visible_text(&recorded)))
}

/// The breakdowns of every recorded capture of a corpus, compiled natively two ways.
#[derive(Debug, Clone, Default)]
pub struct CaptureBreakdowns {
    /// A fresh session per page: refs start at `e1` on every page.
    pub per_page: Vec<PageParts>,
    /// One session over the whole corpus, pages in file order, as the bench reads them: refs are
    /// never reissued, so they grow to four and five digits.
    pub one_session: Vec<PageParts>,
}

/// The breakdowns of every recorded capture of `corpus`, each capture read once and compiled
/// with a fresh session and in the corpus's one session (`None` when the corpus has no
/// captures). With `SIGHTLINE_TOKENS_DUMP` set, each fresh-session snapshot and the pages'
/// parts are written under `target/tokens/`.
pub fn over_captures(corpus: Corpus, tokenizer: &Tokenizer) -> anyhow::Result<Option<CaptureBreakdowns>> {
    let dir = corpus.captures_dir();
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)?.filter_map(Result::ok).map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    let dump = std::env::var_os("SIGHTLINE_TOKENS_DUMP")
        .map(|_| crate::paths::workspace_root().join("target/tokens").join(corpus.name()));
    let options = RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() };
    let mut out = CaptureBreakdowns::default();
    let mut corpus_refs = RefRegistry::default();
    for path in files {
        let bytes = std::fs::read(&path)?;
        let capture = serde_json::from_slice::<Capture>(&bytes)?.without_accessibility_trees();
        let recorded: RecordedPage = serde_json::from_slice(&bytes)?;
        let visible = visible_text(&recorded);
        let case = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let text = render(&compile(&capture, &mut RefRegistry::default()), 1, &options).text;
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join(format!("{case}.txt")), &text)?;
        }
        out.per_page.push(breakdown(tokenizer, &case, &text, &visible));
        let text = render(&compile(&capture, &mut corpus_refs), 1, &options).text;
        out.one_session.push(breakdown(tokenizer, &case, &text, &visible));
    }
    if let Some(dir) = &dump {
        // Each page's parts and floor, for comparing them with the bench's peers page by page.
        std::fs::write(dir.with_extension("json"), serde_json::to_vec_pretty(&out.per_page)?)?;
    }
    Ok(Some(out))
}

/// `cargo xtask tokens`: prints the breakdown of both corpora from their recorded captures, and
/// the same pages read one after the other in one session, as the bench reads them: what the
/// refs' growing length costs.
pub fn run_native() -> anyhow::Result<()> {
    let tokenizer = Tokenizer::o200k();
    for corpus in Corpus::ALL {
        match over_captures(corpus, &tokenizer)? {
            Some(pages) => {
                println!("{}", table(corpus.name(), &pages.per_page));
                println!(
                    "{}, the same pages in one session (refs never reissued): median {:.3}× the floor, refs a median {:.1}% of a page's tokens\n",
                    corpus.name(),
                    median(&floor_ratios(&pages.one_session)),
                    median(&shares(&pages.one_session, Part::Refs)) * 100.0
                );
            }
            None => println!(
                "{}: no captures in {} (`cargo xtask capture --corpus {} --all` records them)\n",
                corpus.name(),
                corpus.captures_dir().display(),
                corpus.name()
            ),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts_of(text: &str) -> Vec<(Part, String)> {
        let owner = classify(text);
        let mut out: Vec<(Part, String)> = Vec::new();
        for (i, c) in text.char_indices() {
            match out.last_mut() {
                Some((p, s)) if *p == owner[i] => s.push(c),
                _ => out.push((owner[i], c.to_string())),
            }
        }
        out
    }

    #[test]
    fn every_byte_gets_the_part_that_wrote_it() {
        let text = "Shop\nhttp://x/ · v1\n<main>\n# Shop \\e2\n- Read [e6 our guide] now\n  e3 button \"Add\": Add\ne4 button \"Add\"\n</main>";
        let parts = parts_of(text);
        let of = |p: Part| -> String { parts.iter().filter(|(q, _)| *q == p).map(|(_, s)| s.as_str()).collect() };
        assert_eq!(of(Part::Header), "Shophttp://x/ · v1");
        assert_eq!(of(Part::Refs), "e6e3e4");
        assert_eq!(of(Part::Escapes), "\\");
        assert_eq!(of(Part::LinkMarkup), "[ ]");
        assert_eq!(of(Part::Names), "Add");
        assert_eq!(of(Part::RepeatedNames), "Add");
        assert_eq!(of(Part::Text), "Shop e2Read our guide nowAdd");
        assert_eq!(of(Part::Regions), "<main></main>");
    }

    #[test]
    fn the_parts_add_up_to_the_tokens() {
        let t = Tokenizer::o200k();
        let text = "T\nhttp://x/ · v1\n- [e1 Home] | e2 checkbox \"A\" checked";
        let page = breakdown(&t, "x", text, "Home A");
        assert_eq!(page.total, t.count(text));
        assert_eq!(page.parts.iter().sum::<usize>(), page.total);
        assert_eq!(page.floor, 2);
    }
}
