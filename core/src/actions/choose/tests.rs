//! The choice decided from each answer the page-side half gives (the shapes of
//! `hooks/choose_options.js`), and the words of every refusal.

use serde_json::json;

use super::*;

fn answer(value: serde_json::Value) -> ChoiceAnswer {
    serde_json::from_value(value).expect("an answer the page-side half gives")
}

fn options_refusal(value: serde_json::Value) -> String {
    match decide("e7", answer(value)) {
        ChoiceStep::Refuse(Refusal::Options(text)) => text,
        other => panic!("expected a refusal with words, got {other:?}"),
    }
}

#[test]
fn a_native_select_the_page_side_set_is_done() {
    assert_eq!(decide("e7", answer(json!({}))), ChoiceStep::Done);
}

#[test]
fn the_options_of_a_list_are_clicked_in_the_order_given() {
    assert_eq!(decide("e7", answer(json!({"click": [3, 0, 2]}))), ChoiceStep::Click(vec![3, 0, 2]));
}

#[test]
fn a_combobox_whose_list_is_closed_is_opened_before_its_options_are_clicked() {
    assert_eq!(decide("e7", answer(json!({"click": [1], "closed": true}))), ChoiceStep::OpenThenClick(vec![1]));
    assert_eq!(decide("e7", answer(json!({"click": [1], "closed": false}))), ChoiceStep::Click(vec![1]));
}

#[test]
fn a_disabled_select_is_read_only() {
    assert_eq!(
        decide("e7", answer(json!({"error": "disabled"}))),
        ChoiceStep::Refuse(Refusal::Element(ElementProblem::ReadOnly))
    );
}

#[test]
fn a_value_not_offered_is_refused_with_what_is() {
    let text = options_refusal(json!({"error": "missing", "missing": "Mars", "offered": ["Earth", "Venus \"2\""]}));
    assert_eq!(text, r#"e7 has no option "Mars"; it offers "Earth", "Venus \"2\"""#);
}

#[test]
fn a_disabled_option_is_named() {
    assert_eq!(
        options_refusal(json!({"error": "option-disabled", "missing": "Gold"})),
        r#"e7's option "Gold" is disabled"#
    );
}

#[test]
fn several_values_for_a_single_select_are_refused() {
    assert_eq!(options_refusal(json!({"error": "single"})), "e7 takes one option, not several");
}

#[test]
fn a_closed_combobox_says_to_open_it_first() {
    assert_eq!(
        options_refusal(json!({"error": "closed", "what": "combobox"})),
        "e7 is a combobox whose options are not on the page yet: open it with browser_click on e7, then select"
    );
}

#[test]
fn an_element_offering_no_options_says_what_it_is() {
    assert_eq!(
        options_refusal(json!({"error": "not-a-list", "what": "button"})),
        "e7 is a button, not a select, listbox or combobox; browser_select_option chooses options of those"
    );
}
