//! Bridge mode: the process Chrome spawns when the extension calls `connectNative`.
//!
//! It speaks native messaging on stdin/stdout with the extension (see [`extension_port`]),
//! knows which browser started it ([`browser_process`]), and listens on a private endpoint (a
//! Unix socket, a named pipe on Windows; see [`socket`]) for
//! `sightline-host mcp` processes. Calls from any number
//! of MCP sessions are given bridge-unique ids, forwarded to the extension with the time their
//! caller waits, and their results routed back to the socket they came from. A call is called
//! off in the extension when its client cancels it, when its client goes away, and when the
//! extension has not answered it in time, so no abandoned call keeps running or holds a tab.
//! Nothing but frames is ever written to stdout; logs go to a file. When the browser closes
//! the port (stdin EOF) the bridge removes its socket and exits.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::Context;
use sightline_core::protocol::{HostToExtension, ToolCall, ToolOutput, WIRE_PROTOCOL};
use tokio::sync::{mpsc, oneshot, watch};

use crate::platform::allowed_origin;
use crate::transport::frame::{self, FrameError};
use crate::transport::link::{self, BridgeMessage, BrowserProcess, ClientMessage, ExtensionInfo};
use crate::transport::pending::{PendingCalls, Unanswered, Waiting};
use crate::transport::{native_messaging, socket};

pub mod browser_process;
mod extension_port;

/// How long past a call's time limit the bridge still waits for the extension's answer (the
/// extension answers within the limit itself; this covers the trip). Past it, the bridge calls
/// the call off and answers for it.
const ANSWER_GRACE: Duration = Duration::from_secs(10);

struct Bridge {
    socket: PathBuf,
    to_extension: mpsc::Sender<HostToExtension>,
    /// Calls forwarded to the extension and waiting for their result, by bridge-wide id.
    pending: Arc<PendingCalls<ToolOutput>>,
    extension: watch::Receiver<Option<ExtensionInfo>>,
    browser: Option<BrowserProcess>,
    started_ms: u64,
}

/// Runs the bridge until the browser closes the port.
pub async fn run(origin: &str) -> anyhow::Result<()> {
    if origin != allowed_origin() {
        anyhow::bail!(
            "refusing to serve {origin}: only {} may launch sightline-host. Check the allowed_origins of the native \
             messaging manifest, or run `sightline-host install` again.",
            allowed_origin()
        );
    }
    let dir = socket::socket_dir();
    socket::ensure_private_dir(&dir).with_context(|| format!("socket directory {}", dir.display()))?;
    let path = socket::bridge_socket_path(&dir, std::process::id());
    let listener = socket::Listener::bind(&path).with_context(|| format!("binding {}", path.display()))?;
    let _cleanup = RemoveOnDrop(path.clone());
    let browser = browser_process::parent();
    tracing::info!(socket = %path.display(), browser = ?browser, "bridge listening");

    let (to_extension, outgoing) = mpsc::channel::<HostToExtension>(64);
    let (extension_tx, extension) = watch::channel(None);
    let started_ms =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let bridge =
        Arc::new(Bridge { socket: path, to_extension, pending: Arc::default(), extension, browser, started_ms });

    let writer = tokio::spawn(extension_port::write(tokio::io::stdout(), outgoing));
    let accept = tokio::spawn(accept_clients(listener, bridge.clone()));
    let terminated = crate::platform::system::terminated()?;

    let result = tokio::select! {
        r = extension_port::read(tokio::io::stdin(), bridge.pending.clone(), extension_tx) => r,
        () = terminated => { tracing::info!("terminated"); Ok(()) }
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
        socket::remove_stale(&self.0);
    }
}

