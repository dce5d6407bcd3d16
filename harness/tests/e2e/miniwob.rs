//! MiniWoB++ tasks played end to end through Sightline: the same solvers and harness as `cargo
//! xtask tasks` (`sightline_harness::miniwob`), on 25 tasks chosen so that every tool a task page
//! can call for is played, each with seeds 1 to 3 and required to be solved every time. The
//! page's own reward, read by the harness over its own CDP connection, is the verdict; nothing
//! here times anything.
//!
//! Tools these tasks play: `browser_navigate` (the harness loads each page through it),
//! `browser_snapshot`, `browser_click` (on controls, on icons bound by script, on SVG text, on
//! icons whose image changes on hover), `browser_type`, `browser_press_key` (with and without a
//! ref: sliders, date and time fields), `browser_fill_form` (enter-password, login-user-popup,
//! read-table-2), `browser_select_option` with several values (click-scroll-list),
//! `browser_hover` (click-menu), `browser_drag` ref to ref on a sortable list (drag-items) and by
//! an offset on a text area's resize grip (resize-textarea), `browser_scroll` on an element
//! (scroll-text-2) and `browser_select_text` on plain text (highlight-text). No task page calls
//! for the rest (`browser_file_upload`, `browser_handle_dialog`, `browser_take_screenshot`, the
//! coordinate tools, `browser_evaluate`, `browser_wait_for`, `browser_find`, `browser_tabs`);
//! `actions.rs`, `page_actions.rs` and `evaluate.rs` play those on fixture pages.
//!
//! The task pages come from the `miniwob` wheel that `cargo xtask test` fetches into
//! `target/tasks/`; without them these tests skip (and fail under `CI=true`).
//!
//! Every test starts its own browser, so every first episode loads its page on a fresh
//! browser's first connections: the fixture server answers each connection on its own thread
//! (see `sightline_harness::server`), so no script of a page waits behind a connection no one reads.

use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::miniwob::agent::{Agent, Server};
use sightline_harness::miniwob::control::EpisodeControl;
use sightline_harness::miniwob::{episode, site};
use sightline_harness::{Rig, paths};

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
    ascending_numbers_is_solved => "ascending-numbers",
    click_button_sequence_is_solved => "click-button-sequence",
    click_checkboxes_is_solved => "click-checkboxes",
    click_collapsible_is_solved => "click-collapsible-nodelay",
    click_dialog_2_is_solved => "click-dialog-2",
    click_menu_is_solved => "click-menu",
    click_scroll_list_is_solved => "click-scroll-list",
    click_tab_2_is_solved => "click-tab-2",
    click_widget_is_solved => "click-widget",
    choose_date_is_solved => "choose-date-nodelay",
    copy_paste_is_solved => "copy-paste",
    drag_items_is_solved => "drag-items",
    email_inbox_forward_nl_is_solved => "email-inbox-forward-nl",
    email_inbox_important_is_solved => "email-inbox-important",
    enter_date_is_solved => "enter-date",
    enter_password_is_solved => "enter-password",
    enter_text_2_is_solved => "enter-text-2",
    enter_time_is_solved => "enter-time",
    highlight_text_is_solved => "highlight-text",
    login_user_popup_is_solved => "login-user-popup",
    read_table_2_is_solved => "read-table-2",
    resize_textarea_is_solved => "resize-textarea",
    scroll_text_2_is_solved => "scroll-text-2",
    social_media_is_solved => "social-media",
    use_slider_is_solved => "use-slider",
}
