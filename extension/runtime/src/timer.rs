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

/// A moment on [`now_ms`]'s clock that waits are raced against, so a chain of waits stays
/// within one limit in total instead of each taking its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deadline {
    at_ms: f64,
}

impl Deadline {
    /// `ms` milliseconds from now.
    pub fn after(ms: u32) -> Deadline {
        Deadline { at_ms: now_ms() + f64::from(ms) }
    }

    /// `ms` milliseconds from now, for limits that arrive as 64-bit numbers.
    pub fn after_u64(ms: u64) -> Deadline {
        Deadline { at_ms: now_ms() + ms as f64 }
    }

    /// Milliseconds left (0 once passed).
    pub fn left_ms(&self) -> u32 {
        (self.at_ms - now_ms()).clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// Whether the moment has come.
    pub fn passed(&self) -> bool {
        now_ms() >= self.at_ms
    }

    /// At most `ms`, and never past the deadline.
    pub fn cap(&self, ms: u32) -> u32 {
        ms.min(self.left_ms())
    }

    /// Resolves when the moment has come.
    pub async fn reached(self) {
        // setTimeout may fire a little early; sleep again for what is left.
        while !self.passed() {
            sleep(self.left_ms().max(1)).await;
        }
    }
}
