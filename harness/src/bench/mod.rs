//! `cargo xtask bench`: Sightline and its peers (Playwright MCP, chrome-devtools-mcp), each
//! driven through its own MCP interface, measured on the same pages with the same tokenizer:
//!
//! 1. snapshot tokens and characters over each corpus of real pages, each apart (`corpus`),
//!    with Sightline's fidelity on the same pages beside them (`fidelity`),
//! 2. a scripted shopping flow with every reply counted (`flow`),
//! 3. each server's `tools/list` footprint,
//! 4. wall time of navigations, snapshots and actions,
//! 5. slots for measures other parts of Sightline will provide (`extensions`), including the
//!    console-and-network comparison after scripted failures (`changes`).
//!
//! Each server drives its own fresh browser. The servers take turns, page by page over the
//! corpora and step by step through the flow, so a machine whose speed drifts during the run
//! weighs on each alike. The report goes to `target/bench/report.md` with the raw `report.json`
//! beside it.

mod changes;
mod corpus;
mod extensions;
mod fidelity;
mod flow;
pub mod machine;
mod markdown;
mod memory;
pub mod parts;
pub(crate) mod peers;
mod refs;
mod replies;
mod report;
mod servers;
pub(crate) mod stats;
mod tokens;

use std::process::Command;
use std::time::Instant;

use std::path::PathBuf;

use crate::FixtureServer;
use crate::paths::{self, Corpus};

use self::corpus::{Measurer, Outcome, PageResult};
use self::flow::{Flow, FlowRun, FlowTurns, StepRecord};
use self::report::{CorpusSection, FlowSection, Report, ServerInfo, ServerPages, ToolsFootprint};
use self::servers::{Server, ServerKind};
use self::tokens::{Size, Tokenizer};
use crate::Built;
use crate::paths::workspace_root;

/// Installs the peers if needed and runs the bench against `built`.
pub fn run(built: &Built, quick: bool) -> anyhow::Result<()> {
    anyhow::ensure!(built.host_binary == paths::host_binary(), "host built outside target/release");
    peers::ensure_packages()?;
    if !quick {
        // Fidelity beside the tokens is measured on captures with ground truth (recorded unless
        // they are already newer than everything that shapes them).
        crate::recording::ensure_corpus_captures()?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let report = runtime.block_on(bench(quick))?;
    let dir = report_dir();
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("report.json"), serde_json::to_vec_pretty(&report)?)?;
    let text = markdown::render(&report);
    std::fs::write(dir.join("report.md"), &text)?;
    print_headline(&report);
    println!("\nreport: {}\nraw:    {}", dir.join("report.md").display(), dir.join("report.json").display());
    Ok(())
}

