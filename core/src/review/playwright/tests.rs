//! The spec writer on recorded calls: dialogs answered by a handler set before the action that
//! opened them, selects, checks, key presses and uploads, and names for parameters.

use serde_json::{Value, json};

use super::*;
use crate::review::target::ActionTarget;

fn call(seq: u64, tool: &str, args: Value, targets: Vec<ActionTarget>) -> CallRecord {
    CallRecord {
        seq,
        session: "s1".into(),
        tool: tool.into(),
        args,
        started_ms: 0.0,
        duration_ms: 1.0,
        version_before: Some(seq),
        version_after: Some(seq + 1),
        kind: None,
        reason: None,
        answer: format!("v{} · no change", seq + 1),
        is_error: false,
        answer_tokens: 1,
        full_page_tokens: None,
        cards: None,
        targets,
    }
}

fn target(element_ref: &str, role: &str, name: &str) -> ActionTarget {
    ActionTarget {
        element_ref: element_ref.into(),
        role: role.into(),
        name: name.into(),
        same_on_page: 1,
        ..Default::default()
    }
}

fn export(calls: Vec<CallRecord>) -> SessionExport {
    SessionExport {
        exported_by: "Sightline 0.1.0".into(),
        exported_at: "2026-01-01T00:00:00.000Z".into(),
        tab: 3,
        title: Some("Form".into()),
        url: None,
        answer_tokens: 0,
        full_page_tokens: 0,
        calls,
        events: Vec::new(),
    }
}

#[test]
fn a_dialog_is_answered_by_a_handler_set_before_the_action_that_opened_it() {
    let spec = playwright_spec(
        &export(vec![
            call(1, "browser_click", json!({"ref": "e2"}), vec![target("e2", "button", "Delete")]),
            call(2, "browser_snapshot", json!({}), vec![]),
            call(3, "browser_handle_dialog", json!({"accept": true, "prompt_text": "yes"}), vec![]),
        ]),
        SpecRange::default(),
    )
    .unwrap_or_default();
    let handler = spec.find("page.once(\"dialog\", (dialog) => void dialog.accept(\"yes\"));");
    let click = spec.find("getByRole(\"button\", { name: \"Delete\", exact: true }).click();");
    assert!(handler.is_some() && click.is_some() && handler < click, "{spec}");
}

#[test]
fn selects_checks_keys_uploads_and_failed_calls() {
    let fields = json!({"fields": [
        {"name": "Newsletter", "type": "checkbox", "ref": "e5", "value": "true"},
        {"name": "Country", "type": "combobox", "ref": "e6", "value": "Norway"},
    ]});
    let mut failed = call(4, "browser_click", json!({"ref": "e9"}), vec![target("e9", "button", "Nope")]);
    failed.is_error = true;
    let spec = playwright_spec(
        &export(vec![
            call(
                1,
                "browser_select_option",
                json!({"ref": "e4", "values": ["M"]}),
                vec![target("e4", "combobox", "Size")],
            ),
            call(
                2,
                "browser_fill_form",
                fields,
                vec![target("e5", "checkbox", "Newsletter"), target("e6", "combobox", "Country")],
            ),
            call(3, "browser_press_key", json!({"key": "Enter"}), vec![]),
            failed,
            call(
                5,
                "browser_file_upload",
                json!({"ref": "e7", "paths": ["/home/ada/cv.pdf"]}),
                vec![target("e7", "button", "CV")],
            ),
        ]),
        SpecRange::default(),
    )
    .unwrap_or_default();
    assert!(spec.contains("getByRole(\"combobox\", { name: \"Size\", exact: true }).selectOption(\"M\");"), "{spec}");
    assert!(spec.contains("getByRole(\"checkbox\", { name: \"Newsletter\", exact: true }).check();"), "{spec}");
    assert!(
        spec.contains("getByRole(\"combobox\", { name: \"Country\", exact: true }).selectOption(\"Norway\");"),
        "{spec}"
    );
    assert!(spec.contains("await page.keyboard.press(\"Enter\");"), "{spec}");
    assert!(!spec.contains("Nope"), "a failed call is not replayed: {spec}");
    assert!(spec.contains(".setInputFiles([param(\"SIGHTLINE_UPLOAD_1\")]);"), "{spec}");
    assert!(!spec.contains("/home/ada"), "{spec}");
}

#[test]
fn masked_url_parameters_are_read_from_the_environment() {
    let spec = playwright_spec(
        &export(vec![call(1, "browser_navigate", json!({"url": "https://a.test/cb?code=••••••&s=1"}), vec![])]),
        SpecRange::default(),
    )
    .unwrap_or_default();
    assert!(
        spec.contains(
            "await page.goto(`https://a.test/cb?code=${encodeURIComponent(param(\"SIGHTLINE_URL_CODE\"))}&s=1`);"
        ),
        "{spec}"
    );
    assert!(!spec.contains(MASK), "{spec}");
}

#[test]
fn parameter_names_come_from_the_field_label() {
    assert_eq!(parameter_name("Password", 1), "SIGHTLINE_PASSWORD");
    assert_eq!(parameter_name("One-time code (SMS)", 1), "SIGHTLINE_ONE_TIME_CODE_SMS");
    assert_eq!(parameter_name("••", 2), "SIGHTLINE_SECRET_2");
}
