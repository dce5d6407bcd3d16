//! What `get_changes_since` costs in the real extension, in two measurements:
//!
//! 1. The feedback loop on the bench's shop: the agent looked (`get_changes_since`) on the home
//!    page, then loaded the order-tracking page, which fails in scripted ways (the same page and
//!    failures `cargo xtask bench` reads the peers' console and network lists after). Prints the
//!    reply and its size.
//! 2. How long the extension's engine takes to build a report in wasm on the workload the native
//!    criterion bench (`cargo bench -p sightline-core --bench changes`) measures: after a named
//!    checkpoint, 1,000 console messages, 100 requests, 510 WebSocket events and 50 agent
//!    actions, all real, in Chromium. Prints the `wasm_ms` the extension reports with each
//!    `get_changes_since` (min, median, max over 25 calls) and the size of the reply.
//!
//! `cargo xtask build && cargo run --release -p sightline-harness --example changes_wasm`

use std::time::Duration;

use serde_json::json;
use sightline_harness::websocket::WebSocketServer;
use sightline_harness::{FixtureServer, Rig, paths, ref_of};

const CALLS: usize = 25;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sockets = WebSocketServer::start()?;
    let rig = Rig::start().await?;
    let c = &rig.client;

    let shop = FixtureServer::start(paths::workspace_root().join("bench/sites/shop"))?;
    c.ok("browser_navigate", json!({"url": shop.url("index.html")})).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let first = c.call("get_changes_since", json!({})).await?;
    let first_ms = first.structured.as_ref().map(|s| s["wasm_ms"].clone()).unwrap_or_default();
    println!("the worker's first report (the engine's code not yet compiled): built in {first_ms} ms in wasm");
    c.ok("browser_navigate", json!({"url": shop.url("tracking.html?order=NW-000123")})).await;
    anyhow::ensure!(shop.wait_for_event("tracking:done", Duration::from_secs(10)), "the tracking page never failed");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let reply = c.call("get_changes_since", json!({})).await?;
    let structured = reply.structured.clone().unwrap_or_default();
    println!("after loading the tracking page: {}", reply.text);
    println!(
        "reply: {} bytes ({} estimated tokens), built in {} ms in wasm\n",
        reply.text.len(),
        structured["tokens"],
        structured["wasm_ms"]
    );
    let page = rig.server.url(&format!("changes/workload.html?ws={}", sockets.port()));
    c.ok("browser_navigate", json!({"url": page})).await;
    anyhow::ensure!(rig.server.wait_for_event("ready", Duration::from_secs(10)), "the page never got ready");
    tokio::time::sleep(Duration::from_millis(500)).await;
    c.ok("browser_checkpoint", json!({"action": "create", "name": "before_workload"})).await;
    rig.server.set_status("resource3", 500);

    let snapshot = c.call("browser_snapshot", json!({})).await?;
    let count = ref_of(&snapshot, "button", "Count");
    for _ in 0..49 {
        c.ok("browser_click", json!({"ref": count})).await;
    }
    let run = ref_of(&snapshot, "button", "Run workload");
    c.ok("browser_click", json!({"ref": run})).await;
    anyhow::ensure!(
        rig.server.wait_for_event("workload:done", Duration::from_secs(60)),
        "the workload never finished: {:?}",
        rig.server.events()
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..CALLS {
        let reply = c.call("get_changes_since", json!({"checkpoint": "before_workload"})).await?;
        anyhow::ensure!(!reply.is_error, "{}", reply.text);
        let structured = reply.structured.clone().unwrap_or_default();
        times.push(structured["wasm_ms"].as_f64().unwrap_or(f64::NAN));
        last = Some((reply.text, structured));
    }
    times.sort_by(f64::total_cmp);
    let (text, report) = last.unwrap_or_default();
    println!(
        "window: console {} · network {} · websocket {} · actions {}",
        report["console"]["total"],
        report["network"]["total"],
        report["websocket"]["total"],
        report["actions"]["total"]
    );
    println!("summary: {}", report["summary"]);
    println!("reply: {} bytes ({} estimated tokens)", text.len(), report["tokens"]);
    println!(
        "changes_since in wasm over {CALLS} calls: min {:.2} ms · median {:.2} ms · max {:.2} ms",
        times[0],
        times[CALLS / 2],
        times[CALLS - 1]
    );
    Ok(())
}
