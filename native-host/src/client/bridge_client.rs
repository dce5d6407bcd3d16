//! The client side of a bridge socket: choosing a bridge it can trust, the hello exchange, and
//! forwarding tool calls over the link.
//!
//! `sightline-host mcp` talks to the browser only through a [`BridgeClient`]; `doctor` uses
//! [`handshake`] alone to probe each bridge. This module knows nothing of MCP: it turns a
//! [`ToolCall`] into a [`ToolOutput`], and says what to do when no browser answers.
//!
//! Nothing is sent anywhere before the socket directory, the socket file and the listening
//! process have been checked ([`socket`]). Among several live bridges one is chosen by a fixed
//! rule (see [`Link::connect`]), or by the browser or profile the user named; a session stays
//! with its bridge while it lives. Each call carries its time limit and is called off in the
//! browser when its caller gives up.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sightline_core::protocol::{ToolCall, ToolOutput};
use tokio::io::WriteHalf;
use tokio::sync::{Mutex, watch};

use crate::platform::Browser;
use crate::transport::frame::{self, FrameError};
use crate::transport::link::{
    self, BridgeMessage, BrowserProcess, ClientMessage, ExtensionInfo, RejectionKind, VersionMismatch,
};
use crate::transport::pending::{Note, PendingCalls, Unanswered, Waiting};
use crate::transport::socket::{self, ClientStream, Untrusted};

/// How long a call may run unless the user says otherwise (`sightline-host mcp --time-limit`).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);
/// How long past a call's time limit the client still waits for the bridge; a little above the
/// bridge's own grace, so the bridge's clearer message wins.
const ANSWER_GRACE: Duration = Duration::from_secs(20);
/// How long connecting and the hello exchange may take per socket.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What an agent reads when no browser is connected.
const NO_BROWSER: &str = "No browser is connected to Sightline. Open Chrome (or Chromium, Edge, Brave, Vivaldi) \
with the Sightline extension loaded; it starts the bridge by itself. If it is open, run `sightline-host doctor` in \
a terminal to see which link is missing.";

/// Which browser a session wants, when several are open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    /// This kind of browser.
    pub browser: Option<Browser>,
    /// The browser running with this profile (`--user-data-dir`).
    pub user_data_dir: Option<PathBuf>,
}

impl Choice {
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(browser) = self.browser {
            parts.push(format!("--browser {}", browser.name()));
        }
        if let Some(dir) = &self.user_data_dir {
            parts.push(format!("--user-data-dir {}", dir.display()));
        }
        parts.join(" ")
    }
}

/// One MCP session's way to the browser: keeps a link to a bridge, replaces it when it dies,
/// and finds a browser started after the session.
pub struct BridgeClient {
    session: String,
    dir: PathBuf,
    choice: Choice,
    time_limit: Duration,
    link: Mutex<Option<Arc<Link>>>,
    /// The profile of the bridge this session last used: preferred when it must reconnect.
    profile: std::sync::Mutex<Option<PathBuf>>,
    /// The MCP client's name, once its `initialize` gave one.
    client_name: std::sync::Mutex<Option<String>>,
}

impl BridgeClient {
    /// A client that introduces itself to bridges in `dir` as MCP session `session`, uses the
    /// browser `choice` names, and gives each call `time_limit`.
    pub fn new(session: String, dir: PathBuf, choice: Choice, time_limit: Duration) -> Self {
        Self {
            session,
            dir,
            choice,
            time_limit,
            link: Mutex::default(),
            profile: std::sync::Mutex::default(),
            client_name: std::sync::Mutex::default(),
        }
    }

    /// Names the MCP client this session serves (its `clientInfo.name`), for the browser to
    /// label the session's tabs with.
    pub fn set_client_name(&self, name: &str) {
        if let Ok(mut slot) = self.client_name.lock()
            && slot.as_deref() != Some(name)
        {
            *slot = Some(name.to_owned());
        }
    }

