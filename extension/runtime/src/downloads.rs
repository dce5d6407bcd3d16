//! Downloads an agent's action starts: a link with `download`, a form or link answered as an
//! attachment, a `blob:` URL a script hands to a link.
//!
//! The browser runs a download itself, apart from the tab, so the tab is never detached or
//! broken by one; the extension learns of it through `chrome.downloads` (the CDP commands for
//! downloads are browser-level, and a debugger session of an extension may not send them). A
//! download that begins while a session's action runs on a tab is that session's: it is saved
//! in a folder of the session's own under the browser's download folder, never opened (the
//! browser opens nothing by itself, and nothing here asks it to), and the action's answer says
//! that a download started (the file's name, its site, its folder). A download that begins with
//! no action running (the person's own) is left as the browser decides. Every download of an
//! action is first decided by the person's site permissions, as the *download* action class
//! (`crate::permissions::gate_download`): it proceeds, is refused, or waits for the person's
//! answer in the browser.

use serde::Deserialize;

/// The folder, under the browser's download folder, that holds every session's downloads.
pub const FOLDER: &str = "Sightline";

/// What `chrome.downloads` says of a download as the browser names its file.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadItem {
    /// The browser's id for it.
    #[serde(default)]
    pub id: i64,
    /// Where it came from.
    #[serde(default)]
    pub url: String,
    /// Where it came from after redirects.
    #[serde(default)]
    pub final_url: String,
    /// The file name the browser suggests (the `download` attribute, the attachment's name).
    #[serde(default)]
    pub filename: String,
}

/// A download started by a session's action.
#[derive(Debug, Clone)]
pub struct Download {
    /// The browser's id for it.
    pub id: i64,
    /// The session whose action started it.
    pub session: String,
    /// The file's name.
    pub file_name: String,
    /// The site it came from (`scheme://host:port`).
    pub site: String,
    /// The folder it is saved in, relative to the browser's download folder.
    pub folder: String,
    /// The action that started it.
    pub action: u64,
}

/// An action running now (or that ended less than [`GRACE_MS`] ago), whose downloads are its
/// session's.
struct Acting {
    action: u64,
    session: String,
    /// The tab the action acts on.
    tab: i32,
    /// The person's rules already let the action through as a download.
    allowed: bool,
    /// When it ended ([`crate::timer::now_ms`]).
    ended_at: Option<f64>,
}

/// How long after an action ends a download that begins is still the action's: a response
/// answered as an attachment can arrive just after the page looked settled.
const GRACE_MS: f64 = 2000.0;

/// A download an action of a session started, before the person's rules decide it.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The session whose action started it.
    pub session: String,
    /// The tab that action acts on.
    pub tab: i32,
    /// The person's rules already let that action through as a download.
    pub allowed_already: bool,
    /// The action.
    action: u64,
    /// The file's name, made safe.
    pub file_name: String,
    /// The site it came from.
    pub site: String,
    /// The folder it goes in, relative to the browser's download folder.
    pub folder: String,
}

impl Claim {
    /// Where it is saved, relative to the browser's download folder.
    pub fn path(&self) -> String {
        format!("{}/{}", self.folder, self.file_name)
    }
}

/// The downloads of every session, and the actions running now.
#[derive(Default)]
pub struct Downloads {
    next_action: u64,
    acting: Vec<Acting>,
    started: Vec<Download>,
    /// What the answer of an action says of its downloads that did not start: refused by the
    /// person's rules, or waiting for the person's answer (by action).
    notes: Vec<(u64, String)>,
}

/// Downloads remembered at most (the oldest are forgotten first).
const KEPT: usize = 200;

impl Downloads {
    /// Says that `session` starts an action on `tab`, which the person's rules let through as a
    /// download when `allowed`; the token ends it.
    pub fn action_starts(&mut self, session: &str, tab: i32, allowed: bool) -> u64 {
        self.next_action += 1;
        let acting = Acting { action: self.next_action, session: session.to_owned(), tab, allowed, ended_at: None };
        self.acting.push(acting);
        self.next_action
    }

    /// Says that the action `token` ended at `now`; what it says of the downloads it started
    /// so far, one line each.
    pub fn action_ends(&mut self, token: u64, now: f64) -> Vec<String> {
        for acting in self.acting.iter_mut().filter(|a| a.action == token) {
            acting.ended_at.get_or_insert(now);
        }
        let mut lines: Vec<String> = self
            .started
            .iter()
            .filter(|d| d.action == token)
            .map(|d| {
                format!(
                    "a download started: {} from {}, saved in {}/ in the browser's download folder (never opened)",
                    d.file_name, d.site, d.folder
                )
            })
            .collect();
        lines.extend(self.notes.iter().filter(|(action, _)| *action == token).map(|(_, note)| note.clone()));
        self.notes.retain(|(action, _)| *action != token);
        lines
    }

