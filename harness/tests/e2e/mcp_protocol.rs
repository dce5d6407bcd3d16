//! The MCP handshake as any client meets it, spoken as raw JSON-RPC lines to a real
//! `sightline-host mcp` (no SDK in between, so nothing papers over what the server says):
//! protocol versions are negotiated (a version the server knows is echoed, one it does not know
//! gets the newest it speaks), `ping` is answered, every tool
//! in `tools/list` carries its annotations, and a line that is not JSON is dropped without
//! ending the session (the MCP library answers nothing to it). No browser is needed for any of it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use sightline_harness::sandbox::Sandbox;

/// Longest a reply may take; the server answers these from memory.
const REPLY_WAIT: Duration = Duration::from_secs(20);

/// A `sightline-host mcp` process spoken to line by line.
struct RawSession {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl RawSession {
    fn start(sandbox: &Sandbox) -> RawSession {
        let mut child = sandbox
            .host_command()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sightline-host mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout: ChildStdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        RawSession { child, stdin, lines, next_id: 1 }
    }

    /// Sends a request and returns its response (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        writeln!(self.stdin, "{message}").expect("server reads stdin");
        self.stdin.flush().expect("flush");
        loop {
            let line = self.lines.recv_timeout(REPLY_WAIT).unwrap_or_else(|_| panic!("no answer to {method}"));
            let reply: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    }

    fn notify(&mut self, method: &str) {
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "method": method})).expect("server reads stdin");
        self.stdin.flush().expect("flush");
    }

    fn initialize(&mut self, version: &str) -> Value {
        let reply = self.request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw-json-rpc", "version": "1.0.0"}
            }),
        );
        self.notify("notifications/initialized");
        reply
    }
}

impl Drop for RawSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_known_protocol_version_is_echoed_back() {
    let sandbox = Sandbox::new().expect("sandbox");
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut session = RawSession::start(&sandbox);
        let reply = session.initialize(version);
        assert_eq!(reply["result"]["protocolVersion"], version, "{reply}");
        assert_eq!(reply["result"]["serverInfo"]["name"], "sightline", "{reply}");
        assert!(reply["result"]["capabilities"]["tools"].is_object(), "{reply}");
    }
}

#[test]
fn an_unknown_protocol_version_gets_the_newest_the_server_speaks() {
    let sandbox = Sandbox::new().expect("sandbox");
    let mut session = RawSession::start(&sandbox);
    let reply = session.initialize("2099-01-01");
    let offered = reply["result"]["protocolVersion"].as_str().unwrap_or_else(|| panic!("no version: {reply}"));
    assert!(offered >= "2025-11-25" && offered != "2099-01-01", "offered {offered}: {reply}");
    // The session goes on in the version offered.
    let listed = session.request("tools/list", Value::Null);
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
}

#[test]
fn ping_is_answered_with_an_empty_result() {
    let sandbox = Sandbox::new().expect("sandbox");
    let mut session = RawSession::start(&sandbox);
    session.initialize("2025-06-18");
    for _ in 0..3 {
        let pong = session.request("ping", Value::Null);
        assert_eq!(pong["result"], json!({}), "{pong}");
    }
}

#[test]
fn every_listed_tool_carries_read_only_destructive_and_open_world_hints() {
    let sandbox = Sandbox::new().expect("sandbox");
    let mut session = RawSession::start(&sandbox);
    session.initialize("2025-06-18");
    let listed = session.request("tools/list", Value::Null);
    let tools = listed["result"]["tools"].as_array().cloned().unwrap_or_default();
    assert!(tools.len() >= 14, "{listed}");
    for tool in &tools {
        let hints = &tool["annotations"];
        for hint in ["readOnlyHint", "destructiveHint", "openWorldHint"] {
            assert!(hints[hint].is_boolean(), "{} lacks {hint}: {hints}", tool["name"]);
        }
    }
    let by_name = |name: &str| tools.iter().find(|t| t["name"] == name).cloned().unwrap_or_default();
    assert_eq!(by_name("browser_snapshot")["annotations"]["readOnlyHint"], true);
    assert_eq!(by_name("browser_click")["annotations"]["destructiveHint"], true);
}

#[test]
fn a_malformed_line_is_dropped_and_the_session_goes_on() {
    let sandbox = Sandbox::new().expect("sandbox");
    let mut session = RawSession::start(&sandbox);
    session.initialize("2025-06-18");
    writeln!(session.stdin, "{{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ").expect("write");
    session.stdin.flush().expect("flush");
    let pong = session.request("ping", Value::Null);
    assert_eq!(pong["result"], json!({}), "{pong}");
}
