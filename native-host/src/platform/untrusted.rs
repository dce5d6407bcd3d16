//! Why a socket directory, a socket or the process at the other end of a connection is not
//! trusted: the verdicts of the trust rules in [`super`], each naming the path, what is wrong
//! and what to do.

use std::path::PathBuf;

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
