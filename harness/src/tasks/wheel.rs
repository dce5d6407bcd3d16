//! Fetching MiniWoB++'s task pages: `pip download miniwob==1.1.0 --no-deps` into
//! `target/tasks/`, then unpacking the wheel (a zip) with Python's own `zipfile`. None of the
//! package's Python code is installed or run; only its HTML, scripts and images are served.

use std::process::Command;

use crate::miniwob::site;
use anyhow::Context;

use crate::run;

/// Makes sure the task pages are unpacked under `target/tasks/`, fetching the wheel once.
pub fn ensure() -> anyhow::Result<()> {
    if site::present() {
        return Ok(());
    }
    let dir = site::tasks_dir();
    std::fs::create_dir_all(&dir)?;
    let wheel = dir.join(site::wheel_name());
    if !wheel.is_file() {
        eprintln!("xtask: fetching MiniWoB++ {} from PyPI (the wheel only; nothing is installed)", site::VERSION);
        run(Command::new(python())
            .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check"])
            .arg(format!("miniwob=={}", site::VERSION))
            .arg("-d")
            .arg(&dir))
        .context("fetching the miniwob wheel (needs Python's pip and access to PyPI)")?;
    }
    let unpacked = dir.join(format!("miniwob-{}", site::VERSION));
    run(Command::new(python()).args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&unpacked))
        .context("unpacking the miniwob wheel")?;
    anyhow::ensure!(site::present(), "the miniwob wheel has no task pages at {}", site::html_dir().display());
    Ok(())
}

/// The Python interpreter: `python3`, or `python` where that is the only one.
fn python() -> &'static str {
    let works = |name: &str| Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    if works("python3") { "python3" } else { "python" }
}
