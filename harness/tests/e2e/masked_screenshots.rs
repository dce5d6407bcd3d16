//! A screenshot never shows more than the snapshot does. A one-time code, a card number in
//! another site's payment frame, a password the person revealed with "Show" and a frame whose
//! URL the snapshot refuses to read (a `data:` URL) are painted over
//! in the viewport, the whole page and an element's screenshot, read back with OCR: none of the
//! values is legible, while the test's own screenshot of the same page (taken without
//! Sightline) shows every one, so the drill can fail. A screenshot of a masked field alone is
//! refused. A page that moves its fields every frame, animates them, and strips whatever is
//! added to its DOM gains nothing: the page is held still while it is measured and captured,
//! and covers and ref labels are drawn into the image's pixels, never into the page.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::{Rig, ocr, ref_of, service_worker};

const WAIT: Duration = Duration::from_secs(10);

/// The values on the page, as OCR would run them together.
const SECRETS: [&str; 4] = ["Zebra7Quartz", "739154", "4242424242424242", "58213"];

/// Opens the page (hostile or not), waits for its payment frame, and has the person reveal the
/// password with the page's own Show button after the agent has seen it masked.
async fn open(rig: &Rig, query: &str) {
    let page = rig
        .client
        .call("browser_navigate", json!({"url": rig.server.url(&format!("trust/secrets-shown.html{query}"))}))
        .await;
    assert!(!page.expect("navigate").is_error);
    assert!(rig.server.wait_for_event("card-ready", WAIT), "{:?}", rig.server.events());
    let seen = rig.client.ok("browser_snapshot", json!({})).await;
    assert!(!SECRETS.iter().any(|s| ocr::squeezed(&seen).contains(s)), "the snapshot masks every value: {seen}");
    // The person clicks Show: the password field becomes a text field.
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "secrets-shown").expect("attach");
    cdp.call(Some(&session), "Runtime.evaluate", json!({"expression": "document.getElementById('show').click()"}))
        .expect("reveal");
}

/// What OCR reads in the test's own screenshot of the page (viewport, or the whole page).
fn unmasked_text(rig: &Rig, full_page: bool) -> String {
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "secrets-shown").expect("attach");
    let shot = cdp
        .call(Some(&session), "Page.captureScreenshot", json!({"format": "png", "captureBeyondViewport": full_page}))
        .expect("the test's own screenshot");
    ocr::read_base64(shot["data"].as_str().expect("data")).expect("ocr")
}

/// The image of a screenshot answer, and what OCR reads in it.
fn read_shot(reply: &sightline_harness::client::Reply, what: &str) -> (Vec<u8>, String) {
    assert!(!reply.is_error, "{what}: {}", reply.text);
    let (_, data) = reply.images.first().unwrap_or_else(|| panic!("{what}: no image"));
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
    std::fs::create_dir_all(sightline_harness::paths::workspace_root().join("target/ui")).expect("dir");
    let name = format!("masked-{}.png", what.replace(' ', "-"));
    std::fs::write(sightline_harness::paths::workspace_root().join("target/ui").join(name), &bytes).expect("save");
    let text = ocr::read(&bytes).expect("ocr");
    (bytes, text)
}

