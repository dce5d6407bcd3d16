//! The client side of a bridge socket: finding a live bridge, the hello exchange, and
//! forwarding tool calls over the link.
//!
//! `sightline-host mcp` talks to the browser only through a [`BridgeClient`]; `doctor` uses
//! [`handshake`] alone to probe each bridge. This module knows nothing of MCP: it turns a
//! [`ToolCall`] into a [`ToolOutput`], and says what to do when no browser answers.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sightline_core::protocol::{ToolCall, ToolOutput};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::Mutex;

use crate::link::{self, BridgeMessage, ClientMessage, ExtensionInfo, RejectionKind, VersionMismatch};
use crate::pending::{PendingCalls, Unanswered};
use crate::socket;

/// How long a call may wait for the browser; a little above the bridge's own cap so the
/// bridge's clearer message wins.
const CALL_TIMEOUT: Duration = Duration::from_secs(130);
/// How long connecting and the hello exchange may take per socket.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What an agent reads when no browser is connected.
const NO_BROWSER: &str = "No browser is connected to Sightline. Open Chrome (or Chromium, Edge, Brave, Vivaldi) \
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
                Err(error) => return ToolOutput::error(error.to_string()),
            };
            match link.call(call.clone()).await {
                Ok(output) => return output,
                Err(LinkLost::BeforeSending) if attempt == 0 => continue,
                Err(lost) => return ToolOutput::error(lost.to_string()),
            }
        }
        ToolOutput::error(NO_BROWSER)
    }

    async fn live_link(&self) -> Result<Arc<Link>, ConnectError> {
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

/// Why no link to a bridge was opened. Every message says what happened; those an agent reads
/// ([`ConnectError::NoBrowser`], a rejection) also say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Nobody listens on the socket: its bridge died without cleaning up, so the stale socket
    /// was removed.
    #[error("{}: {source}", .socket.display())]
    Refused {
        /// The socket.
        socket: PathBuf,
        /// What connecting said.
        source: io::Error,
    },
    /// Connecting to the socket failed for another reason.
    #[error("{}: {source}", .socket.display())]
    Unreachable {
        /// The socket.
        socket: PathBuf,
        /// What connecting said.
        source: io::Error,
    },
    /// Sending the hello or reading the bridge's answer failed.
    #[error("{source}")]
    HelloFailed {
        /// The socket.
        socket: PathBuf,
        /// What reading or writing said.
        source: io::Error,
    },
    /// The bridge hung up, or answered something other than a welcome, during the hello.
    #[error("{} closed the connection during the hello", .socket.display())]
    ClosedDuringHello {
        /// The socket.
        socket: PathBuf,
    },
    /// Connecting and the hello took longer than `limit`.
    #[error("{} did not answer within {} s", .socket.display(), .limit.as_secs())]
    TimedOut {
        /// The socket.
        socket: PathBuf,
        /// How long the client waited.
        limit: Duration,
    },
    /// The bridge is a different version of `sightline-host`; `reason` is its explanation.
    #[error("{reason}")]
    VersionMismatch {
        /// The socket.
        socket: PathBuf,
        /// Both versions.
        mismatch: VersionMismatch,
        /// What the bridge said, with the fix.
        reason: String,
    },
    /// The bridge refused for a reason this client does not know (a newer bridge), or without
    /// saying which (a bridge that predates [`RejectionKind`]); `reason` is its explanation.
    #[error("{reason}")]
    Rejected {
        /// The socket.
        socket: PathBuf,
        /// What the bridge said, with the fix.
        reason: String,
    },
    /// No bridge accepted this client: no browser with the extension is running.
    #[error("{NO_BROWSER}")]
    NoBrowser,
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
#[derive(Debug)]
pub struct Greeting {
    /// Socket the bridge listens on.
    pub socket: PathBuf,
    /// Bridge process id.
    pub pid: u32,
    /// Extension behind the bridge, if it has said hello.
    pub extension: Option<ExtensionInfo>,
}

/// Connects to the bridge at `path` and exchanges hellos. `session: None` makes a status probe.
pub async fn handshake(path: &Path, session: Option<&str>) -> Result<(UnixStream, Greeting), ConnectError> {
    let socket = || path.to_owned();
    let attempt = async {
        let mut stream = UnixStream::connect(path).await.map_err(|source| {
            if source.kind() == io::ErrorKind::ConnectionRefused {
                // Nobody listens: the bridge died without cleaning up.
                let _ = std::fs::remove_file(path);
                ConnectError::Refused { socket: socket(), source }
            } else {
                ConnectError::Unreachable { socket: socket(), source }
            }
        })?;
        let hello = ClientMessage::Hello { version: link::HOST_VERSION.into(), session: session.map(str::to_owned) };
        let hello_failed = |source| ConnectError::HelloFailed { socket: socket(), source };
        socket::write_frame(&mut stream, &hello).await.map_err(hello_failed)?;
        match socket::read_frame::<_, BridgeMessage>(&mut stream).await.map_err(hello_failed)? {
            Some(BridgeMessage::Welcome { pid, extension, .. }) => {
                Ok((stream, Greeting { socket: socket(), pid, extension }))
            }
            Some(BridgeMessage::Rejected { reason, kind: RejectionKind::VersionMismatch(mismatch) }) => {
                Err(ConnectError::VersionMismatch { socket: socket(), mismatch, reason })
            }
            Some(BridgeMessage::Rejected { reason, kind: RejectionKind::Other }) => {
                Err(ConnectError::Rejected { socket: socket(), reason })
            }
            Some(BridgeMessage::Result { .. }) | None => Err(ConnectError::ClosedDuringHello { socket: socket() }),
        }
    };
    tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| Err(ConnectError::TimedOut { socket: socket(), limit: CONNECT_TIMEOUT }))
}

