//! An isolated environment per test: its own HOME, browser profile, runtime directory (where
//! bridge sockets live) and state directory (where the bridge logs).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

/// A throwaway home for one test.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// Creates the directories.
    pub fn new() -> anyhow::Result<Self> {
        let dir = tempfile::Builder::new().prefix("sightline-e2e-").tempdir()?;
        for sub in ["home", "profile", "run", "state"] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        // The runtime directory must be private, like a real $XDG_RUNTIME_DIR.
        std::fs::set_permissions(dir.path().join("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        Ok(Sandbox { dir })
    }

    /// The sandbox root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The browser profile (`--user-data-dir`).
    pub fn profile(&self) -> PathBuf {
        self.root().join("profile")
    }

    /// Another browser profile in the sandbox (`<root>/<name>`), created if needed, for tests
    /// that run two browsers as one user.
    pub fn profile_named(&self, name: &str) -> anyhow::Result<PathBuf> {
        let dir = self.root().join(name);
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    /// `$XDG_RUNTIME_DIR`: bridge sockets live in `sightline/` under it.
    pub fn runtime_dir(&self) -> PathBuf {
        self.root().join("run")
    }

    /// The bridge's log file.
    pub fn bridge_log(&self) -> PathBuf {
        self.root().join("state/sightline/bridge.log")
    }

    /// Environment every process of the test runs with.
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.root().join("home")),
            ("XDG_CONFIG_HOME", self.root().join("home/.config")),
            ("XDG_CACHE_HOME", self.root().join("home/.cache")),
            ("XDG_RUNTIME_DIR", self.runtime_dir()),
            ("XDG_STATE_HOME", self.root().join("state")),
        ]
    }

    /// A `sightline-host` command in this sandbox.
    pub fn host_command(&self) -> Command {
        self.command(crate::paths::host_binary())
    }

    /// `program` with only `PATH` from outside and this sandbox's HOME and XDG directories.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `sightline-host install --browser chromium --user-data-dir <profile>`.
    pub fn install_host(&self) -> anyhow::Result<()> {
        self.install_host_for(&self.profile())
    }

    /// Runs `sightline-host install --browser chromium --user-data-dir <profile>` for any
    /// profile.
    pub fn install_host_for(&self, profile: &Path) -> anyhow::Result<()> {
        let out = self
            .host_command()
            .args(["install", "--browser", "chromium", "--user-data-dir"])
            .arg(profile)
            .output()
            .context("running sightline-host install")?;
        anyhow::ensure!(out.status.success(), "install failed: {}", String::from_utf8_lossy(&out.stderr));
        Ok(())
    }

    /// Runs `sightline-host doctor` for the test profile; returns (success, stdout).
    pub fn doctor(&self) -> anyhow::Result<(bool, String)> {
        let out = self
            .host_command()
            .args(["doctor", "--browser", "chromium", "--user-data-dir"])
            .arg(self.profile())
            .output()
            .context("running sightline-host doctor")?;
        Ok((out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned()))
    }

    /// Runs `sightline-host doctor` with `args` (none: every browser with a profile here);
    /// returns (success, stdout).
    pub fn doctor_with(&self, args: &[&str]) -> anyhow::Result<(bool, String)> {
        let out = self.host_command().arg("doctor").args(args).output().context("running sightline-host doctor")?;
        Ok((out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned()))
    }

    /// The bridge log so far (for failure messages).
    pub fn bridge_log_text(&self) -> String {
        std::fs::read_to_string(self.bridge_log()).unwrap_or_default()
    }
}
