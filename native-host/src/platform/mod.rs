//! Everything that differs between Linux, macOS and Windows, in one place.
//!
//! The answers (where a browser keeps its profile, where the native messaging manifest goes,
//! which registry key names it, where a bridge listens, whether a directory or a peer may be
//! trusted) are plain functions of an [`Os`] and an [`Env`] read once from the process
//! environment, so the unit tests on any system check the answers for all three. Only the
//! transport (a Unix socket or a named pipe), the registry and the peer's identity need the
//! real system; they are in [`unix`] and [`windows`].
//!
//! Sources for the paths and keys: Chromium's "native messaging host location" documentation
//! (user-level manifest in `<user data dir>/NativeMessagingHosts/` on Linux and macOS, a
//! `HKEY_CURRENT_USER\Software\<vendor>\NativeMessagingHosts\<host>` key whose default value
//! names the manifest on Windows) and Microsoft's Edge documentation. Brave and Vivaldi on
//! Windows read Google Chrome's key, not a key of their own.

use std::path::{Path, PathBuf};

pub mod browser;
mod untrusted;

pub use browser::{Browser, HOST_NAME, allowed_origin};
pub use untrusted::Untrusted;

#[cfg(unix)]
pub mod unix;
#[cfg(windows)]
pub mod windows;
#[cfg(windows)]
mod windows_sid;

/// The running system's transport, registry and file checks.
#[cfg(unix)]
pub use unix as system;
/// The running system's transport, registry and file checks.
#[cfg(windows)]
pub use windows as system;

/// An operating system Sightline knows how to install on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux (and other Unix systems that follow the XDG directories).
    Linux,
    /// macOS.
    Mac,
    /// Windows.
    Windows,
}

impl Os {
    /// The system this binary was built for.
    pub const CURRENT: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::Mac
    } else {
        Os::Linux
    };
}

/// What the per-system answers depend on. Empty variables count as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (Linux).
    pub xdg_config_home: Option<PathBuf>,
    /// `XDG_RUNTIME_DIR` (Linux, or whoever sets it).
    pub xdg_runtime_dir: Option<PathBuf>,
    /// `XDG_STATE_HOME` (Linux).
    pub xdg_state_home: Option<PathBuf>,
    /// The user's runtime directory that systemd-logind makes (`/run/user/$UID`), when it exists:
    /// where `XDG_RUNTIME_DIR` points in a login session, for a process started without it.
    pub login_runtime_dir: Option<PathBuf>,
    /// `LOCALAPPDATA` (Windows).
    pub local_app_data: Option<PathBuf>,
    /// The temporary directory: `$TMPDIR` or `/tmp` on Unix (per user on macOS), `%TEMP%` on
    /// Windows.
    pub temp_dir: PathBuf,
    /// The user's id (Unix; 0 on Windows).
    pub uid: u32,
    /// The user's login name (`USERNAME` on Windows, `USER` elsewhere).
    pub user: String,
}

