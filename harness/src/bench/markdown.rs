//! Renders a [`Report`] as the markdown of `target/bench/report.md`: the run's facts, then
//! headline tables (snapshot tokens, ratios, flow totals, tools/list, wall time), then the
//! detail (every page, every step, every failure). It only formats: every number comes from the
//! report value, and a column that no row fills is left out.

use std::fmt::Write;

use crate::browser::BASE_FLAGS;

use super::corpus::Outcome;
use super::flow::{FlowRun, Purpose, StepRecord};
use super::peers::VIEWPORT;
use super::report::{CorpusSection, Report, ServerSummary};
use super::servers::ServerKind;
use super::stats::Summary;
use super::stats::summarize;

/// The whole report.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    facts(&mut out, r);
    for section in &r.corpora {
        corpus(&mut out, section);
    }
    flow(&mut out, r);
    tools(&mut out, r);
    timings(&mut out, r);
    changes(&mut out, r);
    memory(&mut out, r);
    method(&mut out, r);
    out
}

fn facts(out: &mut String, r: &Report) {
    let m = &r.machine;
    let kind = if r.quick { "quick" } else { "full" };
    let _ = writeln!(out, "# Sightline bench ({kind} run)\n");
    let command = if r.quick { "cargo xtask bench --quick" } else { "cargo xtask bench" };
    let _ = writeln!(out, "Produced by `{command}`.\n");
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(out, "| date | {} |", m.date);
    let _ = writeln!(out, "| machine | `{}` |", m.uname);
    let _ = writeln!(out, "| CPU | {} ({} cores) |", m.cpu, m.cores);
    let _ = writeln!(out, "| browser | {} (headless) |", m.chromium);
    let _ = writeln!(out, "| Node.js | {} |", m.node);
    for s in &r.servers {
        let restarts =
            if s.restarts > 0 { format!(" — restarted {} × after failures", s.restarts) } else { String::new() };
        let _ = writeln!(out, "| {} | {}{restarts} |", s.label, s.version);
    }
    let _ = writeln!(out, "| tokenizer | {} |", m.tokenizer);
    for c in &r.corpora {
        let name = c.corpus.name();
        let pages = match &c.skipped {
            Some(why) => format!("not measured: {why}"),
            None if c.cases.is_empty() => "not measured in a `--quick` run".to_owned(),
            None if r.quick => format!("{} pages (the `--quick` subset)", c.cases.len()),
            None => format!("all {} pages", c.cases.len()),
        };
        let _ = writeln!(out, "| {name} corpus | {pages} |");
    }
    let _ = writeln!(out, "| bench wall time | {:.0} s |\n", r.seconds);
}

fn corpus(out: &mut String, c: &CorpusSection) {
    let _ = writeln!(out, "## Snapshot size over the {} corpus\n", c.corpus.name());
    if let Some(why) = &c.skipped {
        let _ = writeln!(out, "Not measured: {why}\n");
        return;
    }
    if c.cases.is_empty() {
        let _ = writeln!(out, "Not measured in a `--quick` run.\n");
        return;
    }
    let _ = writeln!(
        out,
        "Each server loads the saved page with its navigation tool, then reads it with its snapshot tool \
         (`browser_snapshot`, which writes every region out unless asked to collapse, `browser_snapshot`, \
         `take_snapshot`). Counted: the text of the snapshot reply; \
         a snapshot split into pages is read to its last page and counted whole (`N pages`).\n"
    );
    let _ = writeln!(
        out,
        "| server | pages | failed | median tokens | p90 tokens | total tokens | median chars | p90 chars |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|");
    for s in &c.summaries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            s.server.label(),
            s.pages_ok + s.pages_failed,
            s.pages_failed,
            stat(s.snapshot_tokens, |x| x.median),
            stat(s.snapshot_tokens, |x| x.p90),
            stat(s.snapshot_tokens, |x| x.total),
            stat(s.snapshot_chars, |x| x.median),
            stat(s.snapshot_chars, |x| x.p90),
        );
    }
    if !c.ratios.is_empty() {
        let _ =
            writeln!(out, "\nSightline's snapshot tokens relative to each peer, over the pages both snapshotted:\n");
        let _ = writeln!(out, "| Sightline ÷ | pages | median per page | p90 per page | total ÷ total |");
        let _ = writeln!(out, "|---|--:|--:|--:|--:|");
        for ratio in &c.ratios {
            let _ = writeln!(
                out,
                "| {} | {} | {:.2} | {:.2} | {:.2} |",
                ratio.peer.label(),
                ratio.pages,
                ratio.median,
                ratio.p90,
                ratio.total
            );
        }
    }
    if let Some(table) = token_parts(c) {
        let _ = writeln!(
            out,
            "\nWhere Sightline's snapshot tokens go, against the pages' visible text (`cargo xtask tokens`):\n"
        );
        out.push_str(&table);
    }
    fidelity(out, c);
    failures(out, c);
    sightline_measures(out, c);
    pages(out, c);
}

