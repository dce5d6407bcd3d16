//! Filling decided for each kind of field: values checked before anything is sent, checkboxes
//! and radios clicked only when their state differs, sliders set or moved key by key.

use serde_json::json;

use super::*;

fn field(kind: FieldKind, value: &str) -> FormField {
    FormField { name: "Field".into(), kind, element_ref: "e3".into(), value: value.into() }
}

fn toggle(kind: FieldKind, value: &str) -> Toggle {
    match plan(&field(kind, value)) {
        Ok(FieldPlan::Toggle(toggle)) => toggle,
        other => panic!("expected a toggle, got {other:?}"),
    }
}

fn invalid(text: &str) -> Refusal {
    Refusal::Invalid(text.to_owned())
}

#[test]
fn text_is_typed_as_given_and_options_chosen_as_given() {
    assert_eq!(plan(&field(FieldKind::Textbox, " Ada ")), Ok(FieldPlan::Type(" Ada ")));
    assert_eq!(plan(&field(FieldKind::Combobox, "Blue")), Ok(FieldPlan::Choose("Blue")));
}

#[test]
fn a_checkbox_or_radio_value_must_be_true_or_false() {
    assert_eq!(
        plan(&field(FieldKind::Checkbox, "yes")),
        Err("the value of a checkbox is `true` or `false`, not \"yes\"".into())
    );
    assert_eq!(plan(&field(FieldKind::Radio, "")), Err("the value of a radio is `true` or `false`, not \"\"".into()));
    assert!(matches!(plan(&field(FieldKind::Checkbox, " true ")), Ok(FieldPlan::Toggle(_))));
}

#[test]
fn a_slider_value_must_be_a_finite_number() {
    assert_eq!(plan(&field(FieldKind::Slider, " 42.5 ")), Ok(FieldPlan::Slide(42.5)));
    for bad in ["loud", "inf", "NaN", ""] {
        assert_eq!(
            plan(&field(FieldKind::Slider, bad)),
            Err(format!("the value of a slider is a number, not {bad:?}"))
        );
    }
}

#[test]
fn a_checkbox_already_as_asked_is_not_clicked() {
    let mut toggle = toggle(FieldKind::Checkbox, "true");
    assert_eq!(toggle.start(), ToggleStep::ReadState);
    assert_eq!(toggle.state(Some(true)), ToggleStep::Done);
}

#[test]
fn a_checkbox_in_the_other_state_is_clicked_then_checked_again() {
    let mut toggle = toggle(FieldKind::Checkbox, "false");
    assert_eq!(toggle.state(Some(true)), ToggleStep::Click);
    assert_eq!(toggle.state(Some(false)), ToggleStep::Done);
}

#[test]
fn a_checkbox_the_page_kept_is_refused_after_one_click() {
    let mut toggle = toggle(FieldKind::Checkbox, "true");
    assert_eq!(toggle.state(Some(false)), ToggleStep::Click);
    assert_eq!(
        toggle.state(Some(false)),
        ToggleStep::Refuse(invalid("e3 was clicked but is not checked (the page kept it)"))
    );
    let mut toggle = self::toggle(FieldKind::Checkbox, "false");
    toggle.state(Some(true));
    assert_eq!(
        toggle.state(Some(true)),
        ToggleStep::Refuse(invalid("e3 was clicked but is not unchecked (the page kept it)"))
    );
}

#[test]
fn a_selected_radio_is_never_clicked_to_unselect_it() {
    let mut toggle = toggle(FieldKind::Radio, "false");
    assert_eq!(
        toggle.state(Some(true)),
        ToggleStep::Refuse(invalid("e3 is a selected radio: a radio is unselected by selecting another of its group"))
    );
    let mut toggle = self::toggle(FieldKind::Radio, "false");
    assert_eq!(toggle.state(Some(false)), ToggleStep::Done);
    let mut toggle = self::toggle(FieldKind::Radio, "true");
    assert_eq!(toggle.state(Some(false)), ToggleStep::Click);
}

#[test]
fn what_is_no_checkbox_or_radio_is_refused() {
    let mut toggle = toggle(FieldKind::Checkbox, "true");
    assert_eq!(toggle.state(None), ToggleStep::Refuse(invalid("e3 is not a checkbox or radio")));
}

#[test]
fn the_page_sides_slider_answers_read_as_what_they_say() {
    assert_eq!(SliderAnswer::from_value(&json!({"set": 40})), SliderAnswer::Set);
    assert_eq!(
        SliderAnswer::from_value(&json!({"now": 3, "min": 0, "max": null})),
        SliderAnswer::Aria { now: Some(3.0), min: Some(0.0), max: None }
    );
    assert_eq!(SliderAnswer::from_value(&json!("disabled")), SliderAnswer::Disabled);
    assert_eq!(SliderAnswer::from_value(&json!("no")), SliderAnswer::NotSlider);
}

