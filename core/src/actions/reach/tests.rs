//! The click's decisions, fed the facts each kind of page produces: a clear target, a sticky
//! header, an overlay that stays, a frame laid over the target, a target that left the page, and
//! hovers that move, empty or take away the target.

use super::*;

const AT: Point = (120.0, 80.0);
const CENTRED: Point = (400.0, 300.0);

fn seen(at: Point, hit: Hit) -> Sight {
    Sight::Seen { at, hit }
}

fn other(what: &str) -> Hit {
    Hit::Other(what.to_owned())
}

fn refused(problem: ElementProblem) -> ApproachStep {
    ApproachStep::Refuse(Refusal::Element(problem))
}

#[test]
fn a_target_under_its_centre_is_clicked_there() {
    let (mut approach, first) = Approach::new(false);
    assert_eq!(first, ApproachStep::ScrollIntoView);
    assert_eq!(approach.saw(seen(AT, Hit::Target)), ApproachStep::Reached(AT));
}

#[test]
fn a_cover_that_scrolling_to_the_centre_clears_is_tried_once_more() {
    let (mut approach, _) = Approach::new(false);
    assert_eq!(approach.saw(seen(AT, other("<header id=\"bar\">"))), ApproachStep::ScrollToCentre);
    assert_eq!(approach.saw(seen(CENTRED, Hit::Target)), ApproachStep::Reached(CENTRED));
}

#[test]
fn a_cover_still_there_once_centred_is_named_in_the_refusal() {
    let (mut approach, _) = Approach::new(false);
    assert_eq!(approach.saw(seen(AT, other("<div id=\"shield\">"))), ApproachStep::ScrollToCentre);
    assert_eq!(
        approach.saw(seen(CENTRED, other("<div id=\"veil\">"))),
        refused(ElementProblem::Covered { by: "<div id=\"veil\">".into() })
    );
}

#[test]
fn a_frame_over_the_target_is_refused_at_once() {
    let (mut approach, _) = Approach::new(false);
    let frame = Hit::Frame("<iframe id=\"pay\"> of https://evil.example".into());
    assert_eq!(
        approach.saw(seen(AT, frame)),
        refused(ElementProblem::OtherFrame { what: "<iframe id=\"pay\"> of https://evil.example".into() })
    );
}

#[test]
fn a_frame_found_after_centring_is_refused_as_a_frame() {
    let (mut approach, _) = Approach::new(false);
    approach.saw(seen(AT, other("<header>")));
    assert_eq!(
        approach.saw(seen(CENTRED, Hit::Frame("<iframe>".into()))),
        refused(ElementProblem::OtherFrame { what: "<iframe>".into() })
    );
}

#[test]
fn a_target_without_a_box_is_refused_as_hidden_while_in_its_document() {
    let (mut approach, _) = Approach::new(false);
    assert_eq!(approach.saw(Sight::NoBox), ApproachStep::CheckAttached);
    assert_eq!(approach.attached(true), refused(ElementProblem::NoBox));
}

#[test]
fn a_target_without_a_box_that_left_its_document_is_a_stale_ref() {
    let (mut approach, _) = Approach::new(false);
    assert_eq!(approach.saw(Sight::NoBox), ApproachStep::CheckAttached);
    assert_eq!(approach.attached(false), ApproachStep::Refuse(Refusal::Stale));
}

#[test]
fn a_target_in_another_sites_frame_must_also_be_reached_from_the_top_page() {
    let (mut approach, _) = Approach::new(true);
    assert_eq!(approach.saw(seen(AT, Hit::Target)), ApproachStep::LookFromTopPage(AT));
    assert_eq!(approach.top_page(Hit::Target), ApproachStep::Reached(AT));
}

#[test]
fn the_top_page_covering_a_frame_gets_the_centring_then_the_refusal() {
    let (mut approach, _) = Approach::new(true);
    approach.saw(seen(AT, Hit::Target));
    assert_eq!(approach.top_page(other("<div id=\"over\">")), ApproachStep::ScrollToCentre);
    assert_eq!(approach.saw(seen(CENTRED, Hit::Target)), ApproachStep::LookFromTopPage(CENTRED));
    assert_eq!(
        approach.top_page(other("<div id=\"over\">")),
        refused(ElementProblem::Covered { by: "<div id=\"over\">".into() })
    );
}

#[test]
fn another_frame_over_a_frame_in_the_top_page_is_refused_at_once() {
    let (mut approach, _) = Approach::new(true);
    approach.saw(seen(AT, Hit::Target));
    let found = Hit::in_top_page("<iframe id=\"decoy\">".into());
    assert_eq!(approach.top_page(found), refused(ElementProblem::OtherFrame { what: "<iframe id=\"decoy\">".into() }));
}

#[test]
fn a_covered_target_in_a_frame_is_not_checked_from_the_top_page() {
    let (mut approach, _) = Approach::new(true);
    assert_eq!(approach.saw(seen(AT, other("<div>"))), ApproachStep::ScrollToCentre);
}

#[test]
fn the_verdict_of_the_isolated_check_reads_as_a_hit() {
    assert_eq!(Hit::from_verdict(None), Hit::Target);
    assert_eq!(Hit::from_verdict(Some("<div id=\"x\"> \"Pay\"")), other("<div id=\"x\"> \"Pay\""));
    assert_eq!(
        Hit::from_verdict(Some("frame:<iframe> of https://a.example")),
        Hit::Frame("<iframe> of https://a.example".into())
    );
}

