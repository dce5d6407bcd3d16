//! A direct CDP connection to a headless Chromium started with `--remote-debugging-port`,
//! independent of the extension: used to record captures and to measure ground truth in the
//! page (what is really visible and interactive, the page's `innerText`).

use std::collections::VecDeque;
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// One CDP websocket connection (the browser endpoint, with flat sessions).
pub struct CdpConnection {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    events: VecDeque<Value>,
}

impl CdpConnection {
    /// Connects to a `ws://` endpoint.
    pub fn connect(url: &str) -> anyhow::Result<Self> {
        let (socket, _) = tungstenite::connect(url).with_context(|| format!("connecting to {url}"))?;
        if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
            stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        }
        Ok(CdpConnection { socket, next_id: 0, events: VecDeque::new() })
    }

    fn read(&mut self) -> anyhow::Result<Option<Value>> {
        match self.socket.read() {
            Ok(Message::Text(text)) => Ok(Some(serde_json::from_str(text.as_str())?)),
            Ok(_) => Ok(None),
            // A socket with a read timeout is never restarted after a signal (signal(7)), so a
            // child process exiting elsewhere in the test can interrupt this read: read again.
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Sends a command (to a flat session when `session` is given) and waits for its result.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> anyhow::Result<Value> {
        self.call_with_timeout(session, method, params, Duration::from_secs(30))
    }

    /// Like [`CdpConnection::call`] with an explicit time limit.
    pub fn call_with_timeout(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> anyhow::Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = s.into();
        }
        self.socket.send(Message::text(message.to_string()))?;
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            let Some(value) = self.read()? else { continue };
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    bail!("{method} failed: {error}");
                }
                return Ok(value["result"].clone());
            }
            if value.get("method").is_some() {
                self.events.push_back(value);
            }
        }
        bail!("{method} got no answer within {timeout:?}")
    }

    /// Waits for an event matching `method` (and `wanted`), keeping other events queued.
    pub fn wait_event(
        &mut self,
        method: &str,
        timeout: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Value> {
        if let Some(pos) = self.events.iter().position(|e| e["method"] == method && wanted(e)) {
            return Ok(self.events.remove(pos).unwrap_or_default());
        }
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(value) = self.read()? {
                if value["method"] == method && wanted(&value) {
                    return Ok(value);
                }
                if value.get("method").is_some() {
                    self.events.push_back(value);
                }
            }
        }
        Err(anyhow!("no {method} event within {timeout:?}"))
    }

    /// Removes and returns every queued event.
    pub fn take_events(&mut self) -> Vec<Value> {
        self.events.drain(..).collect()
    }
}

/// A headless Chromium under direct CDP control; killed when dropped.
pub struct CdpBrowser {
    child: Child,
    _profile: tempfile::TempDir,
    /// The connection to the browser endpoint.
    pub cdp: CdpConnection,
}

impl CdpBrowser {
    /// Starts Chromium with a fresh profile and connects to it.
    pub fn launch() -> anyhow::Result<Self> {
        let profile = tempfile::Builder::new().prefix("sightline-cdp-").tempdir()?;
        let (child, url) = crate::browser::launch_plain(profile.path(), &["--window-size=1280,900"])?;
        let cdp = CdpConnection::connect(&url)?;
        Ok(CdpBrowser { child, _profile: profile, cdp })
    }

    /// Opens a new page target and attaches to it; returns its flat session id.
    pub fn open_page(&mut self) -> anyhow::Result<String> {
        let target = self.cdp.call(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let target_id = target["targetId"].as_str().context("no targetId")?.to_owned();
        let attached = self.cdp.call(None, "Target.attachToTarget", json!({"targetId": target_id, "flatten": true}))?;
        Ok(attached["sessionId"].as_str().context("no sessionId")?.to_owned())
    }
}

impl Drop for CdpBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `ws://` address of the DevTools endpoint of a browser using `profile`, once it has
/// written it (at most 20 s).
pub fn wait_for_endpoint(profile: &Path) -> anyhow::Result<String> {
    let file = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return Ok(format!("ws://127.0.0.1:{port}{path}"));
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("Chromium did not open its debugging port within 20 s")
}
