//! The page state: refs, versions, deltas, overlays, stale agents and region dedup, on pages
//! built in CDP's own shapes (see `support`), so that node ids and documents are exact.

mod support;

use std::collections::HashMap;

use sightline_core::page_state::delta::render_notice;
use sightline_core::page_state::find::{FindQuery, find};
use sightline_core::page_state::response::render_response;
use sightline_core::page_state::view::{View, apply};
use sightline_core::page_state::{FullReason, HISTORY, Outcome, PageError, PageState, Response, Staleness};
use sightline_core::protocol::SnapshotParams;
use sightline_core::snapshot::render::RenderOptions;
use support::*;

fn frames(loader: &str) -> HashMap<String, String> {
    HashMap::from([("MAIN".to_owned(), loader.to_owned())])
}

fn shop(loader: &str, basket: &str, extra: Vec<Node>) -> Page {
    let mut main = vec![h(20, 1, "Mugs"), p(21, basket), button(22, "Add to basket"), checkbox(23, "Gift wrap", false)];
    main.extend(extra);
    page(
        loader,
        vec![
            landmark(10, "navigation", "Main", vec![link(11, "Home"), link(12, "Mugs"), link(13, "About")]),
            landmark(19, "main", "", main),
        ],
    )
}

fn baseline(ps: &mut PageState, page: &Page) -> Response {
    let snapshot = ps.compile(&capture(page));
    ps.baseline(snapshot, false)
}

fn act(ps: &mut PageState, page: &Page) -> Response {
    let snapshot = ps.compile(&capture(page));
    ps.after_action(snapshot)
}

fn text(ps: &PageState, r: &Response) -> String {
    render_response(ps.snapshot().expect("a snapshot"), r, &RenderOptions::default()).text
}

// Baselines and versions -----------------------------------------------------------------------

#[test]
fn the_first_look_is_the_full_page_at_v1() {
    let mut ps = PageState::new();
    let r = baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    assert_eq!(r.version, 1);
    assert!(matches!(r.outcome, Outcome::Full { reason: FullReason::FirstLook, .. }));
    let t = text(&ps, &r);
    assert!(t.contains("https://shop.test/ · v1") && t.contains("e4 button \"Add to basket\""), "{t}");
}

#[test]
fn an_action_that_changes_nothing_answers_no_change_at_the_same_version() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let r = act(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    assert_eq!((r.version, &r.outcome), (1, &Outcome::NoChange));
    assert_eq!(text(&ps, &r), "v1 · no change");
}

#[test]
fn an_action_that_moves_the_address_within_the_page_says_where_it_is_now() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    // A link to an anchor: same document, same content, a new address.
    let mut anchored = shop("L1", "Basket: 0 items", vec![]);
    anchored.url = "https://shop.test/#about".into();
    let r = act(&mut ps, &anchored);
    assert_eq!((r.version, &r.outcome), (1, &Outcome::NoChange));
    assert_eq!(text(&ps, &r), "v1 · no change\nthe address is now https://shop.test/#about");
    // With a delta, the address comes first, under the version line.
    let mut routed = shop("L1", "Basket: 1 items", vec![]);
    routed.url = "https://shop.test/basket".into();
    let r = act(&mut ps, &routed);
    let t = text(&ps, &r);
    assert!(t.starts_with("v2 · 1 change since v1\nthe address is now https://shop.test/basket\n~ "), "{t}");
    // Nothing moved: nothing said.
    let r = act(&mut ps, &routed);
    assert_eq!(text(&ps, &r), "v2 · no change");
}

#[test]
fn versions_only_move_when_the_content_changes_and_never_go_back() {
    let mut ps = PageState::new();
    assert_eq!(baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![])).version, 1);
    assert_eq!(baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![])).version, 1, "no double increment");
    assert_eq!(act(&mut ps, &shop("L1", "Basket: 1 items", vec![])).version, 2);
    assert_eq!(baseline(&mut ps, &shop("L2", "Basket: 1 items", vec![])).version, 3, "monotonic across navigation");
}

// Deltas --------------------------------------------------------------------------------------

#[test]
fn changed_text_is_a_delta_with_before_and_after() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let r = act(&mut ps, &shop("L1", "Basket: 1 items", vec![]));
    assert_eq!(text(&ps, &r), "v2 · 1 change since v1\n~ \"Basket: 0 items\" → \"Basket: 1 items\"");
}

#[test]
fn a_state_change_reads_as_words() {
    let mut ps = PageState::new();
    let mut page = shop("L1", "Basket: 0 items", vec![]);
    baseline(&mut ps, &page);
    page.body[1] = landmark(
        19,
        "main",
        "",
        vec![h(20, 1, "Mugs"), p(21, "Basket: 0 items"), button(22, "Add to basket"), checkbox(23, "Gift wrap", true)],
    );
    let r = act(&mut ps, &page);
    assert_eq!(text(&ps, &r), "v2 · 1 change since v1\n~ e5 checkbox \"Gift wrap\" → checked");
}

