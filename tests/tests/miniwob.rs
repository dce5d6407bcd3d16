//! MiniWoB++ tasks played end to end through Sightline: the same solvers and harness as `cargo
//! xtask tasks` (`sightline_e2e::miniwob`), on 25 tasks whose operations Sightline has tools for
//! today, each played with seeds 1 to 3 and required to be solved every time. The page's own
//! reward, read by the harness over its own CDP connection, is the verdict; nothing here times
//! anything.
//!
//! Tools these tasks cover today: `browser_navigate` (the harness loads each page through it),
//! `browser_snapshot`, `browser_click`, `browser_type` (replacing text, and refused on date and
//! time fields, which the solvers then fill key by key), and `browser_press_key` (with and
//! without a ref: sliders, date and time fields). `browser_find` and `browser_tabs` are not
//! needed by any solver (every page fits one snapshot, in one tab).
//!
//! To add as Sightline's tools land (each task's solver already calls the tool, and today the
//! harness records it as "no tool"): `browser_select_option` → choose-list, click-scroll-list;
//! `browser_hover` → click-menu; `browser_drag` → drag-items, drag-sort-numbers (once list items
//! get refs), resize-textarea (by offset); `browser_scroll` → scroll-text-2, sign-agreement;
//! the text selection tool → highlight-text, highlight-text-2.
//!
//! The task pages come from the `miniwob` wheel that `cargo xtask test` fetches into
//! `target/tasks/`; without them these tests skip (and fail under `CI=true`).
//!
//! Every test starts its own browser, so every first episode loads its page on a fresh
//! browser's first connections: the fixture server answers each connection on its own thread
//! (see `sightline_e2e::server`), so no script of a page waits behind a connection no one reads.

use sightline_e2e::browser::REMOTE_DEBUGGING;
use sightline_e2e::miniwob::agent::{Agent, Server};
use sightline_e2e::miniwob::control::EpisodeControl;
use sightline_e2e::miniwob::{episode, site};
use sightline_e2e::{Rig, paths};

const SEEDS: [u64; 3] = [1, 2, 3];

/// Plays `task` with every seed through Sightline and fails with each unsolved episode's reason
/// and the calls it made.
async fn solves_every_seed(task: &str) {
    if !paths::present_or_skip("the MiniWoB++ task pages (run `cargo xtask test` to fetch them)", site::present()) {
        return;
    }
    let rig = Rig::serving(site::html_dir(), &[REMOTE_DEBUGGING, "--window-size=1280,720", "about:blank"])
        .await
        .expect("rig");
    let endpoint = rig.browser.as_ref().expect("browser").devtools_endpoint().expect("DevTools endpoint");
    let mut control = EpisodeControl::connect(&endpoint).expect("CDP connection");
    let mut agent = Agent::new(Server::Sightline, &rig.client).await.expect("agent");
    let url = rig.server.url(&site::task_path(task));
    let mut failures = Vec::new();
    for seed in SEEDS {
        let played = episode::play(&mut agent, &mut control, task, &url, seed).await;
        if !played.solved {
            let calls: Vec<String> = played
                .calls
                .iter()
                .map(|c| format!("  {} {}\n    {}", c.tool, c.args, c.text.replace('\n', "\n    ")))
                .collect();
            failures.push(format!(
                "seed {seed}: {} — {}\n{}",
                played.reason.as_deref().unwrap_or("unsolved"),
                played.detail.as_deref().unwrap_or(""),
                calls.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{task} was not solved:\n{}", failures.join("\n\n"));
}

macro_rules! tasks {
    ($($name:ident => $task:literal),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $name() {
                solves_every_seed($task).await;
            }
        )*
    };
}

tasks! {
    click_button_is_solved => "click-button",
    click_button_sequence_is_solved => "click-button-sequence",
    click_checkboxes_is_solved => "click-checkboxes",
    click_collapsible_is_solved => "click-collapsible-nodelay",
    click_dialog_2_is_solved => "click-dialog-2",
    click_link_is_solved => "click-link",
    click_option_is_solved => "click-option",
    click_tab_2_is_solved => "click-tab-2",
    click_widget_is_solved => "click-widget",
    choose_date_is_solved => "choose-date-nodelay",
    copy_paste_is_solved => "copy-paste",
    email_inbox_important_is_solved => "email-inbox-important",
    enter_date_is_solved => "enter-date",
    enter_password_is_solved => "enter-password",
    enter_text_2_is_solved => "enter-text-2",
    enter_time_is_solved => "enter-time",
    find_word_is_solved => "find-word",
    focus_text_2_is_solved => "focus-text-2",
    guess_number_is_solved => "guess-number",
    login_user_popup_is_solved => "login-user-popup",
    multi_layouts_is_solved => "multi-layouts",
    read_table_2_is_solved => "read-table-2",
    phone_book_is_solved => "phone-book",
    simple_algebra_is_solved => "simple-algebra",
    use_slider_is_solved => "use-slider",
}
