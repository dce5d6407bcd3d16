//! Redaction: the values of secret fields and the secrets in a page's URL never appear in any
//! answer the page state writes (snapshot text and facts, deltas and their facts, a later page
//! of a snapshot, `browser_find`, the review a person reads), while the fields themselves stay
//! visible and addressable, and an ordinary field's value is shown. Pages are built in CDP's
//! own shapes (see `support`).

mod support;

use serde_json::json;
use sightline_core::page_state::find::FindQuery;
use sightline_core::page_state::{Answer, PageState};
use sightline_core::protocol::ToolOutput;
use sightline_core::snapshot::element::MASK;
use support::*;

const MARKER: &str = "SLMARK-7f3a";

/// Every kind of secret field, each holding `MARKER`, beside an ordinary one holding "Ada".
fn checkout(loader: &str, password_type: &str) -> Page {
    let value = |n: &str| format!("{MARKER}-{n}");
    let fields = vec![
        field(30, &[("type", "text"), ("name", "fullname")], "Full name", "Ada"),
        field(31, &[("type", "text"), ("name", "otp")], "", &value("otp")),
        field(32, &[("type", "text"), ("autocomplete", "one-time-code")], "Code", &value("otc")),
        field(33, &[("type", "text"), ("id", "cc-exp")], "", &value("exp")),
        field(34, &[("type", "text"), ("name", "pin")], "", &value("pin")),
        field(35, &[("type", "text"), ("id", "payout_iban")], "", &value("iban")),
        with_text_security(
            field(36, &[("type", "text"), ("name", "answer")], "Memorable word", &value("tsec")),
            "disc",
        ),
        field(37, &[("type", password_type), ("name", "login")], "Login secret", &value("pw")),
        field(38, &[("type", "text")], "Card number", &value("card")),
        field(39, &[("type", "text"), ("name", "ssn")], "", &value("ssn")),
    ];
    let mut page = page(loader, vec![landmark(19, "main", "", fields)]);
    page.url = format!("https://shop.test/checkout?step=2&token={MARKER}-url&access_token={MARKER}-at#code={MARKER}-c");
    page
}

fn everything(out: &ToolOutput) -> String {
    format!("{}\n{}", out.text, out.structured.as_ref().map(|s| s.to_string()).unwrap_or_default())
}

fn assert_no_marker(what: &str, text: &str) {
    assert!(!text.contains(MARKER), "{what} shows a secret:\n{text}");
}

#[test]
fn a_snapshot_masks_every_kind_of_secret_field_and_the_urls_secrets_and_keeps_the_rest() {
    let mut ps = PageState::new();
    let snapshot = ps.compile(&capture(&checkout("L1", "password")));
    let out = ps.answer_snapshot(snapshot, &Default::default()).expect("an answer");
    assert_no_marker("the snapshot", &everything(&out));
    // The fields are all there, masked, and the ordinary one shows its value.
    let facts = out.structured.as_ref().expect("facts");
    let elements = facts["elements"].as_array().expect("elements");
    assert_eq!(elements.len(), 10, "{}", out.text);
    assert_eq!(elements.iter().filter(|e| e["value"] == MASK).count(), 9, "{facts}");
    assert!(elements.iter().any(|e| e["name"] == "Full name" && e["value"] == "Ada"), "{facts}");
    assert!(out.text.contains("\"Ada\""), "{}", out.text);
    assert!(out.text.contains(&format!("\"{MASK}\"")), "{}", out.text);
    // The URL keeps everything but its secrets.
    let header = out.text.lines().find(|l| l.contains("shop.test")).expect("the header");
    assert!(
        header.contains("https://shop.test/checkout?step=2&token=••••••&access_token=••••••#code=••••••"),
        "{header}"
    );
    assert_eq!(facts["url"], "https://shop.test/checkout?step=2&token=••••••&access_token=••••••#code=••••••");
}

#[test]
fn find_matches_a_secret_field_by_its_name_but_never_by_its_value() {
    let mut ps = PageState::new();
    let snapshot = ps.compile(&capture(&checkout("L1", "password")));
    ps.answer_snapshot(snapshot, &Default::default()).expect("an answer");
    let by_value = ps.find(&FindQuery { text: Some(MARKER.to_lowercase()), ..Default::default() }).expect("found");
    assert!(by_value.text.starts_with("0 matches"), "{}", by_value.text);
    let by_name = ps.find(&FindQuery { text: Some("memorable".into()), ..Default::default() }).expect("found");
    assert!(by_name.text.starts_with("1 match") && by_name.text.contains(MASK), "{}", by_name.text);
    let textboxes = ps.find(&FindQuery { role: Some("textbox".into()), ..Default::default() }).expect("found");
    assert_no_marker("browser_find", &everything(&textboxes));
    assert!(textboxes.text.starts_with("10 matches") && textboxes.text.contains("\"Ada\""), "{}", textboxes.text);
}

