//! How one field of `browser_fill_form` is filled, decided in the engine: from the field's kind,
//! the value asked for and what the page answers about the field's state, what the runtime does
//! next. Text is typed; checkboxes and radios are clicked (hit-tested, like `browser_click`) only
//! when their state differs from the one asked for, and must show that state afterwards; a
//! selected radio is never "unchecked" (only choosing another of its group does that); options
//! are chosen as `browser_select_option` does ([`super::choose`]); a native range input is set,
//! and an ARIA slider is moved with arrow keys until it reaches the value, passes it or stops.
//!
//! Every value is checked against its field's kind before anything is sent to the page.

use super::{ElementProblem, Refusal};
use crate::protocol::{FieldKind, FormField};

/// Most arrow-key presses an ARIA slider gets to reach its value.
pub const MOST_SLIDER_STEPS: usize = 200;

/// How a field is filled.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldPlan<'a> {
    /// Its text is replaced with this (focus, select its content, insert).
    Type(&'a str),
    /// This option is chosen, as `browser_select_option` does.
    Choose(&'a str),
    /// It is checked or unchecked, by the [`Toggle`].
    Toggle(Toggle),
    /// It is set or moved to this number, by the [`Slide`].
    Slide(f64),
}

/// How `field` is filled, or why its value does not suit its kind (the sentence the agent
/// reads), decided before anything is sent to the page.
pub fn plan(field: &FormField) -> Result<FieldPlan<'_>, String> {
    let value = field.value.trim();
    match field.kind {
        FieldKind::Textbox => Ok(FieldPlan::Type(&field.value)),
        FieldKind::Combobox => Ok(FieldPlan::Choose(&field.value)),
        FieldKind::Checkbox | FieldKind::Radio => match value {
            "true" | "false" => Ok(FieldPlan::Toggle(Toggle::new(field, value == "true"))),
            _ => Err(format!("the value of a {} is `true` or `false`, not {:?}", field.kind.name(), field.value)),
        },
        FieldKind::Slider => slider_number(&field.value).map(FieldPlan::Slide),
    }
}

/// The number a slider is to be set or moved to, from the text an agent gave (a form field's
/// value, or the text `browser_type` was asked to type into a slider).
pub fn slider_number(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(number) if number.is_finite() => Ok(number),
        _ => Err(format!("the value of a slider is a number, not {text:?}")),
    }
}

/// Whether `text` may be typed into a number field (`<input type=number>`): a number as HTML
/// writes one (`42`, `-1.5`, `.5`, `2e3`; no `+`, no trailing `.`), or nothing, which empties
/// the field. The browser takes what a number field cannot hold without a word (`abc` or
/// `3 seats` empties it, `1,5` becomes 15), so such text is refused before the page is touched.
pub fn typed_number(text: &str) -> Result<(), String> {
    let trimmed = text.trim();
    match trimmed.parse::<f64>() {
        _ if trimmed.is_empty() => Ok(()),
        Ok(number) if number.is_finite() && !trimmed.starts_with('+') && !trimmed.ends_with('.') => Ok(()),
        _ => Err(format!("a number field takes a number written like 42 or -1.5, not {text:?}")),
    }
}

/// What the runtime does next for a checkbox or radio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToggleStep {
    /// Read its checked state ([`Toggle::state`]).
    ReadState,
    /// Click it as `browser_click` does, then read its state again.
    Click,
    /// It is as asked.
    Done,
    /// It is not changed.
    Refuse(Refusal),
}

/// Setting a checkbox or radio (a native one, one with `aria-checked`, or a label standing for
/// one) to the state asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toggle {
    element_ref: String,
    radio: bool,
    wanted: bool,
    clicked: bool,
}

impl Toggle {
    fn new(field: &FormField, wanted: bool) -> Toggle {
        let radio = field.kind == FieldKind::Radio;
        Toggle { element_ref: field.element_ref.clone(), radio, wanted, clicked: false }
    }

    /// The first step: [`ToggleStep::ReadState`].
    pub fn start(&self) -> ToggleStep {
        ToggleStep::ReadState
    }

    /// What to do once the field's checked state is read: `None` when it is no checkbox or radio.
    pub fn state(&mut self, checked: Option<bool>) -> ToggleStep {
        let element_ref = &self.element_ref;
        match checked {
            None => ToggleStep::Refuse(Refusal::Invalid(format!("{element_ref} is not a checkbox or radio"))),
            Some(checked) if checked == self.wanted => ToggleStep::Done,
            Some(_) if self.clicked => {
                let state = if self.wanted { "checked" } else { "unchecked" };
                ToggleStep::Refuse(Refusal::Invalid(format!(
                    "{element_ref} was clicked but is not {state} (the page kept it)"
                )))
            }
            Some(_) if self.radio && !self.wanted => ToggleStep::Refuse(Refusal::Invalid(format!(
                "{element_ref} is a selected radio: a radio is unselected by selecting another of its group"
            ))),
            Some(_) => {
                self.clicked = true;
                ToggleStep::Click
            }
        }
    }
}

