//! The scripted multi-page flow (`bench/flows/*.json`): navigations and actions on the bench's
//! static shop, run the same way on every server, counting the tokens of every tool reply.
//!
//! Actions name their element by role and accessible name. Like an agent, the runner looks for
//! the element in what the server already showed of the current page (newest reply first); only
//! when none of those replies shows it does it call the server's snapshot tool, and that call
//! counts toward the step. A step that navigates (a navigation, or an action marked `navigates`)
//! forgets the replies of the page it left. The flow's effect is checked independently of any
//! reply: the shop reports the placed order to the fixture server, and the report says whether
//! each server's run got there.

use std::path::Path;
use std::time::Duration;

use crate::FixtureServer;
use crate::client::Reply;
use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::corpus::{millis, shorten};
use super::refs::{Target, find_ref};
use super::replies::Replies;
use super::servers::{Server, ServerKind, Timed};
use super::tokens::{Size, Tokenizer};

/// A flow file.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Flow {
    /// Short name.
    pub name: String,
    /// What the flow does, for the report.
    pub about: String,
    /// The site it runs on, relative to `bench/`.
    pub site: String,
    /// The event the site reports when the flow achieved its goal.
    pub expect_event: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Step {
    /// What it does.
    #[serde(flatten)]
    pub action: Action,
    /// Why, in a few words.
    pub about: String,
}

/// What a step does.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Load a URL relative to the site (a baseline).
    Navigate {
        /// The path, e.g. `category.html?c=outerwear`.
        url: String,
    },
    /// Go back in history (a baseline).
    Back,
    /// Click an element.
    Click {
        /// Role.
        role: String,
        /// Accessible name.
        name: String,
        /// Whether the click loads another page.
        #[serde(default)]
        navigates: bool,
    },
    /// Pick an option of a select by its label.
    Select {
        /// Role (`combobox`).
        role: String,
        /// Accessible name.
        name: String,
        /// The option's label.
        value: String,
    },
    /// Replace a field's text.
    Type {
        /// Role.
        role: String,
        /// Accessible name.
        name: String,
        /// The text.
        text: String,
    },
}

impl Action {
    /// Whether this step loads a new page with a navigation tool (a baseline).
    pub fn is_navigation(&self) -> bool {
        matches!(self, Action::Navigate { .. } | Action::Back)
    }

    fn leaves_page(&self) -> bool {
        match self {
            Action::Navigate { .. } | Action::Back => true,
            Action::Click { navigates, .. } => *navigates,
            Action::Select { .. } | Action::Type { .. } => false,
        }
    }

    /// A short label for the report: `navigate category.html?c=outerwear`, `click link "Basket"`.
    pub fn label(&self) -> String {
        match self {
            Action::Navigate { url } => format!("navigate {url}"),
            Action::Back => "back".to_owned(),
            Action::Click { role, name, .. } => format!("click {role} \"{name}\""),
            Action::Select { role, name, value } => format!("select \"{value}\" in {role} \"{name}\""),
            Action::Type { role, name, text } => format!("type \"{text}\" in {role} \"{name}\""),
        }
    }
}

impl Flow {
    /// Reads and checks a flow file.
    pub fn load(path: &Path) -> anyhow::Result<Flow> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let flow: Flow = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        anyhow::ensure!(!flow.steps.is_empty(), "{} has no steps", path.display());
        anyhow::ensure!(flow.steps[0].action.is_navigation(), "{} must start with a navigation", path.display());
        Ok(flow)
    }

    /// How many steps are navigations (baselines).
    pub fn baselines(&self) -> usize {
        self.steps.iter().filter(|s| s.action.is_navigation()).count()
    }
}

/// Why a call was made within a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// The step's own navigation or action.
    Step,
    /// A snapshot taken because no earlier reply showed the element.
    Look,
}

/// One tool call of a step.
#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    /// The tool.
    pub tool: String,
    /// Why it was called.
    pub purpose: Purpose,
    /// The size of its reply's text.
    pub size: Size,
    /// Wall time.
    pub ms: f64,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// Calls it took (a snapshot read in pages takes one per page).
    pub calls: usize,
}

/// One step on one server.
#[derive(Debug, Clone, Serialize)]
pub struct StepRecord {
    /// The step's label.
    pub label: String,
    /// Whether it is a navigation.
    pub navigation: bool,
    /// The calls it took.
    pub calls: Vec<CallRecord>,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// How the step was done, when not with the obvious tool.
    pub note: Option<String>,
}