    /// Forwards one call to the browser; every failure comes back as an error output that says
    /// what to do. When `gave_up` resolves first, the call is called off in the browser (and
    /// the output, which nobody reads, says so). While the call waits for the person to answer
    /// a question in the browser, `waiting` holds the question, and the call is waited for as
    /// long as the person may take (within [`link::MAX_WAIT_ON_PERSON`] past the time limit).
    pub async fn call(
        &self,
        call: ToolCall,
        gave_up: impl Future<Output = ()>,
        waiting: &watch::Sender<Option<String>>,
    ) -> ToolOutput {
        let mut gave_up = std::pin::pin!(gave_up);
        // A link that died since the last call is replaced; a browser started since is found.
        for attempt in 0..2 {
            let link = tokio::select! {
                link = self.live_link() => match link {
                    Ok(link) => link,
                    Err(error) => return ToolOutput::error(error.to_string()),
                },
                () = &mut gave_up => return ToolOutput::error(LinkLost::CalledOff.to_string()),
            };
            let client = self.client_name.lock().ok().and_then(|name| name.clone());
            match link.call(call.clone(), client, self.time_limit, gave_up.as_mut(), waiting).await {
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
        let prefer = self.profile.lock().ok().and_then(|p| p.clone());
        let (link, greeting) = Link::connect(&self.dir, &self.session, &self.choice, prefer.as_deref()).await?;
        if let Some(dir) = greeting.browser.and_then(|b| b.user_data_dir)
            && let Ok(mut profile) = self.profile.lock()
        {
            *profile = Some(dir);
        }
        let link = Arc::new(link);
        *slot = Some(link.clone());
        Ok(link)
    }
}

/// Why no link to a bridge was opened. Every message says what happened; those an agent reads
/// ([`ConnectError::NoBrowser`], a rejection, a refusal) also say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The socket directory, a socket, or the process listening on it is not the user's own:
    /// nothing was sent to it.
    #[error(transparent)]
    Untrusted(#[from] Untrusted),
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
    #[error("{}: {source}", .socket.display())]
    HelloFailed {
        /// The socket.
        socket: PathBuf,
        /// What reading or writing said.
        source: FrameError,
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
    /// Browsers are connected, but none is the one the user asked for.
    #[error(
        "No browser matching `{wanted}` is connected to Sightline; connected: {}. Open that browser (or profile) \
         with the Sightline extension loaded, or change the option given to `sightline-host mcp`.",
        .live.join("; ")
    )]
    NoMatch {
        /// The options the user gave.
        wanted: String,
        /// What each live bridge serves.
        live: Vec<String>,
    },
    /// No bridge accepted this client: no browser with the extension is running.
    #[error("{NO_BROWSER}")]
    NoBrowser,
}

impl ConnectError {
    /// How much this error tells a user, when several sockets failed: a refusal to trust one
    /// first, then a bridge's own explanation, then anything else.
    fn weight(&self) -> u8 {
        match self {
            ConnectError::Untrusted(_) => 3,
            ConnectError::VersionMismatch { .. } | ConnectError::Rejected { .. } => 2,
            ConnectError::NoMatch { .. } => 1,
            _ => 0,
        }
    }
}

/// Keeps the more telling of two errors.
fn keep_telling(kept: &mut Option<ConnectError>, error: ConnectError) {
    if error.weight() > 0 && kept.as_ref().is_none_or(|k| error.weight() > k.weight()) {
        *kept = Some(error);
    }
}

/// Why a call could not complete over a link.
#[derive(Debug, thiserror::Error)]
enum LinkLost {
    #[error("the browser connection was already closed")]
    BeforeSending,
    #[error(
        "the browser connection closed while the call was running (did the browser exit?); it may have run. Retry \
         once the browser is back, after a browser_snapshot"
    )]
    WhileWaiting,
    /// The connection closed while the call waited on the person, nothing allowed: it did not
    /// act.
    #[error("{}", link::closed_while_asking(.question))]
    WhileAsking { question: String },
    #[error(
        "no answer from the browser within {} s past the call's time limit; it may have run. Take a browser_snapshot \
         before retrying; if this repeats, reload the Sightline extension", ANSWER_GRACE.as_secs()
    )]
    TimedOut,
    #[error("the call's arguments are {0} bytes, more than a bridge socket carries ({max}); send less", max = frame::MAX_FRAME)]
    TooLarge(usize),
    #[error("the call was cancelled")]
    CalledOff,
}

