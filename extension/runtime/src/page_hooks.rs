//! Small scripts the runtime adds to controlled tabs: the page's watch (`crate::probe`), and two
//! that report through `Runtime.addBinding` what CDP alone does not say.
//!
//! * Every controlled tab: CDP's `Network.webSocketClosed` carries no close code, so a hook in
//!   the page's own world wraps the `WebSocket` constructor (a `Proxy`: same prototype, same
//!   statics, `instanceof` unchanged) and reports each socket's close code and reason. Its
//!   binding's name has a random part per attach, so a page cannot plant a setter on it to
//!   capture it; the hook takes the binding off the page's global before any page script runs,
//!   so pages never see it, and keeps its own copies of the built-ins it calls. A report is only
//!   ever matched to a close CDP saw on that tab. Sockets opened before the hook (or in workers)
//!   close with their code unknown.
//! * Tabs the user shared: a listener in its own isolated world, invisible to the page, reports
//!   the user's clicks, typing, option choices and form submissions in the top frame. It reports
//!   only what was acted on (role and a short label), never a typed value, and nothing at all
//!   about password, payment or one-time-code fields, or forms holding one.
//!
//! All are added with `runImmediately` so the current document gets them too, and all are
//! idempotent: after a service-worker restart they are added again and the second copy does
//! nothing. The runtime decides what to keep from their reports (`crate::timeline`).

use serde_json::json;
use sightline_core::changes::record::{SOCKET_BINDING, USER_BINDING};

use crate::cdp;
use crate::chrome;

/// The isolated world the user-action listener runs in.
const LISTENER_WORLD: &str = "sightline-listener";

/// The WebSocket close-code hook (page world). `__BINDING__` is replaced by the binding name.
const SOCKET_HOOK: &str = include_str!("hooks/socket_close.js");

/// The user-action listener (isolated world). `__BINDING__` is replaced by the binding name.
const USER_LISTENER: &str = include_str!("hooks/user_actions.js");

/// Adds the hooks to a tab just attached to: the WebSocket hook always, the user-action
/// listener when the user shared the tab. Best effort: a page that refuses them still works,
/// it only reports less. Returns the bindings' parameters, for the flood guard to add them
/// again after it turned the tab's console back on.
pub async fn install(tab_id: i32, user_shared: bool) -> Vec<serde_json::Value> {
    // A name the page cannot know in advance: nothing it defined before can capture it.
    let socket_binding = format!("{SOCKET_BINDING}_{}", nonce());
    // The hook first, then its binding: in the live document the hook is already waiting for the
    // binding when it arrives, so the page never sees it on its global (see `hooks/socket_close.js`).
    let mut steps = vec![
        ("Page.addScriptToEvaluateOnNewDocument", crate::probe::watch_hook_params()),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": SOCKET_HOOK.replace("__BINDING__", &socket_binding), "runImmediately": true}),
        ),
        ("Runtime.addBinding", json!({"name": socket_binding})),
    ];
    if user_shared {
        steps.push(("Runtime.addBinding", json!({"name": USER_BINDING, "executionContextName": LISTENER_WORLD})));
        steps.push((
            "Page.addScriptToEvaluateOnNewDocument",
            json!({
                "source": USER_LISTENER.replace("__BINDING__", USER_BINDING),
                "worldName": LISTENER_WORLD,
                "runImmediately": true,
            }),
        ));
    }
    let bindings = steps.iter().filter(|(m, _)| *m == "Runtime.addBinding").map(|(_, p)| p.clone()).collect();
    for (method, params) in steps {
        if let Err(e) = cdp::send::<serde_json::Value>(tab_id, method, params).await {
            chrome::warn(&format!("Sightline could not add its page hooks to tab {tab_id}: {e}"));
            break;
        }
    }
    bindings
}

/// Twelve random bytes as hex, from the worker's `crypto.getRandomValues`.
fn nonce() -> String {
    let mut bytes = [0u8; 12];
    get_random_values(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(buffer: &mut [u8]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_name_only_their_own_binding() {
        let name = format!("{SOCKET_BINDING}_0123456789abcdef01234567");
        let hook = SOCKET_HOOK.replace("__BINDING__", &name);
        assert!(hook.contains(&format!("const name = '{name}';")));
        assert!(hook.contains("delete globalThis[name]") && hook.contains("configurable: false"));
        assert!(!hook.contains("__BINDING__"));
        let listener = USER_LISTENER.replace("__BINDING__", USER_BINDING);
        assert!(listener.contains(&format!("globalThis.{USER_BINDING}")));
        assert!(!listener.contains("__BINDING__"));
        // The only value the listener ever reads is a button's caption.
        assert_eq!(listener.matches(".value").count(), 1);
        assert!(listener.contains("el.type === 'submit' || el.type === 'button' ? el.value"));
    }
}
