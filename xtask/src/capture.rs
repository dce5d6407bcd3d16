//! `cargo xtask capture`: records the CDP payloads one Sightline capture gathers, plus the
//! page's ground truth, so the engine's tests and benchmarks run natively on real pages.

use std::path::{Path, PathBuf};

use anyhow::Context;
use sightline_e2e::cdp::CdpBrowser;
use sightline_e2e::{FixtureServer, paths};

/// Pages of the readability corpus captured by `--corpus` without `--all`: varied layouts
/// (news, blogs, wikis, forums), with and without heavy navigation.
pub const CORPUS_SUBSET: &[&str] = &[
    "aclu",
    "ars-1",
    "bbc-1",
    "blogger",
    "breitbart",
    "buzzfeed-1",
    "cnn",
    "engadget",
    "guardian-1",
    "lemonde-1",
    "medium-1",
    "nytimes-1",
    "wikipedia",
    "wordpress",
    "yahoo-1",
];

/// What to capture.
#[derive(clap::Args)]
pub struct CaptureArgs {
    /// Files (served from 127.0.0.1) or http(s) URLs.
    pub pages: Vec<String>,
    /// Capture pages of the readability corpus (a fixed subset unless --all).
    #[arg(long)]
    pub corpus: bool,
    /// With --corpus: every page.
    #[arg(long)]
    pub all: bool,
    /// Output directory; one `<name>.json` per page.
    #[arg(long, default_value = "target/captures")]
    pub out: PathBuf,
}

/// Records every requested page.
pub fn run(args: &CaptureArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)?;
    let mut browser = CdpBrowser::launch()?;
    let mut count = 0;
    for page in &args.pages {
        if page.starts_with("http://") || page.starts_with("https://") {
            let name = page.trim_end_matches('/').rsplit('/').next().unwrap_or("page").replace(['?', '&', '='], "_");
            save(&mut browser, page, &args.out.join(format!("{name}.json")))?;
        } else {
            let path = Path::new(page).canonicalize().with_context(|| format!("no such file {page}"))?;
            let dir = path.parent().context("file without a directory")?;
            let server = FixtureServer::start(dir)?;
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("page");
            let file = path.file_name().and_then(|s| s.to_str()).unwrap_or_default();
            save(&mut browser, &server.url(file), &args.out.join(format!("{name}.json")))?;
        }
        count += 1;
    }
    if args.corpus {
        let corpus = paths::corpus_dir().context("the readability corpus is not at ../shared/corpus/readability")?;
        let server = FixtureServer::start(&corpus)?;
        let cases: Vec<String> = if args.all {
            let mut all: Vec<String> = std::fs::read_dir(&corpus)?
                .filter_map(Result::ok)
                .filter(|e| e.path().join("source.html").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            all.sort();
            all
        } else {
            CORPUS_SUBSET.iter().map(|s| s.to_string()).collect()
        };
        for case in cases {
            save(&mut browser, &server.url(&format!("{case}/source.html")), &args.out.join(format!("{case}.json")))?;
            count += 1;
        }
    }
    eprintln!("xtask: {count} capture(s) in {}", args.out.display());
    Ok(())
}

fn save(browser: &mut CdpBrowser, url: &str, out: &Path) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let capture = sightline_e2e::capture::record(browser, url).with_context(|| format!("capturing {url}"))?;
    std::fs::write(out, serde_json::to_vec(&capture)?)?;
    eprintln!("xtask: captured {url} → {} in {:.1} s", out.display(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Where `cargo xtask test` keeps the captures of the whole corpus.
pub const CORPUS_CAPTURES: &str = "target/captures/corpus-all";

/// Records every corpus page for the fidelity test, unless captures newer than everything
/// that shapes them are already there. Without the corpus there is nothing to do (the test
/// says it skipped).
pub fn ensure_corpus_captures() -> anyhow::Result<()> {
    let Some(corpus) = paths::corpus_dir() else {
        anyhow::ensure!(
            !paths::in_ci(),
            "no corpus at ../shared/corpus/readability, and under CI=true the fidelity gate may not skip"
        );
        eprintln!("xtask: no corpus at ../shared/corpus/readability; the fidelity test will skip");
        return Ok(());
    };
    let root = crate::build::workspace_root();
    let out = root.join(CORPUS_CAPTURES);
    let pages =
        std::fs::read_dir(&corpus)?.filter_map(Result::ok).filter(|e| e.path().join("source.html").is_file()).count();
    let newest_input = [
        "tests/src/ground_truth.js",
        "tests/src/capture.rs",
        "core/src/capture/mod.rs",
        "core/src/capture/plan.rs",
        "extension/runtime/src/hooks/settle.js",
    ]
    .iter()
    .filter_map(|p| std::fs::metadata(root.join(p)).and_then(|m| m.modified()).ok())
    .max();
    let captured: Vec<std::time::SystemTime> = std::fs::read_dir(&out)
        .map(|d| d.filter_map(Result::ok).filter_map(|e| e.metadata().and_then(|m| m.modified()).ok()).collect())
        .unwrap_or_default();
    let fresh = captured.len() >= pages && newest_input.is_some_and(|input| captured.iter().all(|t| *t >= input));
    if fresh {
        return Ok(());
    }
    run(&CaptureArgs { pages: Vec::new(), corpus: true, all: true, out })
}
