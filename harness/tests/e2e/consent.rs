//! Consent in the user's real browser, and keeping the agent's place: the agent reaches only
//! tabs it opened or the user shared; cancelling the debugging bar is a stop until the user
//! shares again; a tab nobody shared is refused by every tool, and a tab that is unshared takes
//! its logs with it; a session does not use another session's tabs, and each session's
//! tabs sit in a group of their own; after the extension's worker restarts, or its bridge is
//! killed, a session goes on at its tab. A tab a page in the agent's tab opens is the agent's;
//! one opened from a tab nobody shared is not.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::{REMOTE_DEBUGGING, bridge_pids};
use sightline_harness::cdp::CdpConnection;
use sightline_harness::client::Reply;
use sightline_harness::{McpClient, Rig, ref_named, ref_of, service_worker};

const WAIT: Duration = Duration::from_secs(10);

/// Opens a tab the agent was never given, through the test's own DevTools connection.
fn open_unshared_tab(rig: &Rig, url: &str) {
    let mut cdp = CdpConnection::connect(&rig.devtools()).expect("devtools");
    cdp.call(None, "Target.createTarget", json!({"url": url})).expect("create a tab");
}

/// What a person's click on the toolbar button delivers: share the tab, or stop sharing it.
fn toolbar_click(rig: &Rig, tab: i64) {
    rig.in_worker(&format!("sightline.onActionClicked({tab})"));
}

