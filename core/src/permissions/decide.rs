//! The decision for one action: it runs, the person is asked, or it is refused, given the
//! person's rules, the action's classes and what the person allowed this MCP session.
//!
//! A grant "for this session" is one class on one host, kept by the runtime per MCP session
//! and gone when the session ends; it turns that class's "ask" into "allow", never a "refuse"
//! into anything.

use std::collections::BTreeSet;

use super::classes::ActionClass;
use super::rules::{Level, Policy, Verdict};

/// What happens to an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// It runs.
    Allow,
    /// The person is asked about `class` (the most consequential class that asks).
    Ask {
        /// What the question is about.
        class: ActionClass,
    },
    /// It is not run: `class` is refused by the rule for `site` at `level`.
    Refuse {
        /// The class refused.
        class: ActionClass,
        /// The pattern of the rule that decided (`*` when the default did).
        site: String,
        /// That rule's level.
        level: Level,
    },
}

impl Decision {
    /// For a refusal, the answer an agent reads: what was refused, by which rule, that nothing
    /// was done, and where the person changes it.
    pub fn refusal(&self, tool: &str, host: &str) -> Option<String> {
        let Decision::Refuse { class, site, level } = self else { return None };
        let host = if host.is_empty() { "this page" } else { host };
        let what = match (level, class) {
            (Level::NoAccess, _) => format!("the person gave agents no access to {host}"),
            _ => format!("the person's rule for {host} does not let agents {}", class_verb(*class)),
        };
        Some(format!(
            "{tool} was refused: {what} (rule `{site}`: {}). Nothing was done. Only the person can change this, in \
             Sightline's options (Site permissions) or from the Sightline toolbar popup; do not retry{}",
            level.words(),
            match level {
                Level::NoAccess => "; leave this site out of your plan.",
                _ => ". browser_permissions says what you may do here.",
            }
        ))
    }
}

fn class_verb(class: ActionClass) -> &'static str {
    match class {
        ActionClass::Read => "read its pages",
        ActionClass::Act => "click, type or otherwise act on its pages",
        ActionClass::Submit => "submit forms",
        ActionClass::Payment => "enter or submit payment details",
        ActionClass::Download => "download files",
        ActionClass::Upload => "upload files",
        ActionClass::Leave => "follow links to other sites",
        ActionClass::RunScript => "run scripts in its pages",
    }
}

/// Classes the person allowed on hosts for one MCP session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionGrants {
    granted: BTreeSet<(String, ActionClass)>,
}

impl SessionGrants {
    /// Allows `class` on `host` for the rest of the session.
    pub fn grant(&mut self, host: &str, class: ActionClass) {
        self.granted.insert((host.to_ascii_lowercase(), class));
    }

    /// Whether `class` on `host` was allowed for the session.
    pub fn allows(&self, host: &str, class: ActionClass) -> bool {
        self.granted.contains(&(host.to_ascii_lowercase(), class))
    }
}

/// The decision for an action of `classes` on `host` (lower case, no port; empty for a page of
/// no host) under `policy`, with `grants` the session's.
pub fn decide(policy: &Policy, host: &str, classes: &[ActionClass], grants: &SessionGrants) -> Decision {
    let rule = policy.rule_for(host);
    let level = rule.map(|r| r.level).unwrap_or(Level::Ask);
    let site = rule.map(|r| r.site.clone()).unwrap_or_else(|| "*".to_owned());
    let verdict = |class: ActionClass| match rule {
        Some(rule) => rule.verdict(class),
        None => level.verdict(class),
    };
    let mut asked: Option<ActionClass> = None;
    for class in classes.iter().copied() {
        match verdict(class) {
            Verdict::Refuse => return Decision::Refuse { class, site, level },
            Verdict::Ask if !grants.allows(host, class) => {
                asked = Some(match asked {
                    Some(other) => ActionClass::headline(&[other, class]),
                    None => class,
                });
            }
            Verdict::Ask | Verdict::Allow => {}
        }
    }
    match asked {
        Some(class) => Decision::Ask { class },
        None => Decision::Allow,
    }
}

/// What an agent may do on `host`, in its words: what runs, what is asked, what is refused.
pub fn summary(policy: &Policy, host: &str, grants: &SessionGrants) -> String {
    let rule = policy.rule_for(host);
    let level = rule.map(|r| r.level).unwrap_or(Level::Ask);
    let site = rule.map(|r| r.site.as_str()).unwrap_or("*");
    let (mut runs, mut asked, mut refused) = (Vec::new(), Vec::new(), Vec::new());
    for class in ActionClass::ALL {
        let verdict = rule.map(|r| r.verdict(class)).unwrap_or_else(|| level.verdict(class));
        match verdict {
            Verdict::Allow => runs.push(class.words()),
            Verdict::Ask if grants.allows(host, class) => runs.push(class.words()),
            Verdict::Ask => asked.push(class.words()),
            Verdict::Refuse => refused.push(class.words()),
        }
    }
    let list = |v: &[&str]| if v.is_empty() { "nothing".to_owned() } else { v.join(", ") };
    let host_words = if host.is_empty() { "this page" } else { host };
    format!(
        "On {host_words} (the person's rule `{site}`: {}): runs: {}; the person is asked first (in the browser; \
         the call waits for the answer, at most {} s): {}; refused: {}. Only the person can change this.",
        level.words(),
        list(&runs),
        policy.answer_seconds,
        list(&asked),
        list(&refused)
    )
}

