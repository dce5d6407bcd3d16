//! Each agent keeps to its own tabs, and a stop is a stop.
//!
//! A ref belongs to the tab it came from: after the person stops the agent on a tab from the
//! Sightline panel, the agent's next call without a tab is refused (it has no current tab until
//! it names one) and says the person stopped it, and the stopped tab's refs are refused on every
//! tab, so a click meant for "Delete account" cannot press "Archive all" elsewhere. A second MCP
//! session sees the first one's tab only as "in use by another agent" and can neither read it,
//! act on it, close it nor read its changes, until the person hands the tab over in the popup;
//! both agents are told in their next answer, and the panel shows who has it.

use std::time::Duration;

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::ui::ExtensionPage;
use sightline_harness::{McpClient, Rig, ref_of};

const WAIT: Duration = Duration::from_secs(10);

/// Whether the page reported `event` (fixture pages report what really happened to them).
fn happened(rig: &Rig, event: &str) -> bool {
    rig.server.events().iter().any(|e| e == event)
}

/// The mailbox, then the account page in a tab of its own (so the account page is current):
/// the mailbox's tab id and its "Archive all" ref, the account's tab id and its snapshot.
async fn mailbox_then_account(rig: &Rig) -> (i64, String, i64, sightline_harness::client::Reply) {
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("trust/archive.html")})).await;
    let mailbox = rig.tab_id("trust/archive.html");
    let archive = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    let archive_all = ref_of(&archive, "button", "Archive all");
    c.ok("browser_tabs", json!({"action": "new", "url": rig.server.url("trust/account.html")})).await;
    let account = rig.tab_id("trust/account.html");
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    (mailbox, archive_all, account, page)
}

#[tokio::test(flavor = "multi_thread")]
async fn after_the_person_stops_a_tab_its_refs_act_nowhere_and_the_agent_must_name_a_tab() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let (mailbox, archive_all, account, page) = mailbox_then_account(&rig).await;
    let delete = ref_of(&page, "button", "Delete account");
    assert_ne!(delete, archive_all, "one session's refs never share a number across tabs");

    // The person presses Stop in the Sightline panel of the account tab.
    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={account}"), 1120, 680).expect("panel");
    panel.wait_for("!document.getElementById('stop').hidden", WAIT).expect("the panel offers Stop");
    panel.click("#stop").expect("click Stop");
    panel.wait_for("document.getElementById('grant').textContent === 'Not shared'", WAIT).expect("stopped");
    panel.close().expect("close the panel");

    // The click meant for the stopped tab goes nowhere.
    let unnamed = c.call("browser_click", json!({"ref": delete})).await.expect("call");
    assert!(unnamed.is_error, "{}", unnamed.text);
    assert!(unnamed.text.contains(&format!("the person stopped you on tab {account}")), "{}", unnamed.text);
    assert!(unnamed.text.contains("no current tab"), "{}", unnamed.text);
    for tool in ["browser_snapshot", "browser_press_key"] {
        let args = if tool == "browser_press_key" { json!({"key": "Enter"}) } else { json!({}) };
        let reply = c.call(tool, args).await.expect("call");
        assert!(reply.is_error && reply.text.contains("no current tab"), "{tool}: {}", reply.text);
    }
    // Named onto the other tab, the stopped tab's ref is refused with where it came from.
    let named = c.call("browser_click", json!({"ref": delete, "tab": mailbox})).await.expect("call");
    assert!(named.is_error, "{}", named.text);
    assert!(
        named.text.contains(&format!("{delete} is a ref of tab {account}"))
            && named.text.contains("the person stopped you"),
        "{}",
        named.text
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!happened(&rig, "archived-all") && !happened(&rig, "deleted-account"), "{:?}", rig.server.events());

    // The agent names the mailbox: it acts there, with the mailbox's own refs.
    c.ok("browser_snapshot", json!({"tab": mailbox})).await;
    c.ok("browser_click", json!({"ref": archive_all})).await;
    assert!(rig.server.wait_for_event("archived-all", WAIT), "{:?}", rig.server.events());
    assert!(!happened(&rig, "deleted-account"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ref_of_another_tab_is_refused_with_the_tab_it_belongs_to() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let (mailbox, archive_all, account, _) = mailbox_then_account(&rig).await;
    // The mailbox's ref, used while the account tab is current.
    let reply = c.call("browser_click", json!({"ref": archive_all})).await.expect("call");
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains(&format!("{archive_all} is a ref of tab {mailbox}, not of tab {account}")),
        "{}",
        reply.text
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!happened(&rig, "archived-all") && !happened(&rig, "deleted-account"), "{:?}", rig.server.events());
}