async fn accept_clients(mut listener: socket::Listener, bridge: Arc<Bridge>) {
    loop {
        match listener.accept().await {
            Ok(stream) => {
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

/// The calls one client has in flight, by the client's id: firing a sender calls one off.
#[derive(Default)]
struct InFlight(Mutex<HashMap<u64, oneshot::Sender<()>>>);

impl InFlight {
    fn start(&self, id: u64) -> oneshot::Receiver<()> {
        let (call_off, called_off) = oneshot::channel();
        self.lock().insert(id, call_off);
        called_off
    }

    fn finish(&self, id: u64) {
        self.lock().remove(&id);
    }

    fn call_off(&self, id: u64) {
        if let Some(call_off) = self.lock().remove(&id) {
            let _ = call_off.send(());
        }
    }

    fn call_off_all(&self) {
        for (_, call_off) in self.lock().drain() {
            let _ = call_off.send(());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<()>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Serves one MCP server process (or a `doctor` probe) connected to the socket.
async fn serve_client(stream: socket::ServerStream, bridge: Arc<Bridge>) -> anyhow::Result<()> {
    socket::check_client(&stream, &bridge.socket)?;
    let (mut reader, mut writer) = tokio::io::split(stream);
    let Some(ClientMessage::Hello { version, session }) = frame::read_frame(&mut reader).await? else {
        anyhow::bail!("the first frame was not a hello");
    };
    if let Some(mismatch) = link::version_mismatch(&version) {
        frame::write_frame(&mut writer, &mismatch.rejection()).await?;
        return Ok(());
    }
    let extension = bridge.extension.borrow().clone();
    let welcome = BridgeMessage::Welcome {
        version: link::HOST_VERSION.into(),
        pid: std::process::id(),
        extension,
        browser: bridge.browser.clone(),
        started_ms: bridge.started_ms,
    };
    frame::write_frame(&mut writer, &welcome).await?;
    let Some(session) = session else { return Ok(()) };
    tracing::info!(%session, "MCP session connected");

    // Results are written by one task so concurrent calls never interleave frames.
    let (results_tx, mut results_rx) = mpsc::channel::<BridgeMessage>(16);
    let result_writer = tokio::spawn(async move {
        while let Some(message) = results_rx.recv().await {
            match frame::write_frame(&mut writer, &message).await {
                Ok(()) => {}
                // Nothing was written: the client gets an error in its place.
                Err(FrameError::TooLarge { len }) => {
                    let BridgeMessage::Result { id, .. } = message else { continue };
                    tracing::error!(id, len, "a result too large for the socket");
                    let output = ToolOutput::error(format!(
                        "the answer was {len} bytes, more than a bridge socket carries ({} bytes); ask for less",
                        frame::MAX_FRAME
                    ));
                    if frame::write_frame(&mut writer, &BridgeMessage::Result { id, output }).await.is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });

    let in_flight = Arc::new(InFlight::default());
    let mut calls = tokio::task::JoinSet::new();
    loop {
        let message = match frame::read_frame::<_, ClientMessage>(&mut reader).await {
            Ok(Some(message)) => message,
            Ok(None) => break,
            // The frame was read whole: the connection is still in step.
            Err(FrameError::Malformed(e)) => {
                tracing::warn!(%session, "ignoring a frame the client sent that is not a message: {e}");
                continue;
            }
            Err(e) => {
                tracing::warn!(%session, "closing the client's connection: {e}");
                break;
            }
        };
        match message {
            ClientMessage::Call { id, time_limit_ms, client, call } => {
                let time_limit_ms = time_limit_ms.min(link::MAX_TIME_LIMIT.as_millis() as u64);
                let called_off = in_flight.start(id);
                let (bridge, session, results_tx, in_flight) =
                    (bridge.clone(), session.clone(), results_tx.clone(), in_flight.clone());
                while calls.try_join_next().is_some() {}
                calls.spawn(async move {
                    let to_client = ToClient { id, results: results_tx.clone() };
                    let output =
                        forward_call(&bridge, session, client, call, time_limit_ms, called_off, to_client).await;
                    in_flight.finish(id);
                    if let Some(output) = output {
                        let _ = results_tx.send(BridgeMessage::Result { id, output }).await;
                    }
                });
            }
            ClientMessage::Cancel { id } => in_flight.call_off(id),
            ClientMessage::Hello { .. } => tracing::warn!(%session, "ignoring a second hello"),
        }
    }
    tracing::info!(%session, "MCP session disconnected");
    // Its calls have nobody to answer: stop them before they act, and only then say the
    // session is gone.
    in_flight.call_off_all();
    drop(results_tx);
    while calls.join_next().await.is_some() {}
    let _ = bridge.to_extension.send(HostToExtension::SessionClosed { session }).await;
    let _ = result_writer.await;
    Ok(())
}

/// Where a call's waiting notes go: its client, under the client's id for it.
struct ToClient {
    id: u64,
    results: mpsc::Sender<BridgeMessage>,
}

/// Forwards one call and waits for its answer; `None` when the client called it off (it reads
/// no answer). While the extension says the call waits for the person, it is waited for as
/// long as that takes (within [`link::MAX_WAIT_ON_PERSON`] past its limit), and its client is
/// told.
async fn forward_call(
    bridge: &Bridge,
    session: String,
    client: Option<String>,
    call: ToolCall,
    time_limit_ms: u64,
    mut called_off: oneshot::Receiver<()>,
    to_client: ToClient,
) -> Option<ToolOutput> {
    if let Some(refusal) = bridge.extension.borrow().as_ref().and_then(extension_refusal) {
        return Some(ToolOutput::error(refusal));
    }
    // Dropping the waiter on any early return forgets the call.
    let waiter = bridge.pending.register();
    let id = waiter.id();
    let tool = call.name();
    let message = HostToExtension::Call { id, session, time_limit_ms, client, call };
    match serde_json::to_vec(&message).map(|body| native_messaging::check_outgoing(body.len())) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Some(ToolOutput::error(format!("{tool} was not sent: {e}. Send a smaller argument."))),
        Err(e) => return Some(ToolOutput::error(format!("{tool} could not be encoded: {e}"))),
    }
    if bridge.to_extension.send(message).await.is_err() {
        return Some(ToolOutput::error("the browser connection is closing; retry in a moment"));
    }
    let limit = Duration::from_millis(time_limit_ms);
    let tell_client = |note: &Waiting| {
        let message = BridgeMessage::Waiting {
            id: to_client.id,
            time_limit_ms: note.time_limit.as_millis() as u64,
            question: note.question.clone(),
        };
        let results = to_client.results.clone();
        tokio::spawn(async move { results.send(message).await });
    };
    let answer = waiter.wait_on_person(limit, limit + link::MAX_WAIT_ON_PERSON, ANSWER_GRACE, tell_client);
    tokio::select! {
        answer = answer => Some(match answer {
            Ok(output) => output,
            Err(Unanswered::ConnectionLost) => ToolOutput::error(format!(
                "the browser closed the connection before answering {tool}; it may have run. Retry in a moment, \
                 after a browser_snapshot."
            )),
            Err(Unanswered::TimedOut(limit)) => {
                // The extension should have answered by now: stop the call where it is.
                let _ = bridge.to_extension.send(HostToExtension::Cancel { id }).await;
                ToolOutput::error(format!(
                    "{tool} got no answer from the browser within {} s, so it was called off; it may have run. Take \
                     a browser_snapshot before retrying; if this repeats, reload the Sightline extension.",
                    limit.as_secs()
                ))
            }
        }),
        Ok(()) = &mut called_off => {
            let _ = bridge.to_extension.send(HostToExtension::Cancel { id }).await;
            tracing::info!(id, tool, "call called off by its client");
            None
        }
    }
}

/// Why the connected extension cannot serve calls, if it cannot.
fn extension_refusal(info: &ExtensionInfo) -> Option<String> {
    if let Some(mismatch) = link::extension_mismatch(&info.version) {
        return Some(mismatch.to_string());
    }
    (info.protocol != WIRE_PROTOCOL).then(|| {
        format!(
            "the Sightline extension speaks wire protocol {} but sightline-host speaks {WIRE_PROTOCOL}. Install \
             matching versions: rebuild with `cargo xtask build`, reload the extension, and run `sightline-host \
             install`.",
            info.protocol
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_of_another_protocol_is_refused_with_the_fix() {
        let info = ExtensionInfo { version: link::HOST_VERSION.into(), browser: String::new(), protocol: 1 };
        let refusal = extension_refusal(&info).unwrap();
        assert!(refusal.contains("protocol 1") && refusal.contains("cargo xtask build"), "{refusal}");
        let current = ExtensionInfo { protocol: WIRE_PROTOCOL, ..info };
        assert_eq!(extension_refusal(&current), None);
    }

    #[test]
    fn an_extension_of_another_version_is_refused_first() {
        let info = ExtensionInfo { version: "0.0.1-old".into(), browser: String::new(), protocol: WIRE_PROTOCOL };
        assert!(extension_refusal(&info).unwrap().contains("0.0.1-old"));
    }
}
