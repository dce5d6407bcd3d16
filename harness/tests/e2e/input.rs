//! Input reaches the element the agent named, or nothing: a click whose point something else
//! covers is refused with what covers it (after one try with the element centred in the
//! viewport), a target a hover took away is not pressed through onto what lies beneath it (one
//! a hover merely emptied is pressed through the element holding it), a target that left the
//! page by the time of the press is refused as a stale ref rather than pressing what took its
//! place, and typing stops when focus does not stay on the target. A page that rewrites the
//! built-ins a check could use (`parentNode`, `contains`, `localName`, `activeElement`,
//! `select`, `focus`) to pass another site's frame off as part of its button, or to send keys
//! to a hidden field, fools nothing: the checks run from CDP and in the extension's isolated
//! world.

use std::time::Duration;

use serde_json::json;
use sightline_harness::{Rig, ref_of};

const WAIT: Duration = Duration::from_secs(10);

/// Opens the fixture page at `path`, once its script has reported that it is ready; the
/// navigation's answer.
async fn open(rig: &Rig, path: &str) -> sightline_harness::client::Reply {
    let page = rig.client.call("browser_navigate", json!({"url": rig.server.url(path)})).await;
    let page = page.expect("browser_navigate");
    assert!(!page.is_error, "{}", page.text);
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    page
}

async fn covered_page(rig: &Rig) -> sightline_harness::client::Reply {
    open(rig, "input/covered.html").await;
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!snapshot.is_error, "{}", snapshot.text);
    snapshot
}

#[tokio::test(flavor = "multi_thread")]
async fn a_click_that_something_else_would_receive_is_refused_with_what_covers_it() {
    let rig = Rig::start().await.expect("rig");
    let snapshot = covered_page(&rig).await;
    let pay = ref_of(&snapshot, "button", "Pay");
    let reply = rig.client.call("browser_click", json!({"ref": pay})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains(&format!("{pay} is covered by <div id=\"shield\">")), "{}", reply.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e == "paid" || e == "shield-clicked"), "nothing was clicked: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_element_under_a_sticky_header_is_centred_and_clicked() {
    let rig = Rig::start().await.expect("rig");
    let snapshot = covered_page(&rig).await;
    let save = ref_of(&snapshot, "button", "Save");
    let reply = rig.client.call("browser_click", json!({"ref": save})).await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert!(rig.server.wait_for_event("saved", WAIT), "{:?}", rig.server.events());
    assert!(!rig.server.events().iter().any(|e| e == "header-clicked"), "{:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn typing_stops_when_the_page_moves_focus_elsewhere() {
    let rig = Rig::start().await.expect("rig");
    let snapshot = covered_page(&rig).await;
    let name = ref_of(&snapshot, "textbox", "Name");
    let reply = rig.client.call("browser_type", json!({"ref": name, "text": "secret words"})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply
            .text
            .contains(&format!("{name} did not keep the focus (<input id=\"trap\"> has it), so nothing was typed")),
        "{}",
        reply.text
    );
    let keys = rig.client.call("browser_press_key", json!({"ref": name, "key": "x"})).await.unwrap();
    assert!(keys.is_error && keys.text.contains("did not keep the focus"), "{}", keys.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e.starts_with("trap:")), "nothing reached the trap: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_the_hover_took_away_is_not_pressed_through_onto_what_lies_beneath() {
    let rig = Rig::start().await.expect("rig");
    let page = open(&rig, "input/hover.html").await;
    let lexington = ref_of(&page, "option", "Lexington, KY (LEX)");
    let reply = rig.client.call("browser_click", json!({"ref": lexington})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains(&format!("{lexington} was taken away once the pointer came to rest over it")),
        "{}",
        reply.text
    );
    assert!(reply.text.contains("<textarea id=\"date\">"), "it says what lies beneath: {}", reply.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e == "date-pressed" || e.starts_with("chose:")), "nothing was pressed: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_that_left_the_page_before_the_press_is_refused_as_a_stale_ref() {
    let rig = Rig::start().await.expect("rig");
    let page = open(&rig, "input/closing-list.html").await;
    let lexington = ref_of(&page, "option", "Lexington, KY (LEX)");
    let reply = rig.client.call("browser_click", json!({"ref": lexington})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains(&format!(
            "{lexington} is gone: it was removed from the page since your last snapshot. Use the refs of your latest \
             snapshot, or take a browser_snapshot"
        )),
        "{}",
        reply.text
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = rig.server.events();
    assert!(
        !events.iter().any(|e| e.starts_with("clear-") || e.starts_with("chose:")),
        "nothing was pressed, least of all what took the suggestion's place: {events:?}"
    );
    // The button that took its place is there to be pressed: the list did close.
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!snapshot.text.contains("Lexington"), "{}", snapshot.text);
    ref_of(&snapshot, "button", "Clear all");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_the_hover_collapsed_is_pressed_through_the_element_holding_it() {
    let rig = Rig::start().await.expect("rig");
    let page = open(&rig, "input/hover.html").await;
    let star = ref_of(&page, "clickable", "Star");
    let reply = rig.client.call("browser_click", json!({"ref": star})).await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert!(rig.server.wait_for_event("card-clicked", WAIT), "{:?}", rig.server.events());
    // The star had collapsed under the pointer, so the press reached the card, not the star (a
    // press on the star would report both, as its click bubbles to the card).
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e == "star-clicked"), "the hover did not collapse the star: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frame_over_the_target_is_refused_whatever_the_page_rewrote() {
    let rig = Rig::start().await.expect("rig");
    open(&rig, "input/rewritten-frame.html").await;
    // The overlay frame loads after the page; its own page is of another site.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let pay = ref_of(&snapshot, "button", "Pay");
    let reply = rig.client.call("browser_click", json!({"ref": pay})).await.unwrap();
    assert!(reply.text.contains("<iframe id=\"overlay\">"), "the frame is named: {}", reply.text);
    refused_for_a_frame_and_nothing_clicked(&rig, &reply).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frame_the_hover_puts_inside_the_target_is_refused() {
    let rig = Rig::start().await.expect("rig");
    open(&rig, "input/frame-on-hover.html").await;
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let pay = ref_of(&snapshot, "button", "Pay");
    // Once the pointer rests on the card, a frame inside it covers it: the press would reach the
    // frame's document, so the click is refused rather than sent there.
    let reply = rig.client.call("browser_click", json!({"ref": pay})).await.unwrap();
    refused_for_a_frame_and_nothing_clicked(&rig, &reply).await;
}

/// The click was refused because a frame would receive it, and neither "Pay" nor the frame saw
/// a click (the page reports `paid` and `frame-clicked` to the fixture server).
async fn refused_for_a_frame_and_nothing_clicked(rig: &Rig, reply: &sightline_harness::client::Reply) {
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("another frame would receive it"), "{}", reply.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e == "paid" || e == "frame-clicked"), "nothing was clicked: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_go_to_the_target_or_nowhere_whatever_the_page_rewrote() {
    let rig = Rig::start().await.expect("rig");
    open(&rig, "input/rewritten-focus.html").await;
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    // Focus lands on the trap while the page's own activeElement says Note: refused.
    let note = ref_of(&snapshot, "textbox", "Note");
    let reply = rig.client.call("browser_type", json!({"ref": note, "text": "secret words"})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("did not keep the focus (<input id=\"trap\"> has it)"), "{}", reply.text);
    rig.client.ok("browser_snapshot", json!({})).await;
    let keyed = rig.client.call("browser_press_key", json!({"ref": note, "key": "a"})).await.unwrap();
    assert!(keyed.is_error && keyed.text.contains("did not keep the focus"), "{}", keyed.text);
    // The page's select() and focus() send focus to the trap: the extension's own are used.
    let message = ref_of(&snapshot, "textbox", "Message");
    rig.client.ok("browser_type", json!({"ref": message, "text": "hello"})).await;
    assert!(rig.server.wait_for_event("message:hello", WAIT), "{:?}", rig.server.events());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e.starts_with("trap:") || e.starts_with("note:")), "{events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_option_is_chosen_by_what_it_is_whatever_the_page_rewrote() {
    let rig = Rig::start().await.expect("rig");
    open(&rig, "input/rewritten-select.html").await;
    let snapshot = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let to = ref_of(&snapshot, "combobox", "To account");
    for wanted in ["savings", "Savings"] {
        rig.client.ok("browser_select_option", json!({"ref": to, "values": [wanted]})).await;
        assert!(rig.server.wait_for_event("to:savings", WAIT), "{:?}", rig.server.events());
        assert!(!rig.server.events().iter().any(|e| e == "to:evil"), "{wanted}: {:?}", rig.server.events());
    }
}

