//! Filling forms, scrolling, waiting and dragging on a real page: a form with every kind of
//! field, date, time and colour pickers set whole, an endless feed that grows as it is scrolled, text that comes later, a knob dragged
//! with mouse events and cards dropped with HTML5 drag and drop (one a plain draggable
//! `<div>`). The page reports each effect to the test server, so what happened is checked apart
//! from what the answers say.

use std::time::Duration;

use serde_json::json;
use sightline_harness::client::{McpClient, Reply};
use sightline_harness::{Rig, ref_named, ref_of};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn a_form_is_filled_in_one_call_and_a_bad_field_is_named() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let field = |name: &str, kind: &str, value: &str| json!({"name": name, "type": kind, "ref": ref_named(&page, name), "value": value});

    // Refused before anything is touched: a value that does not suit its field, an unknown ref.
    let bad = c
        .call(
            "browser_fill_form",
            json!({"fields": [field("Name", "textbox", "Ada"), field("Newsletter", "checkbox", "yes")]}),
        )
        .await
        .unwrap();
    assert!(bad.is_error && bad.text.contains("field 2 (\"Newsletter\""), "{}", bad.text);
    assert!(bad.text.contains("`true` or `false`") && bad.text.contains("No field was filled"), "{}", bad.text);
    let unknown = c
        .call(
            "browser_fill_form",
            json!({"fields": [{"name": "Ghost", "type": "textbox", "ref": "e999", "value": "x"}]}),
        )
        .await
        .unwrap();
    assert!(unknown.is_error && unknown.text.contains("field 1 (\"Ghost\", e999)"), "{}", unknown.text);
    let empty = c.call("browser_fill_form", json!({"fields": []})).await.unwrap();
    assert!(empty.is_error && empty.text.contains("at least one"), "{}", empty.text);

    let filled = c
        .call(
            "browser_fill_form",
            json!({"fields": [
                field("Name", "textbox", "Ada Lovelace"),
                field("Email", "textbox", "ada@example.com"),
                field("Newsletter", "checkbox", "true"),
                field("Terms", "checkbox", "true"),
                field("Pro", "radio", "true"),
                field("Country", "combobox", "Germany"),
                field("Volume", "slider", "75"),
                field("Brightness", "slider", "6"),
            ]}),
        )
        .await
        .unwrap();
    assert!(!filled.is_error, "{}", filled.text);
    let facts = filled.structured.clone().expect("structuredContent");
    assert!(facts["kind"].is_string() && facts["version"].is_u64(), "{facts}");
    assert!(filled.text.contains("Ada Lovelace") && filled.text.contains("checked"), "one answer: {}", filled.text);
    c.ok("browser_click", json!({"ref": ref_named(&page, "Send")})).await;
    let sent =
        "name=Ada Lovelace email=ada@example.com news=true terms=true plan=pro country=de volume=75 bright=6 seats=2";
    assert!(rig.server.wait_for_event(sent, WAIT), "{:?}", rig.server.events());

    // A radio is not unselected by asking: the error says how, and which fields were filled.
    let radio = c
        .call(
            "browser_fill_form",
            json!({"fields": [field("Name", "textbox", "Grace"), field("Pro", "radio", "false")]}),
        )
        .await
        .unwrap();
    assert!(radio.is_error && radio.text.contains("selecting another of its group"), "{}", radio.text);
    assert!(radio.text.contains("The field before it was filled"), "{}", radio.text);
}

