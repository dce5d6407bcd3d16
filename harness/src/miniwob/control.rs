//! The harness's own hand on a MiniWoB++ task page, over a direct CDP connection to the browser
//! the MCP server drives: it seeds and starts an episode and reads the reward the page computed.
//!
//! This is the referee, never the player: nothing read here reaches a solver. Solvers see the
//! page only through the MCP server under test (see `agent`).

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::cdp::CdpConnection;

/// How long an episode may run before the page ends it as timed out. MiniWoB++ gives 10 s
/// (a few tasks 15–20 s), tuned for a policy acting in milliseconds; through MCP each action is
/// a round trip through a server, so the limit is raised to keep tool latency from being what
/// is measured.
pub const EPISODE_LIMIT: Duration = Duration::from_secs(120);

/// How long a page may take to say its task is ready (`WOB_TASK_READY`) after the start.
const READY_LIMIT: Duration = Duration::from_secs(10);

/// What the page says about the episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reward {
    /// `WOB_DONE_GLOBAL`: the episode ended (by the task's own verdict or its time limit).
    pub done: bool,
    /// `WOB_REWARD_GLOBAL`: the reward, scaled down by the time taken for tasks that do so.
    pub reward: f64,
    /// `WOB_RAW_REWARD_GLOBAL`: the reward before any time scaling (1 is a full success).
    pub raw: f64,
    /// `WOB_REWARD_REASON`, when the task gave one (`timed out`, …).
    pub reason: Option<String>,
}

impl Reward {
    /// Whether the episode was solved: it ended with the full raw reward. Tasks that give
    /// partial credit (a share of checkboxes right) count only a perfect answer.
    pub fn solved(&self) -> bool {
        self.done && self.raw >= 0.999
    }
}

/// A CDP connection to the browser and a session on the page that shows the task.
pub struct EpisodeControl {
    cdp: CdpConnection,
    /// (target id, session id) of the page last used.
    page: Option<(String, String)>,
}

impl EpisodeControl {
    /// Connects to the browser's DevTools endpoint (`ws://…/devtools/browser/…`).
    pub fn connect(endpoint: &str) -> anyhow::Result<Self> {
        Ok(EpisodeControl { cdp: CdpConnection::connect(endpoint)?, page: None })
    }

    /// Seeds the page showing `url` with `seed`, raises its time limit to [`EPISODE_LIMIT`],
    /// hides the reward display (a countdown that changes every second and is not part of any
    /// task) and starts an episode, then waits until the task says it is ready.
    pub fn start(&mut self, url: &str, seed: u64) -> anyhow::Result<()> {
        let session = self.session_for(url)?;
        let script = format!(
            "(() => {{
                if (typeof core === 'undefined' || typeof genProblem === 'undefined') return 'not a MiniWoB++ task page';
                Math.seedrandom({seed});
                core.EPISODE_MAX_TIME = {limit};
                core.startEpisodeReal();
                core.hideDisplay();
                return 'started';
            }})()",
            limit = EPISODE_LIMIT.as_millis()
        );
        // The server's navigation may answer before the new document has run its scripts.
        let deadline = Instant::now() + READY_LIMIT;
        loop {
            let why = match self.evaluate(&session, &script) {
                Ok(started) if started == "started" => break,
                Ok(other) => other.to_string(),
                Err(e) => format!("{e:#}"),
            };
            if Instant::now() > deadline {
                bail!("could not start an episode on {url}: {why}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let deadline = Instant::now() + READY_LIMIT;
        while self.evaluate(&session, "WOB_TASK_READY")? != json!(true) {
            if Instant::now() > deadline {
                bail!("{url} did not say its task was ready within {READY_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// What the page says about the current episode, waiting up to `patience` for it to end
    /// (some tasks decide a moment after the last action).
    pub fn reward(&mut self, url: &str, patience: Duration) -> anyhow::Result<Reward> {
        let session = self.session_for(url)?;
        let deadline = Instant::now() + patience;
        loop {
            let value = self.evaluate(
                &session,
                "({done: WOB_DONE_GLOBAL, reward: WOB_REWARD_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reason: WOB_REWARD_REASON})",
            )?;
            let reward = Reward {
                done: value["done"].as_bool().unwrap_or(false),
                reward: value["reward"].as_f64().unwrap_or(0.0),
                raw: value["raw"].as_f64().unwrap_or(0.0),
                reason: value["reason"].as_str().map(str::to_owned),
            };
            if reward.done || Instant::now() > deadline {
                return Ok(reward);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Ends the current episode with no reward if it is still running, so nothing the page
    /// does afterwards can count.
    pub fn stop(&mut self, url: &str) -> anyhow::Result<()> {
        let session = self.session_for(url)?;
        self.evaluate(&session, "WOB_DONE_GLOBAL || core.endEpisode(0, false, 'stopped by the harness'); true")?;
        Ok(())
    }

    /// A session on the page target whose URL is `url` (ignoring any fragment), attaching to it
    /// the first time; waits up to 10 s for such a page to exist.
    fn session_for(&mut self, url: &str) -> anyhow::Result<String> {
        let wanted = url.split('#').next().unwrap_or(url);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let targets = self.cdp.call(None, "Target.getTargets", json!({}))?;
            let found = targets["targetInfos"].as_array().into_iter().flatten().find(|t| {
                t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.split('#').next() == Some(wanted))
            });
            if let Some(target) = found {
                let id = target["targetId"].as_str().context("a target without an id")?.to_owned();
                if let Some((known, session)) = &self.page
                    && *known == id
                {
                    return Ok(session.clone());
                }
                let attached =
                    self.cdp.call(None, "Target.attachToTarget", json!({"targetId": id, "flatten": true}))?;
                let session = attached["sessionId"].as_str().context("attachToTarget gave no session")?.to_owned();
                self.page = Some((id, session.clone()));
                return Ok(session);
            }
            if Instant::now() > deadline {
                bail!("no page shows {wanted}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Evaluates `expression` in the page and returns its value.
    fn evaluate(&mut self, session: &str, expression: &str) -> anyhow::Result<Value> {
        let result = self.cdp.call(
            Some(session),
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(exception) = result.get("exceptionDetails") {
            bail!("the page threw: {}", exception["exception"]["description"].as_str().unwrap_or("an exception"));
        }
        Ok(result["result"]["value"].clone())
    }
}
