//! Choosing options by value or label, decided in the engine from what the page-side half (run
//! in the frame's isolated world) found: a native `<select>` it has set, the options of a
//! listbox or combobox to click (one by one, through the same hit-tested clicks as
//! `browser_click`), or why nothing can be chosen. What an element does not offer is refused
//! with a list of what it does.

use serde::Deserialize;

use super::{ElementProblem, Refusal};

/// What the page-side half answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ChoiceAnswer {
    /// Why nothing was chosen: `disabled`, `missing`, `option-disabled`, `single`, `closed`, or
    /// another word for an element that offers no options.
    #[serde(default)]
    pub error: Option<String>,
    /// The value or label asked for that is not offered, or whose option is disabled.
    #[serde(default)]
    pub missing: Option<String>,
    /// What the element offers.
    #[serde(default)]
    pub offered: Vec<String>,
    /// What the element is (its role), when it is no select.
    #[serde(default)]
    pub what: Option<String>,
    /// The positions of the options to click, in order.
    #[serde(default)]
    pub click: Option<Vec<u32>>,
    /// A combobox some of whose options to click are not shown: its list is closed.
    #[serde(default)]
    pub closed: bool,
}

/// What the runtime does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceStep {
    /// The options are chosen (a native select was set in the page).
    Done,
    /// Click the options at these positions, in order.
    Click(Vec<u32>),
    /// Click the combobox itself to open its list, as a person would, then the options at these
    /// positions.
    OpenThenClick(Vec<u32>),
    /// Nothing is chosen.
    Refuse(Refusal),
}

/// What to do about `element_ref` once the page-side half answered.
pub fn decide(element_ref: &str, answer: ChoiceAnswer) -> ChoiceStep {
    match answer {
        ChoiceAnswer { click: Some(indexes), closed: true, .. } => ChoiceStep::OpenThenClick(indexes),
        ChoiceAnswer { click: Some(indexes), .. } => ChoiceStep::Click(indexes),
        ChoiceAnswer { error: None, .. } => ChoiceStep::Done,
        refusal => ChoiceStep::Refuse(refused(element_ref, refusal)),
    }
}

/// Why the page-side half chose nothing, in the agent's words.
fn refused(element_ref: &str, answer: ChoiceAnswer) -> Refusal {
    let quote = |s: &str| serde_json::Value::from(s).to_string();
    let what = answer.what.unwrap_or_default();
    let missing = answer.missing.as_deref().map(quote).unwrap_or_default();
    let text = match answer.error.as_deref().unwrap_or_default() {
        "disabled" => return Refusal::Element(ElementProblem::ReadOnly),
        "missing" => {
            let offered: Vec<String> = answer.offered.iter().map(|o| quote(o)).collect();
            format!("{element_ref} has no option {missing}; it offers {}", offered.join(", "))
        }
        "option-disabled" => format!("{element_ref}'s option {missing} is disabled"),
        "single" => format!("{element_ref} takes one option, not several"),
        "closed" => format!(
            "{element_ref} is a {what} whose options are not on the page yet: open it with browser_click on \
             {element_ref}, then select"
        ),
        _ => format!(
            "{element_ref} is a {what}, not a select, listbox or combobox; browser_select_option chooses options of those"
        ),
    };
    Refusal::Options(text)
}

#[cfg(test)]
mod tests;
