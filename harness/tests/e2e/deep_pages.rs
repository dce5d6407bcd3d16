//! A page nested 15,000 elements deep (`hostile/deep.html`, built by its own script, as the
//! HTML parser would never nest it past 512): the snapshot answers with the button at the
//! bottom, the agent clicks it, and the runtime that did so is the one that started (nothing
//! exhausted its stack, no panic or trap replaced it, and the worker did not restart).
//!
//! 15,000 is about as deep as the browser itself goes: Chromium's renderer crashes on a page of
//! some 18,000 nested elements (some 3,500 when each is a box). Deeper trees are drilled without
//! a browser, in `core/tests/deep_pages.rs`.

use std::time::Duration;

use serde_json::json;
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::{Rig, ref_of};

/// Marks the runtime in use; a fresh instance (after a panic, a trap or a stack overflow) or a
/// restarted worker does not carry the mark.
const MARK_RUNTIME: &str = "globalThis.sightline.deepPageMark = 'the first runtime'; globalThis.sightline.deepPageMark";
const READ_MARK: &str = "globalThis.sightline?.deepPageMark ?? 'no mark: the runtime was replaced'";

#[tokio::test(flavor = "multi_thread")]
async fn a_button_fifteen_thousand_elements_deep_is_seen_and_clicked_by_the_runtime_that_started() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    assert_eq!(rig.in_worker(MARK_RUNTIME), json!("the first runtime"));

    let page = rig.open("hostile/deep.html").await;
    assert!(page.text.contains("# Deep page"), "{}", page.text);
    let snapshot = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot answers");
    assert!(!snapshot.is_error, "{}", snapshot.text);
    let button = ref_of(&snapshot, "button", "Deep button");
    let at = |wanted: &str| snapshot.text.find(wanted).unwrap_or_else(|| panic!("{wanted:?}:\n{}", snapshot.text));
    assert!(at("Nothing clicked yet") < at("Halfway down") && at("Halfway down") < at("Deep button"));

    let clicked = c.ok("browser_click", json!({"ref": button})).await;
    assert!(clicked.contains("Clicked 15000 deep"), "the click's answer shows what it did: {clicked}");
    assert!(
        rig.server.wait_for_event("deep-click", Duration::from_secs(10)),
        "the page never saw the click: {:?}",
        rig.server.events()
    );
    assert_eq!(rig.in_worker(READ_MARK), json!("the first runtime"), "the runtime was replaced or restarted");
}
