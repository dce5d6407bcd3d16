//! Whose a download is: the ledger that gives each download an agent's action starts to that
//! action's session (a link with `download`, a form or link answered as an attachment, a `blob:`
//! URL a script hands to a link), and leaves the person's own downloads alone.
//!
//! The browser runs a download apart from the tab and names its file later
//! (`chrome.downloads.onDeterminingFilename`, which does not say which tab began it); the tab's
//! debugger says earlier that it began one (`Page.downloadWillBegin`, with its URL). A download
//! is an action's when the action is running as the browser names it, or when the tab the
//! action acted on began it no more than [`TAB_GRACE_MS`] after the action ended: on a busy
//! machine the browser can name a file seconds after the click's page settled, and such a
//! download must still be decided by the person's rules, not saved as the person's own. Any
//! other download (no tab spoke of it, or another tab did: a link the action opened in a new
//! tab) is the action's while it runs and for [`GRACE_MS`] after, and then the person's. The
//! runtime feeds the ledger what the browser says, and waits (bounded) after an action until
//! each download its tab began is decided, so the action's answer can say what became of it.

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

/// An action running now (or that ended less than [`TAB_GRACE_MS`] ago), whose downloads are
/// its session's.
struct Acting {
    action: u64,
    session: String,
    /// The tab the action acts on.
    tab: i32,
    /// The person's rules already let the action through as a download.
    allowed: bool,
    /// When it ended (the runtime's clock, in ms).
    ended_at: Option<f64>,
}

/// How long after an action ends a download the browser names is still the action's, when no
/// tab said it began it: a response answered as an attachment can arrive just after the page
/// looked settled.
pub const GRACE_MS: f64 = 2000.0;

/// The debugger event by which a tab says it began a download.
pub const DOWNLOAD_BEGAN: &str = "Page.downloadWillBegin";

/// How long an action's answer waits, after its page settled, for the downloads its tab began
/// to be decided (the browser names the file, the person's rules decide it).
pub const DECISION_WAIT_MS: u32 = 5_000;

/// How long after an action ends a download its own tab began is still the action's.
pub const TAB_GRACE_MS: f64 = 10_000.0;

/// Downloads a tab began, remembered at most (the oldest are forgotten first).
const BEGUN_KEPT: usize = 50;

/// A download a tab said it began (`Page.downloadWillBegin`).
struct Begun {
    id: u64,
    tab: i32,
    url: String,
    /// The action running on that tab when the runtime heard of it, whose answer waits for it.
    during: Option<u64>,
    /// When the runtime heard of it.
    at: f64,
    /// Decided: saved, refused, or put to the person.
    decided: bool,
}

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
    /// What its tab said of it, when it did ([`Begun::id`]).
    begun: Option<u64>,
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
    begun: Vec<Begun>,
    next_begun: u64,
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

    /// Says that `tab` began a download of `url` at `now` (its debugger's
    /// `Page.downloadWillBegin`).
    pub fn tab_began(&mut self, tab: i32, url: &str, now: f64) {
        self.begun.retain(|b| now - b.at <= TAB_GRACE_MS);
        self.next_begun += 1;
        let during = self.acting.iter().rev().find(|a| a.tab == tab && a.ended_at.is_none()).map(|a| a.action);
        self.begun.push(Begun { id: self.next_begun, tab, url: url.to_owned(), during, at: now, decided: false });
        if self.begun.len() > BEGUN_KEPT {
            self.begun.remove(0);
        }
    }

    /// Whether every download the tab of the action `token` began while it ran has been decided
    /// (saved, refused or put to the person); one no tab spoke of is not waited for.
    pub fn decided(&self, token: u64) -> bool {
        self.begun.iter().filter(|b| b.during == Some(token)).all(|b| b.decided)
    }

    /// Whose download this is, as the browser names its file: when a tab said it began it, the
    /// session whose action on that tab is running (the latest to start) or ended less than
    /// [`TAB_GRACE_MS`] ago; otherwise (no tab spoke of it, or one with no such action: a link
    /// the action opened in a new tab) the session whose action on any tab is running or ended
    /// less than [`GRACE_MS`] ago. `None` for the person's own.
    pub fn claim(&mut self, item: &DownloadItem, now: f64) -> Option<Claim> {
        self.acting.retain(|a| a.ended_at.is_none_or(|ended| now - ended <= TAB_GRACE_MS));
        let begun = self.begun.iter().find(|b| !b.decided && b.url == item.url).map(|b| (b.id, b.tab));
        let latest = |on_tab: Option<i32>, grace: f64| {
            let on = |a: &&Acting| on_tab.is_none_or(|t| a.tab == t);
            let running = self.acting.iter().rev().filter(on).find(|a| a.ended_at.is_none());
            running.or_else(|| {
                self.acting.iter().rev().find(on).filter(|a| a.ended_at.is_some_and(|ended| now - ended <= grace))
            })
        };
        let acting = begun.and_then(|(_, tab)| latest(Some(tab), TAB_GRACE_MS)).or_else(|| latest(None, GRACE_MS))?;
        let from = if item.final_url.is_empty() { &item.url } else { &item.final_url };
        Some(Claim {
            session: acting.session.clone(),
            tab: acting.tab,
            allowed_already: acting.allowed,
            action: acting.action,
            file_name: safe_file_name(&item.filename),
            site: site_of(from),
            folder: format!("{FOLDER}/{}", session_folder(&acting.session)),
            begun: begun.map(|(id, _)| id),
        })
    }

    /// Records a download the person's rules let proceed, under the browser's `id`.
    pub fn started(&mut self, claim: Claim, id: i64) {
        self.mark_decided(claim.begun);
        let Claim { session, action, file_name, site, folder, .. } = claim;
        self.started.push(Download { id, session, file_name, site, folder, action });
        if self.started.len() > KEPT {
            self.started.remove(0);
        }
    }

    /// Notes, for the answer of the action that started it, what became of a download that did
    /// not start (refused, or waiting for the person).
    pub fn note(&mut self, claim: &Claim, note: String) {
        self.mark_decided(claim.begun);
        self.notes.push((claim.action, note));
        if self.notes.len() > KEPT {
            self.notes.remove(0);
        }
    }

    fn mark_decided(&mut self, begun: Option<u64>) {
        if let Some(begun) = self.begun.iter_mut().find(|b| Some(b.id) == begun) {
            begun.decided = true;
        }
    }
}

