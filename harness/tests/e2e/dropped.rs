//! What a snapshot drops, in the real browser: the snapshot the agent reads of
//! `tests/fixtures/pipeline/dropped.html` (a case per rule of what is dropped, with its
//! exceptions) omits each dropped case and keeps each exception. The extension reads roles and
//! names derived from the DOM snapshot, so this is the derived semantics at work; the engine's
//! tests over the page's recorded capture (`core/tests/dropped.rs`) check each rule with
//! Chrome's accessibility tree too.

use serde_json::json;
use sightline_harness::Rig;

#[tokio::test(flavor = "multi_thread")]
async fn the_snapshot_omits_each_dropped_case_and_keeps_each_exception() {
    let rig = Rig::start().await.expect("rig");
    rig.open("pipeline/dropped.html").await;
    let snapshot = rig.client.ok("browser_snapshot", json!({})).await;
    let lines: Vec<&str> = snapshot.lines().map(str::trim_start).collect();
    let has_line = |wanted: &str| lines.contains(&wanted);

    // Read at all: the page around the dropped cases.
    assert!(has_line("Shown paragraph.") && has_line("Last shown paragraph."), "{snapshot}");
    for dropped in [
        "Display none",
        "Hidden visibility",
        "Transparent",
        "Zero size button",
        "Hidden attribute",
        "Picture hidden from assistive technology",
        "Script words",
        "Style words",
        "Template words",
        "Noscript words",
        "Covered words",
        "Words under the modal",
    ] {
        assert!(!snapshot.contains(dropped), "{dropped:?} is dropped:\n{snapshot}");
    }
    // Hidden from assistive technology: no ref and no link, the painted words as plain text.
    assert!(has_line("Painted words hidden from assistive technology."), "{snapshot}");
    assert!(has_line("Link hidden from assistive technology"), "{snapshot}");
    assert!(!snapshot.contains(" Link hidden from assistive technology]"), "{snapshot}");

    // The exceptions.
    let kept = [
        "An open dialog marked aria-hidden.",
        "button \"Dialog button\"",
        "button \"»\"",
        " Letters to the editor]",
        "Words the cookie bar lies over.",
        "Cookie bar",
        "Sign up for the newsletter.",
    ];
    for exception in kept {
        assert!(snapshot.contains(exception), "{exception:?} is kept:\n{snapshot}");
    }
    let separated =
        lines.iter().find(|l| l.starts_with("[e") && l.contains(" Alpha]")).unwrap_or_else(|| panic!("{snapshot}"));
    assert!(!separated.contains('|') && separated.contains(" Alpha] [e"), "a lone separator is dropped: {separated}");
    assert!(
        lines.iter().any(|l| l.starts_with("[e")
            && l.contains(" Highlighted] [e")
            && l.contains(" A category whose name is long enough")),
        "an inline link covers nothing:\n{snapshot}"
    );
}