async fn bench(quick: bool) -> anyhow::Result<Report> {
    let started = Instant::now();
    let chromium = paths::chromium();
    let machine = machine::Machine::describe(&chromium);
    let tokenizer = Tokenizer::o200k();
    let flow = Flow::load(&peers::bench_dir().join("flows/shop.json"))?;
    let shop_dir = peers::bench_dir().join(&flow.site);

    let mut corpora: Vec<CorpusSection> = Vec::new();
    let mut sites: Vec<Option<(FixtureServer, PathBuf)>> = Vec::new();
    for kind in Corpus::ALL {
        let mut section = CorpusSection::new(kind);
        match kind.dir() {
            Some(dir) => {
                section.cases = corpus::cases(kind, &dir, quick)?;
                sites.push(Some((FixtureServer::start(&dir)?, dir)));
            }
            None => {
                let why = format!("the {} corpus is absent (expected at {})", kind.name(), kind.expected_at());
                eprintln!("bench: skipping it: {why}");
                section.skipped = Some(why);
                sites.push(None);
            }
        }
        corpora.push(section);
    }
    let replies = replies::Replies::fresh(report_dir().join("replies"));

    let mut servers = Vec::new();
    let mut tools = Vec::new();
    let mut runs = Vec::new();
    let mut full_pages: Option<flow::FullPageRun> = None;
    let mut memory = None;
    let mut changes = changes::ChangesRun { page: changes::TRACKING_PAGE.to_owned(), readings: Vec::new() };
    // The corpora, side by side: every server runs at once, each on its own fresh browser, and
    // each page is measured on one server after another before the next page, the order turning
    // page by page. A machine that speeds up or slows down during the run then weighs on every
    // server alike; a server waiting its turn sits on a loaded page and takes next to no CPU.
    let mut measurers = Vec::new();
    for kind in ServerKind::ALL {
        eprintln!("bench: starting {}", kind.label());
        match Server::start(kind, &chromium).await {
            Ok(server) => {
                tools.push(footprint(&server, &tokenizer).await);
                measurers.push(Measurer::new(server));
            }
            Err(e) => {
                let why = format!("{} did not start: {e:#}", kind.label());
                eprintln!("bench: {why}");
                tools.push(ToolsFootprint { server: kind, tools: None, size: None, error: Some(why.clone()) });
                for section in &mut corpora {
                    section.results.push(ServerPages { server: kind, pages: not_measured(&section.cases, &why) });
                }
            }
        }
    }
    for (section, site) in corpora.iter_mut().zip(&sites) {
        let Some((site, dir)) = site else { continue };
        let mut pages: Vec<Vec<PageResult>> = measurers.iter().map(|_| Vec::new()).collect();
        for (i, case) in section.cases.iter().enumerate() {
            let progress = format!("{}/{} {case}", i + 1, section.cases.len());
            for which in turn_order(i, measurers.len()) {
                let result =
                    measurers[which].page(section.corpus, site, dir, case, &progress, &tokenizer, &replies).await;
                pages[which].push(result);
            }
        }
        for (measurer, pages) in measurers.iter().zip(pages) {
            section.results.push(ServerPages { server: measurer.kind(), pages });
        }
        section.results.sort_by_key(|r| r.server);
    }
    let mut restarts: Vec<(ServerKind, usize)> = Vec::new();
    for measurer in measurers {
        let kind = measurer.kind();
        restarts.push((kind, measurer.restarts));
        if let Some(server) = measurer.into_server() {
            if kind == ServerKind::Sightline {
                memory = memory_run(&server, &corpora, &sites, quick).await;
            }
            server.close().await;
        }
    }

    // The flow, side by side as well: each server on a fresh browser (an empty basket) with its
    // own copy of the shop, taking turns step by step, the order turning each step; then the
    // failures.
    let mut sessions = Vec::new();
    for kind in ServerKind::ALL {
        let shop = FixtureServer::start(&shop_dir)?;
        match Server::start(kind, &chromium).await {
            Ok(server) => sessions.push((server, shop)),
            Err(e) => runs.push(not_run(kind, &flow, &format!("{} did not start: {e:#}", kind.label()))),
        }
    }
    let mut turns: Vec<_> =
        sessions.iter().map(|(server, shop)| FlowTurns::new(server, &flow, shop, &tokenizer, &replies)).collect();
    for i in 0..flow.steps.len() {
        for which in turn_order(i, turns.len()) {
            turns[which].step().await;
        }
    }
    for turns in turns {
        runs.push(turns.finish().await);
    }
    runs.sort_by_key(|run| run.server);
    for (server, shop) in sessions {
        if let Some(reading) = changes::read(&server, &shop, &tokenizer).await {
            changes.readings.push(reading);
        }
        server.close().await;
    }
    // Sightline once more, on a fresh browser: the same flow read as a full page after every
    // step, to show what deltas and region dedup save.
    let shop = FixtureServer::start(&shop_dir)?;
    match Server::start(ServerKind::Sightline, &chromium).await {
        Ok(server) => {
            match flow::run_full_pages(&server, &flow, &shop, &tokenizer, &replies).await {
                Ok(run) => full_pages = Some(run),
                Err(e) => eprintln!("bench: the full-page flow failed: {e:#}"),
            }
            server.close().await;
        }
        Err(e) => eprintln!("bench: Sightline did not start for the full-page flow: {e:#}"),
    }
    for kind in ServerKind::ALL {
        let restarts = restarts.iter().find(|(k, _)| *k == kind).map_or(0, |(_, n)| *n);
        servers.push(ServerInfo { server: kind, label: kind.label().to_owned(), version: version(kind), restarts });
    }

    let flow = FlowSection { flow, runs, sightline_full_pages: full_pages };
    for section in &mut corpora {
        section.summarize();
        (section.fidelity, section.fidelity_missing) = fidelity::over(section.corpus, &section.cases);
    }
    let summaries = report::summarize_servers(&corpora.iter().collect::<Vec<_>>(), Some(&flow));
    Ok(Report {
        quick,
        machine,
        servers,
        corpora,
        flow,
        tools,
        changes: Some(changes),
        memory,
        summaries,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The order in which `servers` servers take their turn at round `round` (a page or a flow
/// step): each goes first in turn, so none is always measured right after the same other.
fn turn_order(round: usize, servers: usize) -> impl Iterator<Item = usize> {
    (0..servers).map(move |turn| (round + turn) % servers)
}

/// The large page the memory run snapshots again and again, and how many times.
const MEMORY_PAGE: &str = "wikipedia";
const MEMORY_SNAPSHOTS: usize = 1_000;
const MEMORY_SNAPSHOTS_QUICK: usize = 100;

/// Sightline's worker memory over many fresh snapshots of [`MEMORY_PAGE`] of the readability
/// corpus; `None` when that corpus is absent.
async fn memory_run(
    server: &Server,
    corpora: &[CorpusSection],
    sites: &[Option<(FixtureServer, PathBuf)>],
    quick: bool,
) -> Option<memory::MemoryRun> {
    let (section, (site, _)) =
        corpora.iter().zip(sites).find_map(|(c, s)| (c.corpus == Corpus::Readability).then_some((c, s.as_ref()?)))?;
    let url = site.url(&section.corpus.page(MEMORY_PAGE));
    let snapshots = if quick { MEMORY_SNAPSHOTS_QUICK } else { MEMORY_SNAPSHOTS };
    eprintln!("bench: Sightline's memory over {snapshots} snapshots of {MEMORY_PAGE}");
    Some(memory::measure(server, MEMORY_PAGE, &url, snapshots).await)
}

/// The size of `server`'s `tools/list`.
async fn footprint(server: &Server, tokenizer: &Tokenizer) -> ToolsFootprint {
    let kind = server.kind();
    match server.tools().await {
        Ok(list) => ToolsFootprint {
            server: kind,
            tools: Some(list.as_array().map_or(0, Vec::len)),
            size: Some(Size::of(tokenizer, &list.to_string())),
            error: None,
        },
        Err(e) => ToolsFootprint { server: kind, tools: None, size: None, error: Some(format!("{e:#}")) },
    }
}

/// Where the report and the saved replies go.
fn report_dir() -> std::path::PathBuf {
    workspace_root().join("target/bench")
}

/// Every case recorded as failed for `why` (a server that never started).
fn not_measured(cases: &[String], why: &str) -> Vec<PageResult> {
    let failed = Outcome::Failed { error: why.to_owned(), ms: None };
    cases
        .iter()
        .map(|case| PageResult {
            case: case.clone(),
            navigate: failed.clone(),
            snapshot: failed.clone(),
            changed_snapshot: failed.clone(),
            extras: Vec::new(),
            parts: None,
        })
        .collect()
}

/// Every step recorded as failed for `why`.
fn not_run(kind: ServerKind, flow: &Flow, why: &str) -> FlowRun {
    let steps = flow
        .steps
        .iter()
        .map(|s| StepRecord {
            label: s.action.label(),
            navigation: s.action.is_navigation(),
            calls: Vec::new(),
            error: Some(why.to_owned()),
            note: None,
        })
        .collect();
    FlowRun { server: kind, steps, completed: false }
}

/// The exact version of a server: the host's own `--version` and commit for Sightline, the
/// installed package (and its Playwright) for the peers.
pub fn version(kind: ServerKind) -> String {
    match kind.package() {
        None => {
            let host = Command::new(paths::host_binary()).arg("--version").output();
            let version = host.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
            let commit = Command::new("git")
                .args(["rev-parse", "--short", "HEAD"])
                .current_dir(workspace_root())
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
            match commit {
                Some(c) => format!("{version} (commit {c})"),
                None => version,
            }
        }
        Some(package) => {
            let own = peers::installed_version(package).unwrap_or_else(|e| format!("unknown ({e:#})"));
            match (kind, peers::installed_version("playwright-core")) {
                (ServerKind::Playwright, Ok(core)) => format!("{package}@{own} (playwright-core {core})"),
                _ => format!("{package}@{own}"),
            }
        }
    }
}

/// A short summary on stdout; the report has the rest.
fn print_headline(r: &Report) {
    for c in &r.corpora {
        if let Some(why) = &c.skipped {
            println!("\n{} corpus: not measured: {why}", c.corpus.name());
            continue;
        }
        println!(
            "\n{} corpus, snapshot tokens over {} pages (median / p90, failures):",
            c.corpus.name(),
            c.cases.len()
        );
        for s in &c.summaries {
            let t = s.snapshot_tokens;
            println!(
                "  {:<20} {:>8} / {:>8}  ({} failed)",
                s.server.label(),
                t.map(|x| format!("{:.0}", x.median)).unwrap_or_else(|| "—".into()),
                t.map(|x| format!("{:.0}", x.p90)).unwrap_or_else(|| "—".into()),
                s.pages_failed
            );
        }
        for ratio in &c.ratios {
            println!("  Sightline ÷ {}: median {:.2}, totals {:.2}", ratio.peer.label(), ratio.median, ratio.total);
        }
        if let Some(table) = markdown::token_parts(c) {
            println!("{table}");
        }
        if let Some(f) = &c.fidelity {
            let (lowest, lowest_text) = f.lowest_page_text().unwrap_or(("", 1.0));
            println!(
                "  Sightline fidelity over {} captured pages: interactive {:.2}%, text {:.2}% of the words shown \
                 (median page {:.2}%, lowest {lowest} {:.2}%); discounted {} words of closed select options, {} of \
                 covered text",
                f.pages,
                f.interactive() * 100.0,
                f.text_shown() * 100.0,
                f.median_page_text() * 100.0,
                lowest_text * 100.0,
                f.option_words_missing,
                f.covered_words_missing
            );
        }
    }
    println!("\nWall time, median / p90 ms (navigate, page in hand, snapshot, snapshot of a changed page, action):");
    let ms =
        |x: Option<stats::Summary>| x.map(|x| format!("{:.0} / {:.0}", x.median, x.p90)).unwrap_or_else(|| "—".into());
    for s in &r.summaries {
        println!(
            "  {:<20} {:>13}  {:>13}  {:>13}  {:>13}  {:>13}",
            s.server.label(),
            ms(s.navigate_ms),
            ms(s.page_in_hand_ms),
            ms(s.snapshot_ms),
            ms(s.changed_snapshot_ms),
            ms(s.action_ms)
        );
    }
    for (what, ratios) in report::faster_peer_rows(r) {
        println!("  Sightline ÷ the faster peer, {what}: {}", ratios.join(", "));
    }
    println!("Flow ({} steps) tokens:", r.flow.flow.steps.len());
    for run in &r.flow.runs {
        println!(
            "  {:<20} {:>8}  completed: {}, failed steps: {}",
            run.server.label(),
            run.tokens(),
            if run.completed { "yes" } else { "no" },
            run.failures()
        );
    }
}
