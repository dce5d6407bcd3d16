//! Sightline's extension runtime, compiled to wasm and loaded by the service worker.
//!
//! The service worker's JavaScript registers the `chrome.*` listeners and owns the native
//! messaging port; it hands every message and event to the one exported [`Runtime`]. The
//! runtime dispatches tool calls, drives tabs over CDP through `chrome.debugger`, and calls
//! `sightline-core` for everything an agent reads. It keeps no engine logic of its own.
//!
//! Each call from the host carries the time its caller waits; the host may call it off with a
//! `cancel`. Both are honoured by [`tools::run_within`]; a call called off is not answered.
//!
//! A panic poisons the wasm instance: nothing in it can run again. The panic hook tells the
//! service worker (`globalThis.sightlinePanicked`), which answers every call the instance had
//! in flight with [`Runtime::failed_call`] of a fresh instance and goes on with that one; what
//! was saved in `chrome.storage.session` (grants, each session's place with the fields it knew
//! as secret, the timeline) lets it resume where the old one was. A trap, a stack overflow (a
//! `RangeError`) or any JavaScript error unwinding through the instance poisons it as well,
//! without a panic: the service worker sees those where they surface and does the same.

mod capture;
mod cdp;
mod choose;
mod chrome;
mod drag;
mod error;
mod fill;
mod flood;
mod input;
mod navigation;
mod options;
mod page_hooks;
mod paint;
mod panel;
mod permissions;
mod probe;
mod question;
mod selection;
mod shots;
mod state;
mod still;
mod tabs;
mod timeline;
mod timer;
mod tools;
mod validity;

use std::rc::Rc;

use js_sys::Promise;
use sightline_core::changes::record;
use sightline_core::downloads::claims::DOWNLOAD_BEGAN;
use sightline_core::frames;
use sightline_core::protocol::{ExtensionToHost, HostToExtension, ToolOutput, WIRE_PROTOCOL};
use sightline_core::review::ShotPair;
use sightline_core::tab_refs::TabLoss;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::cdp::CdpEvent;
use crate::state::State;

/// A save of where a session is that took at least this long is reported in the answer's stats
/// (`saving_ms`).
const SLOW_SAVE_MS: f64 = 100.0;

/// The handle the service worker holds.
#[wasm_bindgen]
pub struct Runtime {
    state: Rc<State>,
}

#[wasm_bindgen]
impl Runtime {
    /// Creates the runtime. `version` is the extension's manifest version.
    #[wasm_bindgen(constructor)]
    pub fn new(version: String, browser: String) -> Runtime {
        set_panic_hook();
        Runtime { state: Rc::new(State::new(version, browser)) }
    }

    /// The answer to call `id`, left unfinished because the instance that ran it panicked
    /// (`what` is the panic's message), for the service worker to send from the fresh instance.
    #[wasm_bindgen(js_name = failedCall)]
    pub fn failed_call(&self, id: f64, what: String) -> JsValue {
        reply(
            id as u64,
            ToolOutput::error(format!(
                "the extension's runtime failed while running this call ({}) and was restarted; the call \
                 was not finished and may have partly run. Take a browser_snapshot to see where the page is \
                 before retrying.",
                what.trim()
            )),
        )
    }

