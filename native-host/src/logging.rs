//! Log setup. The bridge must never write anything but frames to stdout, and the MCP server
//! must never write anything but MCP to stdout, so logs go to a file or stderr.

use std::path::PathBuf;

use tracing_subscriber::EnvFilter;

/// The user's state directory for Sightline (`$XDG_STATE_HOME/sightline`).
pub fn state_dir() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir)
        .join("sightline")
}

/// Logs to `<state dir>/<name>.log`. The guard must live as long as the process logs.
pub fn to_file(name: &str) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let dir = state_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let appender = tracing_appender::rolling::never(&dir, format!("{name}.log"));
    let (writer, guard) = tracing_appender::non_blocking(appender);
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(writer)
        .with_ansi(false)
        .init();
    Some(guard)
}

/// Logs to stderr (for the MCP server and the command-line tools).
pub fn to_stderr() {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        .init();
}
