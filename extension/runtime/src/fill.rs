//! Filling one form field of `browser_fill_form` the way a person would: text is typed,
//! checkboxes and radios are clicked (hit-tested, like `browser_click`) only when their state
//! differs from the one asked for, options are chosen as `browser_select_option` does, and
//! sliders are set (a native range input) or moved with arrow keys (an ARIA slider). What to do
//! next, and what to refuse, is the engine's plan (`sightline_core::actions::fill`); this module
//! reads the field's state in the isolated world and performs the steps.

use sightline_core::actions::fill::{self, FieldPlan, Slide, SlideStep, SliderAnswer, Toggle, ToggleStep};
use sightline_core::keys;
use sightline_core::protocol::{FormField, MouseButton};
use sightline_core::refs::NodeKey;

use crate::choose;
use crate::error::ToolError;
use crate::input::{self, NodeTarget};

/// Called on a checkbox or radio (a native one, one with `aria-checked`, or a label standing for
/// one): its checked state, or `"no"` when it is none of these.
const CHECKED: &str = r#"function () {
  const el = this.localName === 'label' && this.control ? this.control : this;
  if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
  const aria = el.getAttribute && el.getAttribute('aria-checked');
  if (aria !== null && aria !== undefined) return aria === 'true';
  return 'no';
}"#;

/// Called on a slider with the wanted number: a native range input is set (clamped and
/// stepped by the browser) with the events a person's move fires, and its new value returned;
/// an ARIA slider answers `{now, min, max}` for the caller to move with keys; anything else
/// `"no"`.
const SLIDER: &str = r#"function (wanted) {
  if (this.localName === 'input' && this.type === 'range') {
    if (this.disabled || this.readOnly) return 'disabled';
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setter.call(this, String(wanted));
    this.dispatchEvent(new Event('input', { bubbles: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return { set: Number(this.value) };
  }
  if (this.getAttribute('role') === 'slider') {
    const n = (name) => parseFloat(this.getAttribute(name));
    return { now: n('aria-valuenow'), min: n('aria-valuemin'), max: n('aria-valuemax') };
  }
  return 'no';
}"#;

/// Checks that `field`'s value suits its kind before anything is sent to the page.
pub fn check_value(field: &FormField) -> Result<(), ToolError> {
    fill::plan(field).map(drop).map_err(ToolError::Invalid)
}

/// Fills one field, performing the steps of the engine's plan for it.
pub async fn fill(at: &NodeTarget, node: &NodeKey, field: &FormField) -> Result<(), ToolError> {
    let element_ref = field.element_ref.as_str();
    match fill::plan(field).map_err(ToolError::Invalid)? {
        FieldPlan::Type(text) => input::replace_text(at, node, element_ref, text).await,
        FieldPlan::Choose(option) => choose::choose(at, node, element_ref, &[option.to_owned()]).await,
        FieldPlan::Toggle(toggle) => set_checked(at, node, element_ref, toggle).await,
        FieldPlan::Slide(wanted) => set_slider(at, node, element_ref, wanted, false).await,
    }
}

/// The checked state of a checkbox or radio, or `None` when it is neither.
async fn checked(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<Option<bool>, ToolError> {
    Ok(input::call_on(at, node, element_ref, CHECKED, &[]).await?.as_bool())
}

async fn set_checked(at: &NodeTarget, node: &NodeKey, element_ref: &str, mut toggle: Toggle) -> Result<(), ToolError> {
    let mut step = toggle.start();
    loop {
        step = match step {
            ToggleStep::ReadState => toggle.state(checked(at, node, element_ref).await?),
            ToggleStep::Click => {
                input::click_element(at, node, element_ref, MouseButton::Left, false).await?;
                ToggleStep::ReadState
            }
            ToggleStep::Done => return Ok(()),
            ToggleStep::Refuse(refusal) => return Err(input::refused(element_ref, refusal)),
        }
    }
}

/// Sets a native range input to `wanted`, or moves an ARIA slider there with arrow keys
/// (focusing it first unless the caller just `focused` it).
pub(crate) async fn set_slider(
    at: &NodeTarget,
    node: &NodeKey,
    element_ref: &str,
    wanted: f64,
    focused: bool,
) -> Result<(), ToolError> {
    let (mut slide, mut step) = Slide::new(element_ref, wanted);
    loop {
        step = match step {
            SlideStep::Ask => {
                let wanted = serde_json::json!([{"value": slide.wanted()}]);
                let answer = input::call_on_with(at, node, element_ref, SLIDER, wanted).await?;
                slide.answered(SliderAnswer::from_value(&answer))
            }
            SlideStep::Focus => {
                if !focused {
                    input::focus(at, node, element_ref).await?;
                }
                slide.focused()
            }
            SlideStep::Press(arrow) => {
                input::confirm_focus(at, node, element_ref).await?;
                input::press(at.target.tab_id, &keys::parse_chord(arrow.key())?).await?;
                SlideStep::Ask
            }
            SlideStep::Done => return Ok(()),
            SlideStep::Refuse(refusal) => return Err(input::refused(element_ref, refusal)),
        }
    }
}
