//! The whole path, for real: an MCP client drives Debian's Chromium through `sightline-host
//! mcp`, the bridge the browser spawned, and the extension.

use std::time::Duration;

use serde_json::json;
use sightline_harness::{Rig, ref_of};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn navigate_snapshot_click_type_and_keys_act_on_the_real_page() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let shop = rig.server.url("shop.html");

    let page = c.call("browser_navigate", json!({"url": shop})).await.unwrap();
    assert!(!page.is_error, "{}", page.text);
    // The capture's profile: each CDP method's own wait, for the bench's per-stage table (a new
    // document is always captured afresh).
    let stats = page.structured.as_ref().map(|s| s["stats"].clone()).unwrap_or_default();
    let waits = stats["capture_by_method"].as_object().cloned().unwrap_or_default();
    assert!(waits.get("DOMSnapshot.captureSnapshot").and_then(|ms| ms.as_f64()).is_some(), "no wait: {stats}");
    // The frame tree and layout metrics the probe read just before are not asked for again.
    for method in ["Page.getFrameTree", "Page.getLayoutMetrics"] {
        assert!(!waits.contains_key(method), "the capture asked again for {method}: {stats}");
    }
    // Roles and names come from the DOM snapshot: no accessibility tree is asked for.
    assert!(!waits.contains_key("Accessibility.getFullAXTree"), "the capture asked for a tree: {stats}");
    assert!(stats["probe_ms"].as_f64().is_some() && stats["capture_reused"].is_null(), "{stats}");
    assert!(page.text.contains("# Tiny shop"), "{}", page.text);
    assert!(page.text.contains("Basket: 0 items"), "{}", page.text);

    // The snapshot's structured content names every actionable element with a ref.
    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    let facts = snap.structured.clone().expect("structuredContent");
    assert_eq!(facts["title"], "Tiny shop");
    let buy = ref_of(&snap, "button", "Add to basket");

    let after_click = c.call("browser_click", json!({"ref": buy})).await.unwrap();
    assert!(rig.server.wait_for_event("bought:1", WAIT), "the page saw no click: {:?}", rig.server.events());
    assert!(after_click.text.contains("Basket: 1 items"), "{}", after_click.text);

    let search = ref_of(&snap, "textbox", "Search");
    let typed = c.call("browser_type", json!({"ref": search, "text": "red shoes", "submit": true})).await.unwrap();
    assert!(rig.server.wait_for_event("searched:red shoes", WAIT), "{:?}", rig.server.events());
    assert!(typed.text.contains("Results for red shoes"), "typing replaces the old value: {}", typed.text);

    let gift = ref_of(&snap, "checkbox", "Gift wrap");
    let checked = c.call("browser_click", json!({"ref": gift})).await.unwrap();
    assert!(rig.server.wait_for_event("gift:true", WAIT));
    // Actions answer with what changed: here, the checkbox's state.
    assert!(checked.text.contains(&format!("~ {gift} checkbox \"Gift wrap\" → checked")), "{}", checked.text);
    assert_eq!(checked.structured.clone().unwrap()["kind"], "delta");

    c.ok("browser_press_key", json!({"key": "Escape"})).await;
    assert!(rig.server.wait_for_event("key:Escape", WAIT));
}

#[tokio::test(flavor = "multi_thread")]
async fn links_history_and_stale_refs() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let first = c.call("browser_navigate", json!({"url": rig.server.url("shop.html")})).await.unwrap();
    let buy = ref_of(&first, "button", "Add to basket");
    let link = ref_of(&first, "link", "Second page");

    let second = c.ok("browser_click", json!({"ref": link})).await;
    assert!(second.contains("# Second page"), "clicking a link follows it: {second}");

    // A ref from the page we left is refused with the reason, never clicked on the new page.
    let stale = c.call("browser_click", json!({"ref": buy})).await.unwrap();
    assert!(stale.is_error && stale.text.contains("navigated away"), "{}", stale.text);

    let back = c.ok("browser_navigate", json!({"go": "back"})).await;
    assert!(back.contains("# Tiny shop") && !back.contains("had not finished loading"), "{back}");
    let forward = c.ok("browser_navigate", json!({"go": "forward"})).await;
    assert!(forward.contains("# Second page"), "{forward}");
    let reloaded = c.ok("browser_navigate", json!({"go": "reload"})).await;
    assert!(reloaded.contains("# Second page"), "{reloaded}");

    let unknown = c.call("browser_click", json!({"ref": "e999"})).await.unwrap();
    assert!(unknown.is_error && unknown.text.contains("unknown"), "{}", unknown.text);
    let bad = c.call("browser_navigate", json!({})).await.unwrap();
    assert!(bad.is_error && bad.text.contains("give `url`"), "{}", bad.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_calls_are_refused_with_the_reason() {
    let rig = Rig::start().await.expect("rig");
    let err = rig.client.call("browser_click", json!({"ref": "e1", "color": "red"})).await;
    let message = match err {
        Err(e) => format!("{e:#}"),
        Ok(r) => {
            assert!(r.is_error, "an unknown argument must not be ignored: {}", r.text);
            r.text
        }
    };
    assert!(message.contains("color"), "the error names the bad argument: {message}");
    let err = rig.client.call("browser_type", json!({"ref": "e1"})).await;
    let message = match err {
        Err(e) => format!("{e:#}"),
        Ok(r) => r.text,
    };
    assert!(message.contains("text"), "the error names the missing argument: {message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn only_tabs_the_agent_opened_are_visible_and_tabs_can_be_managed() {
    // The browser starts with the user's own tab open; the agent must never see it.
    let rig = Rig::start_with(&["{server}private.html"]).await.expect("rig");
    let c = &rig.client;
    let empty = c.ok("browser_tabs", json!({})).await;
    assert!(empty.contains("No tabs yet") && !empty.contains("private"), "{empty}");
    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    assert!(snap.is_error && !snap.text.contains("Private mail"), "{}", snap.text);

    let opened = c.ok("browser_tabs", json!({"action": "new", "url": rig.server.url("shop.html")})).await;
    assert!(opened.contains("# Tiny shop"), "{opened}");
    c.ok("browser_tabs", json!({"action": "new", "url": rig.server.url("second.html")})).await;
    let list = c.call("browser_tabs", json!({})).await.unwrap();
    let tabs = list.structured.clone().unwrap()["tabs"].as_array().cloned().unwrap();
    assert_eq!(tabs.len(), 2, "{}", list.text);
    assert!(!list.text.contains("private"), "{}", list.text);
    let shop_tab = tabs.iter().find(|t| t["title"] == "Tiny shop").unwrap()["tab"].as_i64().unwrap();

    let selected = c.ok("browser_tabs", json!({"action": "select", "tab": shop_tab})).await;
    assert!(selected.contains(&format!("tab {shop_tab} (current)")), "{selected}");
    let snap = c.ok("browser_snapshot", json!({})).await;
    assert!(snap.contains("# Tiny shop"), "{snap}");

    let not_ours = c.call("browser_tabs", json!({"action": "select", "tab": 987654})).await.unwrap();
    assert!(not_ours.is_error && not_ours.text.contains("not shared"), "{}", not_ours.text);

    let closed = c.call("browser_tabs", json!({"action": "close", "tab": shop_tab})).await.unwrap();
    assert_eq!(closed.structured.unwrap()["tabs"].as_array().unwrap().len(), 1, "{}", closed.text);
}
