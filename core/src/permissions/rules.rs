//! The person's rules: per site pattern a [`Level`], and per action class an optional
//! [`Verdict`] that overrides the level for that class. Kept as JSON in the browser's storage,
//! exported and imported by the person as the same JSON, validated with errors that say which
//! rule is wrong and how.
//!
//! A pattern is `*` (every site), a host (`shop.example`: that host only) or `*.` and a host
//! (`*.bank.example`: that host and every host under it). The most specific pattern matching a
//! host wins: a host beats any wildcard, and of two wildcards the longer. Ports and schemes are
//! not part of a pattern: a rule about a site holds on every port and scheme of it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::classes::ActionClass;

/// How much an agent may do on a site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The agent cannot open, read or act on the site.
    NoAccess,
    /// The agent may open and read the site's pages, and go elsewhere; nothing else.
    ReadOnly,
    /// The agent reads and acts; the person is asked before each consequential action.
    Ask,
    /// The agent reads and acts freely.
    ActFreely,
}

impl Level {
    /// The level in the person's words.
    pub fn words(self) -> &'static str {
        match self {
            Level::NoAccess => "no access",
            Level::ReadOnly => "read only",
            Level::Ask => "ask before consequential actions",
            Level::ActFreely => "act freely",
        }
    }

    /// What this level says about an action of `class`.
    pub fn verdict(self, class: ActionClass) -> Verdict {
        match (self, class) {
            (Level::NoAccess, _) => Verdict::Refuse,
            (Level::ReadOnly, ActionClass::Read | ActionClass::Leave) => Verdict::Allow,
            (Level::ReadOnly, _) => Verdict::Refuse,
            (Level::Ask, class) if class.is_consequential() => Verdict::Ask,
            (Level::Ask | Level::ActFreely, _) => Verdict::Allow,
        }
    }
}

/// What a rule says about one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// It runs.
    Allow,
    /// The person is asked first.
    Ask,
    /// It does not run.
    Refuse,
}

/// One rule: a site pattern, its level, and per-class overrides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// `*`, `host` or `*.host`.
    pub site: String,
    /// The level on the sites the pattern matches.
    pub level: Level,
    /// Classes whose verdict differs from the level's (`{"payment": "ask"}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub classes: BTreeMap<ActionClass, Verdict>,
}

impl Rule {
    /// A rule of `level` on `site`, without overrides.
    pub fn new(site: &str, level: Level) -> Rule {
        Rule { site: site.to_owned(), level, classes: BTreeMap::new() }
    }

    /// What this rule says about an action of `class`: its override, else its level's.
    pub fn verdict(&self, class: ActionClass) -> Verdict {
        if self.level == Level::NoAccess {
            return Verdict::Refuse;
        }
        self.classes.get(&class).copied().unwrap_or_else(|| self.level.verdict(class))
    }

    /// How specific the rule's pattern is, if it matches `host` (higher wins).
    fn specificity(&self, host: &str) -> Option<usize> {
        let pattern = self.site.as_str();
        if pattern == "*" {
            return Some(0);
        }
        if let Some(base) = pattern.strip_prefix("*.") {
            let under =
                host.len() > base.len() && host.ends_with(base) && host[..host.len() - base.len()].ends_with('.');
            return (host == base || under).then_some(2 * base.len() + 1);
        }
        (host == pattern).then_some(2 * pattern.len() + 2)
    }
}

/// Default time the person has to answer a question, in seconds.
pub const DEFAULT_ANSWER_SECONDS: u32 = 120;
/// The longest answer time a person may set, in seconds: the host never lets a call wait on
/// the person longer than this past its normal time limit.
pub const MAX_ANSWER_SECONDS: u32 = 3_600;

/// The person's rules, and how long a question waits for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The rules, in the person's order (the order does not decide: specificity does).
    pub rules: Vec<Rule>,
    /// How long a question waits for an answer before it counts as denied.
    #[serde(default = "default_answer_seconds")]
    pub answer_seconds: u32,
}

fn default_answer_seconds() -> u32 {
    DEFAULT_ANSWER_SECONDS
}

impl Default for Policy {
    /// On install: ask before consequential actions everywhere.
    fn default() -> Self {
        Policy { rules: vec![Rule::new("*", Level::Ask)], answer_seconds: DEFAULT_ANSWER_SECONDS }
    }
}