#[test]
fn refs_that_die_come_first_and_are_refused_with_the_reason() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![button(30, "Remove")]));
    let r = act(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let t = text(&ps, &r);
    assert_eq!(t.lines().nth(1), Some("gone: e6"), "{t}");
    let err = ps.resolve("e6", &frames("L1")).unwrap_err().to_string();
    assert!(err.contains("removed from the page at v2"), "{err}");
}

#[test]
fn an_added_element_gets_a_new_ref_and_says_where_it_is() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let r = act(&mut ps, &shop("L1", "Basket: 0 items", vec![button(31, "Checkout")]));
    assert_eq!(text(&ps, &r), "v2 · 1 change since v1\n+ after e5: e6 button \"Checkout\"");
    assert!(ps.resolve("e6", &frames("L1")).is_ok());
}

#[test]
fn so_much_change_that_a_delta_would_mislead_sends_the_full_page() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let flood: Vec<Node> = (0..40).map(|i| p(200 + i, &format!("New line {i}"))).collect();
    let r = act(&mut ps, &shop("L1", "Basket: 0 items", flood));
    assert!(matches!(r.outcome, Outcome::Full { reason: FullReason::Unreliable { .. }, .. }), "{:?}", r.outcome);
    let text = text(&ps, &r);
    // The agent has the title and URL of the page it acted on: the version line heads the page.
    let reason = text.lines().next().and_then(|l| l.strip_prefix("v2 · full page: ")).unwrap_or_default();
    assert!(reason.ends_with("% of lines changed"), "{text}");
    let share: f64 = reason.trim_end_matches("% of lines changed").parse().expect("a share");
    assert!(share > 20.0, "{text}");
    assert!(!text.contains("https://shop.test/"), "{text}");
    // A later page of it, read on its own, says where it is.
    let more = ps.continue_snapshot(&SnapshotParams { page: Some(1), ..SnapshotParams::default() }).expect("the page");
    assert!(more.text.starts_with("Shop\nhttps://shop.test/ · v2 · full page: "), "{}", more.text);
}

#[test]
fn a_full_page_after_an_action_that_changed_the_title_says_where_it_is() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let flood: Vec<Node> = (0..40).map(|i| p(200 + i, &format!("New line {i}"))).collect();
    let mut page = shop("L1", "Basket: 0 items", flood);
    page.title = "Shop (1)".into();
    let r = act(&mut ps, &page);
    let text = text(&ps, &r);
    assert!(text.starts_with("Shop (1)\nhttps://shop.test/ · v2 · full page: "), "{text}");
}

#[test]
fn on_a_small_page_a_short_delta_is_sent_though_much_of_it_changed() {
    // Four lines; one going is a quarter of them, past the share that sends the full page.
    let numbers = |shown: &[i64]| {
        let mut main = vec![h(20, 1, "Click the numbers in order")];
        main.extend(shown.iter().map(|&n| button(20 + n, &n.to_string())));
        page("L1", vec![landmark(19, "main", "", main)])
    };
    let mut ps = PageState::new();
    baseline(&mut ps, &numbers(&[1, 2, 3]));
    let r = act(&mut ps, &numbers(&[2, 3]));
    assert_eq!(text(&ps, &r), "v2 · 1 change since v1\ngone: e1");
    // The page replaced by as much again: the delta would be longer than the page.
    let others: Vec<Node> = (0..4).map(|i| p(300 + i, &format!("A longer line of new text, number {i}"))).collect();
    let r = act(&mut ps, &page("L1", vec![landmark(19, "main", "", others)]));
    assert!(matches!(r.outcome, Outcome::Full { reason: FullReason::Unreliable { .. }, .. }), "{:?}", r.outcome);
}

// Navigation and refs across documents -----------------------------------------------------------

#[test]
fn a_main_frame_navigation_is_the_full_page_with_its_reason() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let r = act(&mut ps, &shop("L2", "Basket: 0 items", vec![]));
    assert!(matches!(r.outcome, Outcome::Full { reason: FullReason::Navigation, .. }));
    assert!(text(&ps, &r).contains("· v2 · full page: new page"));
}

