//! Bridge mode: the process Chrome spawns when the extension calls `connectNative`.
//!
//! It speaks native messaging on stdin/stdout with the extension and listens on a private unix
//! socket for `sightline-host mcp` processes. Calls from any number of MCP sessions are given
//! bridge-unique ids, forwarded to the extension, and their results routed back to the socket
//! they came from. Nothing but frames is ever written to stdout; logs go to a file. When the
//! browser closes the port (stdin EOF) the bridge removes its socket and exits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sightline_core::protocol::{ExtensionToHost, HostToExtension, ToolOutput, WIRE_PROTOCOL};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, watch};

use crate::link::{self, BridgeMessage, ClientMessage, ExtensionInfo};
use crate::pending::{PendingCalls, Unanswered};
use crate::{native_messaging, socket};

/// Longest a forwarded call may take before the bridge gives up on the extension. Every tool
/// bounds its own waits well below this; hitting it means the extension is stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// The extension origin allowed to launch the bridge.
pub fn allowed_origin() -> String {
    format!("chrome-extension://{}/", crate::install::EXTENSION_ID)
}

struct Bridge {
    to_extension: mpsc::Sender<HostToExtension>,
    /// Calls forwarded to the extension and waiting for their result, by bridge-wide id.
    pending: Arc<PendingCalls<ToolOutput>>,
    extension: watch::Receiver<Option<ExtensionInfo>>,
}

/// Runs the bridge until the browser closes the port.
pub async fn run(origin: &str) -> anyhow::Result<()> {
    if origin != allowed_origin() {
        anyhow::bail!("refusing to serve {origin}: only {} may launch sightline-host", allowed_origin());
    }
    let dir = socket::socket_dir();
    socket::ensure_private_dir(&dir).with_context(|| format!("socket directory {}", dir.display()))?;
    let path = socket::bridge_socket_path(std::process::id());
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).with_context(|| format!("binding {}", path.display()))?;
    socket::make_socket_private(&path)?;
    let _cleanup = RemoveOnDrop(path.clone());
    tracing::info!(socket = %path.display(), "bridge listening");

    let (to_extension, outgoing) = mpsc::channel::<HostToExtension>(64);
    let (extension_tx, extension) = watch::channel(None);
    let bridge = Arc::new(Bridge { to_extension, pending: Arc::default(), extension });

    let writer = tokio::spawn(write_to_extension(outgoing));
    let accept = tokio::spawn(accept_clients(listener, bridge.clone()));
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;

    let result = tokio::select! {
        r = read_from_extension(bridge.pending.clone(), extension_tx) => r,
        _ = terminate.recv() => { tracing::info!("terminated"); Ok(()) }
    };
    accept.abort();
    writer.abort();
    tracing::info!("bridge exiting");
    result
}

/// Removes the socket file when the bridge exits, however it exits.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn write_to_extension(mut outgoing: mpsc::Receiver<HostToExtension>) {
    let mut stdout = tokio::io::stdout();
    while let Some(message) = outgoing.recv().await {
        let body = match serde_json::to_vec(&message) {
            Ok(body) => body,
            Err(e) => {
                tracing::error!("cannot encode a message for the extension: {e}");
                continue;
            }
        };
        if let Err(e) = native_messaging::write_message(&mut stdout, &body).await {
            tracing::error!("writing to the extension failed: {e}");
            if matches!(e, native_messaging::FrameError::Io(_)) {
                return;
            }
        }
    }
}

/// Reads the extension's messages until the port closes.
async fn read_from_extension(
    pending: Arc<PendingCalls<ToolOutput>>,
    extension: watch::Sender<Option<ExtensionInfo>>,
) -> anyhow::Result<()> {
    let mut stdin = tokio::io::stdin();
    loop {
        let Some(body) = native_messaging::read_message(&mut stdin).await? else {
            tracing::info!("the browser closed the port");
            return Ok(());
        };
        let message: ExtensionToHost = match serde_json::from_slice(&body) {
            Ok(message) => message,
            Err(e) => {
                tracing::warn!("ignoring a malformed message from the extension: {e}");
                continue;
            }
        };
        match message {
            ExtensionToHost::Hello { version, protocol, browser } => {
                tracing::info!(%version, protocol, %browser, "extension connected");
                if protocol != WIRE_PROTOCOL {
                    tracing::error!("extension speaks wire protocol {protocol}, bridge speaks {WIRE_PROTOCOL}");
                }
                extension.send_replace(Some(ExtensionInfo { version, browser }));
            }
            ExtensionToHost::Result { id, output } => {
                if !pending.resolve(id, output) {
                    tracing::warn!(id, "result for a call nobody waits for");
                }
            }
        }
    }
}