/// An open connection to one bridge.
struct Link {
    writer: Mutex<WriteHalf<ClientStream>>,
    /// Calls sent on this link and waiting for their result, by link-wide id.
    pending: Arc<PendingCalls<ToolOutput>>,
    alive: Arc<AtomicBool>,
}

/// What a bridge said when a client connected.
#[derive(Debug, Clone)]
pub struct Greeting {
    /// Socket the bridge listens on.
    pub socket: PathBuf,
    /// Bridge process id.
    pub pid: u32,
    /// Extension behind the bridge, if it has said hello.
    pub extension: Option<ExtensionInfo>,
    /// The browser that started the bridge, if the bridge could tell.
    pub browser: Option<BrowserProcess>,
    /// When the bridge started (milliseconds since the Unix epoch).
    pub started_ms: u64,
}

impl Greeting {
    /// The browser and profile it serves, for messages.
    pub fn describe(&self) -> String {
        match &self.browser {
            Some(browser) => format!("{browser} via {}", self.socket.display()),
            None => format!("an unidentified browser via {}", self.socket.display()),
        }
    }
}

/// Connects to the bridge at `path`, checks that it runs as this user before writing anything,
/// and exchanges hellos. `session: None` makes a status probe.
pub async fn handshake(path: &Path, session: Option<&str>) -> Result<(ClientStream, Greeting), ConnectError> {
    let socket = || path.to_owned();
    let attempt = async {
        let mut stream = socket::connect(path).await.map_err(|source| {
            if source.kind() == io::ErrorKind::ConnectionRefused {
                // Nobody listens: the bridge died without cleaning up.
                socket::remove_stale(path);
                ConnectError::Refused { socket: socket(), source }
            } else {
                ConnectError::Unreachable { socket: socket(), source }
            }
        })?;
        socket::check_peer(&stream, path)?;
        let hello = ClientMessage::Hello { version: link::HOST_VERSION.into(), session: session.map(str::to_owned) };
        let hello_failed = |source| ConnectError::HelloFailed { socket: socket(), source };
        frame::write_frame(&mut stream, &hello).await.map_err(hello_failed)?;
        match frame::read_frame::<_, BridgeMessage>(&mut stream).await.map_err(hello_failed)? {
            Some(BridgeMessage::Welcome { pid, extension, browser, started_ms, .. }) => {
                Ok((stream, Greeting { socket: socket(), pid, extension, browser, started_ms }))
            }
            Some(BridgeMessage::Rejected { reason, kind: RejectionKind::VersionMismatch(mismatch) }) => {
                Err(ConnectError::VersionMismatch { socket: socket(), mismatch, reason })
            }
            Some(BridgeMessage::Rejected { reason, kind: RejectionKind::Other }) => {
                Err(ConnectError::Rejected { socket: socket(), reason })
            }
            Some(BridgeMessage::Result { .. } | BridgeMessage::Waiting { .. } | BridgeMessage::Answered { .. })
            | None => Err(ConnectError::ClosedDuringHello { socket: socket() }),
        }
    };
    tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| Err(ConnectError::TimedOut { socket: socket(), limit: CONNECT_TIMEOUT }))
}

