//! Drills for calls that take too long or are given up on (issue 11), in the real browser: a
//! page that stays busy after it commits or right after its load, a click that opens such a
//! page, a click whose page freezes and an agent that retries it, a call cancelled over MCP while
//! another holds the tab, and a call that runs out of time.
//!
//! Bounds here are caps the product states (the call's time limit, the 30 s load cap), never
//! measurements of speed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use sightline_harness::{McpClient, Rig, ref_of};

const WAIT: Duration = Duration::from_secs(10);

/// A server whose every request hangs until the test ends: a picture that never arrives keeps
/// a page's `load` from firing.
struct HangingServer {
    server: Arc<tiny_http::Server>,
    held: Arc<Mutex<Vec<tiny_http::Request>>>,
}

impl HangingServer {
    fn start() -> HangingServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a port on 127.0.0.1"));
        let held = Arc::new(Mutex::new(Vec::new()));
        let (srv, keep) = (server.clone(), held.clone());
        std::thread::spawn(move || {
            for request in srv.incoming_requests() {
                keep.lock().expect("not poisoned").push(request);
            }
        });
        HangingServer { server, held }
    }

    fn url(&self) -> String {
        let port = self.server.server_addr().to_ip().map(|a| a.port()).expect("an IP address");
        format!("http://127.0.0.1:{port}/hang")
    }
}

impl Drop for HangingServer {
    fn drop(&mut self) {
        if let Ok(mut held) = self.held.lock() {
            held.clear();
        }
        self.server.unblock();
    }
}

