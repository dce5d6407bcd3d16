//! Messages exchanged between the native host (bridge mode) and the extension over native
//! messaging. Each message is one JSON object; the framing lives in the host.

use serde::{Deserialize, Serialize};

use super::tools::ToolCall;

/// Version of the host ⇄ extension message format. Bumped on any incompatible change.
///
/// 2: every call carries its time limit (`time_limit_ms`), and the host can call one off
/// ([`HostToExtension::Cancel`]).
/// 3: the extension says when the person's answer to a question arrives
/// ([`ExtensionToHost::Answered`]), so the host knows whether a call cut short had started to
/// act.
pub const WIRE_PROTOCOL: u32 = 3;

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
        /// How long the caller waits, in milliseconds from when the extension reads the call.
        /// The extension answers within it: whatever the call still waits for when it runs out
        /// is dropped (the tab is released), and the answer says whether the action may have
        /// run. Relative, so the two ends need not share a clock.
        time_limit_ms: u64,
        /// The MCP client's name, when it gave one: each session's tabs are grouped under it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        /// The tool and its arguments.
        #[serde(flatten)]
        call: ToolCall,
    },
    /// The caller gave up on call `id` (the agent cancelled it, the MCP session ended, or the
    /// host stopped waiting): stop it where it is, release its tab, never start its action if
    /// it has not started, and send no result.
    Cancel {
        /// The call's id.
        id: u64,
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
    /// Call `id` waits for the person to answer a question in the browser: the host waits for
    /// it `time_limit_ms` from when it reads this (the person's answer time and the action's
    /// own budget), never past its own hard maximum, and tells the MCP client what the call
    /// waits for.
    Waiting {
        /// The id of the call.
        id: u64,
        /// How long the call may now run, in milliseconds from when the host reads this.
        time_limit_ms: u64,
        /// The action asked about, in the person's words (`click "Place order" (submit) on
        /// shop.example`).
        question: String,
    },
    /// The question call `id` waited on has its answer (or the person's time ran out), sent
    /// before an allowed action starts: until the host hears this, nothing the person was asked
    /// about has run, whatever happens to the connection.
    Answered {
        /// The id of the call.
        id: u64,
        /// Whether the person allowed the action: only then may it run.
        allowed: bool,
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
    /// Whether the user allows `browser_evaluate` now, as the extension's options say when the
    /// call ends: the host lists that tool only while it is allowed, and tells the client when
    /// this changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluate_allowed: Option<bool>,
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
    use crate::protocol::{ClickParams, ToolCall};

    #[test]
    fn call_round_trips_with_tool_name_and_arguments_inline() {
        let msg = HostToExtension::Call {
            id: 7,
            session: "s1".into(),
            time_limit_ms: 60_000,
            client: None,
            call: ToolCall::BrowserClick(ClickParams { element_ref: "e12".into(), ..ClickParams::default() }),
        };
        let json = serde_json::to_value(&msg).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "call", "id": 7, "session": "s1", "time_limit_ms": 60_000,
                "tool": "browser_click", "args": {"ref": "e12"}})
        );
        let back: HostToExtension = serde_json::from_value(json).unwrap();
        assert_eq!(back, msg);
        let HostToExtension::Call { id, session, time_limit_ms, call, .. } = msg else { unreachable!() };
        let named = HostToExtension::Call { id, session, time_limit_ms, client: Some("Claude Code".into()), call };
        let json = serde_json::to_value(&named).unwrap();
        assert_eq!(json["client"], "Claude Code");
        assert_eq!(serde_json::from_value::<HostToExtension>(json).unwrap(), named);
    }

    #[test]
    fn cancel_names_only_the_call() {
        let json = serde_json::to_value(HostToExtension::Cancel { id: 9 }).unwrap();
        assert_eq!(json, serde_json::json!({"type": "cancel", "id": 9}));
        assert_eq!(serde_json::from_value::<HostToExtension>(json).unwrap(), HostToExtension::Cancel { id: 9 });
    }

    #[test]
    fn a_call_without_a_time_limit_is_refused_rather_than_run_unbounded() {
        // A host of protocol 1 sends none: the extension answers with the version mismatch.
        let json = serde_json::json!({"type": "call", "id": 7, "session": "s1", "tool": "browser_tabs", "args": {}});
        let error = serde_json::from_value::<HostToExtension>(json).unwrap_err();
        assert!(error.to_string().contains("time_limit_ms"), "{error}");
    }

    #[test]
    fn waiting_names_the_call_its_new_limit_and_the_question() {
        let waiting =
            ExtensionToHost::Waiting { id: 4, time_limit_ms: 123_000, question: "click \"Pay\" (payment) on a".into() };
        let json = serde_json::to_value(&waiting).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "waiting", "id": 4, "time_limit_ms": 123_000,
                "question": "click \"Pay\" (payment) on a"})
        );
        assert_eq!(serde_json::from_value::<ExtensionToHost>(json).unwrap(), waiting);
    }

    #[test]
    fn answered_names_the_call_and_whether_it_was_allowed() {
        let answered = ExtensionToHost::Answered { id: 4, allowed: true };
        let json = serde_json::to_value(&answered).unwrap();
        assert_eq!(json, serde_json::json!({"type": "answered", "id": 4, "allowed": true}));
        assert_eq!(serde_json::from_value::<ExtensionToHost>(json).unwrap(), answered);
        let denied = serde_json::json!({"type": "answered", "id": 5, "allowed": false});
        assert_eq!(
            serde_json::from_value::<ExtensionToHost>(denied).unwrap(),
            ExtensionToHost::Answered { id: 5, allowed: false }
        );
    }

    #[test]
    fn error_output_serialises_its_flag_and_omits_empty_fields() {
        let json = serde_json::to_value(ToolOutput::error("no tab")).unwrap();
        assert_eq!(json, serde_json::json!({"text": "no tab", "is_error": true}));
    }
}
