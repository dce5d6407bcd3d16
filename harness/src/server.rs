//! A static file server on 127.0.0.1 for fixture pages and corpus pages.
//!
//! Besides files it answers `/event` (pages report what really happened to them: a click, a
//! submitted value) so tests can check a tool's effect independently of what the snapshot
//! says, `/status/<code>` (any status, for network tests), `/switch/<name>`, whose status a
//! test sets with [`FixtureServer::set_status`] (200 until then), for an endpoint that starts
//! failing (with `?endless`, its body starts and never ends, like a stream the page never reads:
//! the browser has the status but never finishes loading), and `/hang/<name>`, which is never
//! answered: the request is counted (event `hang:<name>`) and its connection held, unanswered,
//! until the server is dropped. Any file is answered late with `?delay=<ms>` (at most 10 s), for
//! pages whose images arrive after their script has drawn them. `/attachment/<name>` answers
//! any method with a small file sent as an attachment named `<name>` (`Content-Disposition`),
//! for downloads, and reports `attachment:<name>`. A path parameter
//! (`page.html;jsessionid=…`) is no part of the file's name.
//!
//! Every connection gets its own thread for as long as the browser keeps it open. A browser
//! loading a page opens several connections at once and keeps each one for its next request;
//! a server that serves connections from a bounded pool (as `tiny_http` 0.12 did here) can leave
//! one of such a burst unread while the others sit idle, and the page's script on it never loads.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A running server; stops when dropped.
pub struct FixtureServer {
    port: u16,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What the accepting thread and every connection's thread share.
struct Shared {
    root: PathBuf,
    events: Mutex<Vec<String>>,
    switches: Mutex<HashMap<String, u16>>,
    /// Set when the server is dropped: held requests and endless bodies end then.
    released: Mutex<bool>,
    release: Condvar,
    stopping: AtomicBool,
    /// Every connection accepted, to close them all when the server is dropped.
    connections: Mutex<Vec<TcpStream>>,
}

impl Shared {
    /// Returns once the server is dropped.
    fn wait_until_released(&self) {
        let Ok(mut released) = self.released.lock() else { return };
        while !*released {
            match self.release.wait(released) {
                Ok(r) => released = r,
                Err(_) => return,
            }
        }
    }

    fn event(&self, text: String) {
        if let Ok(mut events) = self.events.lock() {
            events.push(text);
        }
    }
}

impl FixtureServer {
    /// Serves the files under `root`.
    pub fn start(root: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared {
            root: root.into(),
            events: Mutex::new(Vec::new()),
            switches: Mutex::new(HashMap::new()),
            released: Mutex::new(false),
            release: Condvar::new(),
            stopping: AtomicBool::new(false),
            connections: Mutex::new(Vec::new()),
        });
        let accepting = shared.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                if let (Ok(copy), Ok(mut all)) = (stream.try_clone(), accepting.connections.lock()) {
                    all.push(copy);
                }
                let shared = accepting.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Ok(FixtureServer { port, shared, thread: Some(thread) })
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
        if let Ok(mut s) = self.shared.switches.lock() {
            s.insert(name.to_owned(), status);
        }
    }

    /// Every event pages reported so far.
    pub fn events(&self) -> Vec<String> {
        self.shared.events.lock().map(|e| e.clone()).unwrap_or_default()
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
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which sees it is stopping.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // Only now are the requests that were never to be answered let go, and endless bodies
        // ended.
        if let Ok(mut released) = self.shared.released.lock() {
            *released = true;
        }
        self.shared.release.notify_all();
        if let Ok(mut all) = self.shared.connections.lock() {
            for stream in all.drain(..) {
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
    }
}

/// One request as read from a connection.
struct Request {
    /// The request target: path and query.
    target: String,
    body: Vec<u8>,
    /// Whether the client keeps the connection for another request.
    keep_alive: bool,
}

/// Serves the requests of one connection until the client closes it (or asks to).
fn serve(stream: TcpStream, shared: &Shared) {
    let Ok(reading) = stream.try_clone() else { return };
    let mut reader = BufReader::new(reading);
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let answered = answer(&request, shared, &mut writer);
        if !answered || !request.keep_alive {
            break;
        }
    }
}

/// Reads one request (line, headers and a `Content-Length` body); `None` when the connection
/// ended or sent something that is not HTTP.
fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let _method = parts.next()?;
    let target = parts.next()?.to_owned();
    let mut keep_alive = parts.next() != Some("HTTP/1.0");
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else { continue };
        let value = value.trim().to_ascii_lowercase();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("connection") {
            keep_alive = match value.as_str() {
                "close" => false,
                "keep-alive" => true,
                _ => keep_alive,
            };
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request { target, body, keep_alive })
}

