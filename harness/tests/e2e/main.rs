//! The end-to-end tests: Debian's Chromium headless with the unpacked extension, the native host
//! registered in the profile, and real MCP clients, one module per area. One binary, so the
//! harness is linked once.

mod actions;
mod cancellation;
mod changes;
mod consent;
mod custody;
mod deep_pages;
mod derived_semantics;
mod devtools;
mod dist;
mod downloads;
mod dropped;
mod evaluate;
mod faults;
mod fidelity;
mod flood;
mod frame_actions;
mod hostile_hooks;
mod hostile_text;
mod idle;
mod input;
mod masked_screenshots;
mod mcp_clients;
mod mcp_protocol;
mod miniwob;
mod other_sites;
mod page_actions;
mod page_state;
mod panel;
mod permissions;
mod playwright_export;
mod redaction;
mod resilience;
mod trust_host;
mod unchanged_pages;
mod unseen_pages;
mod urls;
mod walking_skeleton;
