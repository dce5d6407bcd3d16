//! Rules that say which events are noise: browser-extension chatter, dev-server hot-reload
//! messages, analytics beacons.
//!
//! Noise stays in the buffers (the raw console and network tools still show it) but is left
//! out of change reports and response lines, so an agent only hears about its application.
//! Matching is plain, ASCII-case-insensitive text matching: no regular expressions, no
//! allocation per event. A [`NoiseConfig`] (kept by the extension in its settings) changes the
//! default rules: rules to add or replace by name, names of rules to remove.

use serde::{Deserialize, Serialize};

use super::entries::{ConsoleEntry, NetworkEntry, WebSocketEvent};
use super::fingerprint::url_path;

/// Which text of an event a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseTarget {
    /// A console message's text.
    ConsoleText,
    /// A console message's source URL.
    ConsoleSource,
    /// A request's full URL.
    RequestUrl,
    /// A request's URL path (no query).
    RequestPath,
    /// A WebSocket's URL.
    WebSocketUrl,
}

/// How a rule's pattern must appear in the target text (ignoring ASCII case).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoisePattern {
    /// Anywhere in the text.
    Contains(String),
    /// At its start.
    StartsWith(String),
    /// At its end.
    EndsWith(String),
}

impl NoisePattern {
    fn matches(&self, text: &str) -> bool {
        let text = text.as_bytes();
        match self {
            NoisePattern::Contains(p) => contains_ignoring_case(text, p.as_bytes()),
            NoisePattern::StartsWith(p) => {
                text.get(..p.len()).is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
            }
            NoisePattern::EndsWith(p) => {
                text.len().checked_sub(p.len()).is_some_and(|start| text[start..].eq_ignore_ascii_case(p.as_bytes()))
            }
        }
    }
}

fn contains_ignoring_case(haystack: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    haystack.windows(needle.len()).any(|window| window.eq_ignore_ascii_case(needle))
}

/// One noise rule: events whose target text matches the pattern are noise.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoiseRule {
    /// Unique name, used to remove the rule.
    pub name: String,
    /// Which text the rule looks at.
    pub target: NoiseTarget,
    /// What that text must hold.
    pub pattern: NoisePattern,
}

impl NoiseRule {
    /// A rule from its parts.
    pub fn new(name: impl Into<String>, target: NoiseTarget, pattern: NoisePattern) -> Self {
        NoiseRule { name: name.into(), target, pattern }
    }
}

/// The active noise rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoiseRules {
    rules: Vec<NoiseRule>,
}

impl Default for NoiseRules {
    fn default() -> Self {
        use NoisePattern::{Contains, EndsWith, StartsWith};
        use NoiseTarget::*;
        let rule = |name: &str, target, pattern| NoiseRule::new(name, target, pattern);
        let text = |s: &str| s.to_owned();
        NoiseRules {
            rules: vec![
                rule("extension_console_source", ConsoleSource, StartsWith(text("chrome-extension://"))),
                rule("extension_console_text", ConsoleText, Contains(text("chrome-extension://"))),
                rule("extension_requests", RequestUrl, StartsWith(text("chrome-extension://"))),
                rule("hmr", ConsoleText, Contains(text("[HMR]"))),
                rule("vite", ConsoleText, Contains(text("[vite]"))),
                rule("webpack_dev_server", ConsoleText, Contains(text("[webpack-dev-server]"))),
                rule("webpack_hmr_requests", RequestUrl, Contains(text("webpack-hmr"))),
                rule("webpack_hmr_socket", WebSocketUrl, Contains(text("webpack-hmr"))),
                rule("google_analytics", RequestUrl, Contains(text("google-analytics.com"))),
                rule("google_tag_manager", RequestUrl, Contains(text("googletagmanager.com"))),
                rule("analytics_collect", RequestPath, EndsWith(text("/collect"))),
                rule("segment", RequestUrl, Contains(text("segment.io"))),
                rule("segment_cdn", RequestUrl, Contains(text("cdn.segment.com"))),
                rule("doubleclick", RequestUrl, Contains(text("doubleclick.net"))),
                // The browser asks every site for its icon; a missing one breaks nothing.
                rule("favicon", RequestPath, EndsWith(text("/favicon.ico"))),
            ],
        }
    }
}

/// Changes to the default noise rules, e.g.
/// `{"add": [{"name": "ads", "target": "request_url", "pattern": {"contains": "ads."}}], "remove": ["segment"]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoiseConfig {
    /// Rules to add, replacing any of the same name.
    #[serde(default)]
    pub add: Vec<NoiseRule>,
    /// Names of rules to remove.
    #[serde(default)]
    pub remove: Vec<String>,
}

impl NoiseRules {
    /// The default rules changed by `config`: its removals first, then its additions (a rule
    /// named like a default one takes that one's place).
    pub fn configured(config: NoiseConfig) -> Self {
        let mut rules = NoiseRules::default();
        for name in &config.remove {
            rules.remove(name);
        }
        for rule in config.add {
            rules.add(rule);
        }
        rules
    }

    /// No rules at all: every event counts.
    pub fn none() -> Self {
        NoiseRules { rules: Vec::new() }
    }

    /// The rules, in the order they were added.
    pub fn rules(&self) -> &[NoiseRule] {
        &self.rules
    }

    /// Adds a rule, replacing any rule of the same name. Returns the rule it replaced.
    pub fn add(&mut self, rule: NoiseRule) -> Option<NoiseRule> {
        match self.rules.iter_mut().find(|r| r.name == rule.name) {
            Some(existing) => Some(std::mem::replace(existing, rule)),
            None => {
                self.rules.push(rule);
                None
            }
        }
    }