/// A file name the browser may save under: the last part of the suggested name, without the
/// dots that would hide it or climb out of the folder.
pub fn safe_file_name(suggested: &str) -> String {
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

    #[test]
    fn a_download_its_tab_began_is_the_actions_though_the_browser_names_it_seconds_after() {
        let mut downloads = Downloads::default();
        let token = downloads.action_starts("abc", 4, false);
        downloads.action_ends(token, 100.0);
        downloads.tab_began(4, "blob:https://shop.test/9", 3_000.0);
        assert!(downloads.decided(token), "begun after the action: its answer does not wait for it");
        let claim = downloads.claim(&item("late.txt", "blob:https://shop.test/9"), 6_000.0).expect("the action's");
        assert_eq!((claim.session.as_str(), claim.tab), ("abc", 4));
        downloads.note(&claim, "waits for the person".to_owned());
        // Past the tab's grace, the person's own.
        downloads.tab_began(4, "blob:https://shop.test/10", 10_500.0);
        assert_eq!(downloads.claim(&item("mine.txt", "blob:https://shop.test/10"), 10_500.0), None);
    }

    #[test]
    fn a_download_another_tab_began_gets_only_the_short_grace() {
        let mut downloads = Downloads::default();
        let token = downloads.action_starts("abc", 4, false);
        // A link the action opened in a new tab, which downloads: the action's, while it runs.
        downloads.tab_began(9, "https://shop.test/invoice.pdf", 10.0);
        let claim = downloads.claim(&item("invoice.pdf", "https://shop.test/invoice.pdf"), 20.0).expect("the action's");
        assert_eq!(claim.tab, 4);
        downloads.action_ends(token, 100.0);
        // Past the short grace, another tab's download is the person's own.
        downloads.tab_began(9, "https://bank.test/statement.pdf", 5_000.0);
        assert_eq!(downloads.claim(&item("statement.pdf", "https://bank.test/statement.pdf"), 5_000.0), None);
        // The action's own tab still has the long one.
        downloads.tab_began(4, "https://shop.test/late.csv", 5_000.0);
        assert!(downloads.claim(&item("late.csv", "https://shop.test/late.csv"), 5_000.0).is_some());
    }

    #[test]
    fn the_same_url_begun_twice_is_decided_once_each() {
        let mut downloads = Downloads::default();
        let token = downloads.action_starts("abc", 4, false);
        let url = "https://shop.test/notes.html";
        downloads.tab_began(4, url, 10.0);
        downloads.tab_began(4, url, 20.0);
        assert!(!downloads.decided(token), "neither is named yet");
        let first = downloads.claim(&item("notes.html", url), 30.0).expect("first");
        downloads.started(first, 1);
        assert!(!downloads.decided(token), "the second is still to be named");
        let second = downloads.claim(&item("notes.html", url), 40.0).expect("second");
        downloads.started(second, 2);
        assert!(downloads.decided(token));
    }
}
