//! Where bridge sockets live, how they are kept private, and the framing spoken over them.
//!
//! Both modes of `sightline-host` use this one module: the bridge (spawned by the browser)
//! listens on `bridge-<pid>.sock`; `sightline-host mcp` and `doctor` find and connect to it.
//! The directory is `$XDG_RUNTIME_DIR/sightline/` (or `/tmp/sightline-$UID/`), mode 0700 and
//! owned by the user; each socket is mode 0600; every accepted peer must have the same uid.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixStream;

/// Largest frame either side accepts on a bridge socket.
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

/// The current user's id.
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The directory holding bridge sockets for this user.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("sightline"),
        _ => PathBuf::from(format!("/tmp/sightline-{}", current_uid())),
    }
}

/// The socket a bridge process with id `pid` listens on.
pub fn bridge_socket_path(pid: u32) -> PathBuf {
    socket_dir().join(format!("bridge-{pid}.sock"))
}

/// Creates `dir` (mode 0700) if needed and checks that it is private to this user.
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
        return Err(io::Error::other(format!("{} is not a directory; remove it", dir.display())));
    }
    if meta.uid() != current_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} belongs to uid {}, not to you (uid {}); remove it", dir.display(), meta.uid(), current_uid()),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Restricts a freshly bound socket to its owner.
pub fn make_socket_private(path: &Path) -> io::Result<()> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Fails unless the process at the other end of `stream` runs as this user.
pub fn check_peer(stream: &UnixStream) -> io::Result<()> {
    let cred = stream.peer_cred()?;
    if cred.uid() != current_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("refused a connection from uid {} (only uid {} may connect)", cred.uid(), current_uid()),
        ));
    }
    Ok(())
}

/// Bridge sockets present in the socket directory, newest first. Presence does not mean the
/// bridge is alive: connecting tells.
pub fn candidate_sockets() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(socket_dir()) else { return Vec::new() };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("bridge-") && name.ends_with(".sock")
        })
        .map(|e| {
            let modified = e.metadata().and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH);
            (modified, e.path())
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, path)| path).collect()
}

/// Reads one frame (u32 big-endian length, then JSON). `Ok(None)` on a clean EOF.
pub async fn read_frame<R: AsyncRead + Unpin, T: DeserializeOwned>(reader: &mut R) -> io::Result<Option<T>> {
    let len = match reader.read_u32().await {
        Ok(len) => len as usize,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    if len > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("frame of {len} bytes exceeds {MAX_FRAME}")));
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("malformed frame: {e}")))
}

/// Writes one frame and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin, T: Serialize>(writer: &mut W, message: &T) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    if body.len() > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {} bytes exceeds {MAX_FRAME}", body.len()),
        ));
    }
    writer.write_u32(body.len() as u32).await?;
    writer.write_all(&body).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_dir_is_created_with_mode_0700() {
        let base = std::env::temp_dir().join(format!("sl-sock-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let dir = base.join("sightline");
        ensure_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        // A second call on a loosened directory tightens it again.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[tokio::test]
    async fn frames_round_trip() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &serde_json::json!({"x": [1, 2]})).await.unwrap();
        let back: Option<serde_json::Value> = read_frame(&mut &buf[..]).await.unwrap();
        assert_eq!(back.unwrap(), serde_json::json!({"x": [1, 2]}));
    }

    #[tokio::test]
    async fn malformed_frames_are_invalid_data() {
        let mut buf = 3u32.to_be_bytes().to_vec();
        buf.extend_from_slice(b"{{{");
        let err = read_frame::<_, serde_json::Value>(&mut &buf[..]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
