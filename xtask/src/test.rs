//! `cargo xtask test`: installs what the tests need, builds, and runs every test.
//!
//! On a small machine the run is bounded by what keeps the processors busy, so the steps that
//! mostly wait are run beside those that compute: the downloads (npm, PyPI) and the recording of
//! the corpus pages (a browser loading 200 pages) happen while the tests compile, and the idle
//! drill (ten minutes in which nothing is asked) runs as a process of its own, started as soon
//! as its binary and the host are compiled, beside the rest of the compilation and every other
//! test instead of holding one of their threads.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::build::{self, cargo, workspace_root};
use crate::{dist, setup};
use sightline_harness::Built;

/// The end-to-end test that waits ten minutes without a call (see `harness/tests/e2e/idle.rs`).
const IDLE_DRILL: &str = "idle::after_10_idle_minutes_the_next_call_answers";

/// Where the tests' own release packages go (built from the tested host; `cargo xtask dist`
/// writes the optimised ones to `target/dist/`).
const TEST_DIST: &str = "target/test-dist";

/// Runs every test, or with `cargo_args` (e.g. a name filter) what `cargo test` selects.
pub fn run(cargo_args: &[String]) -> anyhow::Result<()> {
    let started = Instant::now();
    setup::ensure_chromium()?;
    setup::ensure_xvfb()?;
    setup::ensure_tesseract()?;
    let extension_dir = build::build_extension()?;

    let downloads = std::thread::spawn(|| -> anyhow::Result<()> {
        setup::ensure_node_packages()?;
        setup::ensure_python_client()?;
        setup::ensure_miniwob()
    });
    let recording = std::thread::spawn(sightline_harness::recording::ensure_corpus_captures);
    let dist_dir = workspace_root().join(TEST_DIST);

    // The idle drill needs only the host, the extension and its own binary: they are compiled
    // first, so its ten minutes start while everything else still compiles. With a filter,
    // `cargo test` alone decides what runs (the idle drill too, if it matches).
    let idle = if cargo_args.is_empty() {
        let first = compile(&["--bin", "sightline-host", "--test", "e2e"])?;
        let built = Built { extension_dir: extension_dir.clone(), host_binary: first.host };
        let binary = first.e2e.context("cargo built no end-to-end test binary")?;
        Some(start_idle_drill(&binary, &built, &dist_dir)?)
    } else {
        None
    };
    let compiled = compile(&["--bins", "--tests"])?;
    let built = Built { extension_dir, host_binary: compiled.host };
    joined(downloads, "installing the test clients")?;
    joined(recording, "recording the corpus pages")?;
    dist::run_dist(&built, &[], &dist_dir)?;
    eprintln!("xtask: ready to test after {:.0} s", started.elapsed().as_secs_f64());

    let mut tests = cargo();
    tests.current_dir(workspace_root()).arg("test").args(TEST_TARGETS).args(cargo_args);
    if idle.is_some() {
        tests.args(["--", "--skip", IDLE_DRILL]);
    }
    let rest = crate::build::run(test_env(&mut tests, &built, &dist_dir));
    let idle = idle.map(finish_idle_drill);
    eprintln!("xtask: tests done after {:.0} s", started.elapsed().as_secs_f64());
    rest?;
    idle.transpose()?;
    Ok(())
}

/// What `cargo test` builds and runs: every crate, the wasm runtime's native unit tests included.
const TEST_TARGETS: &[&str] = &["--workspace"];

/// The environment every test process gets: the tested build, and how many tests run at once.
/// Under CI a failing test prints its message without a backtrace: a log read in excerpts
/// keeps the message (with the line that failed) instead of thirty frames of the test runner.
fn test_env<'a>(cmd: &'a mut Command, built: &Built, dist_dir: &Path) -> &'a mut Command {
    if std::env::var("CI").is_ok_and(|ci| ci == "true") {
        cmd.env("RUST_BACKTRACE", "0");
    }
    cmd.env("RUST_TEST_THREADS", test_threads())
        .env("SIGHTLINE_HOST_BIN", &built.host_binary)
        .env("SIGHTLINE_EXTENSION_DIR", &built.extension_dir)
        .env("SIGHTLINE_DIST_DIR", dist_dir)
}

/// How many tests run at once: `RUST_TEST_THREADS` if set, else one more than the processors
/// (the end-to-end tests spend much of their time waiting on the browser).
fn test_threads() -> String {
    std::env::var("RUST_TEST_THREADS").unwrap_or_else(|_| {
        let processors = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        (processors + 1).to_string()
    })
}

/// What [`compile`] built.
struct Compiled {
    /// `sightline-host` in the dev profile: the host the tests run.
    host: PathBuf,
    /// The end-to-end test binary.
    e2e: Option<PathBuf>,
}

/// Compiles the `targets` of the workspace (always the host among them) the way `cargo test`
/// would, without running anything: the whole workspace is selected, so each run resolves
/// features as the later `cargo test` does, and the host and the tests share every compiled
/// dependency (which also needs build scripts and proc-macros in the dev profile's debug
/// setting: see `[profile.dev.build-override]` in the workspace manifest).
fn compile(targets: &[&str]) -> anyhow::Result<Compiled> {
    let mut cmd = cargo();
    cmd.current_dir(workspace_root())
        .arg("build")
        .args(targets)
        .args(TEST_TARGETS)
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped());
    let started = Instant::now();
    eprintln!("xtask: {cmd:?}");
    let out = cmd.spawn().context("starting cargo build --tests")?.wait_with_output()?;
    if !out.status.success() {
        bail!("compiling the tests failed ({})", out.status);
    }
    eprintln!("xtask: {:.0} s compiling {}", started.elapsed().as_secs_f64(), targets.join(" "));
    let messages = String::from_utf8_lossy(&out.stdout);
    let host = messages.lines().find_map(|line| executable(line, "sightline-host", false));
    Ok(Compiled {
        host: host.context("cargo built no sightline-host binary")?,
        e2e: messages.lines().find_map(|line| executable(line, "e2e", true)),
    })
}

/// The executable cargo reports in one line of its JSON messages for the target `name`: the
/// program itself, or (`test_harness`) the test binary built from it.
fn executable(line: &str, name: &str, test_harness: bool) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    let wanted = message["reason"] == "compiler-artifact"
        && message["target"]["name"] == name
        && message["profile"]["test"] == test_harness;
    wanted.then(|| message["executable"].as_str().map(PathBuf::from)).flatten()
}

/// Starts the idle drill alone, as `cargo test` would run it (from the harness's folder).
fn start_idle_drill(binary: &Path, built: &Built, dist_dir: &Path) -> anyhow::Result<Child> {
    let mut cmd = Command::new(binary);
    cmd.current_dir(workspace_root().join("harness")).args([IDLE_DRILL, "--exact"]);
    eprintln!("xtask: the idle drill runs beside the other tests: {} {IDLE_DRILL} --exact", binary.display());
    test_env(&mut cmd, built, dist_dir).spawn().context("starting the idle drill")
}

fn finish_idle_drill(mut child: Child) -> anyhow::Result<()> {
    let status = child.wait().context("waiting for the idle drill")?;
    if !status.success() {
        bail!("the idle drill {IDLE_DRILL} failed ({status})");
    }
    eprintln!("xtask: the idle drill passed");
    Ok(())
}

fn joined(step: JoinHandle<anyhow::Result<()>>, what: &str) -> anyhow::Result<()> {
    match step.join() {
        Ok(result) => result.with_context(|| what.to_owned()),
        Err(_) => bail!("{what} panicked"),
    }
}