/// Every live bridge in `dir` that this user may trust, with what it said, and the most telling
/// reason a socket there was not used. Fails when the directory itself is not trusted.
pub async fn probe_all(dir: &Path) -> Result<(Vec<Greeting>, Option<ConnectError>), ConnectError> {
    if !socket::check_dir(dir)? {
        return Ok((Vec::new(), None));
    }
    let mut live = Vec::new();
    let mut problem = None;
    for entry in socket::bridge_sockets(dir) {
        let outcome = match entry {
            Ok(path) => handshake(&path, None).await.map(|(_, greeting)| greeting),
            Err(untrusted) => Err(untrusted.into()),
        };
        match outcome {
            Ok(greeting) => live.push(greeting),
            Err(error) => {
                tracing::warn!("{error}");
                keep_telling(&mut problem, error);
            }
        }
    }
    Ok((live, problem))
}

/// The bridges a session may use, best first: those serving the browser `choice` names (all
/// when it names none); among them, those whose extension is connected, then the profile the
/// session used before (`prefer`), then the bridge that has run longest, then by socket path.
fn rank(live: Vec<Greeting>, choice: &Choice, prefer: Option<&Path>) -> Result<Vec<Greeting>, ConnectError> {
    let matches = |g: &Greeting| matches(g.browser.as_ref(), choice.browser, choice.user_data_dir.as_deref());
    let (mut chosen, others): (Vec<Greeting>, Vec<Greeting>) = live.into_iter().partition(matches);
    if chosen.is_empty() && !others.is_empty() {
        return Err(ConnectError::NoMatch {
            wanted: choice.describe(),
            live: others.iter().map(Greeting::describe).collect(),
        });
    }
    let preferred =
        |g: &Greeting| prefer.is_some_and(|p| g.browser.as_ref().and_then(|b| b.user_data_dir.as_deref()) == Some(p));
    chosen.sort_by(|a, b| {
        (a.extension.is_none(), !preferred(a), a.started_ms, &a.socket).cmp(&(
            b.extension.is_none(),
            !preferred(b),
            b.started_ms,
            &b.socket,
        ))
    });
    Ok(chosen)
}

/// Opens a link to the first bridge among `sockets` that accepts this session.
async fn connect_first(sockets: Vec<PathBuf>, session: &str) -> Result<(ClientStream, Greeting), ConnectError> {
    let mut rejection = None;
    for path in sockets {
        match handshake(&path, Some(session)).await {
            Ok(connected) => return Ok(connected),
            Err(error) => {
                tracing::warn!("{error}");
                // A bridge that refused this client (or that this client refused) says what
                // to do, which beats "no browser".
                keep_telling(&mut rejection, error);
            }
        }
    }
    Err(rejection.unwrap_or(ConnectError::NoBrowser))
}

impl Link {
    /// Connects to the best live bridge in `dir` for `choice` (see [`rank`]).
    async fn connect(
        dir: &Path,
        session: &str,
        choice: &Choice,
        prefer: Option<&Path>,
    ) -> Result<(Link, Greeting), ConnectError> {
        let (live, problem) = probe_all(dir).await?;
        let ranked = rank(live, choice, prefer)?;
        let (stream, greeting) = match connect_first(ranked.into_iter().map(|g| g.socket).collect(), session).await {
            Ok(connected) => connected,
            Err(ConnectError::NoBrowser) => return Err(problem.unwrap_or(ConnectError::NoBrowser)),
            Err(error) => return Err(error),
        };
        tracing::info!(socket = %greeting.socket.display(), pid = greeting.pid, browser = ?greeting.browser, "connected to bridge");
        Ok((Link::start(stream), greeting))
    }

