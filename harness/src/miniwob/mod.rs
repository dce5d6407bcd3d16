//! MiniWoB++ tasks played through MCP, for `cargo xtask tasks` and the end-to-end subset:
//! where the task pages are (`site`), the harness's own hand on an episode over CDP
//! (`control`), what a solver knows of a page (`page`, read from each server's replies by
//! `formats`), the interface solvers act through with an adapter per server (`agent`), the
//! solvers themselves (`solvers`) and one episode from start to reward (`episode`).

pub mod agent;
pub mod control;
pub mod episode;
pub mod formats;
pub mod page;
pub mod site;
pub mod solvers;
