//! Debian's Chromium, headless (or with windows on a virtual display), with the unpacked
//! extension loaded into a sandbox profile.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{Sandbox, paths};

/// Flags every run uses: headless, no network chatter, no first-run UI, loopback only.
pub const BASE_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--disable-features=DisableLoadExtensionCommandLineSwitch",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
];

/// Opens the browser's DevTools endpoint on a free port (see [`Chromium::devtools_endpoint`]), so a
/// test can reach what the extension cannot, such as the extension's own service worker.
pub const REMOTE_DEBUGGING: &str = "--remote-debugging-port=0";

/// A Chromium without the extension, driven over CDP alone (recording captures, the peers of
/// the bench): [`BASE_FLAGS`], `extra`, a DevTools endpoint on a free port, and a profile and
/// home under `scratch`. Returns the process and its endpoint's `ws://` address; the caller
/// kills it.
pub fn launch_plain(scratch: &std::path::Path, extra: &[&str]) -> anyhow::Result<(Child, String)> {
    let profile = scratch.join("profile");
    let home = scratch.join("browser-home");
    std::fs::create_dir_all(&home)?;
    let mut child = Command::new(paths::chromium())
        .args(BASE_FLAGS)
        .arg(REMOTE_DEBUGGING)
        .args(extra)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting chromium")?;
    match crate::cdp::wait_for_endpoint(&profile) {
        Ok(endpoint) => Ok((child, endpoint)),
        Err(error) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(error)
        }
    }
}

/// A running Chromium; killed when dropped.
pub struct Chromium {
    child: Child,
    profile: PathBuf,
}

impl Chromium {
    /// Starts Chromium on `about:blank` with the extension, in `sandbox`.
    pub fn launch(sandbox: &Sandbox) -> anyhow::Result<Self> {
        Self::launch_with(sandbox, &[])
    }

    /// Starts Chromium with extra arguments (e.g. start-up URLs).
    pub fn launch_with(sandbox: &Sandbox, extra: &[&str]) -> anyhow::Result<Self> {
        Self::launch_profile(sandbox, &sandbox.profile(), extra)
    }

    /// Starts Chromium on `profile` (one of the sandbox's, see [`Sandbox::profile_named`]) with
    /// extra arguments, as the sandbox's user.
    pub fn launch_profile(sandbox: &Sandbox, profile: &std::path::Path, extra: &[&str]) -> anyhow::Result<Self> {
        paths::require_artefacts();
        Self::launch_extension(sandbox, profile, &paths::extension_dir(), extra)
    }

    /// Starts Chromium on `profile` with the unpacked extension at `ext` (e.g. a release
    /// package's) and extra arguments, as the sandbox's user.
    pub fn launch_extension(
        sandbox: &Sandbox,
        profile: &std::path::Path,
        ext: &std::path::Path,
        extra: &[&str],
    ) -> anyhow::Result<Self> {
        Self::spawn(sandbox, profile, ext, BASE_FLAGS, None, extra)
    }

    /// Starts Chromium with a window (not headless) on the X display `display` (see
    /// [`crate::display::VirtualDisplay`]), with the extension, on the sandbox's profile, as the
    /// sandbox's user: for what headless Chromium has not, such as DevTools windows.
    pub fn launch_headful(sandbox: &Sandbox, display: &str, extra: &[&str]) -> anyhow::Result<Self> {
        paths::require_artefacts();
        let mut flags: Vec<&str> = BASE_FLAGS.iter().copied().filter(|f| *f != "--headless").collect();
        flags.extend(["--ozone-platform=x11", "--window-size=1280,900", "--window-position=0,0"]);
        Self::spawn(sandbox, &sandbox.profile(), &paths::extension_dir(), &flags, Some(display), extra)
    }

    fn spawn(
        sandbox: &Sandbox,
        profile: &std::path::Path,
        ext: &std::path::Path,
        flags: &[&str],
        display: Option<&str>,
        extra: &[&str],
    ) -> anyhow::Result<Self> {
        let mut cmd = Command::new(paths::chromium());
        cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (k, v) in sandbox.env() {
            cmd.env(k, v);
        }
        if let Some(display) = display {
            cmd.env("DISPLAY", display);
        }
        cmd.args(flags)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--load-extension={}", ext.display()))
            .arg(format!("--disable-extensions-except={}", ext.display()))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(Self::open_log(profile)?));
        if extra.is_empty() {
            cmd.arg("about:blank");
        }
        let child = cmd.spawn()?;
        Ok(Chromium { child, profile: profile.to_owned() })
    }

    /// Where the browser's stderr goes (next to its profile): Chromium's own complaints, and
    /// anything a native host it starts writes to stderr before the host's log is open.
    fn log_path(profile: &std::path::Path) -> PathBuf {
        let name = profile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        profile.with_file_name(format!("{name}.chromium.log"))
    }

    fn open_log(profile: &std::path::Path) -> anyhow::Result<std::fs::File> {
        Ok(std::fs::OpenOptions::new().create(true).append(true).open(Self::log_path(profile))?)
    }

    /// The last 40 lines the browser (and the hosts it started) wrote to stderr, under a heading,
    /// leaving out its complaints that the machine has no D-Bus (every start here makes a few
    /// dozen).
    pub fn stderr_tail(&self) -> String {
        const LINES: usize = 40;
        let text = std::fs::read_to_string(Self::log_path(&self.profile)).unwrap_or_default();
        let all: Vec<&str> = text.lines().filter(|l| !l.contains(":ERROR:dbus/")).collect();
        format!("Chromium's stderr (last {LINES} lines):\n{}", all[all.len().saturating_sub(LINES)..].join("\n"))
    }

    /// The `ws://` address of the browser's DevTools endpoint, for a browser started with
    /// [`REMOTE_DEBUGGING`] among its arguments (waits at most 20 s for Chromium to open it).
    pub fn devtools_endpoint(&self) -> anyhow::Result<String> {
        crate::cdp::wait_for_endpoint(&self.profile)
            .map_err(|e| anyhow::anyhow!("{e}; was Chromium started with {REMOTE_DEBUGGING}?"))
    }

    /// The profile directory in use.
    pub fn profile(&self) -> &PathBuf {
        &self.profile
    }

    /// "running", or how the browser process ended.
    pub fn status(&mut self) -> String {
        match self.child.try_wait() {
            Ok(None) => "running".into(),
            Ok(Some(status)) => format!("exited: {status}"),
            Err(e) => format!("state unknown: {e}"),
        }
    }

    /// Kills the browser and waits for it to exit.
    pub fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Chromium's helper processes exit once the browser process is gone; give them a moment
        // so the next launch on the same profile does not find it locked.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && self.profile.join("SingletonLock").symlink_metadata().is_ok() {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_file(self.profile.join("SingletonLock"));
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Process ids of the bridges whose sockets exist in the sandbox.
pub fn bridge_pids(sandbox: &Sandbox) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(sandbox.runtime_dir().join("sightline")) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("bridge-")?.strip_suffix(".sock")?.parse().ok()
        })
        .collect()
}
