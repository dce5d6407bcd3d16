//! Where bridge sockets live, and why a client may trust one before sending it anything.
//!
//! On Linux and macOS the bridge (spawned by the browser) listens on `bridge-<pid>.sock` in the
//! socket directory, `$XDG_RUNTIME_DIR/sightline/` or, without it, `$TMPDIR/sightline-$UID/`
//! (`/tmp/...` on Linux, the per-user `$TMPDIR` on macOS). In a shared `/tmp` another local
//! user can create that directory first and listen in it, so:
//!
//! * the bridge creates the directory 0700 and its socket 0600 (under a 077 umask, so not even
//!   for an instant more open), and refuses a directory that is not its own;
//! * a client (`sightline-host mcp`, `doctor`) checks, **before connecting**, that the directory
//!   and its parent cannot be changed by anyone else and that the socket file is the user's,
//!   then, **before writing a byte**, that the process listening runs as the user
//!   (`SO_PEERCRED` on Linux, `getpeereid` on macOS, both through tokio's `peer_cred`);
//! * the bridge checks every connecting process the same way.
//!
//! On Windows the endpoint is a named pipe, `\\.\pipe\sightline-<user>-bridge-<pid>`, created
//! as the first instance of its name and closed to remote clients; both ends compare the user
//! (SID) of the process at the other end with their own before a byte is read or written
//! ([`crate::platform::windows`]).
//!
//! The rules themselves are plain functions in [`crate::platform`]; this module applies them to
//! the file system. Every refusal is an [`Untrusted`] that names the path, says what is wrong
//! and what to do. This module never reads or writes a connection.

use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::{
    io,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
};

#[cfg(unix)]
use tokio::net::UnixStream;

pub use crate::platform::Untrusted;
#[cfg(unix)]
pub use crate::platform::unix::{ClientStream, Listener, ServerStream, connect, remove_stale};
#[cfg(windows)]
pub use crate::platform::windows::{
    ClientStream, Listener, ServerStream, bridge_sockets, check_client, check_dir, check_peer, connect,
    ensure_private_dir, remove_stale,
};
use crate::platform::{self, Env, Os};
#[cfg(unix)]
use crate::platform::{DirFacts, Side};

/// The directory holding bridge sockets for this user (the pipe namespace on Windows).
pub fn socket_dir() -> PathBuf {
    platform::bridge_dir(Os::CURRENT, &Env::current())
}

/// The socket (or pipe) a bridge process with id `pid` listens on, in `dir`.
pub fn bridge_socket_path(dir: &Path, pid: u32) -> PathBuf {
    platform::bridge_endpoint(Os::CURRENT, dir, &Env::current(), pid)
}

/// The current user's id.
#[cfg(unix)]
pub fn current_uid() -> u32 {
    platform::current_uid()
}

/// Creates `dir` (mode 0700) if needed and checks that it is private to this user; tightens a
/// directory of this user's that became more open. For the bridge, which owns the directory.
#[cfg(unix)]
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io::Error::new(e.kind(), format!("cannot create {}: {e}", dir.display()))),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::other(Untrusted::NotADirectory { dir: dir.to_owned() }));
    }
    if meta.uid() != current_uid() {
        let untrusted = Untrusted::DirOwner { dir: dir.to_owned(), owner: meta.uid(), uid: current_uid() };
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, untrusted));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(unix)]
fn facts(meta: &std::fs::Metadata) -> DirFacts {
    DirFacts { is_dir: meta.is_dir(), owner: meta.uid(), mode: meta.mode() }
}

/// Checks, without changing anything, that `dir` can hold only this user's sockets (the rule
/// is [`platform::check_socket_dir`]). `Ok(false)` when it does not exist (no bridge has run).
#[cfg(unix)]
pub fn check_dir(dir: &Path) -> Result<bool, Untrusted> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(_) => return Err(Untrusted::NotADirectory { dir: dir.to_owned() }),
    };
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    let parent_meta = parent.and_then(|p| std::fs::metadata(p).ok());
    let parent = parent.zip(parent_meta.as_ref().map(facts));
    platform::check_socket_dir(dir, facts(&meta), parent, current_uid())?;
    Ok(true)
}

