//! `cargo xtask tasks`: MiniWoB++'s task pages (the `miniwob` 1.1.0 wheel from PyPI, never its
//! Python) served from 127.0.0.1 and played by the scripted solvers of `crate::miniwob`
//! through Sightline, Playwright MCP and chrome-devtools-mcp, each on its own fresh browser,
//! one server at a time. Every task with a solver is played with the same seeds on every
//! server; the harness starts each episode and reads its reward over its own CDP connection.
//!
//! Writes `target/tasks/report.md` and `report.json`, and every episode's calls and replies
//! under `target/tasks/replies/<server>/<task>-<seed>.txt`.

mod markdown;
mod report;
mod servers;
pub mod wheel;

use std::collections::BTreeSet;
use std::time::Instant;

use crate::miniwob::agent::{Agent, Server};
use crate::miniwob::control::{EPISODE_LIMIT, EpisodeControl};
use crate::miniwob::episode::{Episode, play};
use crate::miniwob::{site, solvers};
use crate::paths;

use self::report::{EpisodeRecord, Report, ServerRun, TaskCoverage};
use self::servers::Running;
use crate::Built;
use crate::bench::machine::Machine;

/// The seeds every task is played with.
const SEEDS: [u64; 3] = [1, 2, 3];

/// Restarts of one server after broken calls before the harness gives up on it.
const MAX_RESTARTS: usize = 10;

/// A small spread of task families for `--quick`.
const QUICK: &[&str] = &[
    "click-button",
    "click-checkboxes",
    "click-link",
    "click-option",
    "click-tab",
    "click-dialog-2",
    "click-widget",
    "focus-text-2",
];

/// Options of `cargo xtask tasks`.
#[derive(Debug, Clone, clap::Args)]
pub struct TasksArgs {
    /// Play a fixed handful of task families instead of every task with a solver.
    #[arg(long)]
    pub quick: bool,
    /// Only these tasks (repeatable).
    #[arg(long = "task")]
    pub tasks: Vec<String>,
    /// Only these servers: sightline, playwright, devtools (repeatable).
    #[arg(long = "server")]
    pub servers: Vec<String>,
    /// Play only the first N seeds.
    #[arg(long)]
    pub seeds: Option<usize>,
}

