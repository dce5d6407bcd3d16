//! `sightline-host mcp`: the MCP server an agent's client launches on stdio.
//!
//! Every tool call is forwarded over a bridge socket to the browser that runs the extension.
//! The server holds no page state of its own (the extension runtime is the one authority); it
//! only finds a live bridge, checks that the bridge is the same version, forwards, and maps the
//! result onto MCP. With no browser connected, each tool answers with what to do, and a browser
//! that starts later is picked up on the next call.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use sightline_core::protocol::{ChangesParams, CheckpointParams, ConsoleMessagesParams, NetworkRequestsParams};
use sightline_core::protocol::{
    ClickParams, FindParams, NavigateParams, PressKeyParams, SnapshotFacts, SnapshotParams, TabsParams, ToolCall,
    ToolOutput, TypeParams,
};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{Mutex, oneshot};

use crate::link::{self, BridgeMessage, ClientMessage, ExtensionInfo};
use crate::socket;

/// How long a call may wait for the browser; a little above the bridge's own cap so the
/// bridge's clearer message wins.
const CALL_TIMEOUT: Duration = Duration::from_secs(130);
/// How long connecting and the hello exchange may take per socket.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What an agent reads when no browser is connected.
pub const NO_BROWSER: &str = "No browser is connected to Sightline. Open Chrome (or Chromium, Edge, Brave, Vivaldi) \
with the Sightline extension loaded; it starts the bridge by itself. If it is open, run `sightline-host doctor` in \
a terminal to see which link is missing.";

const INSTRUCTIONS: &str = "Sightline drives the user's own browser. Read a page with browser_snapshot, act on \
elements by ref (e12). Actions answer with what changed. Only tabs you opened or the user shared are reachable.";

/// The MCP server.
#[derive(Clone)]
pub struct SightlineMcp {
    session: String,
    link: Arc<Mutex<Option<Arc<Link>>>>,
    tool_router: ToolRouter<Self>,
}

/// Runs the MCP server on stdin/stdout until the client disconnects.
pub async fn run() -> anyhow::Result<()> {
    let server = SightlineMcp::new();
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

#[tool_router]
impl SightlineMcp {
    /// A server with a fresh session id.
    pub fn new() -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let mut tool_router = Self::tool_router();
        for route in tool_router.map.values_mut() {
            route.attr.input_schema = Arc::new(crate::schema::compact(&route.attr.input_schema));
            if let Some(output) = &route.attr.output_schema {
                route.attr.output_schema = Some(Arc::new(crate::schema::compact(output)));
            }
        }
        Self { session: format!("{}-{nanos:x}", std::process::id()), link: Arc::default(), tool_router }
    }

    #[tool(description = "List, open (new), select or close tabs. Only tabs you opened or the user shared are listed.")]
    async fn browser_tabs(&self, Parameters(p): Parameters<TabsParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserTabs(p)).await)
    }

    #[tool(description = "Go to a URL, or back/forward/reload. Waits for load and a quiet DOM.")]
    async fn browser_navigate(&self, Parameters(p): Parameters<NavigateParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserNavigate(p)).await)
    }

    #[tool(
        description = "Read the current page: text and actionable elements with refs.",
        output_schema = rmcp::handler::server::tool::schema_for_output::<SnapshotFacts>()
    )]
    async fn browser_snapshot(&self, Parameters(p): Parameters<SnapshotParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserSnapshot(p)).await)
    }

    #[tool(description = "Click an element by ref.")]
    async fn browser_click(&self, Parameters(p): Parameters<ClickParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserClick(p)).await)
    }

    #[tool(description = "Replace the text of an input or editable element by ref.")]
    async fn browser_type(&self, Parameters(p): Parameters<TypeParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserType(p)).await)
    }

    #[tool(description = "Press a key or chord (Enter, ArrowDown, Control+a), optionally on an element.")]
    async fn browser_press_key(&self, Parameters(p): Parameters<PressKeyParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserPressKey(p)).await)
    }

    #[tool(description = "Find elements by text, role or region, including regions shown as unchanged or trimmed.")]
    async fn browser_find(&self, Parameters(p): Parameters<FindParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserFind(p)).await)
    }

    #[tool(
        description = "What changed since your previous call (or a named checkpoint or ISO time): new console errors, \
                       failed/new/slow requests, WebSocket closes, actions. Small JSON with severity and summary."
    )]
    async fn get_changes_since(&self, Parameters(p): Parameters<ChangesParams>) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::GetChangesSince(p)).await)
    }

    #[tool(description = "Create, list or delete named checkpoints to compare against with get_changes_since.")]
    async fn browser_checkpoint(
        &self,
        Parameters(p): Parameters<CheckpointParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserCheckpoint(p)).await)
    }

    #[tool(description = "Console messages of your tabs, newest last, a page at a time (page 1 is the newest).")]
    async fn browser_console_messages(
        &self,
        Parameters(p): Parameters<ConsoleMessagesParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserConsoleMessages(p)).await)
    }

    #[tool(
        description = "Requests of your tabs (method, status, time, size), newest last, a page at a time (page 1 is \
                       the newest)."
    )]
    async fn browser_network_requests(
        &self,
        Parameters(p): Parameters<NetworkRequestsParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserNetworkRequests(p)).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SightlineMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sightline", link::HOST_VERSION))
            .with_instructions(INSTRUCTIONS)
    }
}

