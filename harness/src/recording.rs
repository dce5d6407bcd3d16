//! Recording (`cargo xtask capture`): the CDP payloads one Sightline capture gathers, plus the
//! page's ground truth, so the engine's tests and benchmarks run natively on real pages.

use std::path::{Path, PathBuf};

use crate::FixtureServer;
use crate::cdp::CdpBrowser;
use crate::paths::{self, Corpus};
use anyhow::Context;

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
    /// Capture pages of a corpus under ../shared/corpus: `readability` (the default, a fixed
    /// subset unless --all) or `trafilatura` (always every page).
    #[arg(long, num_args = 0..=1, default_missing_value = "readability", value_parser = parse_corpus)]
    pub corpus: Option<Corpus>,
    /// With --corpus: every page.
    #[arg(long)]
    pub all: bool,
    /// Output directory; one `<name>.json` per page. By default `target/captures`, and for a
    /// whole corpus the folder the fidelity gate, `cargo xtask tokens` and the bench read it from
    /// (`target/captures/corpus-all`, `target/captures/corpus-trafilatura`).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl CaptureArgs {
    /// Where the pages named on the command line go.
    fn pages_out(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| paths::workspace_root().join("target/captures"))
    }

    /// Whether every page of `corpus` is captured (trafilatura always is).
    fn whole(&self, corpus: Corpus) -> bool {
        self.all || corpus != Corpus::Readability
    }

    /// Where the pages of `corpus` go: a whole corpus where its readers look for it.
    fn corpus_out(&self, corpus: Corpus) -> PathBuf {
        match &self.out {
            Some(out) => out.clone(),
            None if self.whole(corpus) => corpus.captures_dir(),
            None => self.pages_out(),
        }
    }
}

fn parse_corpus(name: &str) -> Result<Corpus, String> {
    Corpus::ALL
        .into_iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| format!("no corpus {name:?}; there are {:?}", Corpus::ALL.map(Corpus::name)))
}

/// Records every requested page.
pub fn run(args: &CaptureArgs) -> anyhow::Result<()> {
    let mut browser = CdpBrowser::launch()?;
    let mut count = 0;
    let out = args.pages_out();
    let mut places = Vec::new();
    if !args.pages.is_empty() {
        std::fs::create_dir_all(&out)?;
        places.push(out.clone());
    }
    for page in &args.pages {
        if page.starts_with("http://") || page.starts_with("https://") {
            let name = page.trim_end_matches('/').rsplit('/').next().unwrap_or("page").replace(['?', '&', '='], "_");
            save(&mut browser, page, &out.join(format!("{name}.json")))?;
        } else {
            let path = Path::new(page).canonicalize().with_context(|| format!("no such file {page}"))?;
            let dir = path.parent().context("file without a directory")?;
            let server = FixtureServer::start(dir)?;
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("page");
            let file = path.file_name().and_then(|s| s.to_str()).unwrap_or_default();
            save(&mut browser, &server.url(file), &out.join(format!("{name}.json")))?;
        }
        count += 1;
    }
    if let Some(corpus) = args.corpus {
        let out = args.corpus_out(corpus);
        std::fs::create_dir_all(&out)?;
        let dir =
            corpus.dir().with_context(|| format!("the {} corpus is not at {}", corpus.name(), corpus.expected_at()))?;
        let server = FixtureServer::start(&dir)?;
        let cases: Vec<String> = if args.whole(corpus) {
            corpus.cases(&dir)?
        } else {
            CORPUS_SUBSET.iter().map(|s| s.to_string()).collect()
        };
        for case in cases {
            save(&mut browser, &server.url(&corpus.page(&case)), &out.join(format!("{case}.json")))?;
            count += 1;
        }
        places.push(out);
    }
    places.dedup();
    let places: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
    eprintln!("xtask: {count} capture(s) in {}", places.join(" and "));
    Ok(())
}

fn save(browser: &mut CdpBrowser, url: &str, out: &Path) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let capture = crate::capture::record(browser, url).with_context(|| format!("capturing {url}"))?;
    std::fs::write(out, serde_json::to_vec(&capture)?)?;
    eprintln!("xtask: captured {url} → {} in {:.1} s", out.display(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Records every page of every corpus for the fidelity gate, unless captures newer than
/// everything that shapes them are already there. A corpus that is absent fails the run under
/// CI (a gate that passes by skipping guards nothing); elsewhere the fidelity test says it
/// skipped it.
pub fn ensure_corpus_captures() -> anyhow::Result<()> {
    for corpus in Corpus::ALL {
        ensure_captures_of(corpus)?;
    }
    Ok(())
}

fn ensure_captures_of(corpus: Corpus) -> anyhow::Result<()> {
    let Some(dir) = corpus.dir() else {
        anyhow::ensure!(
            !paths::in_ci(),
            "no {} corpus at {}, and under CI=true the fidelity gate may not skip",
            corpus.name(),
            corpus.expected_at()
        );
        eprintln!("xtask: no {} corpus at {}; the fidelity test will skip it", corpus.name(), corpus.expected_at());
        return Ok(());
    };
    let root = paths::workspace_root();
    let out = corpus.captures_dir();
    let pages = corpus.cases(&dir)?.len();
    let newest_input = [
        "harness/src/ground_truth.js",
        "harness/src/capture.rs",
        "core/src/capture/mod.rs",
        "core/src/capture/plan/mod.rs",
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
    run(&CaptureArgs { pages: Vec::new(), corpus: Some(corpus), all: true, out: Some(out) })
}
