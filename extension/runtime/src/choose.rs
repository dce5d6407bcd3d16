//! Choosing options by value or label: of a native `<select>` (set in the page, with the
//! `input` and `change` events a person's choice fires), and of listboxes and comboboxes made of
//! `role=option` elements (clicked one by one, through the same hit-tested clicks as
//! `browser_click`). What an element does not offer is an error listing what it does.

use serde::Deserialize;
use sightline_core::protocol::MouseButton;
use sightline_core::refs::NodeKey;

use crate::error::{ElementProblem, ToolError};
use crate::input::{self, CallResult, NodeTarget, ValueHolder};

/// The page-side half: see the script's own comment.
const CHOOSE_OPTIONS: &str = include_str!("hooks/choose_options.js");

/// What the page-side half answered.
#[derive(Debug, Default, Deserialize)]
struct Outcome {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    missing: Option<String>,
    #[serde(default)]
    offered: Vec<String>,
    #[serde(default)]
    what: Option<String>,
    #[serde(default)]
    click: Option<Vec<u32>>,
}

#[derive(Deserialize)]
struct Properties {
    result: Vec<Property>,
}

#[derive(Deserialize)]
struct Property {
    name: String,
    #[serde(default)]
    value: Option<ValueHolder>,
}

#[derive(Deserialize)]
struct Described {
    node: DescribedNode,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DescribedNode {
    backend_node_id: i64,
}

/// Chooses `wanted` (values or labels, at least one) on the element. The page-side half runs in
/// the frame's isolated world, where the page cannot have redefined what an option's value or
/// label reads as.
pub async fn choose(at: &NodeTarget, node: &NodeKey, element_ref: &str, wanted: &[String]) -> Result<(), ToolError> {
    let object =
        at.resolve_isolated(node.backend_node_id).await.map_err(|e| input::node_error(e, element_ref))?.object_id;
    let outcome = decide(at, &object, element_ref, wanted).await;
    let done = match outcome {
        Ok(Outcome { click: Some(indexes), .. }) => {
            click_options(at, node, &object, element_ref, wanted, &indexes).await
        }
        Ok(Outcome { error: None, .. }) => Ok(()),
        Ok(refusal) => Err(refused(element_ref, refusal)),
        Err(e) => Err(e),
    };
    input::release(at, &object).await;
    done
}

/// Runs the page-side half once: a native select is set; a list says which options to click.
async fn decide(at: &NodeTarget, object: &str, element_ref: &str, wanted: &[String]) -> Result<Outcome, ToolError> {
    let called: CallResult = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": object, "functionDeclaration": CHOOSE_OPTIONS,
                "arguments": [{"value": wanted}], "returnByValue": true}),
        )
        .await
        .map_err(|e| input::node_error(e, element_ref))?;
    if let Some(exception) = called.exception {
        return Err(ToolError::Unexpected { what: "choosing options", message: exception.to_string() });
    }
    serde_json::from_value(called.result.value.unwrap_or_default())
        .map_err(|e| ToolError::Unexpected { what: "choosing options", message: e.to_string() })
}

/// Clicks the options at `indexes` of a listbox or combobox, in order.
async fn click_options(
    at: &NodeTarget,
    node: &NodeKey,
    object: &str,
    element_ref: &str,
    wanted: &[String],
    indexes: &[u32],
) -> Result<(), ToolError> {
    let called: CallResult = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": object, "functionDeclaration": CHOOSE_OPTIONS,
                "arguments": [{"value": wanted}, {"value": indexes}], "returnByValue": false}),
        )
        .await
        .map_err(|e| input::node_error(e, element_ref))?;
    let Some(list) = called.result.object_id else {
        return Err(ToolError::Unexpected { what: "the options to click", message: "no list came back".into() });
    };
    let properties: Result<Properties, _> =
        at.send("Runtime.getProperties", serde_json::json!({"objectId": list, "ownProperties": true})).await;
    input::release(at, &list).await;
    let mut options: Vec<(usize, String)> = properties?
        .result
        .into_iter()
        .filter_map(|p| Some((p.name.parse::<usize>().ok()?, p.value?.object_id?)))
        .collect();
    options.sort();
    for (_, option) in options {
        let described: Result<Described, _> =
            at.send("DOM.describeNode", serde_json::json!({"objectId": option})).await;
        input::release(at, &option).await;
        let key = NodeKey { backend_node_id: described?.node.backend_node_id, ..node.clone() };
        input::click_element(at, &key, element_ref, MouseButton::Left, false).await?;
    }
    Ok(())
}

/// The agent's error for what the page-side half refused.
fn refused(element_ref: &str, outcome: Outcome) -> ToolError {
    let quote = |s: &str| serde_json::Value::from(s).to_string();
    let what = outcome.what.unwrap_or_default();
    let missing = outcome.missing.as_deref().map(quote).unwrap_or_default();
    let text = match outcome.error.as_deref().unwrap_or_default() {
        "disabled" => return ToolError::element(element_ref, ElementProblem::ReadOnly),
        "missing" => {
            let offered: Vec<String> = outcome.offered.iter().map(|o| quote(o)).collect();
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
    ToolError::Options(text)
}
