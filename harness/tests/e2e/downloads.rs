//! Downloads an agent's action starts, in the real browser: a link with `download`, a form
//! answered with `Content-Disposition: attachment`, and a `blob:` URL a script hands to a link.
//! Each action's answer says a download started and names the file; the file is saved in the
//! session's own folder under the browser's download folder (`Sightline/session-…/`), never in
//! the folder itself; and the tab keeps working afterwards (a snapshot, a click the page
//! counts). `browser_downloads` lists the session's files (and only its own) and waits for one.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use sightline_harness::{Rig, ref_of};

const WAIT: Duration = Duration::from_secs(10);

/// The browser's download folder in the rig's home.
fn download_folder(rig: &Rig) -> PathBuf {
    rig.sandbox.root().join("home/Downloads")
}

/// Waits (at most [`WAIT`]) for a finished file named `name` in a session's folder under
/// `Sightline/`; its path.
fn saved_file(downloads: &Path, name: &str) -> PathBuf {
    let deadline = Instant::now() + WAIT;
    loop {
        let found = std::fs::read_dir(downloads.join("Sightline"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|session| session.path().join(name))
            // The browser reserves the final name with an empty file while the bytes go to a
            // `.crdownload`, and renames that over it when done: a file of that name with
            // nothing in it is not saved yet (every download here has content).
            .find(|file| file.metadata().is_ok_and(|m| m.is_file() && m.len() > 0));
        if let Some(file) = found {
            return file;
        }
        assert!(Instant::now() < deadline, "no {name} under {}: {:?}", downloads.display(), listing(downloads));
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.display().to_string());
        }
    }
    out
}

/// Clicks the button or link `name` (by `role`) and checks the answer says the download of
/// `file` started; the file's saved path and the answer.
async fn download_by_clicking(rig: &Rig, role: &str, name: &str, file: &str) -> (PathBuf, String) {
    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let target = ref_of(&page, role, name);
    let answer = rig.client.ok("browser_click", json!({"ref": target})).await;
    assert!(answer.contains(&format!("a download started: {file}")), "{answer}");
    let saved = saved_file(&download_folder(rig), file);
    assert!(
        saved.parent().and_then(Path::file_name).is_some_and(|f| f.to_string_lossy().starts_with("session-")),
        "saved in the session's own folder: {}",
        saved.display()
    );
    (saved, answer)
}

async fn downloads_page() -> Rig {
    let rig = Rig::start().await.expect("rig");
    rig.open("downloads/page.html").await;
    assert!(rig.server.wait_for_event("ready", WAIT), "{:?}", rig.server.events());
    rig
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_with_download_saves_into_the_sessions_folder_and_the_answer_says_so() {
    let rig = downloads_page().await;
    let (saved, _) = download_by_clicking(&rig, "link", "Save the notes", "notes.html").await;
    let expected = std::fs::read(sightline_harness::paths::fixtures_dir().join("second.html")).unwrap();
    assert_eq!(std::fs::read(&saved).unwrap(), expected, "the whole file: {}", saved.display());
    assert!(!download_folder(&rig).join("notes.html").exists(), "not loose in the download folder");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_form_answered_as_an_attachment_saves_into_the_sessions_folder() {
    let rig = downloads_page().await;
    let (saved, _) = download_by_clicking(&rig, "button", "Export the report", "report.csv").await;
    assert!(rig.server.events().iter().any(|e| e == "attachment:report.csv"), "{:?}", rig.server.events());
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "the file report.csv\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blob_url_saves_into_the_sessions_folder() {
    let rig = downloads_page().await;
    let (saved, _) = download_by_clicking(&rig, "button", "Save a greeting", "greeting.txt").await;
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "hello from a blob\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tab_keeps_working_after_downloads() {
    let rig = downloads_page().await;
    download_by_clicking(&rig, "button", "Export the report", "report.csv").await;
    download_by_clicking(&rig, "button", "Save a greeting", "greeting.txt").await;
    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    assert!(!page.is_error && page.text.contains("Counted 0"), "the page is still there: {}", page.text);
    let count = ref_of(&page, "button", "Count");
    let answer = rig.client.ok("browser_click", json!({"ref": count})).await;
    assert!(rig.server.wait_for_event("counted 1", WAIT), "{:?}", rig.server.events());
    assert!(answer.contains("Counted 1") && !answer.contains("download"), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn browser_downloads_lists_the_sessions_files_waits_for_one_and_shows_another_agent_none() {
    let rig = downloads_page().await;
    let none = rig.client.ok("browser_downloads", json!({})).await;
    assert!(none.contains("started no download"), "{none}");
    let (saved, _) = download_by_clicking(&rig, "button", "Export the report", "report.csv").await;
    let waited = rig.client.ok("browser_downloads", json!({"wait_for": "report", "timeout": 10})).await;
    assert!(waited.starts_with("The download \"report\" finished."), "{waited}");
    let line = waited.lines().find(|l| l.contains("\"report.csv\"")).unwrap_or_else(|| panic!("{waited}"));
    assert!(line.contains("complete") && line.contains("from http://127.0.0.1:"), "{line}");
    let size = std::fs::metadata(&saved).expect("saved").len();
    assert!(line.contains(&format!("{size} bytes")), "the size on disk ({size}) in {line}");
    assert!(line.contains(&saved.display().to_string()), "where it was saved ({}) in {line}", saved.display());
    // A wait for a file that never comes is bounded and says so.
    let missing = rig.client.ok("browser_downloads", json!({"wait_for": "never.pdf", "timeout": 1})).await;
    assert!(missing.starts_with("No download matching \"never.pdf\" started within 1 s."), "{missing}");
    let refused = rig.client.call("browser_downloads", json!({"timeout": 500})).await.expect("reply");
    assert!(refused.is_error && refused.text.contains("`timeout` is from 0 to 120 seconds"), "{}", refused.text);
    // Another agent on the same browser sees none of this session's files.
    let other = sightline_harness::McpClient::connect(&rig.sandbox).await.expect("a second MCP client");
    let theirs = other.ok("browser_downloads", json!({})).await;
    assert!(theirs.contains("started no download") && !theirs.contains("report.csv"), "{theirs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_the_persons_rules_refuse_is_not_saved_and_the_answer_says_so() {
    let rig = downloads_page().await;
    rig.set_permissions(&json!({"rules": [{"site": "*", "level": "act_freely", "classes": {"download": "refuse"}}]}));
    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let answer = rig.client.ok("browser_click", json!({"ref": ref_of(&page, "button", "Export the report")})).await;
    assert!(answer.contains("a download of report.csv") && answer.contains("was not saved"), "{answer}");
    assert!(!answer.contains("a download started"), "{answer}");
    assert!(rig.server.events().iter().any(|e| e == "attachment:report.csv"), "the server answered it");
    saved_nowhere(&rig, "report.csv", "refused").await;
    let listed = rig.client.ok("browser_downloads", json!({})).await;
    assert!(listed.contains("started no download"), "{listed}");
}

/// The downloads page, with rules that let the agent act freely but ask before each download.
async fn asking_before_downloads() -> Rig {
    let rig = downloads_page().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "act_freely", "classes": {"download": "ask"}}
    ], "answer_seconds": 60}));
    rig
}

