//! The browsers Sightline registers with, and the names that pair this host with the extension:
//! the native messaging host name the extension connects to and the extension's fixed id.

use std::path::PathBuf;

use super::{Env, Os};

/// The native messaging host name the extension connects to.
pub const HOST_NAME: &str = "dev.sightline.host";

/// The extension's id, derived from the public key in `extension/manifest.json`.
pub const EXTENSION_ID: &str = "pedjfcdnklnogkhfdbajokklfdgehmka";

/// A Chromium-based browser we know how to register with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Browser {
    /// Google Chrome.
    Chrome,
    /// Chromium.
    Chromium,
    /// Microsoft Edge.
    Edge,
    /// Brave.
    Brave,
    /// Vivaldi.
    Vivaldi,
}

impl Browser {
    /// Every supported browser.
    pub const ALL: [Browser; 5] = [Browser::Chrome, Browser::Chromium, Browser::Edge, Browser::Brave, Browser::Vivaldi];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
            Browser::Vivaldi => "vivaldi",
        }
    }

    /// The browser's default user data directory on this system.
    pub fn profile_root(self) -> Option<PathBuf> {
        super::profile_root(Os::CURRENT, self, &Env::current())
    }
}

/// The extension origin allowed to launch the bridge.
pub fn allowed_origin() -> String {
    format!("chrome-extension://{EXTENSION_ID}/")
}
