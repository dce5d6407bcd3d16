//! An MCP client (rmcp) driving `sightline-host mcp` as a child process, the way an agent's
//! MCP client does.

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestHandle, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use crate::{Sandbox, paths};

/// A connected MCP client.
pub struct McpClient {
    service: RunningService<RoleClient, ()>,
}

/// The text and error flag of one tool result.
#[derive(Debug, Clone)]
pub struct Reply {
    /// All text blocks, joined.
    pub text: String,
    /// `isError`.
    pub is_error: bool,
    /// `structuredContent`.
    pub structured: Option<Value>,
}

impl McpClient {
    /// Spawns `sightline-host mcp` in `sandbox` and completes the MCP handshake.
    pub async fn connect(sandbox: &Sandbox) -> anyhow::Result<Self> {
        Self::connect_with(sandbox, &[]).await
    }

    /// Spawns `sightline-host mcp <options>` in `sandbox` (e.g. `--user-data-dir DIR`) and
    /// completes the MCP handshake.
    pub async fn connect_with(sandbox: &Sandbox, options: &[&str]) -> anyhow::Result<Self> {
        let mut cmd = tokio::process::Command::new(paths::host_binary());
        cmd.arg("mcp").args(options).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (k, v) in sandbox.env() {
            cmd.env(k, v);
        }
        let transport = TokioChildProcess::new(cmd)?;
        let service = ().serve(transport).await?;
        Ok(McpClient { service })
    }

    /// Spawns any MCP server speaking stdio (`cmd` as given, its stderr going to `stderr`) and
    /// completes the handshake. Used to drive other browser MCP servers the same way.
    pub async fn spawn(cmd: tokio::process::Command, stderr: std::process::Stdio) -> anyhow::Result<Self> {
        let (transport, _) = TokioChildProcess::builder(cmd).stderr(stderr).spawn()?;
        let service = ().serve(transport).await?;
        Ok(McpClient { service })
    }

    /// The underlying rmcp peer.
    pub fn peer(&self) -> &rmcp::Peer<RoleClient> {
        self.service.peer()
    }

    /// Calls a tool; protocol-level failures are errors, tool failures come back as replies.
    pub async fn call(&self, tool: &str, args: Value) -> anyhow::Result<Reply> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = args {
            params.arguments = Some(map);
        }
        let result: CallToolResult = self.service.peer().call_tool(params).await?;
        Ok(reply(result))
    }

    /// Starts a tool call without waiting for it, so a test can cancel it (MCP
    /// `notifications/cancelled`) or run others meanwhile.
    pub async fn start(&self, tool: &str, args: Value) -> anyhow::Result<PendingCall> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = args {
            params.arguments = Some(map);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = self.service.peer().send_request_with_option(request, PeerRequestOptions::no_options()).await?;
        Ok(PendingCall { handle })
    }

    /// Calls a tool that must succeed and returns its text.
    pub async fn ok(&self, tool: &str, args: Value) -> String {
        match self.call(tool, args.clone()).await {
            Ok(r) if !r.is_error => r.text,
            Ok(r) => panic!("{tool} {args} failed: {}", r.text),
            Err(e) => panic!("{tool} {args}: protocol error {e:#}"),
        }
    }

    /// Polls `browser_tabs` until a browser answers (at most `timeout`).
    pub async fn wait_for_browser(&self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        let mut last = String::new();
        while Instant::now() < deadline {
            let r = self.call("browser_tabs", serde_json::json!({})).await?;
            if !r.is_error {
                return Ok(());
            }
            last = r.text;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        anyhow::bail!("no browser answered within {timeout:?}; last reply: {last}")
    }

    /// Ends the session.
    pub async fn close(self) -> anyhow::Result<()> {
        self.service.cancel().await?;
        Ok(())
    }
}

/// A tool call under way (see [`McpClient::start`]).
pub struct PendingCall {
    handle: RequestHandle<RoleClient>,
}

impl PendingCall {
    /// Sends `notifications/cancelled` for the call; its answer, if any, is dropped.
    pub async fn cancel(self) -> anyhow::Result<()> {
        self.handle.cancel(Some("the test gave up on it".into())).await?;
        Ok(())
    }

    /// Waits for the call's answer.
    pub async fn answer(self) -> anyhow::Result<Reply> {
        match self.handle.await_response().await? {
            ServerResult::CallToolResult(result) => Ok(reply(result)),
            other => anyhow::bail!("not a tool result: {other:?}"),
        }
    }
}

fn reply(result: CallToolResult) -> Reply {
    let text = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n");
    Reply { text, is_error: result.is_error.unwrap_or(false), structured: result.structured_content }
}