impl Default for SightlineMcp {
    fn default() -> Self {
        Self::new()
    }
}

impl SightlineMcp {
    /// Forwards one call to the browser and maps its output onto MCP.
    async fn forward(&self, call: ToolCall) -> CallToolResult {
        to_mcp(self.call(call).await)
    }

    async fn call(&self, call: ToolCall) -> ToolOutput {
        // A link that died since the last call is replaced; a browser started since is found.
        for attempt in 0..2 {
            let link = match self.live_link().await {
                Ok(link) => link,
                Err(message) => return ToolOutput::error(message),
            };
            match link.call(call.clone()).await {
                Ok(output) => return output,
                Err(LinkLost::BeforeSending) if attempt == 0 => continue,
                Err(lost) => return ToolOutput::error(lost.to_string()),
            }
        }
        ToolOutput::error(NO_BROWSER)
    }

    async fn live_link(&self) -> Result<Arc<Link>, String> {
        let mut slot = self.link.lock().await;
        if let Some(link) = slot.as_ref()
            && link.alive.load(Ordering::SeqCst)
        {
            return Ok(link.clone());
        }
        *slot = None;
        let link = Arc::new(Link::connect_any(&self.session).await?);
        *slot = Some(link.clone());
        Ok(link)
    }
}

fn to_mcp(output: ToolOutput) -> CallToolResult {
    let mut content = vec![ContentBlock::text(output.text)];
    if let Some(image) = output.image {
        content.push(ContentBlock::image(image.base64, image.mime));
    }
    let mut result = if output.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    result.structured_content = output.structured;
    result
}

/// Why a call could not complete over a link.
#[derive(Debug, thiserror::Error)]
enum LinkLost {
    #[error("the browser connection was already closed")]
    BeforeSending,
    #[error("the browser connection closed while the call was running (did the browser exit?); retry once it is back")]
    WhileWaiting,
    #[error("no answer from the browser within {} s; retry, or reload the Sightline extension", CALL_TIMEOUT.as_secs())]
    TimedOut,
}

type Waiters = Arc<StdMutex<HashMap<u64, oneshot::Sender<ToolOutput>>>>;

/// An open connection to one bridge.
struct Link {
    writer: Mutex<OwnedWriteHalf>,
    waiters: Waiters,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
}

