//! Recording a capture of a page over direct CDP: the extension's own capture plan
//! (`sightline_core::capture::plan`) after the extension's own settling script, plus the page's
//! ground truth, saved as one JSON file that `sightline_core::capture::Capture` reads.
//!
//! The capture and its ground truth must describe the same document: a page that navigates
//! away while it is recorded (offline, an ad-blocker check that gives up redirects to a page
//! that cannot load) is recorded again as it is then, so the two never disagree.

use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};
use sightline_core::capture::plan::{CapturePlan, RolesFrom};

use crate::cdp::CdpBrowser;

const GROUND_TRUTH: &str = include_str!("ground_truth.js");

/// The settling script the extension runs before every capture, with the same limits (100 ms
/// quiet, 2 s cap).
fn settle_script() -> String {
    include_str!("../../extension/runtime/src/hooks/settle.js").replace("QUIET", "100").replace("CAP", "2000")
}

/// Loads `url` in a fresh tab and records its capture and ground truth.
pub fn record(browser: &mut CdpBrowser, url: &str) -> anyhow::Result<Value> {
    let session = browser.open_page()?;
    let cdp = &mut browser.cdp;
    let s = Some(session.as_str());
    cdp.call(s, "Page.enable", json!({}))?;
    cdp.call(s, "Runtime.enable", json!({}))?;
    cdp.call(s, "Target.setAutoAttach", json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}))?;
    cdp.call(s, "Page.navigate", json!({"url": url}))?;
    let _ = cdp.wait_event("Page.loadEventFired", Duration::from_secs(30), |e| e["sessionId"] == session.as_str());
    for _ in 0..ATTEMPTS - 1 {
        let before = main_loader(cdp, &session)?;
        let recorded = record_once(cdp, &session, url)?;
        if main_loader(cdp, &session)? == before {
            return Ok(recorded);
        }
        eprintln!("capture: {url} navigated away while it was recorded; recording it again as it is now");
        let _ = cdp.wait_event("Page.loadEventFired", Duration::from_secs(10), |e| e["sessionId"] == session.as_str());
    }
    record_once(cdp, &session, url)
}

/// Recordings of one page, at most, when it keeps navigating away while it is recorded.
const ATTEMPTS: usize = 3;

/// The loader id of the main frame's current document.
fn main_loader(cdp: &mut crate::cdp::CdpConnection, session: &str) -> anyhow::Result<String> {
    let tree = cdp.call(Some(session), "Page.getFrameTree", json!({}))?;
    Ok(tree["frameTree"]["frame"]["loaderId"].as_str().unwrap_or_default().to_owned())
}

/// Settles the page, then records its capture and ground truth once.
fn record_once(cdp: &mut crate::cdp::CdpConnection, session: &str, url: &str) -> anyhow::Result<Value> {
    let s = Some(session);
    cdp.call(s, "Runtime.evaluate", json!({"expression": settle_script(), "awaitPromise": true}))?;

    let children: Vec<String> = cdp
        .take_events()
        .into_iter()
        .filter(|e| e["method"] == "Target.attachedToTarget" && e["params"]["targetInfo"]["type"] == "iframe")
        .filter_map(|e| e["params"]["sessionId"].as_str().map(str::to_owned))
        .collect();
    // Chrome's own trees are kept: the derived-semantics gate measures the engine against them.
    let mut plan = CapturePlan::new(children, RolesFrom::Chrome);
    loop {
        let requests = plan.requests();
        if requests.is_empty() {
            break;
        }
        for request in requests {
            let target = request.session.as_deref().unwrap_or(session);
            let timeout = Duration::from_millis(u64::from(request.timeout_ms) * 2);
            let reply = cdp.call_with_timeout(Some(target), request.method, request.params.clone(), timeout);
            if request.required
                && let Err(e) = &reply
            {
                anyhow::bail!("{} failed: {e:#}", request.method);
            }
            plan.reply(request.id, reply.ok());
        }
    }
    let parts = plan.finish()?;
    let mut recorded = parts.to_json();
    for (child, parts) in recorded["children"].as_array_mut().into_iter().flatten().zip(&parts.children) {
        let session = parts.session.as_deref().context("an iframe's session")?;
        child["groundTruth"] = ground_truth(cdp, session)?;
    }
    let title = cdp.call(s, "Runtime.evaluate", json!({"expression": "document.title", "returnByValue": true}))?;
    recorded["url"] = url.into();
    recorded["title"] = title["result"]["value"].clone();
    recorded["groundTruth"] = ground_truth(cdp, session)?;
    Ok(recorded)
}

/// Evaluates the ground-truth script in a target: the backend node ids (with frame ids) of the
/// elements a user can see and act on, and the `innerText`.
fn ground_truth(cdp: &mut crate::cdp::CdpConnection, session: &str) -> anyhow::Result<Value> {
    let s = Some(session);
    let result = cdp.call(s, "Runtime.evaluate", json!({"expression": GROUND_TRUTH}))?;
    if let Some(exception) = result.get("exceptionDetails") {
        anyhow::bail!("ground truth script failed: {exception}");
    }
    let object = result["result"]["objectId"].as_str().context("ground truth object")?.to_owned();
    let props = cdp.call(s, "Runtime.getProperties", json!({"objectId": object, "ownProperties": true}))?;
    let prop = |name: &str| props["result"].as_array().and_then(|p| p.iter().find(|x| x["name"] == name)).cloned();
    let text =
        |name: &str| prop(name).and_then(|p| p["value"]["value"].as_str().map(str::to_owned)).unwrap_or_default();
    let (inner_text, select_options) = (text("innerText"), text("selectOptions"));
    let elements_id = prop("elements").and_then(|p| p["value"]["objectId"].as_str().map(str::to_owned));
    let mut interactive = Vec::new();
    if let Some(elements_id) = elements_id {
        let items = cdp.call(s, "Runtime.getProperties", json!({"objectId": elements_id, "ownProperties": true}))?;
        for item in items["result"].as_array().into_iter().flatten() {
            let Some(id) = item["value"]["objectId"].as_str() else { continue };
            if item["name"].as_str().is_none_or(|n| n.parse::<usize>().is_err()) {
                continue;
            }
            let node = cdp.call(s, "DOM.describeNode", json!({"objectId": id}))?;
            interactive.push(json!({
                "backendNodeId": node["node"]["backendNodeId"],
                "frameId": node["node"]["frameId"],
                "tag": node["node"]["localName"],
            }));
        }
    }
    cdp.call(s, "Runtime.releaseObject", json!({"objectId": object}))?;
    Ok(json!({"interactive": interactive, "innerText": inner_text, "selectOptions": select_options}))
}