#[test]
fn a_range_input_that_took_the_number_is_done() {
    let (mut slide, first) = Slide::new("e3", 40.0);
    assert_eq!(first, SlideStep::Ask);
    assert_eq!(slide.answered(SliderAnswer::Set), SlideStep::Done);
}

#[test]
fn what_cannot_slide_is_refused_in_words() {
    let (mut slide, _) = Slide::new("e3", 40.0);
    assert_eq!(slide.answered(SliderAnswer::Disabled), SlideStep::Refuse(Refusal::Element(ElementProblem::ReadOnly)));
    let (mut slide, _) = Slide::new("e3", 40.0);
    assert_eq!(
        slide.answered(SliderAnswer::NotSlider),
        SlideStep::Refuse(invalid("e3 is not a slider (a range input or role=slider)"))
    );
    let (mut slide, _) = Slide::new("e3", 40.0);
    assert_eq!(
        slide.answered(SliderAnswer::Aria { now: None, min: Some(0.0), max: Some(100.0) }),
        SlideStep::Refuse(invalid("e3 is a slider without aria-valuenow"))
    );
}

fn aria(now: f64) -> SliderAnswer {
    SliderAnswer::Aria { now: Some(now), min: Some(0.0), max: Some(10.0) }
}

#[test]
fn an_aria_slider_is_moved_key_by_key_until_it_is_there() {
    let (mut slide, _) = Slide::new("e3", 3.0);
    assert_eq!(slide.answered(aria(1.0)), SlideStep::Focus);
    assert_eq!(slide.focused(), SlideStep::Press(Arrow::Right));
    assert_eq!(slide.answered(aria(2.0)), SlideStep::Press(Arrow::Right));
    assert_eq!(slide.answered(aria(3.0)), SlideStep::Done);
}

#[test]
fn an_aria_slider_above_the_value_is_moved_left() {
    let (mut slide, _) = Slide::new("e3", 4.0);
    slide.answered(aria(6.0));
    assert_eq!(slide.focused(), SlideStep::Press(Arrow::Left));
    assert_eq!(Arrow::Left.key(), "ArrowLeft");
    assert_eq!(Arrow::Right.key(), "ArrowRight");
}

#[test]
fn a_value_beyond_the_sliders_range_is_held_to_it() {
    let (mut slide, _) = Slide::new("e3", 99.0);
    slide.answered(aria(9.0));
    assert_eq!(slide.wanted(), 10.0);
    assert_eq!(slide.focused(), SlideStep::Press(Arrow::Right));
    assert_eq!(slide.answered(aria(10.0)), SlideStep::Done);
}

#[test]
fn a_slider_already_at_the_value_gets_no_key() {
    let (mut slide, _) = Slide::new("e3", 5.0);
    slide.answered(aria(5.0));
    assert_eq!(slide.focused(), SlideStep::Done);
}

#[test]
fn a_slider_that_overshoots_or_stops_is_as_near_as_it_goes() {
    let (mut slide, _) = Slide::new("e3", 5.0);
    slide.answered(aria(0.0));
    slide.focused();
    assert_eq!(slide.answered(aria(4.0)), SlideStep::Press(Arrow::Right));
    assert_eq!(slide.answered(aria(8.0)), SlideStep::Done, "overshot");
    let (mut slide, _) = Slide::new("e3", 5.0);
    slide.answered(aria(0.0));
    slide.focused();
    assert_eq!(slide.answered(aria(0.0)), SlideStep::Done, "stopped");
}

#[test]
fn a_slider_that_stops_answering_as_one_is_left_where_it_is() {
    let (mut slide, _) = Slide::new("e3", 5.0);
    slide.answered(aria(0.0));
    slide.focused();
    assert_eq!(slide.answered(SliderAnswer::NotSlider), SlideStep::Done);
}

#[test]
fn a_slider_that_creeps_gets_at_most_its_share_of_keys() {
    let (mut slide, _) = Slide::new("e3", 1_000.0);
    slide.answered(SliderAnswer::Aria { now: Some(0.0), min: None, max: None });
    let mut step = slide.focused();
    let mut presses = 0;
    let mut now = 0.0;
    while step == SlideStep::Press(Arrow::Right) {
        presses += 1;
        now += 1.0;
        step = slide.answered(SliderAnswer::Aria { now: Some(now), min: None, max: None });
    }
    assert_eq!(step, SlideStep::Done);
    assert_eq!(presses, MOST_SLIDER_STEPS);
}

#[test]
fn a_number_field_takes_numbers_as_html_writes_them_and_nothing_else() {
    for text in ["42", "-1.5", ".5", "2e3", " 7 ", ""] {
        assert_eq!(typed_number(text), Ok(()), "{text:?}");
    }
    for text in ["abc", "12 kg", "1,5", "+3", "5.", "NaN", "inf", "1e999"] {
        let refusal = typed_number(text).unwrap_err();
        assert!(refusal.contains("takes a number written like 42"), "{text:?}: {refusal}");
        assert!(refusal.contains(&format!("{text:?}")), "{text:?}: {refusal}");
    }
}
