//! What changed since the agent last looked, end to end: a page logs an error, has its orders
//! API go from 200 to 500 and closes its WebSocket; `get_changes_since` reports exactly those,
//! then nothing; a named checkpoint keeps reporting the same window, also after the extension's
//! service worker was stopped; every action's response ends with a line on new errors; the raw
//! console and network reads page through everything; requests whose bodies the page never
//! reads are reported when their endpoint breaks, and one never answered is listed as pending,
//! not failed; an endpoint that answered 200 and then 500 since a checkpoint taken before it
//! was first seen has the 200 as its previous status; and the listener that reports the user's
//! own actions in shared tabs never reports what was typed.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::cdp::CdpBrowser;
use sightline_harness::websocket::WebSocketServer;
use sightline_harness::{Chromium, FixtureServer, McpClient, Rig, paths, ref_of, service_worker};

const WAIT: Duration = Duration::from_secs(10);
/// Long enough for the last events of a step to reach the extension (and for the timeline's
/// debounced save, which runs at most once a second).
const SETTLE: Duration = Duration::from_millis(1500);
const ERROR_TEXT: &str = "Checkout failed: the orders API answered HTTP 500";

/// A rig showing the orders page, which has loaded its orders (HTTP 200) and opened its socket.
async fn orders_page(rig: &Rig, sockets: &WebSocketServer) {
    let page = rig.server.url(&format!("changes/app.html?ws={}", sockets.port()));
    rig.client.ok("browser_navigate", json!({"url": page})).await;
    assert!(rig.server.wait_for_event("ready", WAIT), "the page never got ready: {:?}", rig.server.events());
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// Switches the orders API to 500 and clicks "Place order"; returns the click's response.
async fn break_checkout(rig: &Rig) -> String {
    rig.server.set_status("orders", 500);
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let place = ref_of(&snapshot, "button", "Place order");
    let clicked = rig.client.ok("browser_click", json!({"ref": place})).await;
    assert!(rig.server.wait_for_event("socket:closed", WAIT), "the socket never closed: {:?}", rig.server.events());
    tokio::time::sleep(Duration::from_millis(300)).await;
    clicked
}

/// Calls `get_changes_since` and returns its report, checking that the text and the structured
/// result agree.
async fn changes(client: &McpClient, args: Value) -> (Value, String) {
    let reply = client.call("get_changes_since", args.clone()).await.expect("get_changes_since");
    assert!(!reply.is_error, "get_changes_since {args} failed: {}", reply.text);
    let report: Value = serde_json::from_str(&reply.text).expect("the reply is JSON");
    let mut structured = reply.structured.clone().expect("structuredContent");
    assert!(structured["wasm_ms"].as_f64().is_some(), "the engine's time in wasm is reported: {structured}");
    structured.as_object_mut().expect("an object").remove("wasm_ms");
    assert_eq!(structured, report, "structuredContent carries the same report");
    (report, reply.text)
}

/// The parts of a report that say what went wrong.
fn findings(report: &Value) -> Value {
    json!({
        "severity": report["severity"],
        "summary": report["summary"],
        "console_errors": report["console"]["errors"],
        "console_warnings": report["console"]["warnings"],
        "failures": report["network"]["failures"],
        "still_failing": report["network"]["still_failing"],
        "disconnections": report["websocket"]["disconnections"],
        "socket_errors": report["websocket"]["errors"],
    })
}

fn assert_exactly_the_three_failures(report: &Value, sockets: &WebSocketServer) {
    let errors = report["console"]["errors"].as_array().cloned().unwrap_or_default();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert_eq!(errors[0]["message"], ERROR_TEXT, "{report:#}");
    let source = errors[0]["source"].as_str().unwrap_or_default();
    assert!(source.starts_with("/changes/app.html:"), "the error says where it was logged: {report:#}");
    let found = findings(report);
    assert_eq!(
        found,
        json!({
            "severity": "error",
            "summary": "1 new console error(s), 1 network failure(s), 1 WebSocket disconnection(s)",
            "console_errors": errors,
            "console_warnings": null,
            "failures": [{"endpoint": "GET /switch/orders", "status": 500, "previous_status": 200}],
            "still_failing": null,
            "disconnections": [{"url": sockets.url("live"), "code": 4001, "reason": "checkout finished"}],
            "socket_errors": null,
        }),
        "{report:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_breaks_is_reported_once_with_severity_error_then_clean() {
    let sockets = WebSocketServer::start().unwrap();
    let rig = Rig::start().await.expect("rig");
    orders_page(&rig, &sockets).await;
    let (first, _) = changes(&rig.client, json!({})).await;
    assert_eq!(first["severity"], "clean", "nothing is wrong yet: {first:#}");

    let clicked = break_checkout(&rig).await;
    // The click's response ends with the line on what went wrong since the previous response.
    assert_eq!(
        clicked.lines().last(),
        Some(
            format!("Since the last response: 1 console error (\"{ERROR_TEXT}\"); 1 failed request (GET /switch/orders → 500).")
                .as_str()
        ),
        "{clicked}"
    );

    let (report, text) = changes(&rig.client, json!({})).await;
    assert_exactly_the_three_failures(&report, &sockets);
    assert!(text.len() <= 2048, "a typical report stays under 2 KB, this one is {} bytes: {text}", text.len());
    let actions = report["actions"]["actions"].as_array().cloned().unwrap_or_default();
    assert!(
        actions
            .iter()
            .any(|a| a["kind"] == "click" && a["description"].as_str().is_some_and(|d| d.starts_with("click e"))),
        "the agent's click is on the timeline: {report:#}"
    );
    println!("get_changes_since after the failures ({} bytes): {text}", text.len());

    let (next, _) = changes(&rig.client, json!({})).await;
    assert_eq!(next["severity"], "clean", "the next call sees nothing new: {next:#}");
    assert_eq!(next["summary"], "No significant changes.");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_named_checkpoint_keeps_its_window_whatever_else_happens_and_survives_a_worker_restart() {
    let sockets = WebSocketServer::start().unwrap();
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    orders_page(&rig, &sockets).await;
    c.ok("browser_checkpoint", json!({"action": "create", "name": "before_checkout"})).await;
    break_checkout(&rig).await;

    let (named, _) = changes(c, json!({"checkpoint": "before_checkout"})).await;
    assert_exactly_the_three_failures(&named, &sockets);

    // Other calls move the session's own checkpoint and cursor, never a named one.
    changes(c, json!({})).await;
    changes(c, json!({"include": ["console"], "severity": "errors_only"})).await;
    c.ok("browser_snapshot", json!({})).await;
    c.ok("browser_checkpoint", json!({"action": "create", "name": "after_checkout"})).await;
    let (again, _) = changes(c, json!({"checkpoint": "before_checkout"})).await;
    for section in ["severity", "summary", "console", "network", "websocket", "actions", "from"] {
        assert_eq!(again[section], named[section], "{section} changed:\n{named:#}\n{again:#}");
    }

    // Stop the extension's service worker: its memory is gone, the saved timeline is not.
    tokio::time::sleep(SETTLE).await;
    let devtools = rig.devtools();
    service_worker::stop_extension_worker(&devtools).unwrap();
    assert!(!service_worker::extension_worker_running(&devtools).unwrap());
    service_worker::wake_with_console_message(&devtools, "changes/app.html", "wake up").unwrap();
    let listed = poll_ok(c, "browser_checkpoint", json!({"action": "list"}), Duration::from_secs(30)).await;
    assert!(service_worker::extension_worker_running(&devtools).unwrap(), "the worker came back");
    assert!(listed.contains("before_checkout") && listed.contains("after_checkout"), "{listed}");

    let (restored, _) = changes(c, json!({"checkpoint": "before_checkout"})).await;
    assert_eq!(findings(&restored), findings(&named), "{restored:#}");
    assert_eq!(restored["from"], named["from"]);
    // The session's own checkpoint survived too: nothing old is reported again.
    let (since_last, _) = changes(c, json!({})).await;
    assert_eq!(since_last["severity"], "clean", "{since_last:#}");
    assert_eq!(since_last["console"]["total"], 1, "only the message that woke the worker: {since_last:#}");
}

/// Seed scenario 4 with the checkpoint taken before the page first loaded: the baseline has no
/// mark for the orders API, and its 200 inside the window is what it answered before the 500.
#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_that_answered_200_then_500_since_the_checkpoint_has_200_as_its_previous_status() {
    let sockets = WebSocketServer::start().unwrap();
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_checkpoint", json!({"action": "create", "name": "before_the_page"})).await;
    orders_page(&rig, &sockets).await;
    break_checkout(&rig).await;
    let (report, _) = changes(c, json!({"checkpoint": "before_the_page"})).await;
    assert_eq!(
        report["network"]["failures"],
        json!([{"endpoint": "GET /switch/orders", "status": 500, "previous_status": 200}]),
        "{report:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn noise_rules_set_in_extension_storage_keep_an_endpoint_and_a_message_out_of_reports() {
    let sockets = WebSocketServer::start().unwrap();
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    orders_page(&rig, &sockets).await;
    changes(&rig.client, json!({})).await;
    let devtools = rig.devtools();
    let noise = json!({"sightline.noise": {
        "add": [
            {"name": "orders_api", "target": "request_path", "pattern": {"starts_with": "/switch/"}},
            {"name": "checkout_log", "target": "console_text", "pattern": {"contains": "checkout failed"}},
        ],
        "remove": ["google_analytics"],
    }});
    service_worker::evaluate_in_extension_worker(&devtools, &format!("chrome.storage.local.set({noise})")).unwrap();
    break_checkout(&rig).await;

    let (report, _) = changes(&rig.client, json!({})).await;
    assert_eq!(report["severity"], "warning", "{report:#}");
    assert_eq!(report["summary"], "1 WebSocket disconnection(s)", "{report:#}");
    // The raw reads still show what reports leave out.
    let errors = rig.client.ok("browser_console_messages", json!({"level": "error"})).await;
    assert!(errors.contains(ERROR_TEXT), "{errors}");
}

#[tokio::test(flavor = "multi_thread")]
async fn named_checkpoints_outlive_the_browser() {
    let mut rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    c.ok("browser_checkpoint", json!({"action": "create", "name": "session_start"})).await;

    // Restart the browser on the same profile: chrome.storage.session is gone, .local is not.
    rig.browser.take().expect("browser").kill();
    rig.browser = Some(Chromium::launch(&rig.sandbox).unwrap());
    let listed = poll_ok(&rig.client, "browser_checkpoint", json!({}), Duration::from_secs(30)).await;
    assert!(listed.starts_with("1 of at most 20 named checkpoints"), "{listed}");
    assert!(listed.contains("- session_start (made 20") && listed.contains("shop.html"), "{listed}");
    // Everything the new browser recorded happened after it.
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("second.html")})).await;
    let (report, _) = changes(c, json!({"checkpoint": "session_start", "include": ["actions"]})).await;
    assert_eq!(report["actions"]["total"], 1, "{report:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn console_and_network_reads_page_through_everything_recorded() {
    let sockets = WebSocketServer::start().unwrap();
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    orders_page(&rig, &sockets).await;
    break_checkout(&rig).await;

    let errors = c.ok("browser_console_messages", json!({"level": "error"})).await;
    assert!(errors.starts_with("Console messages (errors) 1–1 of 1, page 1 of 1 (newest last):\n"), "{errors}");
    assert!(errors.contains(&format!("error: \"{ERROR_TEXT}\" (http://127.0.0.1:")), "{errors}");

    let failed = c.ok("browser_network_requests", json!({"failed": true})).await;
    assert!(failed.starts_with("Requests (failed) 1–1 of 1, page 1 of 1 (newest last):\n"), "{failed}");
    assert!(failed.contains(&format!("GET 500 {} (Fetch, ", rig.server.url("switch/orders"))), "{failed}");

    let all = c.ok("browser_network_requests", json!({"page_size": 1})).await;
    let total: usize = all.split(" of ").nth(1).and_then(|n| n.split(',').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(total >= 4, "the page, its script, two API calls and the reports: {all}");
    assert!(all.contains("; older on page 2)"), "{all}");
    let oldest = c.ok("browser_network_requests", json!({"page_size": 1, "page": total})).await;
    assert!(oldest.contains(&format!("GET 200 {}", rig.server.url("changes/app.html"))), "{oldest}");
    let past = c.ok("browser_network_requests", json!({"page_size": 1, "page": total + 1})).await;
    assert!(past.contains("is past the end") && past.contains("Page 1 is the newest"), "{past}");
}

/// The lines of `listing` that name `url` exactly (followed by a space).
fn lines_naming<'a>(listing: &'a str, url: &str) -> Vec<&'a str> {
    let url = format!(" {url} ");
    listing.lines().filter(|line| line.contains(&url)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_whose_bodies_are_never_read_are_reported_and_one_never_answered_is_pending() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let (items, stock) = (rig.server.url("switch/items?endless"), rig.server.url("switch/stock"));
    let (missing, hang) = (rig.server.url("status/404"), rig.server.url("hang/items"));
    c.ok("browser_navigate", json!({"url": rig.server.url("changes/unread.html")})).await;
    assert!(rig.server.wait_for_event("ready", WAIT), "the page never got ready: {:?}", rig.server.events());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (first, _) = changes(c, json!({})).await;
    assert_eq!(first["severity"], "clean", "{first:#}");
    let new_endpoints = first["network"]["new_endpoints"].as_array().cloned().unwrap_or_default();
    for endpoint in ["GET /switch/items", "GET /switch/stock"] {
        assert!(
            new_endpoints.contains(&json!({"endpoint": endpoint, "status": 200})),
            "a status read without its body is a request: {first:#}"
        );
    }

    // Both endpoints break; "Refresh" reads their statuses again, a 404, and leaves one hanging.
    rig.server.set_status("items", 500);
    rig.server.set_status("stock", 500);
    let snapshot = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let refresh = ref_of(&snapshot, "button", "Refresh");
    let clicked = c.ok("browser_click", json!({"ref": refresh})).await;
    assert!(rig.server.wait_for_event("refreshed", WAIT), "the refresh never ended: {:?}", rig.server.events());
    assert_eq!(
        clicked.lines().last(),
        Some("Since the last response: 3 failed requests (latest GET /status/404 → 404)."),
        "{clicked}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (report, text) = changes(c, json!({})).await;
    assert_eq!(
        findings(&report),
        json!({
            "severity": "error",
            "summary": "3 network failure(s)",
            "console_errors": null,
            "console_warnings": null,
            "failures": [
                {"endpoint": "GET /switch/items", "status": 500, "previous_status": 200},
                {"endpoint": "GET /switch/stock", "status": 500, "previous_status": 200},
                {"endpoint": "GET /status/404", "status": 404},
            ],
            "still_failing": null,
            "disconnections": null,
            "socket_errors": null,
        }),
        "{report:#}"
    );
    assert!(!text.contains("/hang/"), "a request never answered is not a failure, nor anything else yet: {text}");
    println!("get_changes_since after the refresh: {text}");

    let all = c.ok("browser_network_requests", json!({})).await;
    println!(
        "browser_network_requests:
{all}"
    );
    let listed_as = |url: &str, status: &str, kind: &str| {
        let lines = lines_naming(&all, url);
        assert!(
            lines.iter().any(|line| line.contains(&format!(" GET {status} {url} ({kind}, "))),
            "{url} answered {status} is listed: {all}"
        );
    };
    listed_as(&items, "200", "Fetch");
    listed_as(&items, "500", "Fetch");
    listed_as(&stock, "200", "XHR");
    listed_as(&stock, "500", "XHR");
    listed_as(&missing, "404", "Fetch");
    // The browser keeps no copy of response bodies for Sightline; a finished load's size is listed
    // all the same.
    let page = lines_naming(&all, &rig.server.url("changes/unread.html"));
    assert!(
        page.len() == 1 && page[0].contains(" (Document, ") && (page[0].ends_with(" kB)") || page[0].ends_with(" B)")),
        "the page's own request is listed with its size: {all}"
    );
    assert_eq!(lines_naming(&all, &items).len(), 2, "one entry per request, whatever came after the response: {all}");
    assert_eq!(lines_naming(&all, &stock).len(), 2, "{all}");
    let pending = lines_naming(&all, &hang);
    assert_eq!(pending.len(), 1, "{all}");
    let (listed, age) = pending[0].split_once(" (Fetch, no response after ").expect("pending with its wait");
    assert!(listed.ends_with(&format!(" GET pending {hang}")), "{all}");
    let seconds = age.strip_suffix(" s)").and_then(|s| s.parse::<f64>().ok());
    assert!(seconds.is_some(), "the wait is in seconds: {all}");
    assert_eq!(all.lines().last(), Some(pending[0]), "pending requests come last: {all}");

    let failed = c.ok("browser_network_requests", json!({"failed": true})).await;
    println!(
        "browser_network_requests failed=true:
{failed}"
    );
    assert!(
        failed.starts_with(
            "Requests (failed) 1–3 of 3, page 1 of 1 (newest last):
"
        ),
        "{failed}"
    );
    for (url, status, kind) in [(&items, 500, "Fetch"), (&stock, 500, "XHR"), (&missing, 404, "Fetch")] {
        assert!(failed.contains(&format!(" GET {status} {url} ({kind}, ")), "{failed}");
    }
    assert!(!failed.contains("pending") && !failed.contains("/hang/"), "pending is not failed: {failed}");
}

#[test]
fn the_user_action_listener_reports_what_was_acted_on_but_never_what_was_typed() {
    paths::require_artefacts();
    const BINDING: &str = "__sightlineUserAction";
    const WORLD: &str = "sightline-listener";
    let source = std::fs::read_to_string(paths::workspace_root().join("extension/runtime/src/hooks/user_actions.js"))
        .unwrap()
        .replace("__BINDING__", BINDING);
    let server = FixtureServer::start(paths::fixtures_dir()).unwrap();
    let mut browser = CdpBrowser::launch().unwrap();
    let s = browser.open_page().unwrap();
    let s = Some(s.as_str());
    let cdp = &mut browser.cdp;
    for method in ["Page.enable", "Runtime.enable"] {
        cdp.call(s, method, json!({})).unwrap();
    }
    cdp.call(s, "Runtime.addBinding", json!({"name": BINDING, "executionContextName": WORLD})).unwrap();
    cdp.call(s, "Page.addScriptToEvaluateOnNewDocument", json!({"source": source, "worldName": WORLD})).unwrap();
    cdp.call(s, "Page.navigate", json!({"url": server.url("changes/form.html")})).unwrap();
    cdp.wait_event("Page.loadEventFired", WAIT, |_| true).unwrap();

    let centre = |cdp: &mut sightline_harness::cdp::CdpConnection, id: &str| -> (f64, f64) {
        let expression = format!(
            "(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        );
        let result = cdp.call(s, "Runtime.evaluate", json!({"expression": expression, "returnByValue": true})).unwrap();
        let at = &result["result"]["value"];
        (at[0].as_f64().unwrap(), at[1].as_f64().unwrap())
    };
    let click = |cdp: &mut sightline_harness::cdp::CdpConnection, id: &str| {
        let (x, y) = centre(cdp, id);
        for kind in ["mousePressed", "mouseReleased"] {
            let event = json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1});
            cdp.call(s, "Input.dispatchMouseEvent", event).unwrap();
        }
    };
    let type_text = |cdp: &mut sightline_harness::cdp::CdpConnection, text: &str| {
        cdp.call(s, "Input.insertText", json!({"text": text})).unwrap();
    };
    click(cdp, "search");
    type_text(cdp, "red shoes");
    type_text(cdp, " size 9");
    for kind in ["keyDown", "keyUp"] {
        let key = json!({"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"});
        cdp.call(s, "Input.dispatchKeyEvent", key).unwrap();
    }
    click(cdp, "password");
    type_text(cdp, "hunter2");
    click(cdp, "card");
    type_text(cdp, "4111111111111111");
    click(cdp, "gift");
    click(cdp, "buy");
    // A click made by the page's own script is not the user's.
    cdp.call(s, "Runtime.evaluate", json!({"expression": "document.getElementById('buy').click()"})).unwrap();
    // A last real click marks the end of what to collect.
    click(cdp, "email");

    let mut reports = Vec::new();
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        let Ok(event) =
            cdp.wait_event("Runtime.bindingCalled", Duration::from_secs(1), |e| e["params"]["name"] == BINDING)
        else {
            continue;
        };
        let payload: Value = serde_json::from_str(event["params"]["payload"].as_str().unwrap()).unwrap();
        assert_eq!(payload["url"], server.url("changes/form.html"));
        let line = format!("{} | {}", payload["kind"].as_str().unwrap(), payload["description"].as_str().unwrap());
        let last = line.contains("Email");
        reports.push(line);
        if last {
            break;
        }
    }
    assert_eq!(
        reports,
        [
            "click | click textbox \"Search\"",
            "type | type into textbox \"Search\"",
            "submit | submit form \"search\"",
            "click | click checkbox \"Gift wrap\"",
            "click | click button \"Add to basket\"",
            "click | click textbox \"Email\"",
        ]
    );
}

/// Calls `tool` until it succeeds (at most `timeout`), returning its text.
async fn poll_ok(client: &McpClient, tool: &str, args: Value, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let reply = client.call(tool, args.clone()).await.expect("protocol");
        if !reply.is_error {
            return reply.text;
        }
        assert!(Instant::now() < deadline, "{tool} kept failing for {timeout:?}: {}", reply.text);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
