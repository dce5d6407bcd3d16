//! Asking the person about one action, in a small window of the extension's own
//! (`question.html`), raised where they are, with the element outlined in the page through the
//! debugger (which the page can neither forge nor remove). The call waits for the answer, at
//! most the time the person set; the host is told the call waits on the person, so its own
//! limit for a call does not cut the person's time short, and told when the answer comes,
//! before an allowed action starts. No answer counts as denied.
//!
//! Only that window can answer: [`answer_message`] takes an answer only from a message the
//! service worker received from the extension's own question page for this very question (its
//! `sender.url`, which the browser sets and no page can), sent from a click the browser marked
//! trusted. No MCP tool answers or dismisses a question, the host never asks through MCP
//! elicitation, and no web page can message the service worker (the manifest has no
//! `externally_connectable`, and the extension has no content scripts).

use std::rc::Rc;

use futures::future::{Either, select};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sightline_core::changes::{ActionEntry, ActionKind, Actor};
use sightline_core::permissions::ActionClass;
use sightline_core::refs::NodeKey;

use crate::chrome;
use crate::input::NodeTarget;
use crate::state::{AsksState, Reach, TabsState, TimelineState};
use crate::timer;
use crate::tools::CallContext;

/// The extension page that asks.
pub const PAGE: &str = "question.html";

/// Time kept from the call's limit to act after an allow and answer.
const KEEP_FOR_THE_ACTION_MS: u32 = 3_000;

/// How long an answered question's window stays, showing that it was answered.
const CLOSE_AFTER_MS: u32 = 600;

/// What the person is asked about.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    /// The tab.
    pub tab: i32,
    /// Its host (empty for a page of no host).
    pub host: String,
    /// The class asked about.
    pub class: ActionClass,
    /// The action in words.
    pub words: String,
    /// The tool.
    pub tool: &'static str,
}

/// How a question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answered {
    /// Allowed this once.
    AllowOnce,
    /// Allowed this class on this host for the rest of the MCP session.
    AllowSession,
    /// Denied by the person.
    Deny,
    /// Nobody answered in the person's time.
    #[serde(skip)]
    TimedOut,
    /// Nobody answered before the call's own time limit.
    #[serde(skip)]
    OutOfCallTime,
    /// The window could not be shown.
    #[serde(skip)]
    NotShown,
}

/// A question and how it ended.
pub struct Outcome {
    /// What was asked.
    pub asked: Asked,
    /// The answer.
    pub answered: Answered,
    /// How long it waited.
    pub waited_ms: f64,
    /// How long it could wait.
    pub allowed_ms: u64,
}

impl Outcome {
    /// What the agent's answer says of it: the decision and who made it.
    pub fn note(&self) -> String {
        let (asked, seconds) = (&self.asked, self.waited_ms / 1000.0);
        let tool = asked.tool;
        let dont = "Nothing was done, and Sightline will not retry it. Do not retry it on your own: tell the person \
                    what you need, or go on another way.";
        match self.answered {
            Answered::AllowOnce => {
                format!("The person allowed this once, in the browser after {seconds:.1} s: {}.", asked.words)
            }
            Answered::AllowSession => format!(
                "The person allowed {} on {} for this session, in the browser after {seconds:.1} s: {}.",
                asked.class.words(),
                host_words(&asked.host),
                asked.words
            ),
            Answered::Deny => format!(
                "{tool} was not run: the person denied it in the browser after {seconds:.1} s ({}). {dont}",
                asked.words
            ),
            Answered::TimedOut => format!(
                "{tool} was not run: nobody answered the question in the browser in {} s ({}), so it counts as \
                 denied. {dont}",
                self.allowed_ms / 1000,
                asked.words
            ),
            Answered::OutOfCallTime => format!(
                "{tool} was not run: nobody answered the question in the browser within this call's time limit \
                 ({:.0} s) ({}), so it counts as denied. {dont}",
                self.allowed_ms as f64 / 1000.0,
                asked.words
            ),
            Answered::NotShown => format!(
                "{tool} was not run: the person's rules ask before it ({}), and Sightline could not show the \
                 question in the browser. {dont}",
                asked.words
            ),
        }
    }
}

