//! The report's data: every episode as played, and what the tables are computed from (per task
//! and server, per server, and Sightline against Playwright MCP). Written as `report.json`;
//! `markdown` renders it.

use std::collections::{BTreeMap, BTreeSet};

use crate::miniwob::agent::{Operation, Server};
use crate::miniwob::episode::Episode;
use serde::Serialize;
use tiktoken_rs::CoreBPE;

/// The whole run.
#[derive(Debug, Serialize)]
pub struct Report {
    /// When the run started (UTC).
    pub started: String,
    /// The machine and browser.
    pub machine: String,
    /// Whether only the quick subset ran.
    pub quick: bool,
    /// The seeds every task was played with.
    pub seeds: Vec<u64>,
    /// The episode time limit the harness set, in seconds.
    pub episode_limit_s: u64,
    /// Every task of the wheel: whether it has a solver, and why not.
    pub tasks: Vec<TaskCoverage>,
    /// Each server's episodes.
    pub runs: Vec<ServerRun>,
    /// Per task and server.
    pub rows: Vec<TaskRow>,
    /// Per server.
    pub summaries: Vec<Summary>,
    /// Sightline's tokens per solved episode against Playwright MCP's.
    pub ratio: Option<Ratio>,
    /// Wall time of the whole run.
    pub seconds: f64,
}

/// One task of the wheel.
#[derive(Debug, Serialize)]
pub struct TaskCoverage {
    /// The task.
    pub task: String,
    /// Whether a solver exists.
    pub solver: bool,
    /// Why not.
    pub why_not: Option<String>,
}

/// One server's run.
#[derive(Debug, Serialize)]
pub struct ServerRun {
    /// The server.
    pub server: Server,
    /// Its exact version.
    pub version: String,
    /// Why it could not run, if it could not.
    pub error: Option<String>,
    /// How many times it was restarted after a broken connection or a call that ran out of time.
    pub restarts: usize,
    /// Operations solvers needed that it has no tool for.
    pub no_tool: Vec<Operation>,
    /// Every episode.
    pub episodes: Vec<EpisodeRecord>,
}

/// One episode, measured.
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeRecord {
    /// The task.
    pub task: String,
    /// The seed.
    pub seed: u64,
    /// Whether it was solved.
    pub solved: bool,
    /// The raw reward (0 when the page gave none).
    pub raw_reward: f64,
    /// The reward the page gave after its time scaling (with the raised time limit).
    pub reward: f64,
    /// Why not solved.
    pub reason: Option<String>,
    /// Details.
    pub detail: Option<String>,
    /// o200k tokens of the text of every reply the solver got.
    pub tokens: usize,
    /// o200k tokens of the harness's setup replies (loading the page; not counted above).
    pub setup_tokens: usize,
    /// Tool calls made.
    pub calls: usize,
    /// The tools called, in order.
    pub tools: Vec<String>,
    /// Wall time (ms).
    pub ms: f64,
}

impl EpisodeRecord {
    /// Measures `episode`.
    pub fn of(episode: &Episode, bpe: &CoreBPE) -> EpisodeRecord {
        EpisodeRecord {
            task: episode.task.clone(),
            seed: episode.seed,
            solved: episode.solved,
            raw_reward: episode.reward.as_ref().map_or(0.0, |r| r.raw),
            reward: episode.reward.as_ref().map_or(0.0, |r| r.reward),
            reason: episode.reason.clone(),
            detail: episode.detail.clone(),
            tokens: episode.calls.iter().map(|c| bpe.encode_ordinary(&c.text).len()).sum(),
            setup_tokens: episode.setup.iter().map(|c| bpe.encode_ordinary(&c.text).len()).sum(),
            calls: episode.calls.len(),
            tools: episode.calls.iter().map(|c| c.tool.clone()).collect(),
            ms: episode.ms,
        }
    }
}

/// One task on one server.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRow {
    /// The task.
    pub task: String,
    /// The server.
    pub server: Server,
    /// Episodes solved.
    pub solved: usize,
    /// Episodes played.
    pub episodes: usize,
    /// Mean raw reward.
    pub mean_reward: f64,
    /// Mean tokens per episode.
    pub tokens: f64,
    /// Mean tokens per solved episode.
    pub tokens_per_solved: Option<f64>,
    /// Mean wall time per episode (ms).
    pub ms: f64,
    /// Why episodes were not solved, with counts (`no tool ×3`).
    pub reasons: Vec<(String, usize)>,
    /// One detail of the first unsolved episode.
    pub detail: Option<String>,
}

/// One server over all tasks with solvers.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The server.
    pub server: Server,
    /// Tasks with solvers that were played.
    pub tasks: usize,
    /// Tasks with at least one episode solved.
    pub tasks_solved: usize,
    /// Episodes played.
    pub episodes: usize,
    /// Episodes solved.
    pub solved: usize,
    /// Median over tasks of the mean tokens per solved episode.
    pub median_tokens_per_solved: Option<f64>,
    /// Median wall time per episode (ms).
    pub median_ms: Option<f64>,
    /// Unsolved episodes by reason.
    pub reasons: BTreeMap<String, usize>,
}

/// Sightline ÷ Playwright MCP, tokens per solved episode, over tasks both solved.
#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    /// Tasks both solved at least once.
    pub tasks: usize,
    /// Median of the per-task ratios.
    pub median: f64,
    /// Ratio of the summed per-task means.
    pub total: f64,
}