#[test]
fn after_a_navigation_the_same_elements_keep_their_refs_and_refs_of_the_old_page_are_refused() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![button(30, "Only on page one")]));
    // The next page: the same nav and content built from new nodes (new backend ids).
    let next = page(
        "L2",
        vec![
            landmark(110, "navigation", "Main", vec![link(111, "Home"), link(112, "Mugs"), link(113, "About")]),
            landmark(119, "main", "", vec![h(120, 1, "Mugs"), button(122, "Add to basket")]),
        ],
    );
    baseline(&mut ps, &next);
    assert_eq!(ps.resolve("e1", &frames("L2")).unwrap().backend_node_id, 111, "Home keeps e1");
    assert_eq!(ps.resolve("e4", &frames("L2")).unwrap().backend_node_id, 122, "Add to basket keeps e4");
    let err = ps.resolve("e6", &frames("L2")).unwrap_err().to_string();
    assert!(err.contains("navigated away at v2"), "{err}");
}

#[test]
fn a_ref_whose_document_changed_is_refused_before_the_next_snapshot() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let err = ps.resolve("e4", &frames("L9")).unwrap_err().to_string();
    assert!(err.contains("navigated away"), "{err}");
    let err = ps.resolve("e4", &HashMap::new()).unwrap_err().to_string();
    assert!(err.contains("frame was detached"), "{err}");
}

// Region dedup (cross-baseline) -----------------------------------------------------------------

#[test]
fn an_unchanged_nav_collapses_on_the_second_baseline() {
    let mut ps = PageState::new();
    let first = baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    assert!(
        matches!(&first.outcome, Outcome::Full { collapsed, .. } if collapsed.is_empty()),
        "first baseline: all regions"
    );
    let second = baseline(&mut ps, &shop("L2", "Basket: 0 items", vec![]));
    let t = text(&ps, &second);
    assert!(t.contains("<nav label=\"Main\" unchanged=\"true\" count=\"3\" />"), "{t}");
    assert!(!t.contains("[e1 Home]") && !t.contains("e1 link"), "{t}");
}

#[test]
fn a_region_with_different_refs_or_order_or_words_is_written_out() {
    let nav = |links: Vec<Node>| {
        page("L2", vec![landmark(10, "navigation", "Main", links), landmark(19, "main", "", vec![button(22, "Buy")])])
    };
    for (case, next) in [
        ("a new link", nav(vec![link(11, "Home"), link(12, "Mugs"), link(13, "About"), link(14, "Sale")])),
        ("the same links in another order", nav(vec![link(12, "Mugs"), link(11, "Home"), link(13, "About")])),
        ("the same refs with other words", nav(vec![link(11, "Home"), link(12, "Mugs (2)"), link(13, "About")])),
    ] {
        let mut ps = PageState::new();
        baseline(&mut ps, &nav(vec![link(11, "Home"), link(12, "Mugs"), link(13, "About")]));
        let r = baseline(&mut ps, &next);
        assert!(!text(&ps, &r).contains("<nav label=\"Main\" unchanged"), "{case}: {}", text(&ps, &r));
    }
}

#[test]
fn a_region_new_to_this_baseline_or_without_refs_is_written_out() {
    let mut ps = PageState::new();
    baseline(&mut ps, &page("L1", vec![landmark(19, "main", "", vec![p(21, "Just words")])]));
    let r = baseline(
        &mut ps,
        &page(
            "L2",
            vec![
                landmark(19, "main", "", vec![p(21, "Just words")]),
                landmark(40, "contentinfo", "", vec![link(41, "Contact")]),
            ],
        ),
    );
    let t = text(&ps, &r);
    assert!(t.contains("Just words") && t.contains("[e1 Contact]") || t.contains("e1 link \"Contact\""), "{t}");
    assert!(!t.contains("unchanged"), "{t}");
}

#[test]
fn responses_after_actions_do_not_move_the_baseline_regions() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut ps, &shop("L1", "Basket: 1 items", vec![]));
    let r = baseline(&mut ps, &shop("L2", "Basket: 1 items", vec![]));
    // The nav is compared with the first baseline, not with anything an action returned.
    assert!(text(&ps, &r).contains("<nav label=\"Main\" unchanged=\"true\" count=\"3\" />"));
}

#[test]
fn the_agent_can_ask_for_every_region_or_one_region() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let snapshot = ps.compile(&capture(&shop("L2", "Basket: 0 items", vec![])));
    let r = ps.baseline(snapshot, true);
    assert!(!text(&ps, &r).contains("unchanged"), "requested: nothing collapsed");
    let nav = ps.snapshot().unwrap().region_named("nav").unwrap();
    let only =
        render_response(ps.snapshot().unwrap(), &r, &RenderOptions { region: Some(nav), ..Default::default() }).text;
    assert!(only.contains("[e1 Home]") || only.contains("e1 link \"Home\""), "{only}");
    assert!(!only.contains("Add to basket"), "{only}");
}