/// What a slider answered when asked to take a number.
#[derive(Debug, Clone, PartialEq)]
pub enum SliderAnswer {
    /// A native range input took the number (clamped and stepped by the browser).
    Set,
    /// An ARIA slider, with its `aria-valuenow`, `-valuemin` and `-valuemax` where they are numbers.
    Aria {
        /// Its value now.
        now: Option<f64>,
        /// Its least value.
        min: Option<f64>,
        /// Its greatest value.
        max: Option<f64>,
    },
    /// A disabled or read-only range input.
    Disabled,
    /// Neither a range input nor `role=slider`.
    NotSlider,
}

impl SliderAnswer {
    /// Reads the page-side answer: `{set}`, `{now, min, max}`, `"disabled"` or anything else.
    pub fn from_value(value: &serde_json::Value) -> SliderAnswer {
        match value {
            serde_json::Value::Object(o) if o.contains_key("set") => SliderAnswer::Set,
            serde_json::Value::Object(o) => {
                let number = |k: &str| o.get(k).and_then(serde_json::Value::as_f64);
                SliderAnswer::Aria { now: number("now"), min: number("min"), max: number("max") }
            }
            serde_json::Value::String(s) if s == "disabled" => SliderAnswer::Disabled,
            _ => SliderAnswer::NotSlider,
        }
    }
}

/// An arrow key that moves a slider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrow {
    /// Towards greater values.
    Right,
    /// Towards smaller values.
    Left,
}

impl Arrow {
    /// The key's name, as chords are written.
    pub fn key(self) -> &'static str {
        match self {
            Arrow::Right => "ArrowRight",
            Arrow::Left => "ArrowLeft",
        }
    }
}

/// What the runtime does next for a slider.
#[derive(Debug, Clone, PartialEq)]
pub enum SlideStep {
    /// Ask the slider to take the number ([`Slide::answered`]).
    Ask,
    /// Focus it (an ARIA slider), then take the next step ([`Slide::focused`]).
    Focus,
    /// Confirm focus is still on it, press the key, then ask it again.
    Press(Arrow),
    /// It is at the number, or as near as it goes.
    Done,
    /// It is not moved.
    Refuse(Refusal),
}

/// Setting a slider to a number: a native range input takes it at once; an ARIA slider is
/// moved one arrow key at a time, for at most [`MOST_SLIDER_STEPS`] keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Slide {
    element_ref: String,
    wanted: f64,
    now: Option<f64>,
    before: f64,
    presses: usize,
}

impl Slide {
    /// Setting `element_ref` to `wanted`; the first step is [`SlideStep::Ask`].
    pub fn new(element_ref: &str, wanted: f64) -> (Slide, SlideStep) {
        let slide = Slide { element_ref: element_ref.to_owned(), wanted, now: None, before: wanted, presses: 0 };
        (slide, SlideStep::Ask)
    }

    /// The number to ask the slider to take.
    pub fn wanted(&self) -> f64 {
        self.wanted
    }

    /// What to do once the slider answered.
    pub fn answered(&mut self, answer: SliderAnswer) -> SlideStep {
        let element_ref = &self.element_ref;
        let Some(now) = self.now else {
            // The first answer says what the slider is.
            return match answer {
                SliderAnswer::Set => SlideStep::Done,
                SliderAnswer::Aria { now: None, .. } => {
                    SlideStep::Refuse(Refusal::Invalid(format!("{element_ref} is a slider without aria-valuenow")))
                }
                SliderAnswer::Aria { now: Some(now), min, max } => {
                    self.wanted = self.wanted.clamp(min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX));
                    self.now = Some(now);
                    SlideStep::Focus
                }
                SliderAnswer::Disabled => SlideStep::Refuse(Refusal::Element(ElementProblem::ReadOnly)),
                SliderAnswer::NotSlider => SlideStep::Refuse(Refusal::Invalid(format!(
                    "{element_ref} is not a slider (a range input or role=slider)"
                ))),
            };
        };
        let SliderAnswer::Aria { now: reported, .. } = answer else { return SlideStep::Done };
        let now = reported.unwrap_or(now);
        self.now = Some(now);
        // Overshot (steps larger than the gap), or the slider stopped moving: as near as it goes.
        if (self.before < self.wanted) != (now < self.wanted) || now == self.before {
            return SlideStep::Done;
        }
        self.next_key()
    }

    /// What to do once the slider has the focus.
    pub fn focused(&mut self) -> SlideStep {
        self.next_key()
    }

    fn next_key(&mut self) -> SlideStep {
        let Some(now) = self.now else { return SlideStep::Ask };
        if (now - self.wanted).abs() < 1e-9 || self.presses >= MOST_SLIDER_STEPS {
            return SlideStep::Done;
        }
        self.presses += 1;
        self.before = now;
        SlideStep::Press(if now < self.wanted { Arrow::Right } else { Arrow::Left })
    }
}

#[cfg(test)]
mod tests;