/// The breakdown of the snapshots Sightline returned over the corpus, part by part
/// ([`super::parts`]); `None` when no page had one.
pub fn token_parts(c: &CorpusSection) -> Option<String> {
    let pages: Vec<super::parts::PageParts> = c
        .results
        .iter()
        .filter(|r| r.server == super::servers::ServerKind::Sightline)
        .flat_map(|r| r.pages.iter().filter_map(|p| p.parts.clone()))
        .collect();
    (!pages.is_empty()).then(|| super::parts::table(c.corpus.name(), &pages))
}

/// Sightline's fidelity over the corpus, beside its tokens: what the gate measures.
fn fidelity(out: &mut String, c: &CorpusSection) {
    let Some(f) = &c.fidelity else {
        let _ = writeln!(
            out,
            "\nSightline's fidelity: not measured (no captures: `cargo xtask capture --corpus {} --all`).",
            c.corpus.name()
        );
        return;
    };
    let _ =
        writeln!(out, "\nSightline's fidelity over the same pages (the gate of `harness/tests/e2e/fidelity.rs`):\n");
    let _ = writeln!(out, "| measure | value |\n|---|--:|");
    let (lowest, lowest_text) = f.lowest_page_text().unwrap_or(("", 1.0));
    let percent = |v: f64| format!("{:.2}%", v * 100.0);
    let rows = [
        ("pages measured (captures with ground truth)", f.pages.to_string()),
        (
            "interactive coverage",
            format!("{} ({} of {})", percent(f.interactive()), f.interactive_covered, f.interactive_total),
        ),
        ("pages with every interactive element reachable", format!("{} of {}", f.pages_all_interactive, f.pages)),
        ("text coverage, words a user can see", percent(f.text_shown())),
        ("text coverage, median page", percent(f.median_page_text())),
        ("text coverage, lowest page", format!("{} ({lowest})", percent(lowest_text))),
        ("text coverage, raw innerText", percent(f.text_raw())),
        ("innerText words", thousands(f.words_total as f64)),
        (
            "discounted: words of options of closed selects (innerText lists them)",
            thousands(f.option_words_missing as f64),
        ),
        (
            "discounted: words of text covered by an opaque element painted on top",
            thousands(f.covered_words_missing as f64),
        ),
    ];
    for (name, value) in rows {
        let _ = writeln!(out, "| {name} | {value} |");
    }
    if !c.fidelity_missing.is_empty() {
        let _ = writeln!(out, "\nNo capture for: {}.", c.fidelity_missing.join(", "));
    }
}