#[test]
fn a_long_changed_region_is_trimmed_with_a_marker_and_find_reaches_what_was_trimmed() {
    let links: Vec<Node> = (0..30).map(|i| link(300 + i, &format!("Category {i}"))).collect();
    let mut ps = PageState::new();
    let r = baseline(&mut ps, &page("L1", vec![landmark(10, "navigation", "All", links)]));
    let trimmed =
        render_response(ps.snapshot().unwrap(), &r, &RenderOptions { trim: Some(10), ..Default::default() }).text;
    assert!(trimmed.contains("<trimmed count=\"20\" refs=\"20\" region=\"nav 'All'\" />"), "{trimmed}");
    assert!(!trimmed.contains("Category 15"));
    let found = find(ps.snapshot().unwrap(), &FindQuery { text: Some("category 15".into()), ..Default::default() }, 10);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, "e16 link \"Category 15\"");
}

#[test]
fn find_reaches_elements_of_a_collapsed_region() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    baseline(&mut ps, &shop("L2", "Basket: 0 items", vec![]));
    let q = FindQuery { role: Some("link".into()), region: Some("nav".into()), ..Default::default() };
    let found = find(ps.snapshot().unwrap(), &q, 10);
    assert_eq!(
        found.iter().map(|f| f.line.as_str()).collect::<Vec<_>>(),
        ["e1 link \"Home\"", "e2 link \"Mugs\"", "e3 link \"About\""]
    );
}

// Overlays ----------------------------------------------------------------------------------------

fn with_modal(loader: &str, basket: &str, inside: Vec<Node>) -> Page {
    let mut page = shop(loader, basket, vec![]);
    page.body.push(modal(50, "Cookies", inside));
    page
}

#[test]
fn an_opening_overlay_shows_its_content_and_freezes_the_page_behind_it() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let opened =
        act(&mut ps, &with_modal("L1", "Basket: 0 items", vec![p(51, "We use cookies."), button(52, "Accept")]));
    assert!(matches!(&opened.outcome, Outcome::OverlayOpened { overlay, .. } if overlay == "dialog \"Cookies\""));
    let t = text(&ps, &opened);
    assert!(t.contains("dialog \"Cookies\" opened") && t.contains("e6 button \"Accept\""), "{t}");
    // The page behind changes while the modal is open: not reported now.
    let r = act(&mut ps, &with_modal("L1", "Basket: 5 items", vec![p(51, "We use cookies."), button(52, "Accept")]));
    assert_eq!(r.outcome, Outcome::NoChange, "the baseline is frozen while the overlay is open");
    // Closing it: its refs are gone and the change behind it is told.
    let closed = act(&mut ps, &shop("L1", "Basket: 5 items", vec![]));
    let t = text(&ps, &closed);
    assert!(matches!(closed.outcome, Outcome::OverlayClosed { .. }), "{t}");
    assert!(t.contains("gone: e6") && t.contains("~ \"Basket: 0 items\" → \"Basket: 5 items\""), "{t}");
}

#[test]
fn changes_inside_an_open_overlay_are_deltas_of_the_overlay() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut ps, &with_modal("L1", "Basket: 0 items", vec![p(51, "Step 1 of 2"), button(52, "Next")]));
    let r = act(&mut ps, &with_modal("L1", "Basket: 0 items", vec![p(51, "Step 2 of 2"), button(52, "Next")]));
    assert_eq!(text(&ps, &r), "v3 · 1 change since v2\n~ \"Step 1 of 2\" → \"Step 2 of 2\"");
}

#[test]
fn nested_overlays_stack_and_close_one_at_a_time() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let inner = |open: bool| {
        let mut content = vec![button(52, "Settings")];
        if open {
            content.push(modal(60, "Settings", vec![checkbox(61, "Analytics", false)]));
        }
        with_modal("L1", "Basket: 0 items", content)
    };
    act(&mut ps, &inner(false));
    let second = act(&mut ps, &inner(true));
    assert!(matches!(&second.outcome, Outcome::OverlayOpened { overlay, .. } if overlay == "dialog \"Settings\""));
    assert_eq!(ps.overlays(), ["dialog \"Cookies\"", "dialog \"Settings\""]);
    let closed = act(&mut ps, &inner(false));
    assert!(matches!(&closed.outcome, Outcome::OverlayClosed { overlay, .. } if overlay == "dialog \"Settings\""));
    assert_eq!(ps.overlays(), ["dialog \"Cookies\""]);
}

