//! Acting on elements through CDP `Input` events, the way a user would: scroll the element
//! into view, then click, type or press keys at its centre.

use serde::Deserialize;
use sightline_core::keys::KeyPress;
use sightline_core::protocol::MouseButton;
use sightline_core::refs::NodeKey;

use crate::cdp::{self, CdpError};
use crate::chrome::DebuggeeTarget;
use crate::error::{ElementProblem, ToolError};
use crate::state::State;

/// Where to send commands about a node: its frame's session, and the offset that turns that
/// frame's viewport coordinates into the page's.
pub struct NodeTarget {
    /// The session of the node's frame.
    pub target: DebuggeeTarget,
    /// The node's frame id.
    pub frame_id: String,
}

impl NodeTarget {
    /// The target for `node` on `tab_id`.
    pub fn of(state: &State, tab_id: i32, node: &NodeKey) -> NodeTarget {
        let session_id = state.tabs.borrow().frames(tab_id).session_of(&node.frame_id).map(str::to_owned);
        NodeTarget { target: DebuggeeTarget { tab_id, session_id }, frame_id: node.frame_id.clone() }
    }

    async fn send<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<T, CdpError> {
        cdp::send_to(&self.target, method, params, cdp::COMMAND_TIMEOUT_MS).await
    }

    /// The offset of the frame's viewport in the page (zero for the page's own process).
    async fn offset(&self) -> Result<(f64, f64), CdpError> {
        if self.target.session_id.is_none() {
            return Ok((0.0, 0.0));
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Owner {
            backend_node_id: i64,
        }
        #[derive(Deserialize)]
        struct BoxModel {
            model: Model,
        }
        #[derive(Deserialize)]
        struct Model {
            content: Vec<f64>,
        }
        let main = DebuggeeTarget { tab_id: self.target.tab_id, session_id: None };
        let owner: Owner = cdp::send_to(
            &main,
            "DOM.getFrameOwner",
            serde_json::json!({"frameId": self.frame_id}),
            cdp::COMMAND_TIMEOUT_MS,
        )
        .await?;
        let model: BoxModel = cdp::send_to(
            &main,
            "DOM.getBoxModel",
            serde_json::json!({"backendNodeId": owner.backend_node_id}),
            cdp::COMMAND_TIMEOUT_MS,
        )
        .await?;
        Ok((model.model.content.first().copied().unwrap_or(0.0), model.model.content.get(1).copied().unwrap_or(0.0)))
    }
}

#[derive(Deserialize)]
struct ContentQuads {
    quads: Vec<Vec<f64>>,
}

/// Scrolls the element into view and returns the centre of its first visible box, in the
/// page's viewport coordinates.
pub async fn element_centre(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(f64, f64), ToolError> {
    let id = serde_json::json!({"backendNodeId": node.backend_node_id});
    at.send::<serde_json::Value>("DOM.scrollIntoViewIfNeeded", id.clone())
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let quads: ContentQuads = at.send("DOM.getContentQuads", id).await.map_err(|e| node_error(e, element_ref))?;
    let (dx, dy) = at.offset().await?;
    quads
        .quads
        .iter()
        .filter(|q| q.len() == 8 && quad_area(q) > 1.0)
        .map(|q| ((q[0] + q[2] + q[4] + q[6]) / 4.0 + dx, (q[1] + q[3] + q[5] + q[7]) / 4.0 + dy))
        .next()
        .ok_or_else(|| ToolError::element(element_ref, ElementProblem::NoBox))
}

fn quad_area(q: &[f64]) -> f64 {
    // Shoelace formula over the four corners.
    let mut twice = 0.0;
    for i in 0..4 {
        let (x1, y1) = (q[2 * i], q[2 * i + 1]);
        let (x2, y2) = (q[(2 * i + 2) % 8], q[(2 * i + 3) % 8]);
        twice += x1 * y2 - x2 * y1;
    }
    (twice / 2.0).abs()
}

/// Maps a CDP failure on a node to what it says about the ref.
pub fn node_error(e: CdpError, element_ref: &str) -> ToolError {
    match e {
        CdpError::NoSuchNode { .. } => ToolError::element(element_ref, ElementProblem::Removed),
        CdpError::NotFocusable { .. } => ToolError::element(element_ref, ElementProblem::NotFocusable),
        other => other.into(),
    }
}

/// Moves the mouse to `(x, y)` and clicks.
pub async fn click_at(tab_id: i32, x: f64, y: f64, button: MouseButton, double: bool) -> Result<(), ToolError> {
    let button = match button {
        MouseButton::Left => "left",
        MouseButton::Right => "right",
        MouseButton::Middle => "middle",
    };
    let buttons = match button {
        "left" => 1,
        "right" => 2,
        _ => 4,
    };
    mouse(tab_id, serde_json::json!({"type": "mouseMoved", "x": x, "y": y})).await?;
    let clicks = if double { 2 } else { 1 };
    for count in 1..=clicks {
        mouse(tab_id, serde_json::json!({"type": "mousePressed", "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": count})).await?;
        mouse(tab_id, serde_json::json!({"type": "mouseReleased", "x": x, "y": y, "button": button, "buttons": 0, "clickCount": count})).await?;
    }
    Ok(())
}

async fn mouse(tab_id: i32, params: serde_json::Value) -> Result<(), ToolError> {
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchMouseEvent", params).await?;
    Ok(())
}

/// Focuses an element.
pub async fn focus(at: &NodeTarget, node: &NodeKey, element_ref: &str) -> Result<(), ToolError> {
    at.send::<serde_json::Value>("DOM.focus", serde_json::json!({"backendNodeId": node.backend_node_id}))
        .await
        .map(|_| ())
        .map_err(|e| node_error(e, element_ref))
}

#[derive(Deserialize)]
struct ResolvedNode {
    object: RemoteObject,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RemoteObject {
    object_id: String,
}

#[derive(Deserialize)]
struct CallResult {
    result: ValueHolder,
}

#[derive(Deserialize)]
struct ValueHolder {
    #[serde(default)]
    value: Option<serde_json::Value>,
}

/// Selects the whole content of an editable element, so typing replaces it. Fails when the
/// element is not editable.
const SELECT_CONTENTS: &str = r#"function () {
  const tag = this.localName;
  const textual = ['text','search','email','url','tel','password','number',''].includes((this.getAttribute && this.getAttribute('type') || '').toLowerCase());
  if ((tag === 'input' && textual) || tag === 'textarea') {
    if (this.disabled || this.readOnly) return 'readonly';
    this.select();
    return 'ok';
  }
  if (tag === 'input') return 'input:' + this.type;
  if (this.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(this);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return 'ok';
  }
  return 'not-editable';
}"#;

/// Replaces the text of an editable element with `text`.
pub async fn replace_text(at: &NodeTarget, node: &NodeKey, element_ref: &str, text: &str) -> Result<(), ToolError> {
    focus(at, node, element_ref).await?;
    let resolved: ResolvedNode = at
        .send("DOM.resolveNode", serde_json::json!({"backendNodeId": node.backend_node_id}))
        .await
        .map_err(|e| node_error(e, element_ref))?;
    let outcome: CallResult = at
        .send(
            "Runtime.callFunctionOn",
            serde_json::json!({"objectId": resolved.object.object_id, "functionDeclaration": SELECT_CONTENTS, "returnByValue": true}),
        )
        .await?;
    let _ = at
        .send::<serde_json::Value>("Runtime.releaseObject", serde_json::json!({"objectId": resolved.object.object_id}))
        .await;
    let tab_id = at.target.tab_id;
    match outcome.result.value.as_ref().and_then(|v| v.as_str()).unwrap_or("") {
        "ok" => {}
        "readonly" => return Err(ToolError::element(element_ref, ElementProblem::ReadOnly)),
        other if let Some(kind) = other.strip_prefix("input:") => {
            return Err(ToolError::element(element_ref, ElementProblem::NotTextInput(kind.to_owned())));
        }
        _ => return Err(ToolError::element(element_ref, ElementProblem::NotEditable)),
    }
    if text.is_empty() {
        press(tab_id, &sightline_core::keys::parse_chord("Delete")?).await
    } else {
        cdp::send::<serde_json::Value>(tab_id, "Input.insertText", serde_json::json!({"text": text})).await?;
        Ok(())
    }
}

/// Presses and releases one key (with its modifiers).
pub async fn press(tab_id: i32, key: &KeyPress) -> Result<(), ToolError> {
    let mut down = serde_json::json!({
        "type": if key.text.is_some() { "keyDown" } else { "rawKeyDown" },
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.windows_virtual_key_code,
        "nativeVirtualKeyCode": key.windows_virtual_key_code,
        "modifiers": key.modifiers,
    });
    if let Some(text) = &key.text {
        down["text"] = text.clone().into();
        down["unmodifiedText"] = text.clone().into();
    }
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchKeyEvent", down).await?;
    let up = serde_json::json!({
        "type": "keyUp",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.windows_virtual_key_code,
        "nativeVirtualKeyCode": key.windows_virtual_key_code,
        "modifiers": key.modifiers,
    });
    cdp::send::<serde_json::Value>(tab_id, "Input.dispatchKeyEvent", up).await?;
    Ok(())
}
