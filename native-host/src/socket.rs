//! Where bridge sockets live, and why a client may trust one before sending it anything.
//!
//! The bridge (spawned by the browser) listens on `bridge-<pid>.sock` in the socket directory,
//! `$XDG_RUNTIME_DIR/sightline/` or, without it, `$TMPDIR/sightline-$UID/` (`/tmp/...`). In a
//! shared `/tmp` another local user can create that directory first and listen in it, so:
//!
//! * the bridge creates the directory 0700 and its socket 0600 (under a 077 umask, so not even
//!   for an instant more open), and refuses a directory that is not its own;
//! * a client (`sightline-host mcp`, `doctor`) checks, **before connecting**, that the directory
//!   and its parent cannot be changed by anyone else and that the socket file is the user's,
//!   then, **before writing a byte**, that the process listening runs as the user
//!   (`SO_PEERCRED`);
//! * the bridge checks every connecting process the same way.
//!
//! Every refusal is an [`Untrusted`] that names the path, says what is wrong and what to do.
//! This module never reads or writes a connection.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::UnixStream;

/// The current user's id.
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The directory holding bridge sockets for this user.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("sightline"),
        _ => std::env::temp_dir().join(format!("sightline-{}", current_uid())),
    }
}

/// The socket a bridge process with id `pid` listens on, in `dir`.
pub fn bridge_socket_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("bridge-{pid}.sock"))
}

/// Why a socket directory, socket or listening process is not trusted. Nothing is sent to it.
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
    /// The listener's credentials could not be read.
    #[error("refusing {}: cannot tell who listens on it ({message}). Nothing was sent.", .socket.display())]
    PeerUnknown {
        /// The socket.
        socket: PathBuf,
        /// Why not.
        message: String,
    },
}

/// Creates `dir` (mode 0700) if needed and checks that it is private to this user; tightens a
/// directory of this user's that became more open. For the bridge, which owns the directory.
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
pub fn make_socket_private(path: &Path) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Checks, without changing anything, that `dir` can hold only this user's sockets: a plain
/// directory owned by the user, closed to everyone else, in a parent nobody else can swap it
/// out of (owned by the user or root, and writable by others only if sticky, like `/tmp`).
/// `Ok(false)` when it does not exist (no bridge has run).
pub fn check_dir(dir: &Path) -> Result<bool, Untrusted> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(_) => return Err(Untrusted::NotADirectory { dir: dir.to_owned() }),
    };
    if !meta.is_dir() {
        return Err(Untrusted::NotADirectory { dir: dir.to_owned() });
    }
    let uid = current_uid();
    if meta.uid() != uid {
        return Err(Untrusted::DirOwner { dir: dir.to_owned(), owner: meta.uid(), uid });
    }
    if meta.mode() & 0o077 != 0 {
        return Err(Untrusted::DirMode { dir: dir.to_owned(), mode: meta.mode() & 0o7777 });
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty())
        && let Ok(parent_meta) = std::fs::metadata(parent)
    {
        let owner_ok = parent_meta.uid() == uid || parent_meta.uid() == 0;
        let mode = parent_meta.mode() & 0o7777;
        let others_write = mode & 0o022 != 0;
        let sticky = mode & 0o1000 != 0;
        if !owner_ok || (others_write && !sticky) {
            return Err(Untrusted::Parent {
                dir: dir.to_owned(),
                parent: parent.to_owned(),
                owner: parent_meta.uid(),
                mode,
            });
        }
    }
    Ok(true)
}

/// The bridge sockets in `dir` (which [`check_dir`] accepted), sorted by path. Socket files
/// of another user come back as errors, to be reported and never connected to.
pub fn bridge_sockets(dir: &Path) -> Vec<Result<PathBuf, Untrusted>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let uid = current_uid();
    let mut found: Vec<Result<PathBuf, Untrusted>> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("bridge-") && name.ends_with(".sock")
        })
        .filter_map(|e| {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).ok()?;
            Some(if meta.uid() == uid {
                Ok(path)
            } else {
                Err(Untrusted::SocketOwner { socket: path, owner: meta.uid(), uid })
            })
        })
        .collect();
    found.sort_by(|a, b| sort_key(a).cmp(sort_key(b)));
    found
}

fn sort_key(entry: &Result<PathBuf, Untrusted>) -> &Path {
    match entry {
        Ok(path) | Err(Untrusted::SocketOwner { socket: path, .. }) => path,
        Err(_) => Path::new(""),
    }
}

/// Fails unless the process listening at the other end of `stream` runs as this user. A client
/// calls it on `socket` right after connecting, before writing anything.
pub fn check_peer(stream: &UnixStream, socket: &Path) -> Result<(), Untrusted> {
    let uid = current_uid();
    match peer_uid(stream, socket)? {
        peer if peer == uid => Ok(()),
        peer => Err(Untrusted::PeerUid { socket: socket.to_owned(), peer, uid }),
    }
}

/// Fails unless the process that connected to the bridge's `socket` runs as this user. The
/// bridge calls it on every connection before reading anything.
pub fn check_client(stream: &UnixStream, socket: &Path) -> Result<(), Untrusted> {
    let uid = current_uid();
    match peer_uid(stream, socket)? {
        peer if peer == uid => Ok(()),
        peer => Err(Untrusted::ClientUid { socket: socket.to_owned(), peer, uid }),
    }
}

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
