//! One scripted solver per MiniWoB++ task family, written against the abstract interface
//! (`Agent`) only: each reads the instruction and the page from what the server's replies show,
//! decides from that, and acts through the server's tools. No solver reads the DOM, calls a
//! script tool, or knows an answer in advance.
//!
//! [`solve`] runs the solver of a task; [`SOLVED`] lists the tasks that have one and
//! [`UNSOLVED`] the others, each with the reason no solver is written.

mod clicks;
mod email;
mod flight;
mod forms;
mod misc;
mod social;
mod widgets;
mod words;

use super::agent::{Agent, Failure, Node, Step};
use super::page::Page;

/// Declares the solvers: `task => function`, generating [`solve`] and [`SOLVED`].
macro_rules! solvers {
    ($($task:literal => $solver:path),* $(,)?) => {
        /// Runs the solver of `task` on the page `agent` is on (the episode just started);
        /// `None` when the task has no solver.
        pub async fn solve(task: &str, agent: &mut Agent<'_>) -> Option<Step> {
            match task {
                $($task => Some($solver(agent).await),)*
                _ => None,
            }
        }

        /// Every task with a solver.
        pub const SOLVED: &[&str] = &[$($task),*];
    };
}

solvers! {
    "click-button" => clicks::click_button,
    "click-button-sequence" => clicks::click_button_sequence,
    "click-checkboxes" => clicks::click_checkboxes,
    "click-checkboxes-large" => clicks::click_checkboxes,
    "click-checkboxes-transfer" => clicks::click_checkboxes,
    "click-dialog" => clicks::click_dialog,
    "click-dialog-2" => clicks::click_dialog_2,
    "click-link" => clicks::click_link,
    "click-option" => clicks::click_option,
    "click-tab" => clicks::click_tab,
    "click-test" => clicks::click_test,
    "click-test-2" => clicks::click_test_named,
    "click-test-transfer" => clicks::click_test_named,
    "click-widget" => clicks::click_widget,
    "focus-text" => clicks::focus_text,
    "focus-text-2" => clicks::focus_text_2,
    "copy-paste" => forms::copy_paste,
    "copy-paste-2" => forms::copy_paste_2,
    "enter-date" => forms::enter_date,
    "enter-password" => forms::enter_password,
    "enter-text" => forms::enter_text,
    "enter-text-2" => forms::enter_text_2,
    "enter-text-dynamic" => forms::enter_text,
    "enter-time" => forms::enter_time,
    "find-greatest" => forms::find_greatest,
    "find-word" => forms::find_word,
    "form-sequence-2" => forms::form_sequence_2,
    "generate-number" => forms::generate_number,
    "guess-number" => forms::guess_number,
    "login-user" => forms::login_user,
    "login-user-popup" => forms::login_user_popup,
    "multi-layouts" => forms::multi_layouts,
    "multi-orderings" => forms::multi_layouts,
    "odd-or-even" => forms::odd_or_even,
    "read-table" => forms::read_table,
    "read-table-2" => forms::read_table_2,
    "simple-algebra" => forms::simple_algebra,
    "simple-arithmetic" => forms::simple_arithmetic,
    "text-transform" => forms::text_transform,
    "unicode-test" => forms::unicode_test,
    "use-spinner" => forms::use_spinner,
    "ascending-numbers" => widgets::ascending_numbers,
    "button-delay" => widgets::button_delay,
    "choose-date" => widgets::choose_date,
    "choose-date-easy" => widgets::choose_date,
    "choose-date-medium" => widgets::choose_date,
    "choose-date-nodelay" => widgets::choose_date,
    "choose-list" => widgets::choose_list,
    "click-collapsible" => widgets::click_collapsible,
    "click-collapsible-2" => widgets::click_collapsible_2,
    "click-collapsible-2-nodelay" => widgets::click_collapsible_2,
    "click-collapsible-nodelay" => widgets::click_collapsible,
    "click-menu" => widgets::click_menu,
    "click-menu-2" => widgets::click_menu_2,
    "click-pie" => widgets::click_pie,
    "click-pie-nodelay" => widgets::click_pie,
    "click-scroll-list" => widgets::click_scroll_list,
    "click-tab-2" => widgets::click_tab_2,
    "click-tab-2-easy" => widgets::click_tab_2,
    "click-tab-2-hard" => widgets::click_tab_2,
    "click-tab-2-medium" => widgets::click_tab_2,
    "drag-items" => widgets::drag_items,
    "drag-items-grid" => widgets::drag_items_grid,
    "drag-sort-numbers" => widgets::drag_sort_numbers,
    "form-sequence" => widgets::form_sequence,
    "form-sequence-3" => widgets::form_sequence_3,
    "highlight-text" => widgets::highlight_text,
    "highlight-text-2" => widgets::highlight_text_2,
    "identify-shape" => widgets::identify_shape,
    "navigate-tree" => widgets::navigate_tree,
    "phone-book" => widgets::phone_book,
    "resize-textarea" => widgets::resize_textarea,
    "scroll-text" => widgets::scroll_text,
    "scroll-text-2" => widgets::scroll_text_2,
    "search-engine" => widgets::search_engine,
    "sign-agreement" => widgets::sign_agreement,
    "stock-market" => widgets::stock_market,
    "use-autocomplete" => widgets::use_autocomplete,
    "use-autocomplete-nodelay" => widgets::use_autocomplete,
    "use-slider" => widgets::use_slider,
    "use-slider-2" => widgets::use_slider_2,
    "book-flight" => flight::book_flight,
    "book-flight-nodelay" => flight::book_flight,
    "email-inbox" => email::email_inbox,
    "email-inbox-delete" => email::email_inbox,
    "email-inbox-forward" => email::email_inbox,
    "email-inbox-forward-nl" => email::email_inbox_nl,
    "email-inbox-forward-nl-turk" => email::email_inbox_nl,
    "email-inbox-important" => email::email_inbox,
    "email-inbox-nl-turk" => email::email_inbox_nl,
    "email-inbox-noscroll" => email::email_inbox,
    "email-inbox-reply" => email::email_inbox,
    "email-inbox-star-reply" => email::email_inbox,
    "buy-ticket" => misc::buy_ticket,
    "order-food" => misc::order_food,
    "terminal" => misc::terminal,
    "text-editor" => misc::text_editor,
    "social-media" => social::social_media,
    "social-media-all" => social::social_media_many,
    "social-media-some" => social::social_media_many,
}