    /// Bytes of linear memory the runtime holds (everything it keeps lives there), for
    /// diagnostics and for the drills that bound memory under a flood.
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        f64::from(memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length())
    }

    /// Test seam, reachable only from the service worker's own global: the next call of `tool`
    /// panics as it starts, once, so the end-to-end tests can drill recovery from a panic in a
    /// real build. No message from the host or a page can reach it.
    #[wasm_bindgen(js_name = panicOnNextCall)]
    pub fn panic_on_next_call(&self, tool: String) {
        *self.state.panic_armed.borrow_mut() = Some((tool, DrillFault::Panic));
    }

    /// Test seam like [`Runtime::panic_on_next_call`]: the next call of `tool` exhausts the
    /// stack, which the engine throws as a `RangeError` through the instance's frames.
    #[wasm_bindgen(js_name = overflowStackOnNextCall)]
    pub fn overflow_stack_on_next_call(&self, tool: String) {
        *self.state.panic_armed.borrow_mut() = Some((tool, DrillFault::StackOverflow));
    }

    /// Test seam like [`Runtime::panic_on_next_call`]: the next call of `tool` throws a
    /// JavaScript error through the instance's frames, as a JavaScript function it calls could.
    #[wasm_bindgen(js_name = throwOnNextCall)]
    pub fn throw_on_next_call(&self, tool: String) {
        *self.state.panic_armed.borrow_mut() = Some((tool, DrillFault::Throw));
    }

    /// The first message to send on a new native port.
    pub fn hello(&self) -> Result<JsValue, JsValue> {
        let hello = ExtensionToHost::Hello {
            version: self.state.version.clone(),
            protocol: WIRE_PROTOCOL,
            browser: self.state.browser.clone(),
        };
        chrome::to_js(&hello).map_err(|e| JsValue::from_str(&e.to_string()))
    }

    /// Handles one message from the native host; resolves to the reply to post, or
    /// `undefined` when there is none.
    #[wasm_bindgen(js_name = handleHostMessage)]
    pub fn handle_host_message(&self, message: JsValue) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            let message: HostToExtension = match chrome::from_js(message.clone()) {
                Ok(m) => m,
                Err(e) => {
                    // Answer a call we cannot read, so the agent is not left waiting.
                    let id = js_sys::Reflect::get(&message, &"id".into()).ok().and_then(|v| v.as_f64());
                    return Ok(match id {
                        Some(id) => reply(
                            id as u64,
                            ToolOutput::error(format!(
                                "the extension could not read this call ({e}); are the extension and sightline-host the same version? Run `sightline-host doctor`."
                            )),
                        ),
                        None => JsValue::UNDEFINED,
                    });
                }
            };
            match message {
                HostToExtension::Call { id, session, time_limit_ms, client, call } => {
                    let received = timer::now_ms();
                    // Registered before the first await, so a cancel that follows finds it.
                    let (call_off, called_off) = futures::channel::oneshot::channel();
                    state.calls.borrow_mut().insert(id, call_off);
                    state.custody().load_grants().await;
                    state.timeline.load_timeline().await;
                    // The loaded timeline learns which tabs it may show.
                    state.timeline.sync_readable_tabs(&state.tabs);
                    state.sessions.met_session(&session, client);
                    let armed =
                        state.panic_armed.borrow().as_ref().filter(|(tool, _)| tool == call.name()).map(|a| a.1);
                    if let Some(fault) = armed {
                        state.panic_armed.borrow_mut().take();
                        fault.provoke(call.name());
                    }
                    let before = panel::before_call(&state.sessions, &session, &call);
                    let logged = call.clone();
                    // Screenshots around an action, for the panel only, while it is open.
                    let shots_tab = shots::wanted(&state.tabs, &state.sessions, &state.review, &session, &call);
                    let shot_before = match shots_tab {
                        Some(tab) => {
                            shots::take(
                                &state.tabs,
                                tab,
                                shots::target(&state.tabs, &state.sessions, &session, tab, &call),
                            )
                            .await
                        }
                        None => None,
                    };
                    let output = tools::run_within(&state, &session, id, call, time_limit_ms, called_off).await;
                    if let Some(output) = &output {
                        let recorded =
                            panel::record_call(&state.sessions, &state.review, &session, &logged, before, output);
                        if let (Some(tab), Some((logged_tab, seq))) = (shots_tab, recorded)
                            && tab == logged_tab
                        {
                            let target = shots::target(&state.tabs, &state.sessions, &session, tab, &logged);
                            let after = shots::take(&state.tabs, tab, target).await;
                            let pair = ShotPair { seq, before: shot_before, after };
                            state.review.shots.borrow_mut().keep(tab, pair);
                        }
                    }
                    state.calls.borrow_mut().remove(&id);
                    // Told now, so no longer kept for a restart.
                    let notices = if output.is_some() { state.sessions.take_notices(&session) } else { Vec::new() };
                    let saving = timer::now_ms();
                    state.custody().save_session_place(&session).await;
                    let saving_ms = timer::now_ms() - saving;
                    let output = output.map(|mut output| {
                        for notice in notices.iter().rev() {
                            output.text = format!("! {notice}\n{}", output.text);
                        }
                        if let Some(note) = state.timeline.unsaved_note() {
                            output.text = format!("{note}\n{}", output.text);
                        }
                        // The whole call as the worker saw it, from the host's message to the
                        // answer: the rest of what the agent waited was the way to and fro.
                        tools::add_stat(&mut output, "worker_ms", (timer::now_ms() - received).round().into());
                        // Saving where the session is waits on the browser's storage; when that
                        // was slow, the answer says so, to tell it from the call's own steps.
                        if saving_ms >= SLOW_SAVE_MS {
                            tools::add_stat(&mut output, "saving_ms", saving_ms.round().into());
                        }
                        output
                    });
                    Ok(output.map(|output| reply(id, output)).unwrap_or(JsValue::UNDEFINED))
                }
                HostToExtension::Cancel { id } => {
                    if let Some(call_off) = state.calls.borrow_mut().remove(&id) {
                        let _ = call_off.send(());
                    }
                    Ok(JsValue::UNDEFINED)
                }
                HostToExtension::SessionClosed { session } => {
                    state.custody().load_grants().await;
                    state.custody().session_ended(&session).await;
                    state.timeline.forget_timeline_session(&session);
                    Ok(JsValue::UNDEFINED)
                }
            }
        })
    }

    /// `chrome.debugger.onEvent`. `characters`: for an event the flood guard counts
    /// (`flood::counts`), the characters of text it held, measured by the service worker, which
    /// cut its long strings before handing it on.
    #[wasm_bindgen(js_name = onDebuggerEvent)]
    pub fn on_debugger_event(&self, source: JsValue, method: String, params: JsValue, characters: Option<f64>) {
        let Some(tab_id) = chrome::property(&source, "tabId").and_then(|v| v.as_f64()) else {
            return;
        };
        let session_id = chrome::property(&source, "sessionId").and_then(|v| v.as_string());
        let tab_id = tab_id as i32;
        if let Some(stamp) = flood::counted_stamp(&method, &params) {
            // Decided before the event is converted, so a flood costs as little as it can.
            let characters = characters.unwrap_or(0.0);
            let now = timer::epoch_ms() as f64;
            let admit = self.state.timeline.flood.borrow_mut().admit(tab_id, &session_id, stamp, now, characters);
            match admit {
                flood::Admit::Keep => {}
                flood::Admit::Drop => return,
                flood::Admit::Trip { pause_ms, why } => {
                    return flood::pause(
                        &self.state.tabs,
                        &self.state.timeline,
                        tab_id,
                        session_id,
                        pause_ms,
                        why,
                        characters,
                    );
                }
            }
        }
        let tracked = frames::METHODS.contains(&method.as_str())
            || tabs::DIALOG_EVENTS.contains(&method.as_str())
            || method == DOWNLOAD_BEGAN
            || record::records(&method);
        if !tracked && !self.state.tabs.hub.borrow().wants(tab_id, &method) {
            return;
        }
        let params = chrome::from_js::<serde_json::Value>(params).unwrap_or(serde_json::Value::Null);
        let event = CdpEvent { tab_id, session_id, method, params };
        if event.method == "Page.frameNavigated"
            && event.session_id.is_none()
            && event.params["frame"]["parentId"].is_null()
        {
            // Input still queued for the old document can no longer act on this one.
            cdp::page_replaced(tab_id);
        }
        self.state.tabs.registry.borrow_mut().observe(&event);
        if event.method == DOWNLOAD_BEGAN
            && let Some(url) = event.params["url"].as_str()
        {
            // Heard before the browser names the file, which may be long after the action.
            self.state.asks.downloads.borrow_mut().tab_began(tab_id, url, timer::now_ms());
        }
        if event.method == "Page.frameNavigated"
            && let Some(child) = &event.session_id
        {
            let frame = &event.params["frame"];
            let (id, url) = (frame["id"].as_str().unwrap_or_default(), frame["url"].as_str().unwrap_or_default());
            flood::frame_navigated(&self.state.timeline, tab_id, child, id, url);
        }
        timeline::record(&self.state.tabs, &self.state.timeline, &event);
        if event.method == "Target.detachedFromTarget"
            && let Some(child) = event.params["sessionId"].as_str()
        {
            flood::frame_detached(&self.state.timeline, tab_id, child);
        }
        if event.method == "Target.attachedToTarget"
            && event.params["targetInfo"]["type"] == "iframe"
            && let Some(child) = event.params["sessionId"].as_str()
        {
            let info = &event.params["targetInfo"];
            let (frame, url) =
                (info["targetId"].as_str().unwrap_or_default(), info["url"].as_str().unwrap_or_default());
            self.state.timeline.flood.borrow_mut().frame_attached(tab_id, child, frame, url);
            let (state, child) = (self.state.clone(), child.to_owned());
            wasm_bindgen_futures::spawn_local(async move { state.custody().prepare_child(tab_id, child).await });
        }
        self.state.tabs.hub.borrow_mut().publish(&event);
    }

    /// `chrome.debugger.onDetach`.
    #[wasm_bindgen(js_name = onDebuggerDetach)]
    pub fn on_debugger_detach(&self, source: JsValue, reason: String) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.custody().load_grants().await;
            if let Some(tab_id) = js_sys::Reflect::get(&source, &"tabId".into()).ok().and_then(|v| v.as_f64()) {
                state.custody().debugger_detached(tab_id as i32, &reason).await;
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `chrome.tabs.onRemoved`.
    #[wasm_bindgen(js_name = onTabRemoved)]
    pub fn on_tab_removed(&self, tab_id: i32) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.custody().load_grants().await;
            state.custody().tab_closed(tab_id, None).await;
            state.review.session_log.borrow_mut().forget_tab(tab_id);
            state.review.shots.borrow_mut().forget_tab(tab_id);
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `chrome.webNavigation.onCreatedNavigationTarget`: a page in tab `opener` opened
    /// `tab_id` to show `url`; see `Custody::opened_by_page`.
    #[wasm_bindgen(js_name = onTabOpened)]
    pub fn on_tab_opened(&self, tab_id: i32, opener: i32, url: String) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.custody().load_grants().await;
            state.custody().opened_by_page(tab_id, opener, &url).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `chrome.downloads.onDeterminingFilename`: where the download is saved. Answers
    /// `{filename}` (relative to the browser's download folder) for a download of an agent's
    /// action, `{cancel: true}` for one the person's rules refuse, else nothing.
    #[wasm_bindgen(js_name = onDownloadNaming)]
    pub fn on_download_naming(&self, item: JsValue) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            let Ok(item) = chrome::from_js::<sightline_core::downloads::claims::DownloadItem>(item) else {
                return Ok(JsValue::UNDEFINED);
            };
            let Some(claim) = state.asks.downloads.borrow_mut().claim(&item, timer::now_ms()) else {
                return Ok(JsValue::UNDEFINED);
            };
            let answer = match permissions::gate_download(&state.reach(), &claim).await {
                Ok(()) => {
                    let path = claim.path();
                    state.asks.downloads.borrow_mut().started(claim, item.id);
                    serde_json::json!({"filename": path})
                }
                Err(note) => {
                    state.asks.downloads.borrow_mut().note(&claim, note);
                    serde_json::json!({"cancel": true})
                }
            };
            Ok(chrome::to_js(&answer).unwrap_or(JsValue::UNDEFINED))
        })
    }

    /// A message from one of the extension's pages (panel, popup, options): see [`panel`].
    /// `host` is what the service worker knows of the native port (`{connected, error}`).
    #[wasm_bindgen(js_name = handlePageMessage)]
    pub fn handle_page_message(&self, message: JsValue, host: JsValue) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            let answer = match chrome::from_js::<panel::PageMessage>(message) {
                Ok(message) => panel::answer(&state, message, chrome::from_js(host).unwrap_or_default()).await,
                Err(e) => serde_json::json!({"error": format!("unknown message: {e}")}),
            };
            chrome::to_js(&answer).map_err(|e| JsValue::from_str(&e.to_string()))
        })
    }

    /// A message about a question to the person (`{question: "details" | "answer", id, …}`), from
    /// the page the browser says sent it (`sender.url`): see [`question::answer_message`].
    #[wasm_bindgen(js_name = handleQuestionMessage)]
    pub fn handle_question_message(&self, message: JsValue, sender_url: String) -> JsValue {
        let answer = match chrome::from_js::<serde_json::Value>(message) {
            Ok(message) => question::answer_message(&self.state.asks, message, &sender_url),
            Err(e) => serde_json::json!({"error": format!("unknown message: {e}")}),
        };
        chrome::to_js(&answer).unwrap_or(JsValue::UNDEFINED)
    }

    /// `chrome.action.onClicked`: shares the tab with the agent, or stops sharing it.
    #[wasm_bindgen(js_name = onActionClicked)]
    pub fn on_action_clicked(&self, tab_id: i32) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.custody().load_grants().await;
            if state.tabs.registry.borrow().is_controlled(tab_id) {
                state.custody().revoke(tab_id, Some("the user stopped sharing it".into()), TabLoss::Unshared).await;
                let _ = chrome::detach(tab_id).await;
            } else {
                state.custody().grant(tab_id, tabs::Grant::Shared, None).await;
                // Start recording the shared tab's console, requests and the user's actions now.
                let _ = state.tabs.ensure_attached(tab_id).await;
            }
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// How a drill makes a call fail (see [`Runtime::panic_on_next_call`] and its siblings): each
/// leaves the instance unusable, as the service worker must notice and recover from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrillFault {
    /// A Rust panic (the panic hook tells the worker).
    Panic,
    /// The stack runs out (V8 throws a `RangeError`; no Rust code runs).
    StackOverflow,
    /// A JavaScript error thrown through the instance's frames.
    Throw,
}

