//! A static file server on 127.0.0.1 for fixture pages and corpus pages.
//!
//! Besides files it answers `/event` (pages report what really happened to them: a click, a
//! submitted value) so tests can check a tool's effect independently of what the snapshot
//! says, `/status/<code>` (any status, for network tests), `/switch/<name>`, whose status a
//! test sets with [`FixtureServer::set_status`] (200 until then), for an endpoint that starts
//! failing (with `?endless`, its body starts and never ends, like a stream the page never reads:
//! the browser has the status but never finishes loading), and `/hang/<name>`, which is never
//! answered: the request is counted (event `hang:<name>`) and put aside, unanswered, until the
//! server is dropped. Neither blocks the one thread that serves everything else.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// A running server; stops when dropped.
pub struct FixtureServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    events: Arc<Mutex<Vec<String>>>,
    switches: Arc<Mutex<HashMap<String, u16>>>,
    /// `/hang/<name>` requests, held unanswered until the server is dropped.
    held: Arc<Mutex<Vec<tiny_http::Request>>>,
    /// What ends every `?endless` body, once dropped.
    endless: Arc<Mutex<Vec<Sender<()>>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FixtureServer {
    /// Serves the files under `root`.
    pub fn start(root: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let root = root.into();
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").map_err(|e| anyhow::anyhow!("{e}"))?);
        let port = server.server_addr().to_ip().map(|a| a.port()).unwrap_or_default();
        let events = Arc::new(Mutex::new(Vec::new()));
        let switches = Arc::new(Mutex::new(HashMap::new()));
        let held = Arc::new(Mutex::new(Vec::new()));
        let endless = Arc::new(Mutex::new(Vec::new()));
        let (srv, ev, sw, hold, ends) =
            (server.clone(), events.clone(), switches.clone(), held.clone(), endless.clone());
        let thread = std::thread::spawn(move || {
            for request in srv.incoming_requests() {
                if let Some(name) = request.url().strip_prefix("/hang/") {
                    // Counted, so a test can tell a request that was sent twice.
                    if let Ok(mut events) = ev.lock() {
                        events.push(format!("hang:{}", name.split('?').next().unwrap_or(name)));
                    }
                    if let Ok(mut held) = hold.lock() {
                        held.push(request);
                    }
                    continue;
                }
                if let Some(request) = switched(request, &sw, &ends) {
                    respond(request, &root, &ev);
                }
            }
        });
        Ok(FixtureServer { server, port, events, switches, held, endless, thread: Some(thread) })
    }

    /// `http://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Makes `/switch/<name>` answer with `status` from now on.
    pub fn set_status(&self, name: &str, status: u16) {
        if let Ok(mut s) = self.switches.lock() {
            s.insert(name.to_owned(), status);
        }
    }

    /// Every event pages reported so far.
    pub fn events(&self) -> Vec<String> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }

    /// Waits (at most `timeout`) for an event equal to `wanted`.
    pub fn wait_for_event(&self, wanted: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.events().iter().any(|e| e == wanted) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        false
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // Only now are the requests that were never to be answered let go, and endless bodies
        // ended.
        if let Ok(mut held) = self.held.lock() {
            held.clear();
        }
        if let Ok(mut endless) = self.endless.lock() {
            endless.clear();
        }
    }
}

fn respond(mut request: tiny_http::Request, root: &Path, events: &Mutex<Vec<String>>) {
    let url = request.url().to_owned();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    if path == "/event" {
        let mut body = String::new();
        let _ = request.as_reader().read_to_string(&mut body);
        let text = if body.is_empty() { percent_decode(query) } else { body };
        if let Ok(mut e) = events.lock() {
            e.push(text);
        }
        let _ = request.respond(tiny_http::Response::empty(204));
        return;
    }
    if let Some(code) = path.strip_prefix("/status/").and_then(|c| c.parse::<u16>().ok()) {
        let _ = request.respond(tiny_http::Response::from_string(format!("status {code}")).with_status_code(code));
        return;
    }
    let relative = percent_decode(path.trim_start_matches('/'));
    let mut file = root.join(&relative);
    if relative.split('/').any(|part| part == "..") {
        let _ = request.respond(tiny_http::Response::empty(403));
        return;
    }
    if file.is_dir() {
        file = file.join("index.html");
    }
    match std::fs::read(&file) {
        Ok(bytes) => {
            let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type(&file).as_bytes());
            let mut response = tiny_http::Response::from_data(bytes);
            if let Ok(h) = header {
                response = response.with_header(h);
            }
            let _ = request.respond(response);
        }
        Err(_) => {
            let _ = request.respond(tiny_http::Response::from_string("not found").with_status_code(404));
        }
    }
}

/// Bytes an endless body sends before it stops: enough to get past every buffer on the way.
const ENDLESS_START: usize = 64 * 1024;

/// Answers `/switch/<name>` with the status set for it; hands back any other request.
fn switched(
    request: tiny_http::Request,
    switches: &Mutex<HashMap<String, u16>>,
    endless: &Mutex<Vec<Sender<()>>>,
) -> Option<tiny_http::Request> {
    let url = request.url().to_owned();
    let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
    let Some(name) = path.strip_prefix("/switch/") else { return Some(request) };
    let status = switches.lock().ok().and_then(|s| s.get(name).copied()).unwrap_or(200);
    let body = format!("{{\"status\":{status}}}");
    if query.split('&').any(|p| p == "endless") {
        let (end, ended) = mpsc::channel();
        if let Ok(mut endless) = endless.lock() {
            endless.push(end);
        }
        // Whitespace after the JSON keeps it JSON; the length promised is never reached.
        let start = body + &" ".repeat(ENDLESS_START);
        let promised = start.len() * 2;
        let body = EndlessBody { start: Cursor::new(start.into_bytes()), ended };
        let response = tiny_http::Response::new(status.into(), Vec::new(), body, Some(promised), None);
        std::thread::spawn(move || {
            let _ = request.respond(response);
        });
    } else {
        let _ = request.respond(tiny_http::Response::from_string(body).with_status_code(status));
    }
    None
}

/// A body that sends its start, then waits until the server is dropped before it ends.
struct EndlessBody {
    start: Cursor<Vec<u8>>,
    ended: Receiver<()>,
}

impl Read for EndlessBody {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.start.read(buf)? {
            0 => {
                // Returns once the sender is dropped with the server.
                let _ = self.ended.recv();
                Ok(0)
            }
            n => Ok(n),
        }
    }
}

fn content_type(path: &Path) -> String {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "css" => "text/css",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
    .to_owned()
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}
