//! The user's choices from the extension's options, kept in `chrome.storage.local` under
//! [`OPTIONS_KEY`] and read once as each call starts (so a change applies to the next call);
//! what a call reads of them later in its run is that reading ([`Options::for_call`]).
//! Everything is off by default; an unreadable value counts as the default. The history and
//! log sizes are applied by [`apply_sizes`] before and after every call and when the timeline
//! is loaded, always brought within the engine's bounds.

use serde::Deserialize;
use sightline_core::sizes::Sizes;
use sightline_core::urls::UrlPolicy;

use crate::chrome;
use crate::state::{Sessions, TimelineState};

/// `chrome.storage.local` key of the options, e.g.
/// `{"allow_file_urls": true, "allow_evaluate": false, "secret_words": ["loyalty", "member no"],
/// "sizes": {"history": 30, "console": 1000, "network": 500, "websocket": 1000, "actions": 200}}`.
pub const OPTIONS_KEY: &str = "sightline.options";

/// What the user allowed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Options {
    /// Agents may load `file:` URLs.
    pub allow_file_urls: bool,
    /// The person's own words that make a field secret (its name, id, label or placeholder
    /// contains one), beside the built-in judgement.
    pub secret_words: Vec<String>,
    /// Agents may run JavaScript in pages (`browser_evaluate`).
    pub allow_evaluate: bool,
    /// Versions held for the panel and the capacities of the timeline's logs.
    pub sizes: Sizes,
}

impl Options {
    /// The options as stored now.
    pub async fn read() -> Options {
        match chrome::local_storage_get::<Options>(OPTIONS_KEY).await {
            Ok(options) => options.unwrap_or_default(),
            Err(e) => {
                chrome::warn(&format!("Sightline ignores `{OPTIONS_KEY}` in chrome.storage.local: {e}"));
                Options::default()
            }
        }
    }

    /// Reads the options as a call starts, for everything the call does: a change the user makes
    /// meanwhile applies from the next call on.
    pub async fn read_for_call(asks: &crate::state::AsksState) -> Options {
        let options = Options::read().await;
        *asks.options.borrow_mut() = options.clone();
        options
    }

    /// The options the running call read as it started (the latest call's, when calls overlap).
    pub fn for_call(asks: &crate::state::AsksState) -> Options {
        asks.options.borrow().clone()
    }

    /// Which URLs agents may load.
    pub fn url_policy(&self) -> UrlPolicy {
        UrlPolicy { allow_file: self.allow_file_urls }
    }
}

/// Applies `sizes` (bounded): every page state holds at most that many versions for the panel,
/// and the timeline's console, network, WebSocket and action logs keep at most that many entries
/// (a log made smaller loses its oldest at once).
pub fn apply_sizes(sessions: &Sessions, timeline: &TimelineState, sizes: Sizes) {
    let sizes = sizes.bounded();
    for session in sessions.borrow_mut().values_mut() {
        for page in session.pages.values_mut() {
            page.set_held_versions(sizes.history);
        }
    }
    timeline.set_log_sizes(sizes);
}