fn host_words(host: &str) -> &str {
    if host.is_empty() { "pages of no site" } else { host }
}

/// A question waiting for its answer.
pub struct Pending {
    /// What the question window shows.
    pub shown: Value,
    reply: futures::channel::oneshot::Sender<Answered>,
}

/// Asks the person about `asked` for `session`, outlining `node`; waits at most `wait_ms`, the
/// call's limit extended to it (the host may still cut a call at its own maximum: then the
/// question ends with the call's time). An "allow for this session" is granted here.
pub async fn ask(
    reach: &Reach<'_>,
    session: &str,
    asked: Asked,
    node: Option<&NodeKey>,
    wait_ms: u64,
    ctx: &CallContext,
) -> Outcome {
    let started = timer::now_ms();
    // The call waits the person's time, whatever the host's normal limit for a call: the host
    // is told, and waits as long (within its own maximum).
    ctx.wait_on_person(wait_ms + u64::from(KEEP_FOR_THE_ACTION_MS), &asked.words);
    let call_left = u64::from(ctx.deadline().left_ms().saturating_sub(KEEP_FOR_THE_ACTION_MS));
    let (limit, by_call) = if call_left < wait_ms { (call_left, true) } else { (wait_ms, false) };
    let id = chrome::random_id();
    let (agent, title) = {
        let client = reach.custody.sessions.with_session(session, |s| s.client.clone());
        let title = chrome::get_tab(asked.tab).await.ok().and_then(|t| t.title).unwrap_or_default();
        (client.unwrap_or_else(|| "an MCP client that gave no name".to_owned()), title)
    };
    let shown = json!({
        "id": id, "agent": agent, "tab": asked.tab, "title": title, "site": asked.host, "action": asked.words,
        "class": asked.class.words(), "wait_seconds": limit / 1000,
    });
    let (reply, answer) = futures::channel::oneshot::channel();
    reach.asks.questions.borrow_mut().insert(id.clone(), Pending { shown, reply });
    let outline = match node {
        Some(node) => Some(outline(reach.custody.tabs, asked.tab, node).await),
        None => None,
    };
    let window = chrome::open_popup_window(&format!("{PAGE}?id={id}"), 460, 360).await;
    let answered = match &window {
        Err(e) => {
            chrome::warn(&format!("Sightline could not show its question: {e}"));
            Answered::NotShown
        }
        Ok(_) => {
            let timeout = Box::pin(timer::sleep(limit.min(u64::from(u32::MAX)) as u32));
            match select(answer, timeout).await {
                Either::Left((Ok(answered), _)) => answered,
                Either::Left((Err(_), _)) => Answered::NotShown,
                Either::Right(_) if by_call => Answered::OutOfCallTime,
                Either::Right(_) => Answered::TimedOut,
            }
        }
    };
    reach.asks.questions.borrow_mut().remove(&id);
    // The host hears the answer before anything it allows runs.
    ctx.person_answered(matches!(answered, Answered::AllowOnce | Answered::AllowSession));
    if let Ok(window) = window {
        // Closed a moment later, so the click that answered finishes in a window still there.
        wasm_bindgen_futures::spawn_local(async move {
            timer::sleep(CLOSE_AFTER_MS).await;
            let _ = chrome::close_window(window).await;
        });
    }
    if let Some(Some(at)) = outline {
        let _ = at.send::<Value>("Overlay.hideHighlight", json!({})).await;
    }
    if answered == Answered::AllowSession {
        reach.custody.sessions.with_session(session, |s| s.permission_grants.grant(&asked.host, asked.class));
    }
    let outcome = Outcome { asked, answered, waited_ms: timer::now_ms() - started, allowed_ms: limit };
    record(reach.custody.timeline, &agent, &outcome);
    outcome
}

