//! The bridge's clients: the MCP server an agent's client launches (`sightline-host mcp`, in
//! [`mcp`]), with the tools' annotations ([`annotations`]) and compacted schemas ([`schema`]),
//! and the link it forwards calls over ([`bridge_client`]), which `doctor` also uses to probe a
//! bridge.
//!
//! It uses [`crate::transport`] and [`crate::platform`], never the bridge's own modules: the
//! two ends meet only in the messages of [`crate::transport::link`].

pub mod annotations;
pub mod bridge_client;
pub mod mcp;
pub mod schema;
