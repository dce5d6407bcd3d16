//! A WebSocket echo server on 127.0.0.1 for pages that open sockets: every text or binary
//! message comes back as sent, and a close from the page is answered as the protocol asks.
//! Each connection runs in its own thread; the server stops accepting when dropped.

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tungstenite::Message;

/// A running echo server; stops accepting when dropped.
pub struct WebSocketServer {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WebSocketServer {
    /// Listens on a free port of 127.0.0.1.
    pub fn start() -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        std::thread::spawn(move || echo(stream));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(_) => break,
                }
            }
        });
        Ok(WebSocketServer { port, stop, thread: Some(thread) })
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `ws://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("ws://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }
}

impl Drop for WebSocketServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn echo(stream: TcpStream) {
    if stream.set_nonblocking(false).is_err() {
        return;
    }
    let Ok(mut socket) = tungstenite::accept(stream) else { return };
    // Reading on after a close lets tungstenite send the close reply; it then reports the
    // connection closed.
    while let Ok(message) = socket.read() {
        let echoed = match message {
            Message::Text(_) | Message::Binary(_) => message,
            _ => continue,
        };
        if socket.send(echoed).is_err() {
            break;
        }
    }
}