#[test]
fn a_password_field_shown_as_text_stays_masked_in_the_delta_and_after() {
    let mut ps = PageState::new();
    let before = ps.compile(&capture(&checkout("L1", "password")));
    ps.answer_snapshot(before, &Default::default()).expect("an answer");
    // A "show password" toggle: the same node, now type=text.
    let shown = ps.compile(&capture(&checkout("L1", "text")));
    let delta = ps.answer(shown, Answer::AfterAction, &[], None);
    assert_no_marker("the delta after a show-password toggle", &everything(&delta));
    assert!(delta.text.contains("Login secret"), "the toggle shows as a change: {}", delta.text);
    let view = ps.view().expect("a view").lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>().join("\n");
    assert_no_marker("the agent's view", &view);
    // A person comparing the versions reads no secret either.
    let held = ps.held_versions();
    let rows = ps.review(held[0], held[held.len() - 1], 3).expect("both held");
    assert_no_marker("the review", &format!("{rows:?}"));
    // Later looks keep it masked while the document lives…
    let again = ps.compile(&capture(&checkout("L1", "text")));
    assert_no_marker("a later snapshot", &everything(&ps.answer_snapshot(again, &Default::default()).unwrap()));
    // …and when the page comes back from the back/forward cache, under a new loader id.
    let restored = ps.compile(&capture(&checkout("L2", "text")));
    assert_no_marker("a restored page", &everything(&ps.answer(restored, Answer::Baseline, &[], None)));
    // A field of another document that was never secret shows its value.
    let mut fresh = page("L3", vec![field(90, &[("type", "text"), ("name", "login")], "Login secret", "visible")]);
    fresh.url = "https://shop.test/next".into();
    let next = ps.compile(&capture(&fresh));
    let out = ps.answer(next, Answer::Baseline, &[], None);
    assert!(out.text.contains("\"visible\""), "{}", out.text);
}

#[test]
fn a_value_typed_into_a_secret_field_is_a_masked_change() {
    let verify = |value: &str| {
        let mut body: Vec<Node> = (0..6).map(|i| p(40 + i, &format!("Step {i} of signing in"))).collect();
        body.push(field(31, &[("type", "text"), ("name", "otp")], "", value));
        let mut page = page("L1", body);
        page.url = "https://shop.test/verify".into();
        page
    };
    let mut ps = PageState::new();
    let before = ps.compile(&capture(&verify("")));
    ps.answer_snapshot(before, &Default::default()).expect("an answer");
    let typed = verify(MARKER);
    let after = ps.compile(&capture(&typed));
    let out = ps.answer(after, Answer::AfterAction, &[], None);
    assert_no_marker("the delta", &everything(&out));
    assert!(out.text.contains(MASK), "the typing shows, masked: {}", out.text);
    assert_eq!(out.structured.as_ref().expect("facts")["kind"], json!("delta"), "{}", out.text);
}

#[test]
fn a_field_masked_by_its_style_stays_masked_once_the_style_is_removed() {
    let mut ps = PageState::new();
    let masked = page("L1", vec![with_text_security(field(36, &[("type", "text")], "Answer", MARKER), "circle")]);
    let before = ps.compile(&capture(&masked));
    assert_no_marker("the snapshot", &everything(&ps.answer_snapshot(before, &Default::default()).unwrap()));
    let unmasked = page("L1", vec![field(36, &[("type", "text")], "Answer", MARKER)]);
    let after = ps.compile(&capture(&unmasked));
    assert_no_marker("the delta", &everything(&ps.answer(after, Answer::AfterAction, &[], None)));
}

