//! Sleeping and time limits for async code in the service worker, on `setTimeout`.

use std::future::Future;

use futures::future::{Either, select};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Milliseconds since the worker started, with sub-millisecond precision.
pub fn now_ms() -> f64 {
    performance_now()
}

/// Wall-clock time in epoch milliseconds (`Date.now()`): timestamps that must mean the same
/// after a worker restart, and that agents compare with ISO 8601 times.
pub fn epoch_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

/// Resolves after `ms` milliseconds.
pub async fn sleep(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, ms as i32);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Runs `future` for at most `ms` milliseconds; `None` when time ran out.
pub async fn within<F: Future>(ms: u32, future: F) -> Option<F::Output> {
    match select(Box::pin(future), Box::pin(sleep(ms))).await {
        Either::Left((output, _)) => Some(output),
        Either::Right(_) => None,
    }
}
