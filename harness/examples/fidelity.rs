//! Prints the fidelity and size of the snapshot of every capture in a directory.
//!
//! `cargo run -p sightline-harness --example fidelity -- target/captures/corpus`

use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::compile;
use sightline_harness::fidelity::{RecordedPage, measure};

fn main() -> anyhow::Result<()> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "target/captures/corpus".into());
    let verbose = std::env::args().any(|a| a == "-v");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)?.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    println!("{:<22} {:>8} {:>11} {:>8} {:>8} {:>7}", "page", "tokens~", "interactive", "text", "raw", "ms");
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
        let bytes = std::fs::read(path)?;
        let capture: Capture = serde_json::from_slice(&bytes)?;
        let recorded: RecordedPage = serde_json::from_slice(&bytes)?;
        let mut refs = RefRegistry::default();
        let started = std::time::Instant::now();
        let snapshot = compile(&capture, &mut refs);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let f = measure(&capture, &recorded, &snapshot);
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        println!(
            "{name:<22} {:>8} {:>5}/{:<5} {:>7.2}% {:>7.2}% {ms:>7.1}",
            snapshot.stats.estimated_tokens,
            f.interactive_covered,
            f.interactive_total,
            f.text_shown() * 100.0,
            f.text() * 100.0
        );
        if let Some(word) = std::env::args().skip_while(|a| a != "--why").nth(1) {
            explain(&capture, |n| n.text.to_lowercase().contains(&word.to_lowercase()));
        }
        if let Some(id) = std::env::args().skip_while(|a| a != "--node").nth(1).and_then(|i| i.parse::<i64>().ok()) {
            explain(&capture, |n| n.backend_id == id);
        }
        if verbose {
            println!("    missing elements: {:?}\n    missing words: {:?}", f.missing, f.missing_words);
        }
    }
    Ok(())
}

/// Prints every node `wanted` picks, with the pipeline's verdict and its ancestors.
fn explain(capture: &Capture, wanted: impl Fn(&sightline_core::snapshot::tree::Node) -> bool) {
    use sightline_core::snapshot::{actionable, signal, tree::PageTree};
    let tree = PageTree::build(capture);
    let candidates = actionable::candidates(&tree);
    let mut verdict = signal::filter(&tree, &candidates);
    sightline_core::snapshot::occlusion::apply(&tree, &mut verdict);
    for (id, node) in tree.nodes.iter().enumerate() {
        if !wanted(node) {
            continue;
        }
        println!(
            "  node {} <{}> role {:?} candidate {} hidden-from-at {} attrs {:?}",
            node.backend_id,
            node.tag,
            node.ax.role(),
            candidates[id],
            verdict.ax_hidden[id],
            node.attrs
        );
        let chain: Vec<String> = tree
            .ancestors(id)
            .take(30)
            .map(|a| {
                let n = &tree.nodes[a];
                let l = n
                    .layout
                    .as_ref()
                    .map(|l| format!("{} {:?} op{} vis{}", l.display, l.bounds, l.opacity, l.visibility))
                    .unwrap_or("-".into());
                format!("{}[{}]{:?} {} {}", n.tag, n.ax.role(), verdict.dropped[a], n.attr("class").unwrap_or(""), l)
            })
            .collect();
        println!(
            "  text {:?} → {:?} layout {:?}\n    {}",
            node.text.trim(),
            verdict.dropped[id],
            node.layout.as_ref().map(|l| l.bounds),
            chain.join("\n    ")
        );
    }
}