/// Polls `tool` until it succeeds (at most 30 s), for a worker or bridge coming back.
async fn until_ok(client: &McpClient, tool: &str, args: Value) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = client.call(tool, args.clone()).await.expect("the call reaches the server");
        if !reply.is_error || Instant::now() > deadline {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_the_debugging_bar_is_a_stop_until_the_user_shares_again() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let tab = rig.tab_id("shop.html");
    // What Chrome delivers when the user cancels the "is debugging this browser" bar.
    rig.in_worker(&format!("sightline.onDebuggerDetach({{tabId: {tab}}}, 'canceled_by_user')"));

    for (tool, args) in [
        ("browser_snapshot", json!({})),
        ("browser_tabs", json!({"action": "new"})),
        ("browser_navigate", json!({"url": rig.server.url("second.html")})),
    ] {
        let reply = c.call(tool, args.clone()).await.expect("call");
        assert!(reply.is_error, "{tool} {args} after the stop: {}", reply.text);
        assert!(reply.text.contains("the user stopped Sightline"), "{tool}: {}", reply.text);
    }
    let named = c.call("browser_snapshot", json!({"tab": tab})).await.expect("call");
    assert!(named.is_error && named.text.contains("cancelled Sightline's debugging session"), "{}", named.text);

    // The user shares the tab again: the agent may act, and open tabs, again.
    toolbar_click(&rig, tab);
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("# Tiny shop"), "{page}");
    let opened = c.ok("browser_tabs", json!({"action": "new"})).await;
    assert!(opened.contains("opened by you"), "{opened}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_nobody_shared_is_refused_by_every_tool_and_an_unshared_tab_takes_its_logs_with_it() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("second.html")})).await;
    open_unshared_tab(&rig, &rig.server.url("shop.html?unshared"));
    let has_unshared =
        "chrome.tabs.query({}).then((t) => t.some((x) => (x.url || x.pendingUrl || '').includes('?unshared')))";
    let tab = tab_appears(&rig, "shop.html?unshared").await;
    for (tool, args) in [
        ("browser_snapshot", json!({"tab": tab})),
        ("browser_navigate", json!({"tab": tab, "url": rig.server.url("second.html")})),
        ("browser_navigate", json!({"tab": tab, "go": "back"})),
        ("browser_click", json!({"tab": tab, "ref": "e1"})),
        ("browser_type", json!({"tab": tab, "ref": "e2", "text": "x"})),
        ("browser_press_key", json!({"tab": tab, "key": "Enter"})),
        ("browser_find", json!({"tab": tab, "text": "basket"})),
        ("browser_user_selection", json!({"tab": tab})),
        ("browser_tabs", json!({"action": "select", "tab": tab})),
        ("browser_tabs", json!({"action": "close", "tab": tab})),
    ] {
        let reply = c.call(tool, args.clone()).await.expect("call");
        assert!(reply.is_error && reply.text.contains("is not shared with Sightline"), "{tool} {args}: {}", reply.text);
    }
    let listed = c.ok("browser_tabs", json!({})).await;
    assert!(!listed.contains(&tab.to_string()), "{listed}");
    assert_eq!(rig.in_worker(has_unshared), json!(true), "the tab is still open");

    // A shared tab's messages can be read; once the user unshares it, they cannot.
    toolbar_click(&rig, tab);
    let deadline = Instant::now() + WAIT;
    let shared_page = loop {
        let page = c.call("browser_snapshot", json!({"tab": tab})).await.expect("call");
        if !page.is_error || Instant::now() > deadline {
            break page;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(shared_page.text.contains("# Tiny shop"), "{}", shared_page.text);
    service_worker::wake_with_console_message(&rig.devtools(), "shop.html?unshared", "SHARED-TAB-MARKER")
        .expect("log in the shared tab");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let logs = c.ok("browser_console_messages", json!({})).await;
    assert!(logs.contains("SHARED-TAB-MARKER"), "{logs}");
    toolbar_click(&rig, tab);
    let logs = c.ok("browser_console_messages", json!({})).await;
    assert!(!logs.contains("SHARED-TAB-MARKER"), "an unshared tab's messages are no longer readable: {logs}");
    let report = c.ok("get_changes_since", json!({"checkpoint": "2000-01-01T00:00:00Z"})).await;
    assert!(!report.contains("SHARED-TAB-MARKER") && !report.contains("shop.html?unshared"), "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_keeps_to_its_own_tabs_in_a_group_of_its_own() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let a = &rig.client;
    a.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let a_tab = rig.tab_id("shop.html");

    let b = McpClient::connect(&rig.sandbox).await.expect("a second MCP client");
    let nothing = b.call("browser_snapshot", json!({})).await.expect("call");
    assert!(nothing.is_error && nothing.text.contains("no tab to act on yet"), "{}", nothing.text);
    let own = b.ok("browser_navigate", json!({"url": rig.server.url("second.html")})).await;
    assert!(own.contains("# Second page"), "{own}");
    let listed = b.ok("browser_tabs", json!({})).await;
    assert!(listed.contains(&format!("tab {a_tab} [in use by another agent]")), "{listed}");
    assert!(listed.contains("(current) [opened by you]"), "{listed}");
    // Even named, the other session's tab is not used (harness/tests/e2e/custody.rs has the rest).
    let named = b.call("browser_snapshot", json!({"tab": a_tab})).await.expect("call");
    assert!(named.is_error && named.text.contains("in use by another agent"), "{}", named.text);

    let groups = rig.in_worker("chrome.tabGroups.query({}).then((g) => g.map((x) => x.title))");
    assert_eq!(groups, json!(["Sightline: rmcp", "Sightline: rmcp"]), "one group per session");
    b.close().await.expect("close the second session");
    let deadline = Instant::now() + WAIT;
    let mut groups = Value::Null;
    while Instant::now() < deadline {
        groups = rig.in_worker("chrome.tabGroups.query({}).then((g) => g.length)");
        if groups == json!(1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(groups, json!(1), "the ended session's group is removed");
}

#[tokio::test(flavor = "multi_thread")]
async fn after_the_worker_restarts_a_session_goes_on_at_its_tab_and_old_refs_say_why_they_are_gone() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let first = c.call("browser_navigate", json!({"url": rig.server.url("shop.html")})).await.expect("navigate");
    let buy = ref_of(&first, "button", "Add to basket");

    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    service_worker::wake_with_console_message(&rig.devtools(), "shop.html", "wake up").expect("wake it");
    let page = until_ok(c, "browser_snapshot", json!({})).await;
    assert!(!page.is_error, "{}", page.text);
    assert!(
        page.text.contains("# Tiny shop") && page.text.contains("full page: the extension restarted"),
        "{}",
        page.text
    );

    let old = c.call("browser_click", json!({"ref": buy})).await.expect("click");
    assert!(old.text.starts_with(&format!("Not run: {buy} is from before the extension restarted")), "{}", old.text);
    assert!(!rig.server.events().iter().any(|e| e.starts_with("bought")), "nothing was clicked");
    let fresh = ref_of(&old, "button", "Add to basket");
    assert_ne!(fresh, buy, "no ref number is reused");
    c.ok("browser_click", json!({"ref": fresh})).await;
    assert!(rig.server.wait_for_event("bought:1", WAIT), "{:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn after_the_bridge_is_killed_a_session_goes_on_where_it_was() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let first = c.call("browser_navigate", json!({"url": rig.server.url("shop.html")})).await.expect("navigate");
    let buy = ref_of(&first, "button", "Add to basket");
    for pid in bridge_pids(&rig.sandbox) {
        let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    let clicked = until_ok(c, "browser_click", json!({"ref": buy})).await;
    assert!(!clicked.is_error, "{}", clicked.text);
    assert!(rig.server.wait_for_event("bought:1", WAIT), "{:?}", rig.server.events());
    let events: Vec<String> = rig.server.events().into_iter().filter(|e| e.starts_with("bought")).collect();
    assert_eq!(events, ["bought:1"], "the click ran once");
}

/// Waits until the browser has a tab whose URL contains `url_part`; its id.
async fn tab_appears(rig: &Rig, url_part: &str) -> i64 {
    let query = format!(
        "chrome.tabs.query({{}}).then((t) => t.some((x) => (x.url || x.pendingUrl || '').includes({})))",
        Value::String(url_part.to_owned())
    );
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline && rig.in_worker(&query) != json!(true) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    rig.tab_id(url_part)
}

/// A tab a page in the agent's tab opens (`window.open`, a `target="_blank"` link) is the
/// agent's as its opener is: the agent is told (in the click's answer, or the next one if the
/// browser reported the tab later), it is listed as its own, and it can be selected and read.
/// A tab a page in a tab nobody shared opens stays out of reach, and nobody is told of it.
#[tokio::test(flavor = "multi_thread")]
async fn tabs_the_agents_pages_open_are_its_own_and_other_pages_tabs_are_not() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/opens-tabs.html").await;
    let opener = rig.tab_id("actions/opens-tabs.html");
    for (name, via) in
        [("Open the second page in a window", "via=window-open"), ("Second page in a new tab", "via=link")]
    {
        let clicked = c.call("browser_click", json!({"ref": ref_named(&page, name)})).await.expect("click");
        assert!(!clicked.is_error, "{}", clicked.text);
        let tab = tab_appears(&rig, via).await;
        let listed = c.call("browser_tabs", json!({"action": "list"})).await.expect("list");
        let told = format!("The page in tab {opener} opened tab {tab} at ");
        assert!(clicked.text.contains(&told) || listed.text.contains(&told), "{}\n{}", clicked.text, listed.text);
        assert!(listed.text.contains(&format!("- tab {tab} [opened by you]")), "{}", listed.text);
        assert!(listed.text.contains(&format!("- tab {opener} (current)")), "the current tab stays: {}", listed.text);
        let selected = c.ok("browser_tabs", json!({"action": "select", "tab": tab})).await;
        assert!(selected.contains(&format!("- tab {tab} (current)")), "{selected}");
        let second = c.ok("browser_snapshot", json!({})).await;
        assert!(second.contains("# Second page") && second.contains(via), "{second}");
        c.ok("browser_tabs", json!({"action": "select", "tab": opener})).await;
    }

    // The same page in a tab nobody shared opens a window: not the agent's.
    open_unshared_tab(&rig, &rig.server.url("actions/opens-tabs.html?unshared"));
    let unshared = tab_appears(&rig, "opens-tabs.html?unshared").await;
    let mut cdp = CdpConnection::connect(&rig.devtools()).expect("devtools");
    let targets = cdp.call(None, "Target.getTargets", json!({})).expect("targets");
    let target = targets["targetInfos"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["url"].as_str().is_some_and(|u| u.contains("?unshared"))))
        .map(|t| t["targetId"].clone())
        .expect("the unshared tab's target");
    let attached =
        cdp.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true})).expect("attach");
    let session = attached["sessionId"].as_str().expect("session").to_owned();
    let open = json!({"expression": "window.open('../second.html?via=unshared-opener'); 1", "userGesture": true});
    cdp.call(Some(&session), "Runtime.evaluate", open).expect("window.open");
    let popup = tab_appears(&rig, "via=unshared-opener").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let listed = c.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(!listed.contains(&popup.to_string()) && !listed.contains(&unshared.to_string()), "{listed}");
    let refused = c.call("browser_snapshot", json!({"tab": popup})).await.expect("call");
    assert!(refused.is_error && refused.text.contains("is not shared with Sightline"), "{}", refused.text);
}
