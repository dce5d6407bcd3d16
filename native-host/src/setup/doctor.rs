//! `sightline-host doctor`: checks every link between an MCP client and the browser and
//! prints, for each broken one, the exact command or step that fixes it.
//!
//! When the extension is connected, a browser that has a profile here but no registration is
//! not the browser in use: that is a note (with the command that registers it too), not a
//! failure. A browser or profile named with `--browser` / `--user-data-dir` is always checked
//! strictly.

use std::path::{Path, PathBuf};

use super::install::{self, HostManifest, Target};
use crate::client::bridge_client;
use crate::platform::{self, Os, system};
use crate::transport::link::HOST_VERSION;
use crate::transport::socket;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// It works.
    Pass,
    /// Worth knowing, not broken.
    Note,
    /// Broken; `fix` says how to mend it.
    Fail,
}

/// One line of the report.
struct Check {
    status: Status,
    what: String,
    fix: Option<String>,
}

impl Check {
    fn pass(what: impl Into<String>) -> Self {
        Check { status: Status::Pass, what: what.into(), fix: None }
    }
    fn fail(what: impl Into<String>, fix: impl Into<String>) -> Self {
        Check { status: Status::Fail, what: what.into(), fix: Some(fix.into()) }
    }
    /// A failure that only matters for a browser other than the one in use.
    fn into_note(self) -> Self {
        Check { status: if self.status == Status::Fail { Status::Note } else { self.status }, ..self }
    }
}

/// Runs every check, prints the report, and returns whether all passed.
pub async fn run(targets: Vec<Target>, explicit: bool) -> bool {
    let mut checks = Vec::new();
    let binary = install::current_binary().ok();
    checks.push(check_binary(binary.as_deref()));
    let Bridges { checks: bridges, connected } = check_bridges(binary.as_deref()).await;
    for target in &targets {
        let check = check_manifest(target, binary.as_deref(), explicit);
        // The extension reached the host through some registration: an unregistered other
        // browser is not what is broken.
        checks.push(if connected && !explicit { check.into_note() } else { check });
    }
    checks.extend(bridges);

    println!("sightline-host {HOST_VERSION} doctor");
    for check in &checks {
        let label = match check.status {
            Status::Pass => "ok  ",
            Status::Note => "note",
            Status::Fail => "FAIL",
        };
        println!("{label} {}", check.what);
        if let Some(fix) = &check.fix {
            let how = if check.status == Status::Note { "to use that browser too" } else { "fix" };
            println!("     {how}: {fix}");
        }
    }
    let all_ok = checks.iter().all(|c| c.status != Status::Fail);
    if all_ok {
        println!("All is well: an MCP client running `sightline-host mcp` reaches the browser.");
    } else {
        println!("Something is broken: apply the fixes above, then run `sightline-host doctor` again.");
    }
    all_ok
}

/// What the bridge checks found.
struct Bridges {
    checks: Vec<Check>,
    /// An extension of this version is connected through a live bridge.
    connected: bool,
}

fn check_binary(binary: Option<&Path>) -> Check {
    match binary {
        Some(path) if is_executable(path) => Check::pass(format!("binary: {}", path.display())),
        Some(path) => Check::fail(
            format!("binary: {} is not executable", path.display()),
            if Os::CURRENT == Os::Windows {
                format!("rebuild or copy sightline-host to {}", path.display())
            } else {
                format!("chmod +x {}", path.display())
            },
        ),
        None => Check::fail("binary: cannot tell where sightline-host is", "run sightline-host by its absolute path"),
    }
}

fn is_executable(path: &Path) -> bool {
    system::is_executable(path)
}

fn install_command(target: &Target) -> String {
    match (target.browser, target.browser.and_then(|b| b.profile_root())) {
        (Some(b), Some(root)) if root == target.user_data_dir => {
            format!("sightline-host install --browser {}", b.name())
        }
        _ => format!("sightline-host install --user-data-dir {}", target.user_data_dir.display()),
    }
}

fn check_manifest(target: &Target, binary: Option<&Path>, explicit: bool) -> Check {
    let path = target.manifest_path();
    let label = format!("{} manifest {}", target.label(), path.display());
    let fix = install_command(target);
    if !target.user_data_dir.exists() && !explicit {
        return Check::pass(format!("{}: not installed, skipped", target.label()));
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Check::fail(format!("{label}: missing"), fix),
        Err(e) => return Check::fail(format!("{label}: unreadable ({e})"), fix),
    };
    let manifest: HostManifest = match serde_json::from_str(&text) {
        Ok(m) => m,
        Err(e) => return Check::fail(format!("{label}: not a valid manifest ({e})"), fix),
    };
    let origin = crate::platform::allowed_origin();
    if !manifest.allowed_origins.contains(&origin) {
        return Check::fail(format!("{label}: does not allow the Sightline extension ({origin})"), fix);
    }
    if !is_executable(&manifest.path) {
        return Check::fail(format!("{label}: names {} which is not an executable", manifest.path.display()), fix);
    }
    if let Some(binary) = binary
        && manifest.path != binary
    {
        return Check::fail(
            format!("{label}: names {}, not this binary ({})", manifest.path.display(), binary.display()),
            fix,
        );
    }
    if let Some(key) = &target.registry_key {
        return check_registry(target, key, &path, fix);
    }
    Check::pass(label)
}

