//! Acting by ref inside an out-of-process iframe (another site's frame, which the browser runs
//! in its own process and Sightline reaches through that frame's own session): a click, typing,
//! a choice and a checkbox, each answered with what it changed like anywhere else. The frame
//! reports each effect to the test server, so what happened is checked apart from the answers.
//! `browser_wait_for` sees text in the page's own iframes and in out-of-process ones.

use std::time::Duration;

use serde_json::json;
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::{Rig, ref_named, service_worker};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn controls_inside_another_sites_iframe_are_acted_on_by_ref() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    rig.open("actions/framed.html").await;
    // The frames load after the page's own load; waiting for text sees into both kinds.
    c.ok("browser_wait_for", json!({"text": "Press me"})).await;
    c.ok("browser_wait_for", json!({"text": "Words of the same site"})).await;
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    assert!(page.text.contains("Controls of another site"), "{}", page.text);
    // The frame really is out of process: it has a target of its own.
    service_worker::attach_to_frame(&rig.devtools(), "localhost").expect("the frame is out of process");

    let clicked = c.call("browser_click", json!({"ref": ref_named(&page, "Press me")})).await.expect("click");
    assert!(!clicked.is_error, "{}", clicked.text);
    assert!(rig.server.wait_for_event("pressed", WAIT), "{:?}", rig.server.events());
    assert!(clicked.text.contains("Pressed"), "the answer shows what the click changed: {}", clicked.text);

    let typed = c.ok("browser_type", json!({"ref": ref_named(&page, "Note"), "text": "framed words"})).await;
    assert!(rig.server.wait_for_event("note framed words", WAIT), "{:?}", rig.server.events());
    assert!(typed.contains("framed words"), "{typed}");

    c.ok("browser_select_option", json!({"ref": ref_named(&page, "Colour"), "values": ["Blue"]})).await;
    assert!(rig.server.wait_for_event("colour Blue", WAIT), "{:?}", rig.server.events());

    let checked = c.ok("browser_click", json!({"ref": ref_named(&page, "Agree")})).await;
    assert!(rig.server.wait_for_event("agree true", WAIT), "{:?}", rig.server.events());
    assert!(checked.contains("checked"), "{checked}");
}