impl DrillFault {
    /// Makes the call running now fail this way; never returns.
    fn provoke(self, tool: &str) {
        match self {
            DrillFault::Panic => panic!("a panic provoked for a drill, in {tool}"),
            DrillFault::StackOverflow => {
                exhaust_the_stack();
            }
            DrillFault::Throw => wasm_bindgen::throw_str(&format!("an exception provoked for a drill, in {tool}")),
        }
    }
}

/// Levels [`exhaust_the_stack`] went down.
static DRILL_DEPTH: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Calls itself until the stack runs out. The count it keeps in a static after each call returns
/// makes every call wait for the next, so the compiler cannot turn the calls into a loop.
#[inline(never)]
fn exhaust_the_stack() -> u64 {
    use std::sync::atomic::Ordering::Relaxed;
    if DRILL_DEPTH.fetch_add(1, Relaxed) == u64::MAX {
        return 0;
    }
    let below = exhaust_the_stack();
    DRILL_DEPTH.fetch_sub(1, Relaxed);
    below + 1
}

/// Logs a panic to the console and tells the service worker, which answers the calls the
/// poisoned instance had in flight and starts a fresh one. Runs before the instance traps.
fn set_panic_hook() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            console_error_panic_hook::hook(info);
            let global = js_sys::global();
            if let Ok(notify) = js_sys::Reflect::get(&global, &"sightlinePanicked".into())
                && let Some(notify) = notify.dyn_ref::<js_sys::Function>()
            {
                let _ = notify.call1(&JsValue::UNDEFINED, &JsValue::from_str(&info.to_string()));
            }
        }));
    });
}

