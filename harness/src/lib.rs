//! The evaluation harness, one place for everything that runs Sightline for real: an isolated
//! home for each run, a static server for fixture pages, Debian's Chromium running headless with
//! the unpacked extension, the native host registered in the profile, MCP clients talking to
//! `sightline-host mcp`, and what is built on them — recording captures, the fidelity measure,
//! the MiniWoB++ solvers, the bench against other MCP browser servers. The end-to-end tests
//! (`tests/e2e/`) and `cargo xtask` both use it.
//!
//! `cargo xtask` builds the artefacts and tells the harness where they are through
//! `SIGHTLINE_HOST_BIN` and `SIGHTLINE_EXTENSION_DIR`; without them it looks under `target/`.

pub mod bench;
pub mod browser;
pub mod capture;
pub mod cdp;
pub mod client;
pub mod display;
pub mod fidelity;
pub mod grammar;
pub mod miniwob;
pub mod ocr;
pub mod paths;
pub mod recording;
pub mod sandbox;
pub mod server;
pub mod service_worker;
pub mod tasks;
pub mod ui;
pub mod websocket;

pub use browser::Chromium;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The artefacts a run drives, as `cargo xtask build` made them.
#[derive(Debug, Clone)]
pub struct Built {
    /// The unpacked extension.
    pub extension_dir: PathBuf,
    /// The `sightline-host` binary.
    pub host_binary: PathBuf,
}