    fn start(stream: ClientStream) -> Link {
        let (mut reader, writer) = tokio::io::split(stream);
        let pending = Arc::new(PendingCalls::new());
        let alive = Arc::new(AtomicBool::new(true));
        let (reader_pending, reader_alive) = (pending.clone(), alive.clone());
        tokio::spawn(async move {
            loop {
                match frame::read_frame::<_, BridgeMessage>(&mut reader).await {
                    Ok(Some(BridgeMessage::Result { id, output })) => {
                        reader_pending.resolve(id, output);
                    }
                    Ok(Some(BridgeMessage::Waiting { id, time_limit_ms, question })) => {
                        let time_limit = Duration::from_millis(time_limit_ms);
                        reader_pending.waiting(id, Waiting { time_limit, question });
                    }
                    Ok(Some(BridgeMessage::Answered { id, allowed })) => {
                        reader_pending.answered(id, allowed);
                    }
                    Ok(Some(_)) => {}
                    // Read whole: still in step.
                    Err(FrameError::Malformed(e)) => tracing::warn!("ignoring a malformed frame from the bridge: {e}"),
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!("the bridge connection failed: {e}");
                        break;
                    }
                }
            }
            reader_alive.store(false, Ordering::SeqCst);
            reader_pending.fail_all();
        });
        Link { writer: Mutex::new(writer), pending, alive }
    }

    async fn call(
        &self,
        call: ToolCall,
        client: Option<String>,
        time_limit: Duration,
        gave_up: Pin<&mut impl Future<Output = ()>>,
        waiting: &watch::Sender<Option<String>>,
    ) -> Result<ToolOutput, LinkLost> {
        let waiter = self.pending.register();
        let id = waiter.id();
        let time_limit_ms = time_limit.as_millis() as u64;
        let sent = {
            let mut writer = self.writer.lock().await;
            frame::write_frame(&mut *writer, &ClientMessage::Call { id, time_limit_ms, client, call }).await
        };
        match sent {
            Err(FrameError::TooLarge { len }) => return Err(LinkLost::TooLarge(len)),
            Err(_) => {
                self.alive.store(false, Ordering::SeqCst);
                return Err(LinkLost::BeforeSending);
            }
            Ok(()) if !self.alive.load(Ordering::SeqCst) => return Err(LinkLost::BeforeSending),
            Ok(()) => {}
        }
        // The progress notes say what the call waits for only until the person answers.
        let heard = |note: &Note| {
            waiting.send_replace(match note {
                Note::Waiting(note) => Some(note.question.clone()),
                Note::Answered { .. } => None,
            });
            std::future::ready(())
        };
        let answer = waiter.wait_on_person(time_limit, time_limit + link::MAX_WAIT_ON_PERSON, ANSWER_GRACE, heard);
        tokio::select! {
            answer = answer => match answer {
                Ok(output) => Ok(output),
                Err(Unanswered::ConnectionLost) => Err(LinkLost::WhileWaiting),
                Err(Unanswered::ClosedWhileAsking { question }) => Err(LinkLost::WhileAsking { question }),
                Err(Unanswered::TimedOut(_)) => Err(LinkLost::TimedOut),
            },
            () = gave_up => {
                let mut writer = self.writer.lock().await;
                let _ = frame::write_frame(&mut *writer, &ClientMessage::Cancel { id }).await;
                Err(LinkLost::CalledOff)
            }
        }
    }
}