    /// The downloads `session`'s actions started, oldest first (only its own).
    pub fn of_session(&self, session: &str) -> Vec<Download> {
        self.started.iter().filter(|d| d.session == session).cloned().collect()
    }

    /// Whose download this is, as the browser names its file: the session whose action is
    /// running (the latest to start, when several are), or that ended less than [`GRACE_MS`]
    /// ago; `None` for the person's own.
    pub fn claim(&mut self, item: &DownloadItem, now: f64) -> Option<Claim> {
        self.acting.retain(|a| a.ended_at.is_none_or(|ended| now - ended <= GRACE_MS));
        let running = self.acting.iter().rev().find(|a| a.ended_at.is_none());
        let acting = running.or(self.acting.last())?;
        let from = if item.final_url.is_empty() { &item.url } else { &item.final_url };
        Some(Claim {
            session: acting.session.clone(),
            tab: acting.tab,
            allowed_already: acting.allowed,
            action: acting.action,
            file_name: safe_file_name(&item.filename),
            site: site_of(from),
            folder: format!("{FOLDER}/{}", session_folder(&acting.session)),
        })
    }

    /// Records a download the person's rules let proceed, under the browser's `id`.
    pub fn started(&mut self, claim: Claim, id: i64) {
        let Claim { session, action, file_name, site, folder, .. } = claim;
        self.started.push(Download { id, session, file_name, site, folder, action });
        if self.started.len() > KEPT {
            self.started.remove(0);
        }
    }

    /// Notes, for the answer of the action that started it, what became of a download that did
    /// not start (refused, or waiting for the person).
    pub fn note(&mut self, claim: &Claim, note: String) {
        self.notes.push((claim.action, note));
        if self.notes.len() > KEPT {
            self.notes.remove(0);
        }
    }
}

/// A file name the browser may save under: the last part of the suggested name, without the
/// dots that would hide it or climb out of the folder.
fn safe_file_name(suggested: &str) -> String {
    let base = suggested.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String =
        base.chars().filter(|c| !c.is_control() && !matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|')).collect();
    let cleaned = cleaned.trim().trim_start_matches('.').to_owned();
    if cleaned.is_empty() { "download".to_owned() } else { cleaned }
}

/// The session's folder name: its id, with only letters, digits and dashes.
fn session_folder(session: &str) -> String {
    let safe: String = session.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(40).collect();
    format!("session-{}", if safe.is_empty() { "unnamed" } else { &safe })
}

/// The site of a URL (`scheme://host:port`); a `blob:` URL's is the site that made it.
fn site_of(url: &str) -> String {
    let url = url.strip_prefix("blob:").unwrap_or(url);
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            format!("{scheme}://{host}")
        }
        None => url.split(',').next().unwrap_or(url).chars().take(40).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(filename: &str, url: &str) -> DownloadItem {
        DownloadItem { id: 7, url: url.to_owned(), final_url: String::new(), filename: filename.to_owned() }
    }

    #[test]
    fn a_download_during_an_action_goes_to_its_sessions_folder_and_is_named_in_the_answer() {
        let mut downloads = Downloads::default();
        assert_eq!(downloads.claim(&item("mine.pdf", "https://example.test/a"), 0.0), None);
        let token = downloads.action_starts("abc-123", 4, false);
        let claim = downloads.claim(&item("../../.bashrc", "blob:https://shop.test/1f2e"), 10.0).expect("the agent's");
        assert_eq!((claim.path().as_str(), claim.tab), ("Sightline/session-abc-123/bashrc", 4));
        downloads.started(claim, 7);
        let refused = downloads.claim(&item("b.csv", "https://shop.test/b"), 11.0).expect("the agent's");
        downloads.note(&refused, "a download of b.csv was refused".to_owned());
        assert_eq!(
            downloads.action_ends(token, 20.0),
            [
                "a download started: bashrc from https://shop.test, saved in Sightline/session-abc-123/ in the browser's \
              download folder (never opened)",
                "a download of b.csv was refused"
            ]
        );
        assert_eq!(downloads.of_session("abc-123").len(), 1);
        assert!(downloads.of_session("another").is_empty(), "another session sees none of them");
        // Just after the action, still its; long after, the person's own.
        assert!(downloads.claim(&item("late.csv", "https://shop.test/x"), 1000.0).is_some());
        assert_eq!(downloads.claim(&item("mine.csv", "https://shop.test/y"), 5000.0), None);
    }
}
