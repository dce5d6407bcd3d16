//! What a person reviews of an agent's work on a tab (the DevTools panel): each answer as a
//! human diff of the page, word by word, computed here from the same facts the agent's text is
//! written from, so the panel only draws; change reports as cards; the tab's console, network
//! and WebSocket events on the calls' time axis; the whole session exported for a bug report.

pub mod cards;
pub mod current_view;
pub mod export;
pub mod lanes;
pub mod playwright;
pub mod replay;
pub mod rows;
pub mod session_log;
pub mod shots;
pub mod target;
pub mod words;

pub use cards::{Card, CardKind, ReportCards, checkpoint_cards, report_cards};
pub use current_view::{CurrentView, ViewSection, current_view};
pub use export::{SessionExport, session_markdown};
pub use lanes::{Lane, LaneEvent, Level, MAX_LANE_EVENTS, lane_events};
pub use playwright::{SpecRange, playwright_spec};
pub use replay::session_replay;
pub use rows::{Row, rows};
pub use session_log::{CallRecord, Finished, PanelModel, SessionLog};
pub use shots::{Shot, ShotPair, ShotStore};
pub use target::{ActionTarget, Scope, targets_of};
pub use words::{Piece, WordDiff, word_diff};
