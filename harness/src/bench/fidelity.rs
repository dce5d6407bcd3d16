//! Sightline's fidelity over one corpus, beside its token figures: every case's capture (recorded
//! with its ground truth by `cargo xtask test` or `cargo xtask capture --corpus NAME --all`) is
//! compiled natively by the pipeline the extension runs and measured, and the pages are added up
//! with each kind of discounted word counted apart (see `crate::fidelity`).

use crate::fidelity::{CorpusFidelity, RecordedPage, measure};
use crate::paths::Corpus;
use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;

/// The fidelity of `cases` of `corpus`, and the cases that have no capture to measure.
pub fn over(corpus: Corpus, cases: &[String]) -> (Option<CorpusFidelity>, Vec<String>) {
    let mut all = CorpusFidelity::default();
    let mut missing = Vec::new();
    for case in cases {
        let path = corpus.captures_dir().join(format!("{case}.json"));
        let parsed = std::fs::read(&path).ok().and_then(|bytes| {
            let capture = serde_json::from_slice::<Capture>(&bytes).ok()?.without_accessibility_trees();
            let recorded = serde_json::from_slice::<RecordedPage>(&bytes).ok()?;
            Some((capture, recorded))
        });
        let Some((capture, recorded)) = parsed else {
            missing.push(case.clone());
            continue;
        };
        let snapshot = compile(&capture, &mut RefRegistry::default());
        all.add(case, &measure(&capture, &recorded, &snapshot));
    }
    ((all.pages > 0).then_some(all), missing)
}
