//! The page hook that reports WebSocket close codes runs in the page's own world, next to
//! hostile code. A page that plants setters on every name the hook might use, sweeps its global
//! for anything callable, and patches `addEventListener` and `JSON.stringify` can neither
//! capture the hook's binding nor forge, silence or rewrite its reports.

use std::time::Duration;

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::websocket::WebSocketServer;
use sightline_harness::{Rig, service_worker};

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_page_can_neither_capture_the_hook_nor_forge_its_reports() {
    let sockets = WebSocketServer::start().expect("websocket server");
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("get_changes_since", json!({})).await;
    let page = rig.server.url(&format!("hostile/hooks.html?ws={}", sockets.port()));
    c.ok("browser_navigate", json!({"url": page})).await;
    assert!(
        rig.server.wait_for_event("closed:stolen=0", Duration::from_secs(10)),
        "the page found something of the hook's to call: {:?}",
        rig.server.events()
    );
    // Let the close reach the timeline and its (debounced, once a second) save.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // The worker restarts while the page runs: the hooks are installed again into the live page,
    // which sweeps its global every 2 ms for whatever appears there.
    let devtools = rig.devtools();
    service_worker::stop_extension_worker(&devtools).expect("stop the worker");
    service_worker::wake_with_console_message(&devtools, "hostile/hooks.html", "wake up").expect("wake");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let again = loop {
        let reply = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
        if !reply.is_error || std::time::Instant::now() > deadline {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(!again.is_error && again.text.contains("Hostile hooks"), "{}", again.text);
    assert!(
        rig.server.wait_for_event("done:stolen=0", Duration::from_secs(20)),
        "the page captured something of the hook's while it was installed again: {:?}",
        rig.server.events()
    );

    let reply = c.call("get_changes_since", json!({"include": ["websocket"]})).await.expect("get_changes_since");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(!reply.text.contains("FORGED-MARKER"), "a forged report got through: {}", reply.text);
    let report: Value = serde_json::from_str(&reply.text).expect("JSON");
    let closes = report["websocket"]["disconnections"].as_array().cloned().unwrap_or_default();
    assert_eq!(closes.len(), 1, "{report:#}");
    assert_eq!(
        (closes[0]["code"].as_u64(), closes[0]["reason"].as_str()),
        (Some(4001), Some("real close")),
        "{report:#}"
    );
}
