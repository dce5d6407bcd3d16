//! The session's downloads as the agent reads them (`browser_downloads`): each file's name, the
//! site it came from, its state and size, and where it was saved; and how long the tool may wait
//! for one to finish. The runtime asks the browser for each download's state and hands it here.
//! Whose a download is, as the browser starts it, is [`claims`]'.

pub mod claims;

/// Seconds `browser_downloads` waits for a download by default.
pub const DEFAULT_WAIT_SECONDS: f64 = 30.0;
/// Seconds it waits at most.
pub const MOST_WAIT_SECONDS: f64 = 120.0;

/// Where a download stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadState {
    /// Still arriving.
    InProgress,
    /// Saved whole.
    Complete,
    /// Stopped before the end (the reason, as the browser names it).
    Interrupted(String),
    /// The browser no longer has a record of it (the person cleared the list).
    Forgotten,
}

impl DownloadState {
    /// The state as `chrome.downloads` names it, with its error.
    pub fn from_browser(state: &str, error: Option<&str>) -> DownloadState {
        match state {
            "complete" => DownloadState::Complete,
            "interrupted" => DownloadState::Interrupted(error.unwrap_or("unknown reason").to_owned()),
            _ => DownloadState::InProgress,
        }
    }

    /// Whether it will change no more.
    pub fn finished(&self) -> bool {
        !matches!(self, DownloadState::InProgress)
    }
}

/// One download an action of the session started.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadRecord {
    /// The file's name.
    pub file_name: String,
    /// The site it came from (`scheme://host:port`).
    pub site: String,
    /// Its folder, relative to the browser's download folder.
    pub folder: String,
    /// Where it stands.
    pub state: DownloadState,
    /// Bytes received so far.
    pub received: u64,
    /// Its size, when the server said it.
    pub total: Option<u64>,
    /// The file's full path, once the browser has named it.
    pub saved_as: Option<String>,
}

impl DownloadRecord {
    /// One line: `report.csv · complete · 1,204 bytes · from https://shop.test · /home/…/report.csv`.
    fn line(&self) -> String {
        let state = match &self.state {
            DownloadState::InProgress => "in progress".to_owned(),
            DownloadState::Complete => "complete".to_owned(),
            DownloadState::Interrupted(why) => format!("interrupted ({why})"),
            DownloadState::Forgotten => "no longer in the browser's list".to_owned(),
        };
        let size = match (self.total, &self.state) {
            (_, DownloadState::Complete) => format!("{} bytes", self.received),
            (Some(total), _) if total > 0 => format!("{} of {total} bytes", self.received),
            _ => format!("{} bytes so far", self.received),
        };
        let place =
            self.saved_as.clone().unwrap_or_else(|| format!("{}/ in the browser's download folder", self.folder));
        format!(
            "- {} · {state} · {size} · from {} · {place}",
            serde_json::Value::from(self.file_name.as_str()),
            self.site
        )
    }
}

/// The seconds to wait for `timeout`, or why it is refused.
pub fn wait_seconds(timeout: Option<f64>) -> Result<f64, String> {
    match timeout {
        None => Ok(DEFAULT_WAIT_SECONDS),
        Some(t) if t.is_finite() && (0.0..=MOST_WAIT_SECONDS).contains(&t) => Ok(t),
        Some(t) => Err(format!("`timeout` is from 0 to {MOST_WAIT_SECONDS:.0} seconds, not {t}")),
    }
}

/// The newest download whose file name contains `wanted` (case-insensitive).
pub fn matching<'a>(records: &'a [DownloadRecord], wanted: &str) -> Option<&'a DownloadRecord> {
    let wanted = wanted.to_lowercase();
    records.iter().rev().find(|r| r.file_name.to_lowercase().contains(&wanted))
}

/// What the agent reads: the session's downloads, oldest first, after a line on the wait when
/// it asked for one.
pub fn listing(records: &[DownloadRecord], waited: Option<(&str, f64)>) -> String {
    let mut text = String::new();
    if let Some((wanted, seconds)) = waited {
        let quoted = serde_json::Value::from(wanted);
        text.push_str(&match matching(records, wanted) {
            Some(r) if r.state == DownloadState::Complete => format!("The download {quoted} finished.\n"),
            Some(r) if r.state.finished() => format!("The download {quoted} did not finish.\n"),
            Some(_) => format!("The download {quoted} is still in progress after {seconds:.0} s.\n"),
            None => format!("No download matching {quoted} started within {seconds:.0} s.\n"),
        });
    }
    if records.is_empty() {
        text.push_str("Your actions have started no download in this session.");
        return text;
    }
    text.push_str(&format!("{} download(s) your actions started (never opened):", records.len()));
    for record in records {
        text.push('\n');
        text.push_str(&record.line());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, state: DownloadState, received: u64) -> DownloadRecord {
        DownloadRecord {
            file_name: name.to_owned(),
            site: "https://shop.test".to_owned(),
            folder: "Sightline/session-a".to_owned(),
            state,
            received,
            total: Some(2048),
            saved_as: None,
        }
    }

    #[test]
    fn the_listing_names_each_file_its_state_size_site_and_folder() {
        let records = [
            record("report.csv", DownloadState::Complete, 2048),
            record("big.zip", DownloadState::InProgress, 512),
            record("gone.pdf", DownloadState::from_browser("interrupted", Some("NETWORK_FAILED")), 0),
        ];
        let text = listing(&records, Some(("big", 30.0)));
        assert_eq!(
            text,
            "The download \"big\" is still in progress after 30 s.\n3 download(s) your actions started (never \
             opened):\n- \"report.csv\" · complete · 2048 bytes · from https://shop.test · Sightline/session-a/ in \
             the browser's download folder\n- \"big.zip\" · in progress · 512 of 2048 bytes · from https://shop.test \
             · Sightline/session-a/ in the browser's download folder\n- \"gone.pdf\" · interrupted \
             (NETWORK_FAILED) · 0 of 2048 bytes · from https://shop.test · Sightline/session-a/ in the browser's \
             download folder"
        );
        assert!(listing(&records, Some(("REPORT", 1.0))).starts_with("The download \"REPORT\" finished."));
        assert!(listing(&[], Some(("x", 2.0))).starts_with("No download matching \"x\" started within 2 s."));
    }

    #[test]
    fn a_file_name_cannot_pose_as_a_line_of_its_own() {
        let text = listing(&[record("a\n- \"fake.exe\" · complete", DownloadState::Complete, 1)], None);
        assert_eq!(text.lines().count(), 2, "{text}");
    }

    #[test]
    fn the_wait_is_bounded() {
        assert_eq!(wait_seconds(None), Ok(DEFAULT_WAIT_SECONDS));
        assert_eq!(wait_seconds(Some(5.0)), Ok(5.0));
        assert!(wait_seconds(Some(121.0)).is_err());
        assert!(wait_seconds(Some(f64::NAN)).is_err());
        assert!(wait_seconds(Some(-1.0)).is_err());
    }
}
