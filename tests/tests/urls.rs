//! Which URLs an agent may load in the user's browser (the URL matrix drill), and a tab shut
//! out of debugging that the agent can still leave.
//!
//! Only http, https and about:blank load; file: only once the user allows it; every other
//! scheme, whatever its case, is refused with the reason and the tab stays where it was.

use std::time::{Duration, Instant};

use serde_json::json;
use sightline_e2e::browser::REMOTE_DEBUGGING;
use sightline_e2e::{Rig, paths, service_worker};

#[tokio::test(flavor = "multi_thread")]
async fn every_url_outside_the_web_is_refused_and_the_tab_stays_where_it_was() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let extension_page = format!("chrome-extension://{}/manifest.json", sightline_e2e::EXTENSION_ID);
    let matrix = [
        ("file:///etc/hostname", "file: URLs are off"),
        ("FILE:///etc/hostname", "file: URLs are off"),
        ("view-source:file:///etc/hostname", "view-source: URLs are not loaded"),
        ("view-source:https://example.com/", "view-source: URLs are not loaded"),
        ("javascript:document.title='pwned'", "javascript: URLs are not loaded"),
        ("JavaScript:document.title='pwned'", "javascript: URLs are not loaded"),
        ("data:text/html,<h1>pwned</h1>", "data: URLs are not loaded"),
        ("blob:https://example.com/0b1c", "blob: URLs are not loaded"),
        ("chrome://version", "browser-internal pages are off limits"),
        ("Chrome://settings", "browser-internal pages are off limits"),
        (extension_page.as_str(), "browser-internal pages are off limits"),
        ("devtools://devtools/bundled/inspector.html", "browser-internal pages are off limits"),
        ("about:config", "only about:blank is loaded"),
    ];
    for (url, why) in matrix {
        let reply = c.call("browser_navigate", json!({"url": url})).await.expect("browser_navigate");
        assert!(reply.is_error && reply.text.contains(why), "{url}: {}", reply.text);
        let page = c.ok("browser_snapshot", json!({})).await;
        assert!(page.contains("# Tiny shop") && !page.contains("pwned"), "{url} moved the tab: {page}");
        assert!(hostname.trim().is_empty() || !page.contains(hostname.trim()), "{url} showed a local file");
    }
    let blank = c.ok("browser_navigate", json!({"url": "about:blank"})).await;
    assert!(blank.contains("about:blank"), "{blank}");
}

#[tokio::test(flavor = "multi_thread")]
async fn file_urls_load_once_the_user_allows_them() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let file = format!("file://{}", paths::fixtures_dir().join("second.html").display());
    let refused = c.call("browser_navigate", json!({"url": file})).await.expect("browser_navigate");
    assert!(refused.is_error && refused.text.contains("file: URLs are off"), "{}", refused.text);

    let devtools = rig.devtools();
    let allow = r#"chrome.storage.local.set({"sightline.options": {"allow_file_urls": true}})"#;
    service_worker::evaluate_in_extension_worker(&devtools, allow).expect("set the option");
    let page = c.ok("browser_navigate", json!({"url": file})).await;
    assert!(page.contains("# Second page"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_the_browser_shut_out_of_debugging_is_reported_and_can_be_left() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let devtools = rig.devtools();
    service_worker::navigate_page_elsewhere(&devtools, "shop.html", "chrome://version").expect("navigate away");

    // Once the tab shows the browser page, it cannot be read, and says so.
    let deadline = Instant::now() + Duration::from_secs(10);
    let refused = loop {
        let reply = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
        if reply.is_error || Instant::now() > deadline {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(refused.is_error && refused.text.contains("navigate it to a web page"), "{}", refused.text);
    // The tab list reports the committed URL, which follows a moment after the refusal.
    let deadline = Instant::now() + Duration::from_secs(10);
    let tabs = loop {
        let tabs = c.ok("browser_tabs", json!({})).await;
        if tabs.contains("chrome://version") || Instant::now() > deadline {
            break tabs;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(tabs.contains("chrome://version") && tabs.contains("(cannot be acted on here"), "{tabs}");

    // It can still be navigated away, and then everything works again.
    let back = c.ok("browser_navigate", json!({"url": rig.server.url("second.html")})).await;
    assert!(back.contains("# Second page"), "{back}");
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("# Second page"), "{page}");
}
