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

/// Why a socket directory, socket or listening process is not trusted. Nothing is sent to it.
#[cfg_attr(windows, allow(dead_code, reason = "the socket file checks are made on Unix only"))]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    /// The directory belongs to another user: they may have made it to receive your calls.
    #[error(
        "refusing the socket directory {}: it belongs to uid {owner}, not to you (uid {uid}), so another user may have \
         created it to receive your browser calls. Nothing was sent. Have it removed (`rm -rf {}` as its owner or \
         root), or set XDG_RUNTIME_DIR to a private directory for both the browser and your MCP client.",
        .dir.display(), .dir.display()
    )]
    DirOwner {
        /// The directory.
        dir: PathBuf,
        /// Its owner.
        owner: u32,
        /// This user.
        uid: u32,
    },
    /// The directory is open to other users, who could have put a socket in it.
    #[error(
        "refusing the socket directory {}: its mode is {mode:04o}, so other users can reach or change what is in it. \
         Nothing was sent. Remove it (`rm -rf {}`) and restart the browser; the bridge recreates it with mode 0700.",
        .dir.display(), .dir.display()
    )]
    DirMode {
        /// The directory.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The path is a symbolic link or not a directory.
    #[error(
        "refusing the socket directory {}: it is not a plain directory (a symbolic link or a file). Nothing was sent. \
         Remove it and restart the browser.",
        .dir.display()
    )]
    NotADirectory {
        /// The path.
        dir: PathBuf,
    },
    /// The directory's parent lets another user replace the directory.
    #[error(
        "refusing the socket directory {}: its parent {} belongs to uid {owner} with mode {mode:04o}, so another user \
         could replace it. Nothing was sent. Set XDG_RUNTIME_DIR to a private directory for both the browser and your \
         MCP client.",
        .dir.display(), .parent.display()
    )]
    Parent {
        /// The directory.
        dir: PathBuf,
        /// Its parent.
        parent: PathBuf,
        /// The parent's owner.
        owner: u32,
        /// The parent's permission bits.
        mode: u32,
    },
    /// A socket file that belongs to another user.
    #[error(
        "refusing {}: the socket belongs to uid {owner}, not to you (uid {uid}). Nothing was sent. Remove it.",
        .socket.display()
    )]
    SocketOwner {
        /// The socket.
        socket: PathBuf,
        /// Its owner.
        owner: u32,
        /// This user.
        uid: u32,
    },
    /// The process listening on a socket runs as another user.
    #[error(
        "refusing {}: the process listening on it runs as uid {peer}, not as you (uid {uid}), so it is not your \
         browser's bridge. Nothing was sent. Remove the socket and find out who put it there.",
        .socket.display()
    )]
    PeerUid {
        /// The socket.
        socket: PathBuf,
        /// The listener's uid.
        peer: u32,
        /// This user.
        uid: u32,
    },
    /// A process of another user connected to the bridge's socket.
    #[error(
        "refused a connection to {} from uid {peer}: only uid {uid} may use this bridge",
        .socket.display()
    )]
    ClientUid {
        /// The bridge's socket.
        socket: PathBuf,
        /// The client's uid.
        peer: u32,
        /// This user.
        uid: u32,
    },
    /// The process serving a named pipe runs as another Windows user.
    #[error(
        "refusing {}: the process serving it runs as {peer}, not as you ({user}), so it is not your browser's \
         bridge. Nothing was sent. Find out which program created that pipe.",
        .pipe.display()
    )]
    PipeServerUser {
        /// The pipe.
        pipe: PathBuf,
        /// The server's user (SID).
        peer: String,
        /// This user (SID).
        user: String,
    },
    /// A process of another Windows user connected to the bridge's pipe.
    #[error("refused a connection to {} from {peer}: only {user} may use this bridge", .pipe.display())]
    PipeClientUser {
        /// The bridge's pipe.
        pipe: PathBuf,
        /// The client's user (SID).
        peer: String,
        /// This user (SID).
        user: String,
    },
    /// The listener's credentials could not be read.
    #[error("refusing {}: cannot tell who listens on it ({message}). Nothing was sent.", .socket.display())]
    PeerUnknown {
        /// The socket.
        socket: PathBuf,
        /// Why not.
        message: String,
    },
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

/// Restricts a freshly bound socket to its owner (the umask already did; this says it).
#[cfg(unix)]
pub fn make_socket_private(path: &Path) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
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