/// Why imported rules were not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Not JSON of the expected shape.
    #[error(
        "the rules are not in the expected form ({0}); expected {{\"rules\": [{{\"site\": \"*.bank.example\", \"level\": \"no_access\"}}], \"answer_seconds\": 120}} with levels no_access, read_only, ask, act_freely"
    )]
    Shape(String),
    /// A pattern that is not `*`, a host or `*.host`.
    #[error(
        "rule {index}: `{site}` is not a site pattern; write `*`, a host (`shop.example`) or `*.` and a host (`*.bank.example`)"
    )]
    Pattern {
        /// Its place in the list, from 1.
        index: usize,
        /// What it says.
        site: String,
    },
    /// Two rules for one pattern.
    #[error("rules {first} and {second} are both for `{site}`; keep one")]
    Duplicate {
        /// The first, from 1.
        first: usize,
        /// The second, from 1.
        second: usize,
        /// The pattern.
        site: String,
    },
    /// Class overrides on a no-access rule, which allows nothing.
    #[error(
        "rule {index} (`{site}`) is no access, which allows nothing: remove its class overrides or choose another level"
    )]
    OverridesNoAccess {
        /// Its place in the list, from 1.
        index: usize,
        /// The pattern.
        site: String,
    },
    /// An answer time out of bounds.
    #[error("answer_seconds is {0}; give 1 to {MAX_ANSWER_SECONDS} seconds")]
    AnswerTime(u32),
}

impl Policy {
    /// The rule that decides for `host` (lower case, no port), if any matches. A URL without a
    /// host (`about:blank`, `data:`) is decided by the `*` rule.
    pub fn rule_for(&self, host: &str) -> Option<&Rule> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.rules
            .iter()
            .filter_map(|rule| rule.specificity(&host).map(|s| (s, rule)))
            .max_by_key(|(s, _)| *s)
            .map(|(_, rule)| rule)
    }

    /// Whether every action class runs on `host` without a question (its rule acts freely with
    /// no exception that asks or refuses): nothing about an action there needs judging.
    pub fn allows_everything_on(&self, host: &str) -> bool {
        self.rule_for(host)
            .is_some_and(|rule| rule.level == Level::ActFreely && rule.classes.values().all(|v| *v == Verdict::Allow))
    }

    /// Whether some rule keeps agents off its sites entirely: without one, no site is of no
    /// access and nothing needs looking up to tell.
    pub fn refuses_some_site(&self) -> bool {
        self.rules.iter().any(|rule| rule.level == Level::NoAccess)
    }

    /// The level on `host`: its rule's, or, when no rule matches, the default ask.
    pub fn level_for(&self, host: &str) -> Level {
        self.rule_for(host).map(|r| r.level).unwrap_or(Level::Ask)
    }

    /// Reads rules the person imports (or that were stored), checking each.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        let policy: Policy = serde_json::from_str(text).map_err(|e| PolicyError::Shape(e.to_string()))?;
        policy.validated()
    }

    /// The same rules, checked: patterns well formed and lower case, none twice, answer time
    /// in bounds.
    pub fn validated(mut self) -> Result<Policy, PolicyError> {
        if self.answer_seconds == 0 || self.answer_seconds > MAX_ANSWER_SECONDS {
            return Err(PolicyError::AnswerTime(self.answer_seconds));
        }
        for (i, rule) in self.rules.iter_mut().enumerate() {
            rule.site = rule.site.trim().trim_end_matches('.').to_ascii_lowercase();
            if !well_formed(&rule.site) {
                return Err(PolicyError::Pattern { index: i + 1, site: rule.site.clone() });
            }
            if rule.level == Level::NoAccess && !rule.classes.is_empty() {
                return Err(PolicyError::OverridesNoAccess { index: i + 1, site: rule.site.clone() });
            }
        }
        for (i, a) in self.rules.iter().enumerate() {
            if let Some(j) = self.rules[i + 1..].iter().position(|b| b.site == a.site) {
                return Err(PolicyError::Duplicate { first: i + 1, second: i + j + 2, site: a.site.clone() });
            }
        }
        Ok(self)
    }

    /// The rules as the person exports them.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Whether `pattern` is `*`, a host, or `*.` and a host.
