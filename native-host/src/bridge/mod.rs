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
//! the port (stdin EOF) every call still waiting is answered, with what the bridge knows of it
//! (a call still waiting on the person did not act), its client reads that answer, and the
//! bridge removes its socket and exits.

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
use crate::transport::pending::{Note, PendingCalls, Unanswered};
use crate::transport::{native_messaging, socket};

pub mod browser_process;
mod extension_port;

/// How long past a call's time limit the bridge still waits for the extension's answer (the
/// extension answers within the limit itself; this covers the trip). Past it, the bridge calls
/// the call off and answers for it.
const ANSWER_GRACE: Duration = Duration::from_secs(10);

/// How long the bridge, its port closed, waits for its clients to read the answers of the
/// calls that were still waiting, before it exits anyway.
const FLUSH_ON_CLOSE: Duration = Duration::from_secs(3);

struct Bridge {
    socket: PathBuf,
    to_extension: mpsc::Sender<HostToExtension>,
    /// Calls forwarded to the extension and waiting for their result, by bridge-wide id.
    pending: Arc<PendingCalls<ToolOutput>>,
    extension: watch::Receiver<Option<ExtensionInfo>>,
    browser: Option<BrowserProcess>,
    started_ms: u64,
    /// Becomes true once the port has closed: clients stop reading calls and finish writing
    /// the answers of those they have.
    closing: watch::Receiver<bool>,
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
    let (closing_tx, closing) = watch::channel(false);
    let bridge = Arc::new(Bridge {
        socket: path,
        to_extension,
        pending: Arc::default(),
        extension,
        browser,
        started_ms,
        closing,
    });

    let writer = tokio::spawn(extension_port::write(tokio::io::stdout(), outgoing));
    // Each client's task holds a sender: all are gone once every client has finished.
    let (clients_finished_tx, mut clients_finished) = mpsc::channel::<()>(1);
    let accept = tokio::spawn(accept_clients(listener, bridge.clone(), clients_finished_tx));
    let terminated = crate::platform::system::terminated()?;

