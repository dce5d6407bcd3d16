//! Sightline's extension runtime, compiled to wasm and loaded by the service worker.
//!
//! The service worker's JavaScript registers the `chrome.*` listeners and owns the native
//! messaging port; it hands every message and event to the one exported [`Runtime`]. The
//! runtime dispatches tool calls, drives tabs over CDP through `chrome.debugger`, and calls
//! `sightline-core` for everything an agent reads. It keeps no engine logic of its own.

mod capture;
mod cdp;
mod chrome;
mod error;
mod input;
mod navigation;
mod options;
mod page_hooks;
mod state;
mod tabs;
mod timeline;
mod timer;
mod tools;

use std::rc::Rc;

use js_sys::Promise;
use sightline_core::changes::record;
use sightline_core::frames;
use sightline_core::protocol::{ExtensionToHost, HostToExtension, ToolOutput, WIRE_PROTOCOL};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::cdp::CdpEvent;
use crate::state::State;

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
        console_error_panic_hook::set_once();
        Runtime { state: Rc::new(State::new(version, browser)) }
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
            state.load_grants().await;
            state.load_timeline().await;
            match message {
                HostToExtension::Call { id, session, call } => {
                    let output = tools::run(&state, &session, call).await;
                    Ok(reply(id, output))
                }
                HostToExtension::SessionClosed { session } => {
                    state.sessions.borrow_mut().remove(&session);
                    state.forget_timeline_session(&session);
                    Ok(JsValue::UNDEFINED)
                }
            }
        })
    }

    /// `chrome.debugger.onEvent`.
    #[wasm_bindgen(js_name = onDebuggerEvent)]
    pub fn on_debugger_event(&self, source: JsValue, method: String, params: JsValue) {
        let Some(tab_id) = js_sys::Reflect::get(&source, &"tabId".into()).ok().and_then(|v| v.as_f64()) else {
            return;
        };
        let session_id = js_sys::Reflect::get(&source, &"sessionId".into()).ok().and_then(|v| v.as_string());
        let tab_id = tab_id as i32;
        let tracked = frames::METHODS.contains(&method.as_str()) || record::records(&method);
        if !tracked && !self.state.hub.borrow().wants(tab_id, &method) {
            return;
        }
        let params = chrome::from_js::<serde_json::Value>(params).unwrap_or(serde_json::Value::Null);
        let event = CdpEvent { tab_id, session_id, method, params };
        self.state.tabs.borrow_mut().observe(&event);
        timeline::record(&self.state, &event);
        if event.method == "Target.attachedToTarget"
            && event.params["targetInfo"]["type"] == "iframe"
            && let Some(child) = event.params["sessionId"].as_str()
        {
            let (state, child) = (self.state.clone(), child.to_owned());
            wasm_bindgen_futures::spawn_local(async move { state.prepare_child(tab_id, child).await });
        }
        self.state.hub.borrow_mut().publish(&event);
    }

    /// `chrome.debugger.onDetach`.
    #[wasm_bindgen(js_name = onDebuggerDetach)]
    pub fn on_debugger_detach(&self, source: JsValue, reason: String) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.load_grants().await;
            if let Some(tab_id) = js_sys::Reflect::get(&source, &"tabId".into()).ok().and_then(|v| v.as_f64()) {
                state.debugger_detached(tab_id as i32, &reason).await;
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `chrome.tabs.onRemoved`.
    #[wasm_bindgen(js_name = onTabRemoved)]
    pub fn on_tab_removed(&self, tab_id: i32) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.load_grants().await;
            state.tab_closed(tab_id).await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `chrome.action.onClicked`: shares the tab with the agent, or stops sharing it.
    #[wasm_bindgen(js_name = onActionClicked)]
    pub fn on_action_clicked(&self, tab_id: i32) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            state.load_grants().await;
            if state.tabs.borrow().is_controlled(tab_id) {
                state.revoke(tab_id, Some("the user stopped sharing it".into())).await;
                let _ = chrome::detach(tab_id).await;
            } else {
                state.grant(tab_id, tabs::Grant::Shared).await;
                // Start recording the shared tab's console, requests and the user's actions now.
                let _ = state.ensure_attached(tab_id).await;
            }
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// The reply to call `id`, as a JS value for the port. A result that cannot be converted is
/// answered with an error saying so, so the agent is never left waiting for it.
fn reply(id: u64, output: ToolOutput) -> JsValue {
    chrome::to_js(&ExtensionToHost::Result { id, output }).unwrap_or_else(|e| {
        chrome::warn(&format!("Sightline could not convert the result of call {id}: {e}"));
        let output = ToolOutput::error(format!("the extension could not send this result ({e}); please retry"));
        chrome::to_js(&ExtensionToHost::Result { id, output }).unwrap_or(JsValue::UNDEFINED)
    })
}