/// Runs a command, echoing it, and fails unless it succeeds.
pub fn run(cmd: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{cmd:?}").replace('"', "");
    eprintln!("xtask: {shown}");
    let started = std::time::Instant::now();
    let status = cmd.status().with_context(|| format!("could not start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    // Where a run's time goes, for whoever reads the log of a slow one.
    let took = started.elapsed();
    if took.as_secs() >= 5 {
        let program = Path::new(cmd.get_program()).file_name().unwrap_or_default().to_string_lossy().into_owned();
        let args: Vec<_> = cmd.get_args().take(5).map(|a| a.to_string_lossy().into_owned()).collect();
        eprintln!("xtask: {:.0} s for {program} {}", took.as_secs_f64(), args.join(" "));
    }
    Ok(())
}

/// The extension's id (fixed by the manifest's key; the host allows only this origin).
pub const EXTENSION_ID: &str = "pedjfcdnklnogkhfdbajokklfdgehmka";
pub use client::McpClient;
pub use sandbox::Sandbox;
pub use server::FixtureServer;

/// A sandbox with the host registered, a fixture server, Chromium with the extension, and a
/// connected MCP client whose browser is ready.
pub struct Rig {
    /// The sandbox (keep it alive as long as the rig).
    pub sandbox: Sandbox,
    /// Fixture pages.
    pub server: FixtureServer,
    /// The browser.
    pub browser: Option<Chromium>,
    /// The MCP client.
    pub client: McpClient,
    /// This rig's place among the browsers running at once.
    _slot: tokio::sync::SemaphorePermit<'static>,
}

/// How many rigs (each a Chromium) a test binary runs at once: tests run in parallel, and more
/// browsers than this starting together on a small machine can take longer than any sensible
/// wait for the extension to connect.
const RIGS_AT_ONCE: usize = 3;

static RIG_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(RIGS_AT_ONCE);

/// How long a freshly started browser may take to start the extension's native host (about a
/// second, usually) before the rig starts it again.
const BRIDGE_START_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Waits (at most `wait`) for a bridge to start in the sandbox: its socket or its log appears.
async fn bridge_started(sandbox: &Sandbox, wait: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    loop {
        if !browser::bridge_pids(sandbox).is_empty() || !sandbox.bridge_log_text().is_empty() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Room for `browsers` more browsers among those a test binary runs at once, for tests that
/// start browsers themselves; held as long as the permit lives.
pub async fn browser_slots(browsers: u32) -> anyhow::Result<tokio::sync::SemaphorePermit<'static>> {
    Ok(RIG_SLOTS.acquire_many(browsers).await?)
}

impl Rig {
    /// Starts everything and waits (at most 60 s) for the browser to answer.
    pub async fn start() -> anyhow::Result<Rig> {
        Self::start_with(&[]).await
    }

    /// Like [`Rig::start`], with extra Chromium arguments (e.g. start-up URLs).
    pub async fn start_with(browser_args: &[&str]) -> anyhow::Result<Rig> {
        Self::serving(paths::fixtures_dir(), browser_args).await
    }

    /// Like [`Rig::start_with`], serving the pages under `site`.
    pub async fn serving(site: std::path::PathBuf, browser_args: &[&str]) -> anyhow::Result<Rig> {
        Self::serving_in(site, browser_args, None).await
    }

    /// Like [`Rig::serving`], with a headful Chromium whose windows show on the X display
    /// `display` (see [`display::VirtualDisplay`]).
    pub async fn serving_headful(
        site: std::path::PathBuf,
        display: &str,
        browser_args: &[&str],
    ) -> anyhow::Result<Rig> {
        Self::serving_in(site, browser_args, Some(display)).await
    }

    async fn serving_in(site: std::path::PathBuf, browser_args: &[&str], display: Option<&str>) -> anyhow::Result<Rig> {
        let slot = RIG_SLOTS.acquire().await?;
        let sandbox = Sandbox::new()?;
        sandbox.install_host()?;
        let server = FixtureServer::start(site)?;
        let mut args: Vec<String> = browser_args.iter().map(|a| a.replace("{server}", &server.url(""))).collect();
        // The rig sets the person's site permissions through the extension's worker.
        if !args.iter().any(|a| a == crate::browser::REMOTE_DEBUGGING) {
            // Without arguments the browser starts on about:blank; it still does.
            if args.is_empty() {
                args.push("about:blank".to_owned());
            }
            args.push(crate::browser::REMOTE_DEBUGGING.to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let launch = || match display {
            Some(display) => Chromium::launch_headful(&sandbox, display, &args),
            None => Chromium::launch_with(&sandbox, &args),
        };
        let mut browser = launch()?;
        if !bridge_started(&sandbox, BRIDGE_START_WAIT).await {
            // The extension never got as far as starting its native host: Chromium failed to
            // start it (this has happened, rarely, on a loaded CI machine). Say what the browser
            // said, and give it one more start; a second failure fails the test below.
            eprintln!(
                "rig: Chromium ({}) started no native host within {BRIDGE_START_WAIT:?}; starting it again.\n{}",
                browser.status(),
                browser.stderr_tail()
            );
            browser.kill();
            browser = launch()?;
        }
        let client = McpClient::connect(&sandbox).await?;
        if let Err(e) = client.wait_for_browser(std::time::Duration::from_secs(60)).await {
            anyhow::bail!("{e:#}\nbridge log:\n{}\n{}", sandbox.bridge_log_text(), browser.stderr_tail());
        }
        let rig = Rig { sandbox, server, browser: Some(browser), client, _slot: slot };
        // Drills of everything but the person's site permissions run with agents free to act
        // everywhere; `tests/tests/permissions.rs` sets its own rules.
        rig.set_permissions(&serde_json::json!({"rules": [{"site": "*", "level": "act_freely"}]}));
        Ok(rig)
    }

    /// The browser's DevTools endpoint (the rig's browser must be running).
    pub fn devtools(&self) -> String {
        self.browser.as_ref().expect("browser").devtools_endpoint().expect("devtools endpoint")
    }

    /// Runs `expression` in the extension's worker and returns its value.
    pub fn in_worker(&self, expression: &str) -> serde_json::Value {
        service_worker::evaluate_in_extension_worker(&self.devtools(), expression).expect("evaluate in the worker")
    }

    /// Restarts the browser on the same profile (what it keeps in `chrome.storage.local` stays),
    /// with `browser_args` as at the start, and waits until the session's calls reach it again.
    pub async fn restart_browser(&mut self, browser_args: &[&str]) -> anyhow::Result<()> {
        if let Some(browser) = self.browser.take() {
            browser.kill();
        }
        let mut args: Vec<String> = browser_args.iter().map(|a| a.replace("{server}", &self.server.url(""))).collect();
        if !args.iter().any(|a| a == crate::browser::REMOTE_DEBUGGING) {
            args.push(crate::browser::REMOTE_DEBUGGING.to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.browser = Some(Chromium::launch_with(&self.sandbox, &args)?);
        self.client.wait_for_browser(std::time::Duration::from_secs(60)).await
    }

    /// Stores the person's site permissions (`sightline.permissions` in the extension's
    /// `chrome.storage.local`), as the options page does.
    pub fn set_permissions(&self, rules: &serde_json::Value) {
        self.in_worker(&format!("chrome.storage.local.set({{'sightline.permissions': {rules}}}).then(() => true)"));
    }

    /// Navigates the agent's tab to the fixture page at `path` and returns the answer, which must
    /// not be an error.
    pub async fn open(&self, path: &str) -> client::Reply {
        let page = self.client.call("browser_navigate", serde_json::json!({"url": self.server.url(path)})).await;
        let page = page.expect("browser_navigate answers");
        assert!(!page.is_error, "{}", page.text);
        page
    }

    /// The browser's id of the tab whose URL contains `url_part`.
    pub fn tab_id(&self, url_part: &str) -> i64 {
        let expression = format!(
            "chrome.tabs.query({{}}).then((tabs) => tabs.find((t) => (t.url || t.pendingUrl || '').includes({})).id)",
            serde_json::Value::String(url_part.to_owned())
        );
        self.in_worker(&expression).as_i64().unwrap_or_else(|| panic!("no tab at {url_part}"))
    }
}

/// The ref of the element named `name` (whatever its role) in a reply's structured content.
pub fn ref_named(reply: &client::Reply, name: &str) -> String {
    let elements = reply.structured.as_ref().and_then(|s| s["elements"].as_array().cloned()).unwrap_or_default();
    elements
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["ref"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no element named {name:?} in:\n{}", reply.text))
}

/// The ref of the element with `role` and `name` in a reply's structured content.
pub fn ref_of(reply: &client::Reply, role: &str, name: &str) -> String {
    let elements = reply.structured.as_ref().and_then(|s| s["elements"].as_array().cloned()).unwrap_or_default();
    elements
        .iter()
        .find(|e| e["role"] == role && e["name"] == name)
        .and_then(|e| e["ref"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no {role} {name:?} in:\n{}", reply.text))
}
