//! A static file server on 127.0.0.1 for fixture pages and corpus pages.
//!
//! Besides files it answers `/event` (pages report what really happened to them: a click, a
//! submitted value) so tests can check a tool's effect independently of what the snapshot
//! says, `/status/<code>` (any status, for network tests), and `/switch/<name>`, whose status a
//! test sets with [`FixtureServer::set_status`] (200 until then), for an endpoint that starts
//! failing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running server; stops when dropped.
pub struct FixtureServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    events: Arc<Mutex<Vec<String>>>,
    switches: Arc<Mutex<HashMap<String, u16>>>,
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
        let (srv, ev, sw) = (server.clone(), events.clone(), switches.clone());
        let thread = std::thread::spawn(move || {
            for request in srv.incoming_requests() {
                if let Some(request) = switched(request, &sw) {
                    respond(request, &root, &ev);
                }
            }
        });
        Ok(FixtureServer { server, port, events, switches, thread: Some(thread) })
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

/// Answers `/switch/<name>` with the status set for it; hands back any other request.
fn switched(request: tiny_http::Request, switches: &Mutex<HashMap<String, u16>>) -> Option<tiny_http::Request> {
    let url = request.url().to_owned();
    let path = url.split_once('?').map_or(url.as_str(), |(p, _)| p);
    let Some(name) = path.strip_prefix("/switch/") else { return Some(request) };
    let status = switches.lock().ok().and_then(|s| s.get(name).copied()).unwrap_or(200);
    let body = format!("{{\"status\":{status}}}");
    let response = tiny_http::Response::from_string(body).with_status_code(status);
    let _ = request.respond(response);
    None
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
