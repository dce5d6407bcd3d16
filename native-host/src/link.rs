//! Messages between `sightline-host mcp` (or `doctor`) and a bridge, over a bridge socket.
//!
//! The first frame on every connection is a [`ClientMessage::Hello`]; the bridge answers with
//! [`BridgeMessage::Welcome`] or, when the two binaries are different versions,
//! [`BridgeMessage::Rejected`] carrying the fix.

use serde::{Deserialize, Serialize};
use sightline_core::protocol::{ToolCall, ToolOutput};

/// This binary's version; both ends of a link must agree on it exactly.
pub const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");

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
        /// The call.
        #[serde(flatten)]
        call: ToolCall,
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
    },
    /// The link was refused; `reason` says why and what to do.
    Rejected {
        /// Explanation with the fix.
        reason: String,
    },
    /// The outcome of a [`ClientMessage::Call`].
    Result {
        /// The call's id.
        id: u64,
        /// What the tool produced.
        output: ToolOutput,
    },
}

/// What the extension told the bridge about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtensionInfo {
    /// Extension version.
    pub version: String,
    /// Browser user agent.
    pub browser: String,
}

/// The reason a client of version `client` may not talk to a bridge of this version.
pub fn version_mismatch(client: &str) -> Option<String> {
    (client != HOST_VERSION).then(|| {
        format!(
            "version mismatch: this MCP server is sightline-host {client} but the browser runs the bridge from \
             sightline-host {HOST_VERSION}. Restart the browser (or reload the Sightline extension) so both use \
             the same installed binary, then run `sightline-host doctor`."
        )
    })
}

/// The reason an extension of version `extension` cannot serve this host, if it cannot.
pub fn extension_mismatch(extension: &str) -> Option<String> {
    (extension != HOST_VERSION).then(|| {
        format!(
            "the Sightline extension is version {extension} but sightline-host is {HOST_VERSION}. Install matching \
             versions: rebuild with `cargo xtask build`, reload the extension, and run `sightline-host install`."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_version_is_accepted_and_a_different_one_is_explained() {
        assert_eq!(version_mismatch(HOST_VERSION), None);
        let reason = version_mismatch("0.0.1-old").unwrap();
        assert!(reason.contains("0.0.1-old") && reason.contains(HOST_VERSION) && reason.contains("doctor"));
    }
}