fn assert_reads_none(text: &str, what: &str) {
    let squeezed = ocr::squeezed(text);
    for secret in SECRETS {
        assert!(!squeezed.contains(secret), "{what}: OCR read {secret} in:\n{text}");
    }
    // The shorter pieces a value could be read as.
    for piece in ["Quartz", "Zebra", "739", "4242"] {
        assert!(!squeezed.contains(piece), "{what}: OCR read {piece} in:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_kind_of_screenshot_shows_a_value_the_snapshot_masks() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    open(&rig, "").await;
    // OCR reads every value where nothing is painted over: the drill can fail. The payment
    // frame is another site's process, which may paint a moment after it reported ready.
    for full_page in [false, true] {
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            let own = ocr::squeezed(&unmasked_text(&rig, full_page));
            let unread: Vec<_> = SECRETS.iter().filter(|secret| !own.contains(*secret)).collect();
            if unread.is_empty() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "OCR never read {unread:?} in the test's own screenshot: {own}"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    let c = &rig.client;
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    assert!(page.text.contains("••••••") && !page.text.contains("Zebra7Quartz"), "{}", page.text);

    let viewport = c.call("browser_take_screenshot", json!({})).await.expect("screenshot");
    let (_, text) = read_shot(&viewport, "viewport");
    assert_reads_none(&text, "viewport");
    assert!(text.contains("Checkout") && ocr::squeezed(&text).contains("93.17"), "the rest of the page shows: {text}");
    assert!(viewport.text.contains("3 masked field(s) and 1 refused frame(s) painted over"), "{}", viewport.text);

    let whole = c.call("browser_take_screenshot", json!({"full_page": true})).await.expect("screenshot");
    let (_, text) = read_shot(&whole, "full page");
    assert_reads_none(&text, "full page");
    assert!(text.contains("End of page"), "the whole page is in it: {text}");

    let form = ref_of(&page, "button", "Show");
    let element = c.call("browser_take_screenshot", json!({"ref": form})).await.expect("screenshot");
    assert!(!element.is_error, "{}", element.text);
    let key = ref_of(&page, "textbox", "Key");
    let refused = c.call("browser_take_screenshot", json!({"ref": key})).await.expect("screenshot");
    assert!(refused.is_error && refused.text.contains("masks"), "{}", refused.text);
    assert!(refused.images.is_empty());
    // Whatever it covers of the page, the page itself is untouched: the person still sees it.
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "secrets-shown").expect("attach");
    let still_there = cdp
        .call(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": "document.getElementById('p1').value", "returnByValue": true}),
        )
        .expect("read");
    assert_eq!(still_there["result"]["value"], json!("Zebra7Quartz"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_animates_its_fields_and_strips_additions_cannot_uncover_them_or_forge_labels() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    open(&rig, "?strip").await;
    let c = &rig.client;
    for args in [json!({}), json!({"full_page": true}), json!({"refs": true})] {
        let shot = c.call("browser_take_screenshot", args.clone()).await.expect("screenshot");
        let what =
            format!("strip {}", args.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or("viewport".into()));
        let (bytes, text) = read_shot(&shot, &what);
        assert_reads_none(&text, &what);
        if args["refs"] == json!(true) {
            // Each label is in the image's pixels where the answer says.
            let labels = shot.structured.as_ref().map(|s| s["labels"].clone()).unwrap_or(Value::Null);
            let labels = labels.as_array().cloned().unwrap_or_default();
            assert!(!labels.is_empty(), "{}", shot.text);
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
            let mut reader = decoder.read_info().expect("png");
            let mut pixels = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut pixels).expect("frame");
            let channels = info.color_type.samples();
            for label in &labels {
                let (x, y) = (label["tag"]["x"].as_u64().unwrap() + 1, label["tag"]["y"].as_u64().unwrap() + 1);
                let at = (y as usize * info.width as usize + x as usize) * channels;
                assert_eq!(
                    &pixels[at..at + 3],
                    &[0xe0, 0x21, 0x8a],
                    "label {} is drawn: {label}",
                    label["element_ref"]
                );
            }
        }
    }
    // Nothing was ever added to the page for a cover or a label.
    assert!(!rig.server.events().iter().any(|e| e.starts_with("dom-added")), "{:?}", rig.server.events());
    // The animation the screenshots paused runs again.
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "secrets-shown").expect("attach");
    let playing = cdp
        .call(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": "document.getAnimations().map((a) => a.playState).join()", "returnByValue": true}),
        )
        .expect("read");
    assert_eq!(playing["result"]["value"], json!("running"), "{playing}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_keeps_moving_a_masked_field_gets_no_screenshot_and_keeps_running() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    open(&rig, "?dance").await;
    let c = &rig.client;
    for args in [json!({}), json!({"full_page": true})] {
        let shot = c.call("browser_take_screenshot", args.clone()).await.expect("screenshot");
        // Never a picture in which the field may have been elsewhere than its cover.
        if shot.is_error {
            assert!(shot.text.contains("kept moving"), "{}", shot.text);
            assert!(shot.images.is_empty());
        } else {
            let (_, text) = read_shot(&shot, "dance");
            assert_reads_none(&text, "dance");
        }
    }
    // The page was never paused: its timer goes on moving the field.
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "secrets-shown").expect("attach");
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let read = cdp
            .call(
                Some(&session),
                "Runtime.evaluate",
                json!({"expression": "document.getElementById('p1').style.marginTop", "returnByValue": true}),
            )
            .expect("read");
        seen.insert(read["result"]["value"].to_string());
        std::thread::sleep(Duration::from_millis(30));
    }
    assert!(seen.len() > 1, "the page's own scripts run on: {seen:?}");
}
