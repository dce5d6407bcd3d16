//! Parameter types of the tools that only read what was recorded or seen: console messages,
//! requests, and searching the page.

use serde::{Deserialize, Serialize};

/// A console message level, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MessageLevel {
    /// Errors.
    Error,
    /// Warnings and errors.
    Warning,
    /// Info and above.
    Info,
    /// Log and above.
    Log,
    /// Everything.
    Debug,
}

/// Console messages of your tabs, a page at a time; page 1 is the newest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ConsoleMessagesParams {
    /// Lowest level to list (default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<MessageLevel>,
    /// Page (default 1, the newest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Messages per page (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    /// Only this tab (default: all tabs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Requests of your tabs, a page at a time; page 1 is the newest. Each is listed once its
/// response arrives, read or not; those still waiting come last as `pending` with their wait.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NetworkRequestsParams {
    /// Only failed requests (4xx, 5xx, refused, blocked…); pending ones, still waiting for a
    /// response, are not failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
    /// Page (default 1, the newest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Requests per page (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    /// Only this tab (default: all tabs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Search the page, including regions a snapshot showed as unchanged or trimmed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FindParams {
    /// Words in an element's name, value or text, or in a text line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Role, e.g. `button`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Region name, e.g. `nav`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Your actions on a tab as a Playwright test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ExportTestParams {
    /// First version (`vN`) to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_version: Option<u64>,
    /// Last version to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Parameters of `browser_downloads`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DownloadsParams {
    /// Wait for the download whose name contains this to finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<String>,
    /// Seconds to wait, at most 120 (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}
