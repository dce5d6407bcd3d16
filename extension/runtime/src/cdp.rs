//! Talking CDP to a tab through `chrome.debugger`: commands with time limits, a record of the
//! commands that change a page (input, navigation) and whether the page has answered them, and
//! a hub that hands debugger events to whoever subscribed to them.
//!
//! A command that times out is not taken back: the browser still delivers it, and a busy page
//! runs it once it is free. So a command that changes the page is watched until the browser
//! answers it, whoever stopped waiting, and no new input is sent to a tab while earlier input
//! is still unanswered there: an agent's retry can never pile a second click behind the first.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::StreamExt;
use futures::channel::mpsc;
use serde::de::DeserializeOwned;

use crate::chrome::{self, ChromeError, DebuggeeTarget};
use crate::timer;

/// Default limit for one CDP command.
pub const COMMAND_TIMEOUT_MS: u32 = 15_000;

/// A CDP event from one tab (or one of its child sessions).
#[derive(Debug, Clone)]
pub struct CdpEvent {
    /// Tab the event came from.
    pub tab_id: i32,
    /// Child session, for out-of-process iframes.
    pub session_id: Option<String>,
    /// CDP method, e.g. `Page.frameNavigated`.
    pub method: String,
    /// Event parameters.
    pub params: serde_json::Value,
}

/// Why a CDP command failed. The browser's messages are classified here, once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CdpError {
    /// The debugger is not (or no longer) attached to the tab.
    #[error(
        "the debugger is no longer attached to this tab (it closed, crashed, or went to a page Sightline may not \
         control); retry, or use browser_tabs to pick another tab"
    )]
    Detached,
    /// The document the command ran in went away (the page navigated).
    #[error("{method} failed: the page navigated away while it ran")]
    ContextGone {
        /// The command.
        method: String,
    },
    /// The command named an execution context the browser does not know (any more): its
    /// document went away before the command reached it.
    #[error("{method} failed: the page navigated away while it ran")]
    UnknownContext {
        /// The command.
        method: String,
    },
    /// The node the command named is not in the document any more.
    #[error("{method} failed: the node is no longer in the document")]
    NoSuchNode {
        /// The command.
        method: String,
    },
    /// The node cannot take keyboard focus.
    #[error("{method} failed: the element is not focusable")]
    NotFocusable {
        /// The command.
        method: String,
    },
    /// The node is not rendered (no layout object: `display: none`, `hidden`, inside a closed
    /// list), so it has no box to scroll to or click.
    #[error("{method} failed: the element is not rendered")]
    NotRendered {
        /// The command.
        method: String,
    },
    /// The browser answered with another error.
    #[error("{method} failed: {message}")]
    Failed {
        /// The command.
        method: String,
        /// The browser's message.
        message: String,
    },
    /// No answer in time.
    #[error("{method} got no answer within {ms} ms")]
    Timeout {
        /// The command.
        method: String,
        /// The limit.
        ms: u32,
    },
    /// Input sent to this tab earlier has not been answered yet, so this input was not sent.
    #[error(
        "{method} was not sent: the page has not yet processed the input sent to it {waited_ms} ms ago ({earlier}); \
         a script is probably keeping it busy, and it may still act on that input. Wait, then take a browser_snapshot \
         to see what happened before acting again"
    )]
    InputPending {
        /// The command that was not sent.
        method: String,
        /// The unanswered one.
        earlier: String,
        /// How long it has waited.
        waited_ms: u32,
    },
    /// The tab went away while the call waited for its page: it was closed, or the debugger
    /// was detached from it.
    #[error(
        "{0} while this call was waiting for the page, so the call stopped there. Use browser_tabs to see the \
         tabs"
    )]
    Gone(String),
}

impl CdpError {
    /// Classifies the browser's answer to `method`.
    fn classify(method: &str, error: ChromeError) -> CdpError {
        let method = method.to_owned();
        let message = match error {
            ChromeError::Detached => return CdpError::Detached,
            other => other.to_string(),
        };
        if message.contains("Cannot find context") {
            CdpError::UnknownContext { method }
        } else if message.contains("Execution context was destroyed")
            || message.contains("Inspected target navigated or closed")
        {
            CdpError::ContextGone { method }
        } else if message.contains("No node") || message.contains("Could not find node") {
            CdpError::NoSuchNode { method }
        } else if message.contains("not focusable") {
            CdpError::NotFocusable { method }
        } else if message.contains("does not have a layout object") {
            CdpError::NotRendered { method }
        } else {
            CdpError::Failed { method, message }
        }
    }
}

