//! One episode: the harness loads the task page through the MCP server (setup, kept apart from
//! the episode's own calls), seeds and starts the episode over its own CDP connection, the
//! solver plays, and the harness reads the reward the page computed.
//!
//! MiniWoB++'s own environment loads a task page once and starts episode after episode on it;
//! here every episode gets a freshly loaded page, so nothing one episode did can reach the next.
//! The episode is what the solver does from the moment it starts to the reward.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::agent::{Agent, Call};
use super::control::{EpisodeControl, Reward};
use super::solvers;

/// How long the page may take to end the episode after the solver's last action.
const VERDICT_PATIENCE: Duration = Duration::from_secs(2);

/// What happened in one episode.
#[derive(Debug, Clone, Serialize)]
pub struct Episode {
    /// The task.
    pub task: String,
    /// The seed the page was started with.
    pub seed: u64,
    /// What the page said at the end (absent when the harness could not read it).
    pub reward: Option<Reward>,
    /// Whether the episode was solved (ended with the full raw reward).
    pub solved: bool,
    /// Why it was not solved, in a few words (`no tool`, `wrong snapshot`, `wrong answer`…).
    pub reason: Option<String>,
    /// The details of that reason.
    pub detail: Option<String>,
    /// The harness's setup calls: loading the task page through the server.
    pub setup: Vec<Call>,
    /// Every tool call the solver made.
    pub calls: Vec<Call>,
    /// Wall time from the episode's start to the solver's last reply.
    pub ms: f64,
}

/// Plays one episode of `task` at `url` with `seed`.
pub async fn play(agent: &mut Agent<'_>, control: &mut EpisodeControl, task: &str, url: &str, seed: u64) -> Episode {
    agent.take_calls();
    let mut episode = Episode {
        task: task.to_owned(),
        seed,
        reward: None,
        solved: false,
        reason: None,
        detail: None,
        setup: Vec::new(),
        calls: Vec::new(),
        ms: 0.0,
    };
    let loaded = agent.navigate(url).await;
    episode.setup = agent.take_calls();
    let started = Instant::now();
    let outcome = match loaded {
        Err(failure) => Some(Err(failure)),
        Ok(_) => match control.start(url, seed) {
            Err(e) => {
                episode.reason = Some("harness error".into());
                episode.detail = Some(format!("starting the episode: {e:#}"));
                None
            }
            Ok(()) => {
                agent.forget();
                solvers::solve(task, agent).await
            }
        },
    };
    episode.ms = started.elapsed().as_secs_f64() * 1000.0;
    episode.calls = agent.take_calls();
    if episode.reason.is_some() {
        return episode;
    }
    let failure = match outcome {
        None => {
            episode.reason = Some("no solver".into());
            return episode;
        }
        Some(Err(failure)) => Some(failure),
        Some(Ok(())) => None,
    };
    match control.reward(url, if failure.is_some() { Duration::ZERO } else { VERDICT_PATIENCE }) {
        Ok(reward) => {
            episode.solved = reward.solved();
            episode.reward = Some(reward);
        }
        Err(e) => {
            episode.reason = Some("harness error".into());
            episode.detail = Some(format!("reading the reward: {e:#}"));
        }
    }
    let _ = control.stop(url);
    if episode.solved || episode.reason.is_some() {
        return episode;
    }
    let (reason, detail) = match (&failure, &episode.reward) {
        (Some(f), _) => (f.kind().to_owned(), f.to_string()),
        (None, Some(r)) if r.done => (
            "wrong answer".to_owned(),
            format!("the page gave {} ({})", r.raw, r.reason.as_deref().unwrap_or("no reason given")),
        ),
        (None, _) => {
            ("did not finish".to_owned(), "the solver finished but the page did not end the episode".to_owned())
        }
    };
    episode.reason = Some(reason);
    episode.detail = Some(detail);
    episode
}

/// The failure kinds a report groups unsolved episodes by, with what each means.
pub const REASONS: &[(&str, &str)] = &[
    ("no tool", "the server has no tool for an operation the solver needs"),
    ("wrong snapshot", "what the solver needs (an element's ref, a widget, a text) is not in what the server shows"),
    ("tool error", "a tool answered with an error"),
    ("protocol error", "a call failed at the MCP level or ran out of time"),
    ("could not decide", "the solver could not read the instruction or the page"),
    ("wrong answer", "the episode ended with less than the full reward"),
    ("did not finish", "the solver finished but the page did not end the episode"),
    ("harness error", "the harness could not start the episode or read its reward"),
    ("no solver", "the task has no solver"),
];