/// `browser_type` sets a slider to the number it is given, as `browser_fill_form` does: a range
/// input takes it (stepped and clamped by the browser, which the answer shows), an ARIA slider is
/// moved there with arrow keys; text that is no number is refused before the page is touched.
#[tokio::test(flavor = "multi_thread")]
async fn a_slider_takes_the_number_typed_into_it() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let (volume, brightness) = (ref_named(&page, "Volume"), ref_named(&page, "Brightness"));
    // An ARIA slider's line gives its own bounds.
    assert!(page.text.contains(&format!("{brightness} slider \"Brightness\" = \"3\" (0–10)")), "{}", page.text);

    let word = c.call("browser_type", json!({"ref": volume, "text": "loud"})).await.unwrap();
    assert!(word.is_error && word.text.contains("the value of a slider is a number, not \"loud\""), "{}", word.text);
    let typed = c.call("browser_type", json!({"ref": volume, "text": "72"})).await.unwrap();
    assert!(!typed.is_error, "{}", typed.text);
    assert!(typed.text.contains("→ \"70\""), "the browser's step of 5 is shown: {}", typed.text);
    let moved = c.call("browser_type", json!({"ref": brightness, "text": "8"})).await.unwrap();
    assert!(!moved.is_error && moved.text.contains("→ \"8\""), "{}", moved.text);

    // What the page itself holds, as its form sends it.
    c.ok("browser_click", json!({"ref": ref_named(&page, "Send")})).await;
    let sent = || rig.server.events().iter().any(|e| e.ends_with(" volume=70 bright=8 seats=2"));
    let deadline = std::time::Instant::now() + WAIT;
    while !sent() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(sent(), "{:?}", rig.server.events());
}

/// A number field takes what is no number without a word (`abc` or `3 seats` typed into it
/// empties it, `1,5` becomes 15): such text is refused before the field is touched, and it keeps
/// its value.
#[tokio::test(flavor = "multi_thread")]
async fn a_number_field_refuses_text_that_is_no_number_and_keeps_its_value() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let seats = ref_named(&page, "Seats");
    assert!(page.text.contains(&format!("{seats} spinbutton \"Seats\" = \"2\" (1–9)")), "{}", page.text);

    for text in ["abc", "3 seats", "1,5"] {
        let word = c.call("browser_type", json!({"ref": seats, "text": text})).await.unwrap();
        assert!(word.is_error, "{text}: {}", word.text);
        assert!(
            word.text.contains(&format!("a number field takes a number written like 42 or -1.5, not {text:?}")),
            "{}",
            word.text
        );
    }
    let filled = c
        .call(
            "browser_fill_form",
            json!({"fields": [{"name": "Seats", "type": "textbox", "ref": seats, "value": "four"}]}),
        )
        .await
        .unwrap();
    assert!(filled.is_error && filled.text.contains("not \"four\""), "{}", filled.text);
    // What the page holds, as its form sends it: the field kept its value, then took the number.
    let (send, rig) = (&ref_named(&page, "Send"), &rig);
    let sent = |seats: &'static str| async move {
        c.ok("browser_click", json!({"ref": send})).await;
        let sent = || rig.server.events().iter().any(|e| e.ends_with(seats));
        let deadline = std::time::Instant::now() + WAIT;
        while !sent() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(sent(), "{seats}: {:?}", rig.server.events());
    };
    sent(" seats=2").await;
    let typed = c.call("browser_type", json!({"ref": seats, "text": "4"})).await.unwrap();
    assert!(!typed.is_error && typed.text.contains("→ \"4\""), "{}", typed.text);
    sent(" seats=4").await;
}

