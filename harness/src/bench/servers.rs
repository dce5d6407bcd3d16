//! One browser MCP server under measurement — Sightline, Playwright MCP or chrome-devtools-mcp —
//! started fresh with its own browser, driven over MCP through its own tools, and closed.
//!
//! Every call is bounded by a per-call time limit; a call that runs out of time is an error the
//! caller records (and usually follows with [`Server::restart`]), never a hang. This module knows
//! each server's tool names and argument shapes; it never interprets what a reply says.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::client::Reply;
use crate::{McpClient, Rig};
use anyhow::Context;
use serde_json::{Value, json};

use super::peers;
use super::refs::Target;
use crate::paths::workspace_root;

/// Starting a server, up to its first answer.
const START_LIMIT: Duration = Duration::from_secs(90);
/// One navigation (the servers wait for `load` themselves).
const NAVIGATE_LIMIT: Duration = Duration::from_secs(60);
/// One snapshot.
const SNAPSHOT_LIMIT: Duration = Duration::from_secs(60);
/// One click, typing or selection.
const ACTION_LIMIT: Duration = Duration::from_secs(30);
/// `tools/list` and small bookkeeping calls.
const LIST_LIMIT: Duration = Duration::from_secs(30);
/// Pages of one long snapshot read at most (a bound, far above any page seen so far).
const MAX_SNAPSHOT_PAGES: u32 = 100;
/// Closing a server and its browser.
const CLOSE_LIMIT: Duration = Duration::from_secs(15);

/// What the bench runs in a page between two looks (a JavaScript function): a paragraph added
/// at the end of the body, so no server can answer the next look from what it captured before.
const PAGE_CHANGE: &str = "() => { const p = document.createElement('p'); \
    p.textContent = 'Changed since the last look'; (document.body || document.documentElement).append(p); \
    return true; }";

/// Which server: the same servers the MiniWoB++ harness plays through.
pub use crate::miniwob::agent::Server as ServerKind;

/// One tool call (or the calls reading every page of one long snapshot): which tool, its reply,
/// and its wall time.
#[derive(Debug, Clone)]
pub struct Timed {
    /// The tool called.
    pub tool: &'static str,
    /// What it answered (the pages' texts joined, for a snapshot read in pages).
    pub reply: Reply,
    /// Wall time from request to reply, summed over the calls.
    pub elapsed: Duration,
    /// How many calls it took (more than one for a snapshot read in pages).
    pub calls: usize,
}

/// A running server with its browser.
pub struct Server {
    kind: ServerKind,
    chromium: PathBuf,
    backend: Backend,
    /// chrome-devtools-mcp addresses pages by id; the id of the page it opened at start.
    page_id: Option<u64>,
}

enum Backend {
    Sightline(Box<Rig>),
    Peer { client: McpClient, scratch: tempfile::TempDir },
}

impl Server {
    /// Starts `kind` with a fresh browser (at most [`START_LIMIT`]).
    pub async fn start(kind: ServerKind, chromium: &Path) -> anyhow::Result<Server> {
        let backend = tokio::time::timeout(START_LIMIT, launch(kind, chromium))
            .await
            .map_err(|_| anyhow::anyhow!("{} did not start within {START_LIMIT:?}", kind.label()))??;
        let mut server = Server { kind, chromium: chromium.to_path_buf(), backend, page_id: None };
        if kind == ServerKind::Devtools {
            server.page_id = Some(server.selected_page().await?);
        }
        Ok(server)
    }

    /// Which server this is.
    pub fn kind(&self) -> ServerKind {
        self.kind
    }

    /// Sightline's browser's DevTools endpoint (the bench's own connection, for measures the
    /// MCP tools do not give); `None` for the peers.
    pub fn devtools(&self) -> Option<String> {
        match &self.backend {
            Backend::Sightline(rig) => rig.browser.as_ref()?.devtools_endpoint().ok(),
            Backend::Peer { .. } => None,
        }
    }

    /// Closes the server and its browser (at most [`CLOSE_LIMIT`]).
    pub async fn close(self) {
        match self.backend {
            Backend::Sightline(rig) => {
                let Rig { client, browser, sandbox, server, .. } = *rig;
                let _ = tokio::time::timeout(CLOSE_LIMIT, client.close()).await;
                drop(browser);
                drop(server);
                drop(sandbox);
            }
            Backend::Peer { client, scratch } => {
                let _ = tokio::time::timeout(CLOSE_LIMIT, client.close()).await;
                peers::kill_leftovers(scratch.path());
            }
        }
    }

    /// Closes this server and starts a fresh one of the same kind (after a call ran out of time
    /// or the connection broke); the old browser is gone before the new one starts.
    pub async fn restart(self) -> anyhow::Result<Server> {
        let (kind, chromium) = (self.kind, self.chromium.clone());
        self.close().await;
        Server::start(kind, &chromium).await
    }

