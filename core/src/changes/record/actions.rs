//! The user's own actions: what the page's user-action listener reported (a click, typing, an
//! option chosen, a form submitted), checked, and the user's navigations in a shared tab.
//!
//! A report is trusted for nothing: its kind must be one the listener sends, its description is
//! cut to `MAX_DESCRIPTION` characters, and nothing else in it is kept. The listener never sends
//! typed text, and nothing here could keep it if it did.

use serde::Deserialize;

use crate::changes::entries::{ActionEntry, ActionKind, Actor};

/// Longest description of a user action, in characters.
const MAX_DESCRIPTION: usize = 200;

/// What the user-action listener reported, checked: a known kind, a bounded description, and
/// never anything else.
pub(super) fn user_action(tab: u32, payload: &str, now_ms: u64) -> Option<ActionEntry> {
    #[derive(Deserialize)]
    struct Report {
        kind: String,
        description: String,
        #[serde(default)]
        url: Option<String>,
    }
    // A description of at most 200 characters and a URL fit many times over.
    if payload.len() > 16 * 1024 {
        return None;
    }
    let report: Report = serde_json::from_str(payload).ok()?;
    let kind = match report.kind.as_str() {
        "click" => ActionKind::Click,
        "type" => ActionKind::Type,
        "select" => ActionKind::Select,
        "submit" => ActionKind::Submit,
        _ => return None,
    };
    let description: String = report.description.split_whitespace().collect::<Vec<_>>().join(" ");
    let description = description.chars().take(MAX_DESCRIPTION).collect();
    Some(ActionEntry {
        kind,
        by: Actor::User,
        description,
        url: report.url.filter(|u| !u.is_empty()),
        time_ms: now_ms,
        tab,
    })
}

/// A navigation the user made in a shared tab (the URL is the entry's `url`, which reports show
/// whenever it changes, so the description does not repeat it).
pub fn user_navigation(tab: u32, url: &str, now_ms: u64) -> ActionEntry {
    ActionEntry {
        kind: ActionKind::Navigate,
        by: Actor::User,
        description: "navigate".to_owned(),
        url: Some(url.to_owned()),
        time_ms: now_ms,
        tab,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::{NOW, one};
    use super::super::{Recorded, Recorder, USER_BINDING};
    use super::*;

    #[test]
    fn user_reports_are_checked_and_bounded() {
        let mut recorder = Recorder::default();
        let report = |payload: &str| json!({"name": USER_BINDING, "payload": payload});
        let long = "x".repeat(500);
        let click = one(
            &mut recorder,
            "Runtime.bindingCalled",
            report(&format!(r#"{{"kind":"click","description":"click button  \"{long}\"","url":"http://x/"}}"#)),
        );
        let Recorded::UserAction(action) = click else { panic!("{click:?}") };
        assert_eq!((action.kind, action.by), (ActionKind::Click, Actor::User));
        assert_eq!(action.description.chars().count(), MAX_DESCRIPTION);
        assert!(action.description.starts_with("click button \"xx"));
        for bad in [r#"{"kind":"keylog","description":"a"}"#, "not json", r#"{"kind":"type"}"#] {
            assert!(recorder.event(7, None, "Runtime.bindingCalled", &report(bad), NOW).is_empty(), "{bad}");
        }
        let other = json!({"name": "somethingElse", "payload": "{}"});
        assert!(recorder.event(7, None, "Runtime.bindingCalled", &other, NOW).is_empty());
    }
}
