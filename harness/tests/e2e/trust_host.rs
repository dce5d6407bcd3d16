//! Drills for the host's promises (issue 11): nothing reaches a socket another user planted,
//! what the bridge creates is private whatever the umask, bad frames from either side get a
//! clear error and lose nothing, a cancelled or unanswered call is called off in the browser,
//! and two clients on two profiles each drive their own browser.
//!
//! Most of these run the real `sightline-host` with a fake extension on its stdin/stdout (no
//! browser needed); the tests run as root, so they can plant directories and listeners as
//! another user (`nobody`, uid 65534).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_core::protocol::WIRE_PROTOCOL;
use sightline_harness::browser::bridge_pids;
use sightline_harness::{Chromium, FixtureServer, McpClient, Sandbox, paths};

/// The uid and gid the drills plant things as.
const NOBODY: u32 = 65534;
const ORIGIN: &str = "chrome-extension://pedjfcdnklnogkhfdbajokklfdgehmka/";
const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");

fn host() -> PathBuf {
    let host = paths::host_binary();
    assert!(host.is_file(), "run `cargo xtask test`, which builds {}", host.display());
    host
}

/// The real bridge, started the way the browser starts it, with the test as its extension.
struct FakeExtension {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: mpsc::Receiver<Value>,
}

impl FakeExtension {
    /// Starts the bridge with `env` (and `umask 000` first when asked).
    fn start(env: &[(&str, PathBuf)], origin: &str, umask_000: bool) -> FakeExtension {
        let mut cmd = if umask_000 {
            let mut sh = Command::new("sh");
            sh.args(["-c", "umask 000; exec \"$0\" \"$@\""]).arg(host()).arg(origin);
            sh
        } else {
            let mut direct = Command::new(host());
            direct.arg(origin);
            direct
        };
        cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sightline-host starts");
        let mut stdout = child.stdout.take().expect("the drill's setup");
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut len = [0u8; 4];
                if stdout.read_exact(&mut len).is_err() {
                    return;
                }
                let mut body = vec![0u8; u32::from_ne_bytes(len) as usize];
                if stdout.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap_or(Value::Null)).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        FakeExtension { child, stdin, frames }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("port open");
        stdin.write_all(bytes).expect("writing to the bridge (is it still running?)");
        stdin.flush().expect("writing to the bridge (is it still running?)");
    }

    fn send(&mut self, body: &[u8]) {
        let mut frame = (body.len() as u32).to_ne_bytes().to_vec();
        frame.extend_from_slice(body);
        self.send_raw(&frame);
    }

    fn hello(&mut self) {
        let hello = json!({"type": "hello", "version": HOST_VERSION, "protocol": WIRE_PROTOCOL, "browser": "fake"});
        self.send(hello.to_string().as_bytes());
    }

    /// The next message the bridge sends the extension.
    fn next(&self, within: Duration) -> Value {
        self.frames.recv_timeout(within).expect("a message from the bridge")
    }

    /// The next message of `kind`, skipping others (e.g. `session_closed`).
    fn next_of(&self, kind: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.frames.recv_timeout(left).unwrap_or_else(|_| panic!("no {kind} within {within:?}"));
            if message["type"] == kind {
                return message;
            }
        }
    }

    fn answer(&mut self, id: &Value, text: &str) {
        let result = json!({"type": "result", "id": id, "output": {"text": text}});
        self.send(result.to_string().as_bytes());
    }

    fn close_port(&mut self) {
        self.stdin = None;
    }

    fn wait(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("the drill's setup") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for FakeExtension {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for the bridge's socket in the sandbox.
fn bridge_socket(sandbox: &Sandbox) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = bridge_pids(sandbox).first() {
            return sandbox.runtime_dir().join(format!("sightline/bridge-{pid}.sock"));
        }
        assert!(Instant::now() < deadline, "the bridge never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).expect("the drill's setup");
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("the drill's setup");
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).expect("the drill's setup").mode() & 0o7777
}

/// A listener run by `nobody` (with perl, which is part of every Debian system) on `path`: it
/// counts the connections it accepts and the bytes it reads until told to stop.
struct ForeignListener {
    child: Child,
    lines: mpsc::Receiver<String>,
}

const COUNTING_LISTENER: &str = r#"
use IO::Socket::UNIX;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 5) or die "listen: $!";
my ($connections, $bytes) = (0, 0);
$SIG{USR1} = sub { print "connections=$connections bytes=$bytes\n"; exit 0 };
$| = 1;
print "ready\n";
while (1) {
    my $c = $s->accept or next;
    $connections++;
    while (1) { my $n = sysread($c, my $buf, 65536); last if !$n; $bytes += $n; }
    close $c;
}
"#;

