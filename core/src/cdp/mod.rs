//! Typed CDP payloads the engine reads.
//!
//! Only the fields the engine uses are declared; unknown fields are ignored and every field
//! that Chrome may omit has a default, so odd or partial input degrades instead of failing.

pub mod accessibility;
pub mod dom_snapshot;
pub mod page;
