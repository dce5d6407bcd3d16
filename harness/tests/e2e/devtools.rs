//! The Sightline panel inside real DevTools: a headful Chromium on a virtual display (Xvfb)
//! opens DevTools for every tab (`--auto-open-devtools-for-tabs`); an agent session navigates a
//! page and changes it; then, through the browser's DevTools endpoint, the test finds the
//! DevTools window of that tab, checks that the extension's panel is registered there, shows
//! it, reads the panel's own page (an out-of-process frame of the DevTools window) and finds
//! the session's calls and the delta, and saves the DevTools window as `target/ui/devtools.png`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::cdp::CdpConnection;
use sightline_harness::display::VirtualDisplay;
use sightline_harness::{EXTENSION_ID, Rig, paths, ref_of};

const WAIT: Duration = Duration::from_secs(30);

/// The id DevTools gives a panel an extension creates: its origin followed by its title.
fn panel_id() -> String {
    format!("chrome-extension://{EXTENSION_ID}Sightline")
}

/// Evaluates `expression` (awaiting a promise) in the target attached as `session`.
fn eval(cdp: &mut CdpConnection, session: &str, expression: &str) -> anyhow::Result<Value> {
    let params = json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
    let result = cdp.call(Some(session), "Runtime.evaluate", params)?;
    if let Some(exception) = result.get("exceptionDetails") {
        anyhow::bail!("evaluating {expression} failed: {exception}");
    }
    Ok(result["result"]["value"].clone())
}

/// Evaluates `expression` until it is truthy, at most [`WAIT`]; returns its value.
fn wait_for(cdp: &mut CdpConnection, session: &str, expression: &str) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let value = eval(cdp, session, expression).unwrap_or(Value::Null);
        if !matches!(value, Value::Null | Value::Bool(false)) {
            return value;
        }
        if Instant::now() > deadline {
            let body = eval(cdp, session, "document.body ? document.body.innerText : ''").unwrap_or_default();
            panic!("{expression} was still {value} after {WAIT:?}; the page reads:\n{body}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The browser's targets whose URL starts with `prefix`, as (target id, URL).
fn targets(cdp: &mut CdpConnection, prefix: &str) -> Vec<(String, String)> {
    let listed = cdp.call(None, "Target.getTargets", json!({})).expect("Target.getTargets");
    listed["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some((t["targetId"].as_str()?.to_owned(), t["url"].as_str()?.to_owned())))
        .filter(|(_, url)| url.starts_with(prefix))
        .collect()
}

fn attach(cdp: &mut CdpConnection, target: &str) -> String {
    let attached =
        cdp.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true})).expect("attach");
    attached["sessionId"].as_str().expect("a session id").to_owned()
}

/// What the DevTools front-end of a window knows about itself: the URL of the page it inspects,
/// the ids of its panels' tabs, and the title of the Sightline tab (null when it has none).
const FRONT_END: &str = "(async () => { \
    const UI = await import('./ui/legacy/legacy.js'); const SDK = await import('./core/sdk/sdk.js'); \
    const pane = UI.InspectorView.InspectorView.instance().tabbedPane; \
    const target = SDK.TargetManager.TargetManager.instance().primaryPageTarget(); \
    return { inspected: target ? target.inspectedURL() : '', tabs: pane.tabIds(), \
             title: pane.tabsById?.get(ID)?.title ?? null }; })()";

