//! The client side of a bridge socket: finding a live bridge, the hello exchange, and
//! forwarding tool calls over the link.
//!
//! `sightline-host mcp` talks to the browser only through a [`BridgeClient`]; `doctor` uses
//! [`handshake`] alone to probe each bridge. This module knows nothing of MCP: it turns a
//! [`ToolCall`] into a [`ToolOutput`], and says what to do when no browser answers.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sightline_core::protocol::{ToolCall, ToolOutput};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::Mutex;

use crate::link::{self, BridgeMessage, ClientMessage, ExtensionInfo};
use crate::pending::{PendingCalls, Unanswered};
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

/// One MCP session's way to the browser: keeps a link to a bridge, replaces it when it dies,
/// and finds a browser started after the session.
pub struct BridgeClient {
    session: String,
    link: Mutex<Option<Arc<Link>>>,
}

impl BridgeClient {
    /// A client that introduces itself to bridges as MCP session `session`.
    pub fn new(session: String) -> Self {
        Self { session, link: Mutex::default() }
    }

    /// Forwards one call to the browser; every failure comes back as an error output that says
    /// what to do.
    pub async fn call(&self, call: ToolCall) -> ToolOutput {
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

/// An open connection to one bridge.
struct Link {
    writer: Mutex<OwnedWriteHalf>,
    /// Calls sent on this link and waiting for their result, by link-wide id.
    pending: Arc<PendingCalls<ToolOutput>>,
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
            Some(BridgeMessage::Rejected { reason, .. }) => Err(reason),
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
        let pending = Arc::new(PendingCalls::new());
        let alive = Arc::new(AtomicBool::new(true));
        let (reader_pending, reader_alive) = (pending.clone(), alive.clone());
        tokio::spawn(async move {
            while let Ok(Some(message)) = socket::read_frame::<_, BridgeMessage>(&mut reader).await {
                if let BridgeMessage::Result { id, output } = message {
                    reader_pending.resolve(id, output);
                }
            }
            reader_alive.store(false, Ordering::SeqCst);
            reader_pending.fail_all();
        });
        Link { writer: Mutex::new(writer), pending, alive }
    }

    async fn call(&self, call: ToolCall) -> Result<ToolOutput, LinkLost> {
        let waiter = self.pending.register();
        let id = waiter.id();
        let sent = {
            let mut writer = self.writer.lock().await;
            socket::write_frame(&mut *writer, &ClientMessage::Call { id, call }).await
        };
        if sent.is_err() || !self.alive.load(Ordering::SeqCst) {
            self.alive.store(false, Ordering::SeqCst);
            return Err(LinkLost::BeforeSending);
        }
        match waiter.wait(CALL_TIMEOUT).await {
            Ok(output) => Ok(output),
            Err(Unanswered::ConnectionLost) => Err(LinkLost::WhileWaiting),
            Err(Unanswered::TimedOut(_)) => Err(LinkLost::TimedOut),
        }
    }
}