#[cfg(test)]
mod tests {
    use super::ActionClass::*;
    use super::*;

    /// The issue's own example: shop freely, ask before paying, nothing at the bank.
    fn shop_and_bank() -> Policy {
        Policy::from_json(
            r#"{"rules": [
                {"site": "*", "level": "ask"},
                {"site": "*.shop.example", "level": "act_freely", "classes": {"payment": "ask"}},
                {"site": "*.bank.example", "level": "no_access"},
                {"site": "news.example", "level": "read_only"}
            ]}"#,
        )
        .expect("rules")
    }

    #[test]
    fn shop_freely_ask_before_paying_and_keep_off_the_bank() {
        let (p, none) = (shop_and_bank(), SessionGrants::default());
        assert_eq!(decide(&p, "shop.example", &[Act, Submit], &none), Decision::Allow);
        assert_eq!(decide(&p, "www.shop.example", &[Act, Submit, Payment], &none), Decision::Ask { class: Payment });
        for classes in [&[Read][..], &[Act], &[Read, Leave]] {
            assert!(matches!(
                decide(&p, "login.bank.example", classes, &none),
                Decision::Refuse { level: Level::NoAccess, .. }
            ));
        }
    }

    #[test]
    fn read_only_refuses_all_but_reading() {
        let (p, none) = (shop_and_bank(), SessionGrants::default());
        assert_eq!(decide(&p, "news.example", &[Read], &none), Decision::Allow);
        assert_eq!(
            decide(&p, "news.example", &[Act], &none),
            Decision::Refuse { class: Act, site: "news.example".into(), level: Level::ReadOnly }
        );
        assert!(matches!(decide(&p, "news.example", &[Act, Leave], &none), Decision::Refuse { class: Act, .. }));
    }

    #[test]
    fn ask_asks_before_consequential_actions_only() {
        let (p, none) = (shop_and_bank(), SessionGrants::default());
        assert_eq!(decide(&p, "elsewhere.example", &[Act], &none), Decision::Allow);
        assert_eq!(decide(&p, "elsewhere.example", &[Act, Submit], &none), Decision::Ask { class: Submit });
        assert_eq!(decide(&p, "elsewhere.example", &[RunScript], &none), Decision::Ask { class: RunScript });
        assert_eq!(decide(&p, "", &[Act, Submit], &none), Decision::Ask { class: Submit }, "no host: the `*` rule");
    }

    #[test]
    fn a_session_grant_turns_ask_into_allow_for_its_class_and_host_only() {
        let p = shop_and_bank();
        let mut grants = SessionGrants::default();
        grants.grant("Elsewhere.example", Submit);
        assert_eq!(decide(&p, "elsewhere.example", &[Act, Submit], &grants), Decision::Allow);
        assert_eq!(decide(&p, "other.example", &[Act, Submit], &grants), Decision::Ask { class: Submit });
        assert_eq!(decide(&p, "elsewhere.example", &[Act, Submit, Payment], &grants), Decision::Ask { class: Payment });
        grants.grant("news.example", Act);
        assert!(matches!(decide(&p, "news.example", &[Act], &grants), Decision::Refuse { .. }), "never a refusal");
    }

    #[test]
    fn the_summary_says_what_runs_what_is_asked_and_what_is_refused() {
        let p = shop_and_bank();
        let mut grants = SessionGrants::default();
        let shop = summary(&p, "shop.example", &grants);
        assert!(
            shop.contains("runs: read, act, leave for another site, submit, download, upload, run script;"),
            "{shop}"
        );
        assert!(
            shop.contains("asked first (in the browser; the call waits for the answer, at most 120 s): payment;"),
            "{shop}"
        );
        grants.grant("shop.example", Payment);
        assert!(
            summary(&p, "shop.example", &grants)
                .contains("asked first (in the browser; the call waits for the answer, at most 120 s): nothing")
        );
        let bank = summary(&p, "bank.example", &grants);
        assert!(bank.contains("runs: nothing") && bank.contains("`*.bank.example`: no access"), "{bank}");
    }

    #[test]
    fn a_refusal_names_the_rule_and_where_the_person_changes_it() {
        let p = shop_and_bank();
        let refused = decide(&p, "bank.example", &[Read], &SessionGrants::default());
        let text = refused.refusal("browser_snapshot", "bank.example").expect("a refusal");
        assert!(text.contains("no access to bank.example"), "{text}");
        assert!(text.contains("`*.bank.example`"), "{text}");
        assert!(text.contains("Nothing was done"), "{text}");
        assert!(text.contains("options"), "{text}");
        assert_eq!(Decision::Allow.refusal("browser_click", "x"), None);
    }
}
