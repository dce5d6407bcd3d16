//! A change report or a checkpoint reply as cards a person scans in the panel: one card per new
//! console error or warning (with its count), per endpoint that started failing (status before
//! and after), still failing or slowed down, per WebSocket close or error, per action (the
//! person's and the agent's apart), per checkpoint.
//!
//! Built from the very values the agent's text is serialised from ([`ChangeReport`],
//! [`CheckpointReply`]), so the panel shows the same facts and only draws them. Nothing here
//! reads the timeline.

use serde::Serialize;

use crate::changes::{Actor, ChangeReport, CheckpointReply, Severity};

/// What a card stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    /// A new console error.
    ConsoleError,
    /// A new console warning.
    ConsoleWarning,
    /// An endpoint that started failing.
    EndpointFailing,
    /// An endpoint that was failing at the checkpoint and still is.
    EndpointStillFailing,
    /// An endpoint much slower than its baseline.
    EndpointSlow,
    /// A WebSocket that closed.
    SocketClosed,
    /// A WebSocket error.
    SocketError,
    /// Something the person at the browser did.
    UserAction,
    /// Something the agent did.
    AgentAction,
    /// A named checkpoint made, deleted or listed.
    Checkpoint,
    /// What the report could not show.
    Note,
}

/// One card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Card {
    /// What it stands for.
    pub kind: CardKind,
    /// How serious it is.
    pub severity: Severity,
    /// Its headline: the message, the endpoint, the socket URL, the action.
    pub title: String,
    /// How many times it happened.
    pub count: u32,
    /// A line under the headline (where a message was logged, a close reason, a page URL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The state before (an endpoint's status at the checkpoint, its baseline time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The state after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl Card {
    fn new(kind: CardKind, severity: Severity, title: impl Into<String>, count: u32) -> Card {
        Card { kind, severity, title: title.into(), count, detail: None, before: None, after: None }
    }

    fn detail(mut self, detail: Option<String>) -> Card {
        self.detail = detail;
        self
    }

    fn change(mut self, before: Option<String>, after: String) -> Card {
        self.before = before;
        self.after = Some(after);
        self
    }
}

/// The cards of one report or reply, with the report's headline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportCards {
    /// The report's severity (`clean` for a checkpoint reply).
    pub severity: Severity,
    /// The report's one-line summary, or the reply's message.
    pub summary: String,
    /// Start of the window, for a report (ISO 8601).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// End of the window, for a report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The cards, most serious section first.
    pub cards: Vec<Card>,
}

/// `0` as "no response", any other status as itself.
fn status_text(status: u16) -> String {
    if status == 0 { "no response".to_owned() } else { status.to_string() }
}

/// The cards of a change report.
pub fn report_cards(report: &ChangeReport) -> ReportCards {
    let mut cards = Vec::new();
    if let Some(console) = &report.console {
        for (groups, kind, severity) in [
            (&console.errors, CardKind::ConsoleError, Severity::Error),
            (&console.warnings, CardKind::ConsoleWarning, Severity::Warning),
        ] {
            cards
                .extend(groups.iter().map(|g| Card::new(kind, severity, &g.message, g.count).detail(g.source.clone())));
        }
    }
    if let Some(network) = &report.network {
        for f in &network.failures {
            let card = Card::new(CardKind::EndpointFailing, Severity::Error, &f.endpoint, f.count);
            cards.push(card.detail(f.error.clone()).change(f.previous_status.map(status_text), status_text(f.status)));
        }
        for f in &network.still_failing {
            let card = Card::new(CardKind::EndpointStillFailing, Severity::Warning, &f.endpoint, f.count);
            cards.push(card.detail(f.error.clone()).change(f.previous_status.map(status_text), status_text(f.status)));
        }
        for s in &network.degraded {
            let card = Card::new(CardKind::EndpointSlow, Severity::Warning, &s.endpoint, 1);
            cards.push(card.change(Some(format!("{} ms", s.baseline_ms)), format!("{} ms", s.slowest_ms)));
        }
    }
    if let Some(sockets) = &report.websocket {
        for d in &sockets.disconnections {
            let code = d.code.map_or_else(|| "code unknown".to_owned(), |c| format!("code {c}"));
            let detail = d.reason.as_deref().map_or(code.clone(), |r| format!("{code}: {r}"));
            cards.push(Card::new(CardKind::SocketClosed, Severity::Warning, &d.url, d.count).detail(Some(detail)));
        }
        for e in &sockets.errors {
            let card = Card::new(CardKind::SocketError, Severity::Warning, &e.url, e.count);
            cards.push(card.detail(Some(e.message.clone())));
        }
    }
    if let Some(actions) = &report.actions {
        for a in &actions.actions {
            let kind = if a.by == Actor::Agent { CardKind::AgentAction } else { CardKind::UserAction };
            let when = format!("{:.1} s after the start", a.after_ms as f64 / 1000.0);
            let detail = a.url.as_deref().map_or(when.clone(), |u| format!("{when}, on {u}"));
            cards.push(Card::new(kind, Severity::Clean, &a.description, 1).detail(Some(detail)));
        }
    }
    if let Some(note) = &report.note {
        cards.push(Card::new(CardKind::Note, Severity::Warning, note, 1));
    }
    ReportCards {
        severity: report.severity,
        summary: report.summary.clone(),
        from: Some(report.from.clone()),
        to: Some(report.to.clone()),
        cards,
    }
}

