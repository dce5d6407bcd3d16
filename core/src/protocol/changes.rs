//! Parameter types of the change-report tools: `get_changes_since` and `browser_checkpoint`.
//!
//! Like every tool parameter type, their doc comments become schema descriptions an agent reads
//! in `tools/list`, so they stay short. The engine behind them is `crate::changes`.

use serde::{Deserialize, Serialize};

/// A section of the change report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Console errors and warnings.
    Console,
    /// Failed, new and slow requests.
    Network,
    /// WebSocket opens, closes and errors.
    #[serde(rename = "websocket")]
    WebSocket,
    /// Clicks, typing, navigation (by the agent or the user).
    Actions,
}

impl Section {
    /// Every section, in report order.
    pub const ALL: [Section; 4] = [Section::Console, Section::Network, Section::WebSocket, Section::Actions];

    /// The section's name as it appears in parameters and reports.
    pub fn name(self) -> &'static str {
        match self {
            Section::Console => "console",
            Section::Network => "network",
            Section::WebSocket => "websocket",
            Section::Actions => "actions",
        }
    }
}

/// The lowest severity a change report lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SeverityFilter {
    /// Everything, including new endpoints and actions.
    #[default]
    All,
    /// Warnings and errors.
    Warnings,
    /// Errors only.
    ErrorsOnly,
}

/// What changed in the browser since a checkpoint: new console errors, failed or new requests,
/// WebSocket closes, actions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChangesParams {
    /// Checkpoint name or ISO 8601 time (default: since your previous call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// Sections to report (default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<Section>>,
    /// Lowest severity to list (default `all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<SeverityFilter>,
    /// Only this tab (default: all tabs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// What `browser_checkpoint` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CheckpointAction {
    /// Mark this moment as `name`.
    Create,
    /// List named checkpoints.
    #[default]
    List,
    /// Remove `name`.
    Delete,
}

/// Create, list or delete named checkpoints to compare against with get_changes_since.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckpointParams {
    /// Default `list`.
    #[serde(default)]
    pub action: CheckpointAction,
    /// For `create` and `delete`: lowercase letters, digits, `_`, e.g. `before_refactor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_use_their_short_names_on_the_wire() {
        let json = serde_json::to_string(&Section::ALL).unwrap();
        assert_eq!(json, r#"["console","network","websocket","actions"]"#);
        for section in Section::ALL {
            assert!(json.contains(&format!("\"{}\"", section.name())));
        }
    }

    #[test]
    fn changes_params_reject_unknown_arguments() {
        let err = serde_json::from_value::<ChangesParams>(serde_json::json!({"since": "x"})).unwrap_err();
        assert!(err.to_string().contains("unknown field `since`"), "{err}");
    }

    #[test]
    fn checkpoint_params_default_to_list() {
        let params: CheckpointParams = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(params, CheckpointParams { action: CheckpointAction::List, name: None });
        let params: ChangesParams =
            serde_json::from_value(serde_json::json!({"severity": "errors_only", "include": ["websocket"]})).unwrap();
        assert_eq!(params.severity, Some(SeverityFilter::ErrorsOnly));
        assert_eq!(params.include, Some(vec![Section::WebSocket]));
    }
}