/// The per-task rows of `run`.
pub fn rows(run: &ServerRun) -> Vec<TaskRow> {
    let mut by_task: BTreeMap<&str, Vec<&EpisodeRecord>> = BTreeMap::new();
    for e in &run.episodes {
        by_task.entry(e.task.as_str()).or_default().push(e);
    }
    by_task
        .into_iter()
        .map(|(task, eps)| {
            let n = eps.len() as f64;
            let solved: Vec<&&EpisodeRecord> = eps.iter().filter(|e| e.solved).collect();
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for e in &eps {
                if let Some(r) = &e.reason {
                    *reasons.entry(r.clone()).or_default() += 1;
                }
            }
            TaskRow {
                task: task.to_owned(),
                server: run.server,
                solved: solved.len(),
                episodes: eps.len(),
                mean_reward: eps.iter().map(|e| e.raw_reward).sum::<f64>() / n,
                tokens: eps.iter().map(|e| e.tokens as f64).sum::<f64>() / n,
                tokens_per_solved: (!solved.is_empty())
                    .then(|| solved.iter().map(|e| e.tokens as f64).sum::<f64>() / solved.len() as f64),
                ms: eps.iter().map(|e| e.ms).sum::<f64>() / n,
                reasons: reasons.into_iter().collect(),
                detail: eps.iter().find(|e| !e.solved).and_then(|e| e.detail.clone()),
            }
        })
        .collect()
}

/// The summary of `run` from its rows.
pub fn summarize(run: &ServerRun, rows: &[TaskRow]) -> Summary {
    let mut reasons = BTreeMap::new();
    for e in &run.episodes {
        if let Some(r) = &e.reason {
            *reasons.entry(r.clone()).or_default() += 1;
        }
    }
    Summary {
        server: run.server,
        tasks: rows.len(),
        tasks_solved: rows.iter().filter(|r| r.solved > 0).count(),
        episodes: run.episodes.len(),
        solved: run.episodes.iter().filter(|e| e.solved).count(),
        median_tokens_per_solved: median(rows.iter().filter_map(|r| r.tokens_per_solved).collect()),
        median_ms: median(run.episodes.iter().map(|e| e.ms).collect()),
        reasons,
    }
}

/// Sightline's tokens per solved episode over Playwright MCP's, on tasks both solved.
pub fn ratio(rows: &[TaskRow]) -> Option<Ratio> {
    let of = |server: Server| -> BTreeMap<&str, f64> {
        rows.iter()
            .filter(|r| r.server == server)
            .filter_map(|r| r.tokens_per_solved.map(|t| (r.task.as_str(), t)))
            .collect()
    };
    let (ours, theirs) = (of(Server::Sightline), of(Server::Playwright));
    let both: BTreeSet<&str> = ours.keys().filter(|t| theirs.contains_key(*t)).copied().collect();
    if both.is_empty() {
        return None;
    }
    let ratios = both.iter().map(|t| ours[t] / theirs[t]).collect();
    let sum = |m: &BTreeMap<&str, f64>| both.iter().map(|t| m[t]).sum::<f64>();
    Some(Ratio { tasks: both.len(), median: median(ratios)?, total: sum(&ours) / sum(&theirs) })
}

/// The median of `values` (mean of the middle two for an even count), as the bench computes it.
pub fn median(values: Vec<f64>) -> Option<f64> {
    crate::bench::stats::summarize(&values).map(|s| s.median)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episode(task: &str, solved: bool, tokens: usize) -> EpisodeRecord {
        EpisodeRecord {
            task: task.into(),
            seed: 1,
            solved,
            raw_reward: if solved { 1.0 } else { -1.0 },
            reward: 0.0,
            reason: (!solved).then(|| "no tool".into()),
            detail: None,
            tokens,
            setup_tokens: 0,
            calls: 1,
            tools: Vec::new(),
            ms: 10.0,
        }
    }

    fn run(server: Server, episodes: Vec<EpisodeRecord>) -> ServerRun {
        ServerRun { server, version: String::new(), error: None, restarts: 0, no_tool: Vec::new(), episodes }
    }

    #[test]
    fn rows_average_tokens_over_solved_episodes_only() {
        let r = rows(&run(
            Server::Sightline,
            vec![episode("a", true, 100), episode("a", false, 900), episode("a", true, 300)],
        ));
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].solved, r[0].episodes), (2, 3));
        assert_eq!(r[0].tokens_per_solved, Some(200.0));
        assert_eq!(r[0].reasons, [("no tool".to_owned(), 1)]);
    }

    #[test]
    fn the_ratio_is_taken_over_tasks_both_servers_solved() {
        let mut all = rows(&run(
            Server::Sightline,
            vec![episode("a", true, 100), episode("b", true, 50), episode("c", false, 1)],
        ));
        all.extend(rows(&run(
            Server::Playwright,
            vec![episode("a", true, 400), episode("b", true, 100), episode("c", true, 7)],
        )));
        let ratio = ratio(&all).expect("a ratio");
        assert_eq!(ratio.tasks, 2);
        assert!((ratio.median - 0.375).abs() < 1e-9);
        assert!((ratio.total - 0.3).abs() < 1e-9);
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