/// Medians, 90th percentiles and minimums of Sightline's extra per-page measures (fidelity,
/// pipeline and capture times), over the pages that have them.
fn sightline_measures(out: &mut String, c: &CorpusSection) {
    let mut by_name: Vec<(String, Vec<f64>, bool)> = Vec::new();
    for case in &c.cases {
        let Some(page) = c.result(ServerKind::Sightline, case) else { continue };
        for extra in &page.extras {
            let (value, ratio) = match extra.value {
                super::extensions::ExtraValue::Ratio(v) => (v, true),
                super::extensions::ExtraValue::Millis(v) => (v, false),
            };
            match by_name.iter_mut().find(|(n, ..)| *n == extra.name) {
                Some((_, values, _)) => values.push(value),
                None => by_name.push((extra.name.clone(), vec![value], ratio)),
            }
        }
    }
    if by_name.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### Sightline's fidelity and timing\n");
    let _ = writeln!(
        out,
        "Fidelity is measured on a capture of the same page with its ground truth (`cargo xtask test` records them), by \
         the pipeline the extension runs, compiled natively. Timings profile the snapshot call and, as `navigate: …`, \
         the navigation before it (a new document, so always a fresh capture): what the extension measured in the \
         browser (its pipeline in wasm, the probe that asks whether the page changed since the last capture, the CDP \
         capture — waiting on the browser, less the converting done meanwhile —, each CDP method's own wait from \
         request to reply — they run concurrently, so they overlap — and converting the payloads into the engine's \
         types, each as it arrives), a navigation's waits (from sending it to the new document's `load`, then for its \
         next frame and for a quiet DOM), and the rest of the wall time the MCP client saw: in the worker \
         (page-state work and rendering, up to the whole call's time the extension measured) and on the way \
         (bridge, host and MCP). `changed page: …` profiles the snapshot after the bench changed the page, which \
         captures it anew. A navigation captures the page as soon as it has loaded, ahead of the wait for a quiet \
         DOM, and answers with that capture when the DOM did not change until the page settled (`navigate: \
         captured ahead of the settle wait`, 100% or 0% per page; otherwise it captures again, and its capture \
         times add both). A snapshot of a page nothing changed on since the navigation is answered from its \
         capture (`snapshot reused the last capture`, 100% or 0% per page).\n"
    );
    let _ = writeln!(out, "| measure | pages | median | p90 | minimum |\n|---|--:|--:|--:|--:|");
    for (name, values, ratio) in by_name {
        let Some(summary) = summarize(&values) else { continue };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let show = |v: f64| if ratio { format!("{:.2}%", v * 100.0) } else { format!("{v:.1} ms") };
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            summary.count,
            show(summary.median),
            show(summary.p90),
            show(min)
        );
    }
}

