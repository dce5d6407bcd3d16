//! The fault matrix: while a call runs, the runtime panics (or exhausts its stack, or has an
//! error thrown through it), the service worker stops, the tab closes, the bridge is killed,
//! the debugger is detached, or the browser restarts. Each time the call is answered (most
//! often with an error saying what happened) within its cap, the next call works, and nothing
//! the call sent to the page runs twice (counted by the fixture server).
//!
//! The held call is a navigation to a page whose picture never arrives (`/hang/<name>`): it
//! holds the tab up to the 30 s load cap, and every load of the page is counted. Bounds here are
//! caps the product states, never measurements of speed.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::{REMOTE_DEBUGGING, bridge_pids};
use sightline_harness::client::{PendingCall, Reply};
use sightline_harness::{Chromium, McpClient, Rig, service_worker};

/// How long a call cut short by a fault may take to be answered.
const FAULT_CAP: Duration = Duration::from_secs(10);
/// How long the next call may take to work once the fault is over (a worker, bridge or browser
/// coming back).
const RECOVERY_CAP: Duration = Duration::from_secs(30);

/// How many times the page's never-arriving picture `name` was asked for.
fn hang_count(rig: &Rig, name: &str) -> usize {
    let wanted = format!("hang:{name}");
    rig.server.events().iter().filter(|e| **e == wanted).count()
}

/// Starts a navigation that holds the tab: its page's picture (`/hang/<name>`) never arrives.
/// Returns once the page asked for the picture.
async fn held_navigation(rig: &Rig, client: &McpClient, name: &str) -> PendingCall {
    let url = format!("{}?hang={}", rig.server.url("trust/slow.html"), rig.server.url(&format!("hang/{name}")));
    let call = client.start("browser_navigate", json!({"url": url})).await.expect("start the navigation");
    assert!(
        rig.server.wait_for_event(&format!("hang:{name}"), Duration::from_secs(10)),
        "the page never loaded: {:?}",
        rig.server.events()
    );
    call
}

/// Waits at most `cap` for `call`'s answer; fails the test past it.
async fn answered_within(call: PendingCall, cap: Duration, what: &str) -> (Reply, Duration) {
    let started = Instant::now();
    let reply = tokio::time::timeout(cap, call.answer())
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {cap:?}"))
        .expect("the call reaches the server");
    (reply, started.elapsed())
}