impl Env {
    /// The environment of this process.
    pub fn current() -> Env {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let user = if cfg!(windows) { "USERNAME" } else { "USER" };
        Env {
            home: var("HOME"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            xdg_runtime_dir: var("XDG_RUNTIME_DIR"),
            xdg_state_home: var("XDG_STATE_HOME"),
            login_runtime_dir: Some(PathBuf::from(format!("/run/user/{}", current_uid())))
                .filter(|dir| cfg!(target_os = "linux") && dir.is_dir()),
            local_app_data: var("LOCALAPPDATA"),
            temp_dir: std::env::temp_dir(),
            uid: current_uid(),
            user: std::env::var(user).unwrap_or_default(),
        }
    }
}

/// The current user's id (0 on Windows, which has none).
pub fn current_uid() -> u32 {
    #[cfg(unix)]
    {
        rustix::process::getuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// `base` followed by the `/`-separated `relative`, with the separator of `os` (so Windows
/// answers read as Windows paths wherever they are computed).
fn under(os: Os, base: &Path, relative: &str) -> PathBuf {
    if os != Os::Windows {
        return base.join(relative);
    }
    let mut path = base.to_string_lossy().trim_end_matches(['\\', '/']).to_owned();
    for part in relative.split('/') {
        path.push('\\');
        path.push_str(part);
    }
    PathBuf::from(path)
}

/// The browser's default user data directory (its profile root).
pub fn profile_root(os: Os, browser: Browser, env: &Env) -> Option<PathBuf> {
    match os {
        Os::Linux => {
            let relative = match browser {
                Browser::Chrome => "google-chrome",
                Browser::Chromium => "chromium",
                Browser::Edge => "microsoft-edge",
                Browser::Brave => "BraveSoftware/Brave-Browser",
                Browser::Vivaldi => "vivaldi",
            };
            let home = env.home.as_ref()?;
            let config = env.xdg_config_home.clone().unwrap_or_else(|| home.join(".config"));
            Some(config.join(relative))
        }
        Os::Mac => {
            let relative = match browser {
                Browser::Chrome => "Library/Application Support/Google/Chrome",
                Browser::Chromium => "Library/Application Support/Chromium",
                Browser::Edge => "Library/Application Support/Microsoft Edge",
                Browser::Brave => "Library/Application Support/BraveSoftware/Brave-Browser",
                Browser::Vivaldi => "Library/Application Support/Vivaldi",
            };
            Some(env.home.as_ref()?.join(relative))
        }
        Os::Windows => {
            let relative = match browser {
                Browser::Chrome => "Google/Chrome/User Data",
                Browser::Chromium => "Chromium/User Data",
                Browser::Edge => "Microsoft/Edge/User Data",
                Browser::Brave => "BraveSoftware/Brave-Browser/User Data",
                Browser::Vivaldi => "Vivaldi/User Data",
            };
            Some(under(os, env.local_app_data.as_ref()?, relative))
        }
    }
}

/// The registry key (under `HKEY_CURRENT_USER`) whose default value names the manifest, on
/// Windows; `None` elsewhere, where the manifest's directory is what the browser reads.
pub fn registry_key(os: Os, browser: Browser) -> Option<String> {
    if os != Os::Windows {
        return None;
    }
    let vendor = match browser {
        // Brave and Vivaldi read Google Chrome's key.
        Browser::Chrome | Browser::Brave | Browser::Vivaldi => r"Google\Chrome",
        Browser::Chromium => "Chromium",
        Browser::Edge => r"Microsoft\Edge",
    };
    Some(format!(r"Software\{vendor}\NativeMessagingHosts\{HOST_NAME}"))
}

/// The registry key's full name, for messages.
pub fn registry_key_name(key: &str) -> String {
    format!(r"HKEY_CURRENT_USER\{key}")
}

/// The browsers that read the same registration as `browser` (itself included).
pub fn sharing_registration(os: Os, browser: Browser) -> Vec<Browser> {
    let key = registry_key(os, browser);
    if key.is_none() {
        return vec![browser];
    }
    Browser::ALL.into_iter().filter(|b| registry_key(os, *b) == key).collect()
}

/// Where the manifest for `browser` (or for the profile `user_data_dir`) goes. On Linux and
/// macOS it is inside the profile root, which is why a custom `--user-data-dir` gets its own;
/// on Windows it is one file per registry key under `%LOCALAPPDATA%\Sightline`, which the key
/// names (so it needs a browser).
pub fn manifest_path(os: Os, browser: Option<Browser>, user_data_dir: &Path, env: &Env) -> Option<PathBuf> {
    let file = format!("{HOST_NAME}.json");
    if os != Os::Windows {
        return Some(user_data_dir.join("NativeMessagingHosts").join(file));
    }
    let group = match browser? {
        Browser::Chrome | Browser::Brave | Browser::Vivaldi => "chrome",
        Browser::Chromium => "chromium",
        Browser::Edge => "edge",
    };
    Some(under(os, env.local_app_data.as_ref()?, &format!("Sightline/NativeMessagingHosts/{group}/{file}")))
}

/// Why `--user-data-dir` does not apply to `install`, `uninstall` and `doctor` on `os`, if it
/// does not.
pub fn user_data_dir_unsupported(os: Os) -> Option<&'static str> {
    (os == Os::Windows).then_some(
        "on Windows a browser finds native messaging hosts only in the registry \
         (HKEY_CURRENT_USER\\Software\\...\\NativeMessagingHosts), never in a profile directory: one registration \
         per browser serves every profile of it, --user-data-dir ones included. Register the browser instead: \
         `sightline-host install --browser chrome` (or chromium, edge, brave, vivaldi).",
    )
}

/// Where the bridges' endpoints are: the socket directory (`$XDG_RUNTIME_DIR/sightline`; without
/// that variable on Linux, `/run/user/$UID/sightline` when that runtime directory exists, since
/// some MCP clients start servers with only a few variables while the browser has them all; else
/// `$TMPDIR/sightline-$UID`, which on macOS is under the per-user `$TMPDIR`), or the pipe
/// namespace `\\.\pipe\` on Windows.
pub fn bridge_dir(os: Os, env: &Env) -> PathBuf {
    match (os, &env.xdg_runtime_dir, &env.login_runtime_dir) {
        (Os::Windows, ..) => PathBuf::from(r"\\.\pipe\"),
        (_, Some(dir), _) => dir.join("sightline"),
        (Os::Linux, None, Some(dir)) => dir.join("sightline"),
        _ => env.temp_dir.join(format!("sightline-{}", env.uid)),
    }
}

/// The user's part of a pipe name: lower case, letters, digits, `.`, `-` and `_` only.
fn pipe_user(env: &Env) -> String {
    let user: String = env
        .user
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .collect();
    if user.is_empty() { "user".to_owned() } else { user }
}

/// The prefix of this user's bridge pipe names (Windows).
fn pipe_prefix(env: &Env) -> String {
    format!("sightline-{}-bridge-", pipe_user(env))
}

/// The endpoint the bridge process `pid` listens on, in `dir` ([`bridge_dir`]).
pub fn bridge_endpoint(os: Os, dir: &Path, env: &Env, pid: u32) -> PathBuf {
    match os {
        Os::Windows => PathBuf::from(format!(r"\\.\pipe\{}{pid}", pipe_prefix(env))),
        _ => dir.join(format!("bridge-{pid}.sock")),
    }
}

/// Whether an entry named `name` in the bridge directory is one of this user's bridges.
pub fn is_bridge_endpoint(os: Os, name: &str, env: &Env) -> bool {
    match os {
        Os::Windows => name
            .to_lowercase()
            .strip_prefix(&pipe_prefix(env))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())),
        _ => name.starts_with("bridge-") && name.ends_with(".sock"),
    }
}

/// What a Unix socket directory's checks look at: the entry itself and its parent.
#[cfg_attr(windows, allow(dead_code, reason = "used on Unix, tested everywhere"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirFacts {
    /// A plain directory (not a symbolic link, not a file).
    pub is_dir: bool,
    /// Its owner's uid.
    pub owner: u32,
    /// Its mode bits.
    pub mode: u32,
}