/// What a bridge said when a client connected.
pub struct Greeting {
    /// Socket the bridge listens on.
    pub socket: PathBuf,
    /// Bridge process id.
    pub pid: u32,
    /// Extension behind the bridge, if it has said hello.
    pub extension: Option<ExtensionInfo>,
}

/// Connects to the bridge at `path` and exchanges hellos. `session: None` makes a status probe.
pub async fn handshake(path: &std::path::Path, session: Option<&str>) -> Result<(UnixStream, Greeting), String> {
    let attempt = async {
        let mut stream = UnixStream::connect(path).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::ConnectionRefused {
                // Nobody listens: the bridge died without cleaning up.
                let _ = std::fs::remove_file(path);
            }
            format!("{}: {e}", path.display())
        })?;
        let hello = ClientMessage::Hello { version: link::HOST_VERSION.into(), session: session.map(str::to_owned) };
        socket::write_frame(&mut stream, &hello).await.map_err(|e| e.to_string())?;
        match socket::read_frame::<_, BridgeMessage>(&mut stream).await.map_err(|e| e.to_string())? {
            Some(BridgeMessage::Welcome { pid, extension, .. }) => {
                Ok((stream, Greeting { socket: path.to_owned(), pid, extension }))
            }
            Some(BridgeMessage::Rejected { reason }) => Err(reason),
            _ => Err(format!("{} closed the connection during the hello", path.display())),
        }
    };
    tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| Err(format!("{} did not answer within {} s", path.display(), CONNECT_TIMEOUT.as_secs())))
}

impl Link {
    /// Connects to the newest live bridge.
    async fn connect_any(session: &str) -> Result<Link, String> {
        let mut rejection = None;
        for path in socket::candidate_sockets() {
            match handshake(&path, Some(session)).await {
                Ok((stream, greeting)) => {
                    tracing::info!(socket = %greeting.socket.display(), pid = greeting.pid, "connected to bridge");
                    return Ok(Link::start(stream));
                }
                Err(reason) => {
                    tracing::warn!("{reason}");
                    if reason.contains("version mismatch") {
                        rejection = Some(reason);
                    }
                }
            }
        }
        Err(rejection.unwrap_or_else(|| NO_BROWSER.to_owned()))
    }

    fn start(stream: UnixStream) -> Link {
        let (mut reader, writer) = stream.into_split();
        let waiters = Waiters::default();
        let alive = Arc::new(AtomicBool::new(true));
        let (reader_waiters, reader_alive) = (waiters.clone(), alive.clone());
        tokio::spawn(async move {
            while let Ok(Some(message)) = socket::read_frame::<_, BridgeMessage>(&mut reader).await {
                if let BridgeMessage::Result { id, output } = message {
                    let waiter = reader_waiters.lock().ok().and_then(|mut w| w.remove(&id));
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(output);
                    }
                }
            }
            reader_alive.store(false, Ordering::SeqCst);
            // Dropping the senders wakes every waiting call with "connection closed".
            if let Ok(mut w) = reader_waiters.lock() {
                w.clear();
            }
        });
        Link { writer: Mutex::new(writer), waiters, next_id: AtomicU64::new(1), alive }
    }

    async fn call(&self, call: ToolCall) -> Result<ToolOutput, LinkLost> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiters.lock() {
            w.insert(id, tx);
        }
        let sent = {
            let mut writer = self.writer.lock().await;
            socket::write_frame(&mut *writer, &ClientMessage::Call { id, call }).await
        };
        if sent.is_err() || !self.alive.load(Ordering::SeqCst) {
            self.alive.store(false, Ordering::SeqCst);
            return Err(LinkLost::BeforeSending);
        }
        match tokio::time::timeout(CALL_TIMEOUT, rx).await {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(_)) => Err(LinkLost::WhileWaiting),
            Err(_) => {
                if let Ok(mut w) = self.waiters.lock() {
                    w.remove(&id);
                }
                Err(LinkLost::TimedOut)
            }
        }
    }
}
