//! Memory after many snapshots: the extension's service worker (its JavaScript heap in use and
//! the wasm runtime's linear memory) read before and after a run of snapshots of one large
//! corpus page, each a fresh capture — the bench changes one attribute of the page through its
//! own DevTools connection before every snapshot, so the probe cannot vouch for the last
//! capture and the whole page is captured, converted and compiled again.

use crate::service_worker;
use serde::Serialize;
use serde_json::json;

use super::servers::Server;

/// One reading of the worker's memory.
#[derive(Debug, Clone, Serialize)]
pub struct Reading {
    /// Snapshots taken before it.
    pub after: usize,
    /// JavaScript heap in use, in bytes.
    pub js_heap_used: u64,
    /// The wasm runtime's linear memory, in bytes.
    pub wasm_memory: u64,
}

/// The run.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRun {
    /// The corpus page snapshotted.
    pub page: String,
    /// Snapshots asked for.
    pub snapshots: usize,
    /// How many of them were fresh captures (the stats said the capture was not reused).
    pub fresh: usize,
    /// Readings, the first before any snapshot.
    pub readings: Vec<Reading>,
    /// Why the run stopped early, if it did.
    pub error: Option<String>,
}

/// Takes `snapshots` snapshots of the page at `url` (named `page`) through Sightline, reading the
/// worker's memory before, at each tenth and at the end.
pub async fn measure(server: &Server, page: &str, url: &str, snapshots: usize) -> MemoryRun {
    let mut run = MemoryRun { page: page.to_owned(), snapshots, fresh: 0, readings: Vec::new(), error: None };
    if let Err(e) = take(server, url, snapshots, &mut run).await {
        run.error = Some(format!("{e:#}"));
    }
    run
}

async fn take(server: &Server, url: &str, snapshots: usize, run: &mut MemoryRun) -> anyhow::Result<()> {
    let devtools = server.devtools().ok_or_else(|| anyhow::anyhow!("no DevTools endpoint"))?;
    server.navigate(url).await?;
    let read = |after: usize| -> anyhow::Result<Reading> {
        let memory = service_worker::extension_worker_memory(&devtools)?;
        Ok(Reading { after, js_heap_used: memory.js_heap_used, wasm_memory: memory.wasm_memory })
    };
    run.readings.push(read(0)?);
    let (mut page, session) = service_worker::attach_to_page(&devtools, url)?;
    let every = (snapshots / 10).max(1);
    for n in 1..=snapshots {
        let change = format!("document.documentElement.dataset.benchLook = '{n}'");
        page.call(Some(&session), "Runtime.evaluate", json!({"expression": change}))?;
        let timed = server.snapshot().await?;
        let stats = timed.reply.structured.as_ref().map(|s| &s["stats"]);
        if stats.is_some_and(|s| s["capture_reused"] != true && s["capture_ms"].is_number()) {
            run.fresh += 1;
        }
        if n % every == 0 || n == snapshots {
            run.readings.push(read(n)?);
        }
    }
    Ok(())
}