/// The popup's answer about `tab`, as the person's own pages ask the worker.
fn status(rig: &Rig, tab: i64) -> Value {
    rig.in_worker(&format!("sightline.handlePageMessage({{panel: 'status', tab: {tab}}}, {{connected: true}})"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_agent_cannot_see_or_touch_the_first_ones_tab_until_the_person_hands_it_over() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let a = &rig.client;
    a.ok("browser_navigate", json!({"url": rig.server.url("trust/account.html")})).await;
    let account = rig.tab_id("trust/account.html");
    let page = a.call("browser_snapshot", json!({})).await.expect("snapshot");
    let delete = ref_of(&page, "button", "Delete account");

    let b = McpClient::connect(&rig.sandbox).await.expect("a second MCP client");
    b.ok("browser_navigate", json!({"url": rig.server.url("second.html")})).await;
    let listed = b.ok("browser_tabs", json!({})).await;
    assert!(listed.contains(&format!("- tab {account} [in use by another agent]\n")), "{listed}");
    assert!(!listed.contains("Account settings") && !listed.contains("account.html"), "{listed}");

    // Named, A's tab is refused to B by every kind of tool.
    for (tool, args) in [
        ("browser_snapshot", json!({"tab": account})),
        ("browser_click", json!({"tab": account, "ref": delete})),
        ("browser_tabs", json!({"action": "select", "tab": account})),
        ("browser_tabs", json!({"action": "close", "tab": account})),
        ("browser_find", json!({"tab": account, "text": "Delete"})),
        ("get_changes_since", json!({"tab": account})),
        ("browser_console_messages", json!({"tab": account})),
        ("browser_network_requests", json!({"tab": account})),
    ] {
        let reply = b.call(tool, args.clone()).await.expect("call");
        assert!(reply.is_error && reply.text.contains("in use by another agent"), "{tool} {args}: {}", reply.text);
    }
    // Its console and its changes do not reach B either.
    let console = b.ok("browser_console_messages", json!({})).await;
    assert!(!console.contains("ACCOUNT-PAGE-MARKER"), "{console}");
    let changes = b.ok("get_changes_since", json!({"checkpoint": "2000-01-01T00:00:00Z"})).await;
    assert!(!changes.contains("ACCOUNT-PAGE-MARKER") && !changes.contains("account.html"), "{changes}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!happened(&rig, "deleted-account"), "{:?}", rig.server.events());
    assert!(a.ok("browser_snapshot", json!({})).await.contains("Account settings"), "A still has its tab");

    // The person hands the tab to B in the popup.
    let before = status(&rig, account);
    let holder_a = before["tab"]["held_by"].as_str().expect("A holds the tab").to_owned();
    let sessions = before["sessions"].as_array().cloned().unwrap_or_default();
    let agent_b = sessions.iter().filter_map(|s| s["id"].as_str()).find(|id| *id != holder_a).expect("B").to_owned();
    let mut popup =
        ExtensionPage::open(&rig.devtools(), &format!("popup.html?tab={account}"), 340, 520).expect("popup");
    popup.wait_for("!document.getElementById('holder-box').hidden", WAIT).expect("the popup offers the agents");
    assert_eq!(popup.eval("document.getElementById('holder').value").unwrap(), json!(holder_a));
    popup.choose("#holder", &agent_b).expect("hand the tab to B");
    popup.wait_for(&format!("document.getElementById('holder').value === '{agent_b}'"), WAIT).expect("handed");
    popup.screenshot("popup-handover.png").expect("screenshot");
    popup.close().expect("close the popup");

    // B is told and may use it now; A is told and has no current tab.
    let told = b.ok("browser_tabs", json!({})).await;
    assert!(told.starts_with(&format!("! The person handed you tab {account}")), "{told}");
    assert!(b.ok("browser_snapshot", json!({"tab": account})).await.contains("Account settings"));
    let lost = a.call("browser_snapshot", json!({})).await.expect("call");
    assert!(lost.is_error, "{}", lost.text);
    assert!(lost.text.contains(&format!("The person handed tab {account} to another agent")), "{}", lost.text);
    assert!(lost.text.contains("no current tab"), "{}", lost.text);
    let old_ref = a.call("browser_click", json!({"ref": delete, "tab": account})).await.expect("call");
    assert!(old_ref.is_error && old_ref.text.contains("in use by another agent"), "{}", old_ref.text);

    // The panel shows who has the tab.
    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={account}"), 1120, 680).expect("panel");
    panel.wait_for(&format!("document.getElementById('holder').value === '{agent_b}'"), WAIT).expect("B shown");
    panel.screenshot("panel-holder.png").expect("screenshot");
    panel.close().expect("close the panel");
    assert!(!happened(&rig, "deleted-account"), "{:?}", rig.server.events());
}