/// Opens a link to the first bridge among `sockets` that accepts this session.
async fn connect_first(sockets: Vec<PathBuf>, session: &str) -> Result<(UnixStream, Greeting), ConnectError> {
    let mut rejection = None;
    for path in sockets {
        match handshake(&path, Some(session)).await {
            Ok(connected) => return Ok(connected),
            Err(error) => {
                tracing::warn!("{error}");
                // A bridge that refused this client says what to do, which beats "no browser".
                // Every bridge so far refuses only for a version mismatch; one that predates
                // `RejectionKind` says so in words alone, so it arrives as `Rejected`.
                if matches!(error, ConnectError::VersionMismatch { .. } | ConnectError::Rejected { .. }) {
                    rejection = Some(error);
                }
            }
        }
    }
    Err(rejection.unwrap_or(ConnectError::NoBrowser))
}

impl Link {
    /// Connects to the newest live bridge.
    async fn connect_any(session: &str) -> Result<Link, ConnectError> {
        let (stream, greeting) = connect_first(socket::candidate_sockets(), session).await?;
        tracing::info!(socket = %greeting.socket.display(), pid = greeting.pid, "connected to bridge");
        Ok(Link::start(stream))
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

#[cfg(test)]
mod tests {
    use tokio::net::UnixListener;

    use super::*;

    /// A private directory for one test's sockets, removed at the end.
    struct SocketDir(PathBuf);

    impl SocketDir {
        fn new(test: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("sl-client-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            SocketDir(dir)
        }

        fn socket(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for SocketDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A bridge on `path` that reads one hello and answers it with `answer` (or hangs up).
    fn fake_bridge(path: &Path, answer: Option<serde_json::Value>) -> tokio::task::JoinHandle<ClientMessage> {
        let listener = UnixListener::bind(path).unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let hello = socket::read_frame(&mut stream).await.unwrap().unwrap();
            if let Some(answer) = answer {
                socket::write_frame(&mut stream, &answer).await.unwrap();
            }
            hello
        })
    }

    fn welcome() -> serde_json::Value {
        serde_json::json!({"type": "welcome", "version": link::HOST_VERSION, "pid": 4242, "extension": null})
    }

    fn other_version_rejection() -> serde_json::Value {
        let mismatch = VersionMismatch { client: link::HOST_VERSION.into(), bridge: "9.9.9-newer".into() };
        serde_json::to_value(mismatch.rejection()).unwrap()
    }

    #[tokio::test]
    async fn a_welcome_opens_the_link_after_a_hello_naming_the_session() {
        let dir = SocketDir::new("welcome");
        let path = dir.socket("bridge-1.sock");
        let bridge = fake_bridge(&path, Some(welcome()));
        let (_, greeting) = handshake(&path, Some("s-1")).await.unwrap();
        assert_eq!((greeting.socket, greeting.pid, greeting.extension), (path, 4242, None));
        let ClientMessage::Hello { version, session } = bridge.await.unwrap() else { panic!("not a hello") };
        assert_eq!((version.as_str(), session.as_deref()), (link::HOST_VERSION, Some("s-1")));
    }

    #[tokio::test]
    async fn a_version_mismatch_is_told_by_kind_with_the_bridges_words() {
        let dir = SocketDir::new("mismatch");
        let path = dir.socket("bridge-1.sock");
        let _bridge = fake_bridge(&path, Some(other_version_rejection()));
        let error = handshake(&path, Some("s-1")).await.unwrap_err();
        let ConnectError::VersionMismatch { socket, mismatch, reason } = &error else { panic!("{error:?}") };
        assert_eq!((socket, mismatch.bridge.as_str()), (&path, "9.9.9-newer"));
        assert_eq!(error.to_string(), *reason);
        assert!(reason.starts_with("version mismatch:") && reason.contains("9.9.9-newer"), "{reason}");
    }

    #[tokio::test]
    async fn a_rejection_without_a_kind_keeps_the_bridges_words() {
        let dir = SocketDir::new("old-rejection");
        let path = dir.socket("bridge-1.sock");
        let _bridge = fake_bridge(&path, Some(serde_json::json!({"type": "rejected", "reason": "old words"})));
        let error = handshake(&path, Some("s-1")).await.unwrap_err();
        assert!(matches!(&error, ConnectError::Rejected { reason, .. } if reason == "old words"), "{error:?}");
        assert_eq!(error.to_string(), "old words");
    }

    #[tokio::test]
    async fn a_bridge_that_hangs_up_during_the_hello_is_named() {
        let dir = SocketDir::new("hang-up");
        let path = dir.socket("bridge-1.sock");
        let _bridge = fake_bridge(&path, None);
        let error = handshake(&path, None).await.unwrap_err();
        assert!(matches!(&error, ConnectError::ClosedDuringHello { socket } if *socket == path), "{error:?}");
        assert_eq!(error.to_string(), format!("{} closed the connection during the hello", path.display()));
    }

    #[tokio::test]
    async fn a_socket_nobody_listens_on_is_removed() {
        let dir = SocketDir::new("stale");
        let path = dir.socket("bridge-1.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let error = handshake(&path, None).await.unwrap_err();
        assert!(matches!(&error, ConnectError::Refused { socket, .. } if *socket == path), "{error:?}");
        assert!(!path.exists(), "the stale socket is gone");
    }

    #[tokio::test(start_paused = true)]
    async fn a_bridge_that_never_answers_times_out() {
        let dir = SocketDir::new("silent");
        let path = dir.socket("bridge-1.sock");
        let _listener = UnixListener::bind(&path).unwrap();
        let error = handshake(&path, None).await.unwrap_err();
        assert!(matches!(&error, ConnectError::TimedOut { limit: CONNECT_TIMEOUT, .. }), "{error:?}");
        assert_eq!(error.to_string(), format!("{} did not answer within 3 s", path.display()));
    }

    #[tokio::test]
    async fn without_any_bridge_the_agent_is_told_to_open_the_browser() {
        let dir = SocketDir::new("none");
        let error = connect_first(vec![dir.socket("bridge-1.sock")], "s-1").await.unwrap_err();
        assert!(matches!(error, ConnectError::NoBrowser), "{error:?}");
        assert_eq!(error.to_string(), NO_BROWSER);
    }

    #[tokio::test]
    async fn a_rejection_is_reported_instead_of_no_browser() {
        let dir = SocketDir::new("rejected-over-none");
        let (rejecting, dead) = (dir.socket("bridge-1.sock"), dir.socket("bridge-2.sock"));
        let _bridge = fake_bridge(&rejecting, Some(other_version_rejection()));
        let error = connect_first(vec![rejecting, dead], "s-1").await.unwrap_err();
        assert!(matches!(error, ConnectError::VersionMismatch { .. }), "{error:?}");
    }

    #[tokio::test]
    async fn the_first_bridge_that_welcomes_the_session_is_used() {
        let dir = SocketDir::new("first-welcome");
        let (rejecting, welcoming) = (dir.socket("bridge-1.sock"), dir.socket("bridge-2.sock"));
        let _rejecting = fake_bridge(&rejecting, Some(other_version_rejection()));
        let _welcoming = fake_bridge(&welcoming, Some(welcome()));
        let (_, greeting) = connect_first(vec![rejecting, welcoming.clone()], "s-1").await.unwrap();
        assert_eq!(greeting.socket, welcoming);
    }
}
