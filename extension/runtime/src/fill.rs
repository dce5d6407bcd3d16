//! Filling one form field of `browser_fill_form` the way a person would: text is typed,
//! checkboxes and radios are clicked (hit-tested, like `browser_click`) only when their state
//! differs from the one asked for, options are chosen as `browser_select_option` does, and
//! sliders are set (a native range input) or moved with arrow keys (an ARIA slider).

use sightline_core::keys;
use sightline_core::protocol::{FieldKind, FormField, MouseButton};
use sightline_core::refs::NodeKey;

use crate::choose;
use crate::error::ToolError;
use crate::input::{self, NodeTarget};

/// Most arrow-key presses an ARIA slider gets to reach its value.
const MOST_SLIDER_STEPS: usize = 200;

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
    let value = field.value.trim();
    match field.kind {
        FieldKind::Checkbox | FieldKind::Radio if value != "true" && value != "false" => Err(ToolError::Invalid(
            format!("the value of a {} is `true` or `false`, not {:?}", field.kind.name(), field.value),
        )),
        FieldKind::Slider if value.parse::<f64>().map_or(true, |v| !v.is_finite()) => {
            Err(ToolError::Invalid(format!("the value of a slider is a number, not {:?}", field.value)))
        }
        _ => Ok(()),
    }
}

/// Fills one field.
pub async fn fill(at: &NodeTarget, node: &NodeKey, field: &FormField) -> Result<(), ToolError> {
    let element_ref = field.element_ref.as_str();
    match field.kind {
        FieldKind::Textbox => input::replace_text(at, node, element_ref, &field.value).await,
        FieldKind::Combobox => choose::choose(at, node, element_ref, std::slice::from_ref(&field.value)).await,
        FieldKind::Checkbox | FieldKind::Radio => set_checked(at, node, field, field.value.trim() == "true").await,
        FieldKind::Slider => set_slider(at, node, element_ref, field.value.trim().parse().unwrap_or_default()).await,
    }
}

async fn checked(at: &NodeTarget, node: &NodeKey, field: &FormField) -> Result<bool, ToolError> {
    match input::call_on(at, node, &field.element_ref, CHECKED, &[]).await? {
        serde_json::Value::Bool(checked) => Ok(checked),
        _ => Err(ToolError::Invalid(format!("{} is not a checkbox or radio", field.element_ref))),
    }
}

async fn set_checked(at: &NodeTarget, node: &NodeKey, field: &FormField, wanted: bool) -> Result<(), ToolError> {
    let element_ref = field.element_ref.as_str();
    if checked(at, node, field).await? == wanted {
        return Ok(());
    }
    if field.kind == FieldKind::Radio && !wanted {
        return Err(ToolError::Invalid(format!(
            "{element_ref} is a selected radio: a radio is unselected by selecting another of its group"
        )));
    }
    input::click_element(at, node, element_ref, MouseButton::Left, false).await?;
    if checked(at, node, field).await? != wanted {
        let state = if wanted { "checked" } else { "unchecked" };
        return Err(ToolError::Invalid(format!("{element_ref} was clicked but is not {state} (the page kept it)")));
    }
    Ok(())
}

async fn set_slider(at: &NodeTarget, node: &NodeKey, element_ref: &str, wanted: f64) -> Result<(), ToolError> {
    let answered = input::call_on_with(at, node, element_ref, SLIDER, serde_json::json!([{"value": wanted}])).await?;
    match answered {
        serde_json::Value::Object(o) if o.contains_key("set") => Ok(()),
        serde_json::Value::Object(o) => {
            let number = |k: &str| o.get(k).and_then(serde_json::Value::as_f64);
            let (Some(mut now), min, max) = (number("now"), number("min"), number("max")) else {
                return Err(ToolError::Invalid(format!("{element_ref} is a slider without aria-valuenow")));
            };
            let wanted = wanted.clamp(min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX));
            input::focus(at, node, element_ref).await?;
            let right = keys::parse_chord("ArrowRight")?;
            let left = keys::parse_chord("ArrowLeft")?;
            for _ in 0..MOST_SLIDER_STEPS {
                if (now - wanted).abs() < 1e-9 {
                    return Ok(());
                }
                let before = now;
                input::confirm_focus(at, node, element_ref).await?;
                input::press(at.target.tab_id, if now < wanted { &right } else { &left }).await?;
                match input::call_on_with(at, node, element_ref, SLIDER, serde_json::json!([{"value": wanted}])).await?
                {
                    serde_json::Value::Object(o) => {
                        now = o.get("now").and_then(serde_json::Value::as_f64).unwrap_or(now)
                    }
                    _ => break,
                }
                // Overshot (steps larger than the gap), or the slider stopped moving: as near as it goes.
                if (before < wanted) != (now < wanted) || now == before {
                    return Ok(());
                }
            }
            Ok(())
        }
        serde_json::Value::String(s) if s == "disabled" => {
            Err(ToolError::element(element_ref, crate::error::ElementProblem::ReadOnly))
        }
        _ => Err(ToolError::Invalid(format!("{element_ref} is not a slider (a range input or role=slider)"))),
    }
}