/// On Windows: the browser reads the manifest only through its registry key.
fn check_registry(target: &Target, key: &str, manifest: &Path, fix: String) -> Check {
    let name = platform::registry_key_name(key);
    let label = format!("{} registry key {name}", target.label());
    match system::registered(key) {
        Ok(Some(path)) if path == manifest => Check::pass(format!("{label} → {}", manifest.display())),
        Ok(Some(path)) => {
            Check::fail(format!("{label}: names {}, not the manifest {}", path.display(), manifest.display()), fix)
        }
        Ok(None) => Check::fail(format!("{label}: missing, so the browser cannot find the manifest"), fix),
        Err(e) => Check::fail(format!("{label}: unreadable ({e})"), fix),
    }
}

async fn check_bridges(binary: Option<&Path>) -> Bridges {
    let mut checks = Vec::new();
    let mut connected = false;
    let dir = socket::socket_dir();
    let mut live = Vec::new();
    // Nothing is sent to a socket before its directory, file and listener are trusted.
    match socket::check_dir(&dir) {
        Ok(true) => {
            checks.push(Check::pass(if Os::CURRENT == Os::Windows {
                format!("bridges are named pipes in {}, each checked to run as you", dir.display())
            } else {
                format!("socket directory {} is private", dir.display())
            }));
            for entry in socket::bridge_sockets(&dir) {
                let path = match entry {
                    Ok(path) => path,
                    Err(untrusted) => {
                        checks.push(Check::fail(untrusted.to_string(), "remove that socket"));
                        continue;
                    }
                };
                match bridge_client::handshake(&path, None).await {
                    Ok((_, greeting)) => live.push(greeting),
                    Err(error @ bridge_client::ConnectError::Untrusted(_)) => {
                        checks.push(Check::fail(error.to_string(), "remove that socket"))
                    }
                    Err(error) => {
                        checks.push(Check::fail(format!("bridge {}: {error}", path.display()), "restart the browser"))
                    }
                }
            }
        }
        Ok(false) => {}
        Err(untrusted) => {
            let fix = match untrusted {
                socket::Untrusted::DirMode { .. } | socket::Untrusted::NotADirectory { .. } => {
                    format!("rm -rf {} (the bridge recreates it)", dir.display())
                }
                _ => "have it removed by its owner or root, or set XDG_RUNTIME_DIR to a private directory for both \
                      the browser and your MCP client"
                    .to_owned(),
            };
            checks.push(Check::fail(untrusted.to_string(), fix));
        }
    }
    if live.is_empty() {
        checks.push(Check::fail(
            "extension connected: no browser has started the bridge (no live socket in ".to_owned()
                + &dir.display().to_string()
                + ")",
            format!(
                "open the browser with the Sightline extension loaded (chrome://extensions → Developer mode → Load \
                 unpacked → {}); if it is loaded, click its reload button",
                extension_dir(binary).display()
            ),
        ));
    }
    for greeting in live {
        let at = match &greeting.browser {
            Some(browser) => format!("bridge pid {} ({}) for {browser}", greeting.pid, greeting.socket.display()),
            None => format!("bridge pid {} ({})", greeting.pid, greeting.socket.display()),
        };
        match greeting.extension {
            Some(ext) if ext.version == HOST_VERSION => {
                connected = true;
                checks.push(Check::pass(format!(
                    "extension connected: version {} via {at}; {}",
                    ext.version, ext.browser
                )))
            }
            Some(ext) => checks.push(Check::fail(
                format!("extension connected via {at} but it is version {}, this host is {HOST_VERSION}", ext.version),
                "rebuild with `cargo xtask build`, reload the extension, and rerun `sightline-host install`",
            )),
            None => checks.push(Check::fail(
                format!("{at} is up but the extension has not said hello"),
                "reload the Sightline extension in chrome://extensions",
            )),
        }
    }
    Bridges { checks, connected }
}

/// Where the unpacked extension most likely is: beside the binary's build directory.
fn extension_dir(binary: Option<&Path>) -> PathBuf {
    binary
        .and_then(|b| b.parent()?.parent().map(|target| target.join("extension")))
        .filter(|dir| dir.join("manifest.json").exists())
        .unwrap_or_else(|| PathBuf::from("target/extension"))
}