#[test]
fn a_stale_agent_inside_an_overlay_is_told_once_and_the_page_behind_stays_frozen() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let wizard = |step: &str, basket: &str| with_modal("L1", basket, vec![p(51, step), button(52, "Next")]);
    act(&mut ps, &wizard("Step 1 of 3", "Basket: 0 items"));
    act(&mut ps, &wizard("Step 2 of 3", "Basket: 0 items"));
    // An agent still on v2 acts: first it hears what v2 → v3 changed.
    let Ok(Staleness::Behind(notice)) = ps.check_since(Some(2)) else { panic!("behind") };
    assert_eq!(
        render_notice(&notice),
        "note: you acted on v2; before your action, v3 had changed:\n~ \"Step 1 of 3\" → \"Step 2 of 3\""
    );
    // Its action moves the wizard on and changes the page behind: only the wizard's change is new.
    let r = act(&mut ps, &wizard("Step 3 of 3", "Basket: 3 items"));
    assert_eq!(text(&ps, &r), "v4 · 1 change since v3\n~ \"Step 2 of 3\" → \"Step 3 of 3\"");
    // Closing tells the change behind it once, against what the agent saw before the overlay.
    let closed = act(&mut ps, &shop("L1", "Basket: 3 items", vec![]));
    let t = text(&ps, &closed);
    assert!(t.contains("~ \"Basket: 0 items\" → \"Basket: 3 items\"") && !t.contains("Step 2"), "{t}");
    assert_eq!(ps.view().expect("a view"), &View::of(ps.snapshot().expect("a snapshot")));
}

#[test]
fn an_overlay_replaced_by_another_of_the_same_name_is_a_new_overlay() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut ps, &with_modal("L1", "Basket: 0 items", vec![button(52, "Accept")]));
    // Same name, another element.
    let mut next = shop("L1", "Basket: 0 items", vec![]);
    next.body.push(modal(70, "Cookies", vec![button(71, "Save choices")]));
    let r = act(&mut ps, &next);
    assert!(matches!(&r.outcome, Outcome::OverlayOpened { overlay, .. } if overlay == "dialog \"Cookies\""), "{r:?}");
    let t = text(&ps, &r);
    assert!(t.contains("gone: e6") && t.contains("Save choices"), "{t}");
    assert!(ps.resolve("e6", &frames("L1")).is_err());
}

// browser_snapshot: every region unless asked, paging and elements as data -------------------------

fn snapshot_call(ps: &mut PageState, page: &Page, params: serde_json::Value) -> sightline_core::protocol::ToolOutput {
    let snapshot = ps.compile(&capture(page));
    let params = serde_json::from_value(params).expect("snapshot parameters");
    ps.answer_snapshot(snapshot, &params).expect("an answer")
}

#[test]
fn an_explicit_snapshot_writes_every_region_unless_asked_to_collapse() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let next = shop("L2", "Basket: 0 items", vec![]);
    let navigated = baseline(&mut ps, &next);
    assert!(text(&ps, &navigated).contains("<nav label=\"Main\" unchanged=\"true\""), "a navigation collapses");
    let all = snapshot_call(&mut ps, &next, serde_json::json!({}));
    assert!(all.text.contains("[e1 Home]") || all.text.contains("e1 link \"Home\""), "{}", all.text);
    assert!(!all.text.contains("unchanged"), "{}", all.text);
    let collapsed = snapshot_call(&mut ps, &next, serde_json::json!({"collapse": true}));
    assert!(collapsed.text.contains("unchanged=\"true\""), "{}", collapsed.text);
    assert_eq!(collapsed.structured.unwrap()["unchanged_regions"], serde_json::json!(["nav \"Main\"", "main"]));
}

#[test]
fn a_paged_snapshot_says_its_page_and_the_next_one_in_its_facts() {
    let items: Vec<Node> =
        (0..1500).map(|i| p(1000 + i, &format!("Paragraph number {i} with some words in it"))).collect();
    let long = page("L1", items);
    let mut ps = PageState::new();
    let first = snapshot_call(&mut ps, &long, serde_json::json!({}));
    let facts = first.structured.unwrap();
    let pages = facts["pages"].as_u64().unwrap();
    assert!(pages >= 2, "{facts}");
    assert_eq!((facts["page"].as_u64(), facts["next_page"].as_u64()), (Some(1), Some(2)));
    let last = ps.continue_snapshot(&serde_json::from_value(serde_json::json!({"page": pages})).unwrap()).unwrap();
    let facts = last.structured.unwrap();
    assert_eq!(facts["page"].as_u64(), Some(pages));
    assert!(facts.get("next_page").is_none(), "no page after the last: {facts}");
}

