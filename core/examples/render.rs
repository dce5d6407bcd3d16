//! Renders recorded captures the way `browser_snapshot` would, with the pipeline's stats.
//!
//! `cargo run -p sightline-core --example render -- target/captures/shop.json [--bbox]`

use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::{compile, render};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bbox = args.iter().any(|a| a == "--bbox");
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let capture: Capture = serde_json::from_slice(&std::fs::read(path)?)?;
        let mut refs = RefRegistry::default();
        let started = std::time::Instant::now();
        let snapshot = compile(&capture, &mut refs);
        let elapsed = started.elapsed();
        let options = render::RenderOptions { bbox, ceiling_tokens: usize::MAX, ..Default::default() };
        println!("{}", render::render(&snapshot, 1, &options).text);
        eprintln!("{path}: {:?} in {:.1} ms", snapshot.stats, elapsed.as_secs_f64() * 1000.0);
    }
    Ok(())
}
