//! Fidelity on real pages: every capture of the readability corpus that `cargo xtask test`
//! recorded (with its ground truth) is compiled natively and measured.
//!
//! * every visible interactive element has a ref (100 %, on every page);
//! * at least 99.5 % of the words of the pages' `innerText` appear in the snapshots, over the
//!   corpus, and at least 99 % on every single page (select options a snapshot summarises are
//!   reported apart: see `sightline_e2e::fidelity`);
//! * the same capture always renders to the same bytes.

use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_core::snapshot::render::{RenderOptions, render};
use sightline_e2e::fidelity::{RecordedPage, measure};

fn captures_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("SIGHTLINE_CORPUS_CAPTURES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| sightline_e2e::paths::workspace_root().join("target/captures/corpus-all"));
    dir.is_dir().then_some(dir)
}

#[test]
fn corpus_pages_keep_every_control_and_their_text() {
    let dir = captures_dir();
    if !sightline_e2e::paths::present_or_skip(
        "the corpus captures (`cargo xtask test` records them from ../shared/corpus)",
        dir.is_some(),
    ) {
        return;
    }
    let Some(dir) = dir else { return };
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.path()).collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "json"));
    paths.sort();
    assert!(!paths.is_empty(), "no captures in {}", dir.display());
    let (mut words, mut covered) = (0usize, 0usize);
    let mut problems = Vec::new();
    println!("{:<30} {:>11} {:>8} {:>8}", "page", "interactive", "text", "raw");
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let capture: Capture = serde_json::from_slice(&bytes).unwrap();
        let recorded: RecordedPage = serde_json::from_slice(&bytes).unwrap();
        let mut refs = RefRegistry::default();
        let snapshot = compile(&capture, &mut refs);
        let f = measure(&capture, &recorded, &snapshot);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        println!(
            "{name:<30} {:>5}/{:<5} {:>7.2}% {:>7.2}%",
            f.interactive_covered,
            f.interactive_total,
            f.text_without_closed_select_options() * 100.0,
            f.text() * 100.0
        );
        words += f.words_total - f.option_words_missing;
        covered += f.words_covered;
        if f.interactive_covered != f.interactive_total {
            problems.push(format!("{name}: no ref for {:?}", f.missing));
        }
        if f.text_without_closed_select_options() < 0.99 {
            problems.push(format!(
                "{name}: text coverage {:.2}%, missing {:?}",
                f.text_without_closed_select_options() * 100.0,
                f.missing_words
            ));
        }
        let again = compile(&capture, &mut refs);
        let options = RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() };
        assert_eq!(render(&snapshot, 1, &options).text, render(&again, 1, &options).text, "{name}: not deterministic");
    }
    let overall = covered as f64 / words.max(1) as f64;
    println!("{} pages, text coverage over the corpus {:.3}%", paths.len(), overall * 100.0);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(overall >= 0.995, "corpus text coverage {:.3}% < 99.5%", overall * 100.0);
}
