//! Recording a capture of a page over direct CDP: the same requests the extension's runtime
//! makes (see `sightline_core::capture`), plus the page's ground truth, saved as one JSON file
//! that `sightline_core::capture::Capture` reads.

use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};
use sightline_core::capture::{ax_tree_params, capture_snapshot_params};

use crate::cdp::CdpBrowser;

const GROUND_TRUTH: &str = include_str!("ground_truth.js");

/// The DOM stabilisation the extension runs before capturing (100 ms quiet, 2 s cap).
const STABILIZE: &str = r#"new Promise((resolve) => {
  const root = document.documentElement;
  if (!root) return resolve(false);
  let quiet = setTimeout(done, 100);
  const hard = setTimeout(done, 2000);
  const observer = new MutationObserver(() => { clearTimeout(quiet); quiet = setTimeout(done, 100); });
  observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
  function done() { clearTimeout(quiet); clearTimeout(hard); observer.disconnect(); resolve(true); }
})"#;

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
    cdp.call(s, "Runtime.evaluate", json!({"expression": STABILIZE, "awaitPromise": true}))?;

    let main = capture_target(cdp, &session)?;
    let layout = cdp.call(s, "Page.getLayoutMetrics", json!({}))?;
    let mut children = Vec::new();
    let attached: Vec<Value> = cdp
        .take_events()
        .into_iter()
        .filter(|e| e["method"] == "Target.attachedToTarget" && e["params"]["targetInfo"]["type"] == "iframe")
        .collect();
    for event in attached {
        let child = event["params"]["sessionId"].as_str().context("child session")?.to_owned();
        let mut target = capture_target(cdp, &child)?;
        let frame_id = target["frameTree"]["frameTree"]["frame"]["id"].as_str().unwrap_or_default().to_owned();
        if let Ok(owner) = cdp.call(s, "DOM.getFrameOwner", json!({"frameId": frame_id})) {
            target["ownerBackendNodeId"] = owner["backendNodeId"].clone();
        }
        target["groundTruth"] = ground_truth(cdp, &child)?;
        children.push(target);
    }
    let ground = ground_truth(cdp, &session)?;
    let title = cdp.call(s, "Runtime.evaluate", json!({"expression": "document.title", "returnByValue": true}))?;
    Ok(json!({
        "url": url,
        "title": title["result"]["value"],
        "main": main,
        "children": children,
        "layout": layout,
        "groundTruth": ground,
    }))
}

fn capture_target(cdp: &mut crate::cdp::CdpConnection, session: &str) -> anyhow::Result<Value> {
    let s = Some(session);
    let frame_tree = cdp.call(s, "Page.getFrameTree", json!({}))?;
    let snapshot =
        cdp.call_with_timeout(s, "DOMSnapshot.captureSnapshot", capture_snapshot_params(), Duration::from_secs(60))?;
    let mut frames = Vec::new();
    collect_frames(&frame_tree["frameTree"], &mut frames);
    let mut ax_trees = Vec::new();
    for frame in frames {
        // Frames in another process answer through their own session.
        if let Ok(tree) = cdp.call(s, "Accessibility.getFullAXTree", ax_tree_params(&frame)) {
            ax_trees.push(json!({"frameId": frame, "tree": tree}));
        }
    }
    Ok(json!({"frameTree": frame_tree, "snapshot": snapshot, "axTrees": ax_trees}))
}

fn collect_frames(tree: &Value, out: &mut Vec<String>) {
    if let Some(id) = tree["frame"]["id"].as_str() {
        out.push(id.to_owned());
    }
    for child in tree["childFrames"].as_array().into_iter().flatten() {
        collect_frames(child, out);
    }
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