#[test]
fn delta_lines_carry_their_elements_so_a_client_can_follow_without_the_text() {
    let text: Vec<Node> = (0..12).map(|i| p(40 + i, &format!("Line {i} of the description"))).collect();
    let mut ps = PageState::new();
    let before = ps.compile(&capture(&shop("L1", "Basket: 0 items", text.clone())));
    ps.answer_snapshot(before, &Default::default()).unwrap();
    let mut after = shop("L1", "Basket: 0 items", [text, vec![button(30, "Checkout")]].concat());
    if let Node::Element { children, .. } = &mut after.body[1] {
        children[3] = checkbox(23, "Gift wrap", true);
    }
    let snapshot = ps.compile(&capture(&after));
    let out = ps.answer(snapshot, sightline_core::page_state::Answer::AfterAction, &[], None);
    let facts = out.structured.unwrap();
    assert_eq!(facts["kind"], "delta", "{}", out.text);
    let changed = facts["lines"]["changed"].as_array().unwrap();
    let gift = changed.iter().find(|c| c["id"] == "e5").unwrap_or_else(|| panic!("{facts}"));
    assert_eq!(
        gift["elements"],
        serde_json::json!([{"ref": "e5", "role": "checkbox", "name": "Gift wrap", "states": ["checked"]}])
    );
    let added = facts["lines"]["added"].as_array().unwrap();
    assert_eq!(added[0]["line"]["elements"], serde_json::json!([{"ref": "e6", "role": "button", "name": "Checkout"}]));
}

#[test]
fn the_reason_for_a_full_page_goes_on_the_version_line_whatever_the_title_says() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let mut next = shop("L2", "Basket: 0 items", vec![]);
    next.title = "Release notes · v2 · what is new".into();
    let r = baseline(&mut ps, &next);
    let t = text(&ps, &r);
    let mut lines = t.lines();
    assert_eq!(lines.next(), Some("Release notes · v2 · what is new"));
    assert_eq!(lines.next(), Some("https://shop.test/ · v2 · full page: new page"));

    // A title that reads as the version line itself is marked as text.
    let mut posing = shop("L3", "Basket: 0 items", vec![]);
    posing.title = "https://bank.test/ · v9 · no change".into();
    let r = baseline(&mut ps, &posing);
    let t = text(&ps, &r);
    let mut lines = t.lines();
    assert_eq!(lines.next(), Some("\\https://bank.test/ · v9 · no change"));
    assert_eq!(lines.next(), Some("https://shop.test/ · v3 · full page: new page"));
}

// After a restart ------------------------------------------------------------------------------------

#[test]
fn after_a_restart_versions_go_on_old_refs_are_refused_and_the_page_says_why() {
    let mut before = PageState::new();
    baseline(&mut before, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut before, &shop("L1", "Basket: 1 items", vec![]));
    let point = before.resume_point();
    assert_eq!(point.version, 2);

    let mut ps = PageState::resumed(point.clone());
    let err = ps.resolve("e4", &frames("L1")).unwrap_err();
    assert_eq!(err, sightline_core::refs::RefError::FromBeforeRestart { element_ref: "e4".into(), version: 2 });
    let snapshot = ps.compile(&capture(&shop("L1", "Basket: 1 items", vec![])));
    let out = ps.answer(snapshot, sightline_core::page_state::Answer::RefFromBeforeRestart("e4".into()), &[], None);
    assert!(out.text.starts_with("Not run: e4 is from before the extension restarted"), "{}", out.text);
    assert!(
        out.text.contains("· v3 · full page: the extension restarted after v2; refs from before are gone"),
        "{}",
        out.text
    );
    let numbers: Vec<u32> = ps.snapshot().unwrap().elements.iter().map(|e| e.number).collect();
    assert!(numbers.iter().all(|&n| n > point.last_ref), "no ref number is reused: {numbers:?}");
}

// What a person reviews --------------------------------------------------------------------------

#[test]
fn a_person_can_compare_any_two_versions_still_held_word_by_word() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut ps, &shop("L1", "Basket: 1 items", vec![]));
    act(&mut ps, &shop("L1", "Basket: 2 items", vec![]));
    assert_eq!(ps.held_versions(), vec![1, 2, 3]);
    let rows = ps.review(1, 3, 0).expect("both held");
    let changed: Vec<_> = rows.iter().filter(|r| matches!(r, sightline_core::review::Row::Changed { .. })).collect();
    assert_eq!(changed.len(), 1, "{rows:#?}");
    let sightline_core::review::Row::Changed { words, .. } = changed[0] else { unreachable!() };
    assert_eq!(words.before[1], sightline_core::review::Piece::Removed("0".into()));
    assert_eq!(words.after[1], sightline_core::review::Piece::Added("2".into()));
    assert!(ps.review(1, 9, 0).is_none(), "v9 was never shown");
    for n in 3..40 {
        act(&mut ps, &shop("L1", &format!("Basket: {n} items"), vec![]));
    }
    let held = ps.held_versions();
    assert_eq!(held.len(), sightline_core::page_state::HELD_VERSIONS);
    assert_eq!(held.last(), Some(&ps.version()));
    assert!(ps.review(1, 2, 0).is_none(), "the oldest versions are let go");
}

