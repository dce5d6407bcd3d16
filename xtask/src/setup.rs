//! Installing what the build and tests need, idempotently: Debian's Chromium and the npm
//! packages of the external MCP client test.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::build::{run, workspace_root};

/// Makes sure `/usr/bin/chromium` exists, installing Debian's package when running as root.
pub fn ensure_chromium() -> anyhow::Result<()> {
    if Path::new("/usr/bin/chromium").exists() {
        return Ok(());
    }
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if !is_root {
        bail!("Chromium is missing: install Debian's package with `sudo apt-get install chromium chromium-driver`");
    }
    eprintln!("xtask: installing Debian's chromium package");
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", "chromium", "chromium-driver"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
    };
    if !install().map(|s| s.success()).unwrap_or(false) {
        run(Command::new("apt-get").args(["update"]).env("DEBIAN_FRONTEND", "noninteractive"))?;
        let status = install().context("running apt-get")?;
        anyhow::ensure!(status.success(), "apt-get install chromium failed");
    }
    Ok(())
}

/// Installs the npm packages of `tests/external-client` when its lock file changed.
pub fn ensure_node_packages() -> anyhow::Result<()> {
    let dir = workspace_root().join("tests/external-client");
    let stamp = dir.join("node_modules/.package-lock.json");
    let lock = dir.join("package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(s), Ok(l)) => s.modified()? >= l.modified()?,
        _ => false,
    };
    if !fresh {
        eprintln!("xtask: installing the external MCP client's npm packages");
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir))?;
    }
    Ok(())
}