impl Drop for ForeignListener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ForeignListener {
    fn start(path: &Path) -> ForeignListener {
        let mut child = Command::new("perl")
            .arg("-e")
            .arg(COUNTING_LISTENER)
            .arg(path)
            .uid(NOBODY)
            .gid(NOBODY)
            .stdout(Stdio::piped())
            .spawn()
            .expect("perl runs");
        let stdout = child.stdout.take().expect("the drill's setup");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let ready = lines.recv_timeout(Duration::from_secs(10)).expect("the listener started");
        assert_eq!(ready, "ready");
        ForeignListener { child, lines }
    }

    /// Stops it; returns (connections accepted, bytes read).
    fn stop(&mut self) -> (u32, u64) {
        Command::new("kill").args(["-USR1", &self.child.id().to_string()]).status().expect("the drill's setup");
        let line = self.lines.recv_timeout(Duration::from_secs(10)).expect("the listener's count");
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (connections, bytes) = line.split_once(' ').expect("the listener prints connections=N bytes=N");
        (
            connections.trim_start_matches("connections=").parse().expect("the listener prints connections=N bytes=N"),
            bytes.trim_start_matches("bytes=").parse().expect("the listener prints connections=N bytes=N"),
        )
    }
}

/// An `mcp` client with exactly `env` (no XDG_RUNTIME_DIR unless given).
async fn mcp_with(env: &[(&str, PathBuf)], options: &[&str]) -> McpClient {
    let mut cmd = tokio::process::Command::new(host());
    cmd.arg("mcp").args(options).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    McpClient::spawn(cmd, Stdio::null()).await.expect("sightline-host mcp starts")
}

/// `doctor` for the sandbox's profile, with exactly `env`.
fn doctor_with(sandbox: &Sandbox, env: &[(&str, PathBuf)]) -> (bool, String) {
    let mut cmd = Command::new(host());
    cmd.args(["doctor", "--browser", "chromium", "--user-data-dir"]).arg(sandbox.profile());
    cmd.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the drill's setup");
    let report = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), report)
}

/// The sandbox's environment without `$XDG_RUNTIME_DIR` and with `$TMPDIR` at `tmp`, so the
/// socket directory falls back to `<tmp>/sightline-<uid>` as on a machine without one.
fn fallback_env(sandbox: &Sandbox, tmp: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut env: Vec<_> = sandbox.env().into_iter().filter(|(k, _)| *k != "XDG_RUNTIME_DIR").collect();
    env.push(("TMPDIR", tmp.to_owned()));
    env
}

fn current_uid() -> u32 {
    std::fs::metadata("/proc/self").expect("the drill's setup").uid()
}

/// A shared temporary directory like `/tmp` (sticky, open to all), for the fallback drills.
fn shared_tmp() -> tempfile::TempDir {
    let tmp = tempfile::Builder::new().prefix("sightline-shared-tmp-").tempdir().expect("the drill's setup");
    set_mode(tmp.path(), 0o1777);
    tmp
}