fn order_events(rig: &Rig) -> Vec<String> {
    rig.server.events().into_iter().filter(|e| e.starts_with("order:")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_busy_right_after_commit_is_answered_within_the_navigation_cap() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let started = Instant::now();
    let busy = c.call("browser_navigate", json!({"url": rig.server.url("trust/busy.html?s=90")})).await.unwrap();
    let took = started.elapsed();
    // The load cap is 30 s; the page then answers no probe, so nothing else is waited for.
    assert!(took < Duration::from_secs(45), "answered after {took:?}: {}", busy.text);
    assert!(busy.is_error, "{}", busy.text);
    assert!(busy.text.contains("had not finished loading after 30 s"), "{}", busy.text);
    assert!(busy.text.contains("has not answered the browser") && busy.text.contains("busy"), "{}", busy.text);
    assert!(busy.text.contains("Take a browser_snapshot in a while"), "{}", busy.text);

    // The extension is not stuck behind it: another site (another renderer) is served at once.
    let other = rig.server.url("shop.html").replace("127.0.0.1", "localhost");
    let opened = c.call("browser_tabs", json!({"action": "new", "url": other})).await.unwrap();
    assert!(!opened.is_error && opened.text.contains("# Tiny shop"), "{}", opened.text);
    let tabs = c.ok("browser_tabs", json!({})).await;
    assert!(tabs.contains("Busy page") || tabs.contains("busy.html"), "{tabs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_busy_right_after_its_load_is_answered_within_the_read_cap() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let started = Instant::now();
    let url = rig.server.url("trust/busy.html?s=60&when=load");
    let busy = c.call("browser_navigate", json!({"url": url})).await.unwrap();
    let took = started.elapsed();
    // It loads at once; reading it is capped at 15 s in all, however slowly it answers each step
    // (each capture command alone may wait 15 s, and the answer captures again).
    assert!(took < Duration::from_secs(25), "answered after {took:?}: {}", busy.text);
    assert!(busy.is_error, "{}", busy.text);
    assert!(busy.text.contains("too slowly to be read within 15 s"), "{}", busy.text);
    assert!(busy.text.contains("Take a browser_snapshot in a while"), "{}", busy.text);

    // The tab is free again: another site (another renderer) is served at once in a new tab.
    let other = rig.server.url("shop.html").replace("127.0.0.1", "localhost");
    let opened = c.call("browser_tabs", json!({"action": "new", "url": other})).await.unwrap();
    assert!(!opened.is_error && opened.text.contains("# Tiny shop"), "{}", opened.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_tab_on_a_page_busy_after_its_load_is_answered_within_the_read_cap() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let started = Instant::now();
    let url = rig.server.url("trust/busy.html?s=60&when=load");
    let busy = c.call("browser_tabs", json!({"action": "new", "url": url})).await.unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "answered after {took:?}: {}", busy.text);
    assert!(busy.is_error, "{}", busy.text);
    assert!(busy.text.starts_with("browser_tabs: opened tab "), "{}", busy.text);
    assert!(busy.text.contains(" at http://127.0.0.1:"), "{}", busy.text);
    assert!(busy.text.contains("too slowly to be read within 15 s"), "{}", busy.text);

    // The tab it opened is the agent's, and listed.
    let tabs = c.ok("browser_tabs", json!({})).await;
    assert!(tabs.contains("Busy page") || tabs.contains("busy.html"), "{tabs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_click_that_opens_a_busy_page_is_answered_within_the_navigation_caps() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let links = c.call("browser_navigate", json!({"url": rig.server.url("trust/busy-link.html")})).await.unwrap();
    assert!(!links.is_error, "{}", links.text);

    // A page busy once it has loaded: reading it holds to the 15 s read cap, as a navigation's.
    let started = Instant::now();
    let after = c.call("browser_click", json!({"ref": ref_of(&links, "link", "Busy after its load")})).await.unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "answered after {took:?}: {}", after.text);
    assert!(after.is_error, "{}", after.text);
    assert!(after.text.contains("browser_click ran and opened http://127.0.0.1"), "{}", after.text);
    assert!(after.text.contains("busy.html?s=60&when=load"), "{}", after.text);
    assert!(after.text.contains("too slowly to be read within 15 s"), "{}", after.text);
    assert!(after.text.contains("Take a browser_snapshot in a while"), "{}", after.text);
    // What the click did is not shown, so the next action on the tab waits for a look: a key
    // pressed blindly now would land on a page the agent has not seen.
    let blind = c.call("browser_press_key", json!({"key": "Enter"})).await.unwrap();
    assert!(blind.is_error, "{}", blind.text);
    assert!(blind.text.contains("browser_press_key was not run"), "{}", blind.text);
    assert!(blind.text.contains("you were not shown what it did"), "{}", blind.text);

    // A page busy before it can load: the 30 s load cap, then nothing more is waited for.
    let other = rig.server.url("trust/busy-link.html").replace("127.0.0.1", "localhost");
    let links = c.call("browser_tabs", json!({"action": "new", "url": other})).await.unwrap();
    assert!(!links.is_error, "{}", links.text);
    let started = Instant::now();
    let before = c.call("browser_click", json!({"ref": ref_of(&links, "link", "Busy before its load")})).await.unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(45), "answered after {took:?}: {}", before.text);
    assert!(before.is_error, "{}", before.text);
    assert!(before.text.contains("browser_click ran and opened http://localhost"), "{}", before.text);
    assert!(before.text.contains("had not finished loading after 30 s"), "{}", before.text);
    assert!(before.text.contains("has not answered the browser"), "{}", before.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_click_retried_while_its_page_is_frozen_runs_once() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    // The click gives up on its press after 15 s; the page stays frozen well past the retry.
    let page = c.call("browser_navigate", json!({"url": rig.server.url("trust/order.html?freeze=30")})).await.unwrap();
    let order = ref_of(&page, "button", "Place order");

    // The click's handler freezes the page for 30 s after telling the server.
    let first = c.call("browser_click", json!({"ref": order})).await.unwrap();
    assert!(first.is_error, "{}", first.text);
    assert!(
        first.text.contains("The click was sent to the page") && first.text.contains("may have run"),
        "{}",
        first.text
    );
    assert!(first.text.contains("Take a browser_snapshot"), "{}", first.text);
    assert!(rig.server.wait_for_event("order:1", WAIT), "{:?}", rig.server.events());

    // The agent retries at once: not run, and told why.
    let retry = c.call("browser_click", json!({"ref": order})).await.unwrap();
    assert!(retry.is_error, "{}", retry.text);
    assert!(retry.text.contains("browser_click was not run") && retry.text.contains("click"), "{}", retry.text);
    assert!(retry.text.contains("still not processed it"), "{}", retry.text);

    // Once the page is free, it ran the click exactly once.
    let deadline = Instant::now() + Duration::from_secs(180);
    let snapshot = loop {
        let snapshot = c.call("browser_snapshot", json!({})).await.unwrap();
        if !snapshot.is_error {
            break snapshot;
        }
        assert!(Instant::now() < deadline, "the page never came back: {}", snapshot.text);
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    assert!(snapshot.text.contains("Orders placed: 1"), "{}", snapshot.text);
    assert_eq!(order_events(&rig), vec!["order:1"]);

    // Having looked, the agent may act again, and the click runs.
    let again = c.call("browser_click", json!({"ref": order})).await.unwrap();
    assert!(!again.is_error && again.text.contains("Orders placed: 2"), "{}", again.text);
    assert_eq!(order_events(&rig), vec!["order:1", "order:2"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_call_frees_the_tab_and_a_queued_action_whose_caller_gave_up_never_runs() {
    let rig = Rig::start().await.expect("rig");
    let hanging = HangingServer::start();
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("trust/keys.html")})).await;
    c.ok("browser_press_key", json!({"key": "a"})).await;
    assert!(rig.server.wait_for_event("key:a", WAIT), "keys are reported: {:?}", rig.server.events());

    // A navigation whose page never finishes loading holds the tab (up to the 30 s load cap)…
    let url = format!("{}?hang={}", rig.server.url("trust/slow.html"), hanging.url());
    let slow = c.start("browser_navigate", json!({"url": url})).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    // …while a key press waits for the tab. Its caller gives up, then the navigation's does.
    let queued = c.start("browser_press_key", json!({"key": "k"})).await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    queued.cancel().await.unwrap();
    slow.cancel().await.unwrap();

    // The tab is free at once: well inside the load cap the navigation would have waited.
    let started = Instant::now();
    let snapshot = c.call("browser_snapshot", json!({})).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(15), "the tab stayed held: {:?}", started.elapsed());
    assert!(!snapshot.is_error && snapshot.text.contains("# Slow page"), "{}", snapshot.text);

    // The key press never ran; one asked for now does.
    c.ok("browser_press_key", json!({"key": "j"})).await;
    assert!(rig.server.wait_for_event("key:j", WAIT), "{:?}", rig.server.events());
    assert!(!rig.server.events().iter().any(|e| e == "key:k"), "a cancelled action ran: {:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_out_of_time_says_what_reached_the_page_and_frees_the_tab() {
    let rig = Rig::start().await.expect("rig");
    let hanging = HangingServer::start();
    let hurried = McpClient::connect_with(&rig.sandbox, &["--time-limit", "5"]).await.unwrap();
    hurried.ok("browser_navigate", json!({"url": rig.server.url("trust/keys.html")})).await;

    let url = format!("{}?hang={}", rig.server.url("trust/slow.html"), hanging.url());
    let started = Instant::now();
    let slow = hurried.call("browser_navigate", json!({"url": url})).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(15), "past its 5 s limit: {:?}", started.elapsed());
    assert!(slow.is_error, "{}", slow.text);
    assert!(slow.text.contains("ran out of time (its limit is 5 s)"), "{}", slow.text);
    assert!(slow.text.contains("after the navigation was sent to the page, so it may have run"), "{}", slow.text);

    // Nothing holds the tab any more.
    let snapshot = hurried.call("browser_snapshot", json!({})).await.unwrap();
    assert!(!snapshot.is_error && snapshot.text.contains("# Slow page"), "{}", snapshot.text);
}
