//! Parameters of `browser_user_selection`, which reads what the user pointed at for the agent,
//! and of `browser_permissions`, which reads what the person lets agents do on a tab's site.

use serde::{Deserialize, Serialize};

/// The element the user selected in DevTools or picked in the Sightline panel.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UserSelectionParams {
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Which tab's site to tell the person's permissions of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PermissionsParams {
    /// Tab id (default: your current tab).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}
