//! Log setup. The bridge must never write anything but frames to stdout, and the MCP server
//! must never write anything but MCP to stdout, so logs go to a file or stderr.
//!
//! Logs name the pages an agent visits, so they are the user's alone: the bridge's log lives in
//! a per-user directory (`$XDG_STATE_HOME/sightline`, `~/.local/state/sightline`, or
//! `$TMPDIR/sightline-state-$UID`), created 0700 and refused if anyone else owns it; the file is
//! created 0600 and never followed through a symbolic link. On Windows it is
//! `%LOCALAPPDATA%\Sightline\logs`, inside the user's profile, which only the user can read.

use std::fs::OpenOptions;
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tracing_subscriber::EnvFilter;

/// The user's state directory for Sightline.
pub fn state_dir() -> PathBuf {
    crate::platform::state_dir(crate::platform::Os::CURRENT, &crate::platform::Env::current())
}

/// Opens `<dir>/<name>.log` for appending, creating the directory (0700) and file (0600) if
/// needed. Fails, saying why, when the directory or file is not the user's alone.
#[cfg(unix)]
pub fn open_private_log(dir: &Path, name: &str) -> std::io::Result<std::fs::File> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    let uid = crate::transport::socket::current_uid();
    if !meta.is_dir() || meta.uid() != uid {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} is not a directory of yours (owner uid {}); not logging there", dir.display(), meta.uid()),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    let path = dir.join(format!("{name}.log"));
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&path)?;
    let file_meta = file.metadata()?;
    if file_meta.uid() != uid {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} belongs to uid {}; not logging there", path.display(), file_meta.uid()),
        ));
    }
    if file_meta.mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Opens `<dir>/<name>.log` for appending, creating the directory if needed; both inherit the
/// user's profile's owner-only permissions.
#[cfg(windows)]
pub fn open_private_log(dir: &Path, name: &str) -> std::io::Result<std::fs::File> {
    std::fs::create_dir_all(dir)?;
    OpenOptions::new().create(true).append(true).open(dir.join(format!("{name}.log")))
}

/// Logs to `<state dir>/<name>.log`, or (saying why) to stderr when that cannot be made
/// private. The guard must live as long as the process logs.
pub fn to_file(name: &str) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let dir = state_dir();
    let file = match open_private_log(&dir, name) {
        Ok(file) => file,
        Err(e) => {
            to_stderr_at("info");
            tracing::warn!("logging to stderr: {e}");
            return None;
        }
    };
    let (writer, guard) = tracing_appender::non_blocking(file);
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(writer)
        .with_ansi(false)
        .init();
    Some(guard)
}

/// Logs to stderr (for the MCP server and the command-line tools).
pub fn to_stderr() {
    to_stderr_at("warn");
}

fn to_stderr_at(level: &str) {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new(level)))
        .with_writer(std::io::stderr)
        .init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_directory_and_file_are_private_even_when_loosened() {
        let base = std::env::temp_dir().join(format!("sl-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("sightline");
        drop(open_private_log(&dir, "bridge").unwrap());
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let file = dir.join("bridge.log");
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(open_private_log(&dir, "bridge").unwrap());
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn a_log_file_that_is_a_symbolic_link_is_not_followed() {
        let base = std::env::temp_dir().join(format!("sl-log-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("sightline");
        std::fs::create_dir_all(&dir).unwrap();
        let target = base.join("elsewhere");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("bridge.log")).unwrap();
        assert!(open_private_log(&dir, "bridge").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