fn well_formed(pattern: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let host = pattern.strip_prefix("*.").unwrap_or(pattern);
    !host.is_empty()
        && host
            .split('.')
            .all(|label| !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(json: &str) -> Policy {
        Policy::from_json(json).expect("valid rules")
    }

    #[test]
    fn only_a_rule_of_no_access_refuses_a_site() {
        assert!(!Policy::default().refuses_some_site());
        assert!(!policy(r#"{"rules": [{"site": "*", "level": "read_only"}]}"#).refuses_some_site());
        assert!(policy(r#"{"rules": [{"site": "*.bank.example", "level": "no_access"}]}"#).refuses_some_site());
    }

    #[test]
    fn the_most_specific_pattern_wins() {
        let p = policy(
            r#"{"rules": [
                {"site": "*", "level": "ask"},
                {"site": "*.bank.example", "level": "no_access"},
                {"site": "*.shop.example", "level": "act_freely"},
                {"site": "news.shop.example", "level": "read_only"}
            ]}"#,
        );
        assert_eq!(p.level_for("bank.example"), Level::NoAccess);
        assert_eq!(p.level_for("login.bank.example"), Level::NoAccess);
        assert_eq!(p.level_for("BANK.example."), Level::NoAccess);
        assert_eq!(p.level_for("notbank.example"), Level::Ask);
        assert_eq!(p.level_for("bank.example.evil"), Level::Ask);
        assert_eq!(p.level_for("www.shop.example"), Level::ActFreely);
        assert_eq!(p.level_for("news.shop.example"), Level::ReadOnly);
        assert_eq!(p.level_for(""), Level::Ask);
    }

    #[test]
    fn a_host_pattern_matches_that_host_only() {
        let p = policy(r#"{"rules": [{"site": "example.com", "level": "act_freely"}]}"#);
        assert_eq!(p.level_for("example.com"), Level::ActFreely);
        assert_eq!(p.level_for("www.example.com"), Level::Ask, "no rule: the default ask");
        assert!(p.rule_for("www.example.com").is_none());
    }

    #[test]
    fn class_overrides_replace_the_levels_verdict() {
        let p = policy(
            r#"{"rules": [{"site": "*.shop.example", "level": "act_freely", "classes": {"payment": "ask", "run_script": "refuse"}}]}"#,
        );
        let rule = p.rule_for("shop.example").expect("rule");
        assert_eq!(rule.verdict(ActionClass::Submit), Verdict::Allow);
        assert_eq!(rule.verdict(ActionClass::Payment), Verdict::Ask);
        assert_eq!(rule.verdict(ActionClass::RunScript), Verdict::Refuse);
        assert_eq!(rule.verdict(ActionClass::Read), Verdict::Allow);
    }

    #[test]
    fn only_acting_freely_without_exceptions_leaves_nothing_to_judge() {
        let p = policy(
            r#"{"rules": [
                {"site": "*", "level": "ask"},
                {"site": "free.example", "level": "act_freely"},
                {"site": "shop.example", "level": "act_freely", "classes": {"payment": "ask"}},
                {"site": "news.example", "level": "act_freely", "classes": {"leave": "allow"}}
            ]}"#,
        );
        assert!(p.allows_everything_on("free.example"));
        assert!(p.allows_everything_on("news.example"));
        assert!(!p.allows_everything_on("shop.example"), "payment asks");
        assert!(!p.allows_everything_on("other.example"), "the default asks");
        assert!(!Policy::default().allows_everything_on("free.example"));
    }

    #[test]
    fn each_level_says_what_it_allows() {
        use ActionClass::*;
        let all = [Read, Act, Submit, Payment, Download, Upload, Leave, RunScript];
        for class in all {
            assert_eq!(Level::NoAccess.verdict(class), Verdict::Refuse);
            assert_eq!(Level::ActFreely.verdict(class), Verdict::Allow);
        }
        let read_only: Vec<_> = all.iter().filter(|c| Level::ReadOnly.verdict(**c) == Verdict::Allow).collect();
        assert_eq!(read_only, [&Read, &Leave]);
        let asked: Vec<_> = all.iter().filter(|c| Level::Ask.verdict(**c) == Verdict::Ask).collect();
        assert_eq!(asked, [&Submit, &Payment, &Download, &Upload, &Leave, &RunScript]);
    }

    #[test]
    fn bad_rules_are_refused_with_what_to_do() {
        let err = |json: &str| Policy::from_json(json).expect_err("refused").to_string();
        assert!(err(r#"{"rules": [{"site": "https://bank.example/", "level": "no_access"}]}"#).contains("rule 1"));
        assert!(err(r#"{"rules": [{"site": "bank.*", "level": "no_access"}]}"#).contains("not a site pattern"));
        assert!(
            err(r#"{"rules": [{"site": "a.example", "level": "ask"}, {"site": "A.example", "level": "read_only"}]}"#)
                .contains("rules 1 and 2")
        );
        assert!(err(r#"{"rules": [{"site": "a.example", "level": "sometimes"}]}"#).contains("no_access, read_only"));
        assert!(
            err(r#"{"rules": [{"site": "a.example", "level": "no_access", "classes": {"read": "allow"}}]}"#)
                .contains("allows nothing")
        );
        assert!(err(r#"{"rules": [], "answer_seconds": 0}"#).contains("answer_seconds"));
        assert!(
            err(r#"{"rules": [{"site": "a.example", "level": "ask", "classes": {"pay": "ask"}}]}"#).contains("form")
        );
    }

    #[test]
    fn rules_survive_export_and_import() {
        let p = policy(
            r#"{"rules": [{"site": "*.shop.example", "level": "act_freely", "classes": {"payment": "ask"}},
                          {"site": "*.bank.example", "level": "no_access"}], "answer_seconds": 2}"#,
        );
        assert_eq!(Policy::from_json(&p.to_json()), Ok(p));
        assert_eq!(Policy::default().level_for("anything.example"), Level::Ask);
        assert_eq!(Policy::default().answer_seconds, 120);
    }
}