/// Whether `process` is the browser and profile a user asked for. `None` options match all.
pub fn matches(process: Option<&BrowserProcess>, browser: Option<Browser>, user_data_dir: Option<&Path>) -> bool {
    if browser.is_none() && user_data_dir.is_none() {
        return true;
    }
    let Some(process) = process else { return false };
    if let Some(browser) = browser
        && process.browser.as_deref() != Some(browser.name())
    {
        return false;
    }
    if let Some(wanted) = user_data_dir {
        let Some(dir) = &process.user_data_dir else { return false };
        return same_path(dir, wanted);
    }
    true
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
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
            let hello = frame::read_frame(&mut stream).await.unwrap().unwrap();
            if let Some(answer) = answer {
                frame::write_frame(&mut stream, &answer).await.unwrap();
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

    /// Calls through a bridge that welcomes the session, reads its call, tells it `notes` (given
    /// the call's id) and hangs up. Returns how the call ended and what the progress notes
    /// last said it waits for.
    async fn cut_after(
        test: &str,
        notes: fn(u64) -> Vec<BridgeMessage>,
    ) -> (Result<ToolOutput, LinkLost>, Option<String>) {
        let dir = SocketDir::new(test);
        let path = dir.socket("bridge-1.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let bridge = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let _hello: ClientMessage = frame::read_frame(&mut stream).await.unwrap().unwrap();
            frame::write_frame(&mut stream, &welcome()).await.unwrap();
            let Some(ClientMessage::Call { id, .. }) = frame::read_frame(&mut stream).await.unwrap() else {
                panic!("not a call")
            };
            for note in notes(id) {
                frame::write_frame(&mut stream, &note).await.unwrap();
            }
        });
        let (stream, _) = handshake(&path, Some("s-1")).await.unwrap();
        let link = Link::start(stream);
        let (waiting, question) = watch::channel(None);
        let call = ToolCall::BrowserClick(sightline_core::protocol::ClickParams {
            element_ref: "e1".into(),
            ..Default::default()
        });
        let gave_up = std::pin::pin!(std::future::pending::<()>());
        let ended = link.call(call, None, DEFAULT_TIME_LIMIT, gave_up, &waiting).await;
        bridge.await.unwrap();
        let last = question.borrow().clone();
        (ended, last)
    }

    const ASKED: &str = "click \"Place order\" (submit) on shop.example";

    fn asked(id: u64) -> BridgeMessage {
        BridgeMessage::Waiting { id, time_limit_ms: 123_000, question: ASKED.into() }
    }

    #[tokio::test]
    async fn a_bridge_gone_while_the_person_is_asked_means_the_action_was_not_run() {
        let (ended, waits_for) = cut_after("cut-asking", |id| vec![asked(id)]).await;
        let lost = ended.unwrap_err();
        assert!(matches!(&lost, LinkLost::WhileAsking { question } if question == ASKED), "{lost:?}");
        let text = lost.to_string();
        assert!(text.contains("the action was not run") && text.contains("Call it again to ask again"), "{text}");
        assert!(text.contains(ASKED) && !text.contains("may have run"), "{text}");
        assert_eq!(waits_for.as_deref(), Some(ASKED));
    }

    #[tokio::test]
    async fn a_bridge_gone_after_the_person_allowed_means_it_may_have_run_and_progress_stops_waiting() {
        let (ended, waits_for) =
            cut_after("cut-allowed", |id| vec![asked(id), BridgeMessage::Answered { id, allowed: true }]).await;
        let lost = ended.unwrap_err();
        assert!(matches!(lost, LinkLost::WhileWaiting), "{lost:?}");
        assert!(lost.to_string().contains("it may have run"), "{lost}");
        assert_eq!(waits_for, None, "the progress notes no longer say it waits for the person");
    }

    #[tokio::test]
    async fn a_bridge_gone_while_a_call_never_asked_means_it_may_have_run() {
        let (ended, waits_for) = cut_after("cut-unasked", |_| Vec::new()).await;
        assert!(matches!(ended, Err(LinkLost::WhileWaiting)), "{ended:?}");
        assert_eq!(waits_for, None);
    }

    #[test]
    fn choices_match_by_browser_and_by_profile() {
        let process = BrowserProcess { pid: 1, browser: Some("chromium".into()), user_data_dir: Some("/x/p1".into()) };
        assert!(matches(Some(&process), None, None));
        assert!(matches(None, None, None), "no choice takes any bridge");
        assert!(matches(Some(&process), Some(Browser::Chromium), None));
        assert!(!matches(Some(&process), Some(Browser::Chrome), None));
        assert!(matches(Some(&process), None, Some(Path::new("/x/p1"))));
        assert!(!matches(Some(&process), None, Some(Path::new("/x/p2"))));
        assert!(!matches(None, Some(Browser::Chromium), None), "an unknown browser matches no choice");
    }
}
