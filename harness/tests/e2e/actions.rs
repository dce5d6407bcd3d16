//! Actions beyond click, type and keys, on a real page: choosing options of native selects (one
//! and several), of an ARIA listbox and of a combobox whose list opens on a click, hovering, and JavaScript dialogs (an action that opens
//! one is answered at once with it; nothing else runs on the page until it is answered). The
//! page reports each effect to the test server, so what happened is checked apart from what
//! the answers say.

use std::time::Duration;

use serde_json::json;
use sightline_harness::{Rig, ref_named};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn options_are_chosen_by_label_or_value_and_what_is_not_offered_is_listed() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/choices.html").await;
    let size = ref_named(&page, "Size");

    let chosen = c.call("browser_select_option", json!({"ref": size, "values": ["Medium"]})).await.unwrap();
    assert!(!chosen.is_error, "{}", chosen.text);
    assert!(rig.server.wait_for_event("size m", WAIT), "{:?}", rig.server.events());
    assert!(chosen.text.contains("size m"), "the answer shows what the choice changed: {}", chosen.text);
    c.ok("browser_select_option", json!({"ref": size, "values": ["s"]})).await;
    assert!(rig.server.wait_for_event("size s", WAIT), "{:?}", rig.server.events());

    let missing = c.call("browser_select_option", json!({"ref": size, "values": ["Huge"]})).await.unwrap();
    assert!(missing.is_error, "{}", missing.text);
    assert!(missing.text.contains(r#"has no option "Huge"; it offers "Small", "Medium", "Large""#), "{}", missing.text);
    let disabled = c.call("browser_select_option", json!({"ref": size, "values": ["Large"]})).await.unwrap();
    assert!(disabled.is_error && disabled.text.contains(r#"option "Large" is disabled"#), "{}", disabled.text);
    let several = c.call("browser_select_option", json!({"ref": size, "values": ["s", "m"]})).await.unwrap();
    assert!(several.is_error && several.text.contains("takes one option, not several"), "{}", several.text);
    let nothing = c.call("browser_select_option", json!({"ref": size, "values": []})).await.unwrap();
    assert!(nothing.is_error && nothing.text.contains("at least one value"), "{}", nothing.text);

    let toppings = ref_named(&page, "Toppings");
    c.ok("browser_select_option", json!({"ref": toppings, "values": ["Cheese", "Basil"]})).await;
    assert!(rig.server.wait_for_event("toppings Cheese+Basil", WAIT), "{:?}", rig.server.events());

    let crust = ref_named(&page, "Crust");
    let picked = c.call("browser_select_option", json!({"ref": crust, "values": ["Deep pan"]})).await.unwrap();
    assert!(!picked.is_error, "{}", picked.text);
    assert!(rig.server.wait_for_event("crust Deep pan", WAIT), "{:?}", rig.server.events());

    let save = ref_named(&page, "Save");
    let not_a_list = c.call("browser_select_option", json!({"ref": save, "values": ["x"]})).await.unwrap();
    assert!(
        not_a_list.is_error && not_a_list.text.contains("not a select, listbox or combobox"),
        "{}",
        not_a_list.text
    );
    // Nothing a refused choice touched changed.
    let events = rig.server.events();
    assert_eq!(events.iter().filter(|e| e.starts_with("size ")).count(), 2, "{events:?}");
}

/// A click whose point lands on the target's own label, or on the control a target label stands
/// for, does what the click asked: a star rating's label with its invisible radio laid over it,
/// and a checkbox under the label stretched over its card. Both were refused as covered.
#[tokio::test(flavor = "multi_thread")]
async fn a_click_landing_on_the_targets_label_or_control_is_the_targets() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/labels-over.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let stars: Vec<String> = page
        .text
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(" radio \"★\""))
        .map(|l| l.split(' ').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(stars.len(), 3, "{}", page.text);
    let rated = c.call("browser_click", json!({"ref": stars[1]})).await.unwrap();
    assert!(!rated.is_error, "{}", rated.text);
    assert!(rated.text.contains(&format!("~ {} radio \"★\" → checked", stars[1])), "{}", rated.text);
    assert!(rig.server.wait_for_event("star2 true", WAIT), "{:?}", rig.server.events());

    let gift = ref_named(&page, "Gift wrap");
    let wrapped = c.call("browser_click", json!({"ref": gift})).await.unwrap();
    assert!(!wrapped.is_error, "{}", wrapped.text);
    assert!(rig.server.wait_for_event("gift true", WAIT), "{:?}", rig.server.events());
    // Once each: the label's click is the control's, not a second one.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let events = rig.server.events();
    assert_eq!(events.iter().filter(|e| e.starts_with("gift")).count(), 1, "{events:?}");
    assert_eq!(events.iter().filter(|e| e.starts_with("star")).count(), 1, "{events:?}");
}

/// A combobox whose options are in the page but hidden until it opens (a design system's
/// select) is opened with a click, as a person would, and then the option is clicked.
#[tokio::test(flavor = "multi_thread")]
async fn a_combobox_whose_list_is_closed_is_opened_and_the_option_clicked() {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/city-picker.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let city = ref_named(&page, "City");
    let chosen = rig.client.call("browser_select_option", json!({"ref": city, "values": ["Rome"]})).await.unwrap();
    assert!(!chosen.is_error, "{}", chosen.text);
    assert!(rig.server.wait_for_event("city Rome", WAIT), "{:?}", rig.server.events());
    let events = rig.server.events();
    assert_eq!(events.iter().filter(|e| *e == "opened").count(), 1, "opened once, then the option: {events:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hovering_opens_what_opens_on_hover() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/choices.html").await;
    assert!(!page.text.contains("Settings"), "the menu starts closed: {}", page.text);
    let hovered = c.call("browser_hover", json!({"ref": ref_named(&page, "Account")})).await.unwrap();
    assert!(!hovered.is_error, "{}", hovered.text);
    assert!(rig.server.wait_for_event("hovered", WAIT), "{:?}", rig.server.events());
    assert!(hovered.text.contains("Settings"), "the answer shows the menu that opened: {}", hovered.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_action_that_opens_a_dialog_says_so_at_once_and_the_dialog_is_answered() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/choices.html").await;

    let none = c.call("browser_handle_dialog", json!({"accept": true})).await.unwrap();
    assert!(none.is_error && none.text.contains("shows no dialog"), "{}", none.text);

    // An alert: the click is answered with it (its message quoted on one line), not a timeout.
    let saved = c.call("browser_click", json!({"ref": ref_named(&page, "Save")})).await.unwrap();
    assert!(!saved.is_error, "{}", saved.text);
    assert!(
        saved.text.starts_with(r#"browser_click opened a dialog: alert "Saved \"draft\"\nAll good""#),
        "{}",
        saved.text
    );
    assert_eq!(saved.text.lines().count(), 1, "{}", saved.text);
    // While it is open nothing else reads or acts on the page.
    let looked = c.call("browser_snapshot", json!({})).await.unwrap();
    assert!(looked.is_error && looked.text.contains("shows a dialog, alert"), "{}", looked.text);
    let clicked = c.call("browser_click", json!({"ref": ref_named(&page, "Delete")})).await.unwrap();
    assert!(clicked.is_error && clicked.text.contains("browser_handle_dialog"), "{}", clicked.text);
    let closed = c.call("browser_handle_dialog", json!({"accept": true})).await.unwrap();
    assert!(!closed.is_error, "{}", closed.text);
    assert!(closed.text.contains(r#"the alert "Saved \"draft\"\nAll good" was closed"#), "{}", closed.text);
    assert!(rig.server.wait_for_event("alert closed", WAIT), "{:?}", rig.server.events());
    assert!(closed.text.contains("alert closed"), "the answer shows what followed: {}", closed.text);

    // A confirm, dismissed.
    let asked = c.call("browser_click", json!({"ref": ref_named(&page, "Delete")})).await.unwrap();
    assert!(asked.text.contains(r#"confirm "Delete the draft?""#), "{}", asked.text);
    c.ok("browser_handle_dialog", json!({"accept": false})).await;
    assert!(rig.server.wait_for_event("kept", WAIT), "{:?}", rig.server.events());

    // A prompt, answered with text.
    let prompted = c.call("browser_click", json!({"ref": ref_named(&page, "Rename")})).await.unwrap();
    assert!(prompted.text.contains(r#"prompt "New name?" (default text "Draft")"#), "{}", prompted.text);
    let renamed = c.call("browser_handle_dialog", json!({"accept": true, "prompt_text": "Final"})).await.unwrap();
    assert!(!renamed.is_error && renamed.text.contains(r#"accepted with "Final""#), "{}", renamed.text);
    assert!(rig.server.wait_for_event("renamed to Final", WAIT), "{:?}", rig.server.events());
    // Each click ran once.
    let events = rig.server.events();
    assert_eq!(events.iter().filter(|e| *e == "alert closed").count(), 1, "{events:?}");
    assert!(!events.iter().any(|e| e == "deleted"), "{events:?}");
}

/// A rig showing the choices page after its Guard button made it ask before it is left.
async fn guarded_page() -> Rig {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/choices.html").await;
    rig.client.ok("browser_click", json!({"ref": ref_named(&page, "Guard")})).await;
    assert!(rig.server.wait_for_event("guarded", WAIT), "{:?}", rig.server.events());
    rig
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_asks_before_it_is_left_holds_navigate_until_the_question_is_answered() {
    let rig = guarded_page().await;
    let c = &rig.client;
    let second = rig.server.url("second.html");

    let asked = c.call("browser_navigate", json!({"url": second})).await.unwrap();
    assert!(!asked.is_error, "{}", asked.text);
    assert!(asked.text.starts_with("browser_navigate opened a dialog: leave-page question"), "{}", asked.text);
    c.ok("browser_handle_dialog", json!({"accept": false})).await;
    let stayed = c.ok("browser_snapshot", json!({})).await;
    assert!(stayed.contains("Order a pizza"), "dismissed, the page stays: {stayed}");

    let again = c.call("browser_navigate", json!({"url": second})).await.unwrap();
    assert!(again.text.contains("leave-page question"), "{}", again.text);
    let left = c.call("browser_handle_dialog", json!({"accept": true})).await.unwrap();
    assert!(!left.is_error && left.text.contains("# Second page"), "accepted, the page is left: {}", left.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn closing_a_tab_that_asks_before_it_is_left_answers_with_the_question() {
    let rig = guarded_page().await;
    let c = &rig.client;

    let asked = c.call("browser_tabs", json!({"action": "close"})).await.unwrap();
    assert!(!asked.is_error, "{}", asked.text);
    assert!(asked.text.starts_with("browser_tabs close opened a dialog: leave-page question"), "{}", asked.text);
    c.ok("browser_handle_dialog", json!({"accept": false})).await;
    let stayed = c.ok("browser_snapshot", json!({})).await;
    assert!(stayed.contains("Order a pizza"), "dismissed, the tab stays: {stayed}");

    let again = c.call("browser_tabs", json!({"action": "close"})).await.unwrap();
    assert!(again.text.contains("leave-page question"), "{}", again.text);
    c.call("browser_handle_dialog", json!({"accept": true})).await.unwrap();
    // Accepted, the tab closes (the browser does it once the question is answered).
    let mut tabs = String::new();
    for _ in 0..40 {
        tabs = c.ok("browser_tabs", json!({})).await;
        if !tabs.contains("choices.html") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(!tabs.contains("choices.html"), "accepted, the tab is closed: {tabs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_navigation_that_ends_without_a_new_page_ends_the_wait_and_says_so() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    rig.open("actions/no-content.html").await;
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    // A form answered 204 No Content, and a link answered 205: the browser stays on the page.
    for (name, words) in [("Send", "the server answered 204"), ("Reset view", "the server answered 205")] {
        let target = sightline_harness::ref_named(&page, name);
        let reply = c.call("browser_click", json!({"ref": target})).await.expect("click");
        assert!(!reply.is_error, "{name}: {}", reply.text);
        assert!(reply.text.contains(words) && reply.text.contains("the page stayed"), "{name}: {}", reply.text);
        assert!(!reply.text.contains("had not finished loading"), "{name}: {}", reply.text);
        assert!(!reply.text.contains("a script on it is keeping it busy"), "{name}: {}", reply.text);
        let after = c.ok("browser_snapshot", json!({})).await;
        assert!(after.contains("# Feedback"), "still on the page: {after}");
    }
}

/// A single-page app's link (`history.pushState`, the new route drawn a moment later) is no
/// navigation that "ended without a new page": the click's answer shows the new address and
/// the route the page drew.
#[tokio::test(flavor = "multi_thread")]
async fn a_route_of_a_single_page_app_is_answered_with_what_it_drew() {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/routes.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let about = ref_named(&page, "About");
    let reply = rig.client.call("browser_click", json!({"ref": about})).await.expect("click");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(rig.server.wait_for_event("about drawn", WAIT), "{:?}", rig.server.events());
    assert!(!reply.text.contains("without a new page"), "{}", reply.text);
    assert!(reply.text.contains("# About us") && reply.text.contains("routes.html?about"), "{}", reply.text);
}

/// A link to an anchor of the page changes no content, but the answer says where the address
/// went, in the text and in `structuredContent`.
#[tokio::test(flavor = "multi_thread")]
async fn a_link_to_an_anchor_answers_with_the_new_address() {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/routes.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let contact = rig.client.call("browser_click", json!({"ref": ref_named(&page, "Contact")})).await.expect("click");
    assert!(!contact.is_error, "{}", contact.text);
    let address = format!("{}#contact", rig.server.url("actions/routes.html"));
    assert!(contact.text.contains(&format!("the address is now {address}")), "{}", contact.text);
    let facts = contact.structured.expect("structuredContent");
    assert_eq!(facts["moved_to"], address.as_str(), "{facts}");
    let again = rig.client.call("browser_snapshot", json!({})).await.expect("snapshot");
    assert!(again.text.contains(&format!("{address} · v")), "{}", again.text);
}

/// The ref of the link written `[eN text]` in an answer's text, if it shows one.
fn link_ref(text: &str, link_text: &str) -> Option<String> {
    let end = format!(" {link_text}]");
    text.split('[').find_map(|part| part.split_once(end.as_str()).map(|(r, _)| r.to_owned()))
}

/// A menu that only CSS opens (`li:hover > ul`), its trigger a plain word: the word is a
/// target saying what it hides; pointing at it shows the links, which the agent can then click.
#[tokio::test(flavor = "multi_thread")]
async fn a_menu_only_css_opens_is_opened_through_its_word() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("pipeline/hover-menu.html").await;
    assert!(page.text.contains("clickable \"Products\" (3 hidden links)"), "{}", page.text);
    assert!(!page.text.contains("Beta"), "the menu starts closed: {}", page.text);
    let trigger = ref_named(&page, "Products");
    let hovered = c.call("browser_hover", json!({"ref": trigger})).await.unwrap();
    assert!(!hovered.is_error, "{}", hovered.text);
    // The trigger keeps its ref while its menu shows, named by its own word, the menu under it.
    let open = c.call("browser_snapshot", json!({})).await.unwrap();
    let lines: Vec<&str> = open.text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start() == format!("{trigger} clickable \"Products\""))
        .unwrap_or_else(|| panic!("{trigger} is still the menu's trigger: {}", open.text));
    let indent = |l: &str| l.len() - l.trim_start().len();
    let beta_line = lines.iter().position(|l| l.contains(" Beta]")).unwrap_or(0);
    assert!(
        beta_line > at && indent(lines[beta_line]) > indent(lines[at]),
        "the menu is under its trigger: {}",
        open.text
    );
    let again = c.call("browser_hover", json!({"ref": trigger})).await.unwrap();
    assert!(!again.is_error, "the trigger's ref still works: {}", again.text);
    // The links that showed, with their refs.
    let beta = link_ref(&hovered.text, "Beta")
        .unwrap_or_else(|| panic!("the answer shows the menu's links: {}", hovered.text));
    let clicked = c.call("browser_click", json!({"ref": beta})).await.unwrap();
    assert!(!clicked.is_error, "{}", clicked.text);
    assert!(clicked.text.contains("hover-menu.html#beta"), "{}", clicked.text);
    // A box's dropdown (`.dropdown:hover > .dropdown-content`) opens the same way.
    let page = c.call("browser_snapshot", json!({})).await.unwrap();
    assert!(page.text.contains("clickable \"Services\" (2 hidden links)"), "{}", page.text);
    let hovered = c.call("browser_hover", json!({"ref": ref_named(&page, "Services")})).await.unwrap();
    assert!(!hovered.is_error, "{}", hovered.text);
    let build = link_ref(&hovered.text, "Build")
        .unwrap_or_else(|| panic!("the answer shows the dropdown's links: {}", hovered.text));
    let clicked = c.call("browser_click", json!({"ref": build})).await.unwrap();
    assert!(!clicked.is_error && clicked.text.contains("hover-menu.html#build"), "{}", clicked.text);
}