fn failures(out: &mut String, c: &CorpusSection) {
    let mut rows = Vec::new();
    for server in ServerKind::ALL {
        for case in &c.cases {
            let Some(page) = c.result(server, case) else { continue };
            for (call, outcome) in [("navigate", &page.navigate), ("snapshot", &page.snapshot)] {
                if let Some(error) = outcome.error() {
                    rows.push(format!("| {} | {case} | {call} | {} |", server.label(), cell(error)));
                }
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### Failures\n");
    let _ = writeln!(
        out,
        "A failed snapshot leaves the page out of that server's medians and of the ratios; it is never dropped silently.\n"
    );
    let _ = writeln!(out, "| server | page | call | error |\n|---|---|---|---|");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
}

fn pages(out: &mut String, c: &CorpusSection) {
    // Extra columns appear only when some page has them.
    let mut extra_names: Vec<String> = Vec::new();
    for case in &c.cases {
        if let Some(page) = c.result(ServerKind::Sightline, case) {
            for extra in &page.extras {
                if !extra_names.contains(&extra.name) {
                    extra_names.push(extra.name.clone());
                }
            }
        }
    }
    let _ = writeln!(out, "\n### Per page\n");
    let mut header = String::from("| page |");
    let mut rule = String::from("|---|");
    for s in ServerKind::ALL {
        let _ = write!(header, " {} tokens |", s.label());
        rule.push_str("--:|");
    }
    for s in ServerKind::ALL {
        let _ = write!(header, " {} chars |", s.label());
        rule.push_str("--:|");
    }
    for peer in [ServerKind::Playwright, ServerKind::Devtools] {
        let _ = write!(header, " Sightline ÷ {} |", peer.label());
        rule.push_str("--:|");
    }
    for name in &extra_names {
        let _ = write!(header, " Sightline {name} |");
        rule.push_str("--:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for case in &c.cases {
        let outcome = |s: ServerKind| c.result(s, case).map(|p| &p.snapshot);
        let mut row = format!("| {case} |");
        for s in ServerKind::ALL {
            let _ = write!(row, " {} |", size_cell(outcome(s), |z| z.tokens));
        }
        for s in ServerKind::ALL {
            let _ = write!(row, " {} |", size_cell(outcome(s), |z| z.chars));
        }
        let ours = outcome(ServerKind::Sightline).and_then(Outcome::size);
        for peer in [ServerKind::Playwright, ServerKind::Devtools] {
            let theirs = outcome(peer).and_then(Outcome::size);
            let ratio = match (ours, theirs) {
                (Some(a), Some(b)) if b.tokens > 0 => format!("{:.2}", a.tokens as f64 / b.tokens as f64),
                _ => "—".to_owned(),
            };
            let _ = write!(row, " {ratio} |");
        }
        let extras = c.result(ServerKind::Sightline, case).map(|p| p.extras.as_slice()).unwrap_or_default();
        for name in &extra_names {
            let value =
                extras.iter().find(|e| &e.name == name).map(|e| e.value.to_string()).unwrap_or_else(|| "—".to_owned());
            let _ = write!(row, " {value} |");
        }
        let _ = writeln!(out, "{row}");
    }
}

fn flow(out: &mut String, r: &Report) {
    let f = &r.flow.flow;
    let _ = writeln!(
        out,
        "\n## Scripted flow: {} ({} steps, {} navigations)\n\n{}\n",
        f.name,
        f.steps.len(),
        f.baselines(),
        f.about
    );
    let _ = writeln!(
        out,
        "Counted: the text of every tool reply, including a snapshot the runner took when no earlier reply on the \
         current page showed the element it had to act on (marked `+N look`).\n"
    );
    let runs: Vec<&FlowRun> =
        ServerKind::ALL.iter().filter_map(|s| r.flow.runs.iter().find(|run| run.server == *s)).collect();
    let mut header = String::from("| # | step |");
    let mut rule = String::from("|--:|---|");
    for run in &runs {
        let _ = write!(header, " {} |", run.server.label());
        rule.push_str("--:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for (i, step) in f.steps.iter().enumerate() {
        let mut row = format!("| {} | {} |", i + 1, cell(&step.action.label()));
        for run in &runs {
            let _ = write!(row, " {} |", run.steps.get(i).map(step_cell).unwrap_or_else(|| "—".to_owned()));
        }
        let _ = writeln!(out, "{row}");
    }
    let mut total = String::from("| | **total tokens** |");
    let mut completed = String::from("| | order placed as scripted |");
    for run in &runs {
        let _ = write!(total, " **{}** |", thousands(run.tokens() as f64));
        let _ = write!(completed, " {} |", if run.completed { "yes" } else { "**no**" });
    }
    let _ = writeln!(out, "{total}\n{completed}");
    if let Some(sightline) = runs.iter().find(|run| run.server == ServerKind::Sightline) {
        let ratios: Vec<String> = runs
            .iter()
            .filter(|run| run.server != ServerKind::Sightline && run.tokens() > 0)
            .map(|peer| format!("{:.2} of {}'s", sightline.tokens() as f64 / peer.tokens() as f64, peer.server.label()))
            .collect();
        if !ratios.is_empty() {
            let _ = writeln!(out, "\nSightline's flow tokens: {}.", ratios.join(", "));
        }
    }
    if let (Some(full), Some(sightline)) =
        (&r.flow.sightline_full_pages, runs.iter().find(|run| run.server == ServerKind::Sightline))
    {
        let _ = writeln!(
            out,
            "\n### Sightline: deltas and region dedup against the full page at every step\n\nThe same flow on a fresh \
             browser, reading `browser_snapshot` after every step (nothing collapsed), against what \
             the flow above actually cost.\n"
        );
        let _ = writeln!(out, "| # | step | as answered | full page every step |\n|--:|---|--:|--:|");
        for (i, step) in f.steps.iter().enumerate() {
            let answered = sightline.steps.get(i).map(|s| thousands(s.tokens() as f64)).unwrap_or_else(|| "—".into());
            let whole = full.steps.get(i).map(|t| thousands(*t as f64)).unwrap_or_else(|| "—".into());
            let _ = writeln!(out, "| {} | {} | {answered} | {whole} |", i + 1, cell(&step.action.label()));
        }
        let ratio = if full.tokens() > 0 { sightline.tokens() as f64 / full.tokens() as f64 } else { f64::NAN };
        let _ = writeln!(
            out,
            "| | **total** | **{}** | **{}** |\n\nSightline's flow costs **{ratio:.2}×** the tokens of the same flow answered \
             with the full page at every step{}.",
            thousands(sightline.tokens() as f64),
            thousands(full.tokens() as f64),
            if full.completed { "" } else { " (that run did not place the order)" }
        );
    }
    let mut notes = Vec::new();
    for run in &runs {
        for (i, step) in run.steps.iter().enumerate() {
            if let Some(note) = &step.note {
                notes.push(format!("- {} step {}: {}", run.server.label(), i + 1, note));
            }
            if let Some(error) = &step.error {
                notes.push(format!("- {} step {} failed: {}", run.server.label(), i + 1, error));
            }
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\n`※` the step was done another way, `✗` it failed:\n\n{}", notes.join("\n"));
    }
}

fn step_cell(step: &StepRecord) -> String {
    let looks = step.calls.iter().filter(|c| c.purpose == Purpose::Look).count();
    let mut cell = thousands(step.tokens() as f64);
    if looks > 0 {
        let _ = write!(cell, " (+{looks} look)");
    }
    if step.error.is_some() {
        cell.push_str(" ✗");
    } else if step.note.is_some() {
        cell.push_str(" ※");
    }
    cell
}

fn tools(out: &mut String, r: &Report) {
    let _ = writeln!(out, "\n## tools/list footprint\n");
    let _ = writeln!(
        out,
        "The JSON of the `tools` array an MCP client receives (and usually hands the model) once per session.\n"
    );
    let _ = writeln!(out, "| server | tools | tokens | chars |\n|---|--:|--:|--:|");
    for t in &r.tools {
        match (t.tools, t.size, &t.error) {
            (Some(count), Some(size), None) => {
                let _ = writeln!(
                    out,
                    "| {} | {count} | {} | {} |",
                    t.server.label(),
                    thousands(size.tokens as f64),
                    thousands(size.chars as f64)
                );
            }
            (_, _, error) => {
                let why = error.as_deref().unwrap_or("no answer");
                let _ = writeln!(out, "| {} | failed: {} | | |", t.server.label(), cell(why));
            }
        }
    }
}

fn timings(out: &mut String, r: &Report) {
    let _ = writeln!(out, "\n## Wall time\n");
    let _ = writeln!(
        out,
        "Milliseconds from request to reply, seen by the MCP client. Navigation and snapshot: the corpus pages \
         (the snapshot right after the navigation); page in hand: from the navigation's start until the agent holds \
         the page, the navigation alone when its answer carries the page (Sightline's), else the navigation and the \
         snapshot after it, summed per page; changed page: a snapshot after the bench added a paragraph to \
         the page through each server's own script tool (Sightline: the bench's DevTools connection), so no \
         capture can be used again; action: the flow's clicks, selections and typing.\n"
    );
    let _ = writeln!(
        out,
        "| server | navigate median | navigate p90 | page in hand median | page in hand p90 | snapshot median | \
         snapshot p90 | changed page snapshot median | changed page snapshot p90 | action median | action p90 |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for s in &r.summaries {
        let ServerSummary {
            navigate_ms: n,
            page_in_hand_ms: h,
            snapshot_ms: sn,
            changed_snapshot_ms: c,
            action_ms: a,
            ..
        } = s;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s.server.label(),
            stat(*n, |x| x.median),
            stat(*n, |x| x.p90),
            stat(*h, |x| x.median),
            stat(*h, |x| x.p90),
            stat(*sn, |x| x.median),
            stat(*sn, |x| x.p90),
            stat(*c, |x| x.median),
            stat(*c, |x| x.p90),
            stat(*a, |x| x.median),
            stat(*a, |x| x.p90),
        );
    }
    let _ = writeln!(
        out,
        "\n| Sightline's median ÷ the faster peer's | navigate | page in hand | snapshot | changed page snapshot | \
         action |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|");
    for (what, [navigate, in_hand, snapshot, changed, action]) in super::report::faster_peer_rows(r) {
        let _ = writeln!(out, "| {what} | {navigate} | {in_hand} | {snapshot} | {changed} | {action} |");
    }
}

fn memory(out: &mut String, r: &Report) {
    let Some(run) = &r.memory else { return };
    let _ = writeln!(out, "\n## Sightline's memory over many snapshots\n");
    let _ = writeln!(
        out,
        "The extension's service worker, read before and during {} snapshots of the `{}` page of the readability \
         corpus; before each, the bench changes one attribute of the page, so each is a fresh capture ({} were). \
         JavaScript heap in use (`Runtime.getHeapUsage`) and the wasm runtime's linear memory (which never shrinks: \
         its peak).\n",
        run.snapshots, run.page, run.fresh
    );
    if let Some(error) = &run.error {
        let _ = writeln!(out, "The run stopped early: {error}\n");
    }
    let _ = writeln!(out, "| after snapshots | JS heap in use | wasm memory |\n|--:|--:|--:|");
    let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0));
    for reading in &run.readings {
        let _ = writeln!(out, "| {} | {} | {} |", reading.after, mib(reading.js_heap_used), mib(reading.wasm_memory));
    }
}

fn changes(out: &mut String, r: &Report) {
    let Some(run) = &r.changes else { return };
    if run.readings.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Learning what went wrong: console and network after scripted failures\n");
    let _ = writeln!(
        out,
        "`{}` fails the same way on every server (HTTP 404 and 503 from its APIs, an unresolvable host, a warning, \
         logged errors, an unhandled rejection). Counted: every reply an agent needs to learn about them.\n",
        run.page
    );
    let _ = writeln!(out, "| server | tools | tokens | chars |\n|---|---|--:|--:|");
    for reading in &run.readings {
        match &reading.reading {
            Ok(x) => {
                let failed = if x.ok { "" } else { " (a tool reported an error)" };
                let _ = writeln!(
                    out,
                    "| {} | {}{failed} | {} | {} |",
                    reading.server.label(),
                    x.tools.join(" + "),
                    thousands(x.size.tokens as f64),
                    thousands(x.size.chars as f64)
                );
            }
            Err(e) => {
                let _ = writeln!(out, "| {} | failed: {} | | |", reading.server.label(), cell(e));
            }
        }
    }
}

fn method(out: &mut String, r: &Report) {
    let _ = writeln!(out, "\n## How this was measured\n");
    let network = BASE_FLAGS.iter().find(|f| f.starts_with("--host-resolver-rules")).copied().unwrap_or("(none)");
    let (width, height) = VIEWPORT;
    let _ = writeln!(
        out,
        "- Every server drives its own headless Chromium ({}) at a {width}×{height} viewport, on a fresh profile, \
         with the network limited to this machine (`{network}`); pages are served from 127.0.0.1.",
        r.machine.chromium
    );
    let _ = writeln!(
        out,
        "- Servers are driven over MCP (stdio) by the same client, one call at a time; they take turns page by page \
         over the corpora and step by step through the flow (the order turning each time), so drift in the machine's \
         speed weighs on each alike. \
         Tokens are counted with {} over the text blocks of each reply (what an MCP client hands the model).",
        r.machine.tokenizer
    );
    let _ = writeln!(
        out,
        "- Medians and p90s use the nearest-rank method; ratios compare only pages both servers snapshotted. \
         Every call has a time limit; a server that fails a call is restarted and the failure is listed above."
    );
    let _ = writeln!(out, "- Raw numbers: `report.json` beside this file.");
}

fn stat(summary: Option<Summary>, pick: impl Fn(&Summary) -> f64) -> String {
    summary.map(|s| thousands(pick(&s))).unwrap_or_else(|| "—".to_owned())
}

fn size_cell(outcome: Option<&Outcome>, pick: impl Fn(&super::tokens::Size) -> usize) -> String {
    match outcome {
        Some(Outcome::Ok { size, calls, .. }) if *calls > 1 => {
            format!("{} ({calls} pages)", thousands(pick(size) as f64))
        }
        Some(Outcome::Ok { size, .. }) => thousands(pick(size) as f64),
        Some(Outcome::Failed { .. }) => "failed".to_owned(),
        None => "—".to_owned(),
    }
}

/// `12345.6` → `12,346`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.round().abs());
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if value < -0.5 { format!("-{grouped}") } else { grouped }
}

/// Text safe inside a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1234.0), "1,234");
        assert_eq!(thousands(1234567.0), "1,234,567");
    }
}
