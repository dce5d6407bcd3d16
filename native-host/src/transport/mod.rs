//! How the host's processes speak: the browser's native messaging framing
//! ([`native_messaging`]), where bridge sockets live and why one may be trusted ([`socket`]),
//! the framing on a bridge socket ([`frame`]), the messages an MCP server or `doctor` exchanges
//! with a bridge ([`link`]), and the calls waiting for their answers on either end
//! ([`pending`]).
//!
//! Transport knows nothing of MCP or of registering with browsers; it uses [`crate::platform`]
//! alone, and the bridge, the client and setup use it.

pub mod frame;
pub mod link;
pub mod native_messaging;
pub mod pending;
pub mod socket;
