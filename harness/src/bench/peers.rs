//! The peer MCP servers Sightline is measured against — Playwright MCP and chrome-devtools-mcp —
//! installed from `bench/package-lock.json` and launched on Debian's Chromium.
//!
//! Both run headless, on a throwaway profile, without Chromium's sandbox, with the same
//! network-free flags the end-to-end harness gives Sightline's browser (minus the ones the peer
//! sets itself), so saved pages never wait on the network. Nothing here may download a browser.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::browser::BASE_FLAGS;
use anyhow::{Context, bail};

use crate::paths::workspace_root;
use crate::run;

/// The viewport every server's page gets, so visibility means the same thing for all of them.
pub const VIEWPORT: (u32, u32) = (1280, 720);

/// The directory holding `package.json`, the lock file and `node_modules/`.
pub fn bench_dir() -> PathBuf {
    workspace_root().join("bench")
}

/// Runs `npm ci` in `bench/` when the lock file is newer than the installed tree (or nothing is
/// installed), never downloading browsers.
pub fn ensure_packages() -> anyhow::Result<()> {
    let dir = bench_dir();
    let lock = dir.join("package-lock.json");
    let text = std::fs::read_to_string(&lock).with_context(|| format!("reading {}", lock.display()))?;
    if text.contains("\"resolved\"") {
        bail!(
            "{} carries `resolved` registry URLs; regenerate it with omit-lockfile-registry-resolved=true",
            lock.display()
        );
    }
    let stamp = dir.join("node_modules/.package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(s), Ok(l)) => s.modified()? >= l.modified()?,
        _ => false,
    };
    if !fresh {
        eprintln!("xtask: installing the bench's peer MCP servers (npm ci)");
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
            .env("PUPPETEER_SKIP_DOWNLOAD", "1")
            .current_dir(&dir))?;
    }
    Ok(())
}

/// The version of an installed npm package, from its own `package.json`.
pub fn installed_version(package: &str) -> anyhow::Result<String> {
    let manifest = bench_dir().join("node_modules").join(package).join("package.json");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?,
    )?;
    json["version"].as_str().map(str::to_owned).context("package.json without a version")
}

/// Chromium flags from the harness that a peer can take as extra arguments: everything but the
/// flags the peer sets itself (`--headless`, `--no-sandbox`) and `--disable-features`, which
/// would replace the peer's own `--disable-features` list instead of adding to it.
pub fn extra_chromium_flags() -> Vec<&'static str> {
    BASE_FLAGS
        .iter()
        .copied()
        .filter(|f| !f.starts_with("--headless") && *f != "--no-sandbox" && !f.starts_with("--disable-features"))
        .collect()
}

/// `node` running Playwright MCP. `scratch` receives its config and output files.
pub fn playwright_command(chromium: &Path, scratch: &Path) -> anyhow::Result<tokio::process::Command> {
    let config = scratch.join("playwright-mcp.json");
    let launch = serde_json::json!({ "browser": { "launchOptions": { "args": extra_chromium_flags() } } });
    std::fs::write(&config, serde_json::to_vec_pretty(&launch)?)?;
    let mut cmd = node(scratch, "@playwright/mcp/cli.js")?;
    cmd.args(["--browser", "chromium", "--executable-path"])
        .arg(chromium)
        .args(["--headless", "--isolated", "--no-sandbox", "--viewport-size"])
        .arg(format!("{}x{}", VIEWPORT.0, VIEWPORT.1))
        .arg("--config")
        .arg(&config)
        .arg("--output-dir")
        .arg(scratch.join("output"));
    Ok(cmd)
}

/// `node` running chrome-devtools-mcp, with usage statistics and CrUX look-ups off.
pub fn devtools_command(chromium: &Path, scratch: &Path) -> anyhow::Result<tokio::process::Command> {
    let mut cmd = node(scratch, "chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js")?;
    cmd.arg("--executablePath")
        .arg(chromium)
        .args(["--headless", "--isolated", "--viewport"])
        .arg(format!("{}x{}", VIEWPORT.0, VIEWPORT.1))
        .arg("--chromeArg=--no-sandbox");
    for flag in extra_chromium_flags() {
        cmd.arg(format!("--chromeArg={flag}"));
    }
    cmd.args(["--no-usage-statistics", "--no-performance-crux"]).env("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1");
    Ok(cmd)
}

/// `node <script>` from `bench/node_modules`, in a clean environment whose HOME and TMPDIR are
/// under `scratch` (the peers put their temporary profiles in TMPDIR).
pub(crate) fn node(scratch: &Path, script: &str) -> anyhow::Result<tokio::process::Command> {
    let entry = bench_dir().join("node_modules").join(script);
    anyhow::ensure!(entry.is_file(), "{} is missing: run `cargo xtask bench` to install the peers", entry.display());
    for sub in ["home", "tmp", "output"] {
        std::fs::create_dir_all(scratch.join(sub))?;
    }
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(entry)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.join("home"))
        .env("TMPDIR", scratch.join("tmp"))
        .env("XDG_CONFIG_HOME", scratch.join("home/.config"))
        .env("XDG_CACHE_HOME", scratch.join("home/.cache"))
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("PUPPETEER_SKIP_DOWNLOAD", "1")
        .current_dir(scratch);
    Ok(cmd)
}

/// Kills processes still running from a peer's scratch directory (a browser whose server died
/// before closing it). Matches only command lines naming `scratch`, which is unique to this run.
pub fn kill_leftovers(scratch: &Path) {
    let needle = scratch.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    for entry in entries.filter_map(Result::ok) {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse::<i32>().ok()) else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            let _ = Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
        }
    }
}