async fn accept_clients(listener: UnixListener, bridge: Arc<Bridge>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let bridge = bridge.clone();
                tokio::spawn(async move {
                    if let Err(e) = serve_client(stream, bridge).await {
                        tracing::warn!("client connection ended: {e:#}");
                    }
                });
            }
            Err(e) => {
                tracing::error!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Serves one MCP server process (or a `doctor` probe) connected to the socket.
async fn serve_client(stream: UnixStream, bridge: Arc<Bridge>) -> anyhow::Result<()> {
    socket::check_peer(&stream)?;
    let (mut reader, mut writer) = stream.into_split();
    let Some(ClientMessage::Hello { version, session }) = socket::read_frame(&mut reader).await? else {
        anyhow::bail!("the first frame was not a hello");
    };
    if let Some(mismatch) = link::version_mismatch(&version) {
        socket::write_frame(&mut writer, &mismatch.rejection()).await?;
        return Ok(());
    }
    let extension = bridge.extension.borrow().clone();
    socket::write_frame(
        &mut writer,
        &BridgeMessage::Welcome { version: link::HOST_VERSION.into(), pid: std::process::id(), extension },
    )
    .await?;
    let Some(session) = session else { return Ok(()) };
    tracing::info!(%session, "MCP session connected");

    // Results are written by one task so concurrent calls never interleave frames.
    let (results_tx, mut results_rx) = mpsc::channel::<BridgeMessage>(16);
    let result_writer = tokio::spawn(async move {
        while let Some(message) = results_rx.recv().await {
            if socket::write_frame(&mut writer, &message).await.is_err() {
                break;
            }
        }
    });

    while let Some(message) = socket::read_frame::<_, ClientMessage>(&mut reader).await? {
        let ClientMessage::Call { id, call } = message else { continue };
        let bridge = bridge.clone();
        let session = session.clone();
        let results_tx = results_tx.clone();
        tokio::spawn(async move {
            let output = forward_call(&bridge, session, call).await;
            let _ = results_tx.send(BridgeMessage::Result { id, output }).await;
        });
    }
    tracing::info!(%session, "MCP session disconnected");
    let _ = bridge.to_extension.send(HostToExtension::SessionClosed { session }).await;
    drop(results_tx);
    let _ = result_writer.await;
    Ok(())
}

async fn forward_call(bridge: &Bridge, session: String, call: sightline_core::protocol::ToolCall) -> ToolOutput {
    if let Some(info) = bridge.extension.borrow().as_ref()
        && let Some(mismatch) = link::extension_mismatch(&info.version)
    {
        return ToolOutput::error(mismatch.to_string());
    }
    // Dropping the waiter on any early return forgets the call.
    let waiter = bridge.pending.register();
    let id = waiter.id();
    let tool = call.name();
    let message = HostToExtension::Call { id, session, call };
    match serde_json::to_vec(&message).map(|body| native_messaging::check_outgoing(body.len())) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return ToolOutput::error(format!("{tool} was not sent: {e}. Send a smaller argument.")),
        Err(e) => return ToolOutput::error(format!("{tool} could not be encoded: {e}")),
    }
    if bridge.to_extension.send(message).await.is_err() {
        return ToolOutput::error("the browser connection is closing; retry in a moment");
    }
    match waiter.wait(CALL_TIMEOUT).await {
        Ok(output) => output,
        Err(Unanswered::ConnectionLost) => {
            ToolOutput::error("the browser closed the connection before answering; retry in a moment")
        }
        Err(Unanswered::TimedOut(limit)) => ToolOutput::error(format!(
            "{tool} got no answer from the browser within {} s; the extension may be stuck — reload it and retry",
            limit.as_secs()
        )),
    }
}