#[test]
fn a_field_named_with_one_of_the_persons_own_words_is_masked_and_stays_masked() {
    let loyalty = |value: &str| {
        page(
            "L1",
            vec![landmark(
                19,
                "main",
                "",
                vec![
                    field(30, &[("type", "text"), ("name", "fullname")], "Full name", "Ada"),
                    field(31, &[("type", "text"), ("id", "loyaltyCard")], "Membership", value),
                ],
            )],
        )
    };
    let mut ps = PageState::new();
    let plain = ps.compile(&capture(&loyalty(MARKER)));
    let out = ps.answer_snapshot(plain, &Default::default()).expect("an answer");
    assert!(out.text.contains(MARKER), "without the word the value is an ordinary one: {}", out.text);
    ps.set_secret_words(&["  LOYALTY ".into(), String::new()]);
    let masked = ps.compile(&capture(&loyalty(MARKER)));
    let out = ps.answer_snapshot(masked, &Default::default()).expect("an answer");
    assert_no_marker("a field named with the person's word", &everything(&out));
    assert!(out.text.contains("\"Ada\""), "{}", out.text);
    // Taking the word away does not unmask a field once masked.
    ps.set_secret_words(&[]);
    let still = ps.compile(&capture(&loyalty(MARKER)));
    let out = ps.answer_snapshot(still, &Default::default()).expect("an answer");
    assert_no_marker("a field once masked", &everything(&out));
}

/// A page URL carrying every shape of secret beyond a plain `?token=`, each holding `MARKER`,
/// beside ordinary parameters.
fn sign_in_callback() -> Page {
    let mut page = page("L1", vec![landmark(19, "main", "", vec![p(20, "Signed in")])]);
    let nested = format!("https%3A%2F%2Fapp.test%2Fcb%3Fcode%3D{MARKER}-nested%26state%3D1");
    let twice =
        format!("https%3A%2F%2Fb.test%2Fsso%3Fnext%3Dhttps%253A%252F%252Fc.test%252F%253Fticket%253D{MARKER}-twice");
    page.url = format!(
        "https://sso.test/cb;jsessionid={MARKER}-path?q=shoes&page=2&id=17&oobCode={MARKER}-oob&ticket={MARKER}-ticket\
         &PHPSESSID={MARKER}-php&oauth_verifier={MARKER}-verifier&session_key={MARKER}-sk&secret_key={MARKER}-sec\
         &passcode={MARKER}-pc&auth_code={MARKER}-ac&SAMLResponse={MARKER}-saml&redirect_uri={nested}\
         &return={twice}#/callback?code={MARKER}-hash&tab=2"
    );
    page
}

#[test]
fn secrets_in_every_part_of_a_url_are_masked_and_ordinary_parameters_stay_readable() {
    let mut ps = PageState::new();
    let snapshot = ps.compile(&capture(&sign_in_callback()));
    let out = ps.answer_snapshot(snapshot, &Default::default()).expect("an answer");
    assert_no_marker("the snapshot of a sign-in callback", &everything(&out));
    let url = out.structured.as_ref().expect("facts")["url"].as_str().expect("a url").to_owned();
    // What a reader needs stays: the endpoint, the search, the page, the id, the route.
    for kept in ["https://sso.test/cb;jsessionid=••••••?q=shoes&page=2&id=17&", "#/callback?code=••••••&tab=2"]
    {
        assert!(url.contains(kept), "{kept} in {url}");
    }
    assert!(url.contains("redirect_uri=https%3A%2F%2Fapp.test%2Fcb%3Fcode%3D••••••%26state%3D1"), "{url}");
    assert_eq!(url.matches("••••••").count(), 13, "each secret masked once: {url}");
}

#[test]
fn a_password_field_shown_as_text_stays_masked_after_a_restart() {
    let mut ps = PageState::new();
    let before = ps.compile(&capture(&checkout("L1", "password")));
    ps.answer_snapshot(before, &Default::default()).expect("an answer");
    let shown = ps.compile(&capture(&checkout("L1", "text")));
    ps.answer(shown, Answer::AfterAction, &[], None);
    // What a restart keeps goes through session storage as JSON; the page state after it is
    // made from that alone.
    let kept = serde_json::to_string(&ps.resume_point()).expect("the point is written");
    let mut resumed = PageState::resumed(serde_json::from_str(&kept).expect("and read back"));
    let after = resumed.compile(&capture(&checkout("L1", "text")));
    let out = resumed.answer_snapshot(after, &Default::default()).expect("an answer");
    assert_no_marker("the first snapshot after a restart", &everything(&out));
    assert!(out.text.contains("Login secret") && out.text.contains("\"Ada\""), "{}", out.text);
    // A point saved before the memory was kept reads as one that remembers nothing.
    let old: sightline_core::page_state::ResumePoint =
        serde_json::from_str(r#"{"version": 3, "last_ref": 9}"#).expect("an older point still reads");
    assert_eq!(old.version, 3);
    assert!(old.secret_fields.fields.is_empty());
}