    /// The `tools` array of `tools/list`, as JSON.
    pub async fn tools(&self) -> anyhow::Result<Value> {
        let tools = tokio::time::timeout(LIST_LIMIT, self.client().peer().list_all_tools())
            .await
            .map_err(|_| anyhow::anyhow!("tools/list got no answer within {LIST_LIMIT:?}"))??;
        Ok(serde_json::to_value(tools)?)
    }

    /// Loads `url` in the current tab.
    pub async fn navigate(&self, url: &str) -> anyhow::Result<Timed> {
        match self.kind {
            ServerKind::Sightline | ServerKind::Playwright => {
                self.call("browser_navigate", json!({"url": url}), NAVIGATE_LIMIT).await
            }
            ServerKind::Devtools => {
                self.call("navigate_page", self.with_page(json!({"type": "url", "url": url})), NAVIGATE_LIMIT).await
            }
        }
    }

    /// Goes back in the tab's history.
    pub async fn back(&self) -> anyhow::Result<Timed> {
        match self.kind {
            ServerKind::Sightline => self.call("browser_navigate", json!({"go": "back"}), NAVIGATE_LIMIT).await,
            ServerKind::Playwright => self.call("browser_navigate_back", json!({}), NAVIGATE_LIMIT).await,
            ServerKind::Devtools => {
                self.call("navigate_page", self.with_page(json!({"type": "back"})), NAVIGATE_LIMIT).await
            }
        }
    }

    /// Reads the whole page with the server's snapshot tool, every region and every page of it:
    /// Sightline splits a long snapshot into pages, each but the last ending with an explicit
    /// continuation marker that names the next `page=N` (the peers answer with everything at
    /// once).
    pub async fn snapshot(&self) -> anyhow::Result<Timed> {
        // Sightline would write regions the agent saw in the navigation's answer as unchanged;
        // `full` asks for every region, the same content the peers return.
        let args = if self.kind == ServerKind::Sightline { json!({}) } else { self.with_page(json!({})) };
        let mut whole = self.call(self.kind.snapshot_tool(), args, SNAPSHOT_LIMIT).await?;
        if self.kind != ServerKind::Sightline {
            return Ok(whole);
        }
        let mut last_text = whole.reply.text.clone();
        let mut page = 1;
        while !whole.reply.is_error && page < MAX_SNAPSHOT_PAGES && last_text.contains(&format!("page={}", page + 1)) {
            page += 1;
            let next = self.call("browser_snapshot", json!({"page": page}), SNAPSHOT_LIMIT).await?;
            whole.reply.text.push('\n');
            whole.reply.text.push_str(&next.reply.text);
            whole.reply.is_error |= next.reply.is_error;
            merge_elements(&mut whole.reply.structured, next.reply.structured);
            whole.elapsed += next.elapsed;
            whole.calls += 1;
            last_text = next.reply.text;
        }
        Ok(whole)
    }

    /// Changes the page at `url` (see [`PAGE_CHANGE`]), untimed, through the server's own way of
    /// running a script in it: Playwright MCP's `browser_evaluate`, chrome-devtools-mcp's
    /// `evaluate_script`; for Sightline, whose script tool the user may switch off, the bench's
    /// own DevTools connection to its browser.
    pub async fn change_page(&self, url: &str) -> anyhow::Result<()> {
        let tool = match self.kind {
            ServerKind::Sightline => {
                let devtools = self.devtools().context("no DevTools endpoint")?;
                let (mut page, session) = crate::service_worker::attach_to_page(&devtools, url)?;
                let expression = format!("({PAGE_CHANGE})()");
                let done = page.call(Some(&session), "Runtime.evaluate", json!({"expression": expression}))?;
                anyhow::ensure!(done["result"]["value"] == true, "the change did not run: {done}");
                return Ok(());
            }
            ServerKind::Playwright => self.call("browser_evaluate", json!({"function": PAGE_CHANGE}), ACTION_LIMIT),
            ServerKind::Devtools => {
                self.call("evaluate_script", self.with_page(json!({"function": PAGE_CHANGE})), ACTION_LIMIT)
            }
        };
        let done = tool.await?;
        anyhow::ensure!(!done.reply.is_error, "the change did not run: {}", done.reply.text);
        Ok(())
    }

    /// Clicks the element `reference` (found for `target`).
    pub async fn click(&self, reference: &str, target: &Target) -> anyhow::Result<Timed> {
        match self.kind {
            ServerKind::Sightline => self.call("browser_click", json!({"ref": reference}), ACTION_LIMIT).await,
            ServerKind::Playwright => {
                let args = json!({"target": reference, "element": target.to_string()});
                self.call("browser_click", args, ACTION_LIMIT).await
            }
            ServerKind::Devtools => self.call("click", self.with_page(json!({"uid": reference})), ACTION_LIMIT).await,
        }
    }

