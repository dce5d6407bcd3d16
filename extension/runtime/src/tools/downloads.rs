//! `browser_downloads`: the files the session's actions downloaded, as the browser has them
//! now, and a bounded wait for one to finish. Only the session's own downloads are listed
//! (`crate::downloads` knows which session's action started each).

use serde::Deserialize;
use sightline_core::downloads::{self, DownloadRecord, DownloadState};
use sightline_core::protocol::{DownloadsParams, ToolOutput};

use super::ToolResult;
use crate::error::ToolError;
use crate::state::AsksState;
use crate::{chrome, timer};

/// What `chrome.downloads.search` says of a download.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    #[serde(default)]
    state: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    bytes_received: f64,
    #[serde(default)]
    total_bytes: f64,
    #[serde(default)]
    filename: String,
}

/// How often a wait asks the browser again.
const POLL_MS: u32 = 200;

/// `browser_downloads`.
pub async fn downloads(asks: &AsksState, session: &str, params: DownloadsParams) -> ToolResult {
    let seconds = downloads::wait_seconds(params.timeout).map_err(ToolError::Invalid)?;
    let deadline = timer::now_ms() + seconds * 1000.0;
    loop {
        let records = records(asks, session).await;
        let done = match &params.wait_for {
            None => true,
            Some(wanted) => downloads::matching(&records, wanted).is_some_and(|r| r.state.finished()),
        };
        if done || timer::now_ms() >= deadline {
            let waited = params.wait_for.as_deref().map(|w| (w, seconds));
            return Ok(ToolOutput::text(downloads::listing(&records, waited)));
        }
        timer::sleep(POLL_MS).await;
    }
}

/// The session's downloads as the browser has them now.
async fn records(asks: &AsksState, session: &str) -> Vec<DownloadRecord> {
    let started = asks.downloads.borrow().of_session(session);
    let mut records = Vec::with_capacity(started.len());
    for download in started {
        let item: Option<Item> = chrome::download_by_id(download.id).await.ok().flatten();
        let (state, received, total, saved_as) = match item {
            Some(item) => (
                DownloadState::from_browser(&item.state, item.error.as_deref()),
                item.bytes_received.max(0.0) as u64,
                (item.total_bytes > 0.0).then_some(item.total_bytes as u64),
                (!item.filename.is_empty()).then_some(item.filename),
            ),
            None => (DownloadState::Forgotten, 0, None, None),
        };
        records.push(DownloadRecord {
            file_name: download.file_name,
            site: download.site,
            folder: download.folder,
            state,
            received,
            total,
            saved_as,
        });
    }
    records
}