/// Whether a socket directory with `facts`, in a parent with `parent` facts (when readable),
/// can hold only the sockets of user `uid`: a plain directory of the user's, closed to
/// everyone else, in a parent nobody else can swap it out of (owned by the user or root, and
/// writable by others only if sticky, like `/tmp`). The same rule on Linux and macOS.
#[cfg_attr(windows, allow(dead_code, reason = "used on Unix, tested everywhere"))]
pub fn check_socket_dir(
    dir: &Path,
    facts: DirFacts,
    parent: Option<(&Path, DirFacts)>,
    uid: u32,
) -> Result<(), Untrusted> {
    if !facts.is_dir {
        return Err(Untrusted::NotADirectory { dir: dir.to_owned() });
    }
    if facts.owner != uid {
        return Err(Untrusted::DirOwner { dir: dir.to_owned(), owner: facts.owner, uid });
    }
    if facts.mode & 0o077 != 0 {
        return Err(Untrusted::DirMode { dir: dir.to_owned(), mode: facts.mode & 0o7777 });
    }
    if let Some((parent, p)) = parent {
        let owner_ok = p.owner == uid || p.owner == 0;
        let mode = p.mode & 0o7777;
        let others_write = mode & 0o022 != 0;
        let sticky = mode & 0o1000 != 0;
        if !owner_ok || (others_write && !sticky) {
            return Err(Untrusted::Parent { dir: dir.to_owned(), parent: parent.to_owned(), owner: p.owner, mode });
        }
    }
    Ok(())
}

