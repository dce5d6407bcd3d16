//! What a person reviews of an agent's work on a tab (the DevTools panel): each answer as a
//! human diff of the page, word by word, computed here from the same facts the agent's text is
//! written from, so the panel only draws.

pub mod rows;
pub mod session_log;
pub mod words;

pub use rows::{Row, rows};
pub use session_log::{CallRecord, Finished, PanelModel, SessionLog};
pub use words::{Piece, WordDiff, word_diff};
