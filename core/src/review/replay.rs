//! A session as one self-contained HTML file anyone can open: the timeline of calls, each
//! call's arguments and the answer as the agent read it, the change it made as a human diff,
//! the screenshots taken around it (masked as the agent saw them), the checkpoints, and the
//! tab's console, network and WebSocket events.
//!
//! Made from the same [`SessionExport`] as the JSON and Markdown exports, so it carries nothing
//! those do not. Everything is inline (styles, images as `data:` URLs) and the file forbids
//! itself any fetch and any script with its Content-Security-Policy; every string that came
//! from a page (titles, answers, console text, URLs) is escaped, so a hostile page's markup
//! shows as text.

use serde_json::Value;

use super::export::SessionExport;
use super::shots::{Shot, ShotPair};
use crate::changes::format_iso;

/// The policy the file sets itself: no network, no script, styles and `data:` images only.
pub const REPLAY_CSP: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

const STYLE: &str = include_str!("replay/replay.css");

/// `text` safe in HTML text and in a double- or single-quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The replay of `export`, with the screenshot pairs kept for its calls.
pub fn session_replay(export: &SessionExport, shots: &[ShotPair]) -> String {
    let title = export.title.as_deref().filter(|t| !t.is_empty()).unwrap_or("(no title)");
    let mut out = String::new();
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    out.push_str(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{REPLAY_CSP}\">\n"));
    out.push_str(&format!("<title>Sightline replay: {}</title>\n<style>{STYLE}</style></head><body>\n", escape(title)));
    out.push_str(&format!("<header><h1>Sightline replay: {}</h1><p>", escape(title)));
    if let Some(url) = &export.url {
        out.push_str(&format!("{} · ", escape(url)));
    }
    out.push_str(&format!(
        "tab {} · {} call(s) · exported {} by {} · the agent read {} tokens where full pages would have cost {}</p></header>\n",
        export.tab,
        export.calls.len(),
        escape(&export.exported_at),
        escape(&export.exported_by),
        export.answer_tokens,
        export.full_page_tokens
    ));
    out.push_str("<main><nav id=\"timeline\"><ol>\n");
    for c in &export.calls {
        let class = if c.is_error { " class=\"error\"" } else { "" };
        out.push_str(&format!(
            "<li><a href=\"#call-{}\"{class}>{}. {} <span class=\"meta\">{}</span></a></li>\n",
            c.seq,
            c.seq,
            escape(&c.tool),
            escape(format_iso(c.started_ms.max(0.0) as u64).get(11..19).unwrap_or_default())
        ));
    }
    out.push_str("<li><a href=\"#events\">Events</a></li></ol></nav>\n<div>\n");
    for c in &export.calls {
        out.push_str(&format!("<section class=\"call\" id=\"call-{}\">", c.seq));
        let versions = match (c.version_before, c.version_after) {
            (Some(b), Some(a)) if a != b => format!(" · v{b} → v{a}"),
            (_, Some(a)) => format!(" · v{a}"),
            _ => String::new(),
        };
        let outcome = if c.is_error {
            " · failed".to_owned()
        } else {
            c.kind.as_deref().map(|k| format!(" · {}", escape(k))).unwrap_or_default()
        };
        out.push_str(&format!(
            "<h2>{}. {}</h2><div class=\"meta\">{} · {} ms{versions}{outcome} · {} tokens</div>\n",
            c.seq,
            escape(&c.tool),
            escape(&format_iso(c.started_ms.max(0.0) as u64)),
            c.duration_ms.round(),
            c.answer_tokens
        ));
        if c.args.as_object().is_some_and(|a| !a.is_empty()) {
            out.push_str(&format!("<pre class=\"args\">{}</pre>\n", escape(&c.args.to_string())));
        }
        let diff = diff_lines(&c.answer);
        if !diff.is_empty() {
            out.push_str(&format!("<div class=\"diff\">{diff}</div>\n"));
        }
        if let Some(cards) = &c.cards {
            out.push_str(&format!("<p>{}</p><ul class=\"cards\">", escape(&cards.summary)));
            for card in &cards.cards {
                let kind = serde_json::to_value(card.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let detail = card.detail.as_deref().map(|d| format!(": {}", escape(d))).unwrap_or_default();
                out.push_str(&format!("<li><b>{}</b> {}{detail}</li>", escape(&kind), escape(&card.title)));
            }
            out.push_str("</ul>\n");
        }
        if let Some(pair) = shots.iter().find(|p| p.seq == c.seq) {
            out.push_str("<div class=\"shots\">");
            for (label, shot) in [("before", &pair.before), ("after", &pair.after)] {
                if let Some(img) = shot.as_ref().and_then(image) {
                    out.push_str(&format!("<figure>{img}<figcaption class=\"meta\">{label}</figcaption></figure>"));
                }
            }
            out.push_str("</div>\n");
        }
        out.push_str(&format!(
            "<details><summary>The answer as the agent read it</summary><pre class=\"answer\">{}</pre></details></section>\n",
            escape(&c.answer)
        ));
    }
    out.push_str("<section class=\"call\" id=\"events\"><h2>Console, network and WebSocket events</h2>\n");
    if export.events.is_empty() {
        out.push_str("<p>No console, network or WebSocket event recorded on this tab.</p>");
    } else {
        out.push_str("<table><tr><th>time</th><th>lane</th><th>level</th><th>what</th></tr>\n");
        for e in &export.events {
            let name = |v: Value| v.as_str().map(str::to_owned).unwrap_or_default();
            let lane = serde_json::to_value(e.lane).map(name).unwrap_or_default();
            let level = serde_json::to_value(e.level).map(name).unwrap_or_default();
            out.push_str(&format!(
                "<tr class=\"lvl-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&level),
                escape(&format_iso(e.time_ms)),
                escape(&lane),
                escape(&level),
                escape(&e.label)
            ));
        }
        out.push_str("</table>");
    }
    out.push_str("</section></div></main></body></html>\n");
    out
}

/// A delta's lines as a human diff: added, removed, changed and gone lines each marked.
fn diff_lines(answer: &str) -> String {
    super::playwright::assertions::delta_body(answer)
        .map(|line| {
            let class = match line.get(..2) {
                Some("+ ") => "add",
                Some("- ") => "del",
                Some("~ ") => "chg",
                _ if line.starts_with("gone:") => "gone",
                _ => "ctx",
            };
            format!("<div class=\"{class}\">{}</div>", escape(line))
        })
        .collect()
}

/// A screenshot as an inline image, when its data is plain base64 (nothing else reaches the
/// attribute).
fn image(shot: &Shot) -> Option<String> {
    let data = &shot.jpeg_base64;
    let plain = !data.is_empty() && data.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    plain.then(|| {
        format!(
            "<img alt=\"screenshot\" width=\"{}\" height=\"{}\" src=\"data:image/jpeg;base64,{data}\">",
            shot.width, shot.height
        )
    })
}

#[cfg(test)]
#[path = "replay/tests.rs"]
mod tests;
