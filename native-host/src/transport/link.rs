//! Messages between `sightline-host mcp` (or `doctor`) and a bridge, over a bridge socket.
//!
//! The first frame on every connection is a [`ClientMessage::Hello`]; the bridge answers with
//! [`BridgeMessage::Welcome`] or, when the two binaries are different versions,
//! [`BridgeMessage::Rejected`] carrying the fix.
//!
//! The two ends are rejected exactly when they run different versions, so the hello and the
//! rejection must stay readable across versions: fields are only ever added (with a default),
//! never renamed or removed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sightline_core::protocol::{ToolCall, ToolOutput};

/// This binary's version; both ends of a link must agree on it exactly.
pub const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The longest time limit a call may carry; longer ones are cut to it.
pub const MAX_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// A message from an MCP server process (or `doctor`) to a bridge.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Opens the link.
    Hello {
        /// The client's `sightline-host` version.
        version: String,
        /// The MCP session id; `None` for a status probe (`doctor`).
        session: Option<String>,
    },
    /// A tool call to forward to the extension.
    Call {
        /// Chosen by the client, unique on this link.
        id: u64,
        /// How long the client waits for the answer, in milliseconds; the extension answers
        /// within it.
        time_limit_ms: u64,
        /// The MCP client's name (`initialize`'s `clientInfo.name`), when it gave one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        /// The call.
        #[serde(flatten)]
        call: ToolCall,
    },
    /// The client gave up on call `id` (the agent cancelled it): stop it, send no result.
    Cancel {
        /// The call's id.
        id: u64,
    },
}

/// A message from a bridge to its client.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BridgeMessage {
    /// The link is open.
    Welcome {
        /// The bridge's `sightline-host` version.
        version: String,
        /// The bridge's process id.
        pid: u32,
        /// The extension on the other side, once it has said hello.
        extension: Option<ExtensionInfo>,
        /// The browser that started the bridge, as far as the bridge can tell.
        #[serde(default)]
        browser: Option<BrowserProcess>,
        /// When the bridge started (milliseconds since the Unix epoch): among several bridges,
        /// clients pick the one that has run longest.
        #[serde(default)]
        started_ms: u64,
    },
    /// The link was refused; `reason` says why and what to do.
    Rejected {
        /// Explanation with the fix, for people; clients of every version show it.
        reason: String,
        /// Why, for code: clients match on this, never on `reason`. Absent from bridges that
        /// predate it, which read as [`RejectionKind::Other`].
        #[serde(default)]
        kind: RejectionKind,
    },
    /// The outcome of a [`ClientMessage::Call`].
    Result {
        /// The call's id.
        id: u64,
        /// What the tool produced.
        output: ToolOutput,
    },
    /// Call `id` waits for the person to answer a question in the browser (as the extension
    /// said): the client waits for it `time_limit_ms` from now, within its own hard maximum.
    Waiting {
        /// The call's id.
        id: u64,
        /// How long the call may now run, in milliseconds from when this is read.
        time_limit_ms: u64,
        /// The action asked about, in the person's words.
        question: String,
    },
    /// The person's answer to the question call `id` waited on came (as the extension said),
    /// before an allowed action starts.
    Answered {
        /// The call's id.
        id: u64,
        /// Whether the person allowed the action: only then may it run.
        allowed: bool,
    },
}

/// What an agent reads when the browser's connection closed while its call waited on the
/// person's answer to `question`, no allowing answer heard: the action did not run, and
/// calling again asks again.
pub fn closed_while_asking(question: &str) -> String {
    format!(
        "the browser's extension restarted (or the browser closed) while a question to the person was open \
         ({question}); the action was not run. Call it again to ask again."
    )
}

/// The longest a call may wait on the person past its normal time limit: the longest answer
/// time a person can set. Both ends of the host hold a call to its limit plus this, whatever
/// the browser says.
pub const MAX_WAIT_ON_PERSON: std::time::Duration =
    std::time::Duration::from_secs(sightline_core::permissions::MAX_ANSWER_SECONDS as u64);

/// Why a bridge refused a client.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RejectionKind {
    /// The client and the bridge are different versions of `sightline-host`.
    VersionMismatch(VersionMismatch),
    /// A reason this client does not know: from a newer bridge, or an older one that did not
    /// say.
    #[default]
    #[serde(other)]
    Other,
}

/// A client and a bridge from different versions of `sightline-host`; both ends of a link must
/// agree on the version exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error(
    "version mismatch: this MCP server is sightline-host {client} but the browser runs the bridge from \
     sightline-host {bridge}. Restart the browser (or reload the Sightline extension) so both use the same \
     installed binary, then run `sightline-host doctor`."
)]
pub struct VersionMismatch {
    /// The client's version.
    pub client: String,
    /// The bridge's version.
    pub bridge: String,
}

impl VersionMismatch {
    /// The message a bridge answers a client of the wrong version with.
    pub fn rejection(self) -> BridgeMessage {
        BridgeMessage::Rejected { reason: self.to_string(), kind: RejectionKind::VersionMismatch(self) }
    }
}