#[tokio::test(flavor = "multi_thread")]
async fn a_socket_directory_planted_by_another_user_receives_nothing() {
    let sandbox = Sandbox::new().unwrap();
    let tmp = shared_tmp();
    // Another user got there first: their directory, open to all, with their listener in it.
    let planted = tmp.path().join(format!("sightline-{}", current_uid()));
    std::fs::create_dir(&planted).unwrap();
    chown(&planted, NOBODY);
    set_mode(&planted, 0o777);
    let mut listener = ForeignListener::start(&planted.join("bridge-1.sock"));
    let env = fallback_env(&sandbox, tmp.path());

    let client = mcp_with(&env, &[]).await;
    let reply = client.call("browser_navigate", json!({"url": "https://bank.example/", "tab": 1})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    let path = planted.display().to_string();
    assert!(reply.text.contains(&path) && reply.text.contains("belongs to uid 65534"), "{}", reply.text);
    assert!(reply.text.contains("Nothing was sent"), "{}", reply.text);

    let (ok, report) = doctor_with(&sandbox, &env);
    assert!(!ok, "{report}");
    assert!(report.contains("FAIL refusing the socket directory") && report.contains(&path), "{report}");

    assert_eq!(listener.stop(), (0, 0), "the planted listener was never even connected to");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_socket_directory_open_to_others_receives_nothing() {
    let sandbox = Sandbox::new().unwrap();
    let tmp = shared_tmp();
    // The user's own directory, but someone made it world-writable and put a socket there.
    let dir = tmp.path().join(format!("sightline-{}", current_uid()));
    std::fs::create_dir(&dir).unwrap();
    set_mode(&dir, 0o777);
    let mut listener = ForeignListener::start(&dir.join("bridge-2.sock"));
    let client = mcp_with(&fallback_env(&sandbox, tmp.path()), &[]).await;
    let reply = client.call("browser_tabs", json!({})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains(&dir.display().to_string()) && reply.text.contains("mode is 0777"), "{}", reply.text);
    assert_eq!(listener.stop(), (0, 0));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_socket_served_by_another_user_in_the_users_own_directory_receives_nothing() {
    let sandbox = Sandbox::new().unwrap();
    let dir = sandbox.runtime_dir().join("sightline");
    std::fs::create_dir(&dir).unwrap();
    set_mode(&dir, 0o700);
    // nobody listens in a directory of its own; the socket is then moved into ours and made to
    // look like ours: only the listener's credentials give it away.
    let theirs = tempfile::Builder::new().prefix("sightline-nobody-").tempdir().unwrap();
    chown(theirs.path(), NOBODY);
    let mut listener = ForeignListener::start(&theirs.path().join("l.sock"));
    let planted = dir.join("bridge-3.sock");
    std::fs::rename(theirs.path().join("l.sock"), &planted).unwrap();
    chown(&planted, current_uid());

    let client = McpClient::connect(&sandbox).await.unwrap();
    let reply = client.call("browser_tabs", json!({})).await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains(&planted.display().to_string()), "{}", reply.text);
    assert!(reply.text.contains("runs as uid 65534") && reply.text.contains("Nothing was sent"), "{}", reply.text);
    let (ok, report) = sandbox.doctor().unwrap();
    assert!(!ok && report.contains("FAIL refusing") && report.contains("runs as uid 65534"), "{report}");
    let (connections, bytes) = listener.stop();
    assert!(connections >= 1, "the client did connect, to read the listener's credentials");
    assert_eq!(bytes, 0, "but sent it nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bridge_refuses_a_client_of_another_user() {
    let sandbox = Sandbox::new().unwrap();
    let mut extension = FakeExtension::start(&sandbox.env(), ORIGIN, false);
    extension.hello();
    let socket = bridge_socket(&sandbox);
    // Reach the bridge's socket from outside its private directory, as a hard link would.
    let open = tempfile::Builder::new().prefix("sightline-open-").tempdir().unwrap();
    set_mode(open.path(), 0o777);
    let link = open.path().join("bridge.sock");
    std::fs::hard_link(&socket, &link).unwrap();
    // And suppose its mode were loosened too: the peer's uid is the last check standing.
    set_mode(&link, 0o666);
    let hello = json!({"type": "hello", "version": HOST_VERSION, "session": "intruder"}).to_string();
    let script = format!(
        r#"use IO::Socket::UNIX; $SIG{{PIPE}} = 'IGNORE';
           my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or die "connect: $!";
           my $hello = '{hello}'; syswrite($s, pack('N', length $hello) . $hello);
           my $total = 0; while (1) {{ my $n = sysread($s, my $buf, 65536); last if !$n; $total += $n; }} print "read=$total\n";"#
    );
    let out = Command::new("perl").arg("-e").arg(&script).arg(&link).uid(NOBODY).gid(NOBODY).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "read=0", "{}", String::from_utf8_lossy(&out.stderr));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut log = sandbox.bridge_log_text();
    while !log.contains("from uid 65534") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        log = sandbox.bridge_log_text();
    }
    assert!(log.contains("refused a connection") && log.contains("from uid 65534"), "{log}");
    // The bridge serves its own user as before.
    let client = McpClient::connect(&sandbox).await.unwrap();
    let call = client.start("browser_tabs", json!({})).await.unwrap();
    let message = extension.next_of("call", Duration::from_secs(10));
    extension.answer(&message["id"], "still serving");
    assert_eq!(call.answer().await.unwrap().text, "still serving");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_bridge_creates_is_private_even_under_umask_000() {
    let sandbox = Sandbox::new().unwrap();
    std::fs::remove_dir_all(sandbox.root().join("state")).unwrap();
    let mut extension = FakeExtension::start(&sandbox.env(), ORIGIN, true);
    extension.hello();
    let socket = bridge_socket(&sandbox);
    let log = sandbox.bridge_log();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !log.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(mode(socket.parent().unwrap()), 0o700, "socket directory");
    assert_eq!(mode(&socket), 0o600, "socket");
    assert_eq!(mode(log.parent().unwrap()), 0o700, "log directory");
    assert_eq!(mode(&log), 0o600, "log file");
    drop(extension);

    // Without XDG_STATE_HOME or HOME the log falls back to a per-user directory, not a shared one.
    let tmp = shared_tmp();
    let env: Vec<(&str, PathBuf)> = vec![("XDG_RUNTIME_DIR", sandbox.runtime_dir()), ("TMPDIR", tmp.path().to_owned())];
    let mut extension = FakeExtension::start(&env, ORIGIN, true);
    extension.hello();
    let log = tmp.path().join(format!("sightline-state-{}/bridge.log", current_uid()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !log.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!((mode(log.parent().unwrap()), mode(&log)), (0o700, 0o600), "{}", log.display());
}

#[test]
fn a_bridge_started_for_another_origin_refuses_and_listens_nowhere() {
    let sandbox = Sandbox::new().unwrap();
    let other = "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/";
    let out = Command::new(host()).arg(other).env_clear().envs(sandbox.env()).stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success());
    let log = sandbox.bridge_log_text();
    assert!(log.contains(&format!("refusing to serve {other}")) && log.contains(ORIGIN), "{log}");
    assert!(bridge_pids(&sandbox).is_empty(), "no socket");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_frames_from_either_side_get_a_clear_error_and_lose_nothing() {
    let sandbox = Sandbox::new().unwrap();
    let mut extension = FakeExtension::start(&sandbox.env(), ORIGIN, false);
    extension.hello();
    let socket = bridge_socket(&sandbox);
    let client = McpClient::connect(&sandbox).await.unwrap();
    let wait = Duration::from_secs(10);

    // Every call carries its time limit (60 s unless `mcp --time-limit` says otherwise).
    let call = client.start("browser_tabs", json!({})).await.unwrap();
    let message = extension.next_of("call", wait);
    assert_eq!(message["time_limit_ms"], 60_000, "{message}");
    // An answer that is not UTF-8: its call gets an error saying so.
    let id = message["id"].as_u64().unwrap();
    let mut invalid = format!("{{\"type\":\"result\",\"id\":{id},\"output\":{{\"text\":\"").into_bytes();
    invalid.extend_from_slice(b"\xff\xfe\"}}");
    extension.send(&invalid);
    let reply = call.answer().await.unwrap();
    assert!(reply.is_error && reply.text.contains("not valid UTF-8"), "{}", reply.text);

    // An answer for a call nobody waits for, and a message that is not JSON at all: ignored.
    extension.answer(&json!(987_654), "stray");
    extension.send(b"garbage");
    let call = client.start("browser_snapshot", json!({})).await.unwrap();
    let message = extension.next_of("call", wait);
    extension.answer(&message["id"], "fine");
    assert_eq!(call.answer().await.unwrap().text, "fine");

    // An answer over the browser's 64 MiB limit: read past, its call told why.
    let call = client.start("browser_snapshot", json!({})).await.unwrap();
    let id = extension.next_of("call", wait)["id"].as_u64().unwrap();
    let len = 64 * 1024 * 1024 + 1;
    let mut huge = (len as u32).to_ne_bytes().to_vec();
    huge.extend_from_slice(format!("{{\"type\":\"result\",\"id\":{id},\"output\":{{\"text\":\"").as_bytes());
    huge.resize(4 + len, b'x');
    extension.send_raw(&huge);
    let reply = call.answer().await.unwrap();
    assert!(reply.is_error && reply.text.contains("exceeds") && reply.text.contains("ask for less"), "{}", reply.text);

    // A client that sends a frame announcing 4 GiB loses its own connection, nobody else's.
    let mut rogue = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let hello = json!({"type": "hello", "version": HOST_VERSION, "session": "rogue"}).to_string();
    rogue.write_all(&(hello.len() as u32).to_be_bytes()).unwrap();
    rogue.write_all(hello.as_bytes()).unwrap();
    rogue.write_all(&u32::MAX.to_be_bytes()).unwrap();
    rogue.set_read_timeout(Some(wait)).unwrap();
    let mut welcome_then_eof = Vec::new();
    let _ = rogue.read_to_end(&mut welcome_then_eof);
    assert!(String::from_utf8_lossy(&welcome_then_eof).contains("welcome"), "the rogue got its welcome, then EOF");
    let call = client.start("browser_tabs", json!({})).await.unwrap();
    let message = extension.next_of("call", wait);
    extension.answer(&message["id"], "still fine");
    assert_eq!(call.answer().await.unwrap().text, "still fine");

    // The port closes in the middle of a message while a call runs: the call is told, the
    // bridge exits cleanly and takes its socket with it.
    let call = client.start("browser_tabs", json!({})).await.unwrap();
    extension.next_of("call", wait);
    let mut cut = 100u32.to_ne_bytes().to_vec();
    cut.extend_from_slice(b"{\"type\":");
    extension.send_raw(&cut);
    extension.close_port();
    let reply = call.answer().await.unwrap();
    assert!(reply.is_error && reply.text.contains("may have run"), "{}", reply.text);
    let status = extension.wait(wait).expect("the bridge exits when the port closes");
    assert!(status.success(), "{status:?}");
    assert!(!socket.exists(), "the socket is removed");
    assert!(sandbox.bridge_log_text().contains("in the middle of a message"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_its_client_cancels_or_abandons_is_called_off_in_the_extension() {
    let sandbox = Sandbox::new().unwrap();
    let mut extension = FakeExtension::start(&sandbox.env(), ORIGIN, false);
    extension.hello();
    bridge_socket(&sandbox);
    let wait = Duration::from_secs(10);

    let client = McpClient::connect(&sandbox).await.unwrap();
    let call = client.start("browser_click", json!({"ref": "e1"})).await.unwrap();
    let id = extension.next_of("call", wait)["id"].clone();
    call.cancel().await.unwrap();
    assert_eq!(extension.next_of("cancel", wait)["id"], id, "MCP notifications/cancelled reaches the extension");

    // A client that goes away with a call in flight: its call is called off, then its session.
    let _pending = client.start("browser_type", json!({"ref": "e2", "text": "secret"})).await.unwrap();
    let id = extension.next_of("call", wait)["id"].clone();
    client.close().await.unwrap();
    assert_eq!(extension.next(wait), json!({"type": "cancel", "id": id}));
    assert_eq!(extension.next(wait)["type"], "session_closed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_the_extension_never_answers_is_called_off_and_answered() {
    let sandbox = Sandbox::new().unwrap();
    let mut extension = FakeExtension::start(&sandbox.env(), ORIGIN, false);
    extension.hello();
    bridge_socket(&sandbox);
    let client = McpClient::connect_with(&sandbox, &["--time-limit", "5"]).await.unwrap();
    let started = Instant::now();
    let call = client.start("browser_click", json!({"ref": "e1"})).await.unwrap();
    let message = extension.next_of("call", Duration::from_secs(10));
    assert_eq!(message["time_limit_ms"], 5_000);
    // The extension stays silent: past the limit and the bridge's 10 s grace, the bridge calls
    // it off and answers for it.
    assert_eq!(extension.next_of("cancel", Duration::from_secs(30))["id"], message["id"]);
    let reply = call.answer().await.unwrap();
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("called off") && reply.text.contains("may have run"), "{}", reply.text);
    assert!(started.elapsed() < Duration::from_secs(30), "answered within the limit and its grace");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_clients_on_two_profiles_each_drive_their_own_browser() {
    paths::require_artefacts();
    let _slots = sightline_harness::browser_slots(2).await.unwrap();
    let sandbox = Sandbox::new().unwrap();
    let (first, second) = (sandbox.profile(), sandbox.profile_named("second-profile").unwrap());
    sandbox.install_host_for(&first).unwrap();
    sandbox.install_host_for(&second).unwrap();
    let server = FixtureServer::start(paths::fixtures_dir()).unwrap();
    let wait = Duration::from_secs(60);

    let _first_browser = Chromium::launch_profile(&sandbox, &first, &["about:blank"]).unwrap();
    let on_first = McpClient::connect_with(&sandbox, &["--user-data-dir", first.to_str().unwrap()]).await.unwrap();
    on_first.wait_for_browser(wait).await.unwrap();
    let _second_browser = Chromium::launch_profile(&sandbox, &second, &["about:blank"]).unwrap();
    let on_second = McpClient::connect_with(&sandbox, &["--user-data-dir", second.to_str().unwrap()]).await.unwrap();
    on_second.wait_for_browser(wait).await.unwrap();
    assert_eq!(bridge_pids(&sandbox).len(), 2, "one bridge per browser");

    // At the same time, each client loads a page in its own browser.
    let (a, b) = tokio::join!(
        on_first.call("browser_navigate", json!({"url": server.url("shop.html")})),
        on_second.call("browser_navigate", json!({"url": server.url("second.html")})),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(!a.is_error && a.text.contains("# Tiny shop"), "{}", a.text);
    assert!(!b.is_error && b.text.contains("# Second page"), "{}", b.text);
    let tabs_first = on_first.ok("browser_tabs", json!({})).await;
    let tabs_second = on_second.ok("browser_tabs", json!({})).await;
    assert!(tabs_first.contains("Tiny shop") && !tabs_first.contains("Second page"), "{tabs_first}");
    assert!(tabs_second.contains("Second page") && !tabs_second.contains("Tiny shop"), "{tabs_second}");

    // A client that names no browser gets the bridge that has run longest: the first one. The
    // first client's session holds that browser's tab, so this session sees it by id alone.
    let tab_ids = |listing: &str| -> Vec<String> {
        let ids = listing.lines().filter_map(|line| line.strip_prefix("- tab ")?.split_whitespace().next());
        ids.map(str::to_owned).collect()
    };
    let unnamed = McpClient::connect(&sandbox).await.unwrap();
    let tabs = unnamed.ok("browser_tabs", json!({})).await;
    assert!(!tab_ids(&tabs).is_empty() && tab_ids(&tabs) == tab_ids(&tabs_first), "{tabs}\n{tabs_first}");
    assert!(tab_ids(&tabs_second).iter().all(|id| !tab_ids(&tabs).contains(id)), "{tabs}\n{tabs_second}");

    // A client that names a browser nobody runs is told which ones are there.
    let chrome = McpClient::connect_with(&sandbox, &["--browser", "chrome"]).await.unwrap();
    let reply = chrome.call("browser_tabs", json!({})).await.unwrap();
    assert!(reply.is_error && reply.text.contains("No browser matching `--browser chrome`"), "{}", reply.text);
    for profile in [&first, &second] {
        assert!(reply.text.contains(&format!("chromium with profile {}", profile.display())), "{}", reply.text);
    }
}
