//! The whole snapshot pipeline (compile and render) on the largest captures available: the
//! readability corpus captures recorded by `cargo xtask test` or `cargo xtask capture --corpus
//! --all` when present, else the fixture captures committed with the engine's tests.

use criterion::{Criterion, criterion_main};
use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_core::snapshot::render::{RenderOptions, render};

fn largest_captures(count: usize) -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../target/captures/corpus-all");
    let dir = if corpus.is_dir() { corpus } else { root.join("tests/captures") };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("captures directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    files
        .into_iter()
        .take(count)
        .map(|p| {
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            (name, std::fs::read(&p).expect("readable capture"))
        })
        .collect()
}

fn pipeline(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(20);
    for (name, bytes) in largest_captures(3) {
        let capture: Capture = serde_json::from_slice(&bytes).expect("capture parses");
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| serde_json::from_slice::<Capture>(&bytes).expect("capture parses"))
        });
        group.bench_function(format!("compile+render/{name}"), |b| {
            b.iter(|| {
                let mut refs = RefRegistry::default();
                let snapshot = compile(&capture, &mut refs);
                render(&snapshot, 1, &RenderOptions::default()).text.len()
            })
        });
        // The same capture without its accessibility trees: roles and names derived from the DOM.
        let bare = capture.clone().without_accessibility_trees();
        group.bench_function(format!("compile+render, derived semantics/{name}"), |b| {
            b.iter(|| {
                let mut refs = RefRegistry::default();
                let snapshot = compile(&bare, &mut refs);
                render(&snapshot, 1, &RenderOptions::default()).text.len()
            })
        });
    }
    group.finish();
}

/// Criterion's entry points (its macro defines a public function without documentation).
#[allow(missing_docs)]
mod entry {
    criterion::criterion_group!(benches, super::pipeline);
}
criterion_main!(entry::benches);