    /// Removes the rule called `name`; returns it when there was one.
    pub fn remove(&mut self, name: &str) -> Option<NoiseRule> {
        let index = self.rules.iter().position(|r| r.name == name)?;
        Some(self.rules.remove(index))
    }

    fn any(&self, target: NoiseTarget, text: &str) -> bool {
        self.rules.iter().any(|r| r.target == target && r.pattern.matches(text))
    }

    /// Whether a console message is noise.
    pub fn is_console_noise(&self, entry: &ConsoleEntry) -> bool {
        self.any(NoiseTarget::ConsoleText, &entry.text)
            || entry.source.as_ref().is_some_and(|s| self.any(NoiseTarget::ConsoleSource, &s.url))
    }

    /// Whether a request is noise.
    pub fn is_request_noise(&self, entry: &NetworkEntry) -> bool {
        self.any(NoiseTarget::RequestUrl, &entry.url) || self.any(NoiseTarget::RequestPath, url_path(&entry.url))
    }

    /// Whether a WebSocket event is noise.
    pub fn is_websocket_noise(&self, event: &WebSocketEvent) -> bool {
        self.any(NoiseTarget::WebSocketUrl, &event.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::entries::{ConsoleLevel, SourceLocation};

    fn console(text: &str, source: Option<&str>) -> ConsoleEntry {
        ConsoleEntry {
            level: ConsoleLevel::Error,
            text: text.into(),
            source: source.map(|url| SourceLocation { url: url.into(), line: 1, column: 1 }),
            time_ms: 0,
            tab: 1,
        }
    }

    fn request(url: &str) -> NetworkEntry {
        NetworkEntry {
            method: "GET".into(),
            url: url.into(),
            status: 200,
            error: None,
            duration_ms: 1,
            encoded_bytes: 0,
            resource_type: None,
            time_ms: 0,
            tab: 1,
        }
    }

    #[test]
    fn default_rules_catch_extensions_dev_servers_and_analytics() {
        let rules = NoiseRules::default();
        assert!(rules.is_console_noise(&console("boom", Some("chrome-extension://abc/content.js"))));
        assert!(rules.is_console_noise(&console("[vite] connected.", None)));
        assert!(rules.is_console_noise(&console("[hmr] Waiting for update signal", None)));
        assert!(rules.is_request_noise(&request("https://www.google-analytics.com/g/collect?v=2")));
        assert!(rules.is_request_noise(&request("https://example.com/j/collect")));
        assert!(!rules.is_request_noise(&request("https://example.com/collections/summer")));
        assert!(rules.is_request_noise(&request("http://127.0.0.1:8080/favicon.ico")));
        assert!(!rules.is_request_noise(&request("http://127.0.0.1:8080/favicon.ico.php")));
        assert!(!rules.is_console_noise(&console("TypeError: x is undefined", Some("https://example.com/app.js"))));
    }

    fn names(rules: &NoiseRules) -> Vec<&str> {
        rules.rules().iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn a_config_removes_default_rules_and_adds_its_own_after_them() {
        let config: NoiseConfig = serde_json::from_str(
            r#"{"add": [{"name": "ads", "target": "request_url", "pattern": {"contains": "ads."}}],
                "remove": ["segment", "segment_cdn", "no_such_rule"]}"#,
        )
        .unwrap();
        let rules = NoiseRules::configured(config);
        assert_eq!(
            names(&rules),
            [
                "extension_console_source",
                "extension_console_text",
                "extension_requests",
                "hmr",
                "vite",
                "webpack_dev_server",
                "webpack_hmr_requests",
                "webpack_hmr_socket",
                "google_analytics",
                "google_tag_manager",
                "analytics_collect",
                "doubleclick",
                "favicon",
                "ads",
            ]
        );
        assert!(rules.is_request_noise(&request("https://ads.example.com/x")));
        assert!(!rules.is_request_noise(&request("https://api.segment.io/v1/t")));
    }

    #[test]
    fn a_config_rule_named_like_a_default_one_takes_its_place() {
        let config: NoiseConfig = serde_json::from_str(
            r#"{"add": [{"name": "hmr", "target": "console_text", "pattern": {"starts_with": "[HMR] ready"}}]}"#,
        )
        .unwrap();
        let rules = NoiseRules::configured(config);
        assert_eq!(names(&rules), names(&NoiseRules::default()));
        assert_eq!(
            rules.rules()[3],
            NoiseRule::new("hmr", NoiseTarget::ConsoleText, NoisePattern::StartsWith("[HMR] ready".into()))
        );
        assert!(!rules.is_console_noise(&console("[HMR] Waiting for update signal", None)));
    }

    #[test]
    fn an_empty_config_keeps_the_defaults() {
        let empty: NoiseConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(NoiseRules::configured(empty), NoiseRules::default());
    }

    #[test]
    fn rules_can_be_replaced_and_removed_by_name() {
        let mut rules = NoiseRules::none();
        let rule = NoiseRule::new("ads", NoiseTarget::RequestUrl, NoisePattern::Contains("ads.".into()));
        assert_eq!(rules.add(rule.clone()), None);
        assert!(rules.is_request_noise(&request("https://ads.example.com/x")));
        assert_eq!(rules.remove("ads"), Some(rule));
        assert!(!rules.is_request_noise(&request("https://ads.example.com/x")));
        assert_eq!(rules.remove("ads"), None);
    }
}
