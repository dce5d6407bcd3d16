//! The vocabulary shared by the native host and the extension runtime.
//!
//! `tools` declares every agent-facing tool once ([`ToolCall`] and the [`TOOLS`] table, whose
//! vocabulary is in `tool_spec`); the parameter types are in `element_tools`, `page_tools`,
//! `reading`, `changes` and `selection`. The host derives each tool's JSON Schema from these
//! types and serves the tools from the table, and the extension deserialises the very same
//! types, so a tool can never drift between the two sides. `wire` holds the messages that
//! cross the native messaging port. Nothing here performs I/O.

pub mod changes;
mod declare;
pub mod element_tools;
pub mod output;
pub mod page_tools;
pub mod reading;
pub mod selection;
pub mod tool_spec;
pub mod tools;
pub mod wire;

pub use changes::*;
pub use element_tools::*;
pub use output::*;
pub use page_tools::*;
pub use reading::*;
pub use selection::*;
pub use tool_spec::*;
pub use tools::*;
pub use wire::*;
