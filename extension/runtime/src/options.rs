//! The user's choices from the extension's options, kept in `chrome.storage.local` under
//! [`OPTIONS_KEY`] and read when a call needs them (so a change applies to the next call).
//! Everything is off by default; an unreadable value counts as the default.

use serde::Deserialize;
use sightline_core::urls::UrlPolicy;

use crate::chrome;

/// `chrome.storage.local` key of the options, e.g.
/// `{"allow_file_urls": true, "allow_evaluate": false, "secret_words": ["loyalty", "member no"]}`.
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

    /// Which URLs agents may load.
    pub fn url_policy(&self) -> UrlPolicy {
        UrlPolicy { allow_file: self.allow_file_urls }
    }
}
