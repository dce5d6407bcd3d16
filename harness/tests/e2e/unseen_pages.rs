//! Classes of real pages nobody tuned for, read end to end through MCP: a page that hides itself
//! while it loads (an anti-flicker snippet that never lifts, and a body shown a moment after
//! load), and a booking form whose controls are bare `div`s, styled checkboxes and icon buttons.

use serde_json::{Value, json};
use sightline_harness::client::Reply;
use sightline_harness::{Rig, ref_of};

/// The note a page that hides itself is shown under.
const HIDES_ITSELF: &str = "the page hides itself with its own styles (opacity: 0 on <html>)";

/// The structured element with this ref.
fn element<'a>(reply: &'a Reply, element_ref: &str) -> &'a Value {
    let structured = reply.structured.as_ref().unwrap_or_else(|| panic!("no structuredContent: {}", reply.text));
    structured["elements"]
        .as_array()
        .and_then(|all| all.iter().find(|e| e["ref"] == element_ref))
        .unwrap_or_else(|| panic!("no {element_ref} in {structured:#}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_hidden_by_an_anti_flicker_snippet_reads_as_its_content_under_a_note() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("pipeline/hidden-root.html")})).await;
    let reply = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(reply.text.contains(&format!("! {HIDES_ITSELF}")), "{}", reply.text);
    assert!(reply.text.contains("# Harbour reopens after the storm"), "{}", reply.text);
    assert!(reply.text.contains("first crossing leaves at seven"), "{}", reply.text);
    let structured = reply.structured.as_ref().expect("structuredContent");
    let notes = structured["notes"].as_array().cloned().unwrap_or_default();
    assert!(notes.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with(HIDES_ITSELF))), "{structured:#}");
    // Still acted on like any page: the button is there to press.
    let more = ref_of(&reply, "button", "Read more");
    let clicked = c.call("browser_click", json!({"ref": more})).await.expect("browser_click");
    assert!(!clicked.is_error, "{}", clicked.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_shown_a_moment_after_load_is_waited_for_not_read_as_empty() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let reply = c.call("browser_navigate", json!({"url": rig.server.url("pipeline/hidden-root-brief.html")})).await;
    let reply = reply.expect("browser_navigate");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("# Timetable changes"), "the navigation's answer is the page: {}", reply.text);
    assert!(reply.text.contains(" Plan a journey]"), "{}", reply.text);
    assert!(!reply.text.contains("hides itself"), "{}", reply.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn controls_keep_what_they_are_and_act_as_themselves() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("pipeline/controls.html")})).await;
    let page = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!page.is_error, "{}", page.text);
    let lines: Vec<&str> = page.text.lines().map(str::trim).collect();

    // The bare-div stepper: minus and plus are told apart, around the count.
    let passengers = lines.iter().position(|l| *l == "Passengers").unwrap_or_else(|| panic!("{}", page.text));
    let minus = ref_of(&page, "clickable", "-");
    let plus = ref_of(&page, "clickable", "+");
    assert_eq!(
        &lines[passengers + 1..passengers + 4],
        [format!("{minus} clickable \"-\""), "1".to_owned(), format!("{plus} clickable \"+\"")]
    );

    // A label standing for its hidden native checkbox is that checkbox, with its state.
    let one_way = ref_of(&page, "checkbox", "One-way");
    let flexible = ref_of(&page, "checkbox", "Flexible dates");
    assert!(lines.contains(&format!("{one_way} checkbox \"One-way\"").as_str()), "{}", page.text);
    assert!(lines.contains(&format!("{flexible} checkbox \"Flexible dates\" checked").as_str()), "{}", page.text);

    // Nameless controls take a name, or say they have none; symbols stay.
    assert!(page.text.contains("button (no name)"), "{}", page.text);
    ref_of(&page, "button", "Swap origin and destination");
    ref_of(&page, "clickable", "Open the calendar");
    ref_of(&page, "button", "☰");
    // A tab wrapping its own link is one line.
    let round_trip = ref_of(&page, "tab", "Round trip");
    assert_eq!(page.text.matches("Round trip").count(), 1, "{}", page.text);
    assert_eq!(element(&page, &round_trip)["role"], "tab");

    // Acting on them: the count goes up, and the styled checkbox becomes checked.
    let stepped = c.call("browser_click", json!({"ref": plus})).await.expect("browser_click");
    assert!(!stepped.is_error, "{}", stepped.text);
    let checked = c.call("browser_click", json!({"ref": one_way})).await.expect("browser_click");
    assert!(!checked.is_error, "{}", checked.text);
    let after = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let after_lines: Vec<&str> = after.text.lines().map(str::trim).collect();
    let at = after_lines.iter().position(|l| *l == "Passengers").unwrap_or_else(|| panic!("{}", after.text));
    assert_eq!(after_lines[at + 2], "2", "{}", after.text);
    assert!(after_lines.contains(&format!("{one_way} checkbox \"One-way\" checked").as_str()), "{}", after.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_moves_on_before_it_loads_is_followed_to_where_it_went() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let not_loaded = "had not finished loading";

    // On to another page here: the answer is that page, loaded.
    let second = rig.server.url("second.html");
    let url = format!("{}?to={}", rig.server.url("pipeline/moves-on.html"), second);
    let reply = c.call("browser_navigate", json!({"url": url})).await.expect("browser_navigate");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("# Second page"), "{}", reply.text);
    assert!(!reply.text.contains(not_loaded), "the wait followed the page to where it went: {}", reply.text);

    // On to an address nobody answers: the browser's error page, answered at once.
    let url = format!("{}?to=http://127.0.0.1:9/", rig.server.url("pipeline/moves-on.html"));
    let reply = c.call("browser_navigate", json!({"url": url})).await.expect("browser_navigate");
    assert!(!reply.text.contains(not_loaded), "{}", reply.text);
    assert!(!reply.text.contains("This page moves on at once"), "{}", reply.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_moves_on_to_an_address_that_never_answers_says_where_it_went() {
    let rig = Rig::start().await.expect("rig");
    // The fixture server speaks plain HTTP: a TLS handshake with it never gets an answer, and
    // while that navigation is under way the browser answers no question about the page.
    let hanging = rig.server.url("second.html").replace("http://", "https://");
    let url = format!("{}?to={hanging}", rig.server.url("pipeline/moves-on.html"));
    let reply = rig.client.call("browser_navigate", json!({"url": url})).await.expect("browser_navigate");
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains(&format!("sent the browser on to {hanging}, which had not answered")),
        "{}",
        reply.text
    );
    assert!(!reply.text.contains("keeping it busy"), "no script kept this page busy: {}", reply.text);
}
