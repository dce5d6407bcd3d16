//! The rules an upload path must pass, as plain functions of the path's text, the system's
//! [`Os`] and the user's directories ([`Homes`]), so the unit tests check the rules of Linux,
//! macOS and Windows on any system.
//!
//! Two kinds of rule. Those on the *text* the agent gave are checked before the file system is
//! touched: an absolute path, no `..`, and on Windows no UNC path (`\\server\share`, which
//! would make the system connect to that server and hand it the user's credentials) and no
//! device path (`\\?\`, `\\.\`, `NUL`, `COM1`, alternate data streams). Those on the *place*
//! are checked on the named path and again on the path it resolves to, since a link in an
//! ordinary folder may lead anywhere: nothing hidden (a name starting with `.` anywhere on the
//! path, and Windows' `AppData`), no browser profile, no key or password store, none of the
//! kernel's own trees.

use std::path::{Path, PathBuf};

use crate::platform::Browser;
use crate::platform::{self, Env, Os};

/// Why a path is not uploaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not an absolute path.
    NotAbsolute,
    /// A `..` component.
    ParentDir,
    /// A Windows UNC path: a file on another computer.
    Unc,
    /// A Windows device or namespace path, a reserved device name or a data stream.
    Device,
    /// A name starting with `.`, or a directory the system hides: the name, and whether it is
    /// the file's own.
    Hidden(String, bool),
    /// Inside a browser's profile (which browser).
    BrowserProfile(&'static str),
    /// Inside a key or password store (which).
    SecretStore(&'static str),
    /// A file named as a private key or a password database (its name).
    SecretFile(String),
    /// Under the system's own trees (which).
    System(&'static str),
}

impl Refusal {
    /// What is wrong with the path `quoted`, worded for the agent; `through_link` when the rule
    /// refused what the path resolves to, not the path as named.
    pub fn describe(&self, quoted: &str, through_link: bool) -> String {
        let place = match self {
            Refusal::NotAbsolute => return format!("{quoted} is not an absolute path; give the full path"),
            Refusal::ParentDir => return format!("{quoted} is refused: it contains `..`; give the path without it"),
            Refusal::Unc => {
                return format!(
                    "{quoted} is refused: it is a network (UNC) path, a file on another computer; Sightline uploads \
                     only files on this one"
                );
            }
            Refusal::Device => {
                return format!(
                    "{quoted} is refused: it is a device or namespace path (\\\\?\\, \\\\.\\, a reserved name such \
                     as NUL or COM1, or a data stream), not an ordinary file"
                );
            }
            Refusal::Hidden(name, true) => format!("hidden ({name})"),
            Refusal::Hidden(name, false) => format!("in a hidden directory ({name})"),
            Refusal::BrowserProfile(browser) => format!("inside {browser}'s profile, where logins are kept"),
            Refusal::SecretStore(store) => format!("inside {store}"),
            Refusal::SecretFile(name) => format!("named as a private key or a password database ({name})"),
            Refusal::System(tree) => format!("under {tree}, the system's own files"),
        };
        let what = if through_link { "it leads (through a link) to a file that is" } else { "the file is" };
        format!(
            "{quoted} is refused: {what} {place}. Sightline never uploads hidden files, browser profiles, key or \
             password stores or system files. If the user wants this file uploaded, ask them to copy it to an \
             ordinary folder and give that path"
        )
    }
}

/// The user's directories the rules place things by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Homes {
    /// The home directory (`HOME`; on Windows `USERPROFILE` when `HOME` is unset), the XDG
    /// config directory and `%LOCALAPPDATA%`, as the installer reads them.
    pub env: Env,
    /// `%APPDATA%` (Windows' roaming application data).
    pub app_data: Option<PathBuf>,
}

impl Homes {
    /// This process's directories.
    pub fn current() -> Homes {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let mut env = Env::current();
        if cfg!(windows) && env.home.is_none() {
            env.home = var("USERPROFILE");
        }
        Homes { env, app_data: var("APPDATA") }
    }

    /// The same directories with their links resolved (each one that exists), so a file found
    /// through its resolved path is placed as well as one named through the links.
    pub fn resolved(&self) -> Homes {
        let resolve = |dir: &Option<PathBuf>| dir.as_ref().map(|d| resolved_dir(d));
        let mut homes = self.clone();
        homes.env.home = resolve(&self.env.home);
        homes.env.xdg_config_home = resolve(&self.env.xdg_config_home);
        homes.env.local_app_data = resolve(&self.env.local_app_data);
        homes.app_data = resolve(&self.app_data);
        homes
    }
}

/// `dir` with its links resolved, in the plain form; as it is when it cannot be resolved.
fn resolved_dir(dir: &Path) -> PathBuf {
    let resolved = dir.canonicalize().ok().and_then(|d| d.to_str().map(str::to_owned));
    let plain = resolved.and_then(|d| if cfg!(windows) { plain_windows(&d).ok() } else { Some(d) });
    plain.map(PathBuf::from).unwrap_or_else(|| dir.to_owned())
}

/// A path's components as `os` compares names: without case on macOS and Windows (their usual
/// file systems ignore it), with the drive (`c:`) first on Windows. `None` when the path is not
/// absolute.
fn components(os: Os, text: &str) -> Option<Vec<String>> {
    match os {
        Os::Windows => {
            let bytes = text.as_bytes();
            let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
            if !drive || !matches!(bytes[2], b'\\' | b'/') {
                return None;
            }
            Some(text.split(['\\', '/']).filter(|c| !c.is_empty() && *c != ".").map(str::to_lowercase).collect())
        }
        Os::Linux | Os::Mac => {
            let rest = text.strip_prefix('/')?;
            let fold = |c: &str| if os == Os::Mac { c.to_lowercase() } else { c.to_owned() };
            Some(rest.split('/').filter(|c| !c.is_empty() && *c != ".").map(fold).collect())
        }
    }
}

/// The rules on the text the agent gave, checked before the file system is asked anything.
pub fn check_text(os: Os, text: &str) -> Result<(), Refusal> {
    if os == Os::Windows {
        let slashes = |t: &str| t.replace('/', "\\");
        let text = slashes(text);
        if ["\\\\?\\", "\\\\.\\", "\\??\\"].iter().any(|p| text.starts_with(p)) {
            return Err(Refusal::Device);
        }
        if text.starts_with("\\\\") {
            return Err(Refusal::Unc);
        }
    }
    let parts = components(os, text).ok_or(Refusal::NotAbsolute)?;
    if parts.iter().any(|c| c == "..") {
        return Err(Refusal::ParentDir);
    }
    if os == Os::Windows && parts.iter().skip(1).any(|c| is_windows_device(c)) {
        return Err(Refusal::Device);
    }
    Ok(())
}

/// Whether a Windows path component names a device (`NUL`, `con.txt`, `COM1`, `CONIN$`) or a
/// data stream (`report.pdf:hidden`, `report.pdf::$DATA`): Windows opens the device or the
/// stream, not a file of that name.
fn is_windows_device(component: &str) -> bool {
    if component.contains(':') {
        return true;
    }
    let stem = component.split('.').next().unwrap_or_default().trim_end_matches(' ').to_lowercase();
    let numbered = |prefix: &str| {
        stem.strip_prefix(prefix)
            .is_some_and(|n| matches!(n, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"))
    };
    matches!(stem.as_str(), "con" | "prn" | "aux" | "nul" | "conin$" | "conout$" | "clock$")
        || numbered("com")
        || numbered("lpt")
}

/// What a place is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Profile(&'static str),
    Store(&'static str),
    System(&'static str),
}

/// A directory no upload may come from.
#[derive(Debug, Clone)]
struct Place {
    parts: Vec<String>,
    kind: Kind,
}

/// Browsers' profile directories that are not the installer's five default ones: other
/// channels, other browsers, and snap packages, relative to a base directory.
struct More {
    base: Base,
    relative: &'static str,
    browser: &'static str,
}

/// Which user directory a relative place hangs from.
#[derive(Clone, Copy)]
enum Base {
    Home,
    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    Config,
    /// `~/Library/Application Support`.
    AppSupport,
    LocalAppData,
    AppData,
}

/// Every browser's profile directory beyond the installer's own ([`platform::profile_root`]).
const MORE_PROFILES: &[(Os, More)] = &[
    (Os::Linux, More { base: Base::Config, relative: "google-chrome-beta", browser: "Chrome" }),
    (Os::Linux, More { base: Base::Config, relative: "google-chrome-unstable", browser: "Chrome" }),
    (Os::Linux, More { base: Base::Config, relative: "microsoft-edge-beta", browser: "Edge" }),
    (Os::Linux, More { base: Base::Config, relative: "microsoft-edge-dev", browser: "Edge" }),
    (Os::Linux, More { base: Base::Config, relative: "BraveSoftware", browser: "Brave" }),
    (Os::Linux, More { base: Base::Config, relative: "vivaldi-snapshot", browser: "Vivaldi" }),
    (Os::Linux, More { base: Base::Config, relative: "opera", browser: "Opera" }),
    (Os::Linux, More { base: Base::Config, relative: "opera-beta", browser: "Opera" }),
    (Os::Linux, More { base: Base::Config, relative: "opera-developer", browser: "Opera" }),
    (Os::Linux, More { base: Base::Home, relative: ".mozilla", browser: "Firefox" }),
    (Os::Linux, More { base: Base::Home, relative: "snap/chromium", browser: "Chromium" }),
    (Os::Linux, More { base: Base::Home, relative: "snap/firefox", browser: "Firefox" }),
    (Os::Linux, More { base: Base::Home, relative: "snap/brave", browser: "Brave" }),
    (Os::Linux, More { base: Base::Home, relative: "snap/opera", browser: "Opera" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "Google", browser: "Chrome" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "Microsoft Edge Beta", browser: "Edge" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "Microsoft Edge Dev", browser: "Edge" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "Microsoft Edge Canary", browser: "Edge" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "BraveSoftware", browser: "Brave" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "Firefox", browser: "Firefox" }),
    (Os::Mac, More { base: Base::AppSupport, relative: "com.operasoftware.Opera", browser: "Opera" }),
    (Os::Mac, More { base: Base::Home, relative: "Library/Safari", browser: "Safari" }),
    (Os::Mac, More { base: Base::Home, relative: "Library/Containers/com.apple.Safari", browser: "Safari" }),
    (Os::Mac, More { base: Base::Home, relative: "Library/Cookies", browser: "Safari" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Google", browser: "Chrome" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Microsoft/Edge Beta", browser: "Edge" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Microsoft/Edge Dev", browser: "Edge" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Microsoft/Edge SxS", browser: "Edge" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "BraveSoftware", browser: "Brave" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Mozilla", browser: "Firefox" }),
    (Os::Windows, More { base: Base::AppData, relative: "Mozilla", browser: "Firefox" }),
    (Os::Windows, More { base: Base::LocalAppData, relative: "Opera Software", browser: "Opera" }),
    (Os::Windows, More { base: Base::AppData, relative: "Opera Software", browser: "Opera" }),
];

/// Key and password stores: where SSH, GnuPG, `pass`, the desktop keyring, the system's
/// keychain or credential vault, and the usual command-line tools keep keys and passwords.
const STORES: &[(Os, Base, &str, &str)] = &[
    (Os::Linux, Base::Home, ".ssh", "the SSH keys (~/.ssh)"),
    (Os::Linux, Base::Home, ".gnupg", "the GnuPG keyring (~/.gnupg)"),
    (Os::Linux, Base::Home, ".password-store", "the password store (~/.password-store)"),
    (Os::Linux, Base::Home, ".local/share/keyrings", "the desktop keyring (~/.local/share/keyrings)"),
    (Os::Linux, Base::Home, ".pki", "the certificate store (~/.pki)"),
    (Os::Linux, Base::Home, ".aws", "the AWS credentials (~/.aws)"),
    (Os::Linux, Base::Home, ".kube", "the Kubernetes credentials (~/.kube)"),
    (Os::Linux, Base::Home, ".docker", "the Docker credentials (~/.docker)"),
    (Os::Linux, Base::Config, "gcloud", "the Google Cloud credentials"),
    (Os::Mac, Base::Home, ".ssh", "the SSH keys (~/.ssh)"),
    (Os::Mac, Base::Home, ".gnupg", "the GnuPG keyring (~/.gnupg)"),
    (Os::Mac, Base::Home, ".password-store", "the password store (~/.password-store)"),
    (Os::Mac, Base::Home, ".aws", "the AWS credentials (~/.aws)"),
    (Os::Mac, Base::Home, "Library/Keychains", "the keychains (~/Library/Keychains)"),
    (Os::Mac, Base::Home, "Library/Application Support/1Password", "1Password's data"),
    (Os::Windows, Base::Home, ".ssh", "the SSH keys (%USERPROFILE%\\.ssh)"),
    (Os::Windows, Base::AppData, "gnupg", "the GnuPG keyring (%APPDATA%\\gnupg)"),
    (Os::Windows, Base::AppData, "Microsoft/Credentials", "Windows' credential store"),
    (Os::Windows, Base::LocalAppData, "Microsoft/Credentials", "Windows' credential store"),
    (Os::Windows, Base::AppData, "Microsoft/Protect", "Windows' data protection keys"),
    (Os::Windows, Base::AppData, "Microsoft/Crypto", "Windows' private keys"),
    (Os::Windows, Base::AppData, "Microsoft/SystemCertificates", "Windows' certificate store"),
    (Os::Windows, Base::AppData, "Microsoft/Vault", "Windows' credential vault"),
    (Os::Windows, Base::LocalAppData, "Microsoft/Vault", "Windows' credential vault"),
];

/// The kernel's and the system's own trees, by system.
const SYSTEM: &[(Os, &str)] = &[
    (Os::Linux, "/proc"),
    (Os::Linux, "/sys"),
    (Os::Linux, "/dev"),
    (Os::Mac, "/dev"),
    (Os::Mac, "/private/var/db"),
    (Os::Windows, "C:/Windows/System32/config"),
];

/// File names that are private keys or password databases wherever they are.
fn is_secret_file(name: &str) -> bool {
    let keys = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"];
    let lower = name.to_lowercase();
    keys.contains(&lower.as_str())
        || lower.ends_with(".kdbx")
        || lower.ends_with(".kdb")
        || lower.ends_with(".keychain-db")
}

/// Every place no upload may come from, for `os` and `homes`.
fn places(os: Os, homes: &Homes) -> Vec<Place> {
    let env = &homes.env;
    let config = env.xdg_config_home.clone().or_else(|| env.home.as_ref().map(|h| h.join(".config")));
    let base = |b: Base| -> Option<PathBuf> {
        match b {
            Base::Home => env.home.clone(),
            Base::Config if os == Os::Linux => config.clone(),
            Base::AppSupport if os == Os::Mac => env.home.as_ref().map(|h| h.join("Library/Application Support")),
            Base::LocalAppData if os == Os::Windows => env.local_app_data.clone(),
            Base::AppData if os == Os::Windows => homes.app_data.clone(),
            _ => None,
        }
    };
    let at = |dir: &Path, relative: &str| -> Option<Vec<String>> {
        let mut parts = components(os, &dir.to_string_lossy())?;
        parts.extend(components(Os::Linux, &format!("/{relative}"))?.into_iter().map(|c| fold(os, &c)));
        Some(parts)
    };
    let mut out = Vec::new();
    for browser in Browser::ALL {
        if let Some(root) = platform::profile_root(os, browser, env)
            && let Some(parts) = components(os, &root.to_string_lossy())
        {
            out.push(Place { parts, kind: Kind::Profile(browser_name(browser)) });
        }
    }
    for (_, more) in MORE_PROFILES.iter().filter(|(o, _)| *o == os) {
        if let Some(parts) = base(more.base).and_then(|dir| at(&dir, more.relative)) {
            out.push(Place { parts, kind: Kind::Profile(more.browser) });
        }
    }
    for (_, b, relative, store) in STORES.iter().filter(|(o, ..)| *o == os) {
        if let Some(parts) = base(*b).and_then(|dir| at(&dir, relative)) {
            out.push(Place { parts, kind: Kind::Store(store) });
        }
    }
    for (_, tree) in SYSTEM.iter().filter(|(o, _)| *o == os) {
        if let Some(parts) = components(os, tree) {
            out.push(Place { parts, kind: Kind::System(tree) });
        }
    }
    out
}

/// `component` as `os` compares names.
fn fold(os: Os, component: &str) -> String {
    if os == Os::Linux { component.to_owned() } else { component.to_lowercase() }
}

/// The browser's name, as a person knows it.
fn browser_name(browser: Browser) -> &'static str {
    match browser {
        Browser::Chrome => "Chrome",
        Browser::Chromium => "Chromium",
        Browser::Edge => "Edge",
        Browser::Brave => "Brave",
        Browser::Vivaldi => "Vivaldi",
    }
}

/// The rules on where the file is, for an absolute path (named or resolved): under none of the
/// places of any of `homes` (the user's directories as named and as resolved), not hidden, not
/// named as a key.
pub fn check_place(os: Os, text: &str, homes: &[&Homes]) -> Result<(), Refusal> {
    let parts = components(os, text).ok_or(Refusal::NotAbsolute)?;
    for homes in homes {
        for place in places(os, homes) {
            if parts.starts_with(&place.parts) {
                return Err(match place.kind {
                    Kind::Profile(browser) => Refusal::BrowserProfile(browser),
                    Kind::Store(store) => Refusal::SecretStore(store),
                    Kind::System(tree) => Refusal::System(tree),
                });
            }
        }
    }
    // Windows hides AppData (its ~/.config and ~/.local in one), whatever the drive or user.
    let hidden = |c: &str| c.starts_with('.') || (os == Os::Windows && c == "appdata");
    let separators: &[char] = if os == Os::Windows { &['/', '\\'] } else { &['/'] };
    let named: Vec<&str> = text.split(separators).filter(|c| !c.is_empty() && *c != ".").collect();
    if let Some(at) = named.iter().position(|c| hidden(&fold(os, c))) {
        return Err(Refusal::Hidden(named[at].to_owned(), at + 1 == named.len()));
    }
    match named.last() {
        Some(name) if is_secret_file(name) => Err(Refusal::SecretFile((*name).to_owned())),
        _ => Ok(()),
    }
}

/// A resolved Windows path in the form a browser takes (`C:\…`), from the extended form the
/// system resolves to (`\\?\C:\…`); a resolved network path is refused.
pub fn plain_windows(resolved: &str) -> Result<String, Refusal> {
    let Some(rest) = resolved.strip_prefix(r"\\?\") else { return Ok(resolved.to_owned()) };
    if rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(r"UNC\") {
        return Err(Refusal::Unc);
    }
    let bytes = rest.as_bytes();
    if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\' {
        return Ok(rest.to_owned());
    }
    // A volume GUID path or another namespace: nothing a browser can open as a file.
    Err(Refusal::Device)
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