/// A rich-text editor's body (`contenteditable`) and a comment box (`role="textbox"` on an
/// editable div) read as textboxes with their text as the value, and `browser_type` replaces
/// that text: the page sees the new text and nothing of the old, and the answer's delta shows
/// the new value.
#[tokio::test(flavor = "multi_thread")]
async fn editable_areas_are_textboxes_that_typing_replaces() {
    let rig = Rig::start().await.expect("rig");
    let page = open(&rig, "input/editors.html").await;
    let body = ref_of(&page, "textbox", "Message body");
    let comment = ref_of(&page, "textbox", "Comment");
    assert!(
        page.text.contains(&format!("{body} textbox \"Message body\" = \"Dear Ada,\\nSee the draft below.\"")),
        "{}",
        page.text
    );
    assert!(!page.text.contains("clickable"), "the paragraphs inside are the editor's text: {}", page.text);

    let typed =
        rig.client.call("browser_type", json!({"ref": body, "text": "Meeting moved to Friday."})).await.unwrap();
    assert!(!typed.is_error, "{}", typed.text);
    assert!(rig.server.wait_for_event("body:Meeting moved to Friday.", WAIT), "{:?}", rig.server.events());
    assert!(typed.text.contains("= \"Meeting moved to Friday.\""), "{}", typed.text);

    let typed = rig.client.call("browser_type", json!({"ref": comment, "text": "Looks good"})).await.unwrap();
    assert!(!typed.is_error, "{}", typed.text);
    assert!(rig.server.wait_for_event("comment:Looks good", WAIT), "{:?}", rig.server.events());
    assert!(
        typed.text.contains(&format!("~ {comment} textbox \"Comment\" (nothing) → = \"Looks good\"")),
        "{}",
        typed.text
    );
}
