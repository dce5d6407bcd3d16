//! The idle drill: no call for 10 minutes (long enough for the browser to stop an idle
//! extension worker, which it does after 30 s without events), then the next call answers,
//! within the cap a worker coming back is given, and knows the agent's tab. The suite waits idle
//! only once: `cargo xtask test` runs this test as a process of its own beside all the others
//! (it holds a rig but no processor).

use std::time::{Duration, Instant};

use serde_json::json;
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::{Rig, service_worker};

/// How long nothing is asked.
const IDLE: Duration = Duration::from_secs(10 * 60);
/// How long the first call after it may take (the browser starting the worker again, the
/// worker reconnecting to a new bridge).
const WAKE_CAP: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread")]
async fn after_10_idle_minutes_the_next_call_answers() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let devtools = rig.devtools();
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;

    tokio::time::sleep(IDLE).await;
    let running = service_worker::extension_worker_running(&devtools).expect("ask the browser");
    eprintln!("after {IDLE:?} idle, the extension's worker is {}", if running { "running" } else { "stopped" });

    let started = Instant::now();
    let reply = tokio::time::timeout(WAKE_CAP, async {
        loop {
            let reply = c.call("browser_snapshot", json!({})).await.expect("the call reaches the server");
            if !reply.is_error {
                return reply;
            }
            eprintln!("not yet: {}", reply.text);
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no answer within {WAKE_CAP:?} after {IDLE:?} idle"));
    eprintln!("the first call after the idle minutes answered in {:?}", started.elapsed());
    assert!(reply.text.contains("# Tiny shop"), "the agent's tab is still its own: {}", reply.text);
    let tabs = c.ok("browser_tabs", json!({})).await;
    assert!(tabs.contains("Tiny shop"), "{tabs}");
}
