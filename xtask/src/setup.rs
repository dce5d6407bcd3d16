//! Installing what the build and tests need, idempotently: Debian's Chromium, Xvfb (the X server
//! the DevTools test runs a headful Chromium in), Tesseract (the OCR the screenshot drills read
//! with), the npm packages of the external MCP client tests (TypeScript SDK, MCP Inspector), a
//! Python virtual environment with the MCP Python SDK, and MiniWoB++'s task pages.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::build::{run, workspace_root};

/// Makes sure `/usr/bin/chromium` exists, installing Debian's package when running as root.
pub fn ensure_chromium() -> anyhow::Result<()> {
    ensure_debian_packages("/usr/bin/chromium", "Chromium", &["chromium", "chromium-driver"])
}

/// Makes sure `/usr/bin/Xvfb` exists, installing Debian's `xvfb` package when running as root:
/// the DevTools test opens real DevTools in a headful Chromium on a virtual display.
pub fn ensure_xvfb() -> anyhow::Result<()> {
    ensure_debian_packages("/usr/bin/Xvfb", "Xvfb", &["xvfb"])
}

/// Makes sure `/usr/bin/tesseract` exists, installing Debian's `tesseract-ocr` when running as
/// root: the screenshot drills read what a screenshot shows with OCR.
pub fn ensure_tesseract() -> anyhow::Result<()> {
    ensure_debian_packages("/usr/bin/tesseract", "Tesseract OCR", &["tesseract-ocr", "tesseract-ocr-eng"])
}

/// Installs the Debian `packages` unless `binary` exists; `what` names them in messages. Needs
/// root; `apt-get update` runs only when the first install fails (stale package lists).
fn ensure_debian_packages(binary: &str, what: &str, packages: &[&str]) -> anyhow::Result<()> {
    if Path::new(binary).exists() {
        return Ok(());
    }
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    let list = packages.join(" ");
    if !is_root {
        bail!("{what} is missing: install Debian's package with `sudo apt-get install {list}`");
    }
    eprintln!("xtask: installing Debian's {list}");
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
    };
    if !install().map(|s| s.success()).unwrap_or(false) {
        run(Command::new("apt-get").args(["update"]).env("DEBIAN_FRONTEND", "noninteractive"))?;
        let status = install().context("running apt-get")?;
        anyhow::ensure!(status.success(), "apt-get install {list} failed");
    }
    Ok(())
}

/// Installs the npm packages of `tests/external-client` and `tests/playwright-export` (which runs
/// exported specs with Debian's Chromium, so no browser is downloaded) when their lock files
/// changed.
pub fn ensure_node_packages() -> anyhow::Result<()> {
    ensure_npm_packages(&workspace_root().join("tests/external-client"))?;
    ensure_npm_packages(&workspace_root().join("tests/playwright-export"))
}

/// Installs the npm packages of the folder `dir` (its `package-lock.json`, exactly) when the lock
/// file changed since they were installed.
pub fn ensure_npm_packages(dir: &Path) -> anyhow::Result<()> {
    let stamp = dir.join("node_modules/.package-lock.json");
    let lock = dir.join("package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(s), Ok(l)) => s.modified()? >= l.modified()?,
        _ => false,
    };
    if !fresh {
        eprintln!("xtask: installing the npm packages of {}", dir.display());
        // Browsers are Debian's Chromium: a package's install step never downloads one.
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
            .current_dir(dir))?;
    }
    Ok(())
}

/// Creates the virtual environment `target/python-client/` with the pinned MCP Python SDK of
/// `tests/external-client/requirements.txt` (from PyPI), unless it already holds exactly those
/// requirements. Installs Debian's `python3-venv` first when `venv` is missing and we are root.
pub fn ensure_python_client() -> anyhow::Result<()> {
    let root = workspace_root();
    let venv = sightline_harness::paths::python_client_dir();
    let requirements = root.join("tests/external-client/requirements.txt");
    let stamp = venv.join("installed-requirements.txt");
    let wanted = std::fs::read(&requirements).with_context(|| format!("reading {}", requirements.display()))?;
    if venv.join("bin/python").exists() && std::fs::read(&stamp).ok().as_ref() == Some(&wanted) {
        return Ok(());
    }
    eprintln!("xtask: installing the MCP Python SDK into {}", venv.display());
    let make_venv = || Command::new("python3").args(["-m", "venv", "--clear"]).arg(&venv).status();
    if !make_venv().map(|s| s.success()).unwrap_or(false) {
        let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
        if !is_root {
            bail!(
                "cannot create a Python virtual environment: install Python 3 with venv (`sudo apt-get install python3-venv`)"
            );
        }
        run(Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", "python3", "python3-venv"])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        let status = make_venv().context("running python3 -m venv")?;
        anyhow::ensure!(status.success(), "python3 -m venv failed");
    }
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(&requirements))?;
    std::fs::write(&stamp, wanted)?;
    Ok(())
}

/// Fetches MiniWoB++'s task pages into `target/tasks/` for the end-to-end subset. Outside CI a
/// failed fetch is a warning (those tests then skip, saying why); under `CI=true` it fails the
/// run, since a gate that passes by skipping guards nothing.
pub fn ensure_miniwob() -> anyhow::Result<()> {
    match sightline_harness::tasks::wheel::ensure() {
        Ok(()) => Ok(()),
        Err(e) if sightline_harness::paths::in_ci() => {
            Err(e.context("under CI=true the MiniWoB++ task pages are required"))
        }
        Err(e) => {
            eprintln!("xtask: warning: no MiniWoB++ task pages, the miniwob tests will skip: {e:#}");
            Ok(())
        }
    }
}