/// Tasks without a solver, and why.
pub const UNSOLVED: &[(&str, &str)] = &[
    ("bisect-angle", "draw a line halving an angle drawn in SVG: needs vision and pointer coordinates"),
    ("chase-circle", "keep the pointer on a moving circle: needs vision and continuous pointer control"),
    ("circle-center", "click the centre of a drawn circle: needs vision and coordinates"),
    (
        "click-checkboxes-soft",
        "tick the words similar in meaning to the ones named: needs a thesaurus, which a scripted solver could only be handed as the answers",
    ),
    (
        "click-color",
        "colours are named in the instruction but shown only as box colours, which no snapshot carries: needs vision",
    ),
    ("click-shades", "shades told apart only by colour, which no snapshot carries: needs vision"),
    ("click-shape", "shapes told apart by size, colour and outline drawn in SVG: needs vision"),
    ("count-shape", "count drawn shapes by colour and outline: needs vision"),
    ("count-sides", "count the sides of a drawn polygon: needs vision"),
    ("daily-calendar", "an event is made by dragging across time slots at pointer coordinates"),
    ("drag-box", "drag a box into a drawn area: needs coordinates"),
    ("drag-circle", "drag a drawn circle onto a drawn target: needs vision and coordinates"),
    ("drag-cube", "turn a drawn cube by dragging until a face shows: needs vision"),
    ("drag-shapes", "shapes drawn in SVG, told apart by outline and colour: needs vision"),
    ("drag-shapes-2", "shapes drawn in SVG, told apart by outline and colour: needs vision"),
    ("drag-single-shape", "a drawn shape dragged in a direction by an amount: needs vision and coordinates"),
    ("draw-circle", "draw with the pointer: needs vision and coordinates"),
    ("draw-line", "draw with the pointer: needs vision and coordinates"),
    ("find-midpoint", "click between two drawn points: needs vision and coordinates"),
    ("grid-coordinate", "click a point of a drawn grid: needs coordinates (snapshots show only the axis labels)"),
    ("hot-cold", "search an area by moving the pointer and reading HOT or COLD: needs pointer coordinates"),
    ("hover-shape", "the page never ends an episode (its reward is left as a TODO in MiniWoB++ 1.1.0)"),
    ("moving-items", "click items while they move: needs vision and timing"),
    ("number-checkboxes", "draw a digit in a 4×7 grid of checkboxes: needs the task's own glyph patterns"),
    ("right-angle", "draw a right angle: needs vision and coordinates"),
    ("simon-says", "repeat a sequence shown by flashing buttons: the flashes are colour changes no snapshot shows"),
    ("tic-tac-toe", "the board is drawn in SVG with no text: needs vision"),
    ("use-colorwheel", "pick a colour on a wheel: needs vision and coordinates"),
    ("use-colorwheel-2", "pick a colour on a wheel: needs vision and coordinates"),
    ("visual-addition", "count drawn blocks: needs vision"),
];

// --- helpers every solver uses ----------------------------------------------------------------

/// The page as the episode starts (the harness changed it behind the server's back, so this is
/// always a fresh snapshot).
async fn start(a: &mut Agent<'_>) -> Step<Page> {
    a.snapshot().await
}

/// The instruction, or why there is none.
fn instruction(page: &Page) -> Step<String> {
    let text = page.instruction();
    if text.is_empty() { Err(Failure::not_shown("no instruction text")) } else { Ok(text) }
}

/// The element with `role` and `name`, or a failure naming what the page lacks.
fn need(page: &Page, role: &str, name: &str) -> Step<Node> {
    page.find(role, name).cloned().ok_or_else(|| Failure::not_shown(format!("no {role} \"{name}\" with a ref")))
}

/// Anything with a ref that reads `name`, whatever its role.
fn need_actionable(page: &Page, name: &str) -> Step<Node> {
    page.find_actionable(name)
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("nothing with a ref reads \"{name}\"")))
}

/// Clicks the button named `name` on `page`.
async fn button(a: &mut Agent<'_>, page: &Page, name: &str) -> Step {
    let target = need(page, "button", name)?;
    a.click(&target).await.map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_of_the_wheel_has_a_solver_or_a_reason() {
        for (task, why) in UNSOLVED {
            assert!(!SOLVED.contains(task), "{task} has a solver and a reason not to");
            assert!(!why.is_empty());
        }
        let mut all: Vec<&str> = SOLVED.iter().chain(UNSOLVED.iter().map(|(t, _)| t)).copied().collect();
        all.sort_unstable();
        let before = all.len();
        all.dedup();
        assert_eq!(before, all.len(), "a task is listed twice");
        assert_eq!(all.len(), 130, "MiniWoB++ 1.1.0 has 130 tasks");
        assert!(SOLVED.len() >= 100);
    }
}
