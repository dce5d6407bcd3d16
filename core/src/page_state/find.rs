//! `browser_find`: search the page the agent last saw, including regions a snapshot wrote as
//! unchanged or trimmed, and the answer that lists the matches.

use crate::protocol::{FindParams, ToolOutput};
use crate::snapshot::outline::LineContent;
use crate::snapshot::render::{body_lines, element_line, in_frames};
use crate::snapshot::{RegionId, Snapshot};

/// How many matches one answer lists.
pub const LIMIT: usize = 50;

/// What `browser_find` looks for; every given field must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindQuery {
    /// Words in the element's name, value or text (case-insensitive), or in a text line.
    pub text: Option<String>,
    /// The element's role.
    pub role: Option<String>,
    /// Part of the region's name (`nav`, `main`, `dialog "Cookies"`).
    pub region: Option<String>,
}

/// One match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The region's name (empty outside regions).
    pub region: String,
    /// The origin of the frame of another site it is in, if any.
    pub frame: Option<String>,
    /// The line, as a snapshot writes it.
    pub line: String,
}

/// Elements (and, for a text query without a role, text lines) of `snapshot` matching
/// `query`, in reading order, at most `limit`.
pub fn find(snapshot: &Snapshot, query: &FindQuery, limit: usize) -> Vec<Found> {
    let text = query.text.as_deref().map(str::to_lowercase);
    let region_ok = |r: Option<RegionId>| match &query.region {
        None => true,
        Some(wanted) => {
            let wanted = wanted.to_lowercase();
            r.is_some_and(|r| snapshot.region(r).name.to_lowercase().contains(&wanted))
        }
    };
    let region_name = |r: Option<RegionId>| r.map(|r| snapshot.region(r).name.clone()).unwrap_or_default();
    let frame = |r: Option<RegionId>| snapshot.frame_of(r).map(|f| snapshot.region(f).label.clone());
    let mut found = Vec::new();
    for (id, element) in snapshot.element_ids().zip(&snapshot.elements) {
        let f = &element.facts;
        let role_ok = query.role.as_deref().is_none_or(|role| f.role.eq_ignore_ascii_case(role));
        let text_ok = text.as_deref().is_none_or(|t| {
            [Some(&f.name), f.value.as_ref(), f.text.as_ref()]
                .into_iter()
                .flatten()
                .any(|s| s.to_lowercase().contains(t))
        });
        if role_ok && text_ok && region_ok(element.region) {
            found.push((
                id.0,
                Found {
                    region: region_name(element.region),
                    frame: frame(element.region),
                    line: element_line(f, &snapshot.element_ref(id), None),
                },
            ));
        }
    }
    let mut positions = vec![usize::MAX; snapshot.elements.len()];
    for (p, line) in snapshot.lines.iter().enumerate() {
        for e in line.content.elements() {
            positions[e.0] = positions[e.0].min(p);
        }
    }
    let mut found: Vec<(usize, Found)> = found.into_iter().map(|(i, f)| (positions[i], f)).collect();
    if let (Some(t), None) = (&text, &query.role) {
        for (position, line) in body_lines(snapshot, false).into_iter().enumerate() {
            let is_element_line = matches!(snapshot.lines[position].content, LineContent::Element(_));
            if !is_element_line && line.text.to_lowercase().contains(t.as_str()) && region_ok(line.region) {
                let found_line = Found {
                    region: region_name(line.region),
                    frame: frame(line.region),
                    line: line.text.trim().to_owned(),
                };
                found.push((position, found_line));
            }
        }
    }
    found.sort_by_key(|(position, _)| *position);
    found.into_iter().map(|(_, f)| f).take(limit).collect()
}

impl FindQuery {
    /// The query of a `browser_find` call; `None` when it asks for nothing.
    pub fn of(params: &FindParams) -> Option<FindQuery> {
        let query = FindQuery { text: params.text.clone(), role: params.role.clone(), region: params.region.clone() };
        (query != FindQuery::default()).then_some(query)
    }
}

/// The answer of `browser_find` on `snapshot` at `version`: how many matched, then one line per
/// match with its region, at most [`LIMIT`]; matches in another site's frame between
/// `<frame …>` and `</frame>` lines, as a snapshot writes them.
pub fn answer(snapshot: &Snapshot, version: u64, query: &FindQuery) -> ToolOutput {
    let found = find(snapshot, query, LIMIT + 1);
    let more = found.len() > LIMIT;
    let mut text = format!(
        "{} match{} in v{version}{}",
        found.len().min(LIMIT),
        if found.len() == 1 { "" } else { "es" },
        if more { format!(" (first {LIMIT}; narrow the search for the rest)") } else { String::new() }
    );
    let lines = found.iter().take(LIMIT).map(|f| {
        let region = if f.region.is_empty() { String::new() } else { format!("[{}] ", f.region) };
        (f.frame.as_deref(), format!("{region}{}", f.line))
    });
    for line in in_frames(lines) {
        text.push('\n');
        text.push_str(&line);
    }
    ToolOutput::text(text)
}
