//! The vocabulary shared by the native host and the extension runtime.
//!
//! `tools` holds the parameter type of every agent-facing tool: the host derives each tool's
//! JSON Schema from these types and the extension deserialises the very same types, so a
//! parameter can never drift between the two sides. `wire` holds the messages that cross the
//! native messaging port. Nothing here performs I/O.

pub mod changes;
pub mod output;
pub mod page_tools;
pub mod reading;
pub mod selection;
pub mod tools;
pub mod wire;

pub use changes::*;
pub use output::*;
pub use page_tools::*;
pub use reading::*;
pub use selection::*;
pub use tools::*;
pub use wire::*;
