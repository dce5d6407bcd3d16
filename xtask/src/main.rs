//! `cargo xtask`: the project's commands.
//!
//! * `build` — ensures the wasm target and the pinned `wasm-bindgen-cli`, builds the wasm
//!   runtime and assembles the unpacked extension at `target/extension/`, builds
//!   `sightline-host`, and prints both paths.
//! * `test` — installs what is missing (Debian's Chromium when run as root), builds, and runs
//!   the unit and end-to-end tests.
//! * `dist` — writes the release packages to `target/dist/` (see [`dist`]).
//! * `demo` — launches Chromium with a throwaway profile and the extension, and runs a short
//!   scripted agent session over MCP against a bundled demo page, printing every response.
//! * `lint` — `cargo fmt --check` and `cargo clippy -D warnings` on every crate.
//! * `capture` — records CDP captures of pages (files, URLs, or the readability corpus) with
//!   their ground truth, for the engine's native tests and benchmarks.
//! * `bench` — measures Sightline, Playwright MCP and chrome-devtools-mcp through their MCP
//!   interfaces (snapshot tokens over the corpus, a scripted flow, tools/list, wall time) and
//!   writes `target/bench/report.md` with the raw `report.json` beside it.
//! * `tasks` — plays MiniWoB++'s task pages (fetched from PyPI's `miniwob` wheel) with scripted
//!   solvers through Sightline, Playwright MCP and chrome-devtools-mcp, and writes
//!   `target/tasks/report.md` with `report.json` beside it.

mod build;
mod demo;
mod dist;
mod setup;
mod test;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the extension (wasm runtime included) and the native host.
    Build,
    /// Install missing tools, build, and run every test.
    Test {
        /// Extra arguments for `cargo test` (e.g. a test name filter).
        #[arg(trailing_var_arg = true)]
        cargo_args: Vec<String>,
    },
    /// Show a short scripted agent session against a demo page.
    Demo,
    /// Check formatting and lints.
    Lint,
    /// Record CDP captures (and ground truth) of pages for the engine's tests and benchmarks.
    Capture(sightline_harness::recording::CaptureArgs),
    /// Write the release packages to target/dist/: the extension (store zip and unpacked), the host
    /// archive per target, SHA256SUMS and INSTALL.md.
    Dist {
        /// Also build the host for this target triple (repeatable), e.g. x86_64-pc-windows-gnu.
        #[arg(long = "target", value_name = "TRIPLE")]
        targets: Vec<String>,
    },
    /// Measure Sightline and its peers through their MCP interfaces; writes target/bench/report.md.
    Bench {
        /// Measure a fixed subset of 15 corpus pages instead of all of them.
        #[arg(long)]
        quick: bool,
    },
    /// Where the snapshot's tokens go, part by part, against the pages' visible text: natively,
    /// from the recorded captures of both corpora (no browser).
    Tokens,
    /// Play MiniWoB++ tasks through each MCP server; writes target/tasks/report.md.
    Tasks(sightline_harness::tasks::TasksArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Build => {
            let built = build::build()?;
            println!("extension: {}", built.extension_dir.display());
            println!("host:      {}", built.host_binary.display());
            Ok(())
        }
        Command::Test { cargo_args } => test::run(&cargo_args),
        Command::Demo => {
            setup::ensure_chromium()?;
            let built = build::build()?;
            demo::run(&built)
        }
        Command::Lint => build::lint(),
        Command::Dist { targets } => {
            let built = build::build()?;
            let packages = dist::run_dist(&built, &targets, &build::workspace_root().join("target/dist"))?;
            println!("packages in {}:", packages.dir.display());
            for name in packages.written {
                println!("  {name}");
            }
            Ok(())
        }
        Command::Bench { quick } => {
            setup::ensure_chromium()?;
            let built = build::build()?;
            sightline_harness::bench::run(&built, quick)
        }
        Command::Tokens => sightline_harness::bench::parts::run_native(),
        Command::Tasks(args) => {
            setup::ensure_chromium()?;
            let built = build::build()?;
            sightline_harness::tasks::run(&built, &args)
        }
        Command::Capture(args) => {
            setup::ensure_chromium()?;
            sightline_harness::recording::run(&args)
        }
    }
}
