//! Every rule of what a snapshot drops, one test each, on the capture of one fixture page
//! (`tests/fixtures/pipeline/dropped.html`, recorded from Chromium with `cargo xtask capture`).
//!
//! Each rule is checked twice: on the capture as recorded, with Chrome's accessibility tree,
//! and without it, with roles and names derived from the DOM snapshot as the extension reads
//! them (`sightline_core::snapshot::semantics`). The exceptions to each rule are checked on the
//! same page, so a rule that dropped everything would fail too.

use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_core::snapshot::render::{RenderOptions, render};

fn capture() -> Capture {
    let path = format!("{}/tests/captures/dropped.json", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_slice(&bytes).expect("capture parses")
}

/// The body of the page's snapshot (after the two header lines), read with Chrome's tree and
/// with derived semantics.
fn readings() -> [(&'static str, Vec<String>); 2] {
    let read = |capture: Capture| {
        let snapshot = compile(&capture, &mut RefRegistry::default());
        let text = render(&snapshot, 1, &RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() }).text;
        text.lines().skip(2).map(str::to_owned).collect::<Vec<_>>()
    };
    [("Chrome's tree", read(capture())), ("derived semantics", read(capture().without_accessibility_trees()))]
}

fn mentions(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

/// A line, with its ref numbers (`e12`) taken out: refs are numbered by order on the page.
fn has_line_like(lines: &[String], wanted: &str) -> bool {
    let unref = |line: &str| {
        let mut out = String::new();
        let mut chars = line.trim_start().chars().peekable();
        while let Some(c) = chars.next() {
            let starts_ref =
                c == 'e' && chars.peek().is_some_and(char::is_ascii_digit) && !out.ends_with(char::is_alphanumeric);
            if starts_ref {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                out.push_str("eN");
            } else {
                out.push(c);
            }
        }
        out
    };
    lines.iter().any(|l| unref(l) == wanted)
}

/// The page's ordinary content is there in every reading: the drops below are the rules', not
/// a page that failed to load.
#[test]
fn the_page_around_the_dropped_content_is_read() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "Shown paragraph."), "{how}: {l:#?}");
        assert!(has_line_like(&l, "Last shown paragraph."), "{how}: {l:#?}");
    }
}

#[test]
fn display_none_is_dropped() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Display none"), "{how}: {l:#?}");
    }
}

#[test]
fn visibility_hidden_is_dropped() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Hidden visibility"), "{how}: {l:#?}");
    }
}

#[test]
fn opacity_zero_drops_the_whole_subtree() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Transparent"), "{how}: {l:#?}");
    }
}

#[test]
fn a_zero_size_element_is_dropped() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Zero size button"), "{how}: {l:#?}");
    }
}

#[test]
fn the_hidden_attribute_is_dropped() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Hidden attribute"), "{how}: {l:#?}");
    }
}

/// `aria-hidden` takes what it holds out of the accessibility tree: no ref, no role, no image;
/// the words a sighted person still sees on screen stay, as plain text.
#[test]
fn aria_hidden_content_loses_its_refs_roles_and_images_and_keeps_its_painted_words() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "Painted words hidden from assistive technology."), "{how}: {l:#?}");
        assert!(has_line_like(&l, "Link hidden from assistive technology"), "{how}: plain text, no ref: {l:#?}");
        assert!(!mentions(&l, "(#deco)") && !mentions(&l, "link \"Link hidden"), "{how}: {l:#?}");
        assert!(!mentions(&l, "Picture hidden from assistive technology"), "{how}: {l:#?}");
    }
}

#[test]
fn an_open_dialog_marked_aria_hidden_keeps_everything() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "An open dialog marked aria-hidden."), "{how}: {l:#?}");
        assert!(has_line_like(&l, "eN button \"Dialog button\""), "{how}: {l:#?}");
    }
}

#[test]
fn noise_tags_are_dropped() {
    for (how, l) in readings() {
        for noise in ["Script words", "Style words", "Template words", "Noscript words"] {
            assert!(!mentions(&l, noise), "{how}: {noise}: {l:#?}");
        }
    }
}

#[test]
fn a_lone_separator_is_dropped_outside_controls_and_kept_inside_them() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "[eN Alpha] [eN Beta]"), "{how}: {l:#?}");
        assert!(has_line_like(&l, "eN button \"»\""), "{how}: {l:#?}");
    }
}

#[test]
fn an_element_another_covers_entirely_is_dropped() {
    for (how, l) in readings() {
        assert!(!mentions(&l, "Covered words"), "{how}: {l:#?}");
    }
}

#[test]
fn an_inline_box_covers_nothing() {
    for (how, l) in readings() {
        assert!(
            has_line_like(
                &l,
                "[eN Highlighted] [eN Interviews] [eN A category whose name is long enough to wrap over two lines of \
                 this narrow column]"
            ),
            "{how}: {l:#?}"
        );
    }
}

#[test]
fn a_box_folded_into_a_zero_height_wrapper_covers_nothing() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "[eN Letters to the editor]"), "{how}: {l:#?}");
    }
}

#[test]
fn a_strip_fixed_across_the_viewport_covers_nothing() {
    for (how, l) in readings() {
        assert!(has_line_like(&l, "Cookie bar"), "{how}: {l:#?}");
        assert!(has_line_like(&l, "Words the cookie bar lies over."), "{how}: {l:#?}");
    }
}

#[test]
fn a_modal_covers_what_lies_beneath_it() {
    for (how, l) in readings() {
        assert!(mentions(&l, "Sign up for the newsletter."), "{how}: {l:#?}");
        assert!(!mentions(&l, "Words under the modal"), "{how}: {l:#?}");
    }
}