/// Polls `tool` until it succeeds (at most [`RECOVERY_CAP`]); returns it and how long it took.
async fn next_call_works(client: &McpClient, tool: &str, args: Value) -> (Reply, Duration) {
    let started = Instant::now();
    loop {
        let reply = client.call(tool, args.clone()).await.expect("the call reaches the server");
        if !reply.is_error {
            return (reply, started.elapsed());
        }
        assert!(started.elapsed() < RECOVERY_CAP, "{tool} still failing after {RECOVERY_CAP:?}: {}", reply.text);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_panic_in_the_runtime_answers_every_call_in_flight_and_a_fresh_runtime_takes_over() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;

    for round in 1..=2 {
        // One call holds the tab while another panics: both are answered, neither is left waiting.
        let name = format!("panic{round}");
        let held = held_navigation(&rig, c, &name).await;
        rig.in_worker("sightline.panicOnNextCall('browser_tabs')");
        let started = Instant::now();
        let panicked = c.call("browser_tabs", json!({})).await.expect("the call reaches the server");
        let took = started.elapsed();
        eprintln!("round {round}: the panicking call answered in {took:?}");
        assert!(took < FAULT_CAP, "answered after {took:?}");
        assert!(panicked.is_error, "{}", panicked.text);
        assert!(panicked.text.contains("runtime failed") && panicked.text.contains("panic"), "{}", panicked.text);
        assert!(panicked.text.contains("a panic provoked for a drill"), "the panic is named: {}", panicked.text);
        let (left_behind, took) = answered_within(held, FAULT_CAP, "the call the panic left behind").await;
        eprintln!("round {round}: the call in flight answered {took:?} after the panic's");
        assert!(left_behind.is_error && left_behind.text.contains("runtime failed"), "{}", left_behind.text);

        // The fresh runtime answers at once, and knows the agent's tab.
        let (tabs, took) = next_call_works(c, "browser_tabs", json!({})).await;
        eprintln!("round {round}: the next call worked after {took:?}");
        assert!(took < FAULT_CAP, "{took:?}");
        assert!(tabs.text.contains("Slow page"), "{}", tabs.text);
        let snapshot = c.ok("browser_snapshot", json!({})).await;
        assert!(snapshot.contains("# Slow page"), "{snapshot}");
        assert_eq!(hang_count(&rig, &name), 1, "the page was loaded once: {:?}", rig.server.events());
        assert_eq!(rig.in_worker("typeof sightline.panicOnNextCall"), json!("function"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stack_overflow_or_an_error_thrown_through_the_runtime_answers_every_call_in_flight_and_a_fresh_runtime_takes_over()
 {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;

    // Neither is a panic: no Rust code runs as the exception unwinds through the instance, so
    // only the service worker can tell that the instance is lost.
    let faults = [
        ("overflowStackOnNextCall", "the stack exhausted", "RangeError"),
        ("throwOnNextCall", "an error thrown through the runtime", "an exception provoked for a drill"),
    ];
    for (seam, fault, said) in faults {
        let name = seam.to_lowercase();
        let held = held_navigation(&rig, c, &name).await;
        rig.in_worker(&format!("sightline.{seam}('browser_tabs')"));
        let failed = c.start("browser_tabs", json!({})).await.expect("start the failing call");
        let (failed, took) = answered_within(failed, FAULT_CAP, fault).await;
        eprintln!("{fault}: the failing call answered in {took:?}: {}", failed.text);
        assert!(failed.is_error && failed.text.contains("runtime failed"), "{fault}: {}", failed.text);
        assert!(failed.text.contains(said), "{fault}: the answer names it: {}", failed.text);
        let (left_behind, took) = answered_within(held, FAULT_CAP, "the call the fault left behind").await;
        eprintln!("{fault}: the call in flight answered {took:?} after the failing one's");
        assert!(left_behind.is_error && left_behind.text.contains("runtime failed"), "{}", left_behind.text);

        let (tabs, took) = next_call_works(c, "browser_tabs", json!({})).await;
        eprintln!("{fault}: the next call worked after {took:?}");
        assert!(took < FAULT_CAP, "{took:?}");
        assert!(tabs.text.contains("Slow page"), "{}", tabs.text);
        assert_eq!(hang_count(&rig, &name), 1, "the page was loaded once: {:?}", rig.server.events());
    }
}

/// Checks the held call's answer, that the next call works and that the page was loaded once.
async fn answered_and_recovered(rig: &Rig, held: PendingCall, name: &str, fault: &str, said: &[&str]) {
    let (reply, took) = answered_within(held, FAULT_CAP, fault).await;
    eprintln!("{fault}: the call in flight answered in {took:?}: {}", reply.text);
    assert!(reply.is_error, "{fault}: {}", reply.text);
    for words in said {
        assert!(reply.text.contains(words), "{fault}: the answer says {words:?}: {}", reply.text);
    }
    let (_, took) = next_call_works(&rig.client, "browser_tabs", json!({})).await;
    eprintln!("{fault}: the next call worked after {took:?}");
    assert_eq!(hang_count(rig, name), 1, "{fault}: the page was loaded once: {:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_worker_stopped_during_a_call() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let held = held_navigation(&rig, &rig.client, "worker").await;
    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    let (reply, took) = answered_within(held, FAULT_CAP, "worker stopped").await;
    eprintln!("worker stopped: the call in flight answered in {took:?}: {}", reply.text);
    assert!(reply.is_error && reply.text.contains("connection closed while the call was running"), "{}", reply.text);
    // The browser starts the worker again for an event from the page it debugs.
    service_worker::wake_with_console_message(&rig.devtools(), "slow.html", "wake up").expect("wake the worker");
    let (snapshot, took) = next_call_works(&rig.client, "browser_snapshot", json!({})).await;
    eprintln!("worker stopped: the next call worked after {took:?}");
    assert!(snapshot.text.contains("# Slow page"), "{}", snapshot.text);
    assert_eq!(hang_count(&rig, "worker"), 1, "the page was loaded once: {:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_closed_during_a_call() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let held = held_navigation(&rig, &rig.client, "closed").await;
    let tab = rig.tab_id("slow.html");
    // As the user closing it.
    rig.in_worker(&format!("chrome.tabs.remove({tab})"));
    answered_and_recovered(&rig, held, "closed", "tab closed", &["the tab was closed while this call was waiting"])
        .await;
    // The session has no current tab now: a call without `tab` is not sent to another one.
    let refused =
        rig.client.call("browser_navigate", json!({"url": rig.server.url("shop.html")})).await.expect("reply");
    assert!(refused.is_error && refused.text.contains("was closed, so you have no current tab"), "{}", refused.text);
    let page = rig.client.ok("browser_tabs", json!({"action": "new", "url": rig.server.url("shop.html")})).await;
    assert!(page.contains("Tiny shop"), "{page}");
    let page = rig.client.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    assert!(page.contains("# Tiny shop"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bridge_killed_during_a_call() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let held = held_navigation(&rig, &rig.client, "bridge").await;
    let pids = bridge_pids(&rig.sandbox);
    assert_eq!(pids.len(), 1, "one bridge per browser");
    std::process::Command::new("kill").args(["-9", &pids[0].to_string()]).status().expect("kill");
    answered_and_recovered(&rig, held, "bridge", "bridge killed", &["connection closed while the call was running"])
        .await;
    assert_ne!(bridge_pids(&rig.sandbox), pids, "a new bridge serves the browser");
    let snapshot = rig.client.ok("browser_snapshot", json!({})).await;
    assert!(snapshot.contains("# Slow page"), "{snapshot}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_debugger_detached_during_a_call() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let held = held_navigation(&rig, &rig.client, "detached").await;
    let tab = rig.tab_id("slow.html");
    // What the browser does when another debugger takes the tab, and what it then tells the
    // extension.
    rig.in_worker(
        &format!(
            "chrome.debugger.detach({{tabId: {tab}}}).then(() => sightline.onDebuggerDetach({{tabId: {tab}}}, 'target_closed'))"
        ),
    );
    answered_and_recovered(&rig, held, "detached", "debugger detached", &["the debugger was detached from tab"]).await;
    let snapshot = rig.client.ok("browser_snapshot", json!({})).await;
    assert!(snapshot.contains("# Slow page"), "the debugger is attached again: {snapshot}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_restarted_during_a_call() {
    let mut rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let held = held_navigation(&rig, &rig.client, "restart").await;
    rig.browser.take().expect("browser").kill();
    let (reply, took) = answered_within(held, FAULT_CAP, "browser restarted").await;
    eprintln!("browser restarted: the call in flight answered in {took:?}: {}", reply.text);
    assert!(reply.is_error && reply.text.contains("connection closed while the call was running"), "{}", reply.text);
    rig.browser = Some(Chromium::launch_with(&rig.sandbox, &[REMOTE_DEBUGGING, "about:blank"]).expect("relaunch"));
    let (_, took) = next_call_works(&rig.client, "browser_tabs", json!({})).await;
    eprintln!("browser restarted: the next call worked after {took:?}");
    let page = rig.client.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    assert!(page.contains("# Tiny shop"), "{page}");
    assert_eq!(hang_count(&rig, "restart"), 1, "the page was loaded once: {:?}", rig.server.events());
}

/// Fills `chrome.storage.session` until a write fails (at most 10,000 writes), from the
/// worker's own global, leaving the extension no room.
const FILL_SESSION_STORAGE: &str = "(async () => {
  let n = 0;
  for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 16]) {
    for (let i = 0; i < 2000; i++, n++) {
      try { await chrome.storage.session.set({ ['filler' + n]: 'x'.repeat(size) }); } catch { break; }
    }
  }
  return chrome.storage.session.getBytesInUse(null);
})()";

/// Makes every `chrome.storage.session.set` fail as a full storage does (until the property is
/// deleted again).
const REFUSE_WRITES: &str = "chrome.storage.session.set = () => \
  Promise.reject(new Error('Session storage quota bytes exceeded (a drill)')); true";

const EMPTY_FILLER: &str = "chrome.storage.session.get(null).then((all) => \
  chrome.storage.session.remove(Object.keys(all).filter((k) => k.startsWith('filler')))).then(() => true)";

#[tokio::test(flavor = "multi_thread")]
async fn a_full_session_storage_is_reported_and_a_revoke_is_never_undone_by_a_restart() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let shop = rig.tab_id("shop.html");
    let bytes = rig.in_worker(FILL_SESSION_STORAGE);
    eprintln!("session storage filled: {bytes} bytes in use");

    // The next call that has more to save (a new tab adds to the saved grants; a call that only
    // rewrites what is saved in as many bytes may still fit) says it could not.
    let second = rig.server.url("second.html");
    let page = c.call("browser_tabs", json!({"action": "new", "url": second})).await.expect("call");
    assert!(!page.is_error, "{}", page.text);
    assert!(page.text.contains("could not save its state"), "{}", page.text);
    assert!(page.text.contains("# Second page"), "the call itself worked: {}", page.text);
    let tabs = c.ok("browser_tabs", json!({})).await;
    assert!(tabs.contains("could not save its state"), "{tabs}");
    c.ok("browser_tabs", json!({"action": "close"})).await;
    c.ok("browser_tabs", json!({"action": "select", "tab": shop})).await;
    let page = c.ok("browser_navigate", json!({"url": second})).await;
    assert!(page.contains("# Second page"), "{page}");

    // The user stops sharing the tab while no write at all succeeds (a revoke shrinks what is
    // saved, so a full storage alone would let it through); the worker then restarts.
    rig.in_worker(REFUSE_WRITES);
    rig.in_worker(&format!("sightline.onActionClicked({shop})"));
    let saved =
        rig.in_worker("chrome.storage.session.get('sightline.grants').then((g) => g['sightline.grants'] ?? {})");
    eprintln!("saved grants after the revoke: {saved}");
    assert!(saved["tabs"].get(shop.to_string()).is_none(), "the revoked tab is saved as granted: {saved}");
    rig.in_worker("delete chrome.storage.session.set; true");
    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    service_worker::wake_with_console_message(&rig.devtools(), "second.html", "wake up").expect("wake the worker");
    let (tabs, _) = next_call_works(c, "browser_tabs", json!({})).await;
    assert!(!tabs.text.contains("Second page"), "a revoked tab came back after the restart: {}", tabs.text);
    let refused = c.call("browser_snapshot", json!({})).await.expect("call");
    assert!(refused.is_error, "the revoked tab is still refused: {}", refused.text);

    // With room again, saving works and the answers say nothing about it.
    assert_eq!(rig.in_worker(EMPTY_FILLER), json!(true));
    let page = c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let tabs = c.ok("browser_tabs", json!({})).await;
    assert!(!page.contains("could not save") && !tabs.contains("could not save"), "{page}\n{tabs}");
}
