//! Starting each server under test on a fresh headless Chromium whose DevTools endpoint the
//! harness also holds (to start episodes and read rewards):
//!
//! * Sightline: the end-to-end rig (sandbox, host registered, the extension loaded) with
//!   `--remote-debugging-port`, serving the task pages itself;
//! * Playwright MCP (`--cdp-endpoint`) and chrome-devtools-mcp (`--wsEndpoint`, with its script
//!   tool switched off): the harness launches Debian's Chromium with the same flags as the
//!   rig's and points the peer at it.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::browser::REMOTE_DEBUGGING;
use crate::miniwob::agent::Server;
use crate::{FixtureServer, McpClient, Rig};
use anyhow::Context;

/// The window every browser gets, so layouts match across servers.
const WINDOW: &str = "--window-size=1280,720";
/// Starting a server, up to its first answer.
const START_LIMIT: Duration = Duration::from_secs(90);

/// A running server with its browser and the site it serves the tasks from.
pub struct Running {
    /// Which server.
    pub server: Server,
    /// The browser's DevTools endpoint (`ws://…`).
    pub endpoint: String,
    backend: Backend,
}

enum Backend {
    Sightline(Box<Rig>),
    Peer(Box<Peer>),
}

/// A peer server with the browser and the site the harness started for it.
struct Peer {
    client: McpClient,
    site: FixtureServer,
    browser: PeerBrowser,
    _scratch: tempfile::TempDir,
}

impl Running {
    /// Starts `server` on a fresh browser, serving `html` (at most [`START_LIMIT`]).
    pub async fn start(server: Server, html: &Path) -> anyhow::Result<Running> {
        tokio::time::timeout(START_LIMIT, launch(server, html))
            .await
            .map_err(|_| anyhow::anyhow!("{} did not start within {START_LIMIT:?}", server.label()))?
    }

    /// The MCP client.
    pub fn client(&self) -> &McpClient {
        match &self.backend {
            Backend::Sightline(rig) => &rig.client,
            Backend::Peer(peer) => &peer.client,
        }
    }

    /// The URL of `path` on the task site.
    pub fn url(&self, path: &str) -> String {
        match &self.backend {
            Backend::Sightline(rig) => rig.server.url(path),
            Backend::Peer(peer) => peer.site.url(path),
        }
    }

    /// Closes the server and its browser.
    pub async fn close(self) {
        match self.backend {
            Backend::Sightline(rig) => {
                let Rig { client, browser, sandbox, server, .. } = *rig;
                let _ = tokio::time::timeout(Duration::from_secs(15), client.close()).await;
                drop(browser);
                drop(server);
                drop(sandbox);
            }
            Backend::Peer(peer) => {
                let Peer { client, site, browser, _scratch } = *peer;
                let _ = tokio::time::timeout(Duration::from_secs(15), client.close()).await;
                drop(browser);
                drop(site);
            }
        }
    }
}

async fn launch(server: Server, html: &Path) -> anyhow::Result<Running> {
    match server {
        Server::Sightline => {
            let mut rig = Rig::serving(html.to_path_buf(), &[REMOTE_DEBUGGING, WINDOW, "about:blank"]).await?;
            // Coordinates are opt-in, as with Playwright MCP below: a few tasks have nothing else.
            rig.client = McpClient::connect_with(&rig.sandbox, &["--caps", "vision"]).await?;
            rig.client.wait_for_browser(std::time::Duration::from_secs(60)).await?;
            let endpoint = rig.browser.as_ref().context("the rig has no browser")?.devtools_endpoint()?;
            Ok(Running { server, endpoint, backend: Backend::Sightline(Box::new(rig)) })
        }
        Server::Playwright | Server::Devtools => {
            let scratch = tempfile::Builder::new().prefix("sightline-tasks-").tempdir()?;
            let browser = PeerBrowser::launch(scratch.path())?;
            let endpoint = browser.endpoint.clone();
            let site = FixtureServer::start(html)?;
            let cmd = peer_command(server, &endpoint, scratch.path())?;
            let log = std::fs::File::create(scratch.path().join("stderr.log"))?;
            let client = McpClient::spawn(cmd, Stdio::from(log)).await.map_err(|e| {
                let stderr = std::fs::read_to_string(scratch.path().join("stderr.log")).unwrap_or_default();
                e.context(format!("starting {}; its stderr:\n{stderr}", server.label()))
            })?;
            let peer = Peer { client, site, browser, _scratch: scratch };
            Ok(Running { server, endpoint, backend: Backend::Peer(Box::new(peer)) })
        }
    }
}

/// `node` running a peer against the browser at `endpoint`, in a clean environment whose HOME
/// and TMPDIR are under `scratch`.
fn peer_command(server: Server, endpoint: &str, scratch: &Path) -> anyhow::Result<tokio::process::Command> {
    let script = match server {
        Server::Playwright => "@playwright/mcp/cli.js",
        _ => "chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js",
    };
    let mut cmd = crate::bench::peers::node(scratch, script)?;
    match server {
        Server::Playwright => {
            cmd.arg("--cdp-endpoint").arg(endpoint).arg("--output-dir").arg(scratch.join("output"));
            cmd.arg("--caps=vision");
        }
        _ => {
            cmd.arg("--wsEndpoint").arg(endpoint).args([
                "--no-usage-statistics",
                "--no-performance-crux",
                // Solvers never run scripts; the peer is started without its script tools.
                "--no-javascript-evaluation",
            ]);
        }
    }
    cmd.env("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1");
    Ok(cmd)
}

/// Debian's Chromium for a peer: the harness's flags, a fresh profile, a DevTools endpoint.
struct PeerBrowser {
    child: Child,
    endpoint: String,
}

impl PeerBrowser {
    fn launch(scratch: &Path) -> anyhow::Result<PeerBrowser> {
        let (child, endpoint) = crate::browser::launch_plain(scratch, &[WINDOW])?;
        Ok(PeerBrowser { child, endpoint })
    }
}

impl Drop for PeerBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