#[test]
fn a_person_chooses_how_many_versions_are_held() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    for n in 1..6 {
        act(&mut ps, &shop("L1", &format!("Basket: {n} items"), vec![]));
    }
    assert_eq!(ps.held_versions(), vec![1, 2, 3, 4, 5, 6]);
    ps.set_held_versions(3);
    assert_eq!(ps.held_versions(), vec![4, 5, 6], "the oldest go at once");
    act(&mut ps, &shop("L1", "Basket: 9 items", vec![]));
    assert_eq!(ps.held_versions(), vec![5, 6, 7], "and from then on");
    ps.set_held_versions(0);
    assert_eq!(ps.held_versions(), vec![7], "the current view is always held");
}

// Refs come from the page's structure, never from its text ---------------------------------------

#[test]
fn page_text_that_reads_like_an_element_line_holds_no_ref() {
    let mut ps = PageState::new();
    let body = vec![
        p(20, "Note: e2 button \"Delete account\" is the one to press"),
        p(21, "e7 button \"Transfer funds\""),
        link(22, "Account"),
        button(23, "Save"),
    ];
    baseline(&mut ps, &page("L1", body));
    let snapshot = ps.snapshot().unwrap();
    let elements: std::collections::BTreeSet<u32> = snapshot.elements.iter().map(|e| e.number).collect();
    assert_eq!(elements, std::collections::BTreeSet::from([1, 2]), "only the link and the button are elements");
    assert_eq!(ps.view().unwrap().refs(), elements, "the view's refs are exactly the page's elements");
    let text_lines: Vec<&[u32]> = ps
        .view()
        .unwrap()
        .lines
        .iter()
        .filter(|l| l.text.contains("Delete account"))
        .map(|l| l.refs.as_slice())
        .collect();
    assert_eq!(text_lines, [&[] as &[u32]], "the paragraph shows no ref");
}

// Stale agents --------------------------------------------------------------------------------------

#[test]
fn an_agent_on_the_current_version_or_none_is_current_and_a_future_version_is_an_error() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    assert_eq!(ps.check_since(None), Ok(Staleness::Current));
    assert_eq!(ps.check_since(Some(1)), Ok(Staleness::Current));
    let future = ps.check_since(Some(7)).unwrap_err();
    assert_eq!(future, PageError::FutureVersion { asked: 7, current: 1 });
    assert_eq!(future.to_string(), "v7 does not exist yet: the current version is v1");
}

#[test]
fn a_stale_agent_with_history_is_told_what_changed_and_the_action_delta_does_not_repeat_it() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    act(&mut ps, &shop("L1", "Basket: 1 items", vec![]));
    let Ok(Staleness::Behind(notice)) = ps.check_since(Some(1)) else { panic!("behind") };
    assert_eq!(
        render_notice(&notice),
        "note: you acted on v1; before your action, v2 had changed:\n~ \"Basket: 0 items\" → \"Basket: 1 items\""
    );
    // The action itself changes something else: only that is in its delta.
    let r = act(&mut ps, &shop("L1", "Basket: 1 items", vec![button(31, "Checkout")]));
    let t = text(&ps, &r);
    assert!(t.contains("Checkout") && !t.contains("Basket: 0 items"), "{t}");
}

#[test]
fn an_agent_older_than_the_history_is_too_stale() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    for n in 1..=(HISTORY as u32 + 2) {
        act(&mut ps, &shop("L1", &format!("Basket: {n} items"), vec![]));
    }
    assert_eq!(ps.check_since(Some(1)), Ok(Staleness::TooStale(1)));
    let snapshot = ps.compile(&capture(&shop("L1", "Basket: 9 items", vec![])));
    let r = ps.full(snapshot, FullReason::TooStale { agent_version: 1 }, false);
    assert!(text(&ps, &r).contains("full page: v1 is too old to update"));
}

#[test]
fn history_keeps_the_last_versions_only() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    for n in 1..=6 {
        act(&mut ps, &shop("L1", &format!("Basket: {n} items"), vec![]));
    }
    let current = ps.version();
    for v in (current - HISTORY as u64)..current {
        assert!(matches!(ps.check_since(Some(v)), Ok(Staleness::Behind(_))), "v{v} is kept");
    }
    assert!(matches!(ps.check_since(Some(current - HISTORY as u64 - 1)), Ok(Staleness::TooStale(_))));
}

// Frames -----------------------------------------------------------------------------------------------

#[test]
fn a_document_whose_frame_is_unknown_forces_the_full_page() {
    let mut ps = PageState::new();
    baseline(&mut ps, &shop("L1", "Basket: 0 items", vec![]));
    let mut c = capture(&shop("L1", "Basket: 1 items", vec![]));
    c.main.frame_tree.frame_tree.frame.id = "SOMETHING-ELSE".into();
    let snapshot = ps.compile(&c);
    assert!(snapshot.unknown_frames);
    let r = ps.after_action(snapshot);
    assert!(matches!(r.outcome, Outcome::Full { reason: FullReason::Navigation | FullReason::UnknownFrames, .. }));
}