/// The cards of a `browser_checkpoint` reply: one per checkpoint it made, deleted or listed.
pub fn checkpoint_cards(reply: &CheckpointReply) -> ReportCards {
    let cards = reply
        .checkpoints
        .iter()
        .map(|c| {
            let detail = c
                .url
                .as_deref()
                .map_or_else(|| format!("made {}", c.created), |u| format!("made {} on {u}", c.created));
            Card::new(CardKind::Checkpoint, Severity::Clean, &c.name, 1).detail(Some(detail))
        })
        .collect();
    ReportCards { severity: Severity::Clean, summary: reply.message.clone(), from: None, to: None, cards }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::{
        ActionChanges, ActionKind, ActionSummary, CheckpointInfo, ConsoleChanges, ConsoleGroup, Disconnection,
        EndpointFailure, NetworkChanges, WebSocketChanges,
    };

    fn broken_checkout() -> ChangeReport {
        ChangeReport {
            from: "2026-11-22T01:15:58.760Z".into(),
            to: "2026-11-22T01:15:59.348Z".into(),
            severity: Severity::Error,
            summary: "1 new console error(s), 1 network failure(s), 1 WebSocket disconnection(s)".into(),
            console: Some(ConsoleChanges {
                errors: vec![ConsoleGroup {
                    message: "Checkout failed".into(),
                    count: 3,
                    source: Some("/app.html:32:15".into()),
                }],
                total: 3,
                ..ConsoleChanges::default()
            }),
            network: Some(NetworkChanges {
                failures: vec![EndpointFailure {
                    endpoint: "GET /orders".into(),
                    status: 500,
                    error: None,
                    previous_status: Some(200),
                    count: 1,
                }],
                total: 1,
                ..NetworkChanges::default()
            }),
            websocket: Some(WebSocketChanges {
                disconnections: vec![Disconnection {
                    url: "ws://127.0.0.1:9/live".into(),
                    code: Some(4001),
                    reason: Some("checkout finished".into()),
                    count: 1,
                }],
                total: 1,
                ..WebSocketChanges::default()
            }),
            actions: Some(ActionChanges {
                actions: vec![
                    ActionSummary {
                        kind: ActionKind::Click,
                        by: Actor::Agent,
                        description: "click e1".into(),
                        url: None,
                        after_ms: 284,
                    },
                    ActionSummary {
                        kind: ActionKind::Type,
                        by: Actor::User,
                        description: "typed into textbox \"Search\"".into(),
                        url: Some("http://shop.test/".into()),
                        after_ms: 1500,
                    },
                ],
                total: 2,
                ..ActionChanges::default()
            }),
            ..ChangeReport::default()
        }
    }

    #[test]
    fn a_report_becomes_one_card_per_finding_with_counts_and_statuses_before_and_after() {
        let cards = report_cards(&broken_checkout());
        assert_eq!(cards.severity, Severity::Error);
        assert!(cards.summary.starts_with("1 new console error(s)"));
        let kinds: Vec<CardKind> = cards.cards.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [
                CardKind::ConsoleError,
                CardKind::EndpointFailing,
                CardKind::SocketClosed,
                CardKind::AgentAction,
                CardKind::UserAction
            ]
        );
        let error = &cards.cards[0];
        assert_eq!((error.title.as_str(), error.count), ("Checkout failed", 3));
        assert_eq!(error.detail.as_deref(), Some("/app.html:32:15"));
        let failing = &cards.cards[1];
        assert_eq!((failing.before.as_deref(), failing.after.as_deref()), (Some("200"), Some("500")));
        assert_eq!(cards.cards[2].detail.as_deref(), Some("code 4001: checkout finished"));
        assert_eq!(cards.cards[4].detail.as_deref(), Some("1.5 s after the start, on http://shop.test/"));
    }

    #[test]
    fn an_endpoint_without_a_response_reads_no_response_and_a_new_one_has_no_before() {
        let mut report = broken_checkout();
        if let Some(network) = report.network.as_mut() {
            network.failures[0].status = 0;
            network.failures[0].previous_status = None;
            network.failures[0].error = Some("net::ERR_CONNECTION_REFUSED".into());
        }
        let cards = report_cards(&report);
        let failing = &cards.cards[1];
        assert_eq!((failing.before.as_deref(), failing.after.as_deref()), (None, Some("no response")));
        assert_eq!(failing.detail.as_deref(), Some("net::ERR_CONNECTION_REFUSED"));
    }

    #[test]
    fn a_clean_report_has_no_cards_and_a_checkpoint_reply_one_per_checkpoint() {
        let clean = ChangeReport { summary: "No significant changes.".into(), ..ChangeReport::default() };
        assert!(report_cards(&clean).cards.is_empty());
        let reply = CheckpointReply {
            message: "Checkpoint `before` made.".into(),
            checkpoints: vec![CheckpointInfo {
                name: "before".into(),
                created: "2026-11-22T01:15:58.760Z".into(),
                url: Some("http://shop.test/".into()),
            }],
        };
        let cards = checkpoint_cards(&reply);
        assert_eq!(cards.cards.len(), 1);
        assert_eq!(cards.cards[0].kind, CardKind::Checkpoint);
        assert_eq!(cards.cards[0].detail.as_deref(), Some("made 2026-11-22T01:15:58.760Z on http://shop.test/"));
    }
}
