//! An MCP client (rmcp) driving `sightline-host mcp` as a child process, the way an agent's
//! MCP client does; optionally keeping the raw transcript of everything the server sent it.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestHandle, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use crate::{Sandbox, paths};

/// A connected MCP client.
pub struct McpClient {
    service: RunningService<RoleClient, ()>,
    /// When recorded: what the server wrote, and the server process, spawned here rather than
    /// by rmcp (killed when dropped).
    recording: Option<Box<(Transcript, tokio::process::Child)>>,
}

/// Every byte the server wrote to the client: each JSON-RPC message (replies with their text,
/// `structuredContent` and `_meta`, errors, notifications) exactly as it crossed stdio.
#[derive(Debug, Clone, Default)]
pub struct Transcript(Arc<Mutex<Vec<u8>>>);

impl Transcript {
    /// The transcript so far, as text.
    pub fn text(&self) -> String {
        self.0.lock().map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default()
    }
}

/// A reader that copies everything read through it into a [`Transcript`].
struct Tee<R> {
    inner: R,
    copy: Transcript,
}

impl<R: AsyncRead + Unpin> AsyncRead for Tee<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled
            && let Ok(mut copy) = self.copy.0.lock()
        {
            copy.extend_from_slice(&buf.filled()[before..]);
        }
        polled
    }
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
    /// Image blocks: MIME type and base64 data.
    pub images: Vec<(String, String)>,
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
        Ok(McpClient { service, recording: None })
    }

    /// Like [`McpClient::connect`], keeping the transcript of everything the server sends
    /// ([`McpClient::transcript`]).
    pub async fn connect_recording(sandbox: &Sandbox) -> anyhow::Result<Self> {
        let mut cmd = tokio::process::Command::new(paths::host_binary());
        cmd.arg("mcp").env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (k, v) in sandbox.env() {
            cmd.env(k, v);
        }
        cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).kill_on_drop(true);
        let mut server = cmd.spawn()?;
        let (Some(stdout), Some(stdin)) = (server.stdout.take(), server.stdin.take()) else {
            anyhow::bail!("the server's stdio was not piped");
        };
        let transcript = Transcript::default();
        let service = ().serve((Tee { inner: stdout, copy: transcript.clone() }, stdin)).await?;
        Ok(McpClient { service, recording: Some(Box::new((transcript, server))) })
    }

    /// Everything the server sent so far, when this client records it.
    pub fn transcript(&self) -> Option<String> {
        self.recording.as_ref().map(|r| r.0.text())
    }

    /// Spawns any MCP server speaking stdio (`cmd` as given, its stderr going to `stderr`) and
    /// completes the handshake. Used to drive other browser MCP servers the same way.
    pub async fn spawn(cmd: tokio::process::Command, stderr: std::process::Stdio) -> anyhow::Result<Self> {
        let (transport, _) = TokioChildProcess::builder(cmd).stderr(stderr).spawn()?;
        let service = ().serve(transport).await?;
        Ok(McpClient { service, recording: None })
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

impl From<CallToolResult> for Reply {
    /// The reply of a result a test got through its own rmcp client.
    fn from(result: CallToolResult) -> Reply {
        reply(result)
    }
}

fn reply(result: CallToolResult) -> Reply {
    let text = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n");
    let images =
        result.content.iter().filter_map(|c| c.as_image().map(|i| (i.mime_type.clone(), i.data.clone()))).collect();
    Reply { text, is_error: result.is_error.unwrap_or(false), structured: result.structured_content, images }
}