    /// Replaces the text of the field `reference` with `text`.
    pub async fn type_text(&self, reference: &str, target: &Target, text: &str) -> anyhow::Result<Timed> {
        match self.kind {
            ServerKind::Sightline => {
                self.call("browser_type", json!({"ref": reference, "text": text}), ACTION_LIMIT).await
            }
            ServerKind::Playwright => {
                let args = json!({"target": reference, "element": target.to_string(), "text": text});
                self.call("browser_type", args, ACTION_LIMIT).await
            }
            ServerKind::Devtools => {
                self.call("fill", self.with_page(json!({"uid": reference, "value": text})), ACTION_LIMIT).await
            }
        }
    }

    /// Picks the option labelled `value` in the select `reference`. Returns a note when the
    /// server has no tool for it and the bench used another one.
    pub async fn select(
        &self,
        reference: &str,
        target: &Target,
        value: &str,
    ) -> anyhow::Result<(Timed, Option<String>)> {
        match self.kind {
            ServerKind::Sightline => {
                let args = json!({"ref": reference, "values": [value]});
                Ok((self.call("browser_select_option", args, ACTION_LIMIT).await?, None))
            }
            ServerKind::Playwright => {
                let args = json!({"target": reference, "element": target.to_string(), "values": [value]});
                Ok((self.call("browser_select_option", args, ACTION_LIMIT).await?, None))
            }
            ServerKind::Devtools => {
                let args = self.with_page(json!({"uid": reference, "value": value}));
                Ok((self.call("fill", args, ACTION_LIMIT).await?, None))
            }
        }
    }

    /// Calls `tool`, bounded by `limit`. A protocol failure or running out of time is an error;
    /// a tool that reports failure comes back as a reply with `is_error`.
    pub async fn call(&self, tool: &'static str, args: Value, limit: Duration) -> anyhow::Result<Timed> {
        let started = Instant::now();
        let reply = tokio::time::timeout(limit, self.client().call(tool, args))
            .await
            .map_err(|_| anyhow::anyhow!("{tool} got no answer within {} s", limit.as_secs()))?
            .with_context(|| format!("{tool} failed at the protocol level"))?;
        Ok(Timed { tool, reply, elapsed: started.elapsed(), calls: 1 })
    }

    fn client(&self) -> &McpClient {
        match &self.backend {
            Backend::Sightline(rig) => &rig.client,
            Backend::Peer { client, .. } => client,
        }
    }

    /// Adds chrome-devtools-mcp's `pageId` to `args` (other servers' arguments are unchanged).
    pub fn with_page(&self, mut args: Value) -> Value {
        if let (Some(id), Some(map)) = (self.page_id, args.as_object_mut()) {
            map.insert("pageId".to_owned(), json!(id));
        }
        args
    }

    /// The id of chrome-devtools-mcp's selected page, from `list_pages` (`1: about:blank [selected]`).
    async fn selected_page(&self) -> anyhow::Result<u64> {
        let listed = self.call("list_pages", json!({}), LIST_LIMIT).await?;
        listed
            .reply
            .text
            .lines()
            .filter(|l| l.contains("[selected]"))
            .find_map(|l| l.split_once(':').and_then(|(id, _)| id.trim().parse().ok()))
            .with_context(|| format!("no selected page in list_pages: {}", listed.reply.text))
    }
}

/// Appends the `elements` of a later page's structured content to the first page's.
fn merge_elements(first: &mut Option<Value>, later: Option<Value>) {
    let Some(Value::Array(more)) = later.and_then(|mut l| l.get_mut("elements").map(Value::take)) else { return };
    match first.as_mut().and_then(|f| f.get_mut("elements")).and_then(Value::as_array_mut) {
        Some(elements) => elements.extend(more),
        None => *first = Some(json!({"elements": more})),
    }
}

async fn launch(kind: ServerKind, chromium: &Path) -> anyhow::Result<Backend> {
    match kind {
        ServerKind::Sightline => {
            // The rig's own fixture server is unused: every page comes from the bench's servers.
            let window = format!("--window-size={},{}", peers::VIEWPORT.0, peers::VIEWPORT.1);
            // A DevTools port for the bench's memory readings; nothing connects to it otherwise.
            let debugging = crate::browser::REMOTE_DEBUGGING;
            let rig = Rig::serving(workspace_root().join("bench/sites"), &[&window, debugging, "about:blank"]).await?;
            Ok(Backend::Sightline(Box::new(rig)))
        }
        ServerKind::Playwright | ServerKind::Devtools => {
            let scratch = tempfile::Builder::new().prefix("sightline-bench-").tempdir()?;
            let cmd = if kind == ServerKind::Playwright {
                peers::playwright_command(chromium, scratch.path())?
            } else {
                peers::devtools_command(chromium, scratch.path())?
            };
            let log = std::fs::File::create(scratch.path().join("stderr.log"))?;
            match McpClient::spawn(cmd, Stdio::from(log)).await {
                Ok(client) => Ok(Backend::Peer { client, scratch }),
                Err(e) => {
                    let stderr = std::fs::read_to_string(scratch.path().join("stderr.log")).unwrap_or_default();
                    peers::kill_leftovers(scratch.path());
                    Err(e.context(format!("starting {}; its stderr:\n{stderr}", kind.label())))
                }
            }
        }
    }
}