/// Fetches the task pages and the peers if needed, plays, and writes the report.
pub fn run(built: &Built, args: &TasksArgs) -> anyhow::Result<()> {
    anyhow::ensure!(built.host_binary == paths::host_binary(), "host built outside target/release");
    wheel::ensure()?;
    let servers = chosen_servers(&args.servers)?;
    if servers.iter().any(|s| *s != Server::Sightline) {
        crate::bench::peers::ensure_packages()?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let report = runtime.block_on(play_all(args, &servers))?;
    let dir = site::tasks_dir();
    std::fs::write(dir.join("report.json"), serde_json::to_vec_pretty(&report)?)?;
    std::fs::write(dir.join("report.md"), markdown::render(&report))?;
    println!("\n{}", markdown::summary_table(&report));
    if let Some(ratio) = &report.ratio {
        println!(
            "Sightline ÷ Playwright MCP, tokens per solved episode: median {:.2} over {} tasks (totals {:.2})",
            ratio.median, ratio.tasks, ratio.total
        );
    }
    println!("\nreport: {}\nraw:    {}", dir.join("report.md").display(), dir.join("report.json").display());
    Ok(())
}

fn chosen_servers(names: &[String]) -> anyhow::Result<Vec<Server>> {
    if names.is_empty() {
        return Ok(Server::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| match n.as_str() {
            "sightline" => Ok(Server::Sightline),
            "playwright" | "playwright-mcp" => Ok(Server::Playwright),
            "devtools" | "chrome-devtools-mcp" => Ok(Server::Devtools),
            other => anyhow::bail!("unknown server {other:?}: use sightline, playwright or devtools"),
        })
        .collect()
}

async fn play_all(args: &TasksArgs, servers: &[Server]) -> anyhow::Result<Report> {
    let started = Instant::now();
    let all = site::all_tasks()?;
    let tasks: Vec<String> = if !args.tasks.is_empty() {
        args.tasks.clone()
    } else if args.quick {
        QUICK.iter().map(|t| (*t).to_owned()).collect()
    } else {
        all.iter().filter(|t| solvers::SOLVED.contains(&t.as_str())).cloned().collect()
    };
    let seeds: Vec<u64> = SEEDS.iter().copied().take(args.seeds.unwrap_or(SEEDS.len())).collect();
    let bpe = tiktoken_rs::o200k_base_singleton();
    let replies = site::tasks_dir().join("replies");
    let _ = std::fs::remove_dir_all(&replies);

    let mut runs = Vec::new();
    for &server in servers {
        eprintln!("tasks: {} — {} tasks × {} seeds", server.label(), tasks.len(), seeds.len());
        runs.push(play_server(server, &tasks, &seeds, bpe, &replies).await);
    }
    let rows: Vec<_> = runs.iter().flat_map(report::rows).collect();
    let summaries = runs
        .iter()
        .map(|run| report::summarize(run, &rows.iter().filter(|r| r.server == run.server).cloned().collect::<Vec<_>>()))
        .collect();
    let ratio = report::ratio(&rows);
    let coverage = all
        .iter()
        .map(|t| TaskCoverage {
            task: t.clone(),
            solver: solvers::SOLVED.contains(&t.as_str()),
            why_not: solvers::UNSOLVED.iter().find(|(name, _)| name == t).map(|(_, why)| (*why).to_owned()),
        })
        .collect();
    let machine = Machine::describe(&paths::chromium());
    Ok(Report {
        started: machine.date.clone(),
        machine: machine.summary(),
        quick: args.quick,
        seeds,
        episode_limit_s: EPISODE_LIMIT.as_secs(),
        tasks: coverage,
        runs,
        rows,
        summaries,
        ratio,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Plays every (task, seed) on `server`, restarting it when a call breaks the connection.
async fn play_server(
    server: Server,
    tasks: &[String],
    seeds: &[u64],
    bpe: &tiktoken_rs::CoreBPE,
    replies: &std::path::Path,
) -> ServerRun {
    let html = site::html_dir();
    let jobs: Vec<(&String, u64)> = tasks.iter().flat_map(|t| seeds.iter().map(move |&s| (t, s))).collect();
    let mut run = ServerRun {
        server,
        version: crate::bench::version(server),
        error: None,
        restarts: 0,
        no_tool: Vec::new(),
        episodes: Vec::new(),
    };
    let mut no_tool = BTreeSet::new();
    let mut next = 0;
    while next < jobs.len() {
        let running = match Running::start(server, &html).await {
            Ok(r) => r,
            Err(e) => {
                run.error = Some(format!("{e:#}"));
                eprintln!("tasks: {} did not start: {e:#}", server.label());
                break;
            }
        };
        match session(&running, &jobs[next..], bpe, replies, &mut run, &mut no_tool).await {
            Ok((played, broke)) => {
                next += played;
                running.close().await;
                if broke && next < jobs.len() {
                    run.restarts += 1;
                    eprintln!("tasks: restarting {} after a broken call", server.label());
                    if run.restarts > MAX_RESTARTS {
                        run.error = Some(format!("gave up after {MAX_RESTARTS} restarts"));
                        break;
                    }
                }
            }
            Err(e) => {
                run.error = Some(format!("{e:#}"));
                eprintln!("tasks: {}: {e:#}", server.label());
                running.close().await;
                break;
            }
        }
    }
    run.no_tool = no_tool.into_iter().collect();
    run
}

/// Plays `jobs` in order on one running server until one breaks the connection; returns how
/// many were played and whether the last one broke it.
async fn session(
    running: &Running,
    jobs: &[(&String, u64)],
    bpe: &tiktoken_rs::CoreBPE,
    replies: &std::path::Path,
    run: &mut ServerRun,
    no_tool: &mut BTreeSet<crate::miniwob::agent::Operation>,
) -> anyhow::Result<(usize, bool)> {
    let mut agent = Agent::new(running.server, running.client()).await?;
    let mut control = EpisodeControl::connect(&running.endpoint)?;
    let mut played = 0;
    let mut broke = false;
    for &(task, seed) in jobs {
        let url = running.url(&site::task_path(task));
        let episode = play(&mut agent, &mut control, task, &url, seed).await;
        save_replies(replies, running.server, &episode);
        let record = EpisodeRecord::of(&episode, bpe);
        eprintln!(
            "tasks: {:<20} {:<28} seed {seed}: {} ({} tok, {:.1} s){}",
            running.server.label(),
            task,
            if record.solved { "solved" } else { "unsolved" },
            record.tokens,
            record.ms / 1000.0,
            record.detail.as_deref().map(|d| format!(" — {d}")).unwrap_or_default()
        );
        broke = record.reason.as_deref() == Some("protocol error");
        run.episodes.push(record);
        played += 1;
        if broke {
            break;
        }
    }
    no_tool.extend(agent.missing().iter().copied());
    Ok((played, broke))
}

/// Saves an episode's calls and replies as text.
fn save_replies(root: &std::path::Path, server: Server, episode: &Episode) {
    let dir = root.join(server.slug());
    let mut text = String::new();
    for call in &episode.setup {
        text.push_str(&format!("### (setup, not counted) {} {}\n{}\n\n", call.tool, call.args, call.text));
    }
    for call in &episode.calls {
        text.push_str(&format!(
            "### {} {} ({:.0} ms{})\n{}\n\n",
            call.tool,
            call.args,
            call.ms,
            if call.is_error { ", error" } else { "" },
            call.text
        ));
    }
    if let Some(reason) = &episode.reason {
        text.push_str(&format!("### unsolved: {reason}: {}\n", episode.detail.as_deref().unwrap_or("")));
    }
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join(format!("{}-{}.txt", episode.task, episode.seed)), text);
    }
}
