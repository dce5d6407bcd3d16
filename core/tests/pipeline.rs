//! The snapshot pipeline, mechanism by mechanism, on captures of the fixture pages in
//! `tests/fixtures/pipeline/` (recorded from Chromium with `cargo xtask capture`).

use sightline_core::capture::Capture;
use sightline_core::refs::{ElementIdentity, NodeKey, RefRegistry};
use sightline_core::snapshot::render::{RenderOptions, render};
use sightline_core::snapshot::{ElementId, Snapshot, compile};

fn capture(name: &str) -> Capture {
    let path = format!("{}/tests/captures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_slice(&bytes).expect("capture parses")
}

fn snapshot(name: &str) -> Snapshot {
    let mut refs = RefRegistry::default();
    compile(&capture(name), &mut refs)
}

/// The rendered body (everything after the two header lines), one page.
fn body(snapshot: &Snapshot) -> String {
    let text = render(snapshot, 1, &RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() }).text;
    text.lines().skip(2).collect::<Vec<_>>().join("\n")
}

fn lines(name: &str) -> Vec<String> {
    body(&snapshot(name)).lines().map(str::to_owned).collect()
}

fn has_line(lines: &[String], wanted: &str) -> bool {
    lines.iter().any(|l| l.trim_start() == wanted)
}

/// The region and frame tags among `lines` (page text never starts a line with `<` unmarked).
fn tags(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.trim_start().starts_with('<')).collect()
}