impl StepRecord {
    /// Tokens of every reply of the step.
    pub fn tokens(&self) -> usize {
        self.calls.iter().map(|c| c.size.tokens).sum()
    }
}

/// The flow on one server.
#[derive(Debug, Clone, Serialize)]
pub struct FlowRun {
    /// The server.
    pub server: ServerKind,
    /// Every step, in order (steps after a lost connection are recorded as not run).
    pub steps: Vec<StepRecord>,
    /// Whether the site reported the expected event (the order was placed as scripted).
    pub completed: bool,
}

impl FlowRun {
    /// Tokens of every reply of the flow.
    pub fn tokens(&self) -> usize {
        self.steps.iter().map(StepRecord::tokens).sum()
    }

    /// How many steps failed.
    pub fn failures(&self) -> usize {
        self.steps.iter().filter(|s| s.error.is_some()).count()
    }
}

/// One server going through `flow` one step at a time, against `site` (a fixture server of the
/// flow's site, fresh for this run so its events are this run's alone), so the bench can let
/// servers take turns step by step.
pub struct FlowTurns<'a> {
    runner: Runner<'a>,
    flow: &'a Flow,
    site: &'a FixtureServer,
    /// The steps taken so far; the next one is the step after them.
    steps: Vec<StepRecord>,
    /// Why the rest of the flow cannot run, once a step lost the server.
    lost: Option<String>,
}

impl<'a> FlowTurns<'a> {
    /// Starts `server` on `flow`.
    pub fn new(
        server: &'a Server,
        flow: &'a Flow,
        site: &'a FixtureServer,
        tokenizer: &'a Tokenizer,
        replies: &'a Replies,
    ) -> Self {
        let runner = Runner { server, tokenizer, replies, step_number: 0, seen: Vec::new() };
        FlowTurns { runner, flow, site, steps: Vec::new(), lost: None }
    }

    /// Runs the flow's next step (nothing once every step has run).
    pub async fn step(&mut self) {
        let i = self.steps.len();
        let flow = self.flow;
        let Some(step) = flow.steps.get(i) else { return };
        let mut record = StepRecord {
            label: step.action.label(),
            navigation: step.action.is_navigation(),
            calls: Vec::new(),
            error: None,
            note: None,
        };
        if let Some(why) = &self.lost {
            record.error = Some(format!("not run: {why}"));
            self.steps.push(record);
            return;
        }
        self.runner.step_number = i + 1;
        if let Err(e) = self.runner.step(&step.action, self.site, &mut record).await {
            // The connection failed or a call ran out of time: the browser's state is unknown,
            // so the rest of the flow cannot mean anything.
            self.lost = Some(format!("step {} lost the server: {}", i + 1, shorten(&format!("{e:#}"))));
            record.error = Some(shorten(&format!("{e:#}")));
        }
        eprintln!(
            "bench: {} flow {}/{} {}: {} tokens{}",
            self.runner.server.kind().label(),
            i + 1,
            flow.steps.len(),
            record.label,
            record.tokens(),
            record.error.as_deref().map(|e| format!(" — {e}")).unwrap_or_default()
        );
        self.steps.push(record);
    }

    /// The run, once every step had its turn: complete when the site reported the flow's event.
    pub async fn finish(self) -> FlowRun {
        let expected = &self.flow.expect_event;
        let completed = self.lost.is_none() && wait_for_event(self.site, expected, Duration::from_secs(5)).await;
        FlowRun { server: self.runner.server.kind(), steps: self.steps, completed }
    }
}

struct Runner<'a> {
    server: &'a Server,
    tokenizer: &'a Tokenizer,
    replies: &'a Replies,
    /// The step being run (from 1), for naming saved replies.
    step_number: usize,
    /// Replies showing the current page, oldest first.
    seen: Vec<Reply>,
}

