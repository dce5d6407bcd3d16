//! A reader of the text an agent gets, following the grammar `docs/snapshot-format.md` documents
//! ("How the text is written"): it finds the header, region tags, frame lines, fences, trailers
//! and every element (element lines, inline elements, links, each with the frame of another site
//! it is shown in) by their form alone, the way an agent reads them. The drills hold what it finds
//! against `structuredContent`: if page text could pose as structure, this reader would find an
//! element, a region, a frame or a trailer that is not there.

use anyhow::{Context, bail};
use sightline_core::refs::ref_at;

/// An element as the text shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// `e12`.
    pub element_ref: String,
    /// The role (`link` for a link written inline; empty for a region's own ref).
    pub role: String,
    /// The name, when the text shows one (a quoted name, or a link's text).
    pub name: Option<String>,
    /// The origin of the frame of another site it is shown in (between `<frame site="other"
    /// origin="…">` and `</frame>`).
    pub frame: Option<String>,
}

/// A frame line: `<frame site="other" origin="…">` opening what another site's frame shows,
/// or `<frame origin="…" refused="…" />` for a frame that is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameTag {
    /// The frame's origin.
    pub origin: String,
    /// Why it is not read, for a refused frame.
    pub refused: Option<String>,
}

/// A region tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionTag {
    /// The tag as written.
    pub tag: String,
    /// Opening (`<region …>` or a self-closing one) rather than closing.
    pub opens: bool,
}

/// What a text says, read by its form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The header lines: title (if any) and the URL and version line, or an answer's first line.
    pub header: Vec<String>,
    /// Every element shown, in order (an element shown twice is listed twice).
    pub elements: Vec<Element>,
    /// Region tags in order.
    pub regions: Vec<RegionTag>,
    /// Frame lines that open another site's frame or stand for a refused one, in order.
    pub frames: Vec<FrameTag>,
    /// Lines `! …`.
    pub notes: Vec<String>,
    /// The pager's last line or the action's `Since the last response:` line.
    pub trailers: Vec<String>,
    /// Fenced blocks of preformatted text (their lines, as written).
    pub fences: Vec<Vec<String>>,
}

impl Parsed {
    /// The refs of the elements, in order, each once.
    pub fn refs(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.elements {
            if !out.contains(&e.element_ref) {
                out.push(e.element_ref.clone());
            }
        }
        out
    }
}

/// The version line of a snapshot: `<url> · v<N>` and more after ` · `.
fn is_version_line(line: &str) -> bool {
    let Some((url, rest)) = line.split_once(" · v") else { return false };
    !url.is_empty() && !url.contains(' ') && rest.starts_with(|c: char| c.is_ascii_digit())
}

/// The first line of an answer that is not a full page: `v<N> · …`.
fn is_answer_header(line: &str) -> bool {
    line.strip_prefix('v')
        .and_then(|rest| rest.split_once(" · "))
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The line that ends a full page's header: the URL and version line, or the version line alone
/// of a full page on the page the agent acted on (`v5 · full page: …`).
pub fn ends_page_header(line: &str) -> bool {
    is_version_line(line) || is_answer_header(line) && line.contains(" · full page: ")
}

/// Text with its backslash escapes undone.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A JSON string starting at `chars[i]` (a `"`): its value and its end.
fn json_string_at(chars: &[char], i: usize) -> Option<(String, usize)> {
    if chars.get(i) != Some(&'"') {
        return None;
    }
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '"' => {
                let raw: String = chars[i..=j].iter().collect();
                return serde_json::from_str::<String>(&raw).ok().map(|s| (s, j + 1));
            }
            _ => j += 1,
        }
    }
    None
}

