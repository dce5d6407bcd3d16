//! A session recorded on real snapshots (built in CDP's own shapes, see `support`) exported as
//! a Playwright spec: each element found by role and name, scoped by its region where the name
//! alone is ambiguous, an assertion for each change the agent saw, and the value typed into a
//! secret field read from the environment, never written down.

mod support;

use serde_json::json;
use sightline_core::page_state::{Answer, PageState};
use sightline_core::protocol::{ClickParams, NavigateParams, ToolCall, ToolOutput, TypeParams};
use sightline_core::review::{Finished, SessionExport, SessionLog, SpecRange, playwright_spec, targets_of};
use support::*;

const TYPED_SECRET: &str = "correct-horse-7731";

/// The shop's page: a "Basket" link in two navigations, a basket count, a password field.
fn shop(loader: &str, items: u32, added: bool) -> Page {
    let mut main = vec![
        p(40, &format!("Basket: {items} items")),
        button(41, "Add to basket"),
        field(42, &[("type", "password"), ("name", "pw")], "Password", ""),
    ];
    if added {
        main.push(p(43, "Added to your basket."));
    }
    page(
        loader,
        vec![
            landmark(10, "navigation", "Primary", vec![link(11, "Basket"), link(12, "Home")]),
            landmark(20, "main", "", main),
            landmark(30, "navigation", "Footer", vec![link(31, "Basket")]),
        ],
    )
}

fn record(log: &mut SessionLog, ps: &PageState, call: ToolCall, output: &ToolOutput, before: u64, secret: bool) {
    let targets = ps.snapshot().map(|s| targets_of(s, &call)).unwrap_or_default();
    let after = ps.version();
    let done = Finished {
        session: "s1",
        call: &call,
        typed_secret: secret,
        started_ms: 1_700_000_000_000.0,
        ended_ms: 1_700_000_000_100.0,
        version_before: Some(before),
        version_after: Some(after),
        full_page_tokens: None,
        output,
        targets,
    };
    log.record(1, &done);
}

/// Navigate, click a link whose name is on the page twice, add to basket, type a password.
fn recorded() -> SessionExport {
    let mut ps = PageState::new();
    let mut log = SessionLog::default();
    let first = ps.compile(&capture(&shop("L1", 0, false)));
    let answer = ps.answer(first, Answer::Baseline, &[], None);
    let nav =
        ToolCall::BrowserNavigate(NavigateParams { url: Some("https://shop.test/".into()), ..Default::default() });
    record(&mut log, &ps, nav, &answer, 0, false);

    // The targets are found in the page the agent had before the action.
    let snapshot = ps.snapshot().cloned().expect("a page");
    let add_ref = snapshot.element_ids().map(|id| snapshot.element(id)).find(|e| e.facts.name == "Add to basket");
    let add = ToolCall::BrowserClick(ClickParams {
        element_ref: format!("e{}", add_ref.expect("the button").number),
        ..Default::default()
    });
    let add_targets = targets_of(&snapshot, &add);
    let next = ps.compile(&capture(&shop("L1", 1, true)));
    let answer = ps.answer(next, Answer::AfterAction, &[], None);
    assert!(answer.text.contains("since v1"), "a delta: {}", answer.text);
    let done = Finished {
        session: "s1",
        call: &add,
        typed_secret: false,
        started_ms: 1_700_000_000_200.0,
        ended_ms: 1_700_000_000_300.0,
        version_before: Some(1),
        version_after: Some(ps.version()),
        full_page_tokens: None,
        output: &answer,
        targets: add_targets,
    };
    log.record(1, &done);

    let snapshot = ps.snapshot().cloned().expect("a page");
    let number = |name: &str| {
        snapshot.element_ids().map(|id| snapshot.element(id)).find(|e| e.facts.name == name).map(|e| e.number)
    };
    let basket = ToolCall::BrowserClick(ClickParams {
        element_ref: format!("e{}", number("Basket").expect("a basket link")),
        ..Default::default()
    });
    record(&mut log, &ps, basket, &ToolOutput::text("v2 · no change"), 2, false);
    let typing = ToolCall::BrowserType(TypeParams {
        element_ref: format!("e{}", number("Password").expect("the password field")),
        text: TYPED_SECRET.into(),
        ..Default::default()
    });
    record(&mut log, &ps, typing, &ToolOutput::text("v2 · no change"), 2, true);
    SessionExport::new(log.model(1), Vec::new(), (Some("Shop".into()), None), "0.1.0", 1_700_000_001_000)
}

#[test]
fn a_recorded_session_becomes_a_spec_found_by_role_and_name_with_its_changes_asserted() {
    let export = recorded();
    let spec = playwright_spec(&export, SpecRange::default()).expect("a spec");
    assert!(spec.contains("import { test, expect } from \"@playwright/test\";"), "{spec}");
    assert!(spec.contains("await page.goto(\"https://shop.test/\");"), "{spec}");
    assert!(
        spec.contains("await page.getByRole(\"button\", { name: \"Add to basket\", exact: true }).click();"),
        "{spec}"
    );
    // What the agent saw change after adding to the basket.
    assert!(spec.contains("await expect(page.getByText(\"Basket: 1 items\").first()).toBeVisible();"), "{spec}");
    assert!(spec.contains("await expect(page.getByText(\"Added to your basket.\").first()).toBeVisible();"), "{spec}");
    // "Basket" is a link in both navigations: the spec looks in the one the agent clicked in.
    assert!(
        spec.contains(
            "await page.getByRole(\"navigation\", { name: \"Primary\", exact: true }).getByRole(\"link\", { name: \"Basket\", exact: true }).click();"
        ),
        "{spec}"
    );
    assert!(spec.contains("// 2 elements of the page are link \"Basket\""), "{spec}");
}

#[test]
fn the_value_typed_into_a_secret_field_is_a_parameter_never_written_into_the_spec() {
    let export = recorded();
    let spec = playwright_spec(&export, SpecRange::default()).expect("a spec");
    assert!(!spec.contains(TYPED_SECRET), "{spec}");
    assert!(!serde_json::to_string(&export).unwrap_or_default().contains(TYPED_SECRET));
    assert!(spec.contains("//   SIGHTLINE_PASSWORD: the value of the secret field \"Password\""), "{spec}");
    assert!(
        spec.contains("await page.getByRole(\"textbox\", { name: \"Password\", exact: true }).fill(param(\"SIGHTLINE_PASSWORD\"));"),
        "{spec}"
    );
}

#[test]
fn a_range_of_versions_keeps_its_calls_and_an_empty_one_says_what_to_do() {
    let export = recorded();
    let spec = playwright_spec(&export, SpecRange { from_version: Some(2), to_version: None }).expect("a spec");
    assert!(!spec.contains("page.goto"), "{spec}");
    assert!(spec.contains("Add to basket"), "{spec}");
    let error = playwright_spec(&export, SpecRange { from_version: Some(9), to_version: Some(12) });
    let error = error.err().unwrap_or_default();
    assert!(error.contains("versions v9 to v12") && error.contains("widen from_version/to_version"), "{error}");
    assert_eq!(json!(export.calls[1].targets[0].role), json!("button"));
}