/// Sends one command to a tab (or child session) and waits at most `timeout_ms`.
pub async fn send_raw(
    target: &DebuggeeTarget,
    method: &str,
    params: serde_json::Value,
    timeout_ms: u32,
) -> Result<wasm_bindgen::JsValue, CdpError> {
    COMMANDS_SENT.with(|sent| sent.set(sent.get() + 1));
    let answer = if changes_page(method) {
        send_effect(target, method, params, timeout_ms).await?
    } else {
        timer::within(timeout_ms, chrome::send_command(target, method, &params)).await
    };
    match answer {
        None => Err(CdpError::Timeout { method: method.to_owned(), ms: timeout_ms }),
        Some(Ok(value)) => Ok(value),
        Some(Err(error)) => Err(CdpError::classify(method, error)),
    }
}

/// Whether `method` changes what the page is or does: input, files set on an input, and
/// loading a document.
fn changes_page(method: &str) -> bool {
    method.starts_with("Input.")
        || matches!(method, "Page.navigate" | "Page.reload" | "Page.navigateToHistoryEntry" | "DOM.setFileInputFiles")
}

/// Sends a command that changes the page, records it, and watches it until the browser answers
/// (even after this caller stops waiting). Input is refused while earlier input to the same tab
/// is unanswered.
async fn send_effect(
    target: &DebuggeeTarget,
    method: &str,
    params: serde_json::Value,
    timeout_ms: u32,
) -> Result<Option<Result<wasm_bindgen::JsValue, ChromeError>>, CdpError> {
    let tab = target.tab_id;
    if method.starts_with("Input.")
        && let Some(earlier) = unanswered_input(tab)
    {
        return Err(CdpError::InputPending {
            method: method.to_owned(),
            earlier: earlier.method,
            waited_ms: (timer::now_ms() - earlier.sent_ms).max(0.0) as u32,
        });
    }
    let id = EFFECTS.with(|e| e.borrow_mut().sent(tab, method));
    let (answered, answer) = futures::channel::oneshot::channel();
    let (target, method, params) = (target.clone(), method.to_owned(), params);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = chrome::send_command(&target, &method, &params).await;
        EFFECTS.with(|e| e.borrow_mut().answered(tab, id));
        let _ = answered.send(outcome);
    });
    Ok(timer::within(timeout_ms, answer).await.map(|outcome| outcome.unwrap_or(Err(ChromeError::Detached))))
}

/// A command that changes the page, sent and not answered yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Unanswered {
    id: u64,
    /// The command.
    pub method: String,
    /// When it was sent ([`timer::now_ms`]).
    pub sent_ms: f64,
}

/// Commands that change pages, per tab: how many were sent, and which await their answer.
#[derive(Default)]
struct EffectLog {
    next_id: u64,
    sent: HashMap<i32, u64>,
    unanswered: HashMap<i32, Vec<Unanswered>>,
}

impl EffectLog {
    fn sent(&mut self, tab: i32, method: &str) -> u64 {
        self.next_id += 1;
        *self.sent.entry(tab).or_default() += 1;
        let entry = Unanswered { id: self.next_id, method: method.to_owned(), sent_ms: timer::now_ms() };
        self.unanswered.entry(tab).or_default().push(entry);
        self.next_id
    }

    fn answered(&mut self, tab: i32, id: u64) {
        if let Some(list) = self.unanswered.get_mut(&tab) {
            list.retain(|u| u.id != id);
            if list.is_empty() {
                self.unanswered.remove(&tab);
            }
        }
    }
}

