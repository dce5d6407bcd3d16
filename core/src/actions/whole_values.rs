//! Fields whose value is set whole rather than typed key by key: a date, a time, a month, a
//! week or a colour. Their text is a picker's segments or a swatch, so `browser_type` (and a
//! textbox of `browser_fill_form`) hands the browser the value in the format HTML defines for
//! it, the one the snapshot writes beside the field (`e9 date "Birthday" (yyyy-mm-dd)`), with
//! the `input` and `change` events a person's pick fires. A value the browser does not take is
//! refused with that format, and the field keeps what it held.

use super::ElementProblem;

/// The format in which an `<input type=…>` of this type takes its value, when it is set whole.
pub fn format(input_type: &str) -> Option<&'static str> {
    Some(match input_type.to_ascii_lowercase().as_str() {
        "date" => "yyyy-mm-dd",
        "time" => "hh:mm",
        "datetime-local" => "yyyy-mm-ddThh:mm",
        "month" => "yyyy-mm",
        "week" => "yyyy-Www",
        "color" => "#rrggbb",
        _ => return None,
    })
}

/// What the browser answered when the value was set, as the runtime reads it in the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetAnswer {
    /// The field took the value (the browser may write it its own way: `#FF0000` as `#ff0000`).
    Taken,
    /// The browser did not take the value (it would have emptied the field, which was put back).
    NotTaken,
    /// The field is disabled or read-only.
    ReadOnly,
}

impl SetAnswer {
    /// Reads the page's answer (`{taken: "<value>"}`, `"not-taken"`, `"readonly"`).
    pub fn from_value(answer: &serde_json::Value) -> SetAnswer {
        match (answer.get("taken").is_some(), answer.as_str()) {
            (true, _) => SetAnswer::Taken,
            (false, Some("readonly")) => SetAnswer::ReadOnly,
            _ => SetAnswer::NotTaken,
        }
    }
}

/// Whether setting `wanted` on an `<input type=input_type>` went as asked: `Ok` when the field
/// took it, the problem to report otherwise.
pub fn judge(input_type: &str, wanted: &str, answer: &SetAnswer) -> Result<(), ElementProblem> {
    match answer {
        SetAnswer::Taken => Ok(()),
        SetAnswer::ReadOnly => Err(ElementProblem::ReadOnly),
        SetAnswer::NotTaken => Err(ElementProblem::ValueNotTaken {
            value: serde_json::Value::String(wanted.to_owned()).to_string(),
            kind: input_type.to_ascii_lowercase(),
            format: format(input_type).unwrap_or("its own format"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_whole_value_input_has_the_format_the_snapshot_shows() {
        assert_eq!(format("date"), Some("yyyy-mm-dd"));
        assert_eq!(format("DATETIME-LOCAL"), Some("yyyy-mm-ddThh:mm"));
        assert_eq!(format("color"), Some("#rrggbb"));
        assert_eq!(format("text"), None);
        assert_eq!(format("checkbox"), None);
    }

    #[test]
    fn a_value_the_browser_did_not_take_is_refused_with_the_format() {
        let answer = SetAnswer::from_value(&json!("not-taken"));
        let problem = judge("date", "12/24/2026", &answer).unwrap_err();
        assert_eq!(
            problem.to_string(),
            "did not take \"12/24/2026\": an <input type=date> takes its value as yyyy-mm-dd, and it keeps the value \
             it had"
        );
        assert_eq!(judge("time", "13:45", &SetAnswer::from_value(&json!({"taken": "13:45"}))), Ok(()));
        assert_eq!(
            judge("week", "2026-W52", &SetAnswer::from_value(&json!("readonly"))),
            Err(ElementProblem::ReadOnly)
        );
    }
}
