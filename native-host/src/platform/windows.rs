//! The bridge's transport, registration and checks on Windows.
//!
//! A bridge listens on the named pipe `\\.\pipe\sightline-<user>-bridge-<pid>`: created as the
//! first instance of that name (so the bridge fails rather than join a pipe somebody else
//! created), closed to remote clients, with the default security of a named pipe (only its
//! creator, administrators and the system may create instances of it). Both ends then compare
//! the user the other end's process runs as with their own, before the first byte is read or
//! written. Bridges are found by listing `\\.\pipe\`.
//!
//! Browsers find native hosts on Windows only through the registry: `install` writes the
//! manifest under `%LOCALAPPDATA%\Sightline\` and sets the default value of the browser's
//! `HKEY_CURRENT_USER\...\NativeMessagingHosts\dev.sightline.host` key to its path.

use std::io;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeClient, NamedPipeServer, ServerOptions};

use super::{Env, Os, Side, Untrusted, windows_sid};

/// The bridge's end of a connection.
pub type ServerStream = NamedPipeServer;
/// A client's end of a connection.
pub type ClientStream = NamedPipeClient;

/// `ERROR_PIPE_BUSY`: every instance of the pipe is serving a client.
const ERROR_PIPE_BUSY: i32 = 231;

/// A bridge's pipe, with the instance the next client will reach.
pub struct Listener {
    path: PathBuf,
    next: NamedPipeServer,
}

impl Listener {
    /// Creates the pipe `path`; fails if an instance of that name exists already.
    pub fn bind(path: &Path) -> io::Result<Listener> {
        let next = ServerOptions::new().first_pipe_instance(true).reject_remote_clients(true).create(path)?;
        Ok(Listener { path: path.to_owned(), next })
    }

    /// The next client to connect; a fresh instance is ready for the one after (also when
    /// this one failed, so a failure is not repeated forever).
    pub async fn accept(&mut self) -> io::Result<ServerStream> {
        let connected = self.next.connect().await;
        let fresh = ServerOptions::new().reject_remote_clients(true).create(&self.path)?;
        let current = std::mem::replace(&mut self.next, fresh);
        connected.map(|()| current)
    }
}

/// Connects to the bridge pipe at `path`, waiting while all its instances are busy. A pipe
/// that no longer exists is reported as refused (its bridge is gone).
pub async fn connect(path: &Path) -> io::Result<ClientStream> {
    loop {
        match ClientOptions::new().open(path) {
            Ok(client) => return Ok(client),
            Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(io::ErrorKind::ConnectionRefused.into()),
            Err(e) => return Err(e),
        }
    }
}

/// A pipe disappears with its last handle: nothing is left to remove.
pub fn remove_stale(_path: &Path) {}

/// The pipe namespace needs no directory.
pub fn ensure_private_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// The pipe namespace has no directory to trust: every pipe's server is checked instead.
pub fn check_dir(_dir: &Path) -> Result<bool, Untrusted> {
    Ok(true)
}

/// This user's bridge pipes, sorted by name. Pipes of the same name pattern that another user
/// created are refused when connected to ([`check_peer`]).
pub fn bridge_sockets(dir: &Path) -> Vec<Result<PathBuf, Untrusted>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let env = Env::current();
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| super::is_bridge_endpoint(Os::Windows, name, &env))
        .map(|name| PathBuf::from(format!(r"\\.\pipe\{name}")))
        .collect();
    found.sort();
    found.into_iter().map(Ok).collect()
}

fn current_user(pipe: &Path) -> Result<String, Untrusted> {
    windows_sid::process_user(std::process::id()).map_err(|e| unknown(pipe, e))
}

fn unknown(pipe: &Path, e: io::Error) -> Untrusted {
    Untrusted::PeerUnknown { socket: pipe.to_owned(), message: e.to_string() }
}

/// Fails unless the process serving the pipe runs as this user. A client calls it right after
/// connecting, before writing anything.
pub fn check_peer(stream: &ClientStream, pipe: &Path) -> Result<(), Untrusted> {
    let pid = windows_sid::pipe_server_pid(stream.as_raw_handle()).map_err(|e| unknown(pipe, e))?;
    let peer = windows_sid::process_user(pid).map_err(|e| unknown(pipe, e))?;
    super::check_pipe_peer(pipe, Side::Listener, &peer, &current_user(pipe)?)
}

/// Fails unless the process that connected to the bridge's pipe runs as this user. The bridge
/// calls it on every connection before reading anything.
pub fn check_client(stream: &ServerStream, pipe: &Path) -> Result<(), Untrusted> {
    let pid = windows_sid::pipe_client_pid(stream.as_raw_handle()).map_err(|e| unknown(pipe, e))?;
    let peer = windows_sid::process_user(pid).map_err(|e| unknown(pipe, e))?;
    super::check_pipe_peer(pipe, Side::Client, &peer, &current_user(pipe)?)
}

/// Nothing to restrict: files the bridge creates under the user's profile inherit its
/// owner-only permissions.
pub fn restrict_umask() {}

/// Resolves when the console asks the process to stop (Ctrl+C, Ctrl+Break or closing).
pub fn terminated() -> io::Result<impl Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// Unknown: the bridge's parent on Windows is the shell the browser starts it through.
pub fn parent_pid() -> Option<u32> {
    None
}

/// Whether `path` is a file (Windows runs any file the manifest names by its extension).
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).map(|m| m.is_file()).unwrap_or(false)
}

/// This binary's absolute path as the manifest names it: not canonicalized, which would give a
/// `\\?\` path that browsers do not expect.
pub fn binary_path(exe: PathBuf) -> PathBuf {
    exe
}

/// Sets the default value of `HKEY_CURRENT_USER\<key>` to `manifest`.
pub fn register(key: &str, manifest: &Path) -> io::Result<()> {
    let key = windows_registry::CURRENT_USER.create(key).map_err(io::Error::other)?;
    key.set_string("", manifest.to_string_lossy()).map_err(io::Error::other)
}

/// Removes `HKEY_CURRENT_USER\<key>`; whether it was there.
pub fn unregister(key: &str) -> io::Result<bool> {
    if windows_registry::CURRENT_USER.open(key).is_err() {
        return Ok(false);
    }
    windows_registry::CURRENT_USER.remove_tree(key).map_err(io::Error::other)?;
    Ok(true)
}

/// The manifest path `HKEY_CURRENT_USER\<key>` names, if the key exists.
pub fn registered(key: &str) -> io::Result<Option<PathBuf>> {
    let Ok(key) = windows_registry::CURRENT_USER.open(key) else { return Ok(None) };
    key.get_string("").map(|value| Some(PathBuf::from(value))).map_err(io::Error::other)
}