/// The bridge sockets in `dir` (which [`check_dir`] accepted), sorted by path. Socket files
/// of another user come back as errors, to be reported and never connected to.
#[cfg(unix)]
pub fn bridge_sockets(dir: &Path) -> Vec<Result<PathBuf, Untrusted>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let uid = current_uid();
    let env = Env::current();
    let mut found: Vec<Result<PathBuf, Untrusted>> = entries
        .filter_map(Result::ok)
        .filter(|e| platform::is_bridge_endpoint(Os::CURRENT, &e.file_name().to_string_lossy(), &env))
        .filter_map(|e| {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).ok()?;
            Some(platform::check_socket_owner(&path, meta.uid(), uid).map(|()| path))
        })
        .collect();
    found.sort_by(|a, b| sort_key(a).cmp(sort_key(b)));
    found
}

/// The path an entry of a listing is about, to sort by.
#[cfg(unix)]
fn sort_key(entry: &Result<PathBuf, Untrusted>) -> &Path {
    match entry {
        Ok(path) | Err(Untrusted::SocketOwner { socket: path, .. }) => path,
        Err(_) => Path::new(""),
    }
}

/// Fails unless the process listening at the other end of `stream` runs as this user. A client
/// calls it on `socket` right after connecting, before writing anything.
#[cfg(unix)]
pub fn check_peer(stream: &UnixStream, socket: &Path) -> Result<(), Untrusted> {
    platform::check_socket_peer(socket, Side::Listener, peer_uid(stream, socket)?, current_uid())
}

/// Fails unless the process that connected to the bridge's `socket` runs as this user. The
/// bridge calls it on every connection before reading anything.
#[cfg(unix)]
pub fn check_client(stream: &UnixStream, socket: &Path) -> Result<(), Untrusted> {
    platform::check_socket_peer(socket, Side::Client, peer_uid(stream, socket)?, current_uid())
}

#[cfg(unix)]
fn peer_uid(stream: &UnixStream, socket: &Path) -> Result<u32, Untrusted> {
    stream
        .peer_cred()
        .map(|cred| cred.uid())
        .map_err(|e| Untrusted::PeerUnknown { socket: socket.to_owned(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("sl-sock-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn private_dir_is_created_with_mode_0700() {
        let base = Scratch::new("create");
        let dir = base.0.join("sightline");
        ensure_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        // A second call on a loosened directory tightens it again.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_missing_directory_means_no_bridge_and_a_private_one_is_trusted() {
        let base = Scratch::new("trusted");
        let dir = base.0.join("sightline");
        assert_eq!(check_dir(&dir), Ok(false));
        ensure_private_dir(&dir).unwrap();
        assert_eq!(check_dir(&dir), Ok(true));
    }

    #[test]
    fn an_open_directory_is_refused_with_its_mode_and_path() {
        let base = Scratch::new("open");
        let dir = base.0.join("sightline");
        ensure_private_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let refusal = check_dir(&dir).unwrap_err();
        assert_eq!(refusal, Untrusted::DirMode { dir: dir.clone(), mode: 0o777 });
        let text = refusal.to_string();
        assert!(text.contains(&dir.display().to_string()) && text.contains("0777"), "{text}");
    }

    #[test]
    fn a_symbolic_link_is_not_a_socket_directory() {
        let base = Scratch::new("symlink");
        let real = base.0.join("real");
        ensure_private_dir(&real).unwrap();
        let link = base.0.join("sightline");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(check_dir(&link), Err(Untrusted::NotADirectory { dir: link.clone() }));
        assert!(ensure_private_dir(&link).is_err(), "the bridge refuses it too");
    }

    #[test]
    fn a_directory_in_a_parent_others_can_write_is_refused() {
        let base = Scratch::new("parent");
        let dir = base.0.join("sightline");
        ensure_private_dir(&dir).unwrap();
        std::fs::set_permissions(&base.0, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(check_dir(&dir), Err(Untrusted::Parent { mode: 0o777, .. })), "{:?}", check_dir(&dir));
        // Sticky, like /tmp: others cannot rename what is ours.
        std::fs::set_permissions(&base.0, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(check_dir(&dir), Ok(true));
    }

    #[test]
    fn bridge_sockets_are_listed_by_path() {
        let base = Scratch::new("list");
        for name in ["bridge-20.sock", "bridge-3.sock", "other.sock"] {
            std::fs::write(base.0.join(name), b"").unwrap();
        }
        let listed: Vec<PathBuf> = bridge_sockets(&base.0).into_iter().map(Result::unwrap).collect();
        assert_eq!(listed, vec![base.0.join("bridge-20.sock"), base.0.join("bridge-3.sock")]);
    }
}
