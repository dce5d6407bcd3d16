//! Messages exchanged between the native host (bridge mode) and the extension over native
//! messaging. Each message is one JSON object; the framing lives in the host.

use serde::{Deserialize, Serialize};

use super::tools::ToolCall;

/// Version of the host ⇄ extension message format. Bumped on any incompatible change.
pub const WIRE_PROTOCOL: u32 = 1;

/// A message from the native host to the extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostToExtension {
    /// Run one tool call on behalf of an MCP session.
    Call {
        /// Correlates the result with the call; unique per bridge process.
        id: u64,
        /// The MCP session the call belongs to: page state is kept per (session, tab).
        session: String,
        /// The tool and its arguments.
        #[serde(flatten)]
        call: ToolCall,
    },
    /// An MCP session ended: its page states can be dropped.
    SessionClosed {
        /// The session that ended.
        session: String,
    },
}

/// A message from the extension to the native host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExtensionToHost {
    /// Sent once right after the port opens.
    Hello {
        /// The extension's version (its manifest version).
        version: String,
        /// The wire protocol it speaks ([`WIRE_PROTOCOL`]).
        protocol: u32,
        /// The browser's user agent, for `doctor` and logs.
        #[serde(default)]
        browser: String,
    },
    /// The outcome of a [`HostToExtension::Call`].
    Result {
        /// The id of the call.
        id: u64,
        /// What the tool produced.
        output: ToolOutput,
    },
}

/// What a tool call produced, in a transport-neutral shape the host maps onto MCP.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The text an agent reads. Always present.
    pub text: String,
    /// Machine-readable facts, declared by the tool's output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<serde_json::Value>,
    /// An image (screenshots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageData>,
    /// True when the call failed; `text` says what happened and what to do.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result with only text.
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }

    /// A failed call with a message for the agent.
    pub fn error(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: true, ..Self::default() }
    }
}

/// A base64-encoded image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageData {
    /// MIME type, e.g. `image/png`.
    pub mime: String,
    /// Base64 of the image bytes.
    pub base64: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tools::{ClickParams, ToolCall};

    #[test]
    fn call_round_trips_with_tool_name_and_arguments_inline() {
        let msg = HostToExtension::Call {
            id: 7,
            session: "s1".into(),
            call: ToolCall::BrowserClick(ClickParams { element_ref: "e12".into(), ..ClickParams::default() }),
        };
        let json = serde_json::to_value(&msg).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "call", "id": 7, "session": "s1",
                "tool": "browser_click", "args": {"ref": "e12"}})
        );
        let back: HostToExtension = serde_json::from_value(json).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn error_output_serialises_its_flag_and_omits_empty_fields() {
        let json = serde_json::to_value(ToolOutput::error("no tab")).unwrap();
        assert_eq!(json, serde_json::json!({"text": "no tab", "is_error": true}));
    }
}
