//! The fields the browser found invalid while an action ran, read from the page's watch
//! (`hooks/watch.js` keeps each `invalid` event's field) in the isolated world of the frame the
//! action aimed at. A form whose constraints stop its submission shows a person a bubble that
//! is no part of the page; this is how the answer says so
//! (`sightline_core::actions::invalid_fields`).

use sightline_core::actions::invalid_fields::Flagged;

use crate::cdp::{self, CdpError};
use crate::input::{CallResult, Described, NodeTarget, Properties};
use crate::timer;

/// The objects one read holds, released together.
const GROUP: &str = "sightline-validity";

/// In the isolated world: the fields flagged since `sinceMs` (wall-clock epoch milliseconds,
/// each field once, and still in the document), as an array, or `null` when there are none (the
/// usual case: no object is then held, and the read is this one call); the watch's list is
/// emptied.
const FLAGGED: &str = r#"function (sinceMs) {
  const watch = globalThis.__sightlineWatch;
  if (!watch || !watch.invalid || watch.invalid.length === 0) return null;
  const fields = watch.invalid.filter((e) => e.at >= sinceMs && e.field.isConnected).map((e) => e.field);
  watch.invalid = [];
  return fields.length ? [...new Set(fields)] : null;
}"#;

/// Called on that array: each field's message, what the page calls it (read only for a field
/// the agent's snapshot does not show) and whether the page hides it.
const SAID: &str = r#"function () {
  const called = (field) => {
    const label = field.labels && field.labels.length ? field.labels[0].textContent : '';
    return String(field.getAttribute('aria-label') || label || field.placeholder || field.name || '');
  };
  return this.map((field) => ({
    message: String(field.validationMessage || ''),
    label: called(field).replace(/\s+/g, ' ').trim().slice(0, 200),
    hidden: typeof field.checkVisibility === 'function'
      ? !field.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
      : field.getClientRects().length === 0,
  }));
}"#;

/// One field the browser flagged: the node, and what [`SAID`] says of it (its ref is the
/// caller's to give).
pub struct FlaggedField {
    /// Its backend node id, in the frame read.
    pub backend_node_id: i64,
    /// Its message, what the page calls it, and whether the page hides it.
    pub said: Flagged,
}

/// How long the read may take. A page that answers at all answers in a few milliseconds (the
/// `invalid` events fired during the action), a few hundred on a machine under load; a page
/// whose script holds its thread (one the action opened, busy as it loads) must not hold the
/// answer, which has its own caps.
const READ_WAIT_MS: u32 = 1_000;

/// The fields flagged since `since_epoch_ms` (wall-clock milliseconds) in the frame of `at`, in
/// the order they were flagged. A frame that cannot be read (gone with a navigation the action
/// started, or too busy to answer within [`READ_WAIT_MS`]) has none.
pub async fn flagged(at: &NodeTarget, since_epoch_ms: u64) -> Vec<FlaggedField> {
    let fields = match timer::within(READ_WAIT_MS, read(at, since_epoch_ms)).await {
        // Nothing flagged: no object was made, nothing to release.
        Some(Ok(None)) => return Vec::new(),
        Some(Ok(Some(fields))) => fields,
        Some(Err(_)) | None => Vec::new(),
    };
    // Released without waiting: a busy page answers when it can.
    let target = at.target.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let params = serde_json::json!({"objectGroup": GROUP});
        let _ =
            cdp::send_to::<serde_json::Value>(&target, "Runtime.releaseObjectGroup", params, cdp::COMMAND_TIMEOUT_MS)
                .await;
    });
    fields
}

/// The flagged fields, `None` when the page flagged none.
async fn read(at: &NodeTarget, since_epoch_ms: u64) -> Result<Option<Vec<FlaggedField>>, CdpError> {
    let context = at.isolated_context().await?;
    let params = serde_json::json!({"executionContextId": context, "functionDeclaration": FLAGGED,
        "arguments": [{"value": since_epoch_ms}], "objectGroup": GROUP});
    let list: CallResult = at.send("Runtime.callFunctionOn", params).await?;
    let Some(array) = list.result.object_id else { return Ok(None) };
    let params = serde_json::json!({"objectId": array, "functionDeclaration": SAID, "returnByValue": true});
    let said: CallResult = at.send("Runtime.callFunctionOn", params).await?;
    let said: Vec<Flagged> = said.result.value.and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
    let params = serde_json::json!({"objectId": array, "ownProperties": true});
    let properties: Properties = at.send("Runtime.getProperties", params).await?;
    let mut fields = Vec::new();
    for property in properties.result {
        let (Ok(index), Some(object_id)) = (property.name.parse::<usize>(), property.value.and_then(|v| v.object_id))
        else {
            continue;
        };
        let described: Described = at.send("DOM.describeNode", serde_json::json!({"objectId": object_id})).await?;
        let said = said.get(index).cloned().unwrap_or_default();
        fields.push((index, FlaggedField { backend_node_id: described.node.backend_node_id, said }));
    }
    fields.sort_by_key(|(index, _)| *index);
    Ok(Some(fields.into_iter().map(|(_, field)| field).collect()))
}