/// An extension whose version differs from this host's, so it cannot serve it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Sightline extension is version {extension} but sightline-host is {host}. Install matching versions: \
     rebuild with `cargo xtask build`, reload the extension, and run `sightline-host install`."
)]
pub struct ExtensionMismatch {
    /// The extension's version.
    pub extension: String,
    /// This host's version.
    pub host: String,
}

/// What the extension told the bridge about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtensionInfo {
    /// Extension version.
    pub version: String,
    /// Browser user agent.
    pub browser: String,
    /// The wire protocol the extension speaks (0 from a bridge that did not say).
    #[serde(default)]
    pub protocol: u32,
}

/// The browser process that started a bridge: which browser, and which profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowserProcess {
    /// Its process id.
    pub pid: u32,
    /// Which browser (`chrome`, `chromium`, `edge`, `brave`, `vivaldi`), when its executable
    /// says.
    pub browser: Option<String>,
    /// Its user data directory: the `--user-data-dir` it was started with, or that browser's
    /// default.
    pub user_data_dir: Option<PathBuf>,
}

impl std::fmt::Display for BrowserProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.browser.as_deref().unwrap_or("a browser"))?;
        match &self.user_data_dir {
            Some(dir) => write!(f, " with profile {} (pid {})", dir.display(), self.pid),
            None => write!(f, " (pid {})", self.pid),
        }
    }
}

/// Why a client of version `client` may not talk to a bridge of this version, if it may not.
pub fn version_mismatch(client: &str) -> Option<VersionMismatch> {
    (client != HOST_VERSION).then(|| VersionMismatch { client: client.to_owned(), bridge: HOST_VERSION.to_owned() })
}

/// Why an extension of version `extension` cannot serve this host, if it cannot.
pub fn extension_mismatch(extension: &str) -> Option<ExtensionMismatch> {
    (extension != HOST_VERSION)
        .then(|| ExtensionMismatch { extension: extension.to_owned(), host: HOST_VERSION.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_version_is_accepted_and_a_different_one_is_explained() {
        assert_eq!(version_mismatch(HOST_VERSION), None);
        let mismatch = version_mismatch("0.0.1-old").unwrap();
        assert_eq!(mismatch, VersionMismatch { client: "0.0.1-old".into(), bridge: HOST_VERSION.into() });
        let reason = mismatch.to_string();
        assert!(reason.contains("0.0.1-old") && reason.contains(HOST_VERSION) && reason.contains("doctor"));
    }

    #[test]
    fn same_extension_version_is_accepted_and_a_different_one_is_explained() {
        assert_eq!(extension_mismatch(HOST_VERSION), None);
        let mismatch = extension_mismatch("0.0.1-old").unwrap();
        assert_eq!(mismatch, ExtensionMismatch { extension: "0.0.1-old".into(), host: HOST_VERSION.into() });
        let reason = mismatch.to_string();
        assert!(reason.contains("0.0.1-old") && reason.contains(HOST_VERSION) && reason.contains("cargo xtask build"));
    }

    #[test]
    fn a_version_mismatch_rejection_carries_both_versions_and_the_explanation() {
        let mismatch = version_mismatch("0.0.1-old").unwrap();
        let frame = serde_json::to_value(mismatch.clone().rejection()).unwrap();
        assert_eq!(
            frame,
            serde_json::json!({
                "type": "rejected",
                "reason": mismatch.to_string(),
                "kind": {"type": "version_mismatch", "client": "0.0.1-old", "bridge": HOST_VERSION},
            })
        );
        let BridgeMessage::Rejected { kind, .. } = serde_json::from_value(frame).unwrap() else {
            panic!("not a rejection")
        };
        assert_eq!(kind, RejectionKind::VersionMismatch(mismatch));
    }

    /// `BridgeMessage::Rejected` as clients before `kind` existed read it.
    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum OlderBridgeMessage {
        Rejected { reason: String },
    }

    #[test]
    fn an_older_client_still_reads_the_reason_of_a_rejection() {
        let mismatch = version_mismatch("0.0.1-old").unwrap();
        let frame = serde_json::to_string(&mismatch.clone().rejection()).unwrap();
        let OlderBridgeMessage::Rejected { reason } = serde_json::from_str(&frame).unwrap();
        assert_eq!(reason, mismatch.to_string());
    }

    #[test]
    fn a_rejection_from_a_bridge_that_predates_kinds_reads_as_other() {
        let frame = r#"{"type":"rejected","reason":"version mismatch: old words"}"#;
        let message: BridgeMessage = serde_json::from_str(frame).unwrap();
        let BridgeMessage::Rejected { reason, kind } = message else { panic!("not a rejection") };
        assert_eq!((reason.as_str(), kind), ("version mismatch: old words", RejectionKind::Other));
    }

    #[test]
    fn a_rejection_kind_from_a_newer_bridge_reads_as_other() {
        let frame = r#"{"type":"rejected","reason":"new words","kind":{"type":"too_many_sessions","limit":8}}"#;
        let message: BridgeMessage = serde_json::from_str(frame).unwrap();
        let BridgeMessage::Rejected { reason, kind } = message else { panic!("not a rejection") };
        assert_eq!((reason.as_str(), kind), ("new words", RejectionKind::Other));
    }
}