#[test]
fn frame_elements_in_the_top_page_are_frames_and_the_rest_covers() {
    for tag in ["<iframe id=\"a\">", "<frame>", "<object>", "<embed>"] {
        assert_eq!(Hit::in_top_page(tag.into()), Hit::Frame(tag.into()), "{tag}");
    }
    assert_eq!(Hit::in_top_page("<div class=\"iframe\">".into()), other("<div class=\"iframe\">"));
}

#[test]
fn the_visible_centre_is_that_of_the_first_box_with_an_area() {
    let empty = vec![5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0];
    let sliver = vec![0.0, 0.0, 10.0, 0.0, 10.0, 0.05, 0.0, 0.05];
    let malformed = vec![0.0, 0.0, 10.0];
    let square = vec![10.0, 20.0, 30.0, 20.0, 30.0, 40.0, 10.0, 40.0];
    assert_eq!(visible_centre(&[empty.clone(), sliver, malformed, square]), Some((20.0, 30.0)));
    assert_eq!(visible_centre(&[empty]), None);
    assert_eq!(visible_centre(&[]), None);
}

#[test]
fn a_target_still_under_the_pointer_is_pressed_where_it_is_now() {
    let (mut hover, first) = Hover::new(AT, 0.0, false);
    assert_eq!(first, HoverStep::Look);
    let moved = (122.0, 80.0);
    assert_eq!(hover.saw(seen(moved, Hit::Target), 0.0), HoverStep::Settle(moved));
    assert_eq!(hover.attached(true), HoverStep::Press(moved));
}

#[test]
fn a_target_that_left_the_page_right_before_the_press_is_not_pressed() {
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    assert_eq!(hover.saw(seen(AT, Hit::Target), 0.0), HoverStep::Settle(AT));
    assert_eq!(hover.attached(false), HoverStep::Refuse(Refusal::Stale));
}

#[test]
fn an_emptied_target_is_watched_until_the_wait_is_over() {
    let (mut hover, _) = Hover::new(AT, 1_000.0, false);
    assert_eq!(hover.saw(Sight::NoBox, 1_000.0), HoverStep::Wait(HOVER_LOOK_MS));
    assert_eq!(hover.saw(seen(AT, other("<button id=\"b\">")), 1_100.0), HoverStep::Wait(HOVER_LOOK_MS));
    // The last wait is cut to what is left of the settle time.
    assert_eq!(hover.saw(Sight::NoBox, 1_290.0), HoverStep::Wait(10));
    assert_eq!(hover.saw(seen((130.0, 80.0), Hit::Target), 1_295.0), HoverStep::Settle((130.0, 80.0)));
}

#[test]
fn once_the_wait_is_over_a_point_still_on_what_holds_the_target_is_pressed() {
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    assert_eq!(hover.saw(Sight::NoBox, f64::from(HOVER_SETTLE_MS)), HoverStep::CheckAttached);
    assert_eq!(hover.attached(true), HoverStep::LookBeneath(AT));
    assert_eq!(hover.beneath(Hit::Target), HoverStep::Settle(AT));
    assert_eq!(hover.attached(true), HoverStep::Press(AT));
}

#[test]
fn a_target_the_hover_took_away_is_not_pressed_through() {
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    assert_eq!(hover.saw(seen(AT, other("<li>")), 400.0), HoverStep::CheckAttached);
    assert_eq!(hover.attached(true), HoverStep::LookBeneath(AT));
    assert_eq!(
        hover.beneath(other("<div id=\"page\"> \"Delete all\"")),
        HoverStep::Refuse(Refusal::Element(ElementProblem::GoneOnHover {
            instead: "<div id=\"page\"> \"Delete all\"".into()
        }))
    );
}

#[test]
fn a_target_the_hover_removed_from_the_page_is_a_stale_ref() {
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    assert_eq!(hover.saw(Sight::NoBox, 500.0), HoverStep::CheckAttached);
    assert_eq!(hover.attached(false), HoverStep::Refuse(Refusal::Stale));
}

#[test]
fn a_frame_the_hover_brought_over_the_target_is_refused() {
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    assert_eq!(
        hover.saw(seen(AT, Hit::Frame("<iframe>".into())), 0.0),
        HoverStep::Refuse(Refusal::Element(ElementProblem::OtherFrame { what: "<iframe>".into() }))
    );
    let (mut hover, _) = Hover::new(AT, 0.0, false);
    hover.saw(Sight::NoBox, 300.0);
    hover.attached(true);
    assert_eq!(
        hover.beneath(Hit::Frame("<embed>".into())),
        HoverStep::Refuse(Refusal::Element(ElementProblem::OtherFrame { what: "<embed>".into() }))
    );
}

#[test]
fn a_target_in_another_sites_frame_is_pressed_only_when_the_top_page_lets_it_through() {
    let (mut hover, _) = Hover::new(AT, 0.0, true);
    assert_eq!(hover.saw(seen(AT, Hit::Target), 0.0), HoverStep::LookFromTopPage(AT));
    assert_eq!(hover.top_page(other("<div id=\"menu\">"), 0.0), HoverStep::Wait(HOVER_LOOK_MS));
    assert_eq!(hover.saw(seen(AT, Hit::Target), 50.0), HoverStep::LookFromTopPage(AT));
    assert_eq!(hover.top_page(Hit::Target, 50.0), HoverStep::Settle(AT));
}