/// Largest message the browser carries from an extension to a native host (64 MiB). A bigger
/// one would close the port and lose every call in flight.
const MAX_TO_HOST: usize = 64 * 1024 * 1024;

/// The reply to call `id`, as a JS value for the port. A result that cannot be converted, or
/// that is too big for the port, is answered with an error saying so, so the agent is never
/// left waiting for it.
///
/// The reply is written once as JSON text, which gives its size, and the browser's own
/// `JSON.parse` makes the JS value from that text: for a large page, quicker than building it
/// field by field across the wasm boundary.
fn reply(id: u64, output: ToolOutput) -> JsValue {
    let message = ExtensionToHost::Result { id, output };
    let text = match serde_json::to_string(&message) {
        Ok(text) if text.len() > MAX_TO_HOST => {
            let output = ToolOutput::error(format!(
                "the answer was {:.1} MiB, more than the {} MiB the browser lets the extension send to \
                 sightline-host; ask for less (one page of a snapshot, or one region)",
                text.len() as f64 / (1024.0 * 1024.0),
                MAX_TO_HOST / (1024 * 1024)
            ));
            serde_json::to_string(&ExtensionToHost::Result { id, output })
        }
        written => written,
    };
    text.map_err(|e| e.to_string())
        .and_then(|text| js_sys::JSON::parse(&text).map_err(|e| chrome::ChromeError::from(e).to_string()))
        .unwrap_or_else(|e| {
            chrome::warn(&format!("Sightline could not convert the result of call {id}: {e}"));
            let output = ToolOutput::error(format!("the extension could not send this result ({e}); please retry"));
            chrome::to_js(&ExtensionToHost::Result { id, output }).unwrap_or(JsValue::UNDEFINED)
        })
}