/// Answers `request`; false when the connection is to be closed without one (held until the
/// server is dropped, or broken).
fn answer(request: &Request, shared: &Shared, out: &mut TcpStream) -> bool {
    let (path, query) = request.target.split_once('?').unwrap_or((&request.target, ""));
    if let Some(name) = path.strip_prefix("/hang/") {
        // Counted, so a test can tell a request that was sent twice.
        shared.event(format!("hang:{name}"));
        shared.wait_until_released();
        return false;
    }
    if let Some(name) = path.strip_prefix("/switch/") {
        let status = shared.switches.lock().ok().and_then(|s| s.get(name).copied()).unwrap_or(200);
        let body = format!("{{\"status\":{status}}}");
        if query.split('&').any(|p| p == "endless") {
            // Whitespace after the JSON keeps it JSON; the length promised is never reached.
            let start = body + &" ".repeat(ENDLESS_START);
            let promised = start.len() * 2;
            let sent = write_head(out, status, SWITCH_TYPE, promised).and_then(|()| out.write_all(start.as_bytes()));
            if sent.and_then(|()| out.flush()).is_ok() {
                shared.wait_until_released();
            }
            return false;
        }
        return respond(out, status, SWITCH_TYPE, body.as_bytes());
    }
    if let Some(name) = path.strip_prefix("/attachment/") {
        // Counted, so a test can tell that the browser asked for it (a form's POST, a link).
        let name = percent_decode(name);
        shared.event(format!("attachment:{name}"));
        let body = format!("the file {name}\n");
        let disposition = format!("attachment; filename=\"{}\"", name.replace(['"', '\r', '\n'], ""));
        return write_head_with(out, 200, "text/csv", body.len(), &[("Content-Disposition", &disposition)])
            .and_then(|()| out.write_all(body.as_bytes()))
            .and_then(|()| out.flush())
            .is_ok();
    }
    if path == "/event" {
        let text = if request.body.is_empty() {
            percent_decode(query)
        } else {
            String::from_utf8_lossy(&request.body).into_owned()
        };
        shared.event(text);
        return respond(out, 204, "text/plain", b"");
    }
    if let Some(code) = path.strip_prefix("/status/").and_then(|c| c.parse::<u16>().ok()) {
        return respond(out, code, "text/plain", format!("status {code}").as_bytes());
    }
    // Path parameters (`/cart;jsessionid=…`) name no file, as on the servers that use them.
    let without_parameters: Vec<&str> =
        path.split('/').map(|segment| segment.split(';').next().unwrap_or("")).collect();
    let relative = percent_decode(without_parameters.join("/").trim_start_matches('/'));
    if relative.split('/').any(|part| part == "..") {
        return respond(out, 403, "text/plain", b"");
    }
    if let Some(ms) = query.split('&').find_map(|p| p.strip_prefix("delay=")).and_then(|ms| ms.parse::<u64>().ok()) {
        std::thread::sleep(Duration::from_millis(ms.min(MAX_DELAY_MS)));
    }
    let mut file = shared.root.join(&relative);
    if file.is_dir() {
        file = file.join("index.html");
    }
    match std::fs::read(&file) {
        Ok(bytes) => respond(out, 200, &content_type(&file), &bytes),
        Err(_) => respond(out, 404, "text/plain", b"not found"),
    }
}

/// Longest `?delay=` a file is answered after.
const MAX_DELAY_MS: u64 = 10_000;

/// What `/switch/<name>` says its body is.
const SWITCH_TYPE: &str = "text/plain; charset=UTF-8";

/// Bytes an endless body sends before it stops: enough to get past every buffer on the way.
const ENDLESS_START: usize = 64 * 1024;

/// Writes a whole response; false if the connection broke.
fn respond(out: &mut TcpStream, status: u16, content_type: &str, body: &[u8]) -> bool {
    // These statuses never carry a body.
    let body = if status == 204 || status == 304 || status < 200 { &[][..] } else { body };
    write_head(out, status, content_type, body.len())
        .and_then(|()| out.write_all(body))
        .and_then(|()| out.flush())
        .is_ok()
}

fn write_head(out: &mut TcpStream, status: u16, content_type: &str, length: usize) -> std::io::Result<()> {
    write_head_with(out, status, content_type, length, &[])
}

/// [`write_head`] with more headers.
fn write_head_with(
    out: &mut TcpStream,
    status: u16,
    content_type: &str,
    length: usize,
    headers: &[(&str, &str)],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    };
    write!(out, "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n")?;
    for (name, value) in headers {
        write!(out, "{name}: {value}\r\n")?;
    }
    write!(out, "\r\n")
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    use super::FixtureServer;

    /// A browser loading a page opens several connections at once and keeps each open for the
    /// next request: every one of them must be answered, not only the first few.
    /// More connections than a small pool of threads would serve at once.
    const BURST: usize = 24;

    #[test]
    fn every_connection_of_a_burst_is_answered() {
        let root = tempfile::tempdir().expect("a directory");
        std::fs::write(root.path().join("a.js"), "var a = 1;").expect("a file");
        let server = FixtureServer::start(root.path()).expect("server");
        let mut streams: Vec<TcpStream> =
            (0..BURST).map(|_| TcpStream::connect(("127.0.0.1", server.port())).expect("connect")).collect();
        for stream in &mut streams {
            stream.write_all(b"GET /a.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n").expect("send");
        }
        let unanswered: Vec<usize> = streams
            .iter_mut()
            .enumerate()
            .filter_map(|(i, stream)| {
                stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
                let mut head = [0u8; 12];
                let answered = stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200");
                (!answered).then_some(i)
            })
            .collect();
        assert!(unanswered.is_empty(), "connections {unanswered:?} of {BURST} were never answered");
    }
}
