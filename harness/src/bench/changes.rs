//! What it costs an agent to learn what went wrong on a page: after the shop's tracking page
//! fails in scripted ways (a 404 and a 503 from its APIs, an unresolvable host, a warning, logged
//! errors, an unhandled rejection), each peer's console list and network list are read, and
//! Sightline's `browser_checkpoint` before the page and `get_changes_since` after it.
//!
//! The readings happen only after the page reports that every scripted failure happened, so
//! all servers are asked about the same facts.

use std::time::Duration;

use crate::FixtureServer;
use serde::Serialize;
use serde_json::json;

use super::extensions::{self, ChangesReading};
use super::flow::wait_for_event;
use super::servers::{Server, ServerKind};
use super::tokens::{Size, Tokenizer};

/// The page whose failures are read, relative to the shop.
pub const TRACKING_PAGE: &str = "tracking.html?order=NW-000123";
/// What the page reports once every scripted failure happened.
const DONE_EVENT: &str = "tracking:done";
/// Tools that list console messages or network requests are quick; this bounds each of them.
const READ_LIMIT: Duration = Duration::from_secs(30);

/// The readings of every server.
#[derive(Debug, Default, Serialize)]
pub struct ChangesRun {
    /// The page that failed.
    pub page: String,
    /// One reading per server that has one (Sightline only once it has `get_changes_since`).
    pub readings: Vec<ServerReading>,
}

/// One server's reading, or why it could not be taken.
#[derive(Debug, Serialize)]
pub struct ServerReading {
    /// Which server.
    pub server: ServerKind,
    /// What reading the errors cost.
    pub reading: Result<ChangesReading, String>,
}

/// Loads the tracking page on `server` (served by `site`), waits for its failures, and reads
/// them the way an agent using that server would. `None` when the server has no such reading yet.
pub async fn read(server: &Server, site: &FixtureServer, tokenizer: &Tokenizer) -> Option<ServerReading> {
    let kind = server.kind();
    let reading = async {
        let marked = match kind {
            ServerKind::Sightline => extensions::sightline_checkpoint(server, tokenizer).await?,
            _ => Size::default(),
        };
        let loaded = server.navigate(&site.url(TRACKING_PAGE)).await?;
        anyhow::ensure!(!loaded.reply.is_error, "loading the tracking page failed: {}", loaded.reply.text);
        anyhow::ensure!(
            wait_for_event(site, DONE_EVENT, Duration::from_secs(10)).await,
            "the tracking page never reported `{DONE_EVENT}`"
        );
        let calls: Vec<(&'static str, serde_json::Value)> = match kind {
            ServerKind::Sightline => return Ok(extensions::sightline_changes(server, tokenizer, marked).await),
            ServerKind::Playwright => {
                vec![("browser_console_messages", json!({})), ("browser_network_requests", json!({}))]
            }
            ServerKind::Devtools => vec![("list_console_messages", json!({})), ("list_network_requests", json!({}))],
        };
        let mut size = Size::default();
        let mut ok = true;
        let mut tools = Vec::new();
        for (tool, args) in calls {
            let timed = server.call(tool, server.with_page(args), READ_LIMIT).await?;
            let reply = Size::of(tokenizer, &timed.reply.text);
            size = Size { tokens: size.tokens + reply.tokens, chars: size.chars + reply.chars };
            ok &= !timed.reply.is_error;
            tools.push(tool.to_owned());
        }
        Ok(Some(ChangesReading { tools, size, ok }))
    }
    .await;
    match reading {
        Ok(Some(reading)) => Some(ServerReading { server: kind, reading: Ok(reading) }),
        Ok(None) => None,
        Err(e) => Some(ServerReading { server: kind, reading: Err(format!("{e:#}")) }),
    }
}