    let result = tokio::select! {
        r = extension_port::read(tokio::io::stdin(), bridge.pending.clone(), extension_tx) => r,
        () = terminated => { tracing::info!("terminated"); Ok(()) }
    };
    accept.abort();
    // Everything the extension said has been handed to the calls: each call still waiting now
    // gets its answer (what it was last told decides the words), and the bridge exits once its
    // clients have read them, or after FLUSH_ON_CLOSE.
    bridge.pending.fail_all();
    closing_tx.send_replace(true);
    if tokio::time::timeout(FLUSH_ON_CLOSE, clients_finished.recv()).await.is_err() {
        tracing::warn!("clients still connected after {} s; exiting", FLUSH_ON_CLOSE.as_secs());
    }
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

async fn accept_clients(mut listener: socket::Listener, bridge: Arc<Bridge>, finished: mpsc::Sender<()>) {
    loop {
        match listener.accept().await {
            Ok(stream) => {
                let (bridge, finished) = (bridge.clone(), finished.clone());
                tokio::spawn(async move {
                    if let Err(e) = serve_client(stream, bridge).await {
                        tracing::warn!("client connection ended: {e:#}");
                    }
                    drop(finished);
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
    let mut closing = bridge.closing.clone();
    loop {
        let read = tokio::select! {
            read = frame::read_frame::<_, ClientMessage>(&mut reader) => read,
            Ok(()) = async { closing.wait_for(|closing| *closing).await.map(|_| ()) } => break,
        };
        let message = match read {
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
    let port_closed = *bridge.closing.borrow();
    if port_closed {
        // The calls have their answers already (the port closed): the client reads them.
        tracing::info!(%session, "finishing the MCP session's answers: the browser closed the port");
        drop(results_tx);
        while calls.join_next().await.is_some() {}
        let _ = result_writer.await;
        return Ok(());
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
    // Each note is queued for the client before the next is heard and before the call's own
    // answer, so the client hears them in order, all before that answer, and before the
    // connection closes.
    let tell_client = |note: &Note| {
        let message = match note {
            Note::Waiting(note) => BridgeMessage::Waiting {
                id: to_client.id,
                time_limit_ms: note.time_limit.as_millis() as u64,
                question: note.question.clone(),
            },
            Note::Answered { allowed } => BridgeMessage::Answered { id: to_client.id, allowed: *allowed },
        };
        let results = to_client.results.clone();
        async move {
            let _ = results.send(message).await;
        }
    };
    let answer = waiter.wait_on_person(limit, limit + link::MAX_WAIT_ON_PERSON, ANSWER_GRACE, tell_client);
    tokio::select! {
        answer = answer => Some(match answer {
            Ok(output) => output,
            // The port closed (the browser exited, or the extension restarted).
            Err(Unanswered::ConnectionLost) => ToolOutput::error(format!(
                "the browser connection closed while the call was running ({tool}; did the browser exit, or the \
                 extension restart?); it may have run. Retry once the browser is back, after a browser_snapshot."
            )),
            Err(Unanswered::ClosedWhileAsking { question }) => ToolOutput::error(link::closed_while_asking(&question)),
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

    /// A bridge with no extension behind it yet: what it sends the extension comes out of the
    /// receiver.
    fn bridge() -> (Bridge, mpsc::Receiver<HostToExtension>) {
        let (to_extension, sent) = mpsc::channel(8);
        let (_, extension) = watch::channel(None);
        let (_, closing) = watch::channel(false);
        let pending = Arc::default();
        let bridge =
            Bridge { socket: PathBuf::new(), to_extension, pending, extension, browser: None, started_ms: 0, closing };
        (bridge, sent)
    }

    /// What the client of call 7 reads when the extension tells the bridge `notes` of it and
    /// then the port closes, in the order the client reads it (the call's answer queued as the
    /// session's task queues it).
    async fn client_reads(notes: &[Note]) -> Vec<BridgeMessage> {
        let (bridge, mut sent) = bridge();
        let (results, mut client) = mpsc::channel(16);
        let (_call_off, called_off) = oneshot::channel();
        let call = ToolCall::BrowserClick(sightline_core::protocol::ClickParams {
            element_ref: "e1".into(),
            ..Default::default()
        });
        let to_client = ToClient { id: 7, results: results.clone() };
        let forwarding = forward_call(&bridge, "s-1".into(), None, call, 60_000, called_off, to_client);
        let extension = async {
            let Some(HostToExtension::Call { id, .. }) = sent.recv().await else { panic!("no call sent") };
            for note in notes {
                let told = match note {
                    Note::Waiting(waiting) => bridge.pending.waiting(id, waiting.clone()),
                    Note::Answered { allowed } => bridge.pending.answered(id, *allowed),
                };
                assert!(told);
            }
            // The port closes: the bridge fails every call still waiting.
            bridge.pending.fail_all();
        };
        let (output, ()) = tokio::join!(forwarding, extension);
        results.send(BridgeMessage::Result { id: 7, output: output.expect("answered") }).await.unwrap();
        drop(results);
        let mut read = Vec::new();
        while let Some(message) = client.recv().await {
            read.push(message);
        }
        read
    }

    fn asked() -> Note {
        let question = "click \"Place order\" (submit) on shop.example".to_owned();
        Note::Waiting(crate::transport::pending::Waiting { time_limit: Duration::from_secs(123), question })
    }

    #[tokio::test]
    async fn a_port_closed_while_the_person_is_asked_tells_the_client_the_action_was_not_run() {
        let read = client_reads(&[asked()]).await;
        assert!(
            matches!(&read[..], [BridgeMessage::Waiting { id: 7, .. }, BridgeMessage::Result { id: 7, .. }]),
            "{read:?}"
        );
        let BridgeMessage::Result { output, .. } = &read[1] else { unreachable!() };
        assert!(output.is_error, "{output:?}");
        assert!(output.text.contains("the action was not run"), "{}", output.text);
        assert!(output.text.contains("(click \"Place order\" (submit) on shop.example)"), "{}", output.text);
        assert!(!output.text.contains("may have run"), "{}", output.text);
    }

    #[tokio::test]
    async fn every_note_reaches_the_client_in_order_before_the_calls_answer() {
        let read = client_reads(&[asked(), Note::Answered { allowed: true }]).await;
        assert!(
            matches!(
                &read[..],
                [
                    BridgeMessage::Waiting { id: 7, .. },
                    BridgeMessage::Answered { id: 7, allowed: true },
                    BridgeMessage::Result { id: 7, .. }
                ]
            ),
            "{read:?}"
        );
        // Allowed: the action may have started before the port closed.
        let BridgeMessage::Result { output, .. } = &read[2] else { unreachable!() };
        assert!(output.text.contains("it may have run"), "{}", output.text);
    }

    #[test]
    fn an_extension_of_another_version_is_refused_first() {
        let info = ExtensionInfo { version: "0.0.1-old".into(), browser: String::new(), protocol: WIRE_PROTOCOL };
        assert!(extension_refusal(&info).unwrap().contains("0.0.1-old"));
    }
}