/// Waits for the question about a download of `file` and presses `button` in its window.
fn answer_download_question(rig: &Rig, file: &str, button: &str) {
    let mut window = sightline_harness::ui::ExtensionPage::attach(&rig.devtools(), "question.html", WAIT)
        .unwrap_or_else(|e| panic!("{e}: not asked; files: {:?}", listing(&download_folder(rig))));
    let shown = format!("document.getElementById('action').textContent.includes('{file}')");
    window.wait_for(&shown, WAIT).expect("shown");
    window.click(button).unwrap_or_else(|e| panic!("click {button}: {e}"));
}

/// Checks, a second after it was `why` (refused, denied), that no file named `file` is anywhere
/// in the rig's download folder.
async fn saved_nowhere(rig: &Rig, file: &str, why: &str) {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let files = listing(&download_folder(rig));
    assert!(files.iter().all(|p| !p.contains(file)), "{why}, so saved nowhere: {files:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_the_rules_ask_about_waits_for_the_persons_click() {
    let rig = asking_before_downloads().await;
    let greeting = |page: &sightline_harness::client::Reply| ref_of(page, "button", "Save a greeting");
    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let answer = rig.client.ok("browser_click", json!({"ref": greeting(&page)})).await;
    assert!(
        answer.contains("a download of greeting.txt") && answer.contains("waits for the person's answer"),
        "{answer}"
    );
    answer_download_question(&rig, "greeting.txt", "#deny");
    saved_nowhere(&rig, "greeting.txt", "denied").await;
    // The answered window closes a moment later; the next question is a window of its own.
    sightline_harness::ui::ExtensionPage::wait_closed(&rig.devtools(), "question.html", WAIT).expect("closed");

    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    rig.client.ok("browser_click", json!({"ref": greeting(&page)})).await;
    answer_download_question(&rig, "greeting.txt", "#allow-once");
    let saved = saved_file(&download_folder(&rig), "greeting.txt");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "hello from a blob\n");
}

/// A page that starts its download seconds after the click, when the click's answer has long
/// been given, cannot slip it past the person's rules as if it were the person's own: the tab
/// said it began it, so it is the action's, and the person is asked.
#[tokio::test(flavor = "multi_thread")]
async fn a_download_a_page_delays_past_the_clicks_answer_is_still_put_to_the_person() {
    let rig = asking_before_downloads().await;
    let page = rig.client.call("browser_snapshot", json!({})).await.expect("browser_snapshot");
    let answer =
        rig.client.ok("browser_click", json!({"ref": ref_of(&page, "button", "Save a greeting in a moment")})).await;
    assert!(!answer.contains("later.txt"), "the download comes after the answer: {answer}");
    assert!(rig.server.wait_for_event("later", WAIT), "{:?}", rig.server.events());
    answer_download_question(&rig, "later.txt", "#deny");
    saved_nowhere(&rig, "later.txt", "denied").await;
}