#[tokio::test(flavor = "multi_thread")]
async fn real_devtools_of_the_agents_tab_has_the_sightline_panel_showing_the_session() {
    let display = VirtualDisplay::start().expect("a virtual display");
    let site = paths::fixtures_dir().join("panel");
    let rig = Rig::serving_headful(site, display.name(), &[REMOTE_DEBUGGING, "--auto-open-devtools-for-tabs"])
        .await
        .expect("a headful browser with the extension and the host");
    let c = &rig.client;
    // The agent's session: a page, a look at it, a click that changes one line.
    let url = rig.server.url("shop.html");
    let opened = c.call("browser_navigate", json!({"url": url})).await.expect("navigate");
    assert!(!opened.is_error, "{}", opened.text);
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    let click = c.call("browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await.expect("click");
    assert!(click.text.contains("Basket: 1 item"), "{}", click.text);
    let tab = rig.tab_id("shop.html");

    let mut cdp = CdpConnection::connect(&rig.devtools()).expect("the browser's DevTools endpoint");
    // The DevTools window of the agent's tab: the front-end page that inspects the shop.
    let front_end = FRONT_END.replace("ID", &serde_json::to_string(&panel_id()).expect("json"));
    let deadline = Instant::now() + WAIT;
    let (window, session, seen) = 'found: loop {
        let mut inspected = Vec::new();
        for (id, _) in targets(&mut cdp, "devtools://devtools/") {
            let session = attach(&mut cdp, &id);
            let state = eval(&mut cdp, &session, &front_end).unwrap_or(Value::Null);
            // The extension's DevTools page registers the panel a moment after the window opens.
            let registered = state["tabs"].as_array().is_some_and(|tabs| tabs.contains(&json!(panel_id())));
            if state["inspected"].as_str() == Some(url.as_str()) && (registered || Instant::now() >= deadline) {
                break 'found (id, session, state);
            }
            inspected.push(state["inspected"].clone());
        }
        assert!(Instant::now() < deadline, "no DevTools window inspects {url}; those open inspect {inspected:?}");
        std::thread::sleep(Duration::from_millis(300));
    };
    // The panel is registered in that window, under its title.
    let tabs = seen["tabs"].as_array().cloned().unwrap_or_default();
    assert!(tabs.contains(&json!(panel_id())), "no Sightline panel among DevTools' tabs {tabs:?}");
    assert!(seen["title"].as_str().is_some_and(|t| t.contains("Sightline")), "{seen}");

    // Shown, it loads the panel page for this very tab, in a frame of its own.
    let show = format!(
        "(async () => {{ const UI = await import('./ui/legacy/legacy.js'); \
         const view = UI.InspectorView.InspectorView.instance(); await view.showPanel({id}); \
         return view.tabbedPane.selectedTabId; }})()",
        id = serde_json::to_string(&panel_id()).expect("json")
    );
    assert_eq!(eval(&mut cdp, &session, &show).expect("show the panel"), json!(panel_id()));
    let panel_url = format!("chrome-extension://{EXTENSION_ID}/panel/panel.html?tab={tab}");
    let deadline = Instant::now() + WAIT;
    let panel_target = loop {
        if let Some((id, _)) = targets(&mut cdp, &panel_url).into_iter().next() {
            break id;
        }
        let frames = targets(&mut cdp, "chrome-extension://");
        assert!(Instant::now() < deadline, "no frame at {panel_url}; the extension's frames: {frames:?}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let panel = attach(&mut cdp, &panel_target);

    // The panel shows the session: the agent's calls in order, the tab opened by an agent, and
    // the click's delta as a human diff.
    wait_for(&mut cdp, &panel, "document.querySelectorAll('.call').length >= 3");
    let tools =
        eval(&mut cdp, &panel, "[...document.querySelectorAll('.call')].map((c) => c.dataset.tool)").expect("tools");
    assert_eq!(tools, json!(["browser_navigate", "browser_snapshot", "browser_click"]));
    let grant = eval(&mut cdp, &panel, "document.querySelector('#grant').textContent").expect("grant");
    assert!(grant.as_str().is_some_and(|g| g.starts_with("Opened by an agent")), "{grant}");
    eval(&mut cdp, &panel, "document.querySelector('.call:nth-child(3)').click()").expect("select the click");
    let after = wait_for(
        &mut cdp,
        &panel,
        "[...document.querySelectorAll('#detail .row.changed .after')].map((a) => a.textContent).find((t) => t.includes('Basket'))",
    );
    assert_eq!(after, json!("Basket: 1 item"));

    // The DevTools window as a person sees it.
    let shot = cdp.call(Some(&session), "Page.captureScreenshot", json!({"format": "png"})).expect("screenshot");
    let png = base64_decode(shot["data"].as_str().expect("screenshot data"));
    let dir = paths::workspace_root().join("target/ui");
    std::fs::create_dir_all(&dir).expect("target/ui");
    std::fs::write(dir.join("devtools.png"), png).expect("write the screenshot");
    eprintln!("DevTools window {window} saved to {}", dir.join("devtools.png").display());
}

fn base64_decode(data: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(data).expect("base64")
}