/// A form whose constraints stop its submission shows a person a bubble that is no part of the
/// page: the answer names each field the browser flagged, by ref, with its message (the page's
/// own quoted as page text), after a click and after Enter; a form that is sent has no such note.
#[tokio::test(flavor = "multi_thread")]
async fn a_form_stopped_by_its_constraints_says_which_fields_and_why() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/constraints.html").await;
    let (email, age, code, join) =
        (ref_named(&page, "Email"), ref_named(&page, "Age"), ref_named(&page, "Code"), ref_named(&page, "Join now"));
    let fields = "the browser found fields invalid, and a form is not sent while one is: ";
    let letter = format!("{code} \"Use the code from your letter\\n[");

    let empty = c.call("browser_click", json!({"ref": join})).await.unwrap();
    assert!(!empty.is_error, "{}", empty.text);
    assert!(
        empty.text.contains(&format!("{fields}{email} \"Please fill out this field.\", {letter}")),
        "{}",
        empty.text
    );
    assert!(!empty.text.contains("[e99"), "the page's message posed as a ref: {}", empty.text);

    let typed = c.call("browser_type", json!({"ref": email, "text": "ada", "submit": true})).await.unwrap();
    assert!(typed.text.contains(&format!("{fields}{email} \"")) && typed.text.contains("'@'"), "{}", typed.text);
    let enter = c.call("browser_press_key", json!({"ref": email, "key": "Enter"})).await.unwrap();
    assert!(enter.text.contains(&format!("{fields}{email} \"")) && enter.text.contains("'@'"), "{}", enter.text);

    c.ok("browser_type", json!({"ref": email, "text": "ada@example.com"})).await;
    c.ok("browser_type", json!({"ref": age, "text": "12"})).await;
    let two = c.call("browser_click", json!({"ref": join})).await.unwrap();
    let low = format!("{fields}{age} \"Value must be greater than or equal to 18.\", {letter}");
    assert!(two.text.contains(&low), "{}", two.text);

    c.ok("browser_type", json!({"ref": age, "text": "30"})).await;
    c.ok("browser_type", json!({"ref": code, "text": "X1"})).await;
    let sent = c.call("browser_click", json!({"ref": join})).await.unwrap();
    assert!(!sent.is_error && !sent.text.contains("invalid"), "{}", sent.text);
    // (A `code` in an address is masked, as an OAuth code would be.)
    assert!(sent.text.contains("constraints.html?email=ada%40example.com&age=30&code="), "{}", sent.text);
}