/// Puts the question and its answer on the tab's timeline, as something the person did: the
/// panel shows it in the person's lane, and the session's exports and change reports carry it.
fn record(timeline: &Rc<TimelineState>, agent: &str, outcome: &Outcome) {
    let Ok(tab) = u32::try_from(outcome.asked.tab) else { return };
    let seconds = outcome.waited_ms / 1000.0;
    let answer = match outcome.answered {
        Answered::AllowOnce => format!("allowed once after {seconds:.1} s"),
        Answered::AllowSession => format!(
            "allowed {} on {} for the session after {seconds:.1} s",
            outcome.asked.class.words(),
            host_words(&outcome.asked.host)
        ),
        Answered::Deny => format!("denied after {seconds:.1} s"),
        Answered::TimedOut | Answered::OutOfCallTime => format!("not answered in {seconds:.0} s, so denied"),
        Answered::NotShown => "not shown (the window could not open), so denied".to_owned(),
    };
    timeline.record_agent_action(ActionEntry {
        kind: ActionKind::Other,
        by: Actor::User,
        description: format!("question from {agent}: {}: {answer}", outcome.asked.words),
        url: None,
        time_ms: timer::epoch_ms(),
        tab,
    });
    crate::timeline::schedule_save(timeline);
}

/// Outlines `node` in its page through the debugger while the question is open.
async fn outline(tabs: &TabsState, tab: i32, node: &NodeKey) -> Option<NodeTarget> {
    let at = NodeTarget::of(tabs, tab, node);
    let _ = at.send::<Value>("DOM.enable", json!({})).await;
    let _ = at.send::<Value>("Overlay.enable", json!({})).await;
    let config = json!({
        "showInfo": true,
        "contentColor": {"r": 255, "g": 170, "b": 0, "a": 0.35},
        "borderColor": {"r": 220, "g": 80, "b": 0, "a": 1.0},
    });
    let shown = at
        .send::<Value>(
            "Overlay.highlightNode",
            json!({"highlightConfig": config, "backendNodeId": node.backend_node_id}),
        )
        .await;
    shown.ok().map(|_| at)
}

/// A message about a question, from an extension page.
#[derive(Debug, Deserialize)]
#[serde(tag = "question", rename_all = "snake_case")]
pub enum QuestionMessage {
    /// What the question window shows.
    Details {
        /// The question's one-time id.
        id: String,
    },
    /// The person's answer.
    Answer {
        /// The question's one-time id.
        id: String,
        /// Allow once, allow for the session, deny.
        choice: Answered,
        /// Whether the click that sent it was the browser's (`event.isTrusted`).
        trusted: bool,
    },
}

/// Answers a message about a question. `sender_url` is the URL of the page that sent it, as the
/// browser gave it to the service worker: only the question's own window may read or answer it.
pub fn answer_message(asks: &AsksState, message: Value, sender_url: &str) -> Value {
    let message: QuestionMessage = match serde_json::from_value(message) {
        Ok(m) => m,
        Err(e) => return json!({"error": format!("unknown question message: {e}")}),
    };
    let id = match &message {
        QuestionMessage::Details { id } | QuestionMessage::Answer { id, .. } => id.clone(),
    };
    if !from_its_window(sender_url, &id) {
        return json!({"error": "only the question's own Sightline window can answer it"});
    }
    match message {
        QuestionMessage::Details { id } => match asks.questions.borrow().get(&id) {
            Some(pending) => pending.shown.clone(),
            None => json!({"error": "this question was answered or has expired"}),
        },
        QuestionMessage::Answer { trusted: false, .. } => {
            json!({"error": "only a click of the person's answers a question"})
        }
        QuestionMessage::Answer { id, choice, trusted: true } => match asks.questions.borrow_mut().remove(&id) {
            Some(pending) => {
                let _ = pending.reply.send(choice);
                json!({"answered": true})
            }
            None => json!({"error": "this question was answered or has expired"}),
        },
    }
}

/// Whether `sender_url` is the extension's question page for question `id`, exactly.
fn from_its_window(sender_url: &str, id: &str) -> bool {
    sender_url == format!("{}?id={id}", chrome::extension_url(PAGE))
}
