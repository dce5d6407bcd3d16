//! Setting the host up on a machine: registering it with browsers (`install`, `uninstall`, in
//! [`install`]) and checking every link from an MCP client to the browser ([`doctor`]).
//!
//! Setup sits on top: it uses the client to probe bridges, the transport and the platform's
//! paths and keys, and nothing below it uses setup.

pub mod doctor;
pub mod install;