/// A required field the page hides stops its form as surely as an empty visible one, and the
/// agent was given no ref for it: the note names it by what the page calls it and says the page
/// hides it, so the agent does not click Send again.
#[tokio::test(flavor = "multi_thread")]
async fn a_form_stopped_by_a_field_the_page_hides_says_so() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/constraints-hidden.html").await;
    assert!(!page.text.contains("Postcode"), "the hidden field is not shown: {}", page.text);
    let clicked = c.call("browser_click", json!({"ref": ref_named(&page, "Deliver")})).await.unwrap();
    assert!(!clicked.is_error, "{}", clicked.text);
    let said = "the browser found a field invalid, and a form is not sent while one is: \
                a field the page hides, \"Postcode\": \"Please fill out this field.\"";
    assert!(clicked.text.contains(said), "{}", clicked.text);
    assert!(!clicked.text.contains("zip="), "the form was not sent: {}", clicked.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn scrolling_moves_the_page_or_a_list_and_the_answer_shows_what_appeared() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    assert!(page.text.contains("Story 10") && !page.text.contains("Story 11"), "{}", page.text);

    let up = c.call("browser_scroll", json!({"direction": "up"})).await.unwrap();
    assert!(!up.is_error && up.text.contains("the page did not scroll up: it is at its start"), "{}", up.text);
    let down = c.call("browser_scroll", json!({"amount": 300})).await.unwrap();
    assert!(!down.is_error && down.text.contains("the page scrolled 300 px down"), "{}", down.text);

    // A ref inside a list that scrolls scrolls the list; what it loads is in the answer.
    let story = ref_named(&page, "Story 3");
    let feed = c.call("browser_scroll", json!({"ref": story, "amount": 400})).await.unwrap();
    assert!(!feed.is_error, "{}", feed.text);
    assert!(feed.text.contains(r#"<ul id="feed"> scrolled"#), "{}", feed.text);
    assert!(feed.text.contains("Story 11"), "the stories it loaded are in the answer: {}", feed.text);

    let to = c.call("browser_scroll", json!({"to_ref": ref_named(&page, "Knob")})).await.unwrap();
    assert!(!to.is_error, "{}", to.text);
    let both = c.call("browser_scroll", json!({"to_ref": story, "amount": 3})).await.unwrap();
    assert!(both.is_error && both.text.contains("not both"), "{}", both.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn waiting_ends_when_text_comes_or_an_element_goes_and_is_bounded() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let later = ref_named(&page, "Start timer");

    let none = c.call("browser_wait_for", json!({})).await.unwrap();
    assert!(none.is_error && none.text.contains("give `text`"), "{}", none.text);
    let long = c.call("browser_wait_for", json!({"time": 45})).await.unwrap();
    assert!(long.is_error && long.text.contains("at most 30"), "{}", long.text);
    let two = c.call("browser_wait_for", json!({"text": "a", "text_gone": "b"})).await.unwrap();
    assert!(two.is_error && two.text.contains("not several"), "{}", two.text);

    c.ok("browser_click", json!({"ref": later})).await;
    let rang = c.call("browser_wait_for", json!({"text": "The timer rang"})).await.unwrap();
    assert!(!rang.is_error, "{}", rang.text);
    assert!(rang.text.contains(r#"waited"#) && rang.text.contains(r#""The timer rang" appeared"#), "{}", rang.text);
    assert!(rang.structured.as_ref().is_some_and(|s| s["kind"].is_string()), "{:?}", rang.structured);

    let gone = c.call("browser_wait_for", json!({"ref_gone": later})).await.unwrap();
    assert!(!gone.is_error && gone.text.contains(&format!("{later} is gone")), "{}", gone.text);
    let never = c.call("browser_wait_for", json!({"text": "Never shown", "time": 1})).await.unwrap();
    assert!(never.is_error && never.text.contains(r#""Never shown" did not appear after 1."#), "{}", never.text);
    let still = c.call("browser_wait_for", json!({"text_gone": "Sign up", "time": 0.5})).await.unwrap();
    assert!(still.is_error && still.text.contains("is still there"), "{}", still.text);
    let pause = c.call("browser_wait_for", json!({"time": 0.5})).await.unwrap();
    assert!(!pause.is_error && pause.text.contains("waited 0."), "{}", pause.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn mouse_drags_and_html5_drag_and_drop_both_work() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let knob = ref_named(&page, "Knob");

    let nowhere = c.call("browser_drag", json!({"start_ref": knob})).await.unwrap();
    assert!(nowhere.is_error && nowhere.text.contains("give `end_ref`"), "{}", nowhere.text);

    let moved = c.call("browser_drag", json!({"start_ref": knob, "dx": 100})).await.unwrap();
    assert!(!moved.is_error, "{}", moved.text);
    assert!(rig.server.wait_for_event("knob 100", WAIT), "{:?}", rig.server.events());
    assert!(moved.text.contains("Knob at 100"), "{}", moved.text);

    let dropped = c
        .call("browser_drag", json!({"start_ref": ref_named(&page, "Card"), "end_ref": ref_named(&page, "Bin")}))
        .await;
    let dropped = dropped.unwrap();
    assert!(!dropped.is_error, "{}", dropped.text);
    assert!(rig.server.wait_for_event("dropped card-1", WAIT), "{:?}", rig.server.events());
    assert!(dropped.text.contains("Bin holds card-1"), "{}", dropped.text);
}

/// A card that is only `<div draggable="true">` with a `dragstart` listener (no role, label or
/// click listener) has a ref that says it can be dragged, and `browser_drag` drops it.
#[tokio::test(flavor = "multi_thread")]
async fn a_plain_draggable_card_has_a_ref_and_is_dropped_onto_another_column() {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/kanban.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let card_a = ref_of(&page, "draggable", "Card A");
    let card_c = ref_of(&page, "draggable", "Card C");
    assert!(page.text.contains(&format!("{card_a} draggable \"Card A\"")), "{}", page.text);
    let dropped = rig.client.call("browser_drag", json!({"start_ref": card_a, "end_ref": card_c})).await.unwrap();
    assert!(!dropped.is_error, "{}", dropped.text);
    assert!(rig.server.wait_for_event("moved card-a to done", WAIT), "{:?}", rig.server.events());
    assert!(dropped.text.contains("Card A moved to Done"), "{}", dropped.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn screenshots_come_as_images_and_points_can_be_clicked_and_dragged() {
    use base64::Engine;
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let decode = |reply: &Reply| {
        assert_eq!(reply.images.len(), 1, "{}", reply.text);
        base64::engine::general_purpose::STANDARD.decode(&reply.images[0].1).expect("base64")
    };

    let view = c.call("browser_take_screenshot", json!({})).await.unwrap();
    assert!(!view.is_error, "{}", view.text);
    assert!(decode(&view).starts_with(b"\x89PNG"), "{}", view.text);
    assert_eq!(view.images[0].0, "image/png");
    let facts = view.structured.clone().expect("structuredContent");
    let (width, height) = (facts["width"].as_f64().unwrap(), facts["height"].as_f64().unwrap());
    assert!(view.text.starts_with("Screenshot of the viewport"), "{}", view.text);

    let full =
        c.call("browser_take_screenshot", json!({"full_page": true, "type": "jpeg", "scale": 0.5})).await.unwrap();
    assert!(decode(&full).starts_with(&[0xff, 0xd8]), "{}", full.text);
    assert!(full.structured.clone().unwrap()["height"].as_f64().unwrap() > height / 2.0, "{}", full.text);
    let send = c.call("browser_take_screenshot", json!({"ref": ref_named(&page, "Send")})).await.unwrap();
    let button = send.structured.clone().unwrap();
    assert!(button["width"].as_f64().unwrap() < width / 2.0, "{}", send.text);
    let labelled = c.call("browser_take_screenshot", json!({"refs": true})).await.unwrap();
    assert!(
        !labelled.is_error && labelled.text.contains("refs drawn") && !labelled.text.contains(" 0 refs"),
        "{}",
        labelled.text
    );
    // The labels are gone from the page once the screenshot is taken.
    let after = c.ok("browser_snapshot", json!({})).await;
    assert!(!after.contains("sightline"), "{after}");
    let bad = c.call("browser_take_screenshot", json!({"scale": 3})).await.unwrap();
    assert!(bad.is_error && bad.text.contains("0.1 to 1"), "{}", bad.text);

    // Coordinates are a last resort, listed only for a session started with `--caps vision`.
    let listed = c.peer().list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name == "browser_mouse_click_xy"), "not listed without --caps vision");
    let refused = c.call("browser_mouse_click_xy", json!({"x": 10, "y": 10})).await.unwrap();
    assert!(refused.is_error && refused.text.contains("--caps vision"), "{}", refused.text);
    let vision = McpClient::connect_with(&rig.sandbox, &["--caps", "vision"]).await.unwrap();
    let c = &vision;
    let listed = c.peer().list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "browser_mouse_drag_xy"), "listed with --caps vision");
    c.ok("browser_navigate", json!({"url": rig.server.url("actions/forms.html")})).await;

    // The canvas (200 × 100) sits at the bottom right of the viewport.
    let (left, top) = (width - 200.0, height - 100.0);
    let clicked = c.call("browser_mouse_click_xy", json!({"x": left + 50.0, "y": top + 50.0})).await.unwrap();
    assert!(!clicked.is_error, "{}", clicked.text);
    assert!(rig.server.wait_for_event("pad 50,50", WAIT), "{:?}", rig.server.events());
    let dragged = c.call(
        "browser_mouse_drag_xy",
        json!({"start_x": left + 20.0, "start_y": top + 20.0, "end_x": left + 120.0, "end_y": top + 70.0}),
    );
    assert!(!dragged.await.unwrap().is_error);
    assert!(rig.server.wait_for_event("pad drag 20,20 to 120,70", WAIT), "{:?}", rig.server.events());
    let outside = c.call("browser_mouse_click_xy", json!({"x": width + 10.0, "y": 5})).await.unwrap();
    assert!(outside.is_error && outside.text.contains("outside the viewport"), "{}", outside.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn files_are_chosen_for_an_input_or_an_open_chooser_and_bad_paths_never_leave_the_host() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let dir = rig.sandbox.root().join("uploads");
    std::fs::create_dir_all(&dir).unwrap();
    let (cv, other) = (dir.join("cv.txt"), dir.join("notes.txt"));
    std::fs::write(&cv, "my cv").unwrap();
    std::fs::write(&other, "some notes").unwrap();
    let (cv, other) = (cv.to_string_lossy().into_owned(), other.to_string_lossy().into_owned());
    let input = ref_named(&page, "CV");

    let relative = c.call("browser_file_upload", json!({"ref": input, "paths": ["cv.txt"]})).await.unwrap();
    assert!(relative.is_error && relative.text.contains("not an absolute path"), "{}", relative.text);
    let missing = c.call("browser_file_upload", json!({"ref": input, "paths": [format!("{cv}.gone")]})).await.unwrap();
    assert!(missing.is_error && missing.text.contains("there is no file"), "{}", missing.text);
    let two = c.call("browser_file_upload", json!({"ref": input, "paths": [cv, other]})).await.unwrap();
    assert!(two.is_error && two.text.contains("takes one file"), "{}", two.text);
    let no_chooser = c.call("browser_file_upload", json!({"paths": [cv]})).await.unwrap();
    assert!(no_chooser.is_error && no_chooser.text.contains("no file chooser is open"), "{}", no_chooser.text);

    let chosen = c.call("browser_file_upload", json!({"ref": input, "paths": [cv]})).await.unwrap();
    assert!(!chosen.is_error, "{}", chosen.text);
    assert!(rig.server.wait_for_event("cv cv.txt:5", WAIT), "{:?}", rig.server.events());

    // A button that opens a chooser for a hidden input: the answer says so, and the files go there.
    let opened = c.call("browser_click", json!({"ref": ref_named(&page, "Attach")})).await.unwrap();
    assert!(!opened.is_error && opened.text.contains("a file chooser opened for files"), "{}", opened.text);
    let attached = c.call("browser_file_upload", json!({"paths": [cv, other]})).await.unwrap();
    assert!(!attached.is_error, "{}", attached.text);
    assert!(rig.server.wait_for_event("attached cv.txt:5,notes.txt:10", WAIT), "{:?}", rig.server.events());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_path_is_checked_where_its_links_lead_and_the_page_gets_the_file_they_lead_to() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;
    let input = ref_named(&page, "CV");
    // The host runs with this HOME: a key in its ~/.ssh, and an ordinary-looking link to it.
    let home = rig.sandbox.root().join("home");
    for dir in [".ssh", "Documents", "Downloads"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    std::fs::write(home.join(".ssh/id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh/id_ed25519"), home.join("Documents/report.pdf")).unwrap();
    std::fs::write(home.join("Downloads/quarterly-2024.pdf"), "numbers").unwrap();
    std::os::unix::fs::symlink("../Downloads/quarterly-2024.pdf", home.join("Documents/summary.pdf")).unwrap();
    let path = |relative: &str| home.join(relative).to_string_lossy().into_owned();

    let key =
        c.call("browser_file_upload", json!({"ref": input, "paths": [path("Documents/report.pdf")]})).await.unwrap();
    assert!(key.is_error && key.text.contains("it leads (through a link) to a file"), "{}", key.text);
    assert!(key.text.contains("inside the SSH keys (~/.ssh)"), "the answer says why: {}", key.text);
    assert!(!key.text.contains("id_ed25519"), "the answer does not say where the link leads: {}", key.text);

    // A link to an ordinary file is followed: the page gets the file under its own name.
    let followed = c.call("browser_file_upload", json!({"ref": input, "paths": [path("Documents/summary.pdf")]}));
    let followed = followed.await.unwrap();
    assert!(!followed.is_error, "{}", followed.text);
    assert!(rig.server.wait_for_event("cv quarterly-2024.pdf:7", WAIT), "{:?}", rig.server.events());
    // Its change came after the refusal's would have: the page received nothing else.
    let chosen: Vec<String> = rig.server.events().into_iter().filter(|e| e.starts_with("cv ")).collect();
    assert_eq!(chosen, ["cv quarterly-2024.pdf:7"], "what the page received");
}

#[tokio::test(flavor = "multi_thread")]
async fn words_are_selected_on_the_page_or_in_an_element() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = rig.open("actions/forms.html").await;

    let words = c.call("browser_select_text", json!({"text": "brown fox jumps"})).await.unwrap();
    assert!(!words.is_error, "{}", words.text);
    assert!(words.text.starts_with(r#"! selected "brown fox jumps" (15 characters)"#), "{}", words.text);
    assert!(rig.server.wait_for_event("selected brown fox jumps", WAIT), "{:?}", rig.server.events());
    assert!(words.text.contains("Selected: brown fox jumps"), "the answer shows what followed: {}", words.text);

    let email = ref_named(&page, "Email");
    let field = c.call("browser_select_text", json!({"ref": email})).await.unwrap();
    assert!(!field.is_error && field.text.contains(r#"selected "old@example.com""#), "{}", field.text);
    let missing = c.call("browser_select_text", json!({"text": "purple cow"})).await.unwrap();
    assert!(missing.is_error && missing.text.contains(r#"the page has no text "purple cow""#), "{}", missing.text);
    let nothing = c.call("browser_select_text", json!({})).await.unwrap();
    assert!(nothing.is_error && nothing.text.contains("give `text`"), "{}", nothing.text);
}

/// Date, time, month, week and colour inputs take `browser_type`'s text as their whole value,
/// in the format the snapshot shows beside them, with the `input` and `change` events a
/// person's pick fires (and so does a textbox of `browser_fill_form`). A value the browser does
/// not take is refused with that format and the field keeps its value; a read-only one is
/// refused.
#[tokio::test(flavor = "multi_thread")]
async fn date_time_and_colour_fields_take_their_value_in_the_format_the_snapshot_shows() {
    let rig = Rig::start().await.expect("rig");
    let page = rig.open("actions/pickers.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    let day = ref_of(&page, "date", "Day");
    assert!(page.text.contains(&format!("{day} date \"Day\" (yyyy-mm-dd)")), "{}", page.text);
    for (role, name, id, value, shown) in [
        ("date", "Day", "day", "2026-12-24", "2026-12-24"),
        ("time", "Arrival", "arrival", "19:30", "19:30"),
        ("datetime", "Reminder", "reminder", "2026-12-24T18:00", "2026-12-24T18:00"),
        ("month", "Month", "month", "2026-12", "2026-12"),
        ("color", "Napkins", "napkins", "#AA0000", "#aa0000"),
    ] {
        let field = ref_of(&page, role, name);
        let typed = rig.client.call("browser_type", json!({"ref": field, "text": value})).await.unwrap();
        assert!(!typed.is_error, "{role}: {}", typed.text);
        assert!(
            typed.text.contains(&format!("= \"{shown}\"")) || typed.text.contains(&format!("→ \"{shown}\"")),
            "{}",
            typed.text
        );
        for kind in ["input", "change"] {
            let event = format!("{kind} {id} {shown}");
            assert!(rig.server.wait_for_event(&event, WAIT), "{event}: {:?}", rig.server.events());
        }
    }
    let week = ref_of(&page, "week", "Week");
    let filled = rig
        .client
        .call(
            "browser_fill_form",
            json!({"fields": [{"name": "Week", "type": "textbox", "ref": week, "value": "2026-W52"}]}),
        )
        .await
        .unwrap();
    assert!(!filled.is_error, "{}", filled.text);
    assert!(rig.server.wait_for_event("change week 2026-W52", WAIT), "{:?}", rig.server.events());

    let refused = rig.client.call("browser_type", json!({"ref": day, "text": "24.12.2026"})).await.unwrap();
    assert!(refused.is_error, "{}", refused.text);
    assert!(
        refused.text.contains(&format!(
            "{day} did not take \"24.12.2026\": an <input type=date> takes its value as yyyy-mm-dd, and it keeps the value it had"
        )),
        "{}",
        refused.text
    );
    let after = rig.client.call("browser_snapshot", json!({})).await.unwrap();
    assert!(after.text.contains(&format!("{day} date \"Day\" = \"2026-12-24\"")), "{}", after.text);
    let opened = ref_of(&page, "date", "Opened");
    let readonly = rig.client.call("browser_type", json!({"ref": opened, "text": "2026-01-01"})).await.unwrap();
    assert!(readonly.is_error && readonly.text.contains("is disabled or read-only"), "{}", readonly.text);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = rig.server.events();
    assert!(!events.iter().any(|e| e.contains("24.12.2026") || e.starts_with("change opened")), "{events:?}");
    assert_eq!(events.iter().filter(|e| *e == "change day 2026-12-24").count(), 1, "{events:?}");
}
