//! Choosing options by value or label: of a native `<select>` (set in the page, with the
//! `input` and `change` events a person's choice fires), and of listboxes and comboboxes made of
//! `role=option` elements (clicked one by one, through the same hit-tested clicks as
//! `browser_click`, after a click on a combobox whose list is closed opens it). What an element
//! does not offer is an error listing what it does. What the page-side half found is judged by
//! the engine (`sightline_core::actions::choose`).

use sightline_core::actions::choose::{self, ChoiceAnswer, ChoiceStep};
use sightline_core::protocol::MouseButton;
use sightline_core::refs::NodeKey;

use crate::error::ToolError;
use crate::input::{self, CallResult, Described, NodeTarget, Properties};

/// The page-side half: see the script's own comment.
const CHOOSE_OPTIONS: &str = include_str!("hooks/choose_options.js");

/// Chooses `wanted` (values or labels, at least one) on the element. The page-side half runs in
/// the frame's isolated world, where the page cannot have redefined what an option's value or
/// label reads as.
pub async fn choose(at: &NodeTarget, node: &NodeKey, element_ref: &str, wanted: &[String]) -> Result<(), ToolError> {
    let object =
        at.resolve_isolated(node.backend_node_id).await.map_err(|e| input::node_error(e, element_ref))?.object_id;
    let answer = ask(at, &object, element_ref, wanted).await;
    let done = match answer.map(|answer| choose::decide(element_ref, answer)) {
        Ok(ChoiceStep::Click(indexes)) => click_options(at, node, &object, element_ref, wanted, &indexes).await,
        Ok(ChoiceStep::OpenThenClick(indexes)) => {
            match input::click_element(at, node, element_ref, MouseButton::Left, false).await {
                Ok(()) => click_options(at, node, &object, element_ref, wanted, &indexes).await,
                Err(e) => Err(e),
            }
        }
        Ok(ChoiceStep::Done) => Ok(()),
        Ok(ChoiceStep::Refuse(refusal)) => Err(input::refused(element_ref, refusal)),
        Err(e) => Err(e),
    };
    input::release(at, &object).await;
    done
}

/// Runs the page-side half once: a native select is set; a list says which options to click.
async fn ask(at: &NodeTarget, object: &str, element_ref: &str, wanted: &[String]) -> Result<ChoiceAnswer, ToolError> {
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
