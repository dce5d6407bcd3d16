//! What happens when parts are missing or die: no browser, a killed bridge, a restarted
//! browser; and `doctor` naming the broken link.

use std::time::{Duration, Instant};

use serde_json::json;
use sightline_harness::browser::bridge_pids;
use sightline_harness::{Chromium, FixtureServer, McpClient, Sandbox, paths};

async fn poll_until_ok(client: &McpClient, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let r = client.call("browser_tabs", json!({})).await.expect("protocol");
        if !r.is_error {
            return r.text;
        }
        assert!(Instant::now() < deadline, "no recovery within {timeout:?}: {}", r.text);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_browser_every_tool_says_what_to_do_and_a_late_browser_is_picked_up() {
    paths::require_artefacts();
    let sandbox = Sandbox::new().unwrap();
    sandbox.install_host().unwrap();
    let client = McpClient::connect(&sandbox).await.unwrap();
    for (tool, args) in
        [("browser_tabs", json!({})), ("browser_snapshot", json!({})), ("browser_click", json!({"ref": "e1"}))]
    {
        let r = client.call(tool, args).await.unwrap();
        assert!(r.is_error, "{tool} without a browser must fail");
        assert!(r.text.contains("No browser is connected") && r.text.contains("doctor"), "{tool}: {}", r.text);
    }
    // The browser starts after the MCP client: the same client reaches it.
    let _browser = Chromium::launch(&sandbox).unwrap();
    poll_until_ok(&client, Duration::from_secs(30)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_bridge_and_a_restarted_browser_are_recovered_from() {
    paths::require_artefacts();
    let sandbox = Sandbox::new().unwrap();
    sandbox.install_host().unwrap();
    let server = FixtureServer::start(paths::fixtures_dir()).unwrap();
    let browser = Chromium::launch(&sandbox).unwrap();
    let client = McpClient::connect(&sandbox).await.unwrap();
    client.wait_for_browser(Duration::from_secs(30)).await.unwrap();
    client.ok("browser_navigate", json!({"url": server.url("shop.html")})).await;

    // Kill the bridge: the extension reconnects, the browser spawns a new bridge, the client
    // finds it.
    let pids = bridge_pids(&sandbox);
    assert_eq!(pids.len(), 1, "one bridge per browser");
    std::process::Command::new("kill").args(["-9", &pids[0].to_string()]).status().unwrap();
    let listing = poll_until_ok(&client, Duration::from_secs(30)).await;
    assert!(listing.contains("Tiny shop"), "the agent's tab survives a bridge crash: {listing}");
    assert_ne!(bridge_pids(&sandbox), pids, "a new bridge serves the browser");

    // Restart the browser on the same profile: the client recovers without restarting.
    browser.kill();
    let _browser = Chromium::launch(&sandbox).unwrap();
    poll_until_ok(&client, Duration::from_secs(30)).await;
    let page = client.ok("browser_navigate", json!({"url": server.url("second.html")})).await;
    assert!(page.contains("# Second page"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_names_the_missing_manifest_and_the_missing_extension_and_then_says_all_is_well() {
    paths::require_artefacts();
    let sandbox = Sandbox::new().unwrap();

    let (ok, report) = sandbox.doctor().unwrap();
    assert!(!ok, "{report}");
    assert!(report.contains("FAIL") && report.contains("manifest") && report.contains("missing"), "{report}");
    assert!(report.contains("sightline-host install --user-data-dir"), "the fix is printed: {report}");

    sandbox.install_host().unwrap();
    let (ok, report) = sandbox.doctor().unwrap();
    assert!(!ok, "{report}");
    assert!(report.contains("FAIL extension connected: no browser"), "{report}");
    assert!(report.contains("Load unpacked"), "{report}");

    let _browser = Chromium::launch(&sandbox).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (ok, report) = sandbox.doctor().unwrap();
        if ok {
            assert!(report.contains("All is well"), "{report}");
            assert!(report.contains("extension connected: version"), "{report}");
            break;
        }
        assert!(Instant::now() < deadline, "doctor never passed:\n{report}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_registration_not_in_use_is_a_note_while_the_extension_is_connected() {
    let rig = sightline_harness::Rig::start().await.unwrap();
    // Chromium's default profile exists but has no registration: the user registered the
    // --user-data-dir profile the browser actually runs with.
    let default_profile = rig.sandbox.root().join("home/.config/chromium");
    std::fs::create_dir_all(&default_profile).unwrap();

    let (ok, report) = rig.sandbox.doctor_with(&[]).unwrap();
    assert!(ok, "a connected extension with another browser unregistered is not broken:\n{report}");
    assert!(report.contains("ok   extension connected: version"), "{report}");
    let note =
        report.lines().find(|l| l.starts_with("note ") && l.contains("manifest")).unwrap_or_else(|| panic!("{report}"));
    assert!(note.contains("chromium") && note.contains("missing"), "{note}");
    assert!(report.contains("to use that browser too: sightline-host install --browser chromium"), "{report}");
    assert!(!report.contains("FAIL"), "{report}");

    // Asked about that browser by name, the missing registration is a failure again.
    let (ok, report) = rig.sandbox.doctor_with(&["--browser", "chromium"]).unwrap();
    assert!(!ok, "{report}");
    assert!(report.contains("FAIL") && report.contains("missing"), "{report}");
}
