//! Fidelity on real pages: every capture of each corpus that `cargo xtask test` recorded (with
//! its ground truth) is compiled natively and measured, each corpus apart.
//!
//! * every visible interactive element has a ref: on every page of the readability corpus, and
//!   over at least 99.5 % of them on the trafilatura corpus;
//! * at least 99.5 % of the words of the pages' `innerText` a user can see appear in the
//!   snapshots, over each corpus, and at least 99 % on every single page (select options a
//!   snapshot summarises and text an opaque element covers are counted apart, with their counts:
//!   see `sightline_harness::fidelity`);
//! * the same capture always renders to the same bytes.

use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_core::snapshot::render::{RenderOptions, render};
use sightline_harness::fidelity::{CorpusFidelity, RecordedPage, measure};
use sightline_harness::paths::{self, Corpus};

/// What one corpus must reach.
struct Gate {
    /// Every page must give every interactive element a ref.
    every_page_every_control: bool,
    /// Interactive coverage over the corpus.
    interactive: f64,
    /// Text coverage (words shown) over the corpus.
    text: f64,
    /// Text coverage (words shown) on each page.
    text_per_page: f64,
}

fn captures_dir(corpus: Corpus) -> Option<std::path::PathBuf> {
    let dir = corpus.captures_dir();
    dir.is_dir().then_some(dir)
}

/// Measures every capture of `corpus`, prints one row per page and the corpus's figures, and
/// checks them against `gate`.
fn check(corpus: Corpus, gate: Gate) {
    let dir = captures_dir(corpus);
    if !paths::present_or_skip(
        &format!(
            "the {} corpus captures (`cargo xtask test` records them from {})",
            corpus.name(),
            corpus.expected_at()
        ),
        dir.is_some(),
    ) {
        return;
    }
    let Some(dir) = dir else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the captures directory is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    assert!(!files.is_empty(), "no captures in {}", dir.display());
    let mut all = CorpusFidelity::default();
    let mut problems = Vec::new();
    println!("{} corpus", corpus.name());
    println!("{:<40} {:>11} {:>8} {:>8}", "page", "interactive", "text", "raw");
    for path in &files {
        let bytes = std::fs::read(path).expect("a readable capture");
        // Read as the extension reads a page: roles and names derived from the DOM snapshot.
        let capture = serde_json::from_slice::<Capture>(&bytes).expect("a capture").without_accessibility_trees();
        let recorded: RecordedPage = serde_json::from_slice(&bytes).expect("a ground truth");
        let mut refs = RefRegistry::default();
        let snapshot = compile(&capture, &mut refs);
        let f = measure(&capture, &recorded, &snapshot);
        let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        println!(
            "{name:<40} {:>5}/{:<5} {:>7.2}% {:>7.2}%",
            f.interactive_covered,
            f.interactive_total,
            f.text_shown() * 100.0,
            f.text() * 100.0
        );
        all.add(&name, &f);
        if gate.every_page_every_control && f.interactive_covered != f.interactive_total {
            problems.push(format!("{name}: no ref for {:?}", f.missing));
        }
        if f.text_shown() < gate.text_per_page {
            problems.push(format!(
                "{name}: text coverage {:.2}%, missing {:?}",
                f.text_shown() * 100.0,
                f.missing_words
            ));
        }
        let again = compile(&capture, &mut refs);
        let options = RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() };
        assert_eq!(render(&snapshot, 1, &options).text, render(&again, 1, &options).text, "{name}: not deterministic");
    }
    let (lowest, lowest_text) = all.lowest_page_text().unwrap_or(("", 1.0));
    println!(
        "{} pages: interactive {}/{} ({:.2}%), text {:.3}% of the words shown (median page {:.2}%, lowest {lowest} \
         {:.2}%), raw {:.3}%; discounted: {} words of closed select options, {} words of covered text",
        all.pages,
        all.interactive_covered,
        all.interactive_total,
        all.interactive() * 100.0,
        all.text_shown() * 100.0,
        all.median_page_text() * 100.0,
        lowest_text * 100.0,
        all.text_raw() * 100.0,
        all.option_words_missing,
        all.covered_words_missing,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        all.interactive() >= gate.interactive,
        "{} interactive coverage {:.3}% < {:.1}%",
        corpus.name(),
        all.interactive() * 100.0,
        gate.interactive * 100.0
    );
    assert!(
        all.text_shown() >= gate.text,
        "{} text coverage {:.3}% < {:.1}%",
        corpus.name(),
        all.text_shown() * 100.0,
        gate.text * 100.0
    );
}

#[test]
fn readability_pages_keep_every_control_and_their_text() {
    check(
        Corpus::Readability,
        Gate { every_page_every_control: true, interactive: 1.0, text: 0.995, text_per_page: 0.99 },
    );
}

#[test]
fn trafilatura_pages_keep_every_control_and_their_text() {
    check(
        Corpus::Trafilatura,
        Gate { every_page_every_control: false, interactive: 0.995, text: 0.995, text_per_page: 0.99 },
    );
}
