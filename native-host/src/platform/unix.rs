//! The bridge's transport on Linux and macOS: a Unix socket in the private socket directory.

use std::io;
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

/// The bridge's end of a connection.
pub type ServerStream = UnixStream;
/// A client's end of a connection.
pub type ClientStream = UnixStream;

/// A bound bridge socket.
pub struct Listener(UnixListener);

impl Listener {
    /// Binds the socket at `path` (replacing a stale one) and makes it private to its owner.
    pub fn bind(path: &Path) -> io::Result<Listener> {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path)?;
        make_socket_private(path)?;
        Ok(Listener(listener))
    }

    /// The next client to connect.
    pub async fn accept(&mut self) -> io::Result<ServerStream> {
        self.0.accept().await.map(|(stream, _)| stream)
    }
}

/// Restricts a freshly bound socket to its owner (the umask already did; this says it).
pub fn make_socket_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Connects to the bridge socket at `path`.
pub async fn connect(path: &Path) -> io::Result<ClientStream> {
    UnixStream::connect(path).await
}

/// Removes a socket nobody listens on any more (its bridge died without cleaning up), or the
/// bridge's own socket when it exits.
pub fn remove_stale(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Whatever umask it inherits, what the bridge creates (socket directory, socket, log) is
/// never open to others, not even for an instant.
pub fn restrict_umask() {
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
}

/// Resolves when the process is asked to terminate (SIGTERM).
pub fn terminated() -> io::Result<impl Future<Output = ()>> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        terminate.recv().await;
    })
}

/// The parent process's id.
pub fn parent_pid() -> Option<u32> {
    Some(rustix::process::getppid()?.as_raw_nonzero().get() as u32)
}

/// Whether `path` is a file its owner may run.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// This binary's absolute path with links resolved, as the manifest names it.
pub fn binary_path(exe: PathBuf) -> PathBuf {
    exe.canonicalize().unwrap_or(exe)
}

/// No registry here: browsers read the manifest's directory. Never called, since no registry
/// key is named off Windows.
pub fn register(key: &str, _manifest: &Path) -> io::Result<()> {
    Err(io::Error::other(format!("there is no registry on this system to write {key} to")))
}

/// No registry here: nothing to remove.
pub fn unregister(_key: &str) -> io::Result<bool> {
    Ok(false)
}

/// No registry here: nothing registered.
pub fn registered(_key: &str) -> io::Result<Option<PathBuf>> {
    Ok(None)
}