/// Whether a socket file owned by `owner` may be connected to by user `uid`.
#[cfg_attr(windows, allow(dead_code, reason = "used on Unix, tested everywhere"))]
pub fn check_socket_owner(socket: &Path, owner: u32, uid: u32) -> Result<(), Untrusted> {
    if owner == uid { Ok(()) } else { Err(Untrusted::SocketOwner { socket: socket.to_owned(), owner, uid }) }
}

/// Which end of a connection is being checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A client checks the bridge it connected to, before writing anything.
    Listener,
    /// The bridge checks a client that connected, before reading anything.
    Client,
}

/// Whether the process at the other end of `endpoint`, running as Windows user `peer` (a SID),
/// may be talked to by `user`: only the same user.
#[cfg_attr(not(windows), allow(dead_code, reason = "the rule is used on Windows and tested everywhere"))]
pub fn check_pipe_peer(endpoint: &Path, side: Side, peer: &str, user: &str) -> Result<(), Untrusted> {
    if peer.eq_ignore_ascii_case(user) {
        return Ok(());
    }
    let (pipe, peer, user) = (endpoint.to_owned(), peer.to_owned(), user.to_owned());
    Err(match side {
        Side::Listener => Untrusted::PipeServerUser { pipe, peer, user },
        Side::Client => Untrusted::PipeClientUser { pipe, peer, user },
    })
}

/// Whether the process at the other end of a Unix socket, running as `peer`, may be talked to
/// by user `uid`: only the same user.
#[cfg_attr(windows, allow(dead_code, reason = "used on Unix, tested everywhere"))]
pub fn check_socket_peer(socket: &Path, side: Side, peer: u32, uid: u32) -> Result<(), Untrusted> {
    if peer == uid {
        return Ok(());
    }
    let socket = socket.to_owned();
    Err(match side {
        Side::Listener => Untrusted::PeerUid { socket, peer, uid },
        Side::Client => Untrusted::ClientUid { socket, peer, uid },
    })
}

/// The per-user directory for logs: `$XDG_STATE_HOME/sightline`, `~/.local/state/sightline`,
/// or `$TMPDIR/sightline-state-$UID` on Linux and macOS; `%LOCALAPPDATA%\Sightline\logs` on
/// Windows (whose profile directory only the user can read).
pub fn state_dir(os: Os, env: &Env) -> PathBuf {
    if os == Os::Windows {
        return match &env.local_app_data {
            Some(dir) => under(os, dir, "Sightline/logs"),
            None => under(os, &env.temp_dir, "sightline-logs"),
        };
    }
    env.xdg_state_home
        .clone()
        .or_else(|| env.home.as_ref().map(|h| h.join(".local/state")))
        .map(|dir| dir.join("sightline"))
        .unwrap_or_else(|| env.temp_dir.join(format!("sightline-state-{}", env.uid)))
}

#[cfg(test)]
mod tests;
