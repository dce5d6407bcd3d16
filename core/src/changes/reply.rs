//! What the change tools answer besides reports: the reply to a `browser_checkpoint` call, as a
//! value and as the text an agent reads, and where the one-line summary of new errors and failed
//! requests goes at the end of an action's response.
//!
//! Builds values and text only; it never reads or moves the timeline.

use serde::{Deserialize, Serialize};

use super::checkpoint::{CheckpointInfo, MAX_NAMED};
use crate::protocol::CheckpointAction;

/// The answer to a `browser_checkpoint` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointReply {
    /// One sentence saying what was done.
    pub message: String,
    /// The checkpoint made or deleted, or every named checkpoint for `list`.
    pub checkpoints: Vec<CheckpointInfo>,
}

impl CheckpointReply {
    /// The reply to `create`.
    pub(crate) fn created(info: CheckpointInfo) -> Self {
        CheckpointReply {
            message: format!(
                "Checkpoint `{}` made at {}; get_changes_since with checkpoint `{}` reports what happens after it.",
                info.name, info.created, info.name
            ),
            checkpoints: vec![info],
        }
    }

    /// The reply to `delete`.
    pub(crate) fn deleted(info: CheckpointInfo) -> Self {
        CheckpointReply {
            message: format!("Checkpoint `{}` (made {}) deleted.", info.name, info.created),
            checkpoints: vec![info],
        }
    }

    /// The reply to `list`.
    pub(crate) fn listed(checkpoints: Vec<CheckpointInfo>) -> Self {
        let message = match checkpoints.len() {
            0 => format!(
                "No named checkpoints yet; make one with action `create` and a name such as `session_start` (at \
                 most {MAX_NAMED})."
            ),
            n => format!("{n} of at most {MAX_NAMED} named checkpoints, oldest first."),
        };
        CheckpointReply { message, checkpoints }
    }

    /// The text an agent reads for a call with `action`: the message, and for `list` one line
    /// per checkpoint, `- name (made <time> at <url>)`.
    pub fn text(&self, action: CheckpointAction) -> String {
        let mut text = self.message.clone();
        if action == CheckpointAction::List {
            for c in &self.checkpoints {
                let url = c.url.as_deref().map(|u| format!(" at {u}")).unwrap_or_default();
                text.push_str(&format!("\n- {} (made {}{url})", c.name, c.created));
            }
        }
        text
    }
}

/// Ends an action's response `text` with `line`, on a line of its own.
pub(super) fn end_with_line(text: &mut String, line: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::Timeline;
    use crate::changes::entries::{ConsoleEntry, ConsoleLevel};

    fn info(name: &str, created: &str, url: Option<&str>) -> CheckpointInfo {
        CheckpointInfo { name: name.into(), created: created.into(), url: url.map(str::to_owned) }
    }

    #[test]
    fn a_list_names_each_checkpoint_with_when_and_where_it_was_made() {
        let reply = CheckpointReply::listed(vec![
            info("start", "2025-01-02T03:04:05.000Z", Some("http://x/cart")),
            info("after_login", "2025-01-02T03:04:06.000Z", None),
        ]);
        assert_eq!(
            reply.text(CheckpointAction::List),
            "2 of at most 20 named checkpoints, oldest first.\n\
             - start (made 2025-01-02T03:04:05.000Z at http://x/cart)\n\
             - after_login (made 2025-01-02T03:04:06.000Z)"
        );
    }

    #[test]
    fn an_empty_list_says_how_to_make_one() {
        assert_eq!(
            CheckpointReply::listed(Vec::new()).text(CheckpointAction::List),
            "No named checkpoints yet; make one with action `create` and a name such as `session_start` (at most 20)."
        );
    }

    #[test]
    fn create_and_delete_answer_with_their_message_alone() {
        let made = CheckpointReply::created(info("start", "2025-01-02T03:04:05.000Z", Some("http://x/")));
        assert_eq!(
            made.text(CheckpointAction::Create),
            "Checkpoint `start` made at 2025-01-02T03:04:05.000Z; get_changes_since with checkpoint `start` reports \
             what happens after it."
        );
        let deleted = CheckpointReply::deleted(info("start", "2025-01-02T03:04:05.000Z", Some("http://x/")));
        assert_eq!(
            deleted.text(CheckpointAction::Delete),
            "Checkpoint `start` (made 2025-01-02T03:04:05.000Z) deleted."
        );
    }

    #[test]
    fn the_response_line_goes_on_a_line_of_its_own() {
        let line = "Since the last response: 1 console error (\"boom\").";
        for (before, after) in [
            ("Clicked e3", "Clicked e3\nSince the last response: 1 console error (\"boom\")."),
            ("Clicked e3\n", "Clicked e3\nSince the last response: 1 console error (\"boom\")."),
            ("", "Since the last response: 1 console error (\"boom\")."),
        ] {
            let mut text = before.to_owned();
            end_with_line(&mut text, line);
            assert_eq!(text, after, "{before:?}");
        }
    }

    #[test]
    fn an_action_response_ends_with_new_errors_once() {
        let mut timeline = Timeline::new();
        let mut quiet = "Clicked e3".to_owned();
        timeline.end_action_response("s", &mut quiet);
        assert_eq!(quiet, "Clicked e3");
        timeline.record_console(ConsoleEntry {
            level: ConsoleLevel::Error,
            text: "boom".into(),
            source: None,
            time_ms: 1,
            tab: 1,
        });
        let mut first = "Clicked e3".to_owned();
        timeline.end_action_response("s", &mut first);
        assert_eq!(first, "Clicked e3\nSince the last response: 1 console error (\"boom\").");
        let mut second = "Typed into e4".to_owned();
        timeline.end_action_response("s", &mut second);
        assert_eq!(second, "Typed into e4");
    }
}