thread_local! {
    static EFFECTS: RefCell<EffectLog> = RefCell::default();
    /// Every command sent through [`send_raw`], to any tab: what a call cost in round trips.
    static COMMANDS_SENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many CDP commands were sent so far, to any tab: a call's count is the difference between
/// its end and its start (the commands other calls sent meanwhile included).
pub fn commands_sent() -> u64 {
    COMMANDS_SENT.with(std::cell::Cell::get)
}

/// How many commands that change the page were ever sent to `tab`: a call that saw this number
/// move sent something that may have acted.
pub fn effects_sent(tab: i32) -> u64 {
    EFFECTS.with(|e| e.borrow().sent.get(&tab).copied().unwrap_or(0))
}

/// Forgets unanswered commands to a tab whose main frame now shows another document (or that
/// closed): input queued for the old document can no longer act on the page.
pub fn page_replaced(tab: i32) {
    EFFECTS.with(|e| e.borrow_mut().unanswered.remove(&tab));
}

/// The oldest input sent to `tab` that the browser has not answered yet.
pub fn unanswered_input(tab: i32) -> Option<Unanswered> {
    EFFECTS.with(|e| {
        e.borrow().unanswered.get(&tab).and_then(|list| list.iter().find(|u| u.method.starts_with("Input.")).cloned())
    })
}

/// Sends a command to a tab's main session and decodes the result.
pub async fn send<T: DeserializeOwned>(tab_id: i32, method: &str, params: serde_json::Value) -> Result<T, CdpError> {
    send_to(&DebuggeeTarget::main(tab_id), method, params, COMMAND_TIMEOUT_MS).await
}

/// Sends a command to any target with a given time limit and decodes the result.
pub async fn send_to<T: DeserializeOwned>(
    target: &DebuggeeTarget,
    method: &str,
    params: serde_json::Value,
    timeout_ms: u32,
) -> Result<T, CdpError> {
    let raw = send_raw(target, method, params, timeout_ms).await?;
    chrome::from_json(&raw).map_err(|e| CdpError::Failed { method: method.to_owned(), message: e.to_string() })
}

struct Subscriber {
    id: u64,
    tab_id: i32,
    methods: &'static [&'static str],
    sender: mpsc::UnboundedSender<CdpEvent>,
    /// Why the subscription ended early, shared with it.
    ended: Rc<RefCell<Option<String>>>,
}

/// Routes debugger events to subscriptions.
#[derive(Default)]
pub struct EventHub {
    next_id: u64,
    subscribers: Vec<Subscriber>,
}

impl EventHub {
    /// Delivers `event` to every subscription that wants it.
    pub fn publish(&mut self, event: &CdpEvent) {
        self.subscribers.retain(|s| !s.sender.is_closed());
        for s in &self.subscribers {
            if s.tab_id == event.tab_id && s.methods.contains(&event.method.as_str()) {
                let _ = s.sender.unbounded_send(event.clone());
            }
        }
    }

    /// The tab went away (`why`: it was closed, its debugger was detached): every subscription
    /// to it ends now, so whatever waits for its events stops waiting and says why, instead of
    /// waiting out its cap.
    pub fn tab_gone(&mut self, tab_id: i32, why: &str) {
        self.subscribers.retain(|s| {
            if s.tab_id != tab_id {
                return true;
            }
            *s.ended.borrow_mut() = Some(why.to_owned());
            false
        });
    }

    /// Whether anybody listens for `method` on `tab_id`.
    pub fn wants(&self, tab_id: i32, method: &str) -> bool {
        self.subscribers.iter().any(|s| s.tab_id == tab_id && s.methods.contains(&method))
    }
}

/// Events of some methods from one tab, from the moment of subscribing until dropped.
pub struct Subscription {
    id: u64,
    hub: Rc<RefCell<EventHub>>,
    receiver: mpsc::UnboundedReceiver<CdpEvent>,
    ended: Rc<RefCell<Option<String>>>,
}

impl Subscription {
    /// Subscribes to `methods` on `tab_id`.
    pub fn new(hub: &Rc<RefCell<EventHub>>, tab_id: i32, methods: &'static [&'static str]) -> Self {
        let (sender, receiver) = mpsc::unbounded();
        let mut h = hub.borrow_mut();
        h.next_id += 1;
        let id = h.next_id;
        let ended = Rc::new(RefCell::new(None));
        h.subscribers.push(Subscriber { id, tab_id, methods, sender, ended: ended.clone() });
        Subscription { id, hub: hub.clone(), receiver, ended }
    }

    /// Fails once the tab went away ([`EventHub::tab_gone`]): no more of its events will come.
    pub fn still_there(&self) -> Result<(), CdpError> {
        match self.ended.borrow().as_ref() {
            Some(why) => Err(CdpError::Gone(why.clone())),
            None => Ok(()),
        }
    }

    /// The events already received, without waiting.
    pub fn drain(&mut self) -> Vec<CdpEvent> {
        let mut out = Vec::new();
        while let Ok(event) = self.receiver.try_recv() {
            out.push(event);
        }
        out
    }

    /// The next event satisfying `wanted`, waiting at most `timeout_ms` (none at all once the
    /// tab went away).
    pub async fn next_where(&mut self, timeout_ms: u32, mut wanted: impl FnMut(&CdpEvent) -> bool) -> Option<CdpEvent> {
        let receiver = &mut self.receiver;
        timer::within(timeout_ms, async move {
            while let Some(event) = receiver.next().await {
                if wanted(&event) {
                    return Some(event);
                }
            }
            None
        })
        .await
        .flatten()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Ok(mut hub) = self.hub.try_borrow_mut() {
            hub.subscribers.retain(|s| s.id != self.id);
        }
    }
}