fn mentions(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

// Visibility ---------------------------------------------------------------------------

#[test]
fn visibility_display_none_content_is_dropped() {
    let l = lines("visibility");
    assert!(!mentions(&l, "Display none text") && !mentions(&l, "Display none button"), "{l:#?}");
    assert!(has_line(&l, "Shown paragraph."));
}

#[test]
fn visibility_visibility_hidden_hides_the_element_but_not_a_visible_child() {
    let l = lines("visibility");
    assert!(!mentions(&l, "Hidden visibility text"));
    assert!(has_line(&l, "Visible child of a hidden parent."));
}

#[test]
fn visibility_opacity_zero_hides_the_whole_subtree() {
    let l = lines("visibility");
    assert!(!mentions(&l, "Transparent text") && !mentions(&l, "Transparent button"));
}

#[test]
fn visibility_zero_size_elements_get_no_ref() {
    assert!(!mentions(&lines("visibility"), "Zero size button"));
}

#[test]
fn visibility_aria_hidden_content_keeps_its_painted_text_but_loses_refs_and_images() {
    let l = lines("visibility");
    assert!(has_line(&l, "Decorative words still painted."));
    assert!(has_line(&l, "Link hidden from assistive technology"), "plain text, no link markup: {l:#?}");
    assert!(!mentions(&l, "Decorative picture"));
}

#[test]
fn visibility_hidden_attribute_and_hidden_inputs_are_dropped() {
    let l = lines("visibility");
    assert!(!mentions(&l, "Hidden attribute text"));
    assert!(!mentions(&l, "secret-token"));
}

#[test]
fn visibility_a_dialog_on_screen_survives_aria_hidden() {
    let l = lines("visibility");
    let dialog = l.iter().position(|x| x == "<dialog>").expect("dialog region");
    assert_eq!(l[dialog + 1], "A dialog on screen despite aria-hidden.");
    assert_eq!(l[dialog + 2], "e1 button \"Dialog button\"", "its name from its text");
}

// A page hidden while it loads -------------------------------------------------------------

#[test]
fn hidden_root_a_page_that_hides_itself_is_shown_under_a_first_line_saying_so() {
    let s = snapshot("hidden-root");
    let note = "the page hides itself with its own styles (opacity: 0 on <html>), as pages do while they load; \
                its content is shown as it would appear";
    assert_eq!(
        body(&s),
        [
            format!("! {note}").as_str(),
            "<header>",
            "[e1 Daily Courier]",
            "</header>",
            "<main>",
            "# Harbour reopens after the storm",
            "The harbour reopened on Tuesday morning after three days of closure, as crews cleared the last of the \
             debris that the storm had left across the quays and the fish market.",
            "Ferries to the islands resume their normal timetable tomorrow; the first crossing leaves at seven, and \
             passengers with tickets for the cancelled sailings may use them until Sunday.",
            "e2 button \"Read more\"",
            "</main>",
        ]
        .join("\n")
    );
    assert!(s.stats.hidden_root);
    assert_eq!(s.facts(1).notes, [note]);
    let facts = serde_json::to_value(s.facts(1)).unwrap();
    assert_eq!(facts["notes"][0], note);
    assert_eq!(facts["stats"]["hidden_root"], true);
}

#[test]
fn hidden_root_the_settling_wait_waits_for_a_page_that_shows_itself_soon() {
    // The body is `visibility: hidden` until 600 ms after load: the recorder's settling wait (the
    // extension's own script) waited for it, so the capture holds the page as shown, with no note.
    let s = snapshot("hidden-root-brief");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert_eq!(l[0], "<main>");
    assert!(has_line(&l, "# Timetable changes"));
    assert!(has_line(&l, "[e1 Plan a journey]"));
    assert!(!s.stats.hidden_root);
    assert!(s.facts(1).notes.is_empty());
    assert!(!serde_json::to_string(&s.facts(1)).unwrap().contains("notes"));
}

#[test]
fn hidden_root_hidden_parts_of_a_shown_page_stay_hidden() {
    let s = snapshot("visibility");
    assert!(!s.stats.hidden_root && s.facts(1).notes.is_empty());
    assert!(!mentions(&lines("visibility"), "Transparent text"));
}

// Lone separators ----------------------------------------------------------------------------

#[test]
fn separators_lone_separators_are_dropped_but_still_separate_words() {
    let l = lines("text");
    assert!(has_line(&l, "[e3 About] [e4 Blog] [e5 Careers]"), "{l:#?}");
}

#[test]
fn separators_digits_and_sentence_punctuation_stay() {
    let l = lines("text");
    assert!(has_line(&l, "Cart 3"));
    assert!(has_line(&l, "Read [e1 our guide] before [e2 ordering]."));
}

// Noise tags --------------------------------------------------------------------------------

#[test]
fn noise_tags_scripts_styles_noscript_and_templates_are_dropped() {
    let l = lines("text");
    for noise in ["document.write", "margin", "Enable JavaScript", "Template text"] {
        assert!(!mentions(&l, noise), "{noise}: {l:#?}");
    }
    assert!(snapshot("text").stats.dropped_noise > 0);
}

// Container refinement ------------------------------------------------------------------

#[test]
fn containers_a_container_with_nothing_to_act_on_is_hoisted() {
    let s = snapshot("containers");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert!(has_line(&l, "No controls here"));
    assert!(!mentions(&l, "Decoration only"), "no container line for it: {l:#?}");
    assert!(s.stats.hoisted_containers >= 1);
}

#[test]
fn containers_a_named_group_of_controls_keeps_its_heading() {
    let l = lines("containers");
    let group = l.iter().position(|x| x == "group \"Colour\":").expect("group line");
    assert_eq!(l[group + 1], "  e4 radio \"Black\" checked");
    assert_eq!(l[group + 2], "  e5 radio \"White\"");
}

// Paint-order occlusion -----------------------------------------------------------------

#[test]
fn occlusion_content_under_an_opaque_modal_is_occluded() {
    let s = snapshot("modal");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert!(!mentions(&l, "Covered paragraph") && !mentions(&l, "Covered button"), "{l:#?}");
    assert!(s.stats.dropped_occluded > 0);
}

#[test]
fn occlusion_a_translucent_backdrop_and_partial_cover_hide_nothing() {
    let l = lines("modal");
    assert!(has_line(&l, "Dimmed but visible paragraph."));
    assert!(mentions(&l, "button \"Dimmed button\""));
    assert!(mentions(&l, "button \"Half covered button\""));
    assert!(has_line(&l, "e3 button \"Accept\""), "{l:#?}");
}

#[test]
fn occlusion_an_inline_box_covers_nothing() {
    // The last link wraps over two lines: its box spans both, its background only its words.
    let l = lines("covers");
    assert_eq!(
        l[0],
        "[e1 Highlighted] [e2 Interviews] [e3 A category whose name is long enough to wrap over two lines of this \
         narrow column]"
    );
}

#[test]
fn occlusion_a_box_inside_a_collapsed_box_covers_nothing() {
    // A dropdown folded into a zero-height wrapper (overflow hidden, as far as the capture can
    // tell) does not hide the breadcrumb it would paint over if it were shown.
    let s = snapshot("covers");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert!(has_line(&l, "[e5 Letters to the editor]"), "{l:#?}");
    assert_eq!(s.stats.dropped_occluded, 0);
}

// Text collapsing --------------------------------------------------------------------

#[test]
fn text_collapsing_a_sentence_split_over_inline_elements_is_one_line() {
    assert!(has_line(&lines("text"), "Hello bold and italic words in one sentence."));
}

#[test]
fn text_collapsing_preformatted_text_keeps_its_lines() {
    let l = lines("text");
    let first = l.iter().position(|x| x == "line one").expect("pre");
    assert_eq!(l[first + 1], "    indented line two");
}

// Wrapper hoisting with name promotion ------------------------------------------------

#[test]
fn name_promotion_a_named_wrapper_names_its_single_unnamed_control() {
    let s = snapshot("containers");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert!(has_line(&l, "e6 button \"Close the banner\""), "{l:#?}");
    assert!(!mentions(&l, "group \"Close the banner\""));
    assert_eq!(s.stats.promoted_names, 1);
}

// Deduplication -------------------------------------------------------------

#[test]
fn dedup_values_equal_to_the_name_are_not_repeated() {
    let l = lines("forms");
    assert!(has_line(&l, "e4 searchbox \"Search\""), "placeholder equal to the name: {l:#?}");
    assert!(has_line(&l, "e24 textbox \"Nickname\""));
    assert!(has_line(&l, "e26 button \"Send\""), "submit value equal to the name");
    assert!(
        has_line(&l, "e5 textbox \"Phone\" type=\"tel\" desc=\"Phone number with country code\""),
        "title = description once"
    );
}

#[test]
fn dedup_a_label_is_not_repeated_as_text() {
    let l = lines("containers");
    assert!(!has_line(&l, "Black") && !has_line(&l, "White"));
    let f = lines("forms");
    assert!(!has_line(&f, "Name"));
}

#[test]
fn dedup_the_tag_is_kept_only_when_the_role_does_not_imply_it() {
    let s = snapshot("nested");
    let by_name = |name: &str| s.elements.iter().find(|e| e.facts.name == name).map(|e| e.facts.tag.clone());
    assert_eq!(by_name("Save draft"), Some(None), "a <button> button");
    assert_eq!(by_name("Div button inner link"), Some(Some("div".into())), "a <div role=button>");
}

// Propagating bounds ------------------------------------------------------------------

#[test]
fn propagating_bounds_clickables_inside_a_button_or_link_are_the_same_target() {
    let s = snapshot("nested");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert!(has_line(&l, "e1 button \"Save draft\""), "{l:#?}");
    assert!(has_line(&l, "e2 link \"Card title Card body text\""));
    assert!(!l.iter().any(|x| x.contains("\"draft\"") || x.contains("\"Card title\"")));
    assert_eq!(s.stats.nested_clickables, 2);
}

#[test]
fn propagating_bounds_exceptions_keep_their_own_ref() {
    let l = lines("nested");
    assert!(has_line(&l, "e4 clickable \"with handler\""), "onclick: {l:#?}");
    assert!(has_line(&l, "e6 checkbox \"Select row\""), "form field");
    assert!(has_line(&l, "e8 clickable \"Labelled child\""), "aria-label");
    assert!(has_line(&l, "e10 link \"inner link\""), "interactive role");
}

#[test]
fn listener_only_elements_are_clickable_when_they_hold_no_other_target() {
    let l = lines("nested");
    assert!(has_line(&l, "e12 clickable \"Listener only element\""), "{l:#?}");
}

// Controls that keep what they are ------------------------------------------------------------

#[test]
fn controls_the_whole_booking_form_reads_as_its_controls() {
    assert_eq!(
        lines("controls"),
        [
            "# Book a flight",
            "tablist \"Trip type\":",
            "  e1 tab \"Round trip\" selected",
            "  e2 tab \"Multi-city\"",
            "Passengers",
            "e3 clickable \"-\"",
            "1",
            "e4 clickable \"+\"",
            "e5 checkbox \"One-way\"",
            "e6 checkbox \"Flexible dates\" checked",
            "e7 radio \"Economy\" checked",
            "e8 radio \"Business\"",
            "e9 checkbox \"Direct flights only\" checked",
            "Voucher code",
            "e10 searchbox \"From\" = \"Lisbon\"",
            "e11 button (no name)",
            "e12 button \"Swap origin and destination\"",
            "e13 clickable \"Open the calendar\"",
            "e14 clickable \"Close\"",
            "e15 clickable \"Show more\"",
            "## Design system controls",
            "e16 switch \"Price alerts\" checked",
            "e17 button \"Bold\" pressed",
            "e18 button \"Fewer adults\": −",
            "2",
            "e19 button \"More adults\": +",
            "e20 button \"Close\": ×",
            "e21 button \"☰\"",
            "e22 button \"?\"",
            "<nav label=\"Pages\">",
            "[e23 ‹] [e24 ›]",
            "</nav>",
            "## Accordion",
            "tablist \"Sections\":",
            "  e25 tab \"Send\"",
            "    e26 button \"Send\"",
        ]
    );
}

#[test]
fn controls_the_text_of_an_actionable_element_is_never_a_separator() {
    // A passenger stepper of bare <div onclick>s: the agent must tell minus from plus.
    let l = lines("controls");
    let stepper = l.iter().position(|x| x == "Passengers").expect("stepper");
    assert_eq!(&l[stepper + 1..stepper + 4], ["e3 clickable \"-\"", "1", "e4 clickable \"+\""]);
    for symbol in ["\"☰\"", "\"?\"", ": ×", ": −", "[e23 ‹]", "[e24 ›]"] {
        assert!(mentions(&l, symbol), "{symbol}: {l:#?}");
    }
}

#[test]
fn controls_a_visible_label_stands_for_its_hidden_native_checkbox_or_radio() {
    let s = snapshot("controls");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    // <input type=checkbox> display:none beside its <label for>, checked or not; radios too; and
    // an opacity-0 checkbox laid over its wrapping label.
    for line in [
        "e5 checkbox \"One-way\"",
        "e6 checkbox \"Flexible dates\" checked",
        "e7 radio \"Economy\" checked",
        "e8 radio \"Business\"",
        "e9 checkbox \"Direct flights only\" checked",
    ] {
        assert!(has_line(&l, line), "{line}: {l:#?}");
    }
    assert!(!has_line(&l, "One-way Flexible dates Economy Business"), "no longer plain text");
    // The ref is the label's node: a click on a label toggles its control.
    let label = |name: &str| s.elements.iter().find(|e| e.facts.name == name).expect(name);
    for name in ["One-way", "Flexible dates", "Economy", "Direct flights only"] {
        assert_eq!(label(name).facts.tag.as_deref(), Some("label"), "{name}");
    }
    let facts = s.facts(1);
    assert_eq!(facts.states["checked"], ["e6", "e7", "e9", "e16"]);
    let one_way = facts.elements.iter().find(|e| e.name == "One-way").unwrap();
    assert_eq!((one_way.element_ref.as_str(), one_way.role.as_str()), ("e5", "checkbox"));
}

#[test]
fn dedup_a_label_is_kept_when_its_control_is_not_shown() {
    // The field is transparent (no ref); its label is the only trace of it and stays as text.
    let l = lines("controls");
    assert!(has_line(&l, "Voucher code"), "{l:#?}");
    assert!(!mentions(&l, "textbox \"Voucher code\""));
}

#[test]
fn controls_an_element_without_a_name_takes_one_or_says_it_has_none() {
    let l = lines("controls");
    assert!(has_line(&l, "e11 button (no name)"), "a clear button with no text: {l:#?}");
    assert!(has_line(&l, "e12 button \"Swap origin and destination\""), "its title");
    assert!(has_line(&l, "e13 clickable \"Open the calendar\""), "its aria-describedby");
    assert!(has_line(&l, "e14 clickable \"Close\""), "its icon's alt");
    assert!(has_line(&l, "e15 clickable \"Show more\""), "its text");
    assert!(!mentions(&l, "desc=\"Open the calendar\""), "not said twice");
}

#[test]
fn controls_a_control_wrapping_another_of_the_same_name_is_one_line() {
    let s = snapshot("controls");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    let tabs = l.iter().position(|x| x == "tablist \"Trip type\":").expect("tablist");
    assert_eq!(&l[tabs + 1..tabs + 3], ["  e1 tab \"Round trip\" selected", "  e2 tab \"Multi-city\""]);
    assert!(!mentions(&l, "link \"Round trip\""));
    assert_eq!(s.stats.nested_clickables, 2);
}

#[test]
fn controls_a_control_off_the_centre_of_its_same_name_wrapper_keeps_its_own_ref() {
    // An accordion header (`role=tab`) holding its button below a line break: a click on the
    // header's centre would miss the button, so both keep a ref.
    let l = lines("controls");
    let tab = l.iter().position(|x| x.trim_start().ends_with("tab \"Send\"")).unwrap_or_else(|| panic!("{l:#?}"));
    assert!(l[tab + 1..].iter().any(|x| x.trim_start().ends_with("button \"Send\"")), "{l:#?}");
}

#[test]
fn accordion_a_header_holding_a_button_of_its_name_keeps_both_refs_and_is_no_region() {
    // MiniWoB's click-collapsible: jQuery UI makes the paragraph around the Submit button a
    // header (`role=tab`, class `ui-accordion-header`), and the button covers its centre. The
    // header holds a line break too, so it is not a mere wrapper of the button: both keep a
    // ref, and neither header is taken for the page's header region because of its class.
    let l = lines("accordion");
    assert!(tags(&l).is_empty(), "no region: {l:#?}");
    assert!(has_line(&l, "e1 tab \"Section #9\" selected expanded"), "{l:#?}");
    let tab = l.iter().position(|x| x == "e2 tab \"Submit\" collapsed").unwrap_or_else(|| panic!("{l:#?}"));
    assert_eq!(l.get(tab + 1).map(String::as_str), Some("  e3 button \"Submit\""), "{l:#?}");
}

#[test]
fn controls_design_system_toggles_steppers_and_icon_buttons_keep_role_name_and_state() {
    let l = lines("controls");
    for line in [
        "e16 switch \"Price alerts\" checked",
        "e17 button \"Bold\" pressed",
        "e18 button \"Fewer adults\": −",
        "e19 button \"More adults\": +",
        "e20 button \"Close\": ×",
    ] {
        assert!(has_line(&l, line), "{line}: {l:#?}");
    }
}

// Short stable refs -------------------------------------------------------------------

#[test]
fn short_refs_refs_are_short_sequential_and_stable_across_snapshots() {
    let c = capture("forms");
    let mut refs = RefRegistry::default();
    let first = compile(&c, &mut refs);
    let second = compile(&c, &mut refs);
    let numbers = |s: &Snapshot| s.elements.iter().map(|e| e.number).collect::<Vec<_>>();
    assert_eq!(numbers(&first), (1..=first.elements.len() as u32).collect::<Vec<_>>());
    assert_eq!(numbers(&first), numbers(&second), "the same element keeps its ref");
    let key = &first.elements[0].key;
    let frames = std::collections::HashMap::from([(key.frame_id.clone(), key.loader_id.clone())]);
    assert_eq!(&refs.resolve("e1", &frames).unwrap(), key);
}

// Attribute pruning and short names ------------------------------------------------

#[test]
fn attribute_pruning_only_attributes_that_help_an_agent_survive() {
    let text = body(&snapshot("forms")) + &body(&snapshot("nested"));
    for noise in ["class=", "style=", "onclick", "data-", "name=\""] {
        assert!(!text.contains(noise), "{noise} leaked into:\n{text}");
    }
}

#[test]
fn short_names_attribute_names_are_short() {
    let l = lines("forms");
    assert!(has_line(&l, "e2 textbox \"Email\" type=\"email\" hint=\"you@example.com\""), "{l:#?}");
    assert!(has_line(&l, "e6 textbox \"Website\" type=\"url\" testid=\"website-field\""));
    assert!(has_line(&l, "e25 textbox \"Promo\" required desc=\"Codes are case sensitive.\""));
    assert!(!mentions(&l, "placeholder=") && !mentions(&l, "data-testid"));
}

// Boxes on request -----------------------------------------------------------

#[test]
fn boxes_boxes_appear_only_on_request() {
    let s = snapshot("frames");
    let plain = render(&s, 1, &RenderOptions::default()).text;
    assert!(!plain.contains(" @"), "{plain}");
    let with_boxes = render(&s, 1, &RenderOptions { bbox: true, ..Default::default() }).text;
    let line = with_boxes.lines().find(|l| l.contains("button \"Inner button\"")).expect("inner button");
    let coords: Vec<i64> = line.rsplit(" @").next().unwrap().split(',').map(|n| n.parse().unwrap()).collect();
    assert_eq!(coords.len(), 4);
    assert!(coords[2] > 0 && coords[3] > 0, "{line}");
}

#[test]
fn boxes_a_box_equal_to_the_enclosing_elements_box_is_left_out() {
    let mut s = snapshot("nested");
    let (outer, inner) = (ElementId(0), ElementId(1));
    s.elements[inner.0].enclosing = Some(outer);
    s.elements[inner.0].bbox = s.elements[outer.0].bbox;
    assert_eq!(s.bbox_shown(inner), None);
    assert!(s.bbox_shown(outer).is_some());
}

// State buckets ---------------------------------------------------------------------

#[test]
fn state_buckets_states_are_bucketed_and_that_is_smaller() {
    let s = snapshot("forms");
    let facts = s.facts(1);
    assert_eq!(facts.states["checked"], vec!["e16".to_owned()]);
    assert_eq!(facts.states["disabled"], vec!["e17".to_owned()]);
    let bucketed = serde_json::to_string(&facts).unwrap().len();
    // The same facts with a states list on every element that has one.
    let mut per_element = serde_json::to_value(&facts).unwrap();
    per_element.as_object_mut().unwrap().remove("states");
    for (i, e) in per_element["elements"].as_array_mut().unwrap().iter_mut().enumerate() {
        if !s.elements[i].facts.states.is_empty() {
            e["states"] = serde_json::json!(s.elements[i].facts.states);
        }
    }
    assert!(bucketed < serde_json::to_string(&per_element).unwrap().len());
}

// Compound controls -------------------------------------------------------------------

#[test]
fn compound_compound_controls_describe_their_parts() {
    let l = lines("forms");
    for expected in [
        "e7 spinbutton \"Quantity\" = \"2\" (1–10)",
        "e8 slider \"Volume\" = \"5\" (0–11 step 0.5)",
        "e9 date \"Birthday\" = \"1990-05-01\" (yyyy-mm-dd)",
        "e10 time \"Alarm\" (hh:mm)",
        "e14 color \"Favourite colour\" = \"#ff8800\" (#rrggbb)",
        "e15 file \"CV\" (accepts .pdf,.doc, multiple)",
        "e18 combobox \"Size\" = \"M\" [S|M|L]",
        "e19 combobox \"Country\" = \"Andorra\" [Andorra|United Arab Emirates|Afghanistan|Antigua and Barbuda|… 9 options, country/state codes]",
        "e20 listbox \"Toppings\" = \"Cheese, Olives\" [Cheese|Ham|Olives]",
    ] {
        assert!(has_line(&l, expected), "missing {expected}:\n{l:#?}");
    }
}

// Secrets ------------------------------------------------------------------------------------

#[test]
fn password_and_payment_values_never_leave_the_engine() {
    let s = snapshot("forms");
    let text = body(&s);
    let facts = serde_json::to_string(&s.facts(1)).unwrap();
    for secret in ["hunter2", "4111111111111111", "\"123\"", "482913"] {
        assert!(!text.contains(secret) && !facts.contains(secret), "{secret} leaked");
    }
    assert!(text.contains("e3 textbox \"Password\" = \"••••••\" type=\"password\""));
    assert!(text.contains("e22 textbox \"Card number\" = \"••••••\""));
    assert!(text.contains("e23 textbox \"Security code\" = \"••••••\""));
    assert!(text.contains("textbox \"Sign-in code\" = \"••••••\""), "{text}");
}

// Structure ----------------------------------------------------------------------------------

#[test]
fn landmarks_become_regions_and_pages_without_them_get_fallbacks() {
    let l = lines("containers");
    for tag in [
        "<header>",
        "<nav label=\"Primary\">",
        "<main>",
        "<form label=\"Newsletter\">",
        "<aside label=\"Related\">",
        "<footer>",
    ] {
        assert!(has_line(&l, tag), "{tag}: {l:#?}");
    }
}

#[test]
fn lists_and_tables_keep_their_structure_and_every_item() {
    let l = lines("lists-tables");
    let steps = l.iter().position(|x| x == "1. First step").expect("ordered list");
    assert_eq!(&l[steps + 1..steps + 4], ["  - Nested detail", "  - Another detail", "2. Second step"]);
    assert!(has_line(&l, "- [e150 Item 150] — note 150"), "no list is truncated");
    assert!(has_line(&l, "Quarterly numbers"), "caption");
    let header = l.iter().position(|x| x == "| Name | Value | Action |").expect("header row");
    assert_eq!(l[header + 1], "|---|---|---|");
    assert!(has_line(&l, "| Row 20 | 60 | [e170 Edit 20] |"));
    assert!(has_line(&l, "Far below the fold."), "offscreen content is kept");
}

#[test]
fn shadow_roots_open_and_closed_are_read_in_place() {
    let l = lines("shadow");
    assert_eq!(
        l,
        [
            "Open shadow text Light child slotted",
            "e1 button \"Open shadow button\"",
            "e2 textbox \"Closed shadow field\""
        ]
    );
}

#[test]
fn same_origin_and_cross_site_frames_are_read_in_place_with_their_own_identity() {
    let s = snapshot("frames");
    let l: Vec<String> = body(&s).lines().map(str::to_owned).collect();
    assert_eq!(
        l,
        [
            "# Frames",
            "Text of the page itself.",
            "Inside the same-origin frame.",
            "e1 button \"Inner button\"",
            "<frame site=\"other\" origin=\"http://localhost:41267\">",
            "Inside the cross-site frame.",
            "[e2 Cross-site link]",
            "e3 textbox \"Cross input\"",
            "</frame>",
        ],
        "the page is on 127.0.0.1, the cross-site frame on localhost: another site"
    );
    let facts = s.facts(1);
    let frames: Vec<Option<&str>> = facts.elements.iter().map(|e| e.frame.as_deref()).collect();
    assert_eq!(frames, [None, Some("http://localhost:41267"), Some("http://localhost:41267")]);
    let frames: std::collections::BTreeSet<&str> = s.elements.iter().map(|e| e.key.frame_id.as_str()).collect();
    assert_eq!(frames.len(), 2, "the same-origin and the cross-site frame");
    assert!(s.elements.iter().all(|e| !e.key.loader_id.is_empty()), "every ref is scoped to a document");
    let cross = s.elements[1].bbox.unwrap();
    assert!(cross[0] > 400, "out-of-process frame content is placed in page coordinates: {cross:?}");
}

// Output: determinism, paging, stats ----------------------------------------------------------

#[test]
fn the_same_capture_gives_byte_identical_output() {
    for name in [
        "visibility",
        "text",
        "modal",
        "nested",
        "containers",
        "forms",
        "shadow",
        "lists-tables",
        "frames",
        "hidden-root",
        "controls",
        "covers",
    ] {
        let a = render(&snapshot(name), 3, &RenderOptions::default()).text;
        let b = render(&snapshot(name), 3, &RenderOptions::default()).text;
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn a_long_page_is_paged_without_losing_a_line() {
    let s = snapshot("lists-tables");
    let full = body(&s);
    let small = RenderOptions { ceiling_tokens: 400, ..Default::default() };
    let first = render(&s, 2, &small);
    assert!(first.pages > 2, "{} pages", first.pages);
    let mut seen = Vec::new();
    for page in 1..=first.pages {
        let r = render(&s, 2, &RenderOptions { page, ..small.clone() });
        let text: Vec<&str> = r.text.lines().collect();
        assert!(text[1].ends_with(&format!("· page {page} of {}", first.pages)), "{}", text[1]);
        let continues = text.last().unwrap().contains(&format!("page={}", page + 1));
        assert_eq!(continues, page < first.pages, "continuation marker on every page but the last");
        let end = if continues { text.len() - 1 } else { text.len() };
        seen.extend(text[2..end].iter().map(|l| l.to_string()));
    }
    assert_eq!(seen.join("\n"), full, "the pages together are the whole snapshot");
}

#[test]
fn stats_count_what_each_stage_did() {
    let s = snapshot("visibility");
    let st = &s.stats;
    assert!(st.nodes_in > st.lines_out);
    assert_eq!(st.elements_out, s.elements.len());
    assert_eq!(st.lines_out, s.lines.len());
    assert!(st.dropped_invisible > 0 && st.aria_hidden > 0);
    assert!(st.chars > 0 && st.estimated_tokens == st.chars.div_ceil(4));
}

// Targets made by script ---------------------------------------------------------------

/// Whether a line shows an element with a ref (any number), `role` and `name`.
fn has_target(lines: &[String], role: &str, name: &str) -> bool {
    let wanted = format!(" {role} {name}");
    lines.iter().any(|l| {
        let l = l.trim_start();
        l.starts_with('e')
            && l.find(' ').is_some_and(|at| l[1..at].chars().all(|c| c.is_ascii_digit()) && l[at..] == wanted)
    })
}

#[test]
fn scripted_icons_bound_with_listeners_get_refs_without_a_pointer_cursor() {
    // Two icons bound with `addEventListener('click')`, whose pointer cursor shows only on hover.
    let l = lines("scripted");
    let at = l.iter().position(|x| x.starts_with("Icons bound by script")).expect("the icons' caption");
    assert_eq!(l[at + 1].trim(), "e1 clickable (no name)", "{l:#?}");
    assert_eq!(l[at + 2].trim(), "e2 clickable (no name)", "{l:#?}");
}

#[test]
fn scripted_a_row_with_its_own_listener_and_pointer_keeps_its_ref_around_its_star() {
    let l = lines("scripted");
    let row = l.iter().position(|x| x.trim() == "e3 clickable \"Inbox row from Ada\"").expect("the row");
    assert_eq!(l[row + 1].trim(), "e4 clickable (no name)", "the star inside it: {l:#?}");
}

#[test]
fn scripted_a_pointer_cursor_that_starts_at_an_element_marks_a_delegated_target() {
    // The handler sits on the document; only the cursor says the element is clickable.
    let l = lines("scripted");
    assert!(has_target(&l, "clickable", "\"Forward this\""), "{l:#?}");
}

#[test]
fn scripted_a_list_bound_with_mousedown_gives_its_items_the_refs() {
    // A sortable list: the listener is on the list, the items are what is dragged.
    let l = lines("scripted");
    for item in ["First item", "Second item", "Third item"] {
        assert!(has_target(&l, "clickable", &format!("\"{item}\"")), "{item}: {l:#?}");
    }
}

#[test]
fn scripted_a_menu_item_with_a_menu_class_is_a_control_not_a_nav_region() {
    let l = lines("scripted");
    assert!(has_target(&l, "clickable", "\"Mute this user\""), "{l:#?}");
    assert!(tags(&l).is_empty(), "no region: {l:#?}");
}

#[test]
fn scripted_a_wrapper_with_a_listener_around_a_link_is_no_target_of_its_own() {
    let l = lines("scripted");
    assert!(l.iter().any(|x| x.starts_with("[e") && x.contains(" A real link] and words beside it.")), "{l:#?}");
    assert!(!l.iter().any(|x| x.contains("clickable \"A real link")), "{l:#?}");
}

#[test]
fn scripted_an_svg_shows_its_words_and_targets_and_an_icon_stays_one_image() {
    let l = lines("scripted");
    assert!(has_target(&l, "clickable", "\"1\"") && has_target(&l, "clickable", "\"2\""), "{l:#?}");
    assert!(has_line(&l, "Sales 2024"), "a chart's label: {l:#?}");
    assert!(has_line(&l, "![Settings]"), "an icon: {l:#?}");
}

#[test]
fn scripted_a_focusable_list_around_its_one_suggestion_shows_the_suggestion() {
    // An autocomplete's list takes focus (tabindex) and holds a single clickable suggestion of
    // the same name: one ref, shown as what is clicked, not as a list.
    let l = lines("scripted");
    assert!(has_target(&l, "clickable", "\"Cincinnati, OH (CVG)\""), "{l:#?}");
    assert!(!has_target(&l, "list", "\"Cincinnati, OH (CVG)\""), "{l:#?}");
}

/// A capture without accessibility trees, as the extension takes it, reads from the roles, names
/// and states the engine derives from the DOM: for every fixture page, the same snapshot as with
/// Chrome's trees (so the tests above, which read captures recorded with them, hold for it too).
#[test]
fn frames_without_their_accessibility_tree_read_the_same() {
    for name in [
        "forms",
        "lists-tables",
        "controls",
        "containers",
        "text",
        "accordion",
        "covers",
        "frames",
        "hidden-root",
        "hidden-root-brief",
        "modal",
        "nested",
        "scripted",
        "shadow",
        "visibility",
    ] {
        let with_trees = capture(name);
        let bare = with_trees.clone().without_accessibility_trees();
        let read = |c: &Capture| body(&compile(c, &mut RefRegistry::default()));
        assert_eq!(read(&bare), read(&with_trees), "{name}: derived semantics read differently");
    }
}

/// The index that `aria-labelledby`, `aria-describedby` and `<label for>` are followed through
/// answers as a scan of the page would: the first element of the frame with the id, and every
/// label of the frame pointing at it, in document order.
#[test]
fn the_id_index_answers_as_a_scan_of_the_page() {
    use sightline_core::snapshot::tree::{NodeKind, PageTree};
    for name in ["forms", "frames", "controls"] {
        let capture = capture(name);
        let tree = PageTree::build(&capture);
        let (mut checked, mut labelled) = (0, 0);
        for node in tree.nodes.iter().filter(|n| n.kind == NodeKind::Element) {
            let Some(id) = node.attr("id") else { continue };
            let same_frame = |n: &&sightline_core::snapshot::tree::Node| n.frame == node.frame;
            let first = tree
                .nodes
                .iter()
                .position(|n| same_frame(&n) && n.kind == NodeKind::Element && n.attr("id") == Some(id));
            assert_eq!(tree.id_index().element(node.frame, id), first, "{name}: #{id}");
            let labels: Vec<usize> = (0..tree.nodes.len())
                .filter(|&i| {
                    let n = &tree.nodes[i];
                    same_frame(&n) && n.tag == "label" && n.attr("for") == Some(id)
                })
                .collect();
            assert_eq!(tree.id_index().labels(node.frame, id).collect::<Vec<_>>(), labels, "{name}: #{id}");
            checked += 1;
            labelled += labels.len();
        }
        assert!(checked > 0, "{name} has no ids to check");
        // `controls` labels its fields with `<label for>`, so the label lookup is checked too.
        assert!(name != "controls" || labelled > 0, "controls has no labels pointing at its fields");
    }
}

#[test]
fn lists_a_list_of_links_only_is_written_without_markers_and_keeps_its_hierarchy() {
    let l = lines("menus");
    let news = l.iter().position(|x| x == "[e1 News]").unwrap_or_else(|| panic!("menu without markers: {l:#?}"));
    assert_eq!(&l[news + 1..news + 5], ["[e2 Sport]", "  [e3 Football]", "  [e4 Tennis]", "[e5 Weather]"], "{l:#?}");
    // An item that is more than one link keeps the markers of its whole list; a list inside
    // such an item that holds only links loses its own.
    let products = l.iter().position(|x| x == "- Products").unwrap_or_else(|| panic!("{l:#?}"));
    assert_eq!(&l[products + 1..products + 4], ["  [e6 Login]", "  [e7 Chat]", "- [e8 Shop]"], "{l:#?}");
    assert!(has_line(&l, "- [e9 Guide] for beginners") && has_line(&l, "- [e10 FAQ]"), "{l:#?}");
    // An ordered list's numbers are content.
    assert!(has_line(&l, "1. [e11 First chapter]") && has_line(&l, "2. [e12 Second chapter]"), "{l:#?}");
    // A list with a control beside its links keeps its markers.
    assert!(has_line(&l, "- [e13 Alone]"), "{l:#?}");
}

// Editable areas -------------------------------------------------------------------------

/// A `contenteditable` area is typed into like a text field: it is a textbox named by its
/// label, its text its value (a line per paragraph, list item and line break), with no ref for
/// the paragraphs inside it (Chrome calls everything in it clickable). A control in a
/// non-editable island inside it keeps its ref; `contenteditable="false"` is plain text. Read
/// with Chrome's tree and with roles derived from the DOM alike.
#[test]
fn editable_areas_are_textboxes_whose_text_is_their_value() {
    let with_tree = capture("editors");
    for (reading, capture) in
        [("Chrome's tree", with_tree.clone()), ("derived", with_tree.without_accessibility_trees())]
    {
        let l: Vec<String> = body(&compile(&capture, &mut RefRegistry::default())).lines().map(str::to_owned).collect();
        let unref: Vec<String> = l.iter().map(|line| without_ref(line.trim_start())).collect();
        let has = |wanted: &str| unref.iter().any(|line| line == wanted);
        assert!(
            has(
                r#"textbox "Message body" = "Dear Ada,\nThe report is here.\nfirst point\nsecond point\n@Grace Remove Grace""#
            ),
            "{reading}: {l:#?}"
        );
        assert!(has(r#"link "here""#) && has(r#"button "Remove Grace""#), "{reading}: {l:#?}");
        assert!(has(r#"textbox "Comment""#), "{reading}: {l:#?}");
        assert!(has(r#"textbox "Title" = "Quarterly numbers""#), "{reading}: {l:#?}");
        assert!(has_line(&l, "Read-only notice"), "{reading}: {l:#?}");
        assert!(has(r#"textbox "Notes" = "first line\nsecond line""#), "{reading}: {l:#?}");
        // Nothing else in the page has a ref: not the paragraphs, the list or the bold word.
        let refs = l.iter().filter(|line| line.trim_start().starts_with('e')).count();
        assert_eq!(refs, 6, "{reading}: {l:#?}");
    }
}

/// `line` with its leading ref (`e12 `) taken off.
fn without_ref(line: &str) -> String {
    let digits = line.strip_prefix('e').map(|rest| rest.chars().take_while(char::is_ascii_digit).count());
    match digits {
        Some(n) if n > 0 && line[1 + n..].starts_with(' ') => line[2 + n..].to_owned(),
        _ => line.to_owned(),
    }
}

/// Text set in several inline elements reads as it is drawn: letters drawn edge to edge run on
/// (a word split over `<em>`s, a word in one span per letter), and texts drawn apart (a count
/// with a margin, a badge in a box of its own, a label below a title) keep a space between
/// them, in a link's text and in its name alike. Checked with Chrome's tree and derived.
#[test]
fn text_split_over_elements_reads_as_it_is_drawn() {
    let with_tree = capture("spaced-text");
    for (reading, capture) in
        [("Chrome's tree", with_tree.clone()), ("derived", with_tree.without_accessibility_trees())]
    {
        let text = body(&compile(&capture, &mut RefRegistry::default()));
        let l: Vec<&str> = text.lines().map(str::trim_start).collect();
        let link_line = |needle: &str| l.iter().find(|line| line.contains(needle)).copied().unwrap_or("");
        // The title stays in its sentence as one inline link, its words whole.
        let film = link_line("Guadagnino");
        assert!(film.ends_with(" Call Me by Your Name] adapts a novel."), "{reading}: {film:?} in {l:#?}");
        assert!(link_line("it.").ends_with(" Google] it."), "{reading}: {l:#?}");
        assert!(link_line("Share").ends_with(" Share 17]"), "{reading}: {l:#?}");
        assert!(link_line("Comments").ends_with(" Comments 941]"), "{reading}: {l:#?}");
        // A link holding a block stands on a line of its own.
        assert!(link_line("Mobile").ends_with(r#" link "Mobile Payment Sponsored""#), "{reading}: {l:#?}");
        assert!(!text.contains("b y") && !text.contains("G o"), "{reading}: {l:#?}");
    }
}

/// A text field naming a `<datalist>` says what it suggests, by the values its options fill in
/// (the first few and a count when there are many); an id that is no datalist suggests nothing,
/// and a suggestion's text cannot pose as a ref.
#[test]
fn a_field_with_a_datalist_says_what_it_suggests() {
    let with_tree = capture("suggestions");
    for (reading, capture) in
        [("Chrome's tree", with_tree.clone()), ("derived", with_tree.without_accessibility_trees())]
    {
        let text = body(&compile(&capture, &mut RefRegistry::default()));
        let l: Vec<&str> = text.lines().map(str::trim_start).collect();
        let field = |name: &str| l.iter().find(|line| line.contains(&format!("\"{name}\""))).copied().unwrap_or("");
        assert!(field("Browser").ends_with(" (suggests Chrome|Firefox|Safari)"), "{reading}: {l:#?}");
        assert!(field("Airport").ends_with(" (suggests AMS|BER|CDG|DUB|… 7 values)"), "{reading}: {l:#?}");
        assert!(field("Seats").ends_with(" (suggests 1|2|4)"), "{reading}: {l:#?}");
        assert!(!field("Note").is_empty() && !field("Note").contains("suggests"), "{reading}: {l:#?}");
        assert!(field("Promo").contains("(suggests SAVE10"), "{reading}: {l:#?}");
        assert!(!text.contains("[e99 Pay"), "a suggestion posed as a link: {reading}: {l:#?}");
    }
}

/// A menu a hover opens (`li:hover > ul { display: block }`) whose trigger is a plain word has
/// no target a person can see but the word: the list item is the target, saying how many links
/// and controls it hides, so an agent can point at it. A trigger that is a link keeps its own
/// ref, and an item that shows a link, or hides nothing, gets none.
#[test]
fn a_menu_a_hover_opens_is_reached_through_its_trigger() {
    let with_tree = capture("hover-menu");
    for (reading, capture) in
        [("Chrome's tree", with_tree.clone()), ("derived", with_tree.without_accessibility_trees())]
    {
        let text = body(&compile(&capture, &mut RefRegistry::default()));
        let l: Vec<&str> = text.lines().map(str::trim_start).collect();
        let line = |word: &str| l.iter().find(|line| line.contains(word)).copied().unwrap_or("");
        let trigger = |line: &str| line.starts_with('e') && line.contains(" clickable ");
        assert!(
            trigger(line("Products")) && line("Products").ends_with("\"Products\" (3 hidden links)"),
            "{reading}: {l:#?}"
        );
        assert!(
            trigger(line("Account")) && line("Account").ends_with("\"Account\" (1 hidden link, 1 hidden control)"),
            "{reading}: {l:#?}"
        );
        assert!(line("About").contains(" About]") && !line("About").contains("hidden"), "{reading}: {l:#?}");
        for plain in ["Help", "An ordinary item", "An item with"] {
            assert!(
                !line(plain).is_empty() && !trigger(line(plain)) && !line(plain).contains("hidden"),
                "{reading}: {l:#?}"
            );
        }
        // A styled checkbox hides its native box behind the label a person clicks: no menu.
        assert!(line("Remember me").contains("checkbox \"Remember me\"") && !line("Remember me").contains("hidden"));
        // A box whose own child is a dropdown's content the page hides, under a short label.
        assert!(
            trigger(line("Services")) && line("Services").ends_with("\"Services\" (2 hidden links)"),
            "{reading}: {l:#?}"
        );
        // Content with a hidden part is no menu: words longer than a label, targets hidden
        // deeper than a child of the box, or a hidden link that is the box's own child (a
        // follow button shown after a share).
        for content in ["This paragraph is content", "Hidden deeper", "Thanks for sharing!"] {
            assert!(!line(content).is_empty() && !trigger(line(content)), "{reading}: {l:#?}");
        }
        // A box around a toggle bound by a listener: the toggle is the target, alone.
        assert!(line("Log in").ends_with("clickable \"Log in\""), "{reading}: {l:#?}");
        assert_eq!(l.iter().filter(|line| line.contains("Log in")).count(), 1, "{reading}: {l:#?}");
        for hidden in ["Alpha", "Team", "Profile", "Sign out", "more]", "Design", "Share", "Deep", "Follow", "Sign in"]
        {
            assert!(!text.contains(hidden), "{hidden} is hidden: {reading}: {l:#?}");
        }
    }
}

/// The node key of the element with `id` in the main document of `capture`.
fn key_of_id(capture: &Capture, id: &str) -> NodeKey {
    let snapshot = &capture.main.snapshot;
    let document = &snapshot.documents[0];
    let nodes = &document.nodes;
    let at = (0..nodes.backend_node_id.len())
        .find(|&i| {
            nodes.attributes.get(i).is_some_and(|pairs| {
                pairs
                    .chunks(2)
                    .any(|kv| snapshot.string(kv[0]) == "id" && kv.get(1).is_some_and(|&v| snapshot.string(v) == id))
            })
        })
        .unwrap_or_else(|| panic!("no element with id {id}"));
    let frame = &capture.main.frame_tree.frame_tree.frame;
    NodeKey {
        frame_id: frame.id.clone(),
        loader_id: frame.loader_id.clone(),
        backend_node_id: nodes.backend_node_id[at],
    }
}

/// The pointer that opened a hover menu rests on its trigger: the menu shows, so the item no
/// longer hides anything. A trigger the agent was given a ref for keeps it while its menu
/// shows, named by its own words ("Products", not the links' or the menu's text), with the
/// menu's links one level in; an item nobody named, shown open, is text with its links, as any
/// list item with links is.
#[test]
fn a_hover_menus_trigger_keeps_its_ref_while_its_menu_shows() {
    let open = capture("hover-menu-open");
    // Never named: the item's word is text, its links are links.
    let text = body(&compile(&open, &mut RefRegistry::default()));
    assert!(!text.contains("clickable"), "{text}");
    assert!(text.contains(" Beta]"), "{text}");
    // Named while its menu was hidden (as `e1 clickable "Products" (3 hidden links)`).
    let mut refs = RefRegistry::default();
    let named = ElementIdentity {
        main_frame: true,
        region: "nav".into(),
        role: "clickable".into(),
        name: "Products".into(),
        ordinal: 0,
    };
    assert_eq!(refs.assign_refs(&[(key_of_id(&open, "products"), named)]), vec![1]);
    let text = body(&compile(&open, &mut refs));
    let l: Vec<&str> = text.lines().collect();
    let at = l.iter().position(|line| line.trim_start().starts_with("e1 ")).unwrap_or_else(|| panic!("{l:#?}"));
    assert_eq!(l[at].trim_start(), "e1 clickable \"Products\"", "its own word, nothing hidden: {l:#?}");
    let indent = |line: &str| line.len() - line.trim_start().len();
    for link in ["Alpha]", "Beta]", "Gamma]"] {
        let shown = l.iter().position(|line| line.contains(link)).unwrap_or_else(|| panic!("{link}: {l:#?}"));
        assert!(shown > at && indent(l[shown]) > indent(l[at]), "{link} is in the menu, under its trigger: {l:#?}");
    }
    // An item that never had a ref does not get one by being shown open.
    assert!(!text.contains("clickable \"Help\""), "{l:#?}");
    assert!(!text.contains("clickable \"Services\""), "{l:#?}");
    // A box named while its dropdown was hidden keeps its ref the same way.
    let named = ElementIdentity {
        main_frame: true,
        region: String::new(),
        role: "clickable".into(),
        name: "Services".into(),
        ordinal: 0,
    };
    let services = refs.assign_refs(&[(key_of_id(&open, "services"), named)])[0];
    let text = body(&compile(&open, &mut refs));
    let l: Vec<&str> = text.lines().collect();
    let own = format!("e{services} clickable \"Services\"");
    let at = l.iter().position(|line| line.trim_start() == own).unwrap_or_else(|| panic!("{own}: {l:#?}"));
    let design = l.iter().position(|line| line.contains("Design]")).unwrap_or_else(|| panic!("{l:#?}"));
    assert!(design > at && indent(l[design]) > indent(l[at]), "{l:#?}");
}
