//! Looking again at a page nothing changed on is answered from the last capture, because a
//! probe of the page (frame tree, the renderer's layout counters, viewport, and the page's watch
//! in its isolated world) vouches that nothing changed. And every way a page changes itself
//! without the agent — a script checking a box or setting a value without any event, an
//! attribute, a popover, text inside a shadow root, scrolling, a navigation inside the document —
//! is seen at the next look, in the page and in its iframes, whether they run in the page's
//! process or in their own.

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::{McpClient, Rig, service_worker};

/// One `browser_snapshot`: its text and its stats.
async fn look(c: &McpClient) -> (String, Value) {
    let reply = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!reply.is_error, "{}", reply.text);
    let stats = reply.structured.as_ref().map(|s| s["stats"].clone()).unwrap_or_default();
    (reply.text, stats)
}

fn reused(stats: &Value) -> bool {
    stats["capture_reused"] == true
}

/// Looks until a look is answered from the last capture (at most five looks: an iframe's own
/// session may still be coming up after the navigation).
async fn look_until_reused(c: &McpClient) -> (String, Value) {
    let mut looks = Vec::new();
    for _ in 0..5 {
        let (text, stats) = look(c).await;
        if reused(&stats) {
            return (text, stats);
        }
        looks.push((text, stats));
    }
    panic!("no look at the quiet page was reused: {looks:#?}");
}

/// After the page changed itself by `what`: the next look is a fresh capture that shows `shows`
/// (when the change shows in the text), and the look after it, nothing having changed since, is
/// the same capture again.
async fn seen_once_then_reused(c: &McpClient, what: &str, shows: Option<&str>) {
    let (text, stats) = look(c).await;
    assert!(!reused(&stats), "after `{what}` the last capture was used again: {stats}\n{text}");
    if let Some(shows) = shows {
        assert!(text.contains(shows), "after `{what}` the look does not show {shows:?}:\n{text}");
    }
    let (again, stats) = look(c).await;
    assert!(reused(&stats), "a look right after `{what}` was captured afresh: {stats}");
    if let Some(shows) = shows {
        assert!(again.contains(shows), "the reused look lost {shows:?}:\n{again}");
    }
}

/// What the page does to itself, and what the next look must show (`None`: nothing shows in
/// the text, only the probe can tell).
const CHANGES: &[(&str, Option<&str>)] = &[
    // No event, no mutation: only the restyle and the form digest tell.
    ("document.getElementById('terms').checked = true", Some(r#"checkbox "Accept terms" checked"#)),
    ("document.getElementById('nick').value = 'Ada'", Some(r#"textbox "Nickname" = "Ada""#)),
    // An attribute no style depends on: only the watch's mutation count tells.
    ("document.getElementById('menu').setAttribute('aria-label', 'Main menu')", Some("Main menu")),
    ("document.getElementById('tip').showPopover()", Some("Tip shown as a popover")),
    // Inside a shadow root, which the watch's observer does not reach: only the layout tells.
    (
        "document.getElementById('card').shadowRoot.querySelector('p').textContent = 'Card changed in its shadow root'",
        Some("Card changed in its shadow root"),
    ),
    ("scrollTo(0, document.body.scrollHeight)", None),
    ("history.pushState({}, '', '#later')", None),
    // The page cannot reach the watch: a fake of it in the page's own world changes nothing.
    (
        "globalThis.__sightlineWatch = {changes: 0, mutated: 0}; document.querySelector('h1').textContent = 'Renamed'",
        Some("# Renamed"),
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn an_unchanged_page_is_read_from_the_last_capture_and_every_change_is_seen() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    // Twice: a navigation turns the layout counters off while the page loads and the look
    // after it turns them on again, so the changes below are told by counters turned on anew.
    for _ in 0..2 {
        c.ok("browser_navigate", json!({"url": rig.server.url("unchanged.html")})).await;
    }
    // The page is quiet: within a few looks one is answered from the capture before it.
    let (text, stats) = look_until_reused(c).await;
    assert!(stats["probe_ms"].as_f64().is_some() && text.contains("# Quiet page"), "{stats} {text}");

    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "unchanged.html").expect("attach");
    for (script, shows) in CHANGES {
        let evaluated = cdp.call(Some(&session), "Runtime.evaluate", json!({"expression": script})).expect("evaluate");
        assert!(evaluated.get("exceptionDetails").is_none(), "{script}: {evaluated}");
        seen_once_then_reused(c, script, *shows).await;
    }
}

/// An ad frame that did not load shows the browser's own error page, in a process of its own,
/// which the capture is the first to style. The look right after a kept capture is still answered
/// from it, and a change on the page around the frame is still seen.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_with_an_ad_frame_that_did_not_load_is_read_from_the_last_capture() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("unchanged-ad-frame.html")})).await;
    let page = page.expect("browser_navigate");
    assert!(!page.is_error, "{}", page.text);
    let devtools = rig.devtools();
    let mut cdp = sightline_harness::cdp::CdpConnection::connect(&devtools).expect("devtools");
    let targets = cdp.call(None, "Target.getTargets", json!({})).expect("targets");
    let error_frame = targets["targetInfos"].as_array().into_iter().flatten().any(|t| {
        t["type"] == "iframe"
            && t["url"].as_str().is_some_and(|u| u.contains("ads.invalid") || u.contains("chrome-error"))
    });
    assert!(error_frame, "the ad frame is not an error page of its own process: {targets}");

    // The frame's own session may still be coming up during the navigation's capture, which is
    // then not kept: look until a capture is kept. The look right after it must use it again.
    let mut stats = page.structured.as_ref().map(|s| s["stats"].clone()).unwrap_or_default();
    for _ in 0..5 {
        if stats["capture_kept"] == true {
            break;
        }
        stats = look(c).await.1;
    }
    assert!(stats["capture_kept"] == true, "no capture of the page was kept: {stats}");
    let (text, after) = look(c).await;
    assert!(reused(&after), "the look right after a kept capture was captured afresh: {after}");
    assert!(text.contains("Quiet text beside the ad."), "{text}");

    let (mut page_cdp, session) = service_worker::attach_to_page(&devtools, "unchanged-ad-frame.html").expect("attach");
    let change = "document.getElementById('line').textContent = 'Changed text beside the ad.'";
    page_cdp.call(Some(&session), "Runtime.evaluate", json!({"expression": change})).expect("evaluate");
    seen_once_then_reused(c, change, Some("Changed text beside the ad.")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn changes_inside_iframes_of_the_same_process_and_of_another_are_seen() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("unchanged-framed.html")})).await;
    let (text, _) = look_until_reused(c).await;
    assert!(text.contains("Same-site text") && text.contains("Other-site text"), "{text}");

    let devtools = rig.devtools();
    // The same-site frame, changed from its parent: a box checked by a script, no event.
    let (mut page, session) = service_worker::attach_to_page(&devtools, "unchanged-framed.html").expect("attach");
    let check = "document.getElementById('same').contentDocument.getElementById('option').checked = true";
    page.call(Some(&session), "Runtime.evaluate", json!({"expression": check})).expect("evaluate");
    seen_once_then_reused(c, check, Some(r#"checkbox "Same-site option" checked"#)).await;

    // The other site's frame, through its own target: its text.
    let (mut cdp, frame_session) =
        service_worker::attach_to_frame(&devtools, "localhost").expect("the other site's frame is out of process");
    let rename = "document.getElementById('line').textContent = 'Other-site text, changed'";
    cdp.call(Some(&frame_session), "Runtime.evaluate", json!({"expression": rename})).expect("evaluate");
    seen_once_then_reused(c, rename, Some("Other-site text, changed")).await;
}
