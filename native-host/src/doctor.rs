//! `sightline-host doctor`: checks every link between an MCP client and the browser and
//! prints, for each broken one, the exact command or step that fixes it.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::install::{self, HostManifest, Target};
use crate::link::HOST_VERSION;
use crate::{bridge_client, socket};

/// One line of the report.
struct Check {
    ok: bool,
    what: String,
    fix: Option<String>,
}

impl Check {
    fn pass(what: impl Into<String>) -> Self {
        Check { ok: true, what: what.into(), fix: None }
    }
    fn fail(what: impl Into<String>, fix: impl Into<String>) -> Self {
        Check { ok: false, what: what.into(), fix: Some(fix.into()) }
    }
}

/// Runs every check, prints the report, and returns whether all passed.
pub async fn run(targets: Vec<Target>, explicit: bool) -> bool {
    let mut checks = Vec::new();
    let binary = install::current_binary().ok();
    checks.push(check_binary(binary.as_deref()));
    for target in &targets {
        checks.push(check_manifest(target, binary.as_deref(), explicit));
    }
    checks.extend(check_bridges(binary.as_deref()).await);

    println!("sightline-host {HOST_VERSION} doctor");
    for check in &checks {
        println!("{} {}", if check.ok { "ok  " } else { "FAIL" }, check.what);
        if let Some(fix) = &check.fix {
            println!("     fix: {fix}");
        }
    }
    let all_ok = checks.iter().all(|c| c.ok);
    if all_ok {
        println!("All is well: an MCP client running `sightline-host mcp` reaches the browser.");
    } else {
        println!("Something is broken: apply the fixes above, then run `sightline-host doctor` again.");
    }
    all_ok
}

fn check_binary(binary: Option<&Path>) -> Check {
    match binary {
        Some(path) if is_executable(path) => Check::pass(format!("binary: {}", path.display())),
        Some(path) => {
            Check::fail(format!("binary: {} is not executable", path.display()), format!("chmod +x {}", path.display()))
        }
        None => Check::fail("binary: cannot tell where sightline-host is", "run sightline-host by its absolute path"),
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
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
    let origin = crate::bridge::allowed_origin();
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
    Check::pass(label)
}

async fn check_bridges(binary: Option<&Path>) -> Vec<Check> {
    let mut checks = Vec::new();
    let dir = socket::socket_dir();
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.uid() == socket::current_uid() && meta.mode() & 0o077 == 0 => {
            checks.push(Check::pass(format!("socket directory {} is private", dir.display())))
        }
        Ok(_) => checks.push(Check::fail(
            format!("socket directory {} is not private to you", dir.display()),
            format!("rm -rf {} (the bridge recreates it)", dir.display()),
        )),
        Err(_) => {}
    }
    let mut live = Vec::new();
    for path in socket::candidate_sockets() {
        match bridge_client::handshake(&path, None).await {
            Ok((_, greeting)) => live.push(greeting),
            Err(error) => {
                checks.push(Check::fail(format!("bridge {}: {error}", path.display()), "restart the browser"))
            }
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
        let at = format!("bridge pid {} ({})", greeting.pid, greeting.socket.display());
        match greeting.extension {
            Some(ext) if ext.version == HOST_VERSION => checks
                .push(Check::pass(format!("extension connected: version {} via {at}; {}", ext.version, ext.browser))),
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
    checks
}

/// Where the unpacked extension most likely is: beside the binary's build directory.
fn extension_dir(binary: Option<&Path>) -> PathBuf {
    binary
        .and_then(|b| b.parent()?.parent().map(|target| target.join("extension")))
        .filter(|dir| dir.join("manifest.json").exists())
        .unwrap_or_else(|| PathBuf::from("target/extension"))
}
