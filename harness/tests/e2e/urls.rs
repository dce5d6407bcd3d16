//! Which URLs an agent may load in the user's browser (the URL matrix drill), a tab shut out
//! of debugging that the agent can still leave, and back and forward, which obey the same rule.
//!
//! Only http, https and about:blank load; file: only once the user allows it; every other
//! scheme, whatever its case, is refused with the reason and the tab stays where it was.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::cdp::CdpConnection;
use sightline_harness::client::McpClient;
use sightline_harness::{Rig, paths, service_worker};

#[tokio::test(flavor = "multi_thread")]
async fn every_url_outside_the_web_is_refused_and_the_tab_stays_where_it_was() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let extension_page = format!("chrome-extension://{}/manifest.json", sightline_harness::EXTENSION_ID);
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

/// The person's own DevTools on one tab: each command in a session of its own, since the
/// tab's page may be in another renderer after each navigation.
struct Person {
    cdp: CdpConnection,
    target: String,
}

impl Person {
    /// DevTools on the tab showing a URL containing `url_part`.
    fn on(devtools: &str, url_part: &str) -> Person {
        let mut cdp = CdpConnection::connect(devtools).expect("DevTools");
        let targets = cdp.call(None, "Target.getTargets", json!({})).expect("the targets");
        let target = targets["targetInfos"]
            .as_array()
            .and_then(|all| {
                all.iter().find(|t| t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.contains(url_part)))
            })
            .and_then(|t| t["targetId"].as_str())
            .unwrap_or_else(|| panic!("no tab at {url_part}: {targets}"))
            .to_owned();
        Person { cdp, target }
    }

    fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let attached =
            self.cdp.call(None, "Target.attachToTarget", json!({"targetId": self.target, "flatten": true}))?;
        let session = attached["sessionId"].as_str().unwrap_or_default().to_owned();
        let result = self.cdp.call(Some(&session), method, params);
        let _ = self.cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
        result
    }

    /// Opens `url` in the tab and waits (at most 10 s) until the tab shows it.
    fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).expect("the person navigates");
        self.wait_until_current(url);
    }

    /// Waits (at most 10 s) until the tab shows `url`; the tab's history entries.
    fn wait_until_current(&mut self, url: &str) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            // A page between renderers answers nothing for a moment.
            let history = self.call("Page.getNavigationHistory", json!({})).unwrap_or_default();
            let current = usize::try_from(history["currentIndex"].as_i64().unwrap_or(-1)).ok();
            let entries = history["entries"].as_array().cloned().unwrap_or_default();
            if current.and_then(|i| entries.get(i)).is_some_and(|e| e["url"] == url) {
                return entries;
            }
            assert!(Instant::now() < deadline, "the tab never showed {url}: {history}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Waits (at most 10 s) until the agent's snapshot of its tab shows `heading`; that snapshot.
async fn until_the_agent_sees(c: &McpClient, heading: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
        if (!reply.is_error && reply.text.contains(heading)) || Instant::now() > deadline {
            return reply.text;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn back_and_forward_never_reach_a_page_the_agent_may_not_load() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let shop = rig.server.url("shop.html");
    c.ok("browser_navigate", json!({"url": shop})).await;
    // The person, in their own DevTools, opens a local file in the tab and then a web page: the
    // file sits in the tab's history between two pages the agent may read.
    let devtools = rig.devtools();
    let mut person = Person::on(&devtools, "shop.html");
    let file = format!("file://{}", paths::fixtures_dir().join("private.html").display());
    let quiet = rig.server.url("unchanged.html");
    person.navigate(&file);
    person.navigate(&quiet);
    let page = until_the_agent_sees(c, "# Quiet page").await;
    assert!(page.contains("# Quiet page"), "{page}");

    let back = c.call("browser_navigate", json!({"go": "back"})).await.expect("browser_navigate");
    assert!(back.is_error && back.text.contains("did not go back"), "{}", back.text);
    assert!(back.text.contains("private.html") && back.text.contains("file: URLs are off"), "why: {}", back.text);
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("# Quiet page") && !page.contains("Private mail"), "the tab moved: {page}");

    // The person goes back to the start: forward now passes through the file.
    let entries = person.wait_until_current(&quiet);
    let start = entries.iter().find(|e| e["url"] == shop.as_str()).map(|e| e["id"].clone()).expect("the shop's entry");
    person.call("Page.navigateToHistoryEntry", json!({"entryId": start})).expect("back to the start");
    person.wait_until_current(&shop);
    let page = until_the_agent_sees(c, "# Tiny shop").await;
    assert!(page.contains("# Tiny shop"), "{page}");
    let forward = c.call("browser_navigate", json!({"go": "forward"})).await.expect("browser_navigate");
    assert!(forward.is_error && forward.text.contains("did not go forward"), "{}", forward.text);
    assert!(forward.text.contains("file: URLs are off"), "why: {}", forward.text);
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("# Tiny shop") && !page.contains("Private mail"), "the tab moved: {page}");

    // A browser page in the history is refused as browser_navigate refuses it.
    person.navigate("chrome://version/");
    person.navigate(&quiet);
    until_the_agent_sees(c, "# Quiet page").await;
    let back = c.call("browser_navigate", json!({"go": "back"})).await.expect("browser_navigate");
    assert!(back.is_error && back.text.contains("browser-internal pages are off limits"), "{}", back.text);
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("# Quiet page"), "the tab moved: {page}");
}