/// Every element a line shows: element heads (`e7 role "name"`), links (`[e7 text]`).
pub fn scan_line(line: &str) -> Vec<Element> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            i += 2;
            continue;
        }
        // A link: `[e7 text]`, the ref first, the text (its `[`, `]` escaped) up to the `]`.
        if c == '['
            && let Some(end) = ref_at(&chars, i + 1)
            && matches!(chars.get(end), Some(' ' | ']'))
        {
            let mut j = end;
            while j < chars.len() && chars[j] != ']' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let label: String = chars[(end + 1).min(j)..j.min(chars.len())].iter().collect();
            out.push(Element {
                element_ref: chars[i + 1..end].iter().collect(),
                role: "link".into(),
                name: Some(unescape(&label)),
                frame: None,
            });
            i = j + 1;
            continue;
        }
        if let Some(end) = ref_at(&chars, i) {
            let element_ref: String = chars[i..end].iter().collect();
            let mut j = end;
            let mut role = String::new();
            if chars.get(j) == Some(&' ') {
                j += 1;
                while let Some(&c) = chars.get(j).filter(|c| !c.is_whitespace() && **c != '"') {
                    role.push(c);
                    j += 1;
                }
            }
            let mut name = None;
            if chars.get(j) == Some(&' ')
                && let Some((value, after)) = json_string_at(&chars, j + 1)
            {
                name = Some(value);
                j = after;
                // A changed name: `"before" → "after"`.
                let arrow: Vec<char> = " → ".chars().collect();
                if chars.get(j..j + arrow.len()) == Some(&arrow[..])
                    && let Some((value, after)) = json_string_at(&chars, j + arrow.len())
                {
                    name = Some(value);
                    j = after;
                }
            }
            out.push(Element { element_ref, role, name, frame: None });
            // The rest of an element's description: values (`= "…"`, `key="…"`) are skipped
            // whole.
            while j < chars.len() && chars[j] != '[' && ref_at(&chars, j).is_none() {
                let value = chars[..j].ends_with(&['=']) || chars[..j].ends_with(&['=', ' ']);
                if chars[j] == '\\' {
                    j += 2;
                } else if let Some((_, after)) = json_string_at(&chars, j).filter(|_| value) {
                    j = after;
                } else {
                    j += 1;
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The JSON string value of attribute `name` in a tag (`origin="…"`).
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 2;
    let chars: Vec<char> = tag[start..].chars().collect();
    json_string_at(&chars, 0).map(|(value, _)| value)
}

/// A frame line (`<frame site="other" origin="…">`, `<frame origin="…" refused="…" />`, or
/// another site's frame written as unchanged, `<frame site="other" origin="…"
/// unchanged="true" count="N" />`): the frame it stands for and whether it opens one.
fn frame_tag(line: &str) -> anyhow::Result<(FrameTag, bool)> {
    let origin = attribute(line, "origin").with_context(|| format!("a frame line without an origin: {line}"))?;
    if line.starts_with("<frame site=\"other\" ") && line.contains(" unchanged=\"true\" ") && line.ends_with(" />") {
        return Ok((FrameTag { origin, refused: None }, false));
    }
    if line.ends_with(" />") {
        let refused =
            attribute(line, "refused").with_context(|| format!("a closed frame line that says no why: {line}"))?;
        return Ok((FrameTag { origin, refused: Some(refused) }, false));
    }
    if !line.starts_with("<frame site=\"other\" ") || !line.ends_with('>') {
        bail!("a frame line that is neither another site's nor refused: {line}");
    }
    Ok((FrameTag { origin, refused: None }, true))
}

/// A tag open around the lines that follow it.
#[derive(Debug, Clone)]
enum Open {
    /// A region, by its kind (`nav`).
    Region(String),
    /// Another site's frame, by its origin.
    Frame(String),
}

/// The kinds of region a snapshot tags (`<nav …>` … `</nav>`).
const REGION_KINDS: [&str; 9] = ["header", "nav", "main", "aside", "footer", "search", "form", "section", "dialog"];

/// The origin of the innermost frame of `open`, if any.
fn innermost_frame(open: &[Open]) -> Option<String> {
    open.iter().rev().find_map(|o| match o {
        Open::Frame(origin) => Some(origin.clone()),
        Open::Region(_) => None,
    })
}

/// The elements of `line`, each shown in the innermost frame of `open` (the tags open around
/// it).
fn elements_in(line: &str, open: &[Open]) -> Vec<Element> {
    let frame = innermost_frame(open);
    scan_line(line).into_iter().map(|e| Element { frame: frame.clone(), ..e }).collect()
}

/// The kind of the region `line` opens or stands for (`<nav label="Main">`, `<main>`,
/// `<header unchanged="true" count="3" />`), if it is such a tag.
fn region_opened(line: &str) -> Option<&'static str> {
    let rest = line.strip_prefix('<')?;
    REGION_KINDS.into_iter().find(|k| rest.strip_prefix(k).is_some_and(|after| after.starts_with([' ', '>'])))
}

/// Reads a line that opens, closes or stands for a region or a frame into `out`, keeping `open`
/// (the tags open, innermost last); `false` when the line is none of these.
fn tag_line(line: &str, n: usize, open: &mut Vec<Open>, out: &mut Parsed) -> anyhow::Result<bool> {
    if let Some(kind) = region_opened(line) {
        let closed = line.ends_with(" />");
        if !closed && !line.ends_with('>') {
            bail!("line {n}: a region tag that does not end: {line}");
        }
        if let Some(r) = region_ref(line) {
            out.elements.push(Element {
                element_ref: r,
                role: String::new(),
                name: None,
                frame: innermost_frame(open),
            });
        }
        out.regions.push(RegionTag { tag: line.to_owned(), opens: true });
        if !closed {
            open.push(Open::Region(kind.to_owned()));
        }
    } else if let Some(kind) =
        line.strip_prefix("</").and_then(|t| t.strip_suffix('>')).filter(|k| REGION_KINDS.contains(k))
    {
        match open.pop() {
            None => bail!("line {n}: {line} closes nothing"),
            Some(Open::Frame(_)) => bail!("line {n}: {line} closes a frame"),
            Some(Open::Region(opened)) if opened != kind => bail!("line {n}: {line} closes <{opened}>"),
            Some(Open::Region(_)) => {}
        }
        out.regions.push(RegionTag { tag: line.to_owned(), opens: false });
    } else if line.starts_with("<frame ") {
        let (tag, opens) = frame_tag(line).with_context(|| format!("line {n}"))?;
        if opens {
            open.push(Open::Frame(tag.origin.clone()));
        }
        out.frames.push(tag);
    } else if line == "</frame>" {
        match open.pop() {
            None => bail!("line {n}: </frame> closes nothing"),
            Some(Open::Region(kind)) => bail!("line {n}: </frame> closes <{kind}>"),
            Some(Open::Frame(_)) => {}
        }
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// The ref of a region tag (`ref="e4"`), if it has one.
fn region_ref(tag: &str) -> Option<String> {
    let start = tag.find(" ref=\"")? + 6;
    let end = start + tag[start..].find('"')?;
    Some(tag[start..end].to_owned())
}

/// Reads the body lines of a snapshot (after its header) into `out`.
fn body(lines: &[&str], out: &mut Parsed) -> anyhow::Result<()> {
    let mut open: Vec<Open> = Vec::new();
    let mut fence: Option<(String, Vec<String>)> = None;
    for (n, raw) in lines.iter().enumerate() {
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let line = &raw[indent..];
        if let Some((pad, content)) = fence.as_mut() {
            if line == "```" && raw[..indent] == **pad {
                out.fences.push(std::mem::take(content));
                fence = None;
            } else {
                content.push((*raw).to_owned());
                out.elements.extend(elements_in(line, &open));
            }
            continue;
        }
        if line == "```" {
            fence = Some((raw[..indent].to_owned(), Vec::new()));
        } else if tag_line(line, n, &mut open, out)? {
            // A region or a frame opened, closed or stood for.
        } else if line.starts_with("<trimmed ") {
            // What was left out; its refs are not shown.
        } else if let Some(note) = line.strip_prefix("! ") {
            out.notes.push(note.to_owned());
        } else if line.starts_with("… ") && n + 1 == lines.len() {
            out.trailers.push(line.to_owned());
        } else if line.starts_with(['<', '!', '…']) || line.starts_with("```") {
            bail!("line {n}: a line that starts like structure but is none: {line}");
        } else {
            out.elements.extend(elements_in(line, &open));
        }
    }
    if fence.is_some() {
        bail!("a fence that is never closed");
    }
    if !open.is_empty() {
        bail!("{} region(s) or frame(s) never closed", open.len());
    }
    Ok(())
}

/// Reads a snapshot: the header (title line if any, then the URL and version line), then the
/// body.
pub fn parse_snapshot(text: &str) -> anyhow::Result<Parsed> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Parsed::default();
    let mut start = 0;
    while let Some(note) = lines.get(start).and_then(|l| l.strip_prefix("! ")) {
        out.notes.push(note.to_owned());
        start += 1;
    }
    let version = match lines[start..].iter().position(|l| is_version_line(l)) {
        Some(0) => start,
        Some(1) => start + 1,
        _ => bail!("no URL and version line in the first two lines:\n{text}"),
    };
    out.header = lines[start..=version].iter().map(|l| (*l).to_owned()).collect();
    body(&lines[version + 1..], &mut out)?;
    Ok(out)
}

/// Reads the answer to an action: notes, then a full page (as [`parse_snapshot`], or headed by
/// its `v<N> · full page: …` line alone when the agent has its title and URL) or a `v<N> · …`
/// line with what changed, then at most one `Since the last response:` line, last.
pub fn parse_answer(text: &str) -> anyhow::Result<Parsed> {
    let trailer = "Since the last response: ";
    let mut lines: Vec<&str> = text.lines().collect();
    let mut trailers = Vec::new();
    if lines.last().is_some_and(|l| l.starts_with(trailer)) {
        trailers.push(lines.pop().unwrap_or_default().to_owned());
    }
    if let Some(l) = lines.iter().find(|l| l.trim_start().starts_with(trailer)) {
        bail!("a `Since the last response:` line that is not the last: {l}");
    }
    let first = lines.iter().position(|l| !l.starts_with("! ")).unwrap_or(lines.len());
    let notes = || lines[..first].iter().map(|l| l[2..].to_owned()).collect();
    let mut out = if lines.get(first).is_some_and(|l| !is_version_line(l) && ends_page_header(l)) {
        // The full page of the page the agent acted on, headed by its version line alone.
        let mut out = Parsed { notes: notes(), header: vec![lines[first].to_owned()], ..Parsed::default() };
        body(&lines[first + 1..], &mut out)?;
        out
    } else if lines.get(first).is_some_and(|l| is_answer_header(l)) {
        let mut out = Parsed { notes: notes(), header: vec![lines[first].to_owned()], ..Parsed::default() };
        let mut open: Vec<Open> = Vec::new();
        for (n, line) in lines[first + 1..].iter().enumerate() {
            if line.starts_with("gone: ") || line.starts_with("- ") || tag_line(line, n, &mut open, &mut out)? {
                continue;
            }
            let rest = line.strip_prefix("~ ").or_else(|| line.strip_prefix("+ ")).unwrap_or(line);
            out.elements.extend(elements_in(&place_removed(rest), &open));
        }
        if !open.is_empty() {
            bail!("{} frame(s) never closed in the changes", open.len());
        }
        out
    } else {
        parse_snapshot(&lines.join("\n"))?
    };
    out.trailers.extend(trailers);
    Ok(out)
}

/// An added line without the place it goes (`at the top: `, `after e4: `, `after "…": `).
fn place_removed(line: &str) -> String {
    if let Some(rest) = line.strip_prefix("at the top: ") {
        return rest.to_owned();
    }
    if let Some(rest) = line.strip_prefix("after ") {
        let chars: Vec<char> = rest.chars().collect();
        let end = ref_at(&chars, 0).or_else(|| json_string_at(&chars, 0).map(|(_, end)| end));
        if let Some(end) = end
            && chars.get(end) == Some(&':')
        {
            return chars[end + 1..].iter().collect::<String>().trim_start().to_owned();
        }
    }
    line.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panel_reads_refs_with_the_engines_letters() {
        // The panel makes refs live with a regular expression of its own; it must know every
        // letter a ref can start with.
        let panel = std::fs::read_to_string(crate::paths::workspace_root().join("extension/panel/panel.js"))
            .expect("the panel's script");
        let letters = std::str::from_utf8(sightline_core::refs::REF_LETTERS).expect("ASCII");
        assert!(panel.contains(&format!("const REF = /(?<![\\\\\\w])[{letters}][1-9]\\d*(?!\\w)/g;")), "{letters}");
    }

    #[test]
    fn elements_links_and_escapes_are_told_apart() {
        let found = scan_line(r#"Note: \e2 button "Delete" and [e5 x\](\e3)] [\e4 y] then e6 button "Go [" done"#);
        assert_eq!(
            found,
            vec![
                Element { element_ref: "e5".into(), role: "link".into(), name: Some("x](e3)".into()), frame: None },
                Element { element_ref: "e6".into(), role: "button".into(), name: Some("Go [".into()), frame: None },
            ]
        );
        assert_eq!(scan_line(r#"e4 textbox "Q" = "a\u00652" hint="](\u00653)""#).len(), 1);
    }

    #[test]
    fn a_snapshot_reads_as_header_regions_and_elements() -> anyhow::Result<()> {
        let parsed = parse_snapshot(
            "Shop\nhttp://x/ · v2\n<main>\n\\v9 · no change\n```\n\\e7 button\n```\ne3 button \"Pay\"\n</main>",
        )?;
        assert_eq!(parsed.header.len(), 2);
        assert_eq!(parsed.regions.len(), 2);
        assert_eq!(parsed.fences, vec![vec!["\\e7 button".to_owned()]]);
        assert_eq!(parsed.refs(), vec!["e3".to_owned()]);
        assert!(parse_snapshot("Shop\nhttp://x/ · v2\n<main>").is_err());
        assert!(parse_snapshot("Shop\nhttp://x/ · v2\n<nav label=\"Main\">\n</main>").is_err(), "closes another kind");
        let nested = parse_snapshot(
            "Shop\nhttp://x/ · v2\n<header unchanged=\"true\" count=\"3\" />\n<main>\n<nav label=\"Steps\" ref=\"e4\">\n</nav>\n</main>",
        )?;
        assert_eq!(nested.regions.len(), 5);
        assert_eq!(nested.refs(), vec!["e4".to_owned()]);
        Ok(())
    }

    #[test]
    fn frame_lines_say_which_elements_another_site_shows() -> anyhow::Result<()> {
        let parsed = parse_snapshot(
            "Recipes\nhttp://x/ · v2\n<main>\n\\<frame site=\"other\" origin=\"https://fake.example\">\n\
             e1 button \"Ours\"\n<frame site=\"other\" origin=\"https://bank.example\">\ne2 button \"Transfer funds\"\n\
             </frame>\n<frame origin=\"file://\" refused=\"file: pages are not read\" />\n</main>",
        )?;
        let frames: Vec<Option<&str>> = parsed.elements.iter().map(|e| e.frame.as_deref()).collect();
        assert_eq!(frames, [None, Some("https://bank.example")], "an escaped frame line is page text");
        assert_eq!(
            parsed.frames,
            [
                FrameTag { origin: "https://bank.example".into(), refused: None },
                FrameTag { origin: "file://".into(), refused: Some("file: pages are not read".into()) },
            ]
        );
        assert!(parse_snapshot("T\nhttp://x/ · v2\n<frame site=\"other\" origin=\"https://a\">\n</main>").is_err());
        assert!(parse_snapshot("T\nhttp://x/ · v2\n<frame site=\"other\" origin=\"https://a\">").is_err());
        let answer = parse_answer(
            "v3 · 1 change since v2\n<frame site=\"other\" origin=\"https://bank.example\">\n+ after e2: e3 button \"Confirm\"\n</frame>",
        )?;
        assert_eq!(answer.elements[0].frame.as_deref(), Some("https://bank.example"));
        Ok(())
    }

    #[test]
    fn an_answer_has_one_trailer_and_it_is_last() -> anyhow::Result<()> {
        let parsed = parse_answer(
            "v3 · 1 change since v2\n+ after e4: e9 button \"New\"\nSince the last response: 1 console error (\"x\").",
        )?;
        assert_eq!(parsed.refs(), vec!["e9".to_owned()]);
        assert_eq!(parsed.trailers.len(), 1);
        assert!(parse_answer("v3 · no change\nSince the last response: x\nSince the last response: y").is_err());
        Ok(())
    }

    #[test]
    fn a_full_page_headed_by_its_version_line_alone_reads_as_a_page() -> anyhow::Result<()> {
        let parsed = parse_answer(
            "! a note\nv5 · full page: 40% of lines changed\n<main>\n- Post 1\n  e4 clickable (no name)\n</main>",
        )?;
        assert_eq!(parsed.notes, vec!["a note".to_owned()]);
        assert_eq!(parsed.header, vec!["v5 · full page: 40% of lines changed".to_owned()]);
        assert_eq!(parsed.regions.len(), 2);
        assert_eq!(parsed.refs(), vec!["e4".to_owned()]);
        assert!(parse_answer("v5 · full page: 40% of lines changed\n<main>").is_err());
        Ok(())
    }
}