impl Runner<'_> {
    /// Performs one step. Tool errors are recorded in `record`; an `Err` means the server was lost.
    async fn step(&mut self, action: &Action, site: &FixtureServer, record: &mut StepRecord) -> anyhow::Result<()> {
        let done = match action {
            Action::Navigate { url } => self.server.navigate(&site.url(url)).await?,
            Action::Back => self.server.back().await?,
            Action::Click { role, name, .. } => {
                let Some((target, reference)) = self.locate(role, name, record).await? else { return Ok(()) };
                self.server.click(&reference, &target).await?
            }
            Action::Type { role, name, text } => {
                let Some((target, reference)) = self.locate(role, name, record).await? else { return Ok(()) };
                self.server.type_text(&reference, &target, text).await?
            }
            Action::Select { role, name, value } => {
                let Some((target, reference)) = self.locate(role, name, record).await? else { return Ok(()) };
                let (timed, note) = self.server.select(&reference, &target, value).await?;
                record.note = note;
                timed
            }
        };
        self.record(&done, Purpose::Step, record);
        if done.reply.is_error {
            record.error = Some(shorten(&done.reply.text));
        }
        if action.leaves_page() {
            self.seen.clear();
        }
        self.seen.push(done.reply);
        Ok(())
    }

    /// The element `role` `name` and its ref, from the replies showing the current page (newest
    /// first), else from a fresh snapshot (recorded as a look). When even that does not show it,
    /// the step's error says so and the answer is `None`.
    async fn locate(
        &mut self,
        role: &str,
        name: &str,
        record: &mut StepRecord,
    ) -> anyhow::Result<Option<(Target, String)>> {
        let kind = self.server.kind();
        let target = Target { role: role.to_owned(), name: name.to_owned() };
        if let Some(found) = self.seen.iter().rev().find_map(|reply| find_ref(kind, reply, &target)) {
            return Ok(Some((target, found)));
        }
        let look = self.server.snapshot().await?;
        self.record(&look, Purpose::Look, record);
        let found = find_ref(kind, &look.reply, &target);
        self.seen.push(look.reply);
        if found.is_none() {
            record.error = Some(format!("{}'s snapshot shows no {target}", kind.label()));
        }
        Ok(found.map(|reference| (target, reference)))
    }

    fn record(&self, timed: &Timed, purpose: Purpose, record: &mut StepRecord) {
        let name = format!("{:02}-{}-{}", self.step_number, record.calls.len() + 1, timed.tool);
        self.replies.save(self.server.kind(), "flow", &name, &timed.reply.text);
        record.calls.push(CallRecord {
            tool: timed.tool.to_owned(),
            purpose,
            size: Size::of(self.tokenizer, &timed.reply.text),
            ms: millis(timed),
            is_error: timed.reply.is_error,
            calls: timed.calls,
        });
    }
}

/// The same flow answered with the full page at every step: Sightline runs it on a fresh
/// browser and, after each step, reads `browser_snapshot` (every region written out). The
/// tokens of those full pages are what the flow would cost without deltas and region dedup.
#[derive(Debug, Clone, Serialize)]
pub struct FullPageRun {
    /// Tokens of the full page after each step.
    pub steps: Vec<usize>,
    /// Whether the site reported the expected event.
    pub completed: bool,
}

impl FullPageRun {
    /// Tokens of every full page.
    pub fn tokens(&self) -> usize {
        self.steps.iter().sum()
    }
}

/// Runs `flow` on Sightline reading the full page after every step (see [`FullPageRun`]).
pub async fn run_full_pages(
    server: &Server,
    flow: &Flow,
    site: &FixtureServer,
    tokenizer: &Tokenizer,
    replies: &Replies,
) -> anyhow::Result<FullPageRun> {
    let mut runner = Runner { server, tokenizer, replies, step_number: 0, seen: Vec::new() };
    let mut steps = Vec::with_capacity(flow.steps.len());
    for (i, step) in flow.steps.iter().enumerate() {
        runner.step_number = i + 1;
        let mut record =
            StepRecord { label: step.action.label(), navigation: false, calls: Vec::new(), error: None, note: None };
        runner.step(&step.action, site, &mut record).await?;
        let full = server.call("browser_snapshot", serde_json::json!({}), Duration::from_secs(60)).await?;
        replies.save(server.kind(), "flow-full-pages", &format!("{:02}-browser_snapshot", i + 1), &full.reply.text);
        steps.push(Size::of(tokenizer, &full.reply.text).tokens);
    }
    let completed = wait_for_event(site, &flow.expect_event, Duration::from_secs(5)).await;
    Ok(FullPageRun { steps, completed })
}

/// Waits (at most `limit`) for the site to report `wanted`.
pub async fn wait_for_event(site: &FixtureServer, wanted: &str, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if site.events().iter().any(|e| e == wanted) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
