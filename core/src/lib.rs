//! Sightline's engine.
//!
//! Everything an agent reads about a page is computed here from CDP payloads handed in by the
//! extension runtime: the snapshot, element refs, deltas and change reports. The crate has no
//! I/O, no clock and no async; it compiles natively (for tests and benchmarks on captured
//! pages) and to wasm32 (inside the extension).

pub mod actions;
pub mod calls;
pub mod capture;
pub mod cdp;
pub mod changes;
pub mod custody;
pub mod dialogs;
pub mod downloads;
pub mod frames;
pub mod keys;
pub mod loading;
pub mod page_state;
pub mod permissions;
pub mod protocol;
pub mod refs;
pub mod review;
pub mod screenshot;
pub mod sizes;
pub mod snapshot;
pub mod tab_refs;
pub mod text;
pub mod urls;