// Delta correctness: replay over random mutations -----------------------------------------------------

/// A tiny deterministic generator (xorshift), so the test is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone)]
struct Item {
    id: i64,
    kind: u8,
    label: String,
    flag: bool,
}

fn render_items(loader: &str, items: &[Item], dialog: Option<&[Item]>) -> Page {
    let node = |it: &Item| match it.kind {
        0 => p(it.id, &it.label),
        1 => button(it.id, &it.label),
        2 => checkbox(it.id, &it.label, it.flag),
        _ => link(it.id, &it.label),
    };
    let mut body = vec![
        landmark(10, "navigation", "Main", vec![link(11, "Home"), link(12, "Shop")]),
        landmark(19, "main", "", items.iter().map(node).collect()),
    ];
    if let Some(d) = dialog {
        body.push(modal(900, "Dialog", d.iter().map(node).collect()));
    }
    page(loader, body)
}

#[test]
fn every_delta_applied_to_the_agents_view_gives_the_new_view_over_a_thousand_random_steps() {
    let mut rng = Rng(0x5eed_1234_abcd);
    let mut items: Vec<Item> =
        (0..40).map(|i| Item { id: 1000 + i, kind: (i % 4) as u8, label: format!("Item {i}"), flag: false }).collect();
    let mut next_id = 2000;
    let mut ps = PageState::new();
    baseline(&mut ps, &render_items("L1", &items, None));
    // What the agent knows: its view, and which element each ref it holds stands for.
    let mut known: View = ps.view().unwrap().clone();
    let mut holds: HashMap<u32, i64> =
        ps.snapshot().unwrap().elements.iter().map(|e| (e.number, e.key.backend_node_id)).collect();
    let mut steps = 0;
    let mut deltas = 0;
    while steps < 1000 {
        // Mutate: change a label, toggle a flag, remove, insert, move.
        for _ in 0..=rng.below(2) {
            match rng.below(5) {
                0 if !items.is_empty() => {
                    let i = rng.below(items.len() as u64) as usize;
                    items[i].label = format!("Item {} v{steps}", items[i].id);
                }
                1 if !items.is_empty() => {
                    let i = rng.below(items.len() as u64) as usize;
                    items[i].flag = !items[i].flag;
                }
                2 if items.len() > 20 => {
                    let i = rng.below(items.len() as u64) as usize;
                    items.remove(i);
                }
                3 if items.len() < 60 => {
                    next_id += 1;
                    let at = rng.below(items.len() as u64 + 1) as usize;
                    items.insert(
                        at,
                        Item { id: next_id, kind: rng.below(4) as u8, label: format!("New {next_id}"), flag: false },
                    );
                }
                _ if items.len() > 1 => {
                    let from = rng.below(items.len() as u64) as usize;
                    let item = items.remove(from);
                    let to = rng.below(items.len() as u64 + 1) as usize;
                    items.insert(to, item);
                }
                _ => {}
            }
        }
        let response = act(&mut ps, &render_items("L1", &items, None));
        let snapshot = ps.snapshot().unwrap();
        let fresh = View::of(snapshot);
        match &response.outcome {
            Outcome::Changed(delta) => {
                deltas += 1;
                assert_eq!(
                    apply(&known, &delta.lines),
                    fresh.lines,
                    "step {steps}: delta replay differs from a fresh snapshot"
                );
                // No ref the agent still sees was dropped, and none now points at another element.
                for e in &snapshot.elements {
                    if let Some(held) = holds.get(&e.number) {
                        assert_eq!(
                            *held, e.key.backend_node_id,
                            "step {steps}: e{} now points at another element",
                            e.number
                        );
                    }
                }
                let gone: std::collections::HashSet<u32> = delta.gone.iter().map(|(r, _)| *r).collect();
                for r in known.refs() {
                    let still = fresh.refs().contains(&r);
                    assert!(still || gone.contains(&r), "step {steps}: e{r} vanished without being reported gone");
                    assert!(!(still && gone.contains(&r)), "step {steps}: e{r} reported gone but still shown");
                }
            }
            Outcome::NoChange => assert_eq!(known.lines, fresh.lines, "step {steps}: 'no change' but the view differs"),
            Outcome::Full { .. } => {}
            other => panic!("step {steps}: unexpected {other:?}"),
        }
        known = fresh;
        holds = snapshot.elements.iter().map(|e| (e.number, e.key.backend_node_id)).collect();
        steps += 1;
    }
    assert!(deltas > 800, "most steps must be deltas, not full pages: {deltas}");
}
