//! Stopping the extension's service worker the way the browser does when it is idle, to test
//! what survives a restart.
//!
//! The browser must run with [`crate::browser::REMOTE_DEBUGGING`]. Through its DevTools endpoint
//! the worker is a target of type `service_worker` (`chrome-extension://<id>/sw.js`);
//! `Target.closeTarget` stops it, and the extension's native port and all its in-memory state
//! go with it (the debugger stays attached to its tabs). The browser starts the worker again
//! when an event it listens to arrives; [`wake_with_console_message`] makes one by logging a
//! message in a page the extension is debugging.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cdp::CdpConnection;

fn extension_workers(cdp: &mut CdpConnection) -> anyhow::Result<Vec<Value>> {
    let targets = cdp.call(None, "Target.getTargets", json!({}))?;
    Ok(targets["targetInfos"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|t| {
            t["type"] == "service_worker" && t["url"].as_str().is_some_and(|u| u.starts_with("chrome-extension://"))
        })
        .collect())
}

/// Stops the extension's service worker and waits (at most 10 s) until it is gone.
pub fn stop_extension_worker(devtools: &str) -> anyhow::Result<()> {
    let mut cdp = CdpConnection::connect(devtools)?;
    let workers = extension_workers(&mut cdp)?;
    let worker = workers.first().context("the extension's service worker is not running")?;
    let id = worker["targetId"].as_str().context("a target without an id")?.to_owned();
    cdp.call(None, "Target.closeTarget", json!({"targetId": id}))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if !extension_workers(&mut cdp)?.iter().any(|w| w["targetId"] == id.as_str()) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("the extension's service worker was still running 10 s after Target.closeTarget")
}

/// Whether the extension's service worker runs.
pub fn extension_worker_running(devtools: &str) -> anyhow::Result<bool> {
    let mut cdp = CdpConnection::connect(devtools)?;
    Ok(!extension_workers(&mut cdp)?.is_empty())
}

/// Evaluates `expression` in the extension's service worker (awaiting a promise it returns), e.g.
/// to change what the extension keeps in `chrome.storage`; returns its value.
pub fn evaluate_in_extension_worker(devtools: &str, expression: &str) -> anyhow::Result<Value> {
    let mut cdp = CdpConnection::connect(devtools)?;
    let workers = extension_workers(&mut cdp)?;
    let worker = workers.first().context("the extension's service worker is not running")?;
    let attached = cdp.call(None, "Target.attachToTarget", json!({"targetId": worker["targetId"], "flatten": true}))?;
    let session = attached["sessionId"].as_str().context("no session id")?.to_owned();
    let params = json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
    let result = cdp.call(Some(&session), "Runtime.evaluate", params)?;
    let _ = cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
    if let Some(exception) = result.get("exceptionDetails") {
        bail!("evaluating in the extension's worker failed: {exception}");
    }
    Ok(result["result"]["value"].clone())
}

/// What the extension's service worker holds: its JavaScript heap in use (CDP
/// `Runtime.getHeapUsage`) and the runtime's wasm linear memory, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct WorkerMemory {
    /// JavaScript heap in use.
    pub js_heap_used: u64,
    /// The wasm runtime's linear memory.
    pub wasm_memory: u64,
}

/// Measures the extension's service worker's memory (see [`WorkerMemory`]).
pub fn extension_worker_memory(devtools: &str) -> anyhow::Result<WorkerMemory> {
    let mut cdp = CdpConnection::connect(devtools)?;
    let workers = extension_workers(&mut cdp)?;
    let worker = workers.first().context("the extension's service worker is not running")?;
    let attached = cdp.call(None, "Target.attachToTarget", json!({"targetId": worker["targetId"], "flatten": true}))?;
    let session = attached["sessionId"].as_str().context("no session id")?.to_owned();
    let heap = cdp.call(Some(&session), "Runtime.getHeapUsage", json!({}));
    let params = json!({"expression": "sightline.memoryBytes()", "returnByValue": true});
    let wasm = cdp.call(Some(&session), "Runtime.evaluate", params);
    let _ = cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
    let (heap, wasm) = (heap?, wasm?);
    Ok(WorkerMemory {
        js_heap_used: heap["usedSize"].as_f64().context("no usedSize")? as u64,
        wasm_memory: wasm["result"]["value"].as_f64().context("no memoryBytes")? as u64,
    })
}

/// A DevTools connection of the test's own, attached (flat) to the page whose URL contains
/// `url_part`, and the session id to address it.
pub fn attach_to_page(devtools: &str, url_part: &str) -> anyhow::Result<(CdpConnection, String)> {
    attach_to_target(devtools, "page", url_part)
}

/// Like [`attach_to_page`] for an out-of-process iframe (a target of its own) whose URL
/// contains `url_part`.
pub fn attach_to_frame(devtools: &str, url_part: &str) -> anyhow::Result<(CdpConnection, String)> {
    attach_to_target(devtools, "iframe", url_part)
}

fn attach_to_target(devtools: &str, kind: &str, url_part: &str) -> anyhow::Result<(CdpConnection, String)> {
    let mut cdp = CdpConnection::connect(devtools)?;
    let targets = cdp.call(None, "Target.getTargets", json!({}))?;
    let target = targets["targetInfos"]
        .as_array()
        .and_then(|all| {
            all.iter().find(|t| t["type"] == kind && t["url"].as_str().is_some_and(|u| u.contains(url_part)))
        })
        .with_context(|| format!("no {kind} target at a URL containing {url_part}: {targets}"))?;
    let attached = cdp.call(None, "Target.attachToTarget", json!({"targetId": target["targetId"], "flatten": true}))?;
    let session = attached["sessionId"].as_str().context("no session id")?.to_owned();
    Ok((cdp, session))
}

/// Logs `message` in the page whose URL contains `url_part`: the extension, which debugs that
/// page, gets a `Runtime.consoleAPICalled` event, and the browser starts its worker for it.
pub fn wake_with_console_message(devtools: &str, url_part: &str, message: &str) -> anyhow::Result<()> {
    let (mut cdp, session) = attach_to_page(devtools, url_part)?;
    let expression = format!("console.log({})", Value::String(message.to_owned()));
    cdp.call(Some(&session), "Runtime.evaluate", json!({"expression": expression}))?;
    let _ = cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
    Ok(())
}

/// Navigates the page whose URL contains `url_part` to `url` over a DevTools connection of
/// its own (as the user, or another tool, could), e.g. to a browser page the extension may not
/// debug.
pub fn navigate_page_elsewhere(devtools: &str, url_part: &str, url: &str) -> anyhow::Result<()> {
    let (mut cdp, session) = attach_to_page(devtools, url_part)?;
    cdp.call(Some(&session), "Page.navigate", json!({"url": url}))?;
    let _ = cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
    Ok(())
}
