//! `cargo xtask dist`: the release packages a person downloads, in `target/dist/`.
//!
//! * `sightline-extension-<version>.zip`: the extension for the Chrome Web Store, whose manifest
//!   has no development `key` (the store assigns the id);
//! * `sightline-extension-<version>/`: the same extension unpacked, with the `key`, so "Load
//!   unpacked" gives the id the host's manifest allows;
//! * `sightline-host-<version>-<target>.tar.gz` (`.zip` for Windows) per host target: the binary,
//!   `INSTALL.md`, `LICENSE` and `CHANGELOG.md` in one top-level folder;
//! * `SHA256SUMS` over every archive, in the format `sha256sum -c` reads;
//! * `INSTALL.md`, the same install steps as in each archive.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use sha2::Digest;

use crate::build::{Built, cargo, copy_tree, workspace_root};

/// The version every package carries (the workspace's).
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What `dist` wrote.
#[derive(Debug)]
pub struct Packages {
    /// Where they were written (`target/dist/` for `cargo xtask dist`).
    pub dir: PathBuf,
    /// Every file and folder written, relative to `dir`.
    pub written: Vec<String>,
}

/// Builds the host for each of `targets` (besides the machine's own, which `built` has) and writes
/// the packages of `built` to `dir`, fresh.
pub fn run_dist(built: &Built, targets: &[String], dir: &Path) -> anyhow::Result<Packages> {
    let dir = dir.to_path_buf();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    let mut written = Vec::new();
    let mut archives = Vec::new();

    let unpacked = format!("sightline-extension-{VERSION}");
    copy_tree(&built.extension_dir, &dir.join(&unpacked), &|_| true)?;
    written.push(format!("{unpacked}/"));
    let store_zip = format!("sightline-extension-{VERSION}.zip");
    write_store_zip(&built.extension_dir, &dir.join(&store_zip))?;
    archives.push(store_zip.clone());

    let install = install_text();
    std::fs::write(dir.join("INSTALL.md"), &install)?;
    let own = host_triple()?;
    let mut host = vec![(own.clone(), built.host_binary.clone())];
    for target in targets.iter().filter(|t| **t != own) {
        host.push((target.clone(), build_host(target)?));
    }
    for (target, binary) in host {
        archives.push(write_host_archive(&dir, &target, &binary, &install)?);
    }

    let mut sums = String::new();
    for name in &archives {
        let digest = sha2::Sha256::digest(std::fs::read(dir.join(name))?);
        sums.push_str(&format!("{}  {name}\n", hex(&digest)));
    }
    std::fs::write(dir.join("SHA256SUMS"), sums)?;
    written.extend(archives);
    written.push("SHA256SUMS".into());
    written.push("INSTALL.md".into());
    Ok(Packages { dir, written })
}

/// The target triple the host binary of `cargo xtask build` is for (this machine's).
fn host_triple() -> anyhow::Result<String> {
    let out = Command::new("rustc").arg("-vV").output().context("running rustc -vV")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV did not say its host triple")
}

/// Builds the host for `target`, naming what to install when the linker is missing.
fn build_host(target: &str) -> anyhow::Result<PathBuf> {
    let root = workspace_root();
    let status = cargo()
        .current_dir(&root)
        .args(["build", "--release", "--package", "sightline-host", "--target", target])
        .status()
        .context("running cargo build")?;
    if !status.success() {
        let hint = if target.contains("windows-gnu") {
            "this target links with MinGW: `apt-get install gcc-mingw-w64-x86-64` and `rustup target add x86_64-pc-windows-gnu`"
        } else if target.contains("apple") {
            "macOS binaries link against Apple's SDK: build them on a Mac (`cargo xtask dist --target <triple>` there)"
        } else {
            "add the target with `rustup target add <triple>` and install its linker"
        };
        bail!("building sightline-host for {target} failed; {hint}");
    }
    let exe = if target.contains("windows") { "sightline-host.exe" } else { "sightline-host" };
    Ok(root.join("target").join(target).join("release").join(exe))
}

/// Writes the host archive for `target`; returns its file name.
fn write_host_archive(dir: &Path, target: &str, binary: &Path, install: &str) -> anyhow::Result<String> {
    let folder = format!("sightline-host-{VERSION}-{target}");
    let root = workspace_root();
    let exe = binary.file_name().and_then(|n| n.to_str()).unwrap_or("sightline-host").to_owned();
    let files: Vec<(String, Vec<u8>, u32)> = vec![
        (exe, std::fs::read(binary).with_context(|| format!("reading {}", binary.display()))?, 0o755),
        ("INSTALL.md".into(), install.as_bytes().to_vec(), 0o644),
        ("LICENSE".into(), std::fs::read(root.join("LICENSE"))?, 0o644),
        ("CHANGELOG.md".into(), std::fs::read(root.join("CHANGELOG.md"))?, 0o644),
    ];
    if target.contains("windows") {
        let name = format!("{folder}.zip");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join(&name))?);
        for (file, bytes, mode) in files {
            let options = zip::write::SimpleFileOptions::default().unix_permissions(mode);
            zip.start_file(format!("{folder}/{file}"), options)?;
            zip.write_all(&bytes)?;
        }
        zip.finish()?;
        return Ok(name);
    }
    let name = format!("{folder}.tar.gz");
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(dir.join(&name))?, flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    for (file, bytes, mode) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(mode);
        header.set_mtime(0);
        header.set_cksum();
        tar.append_data(&mut header, format!("{folder}/{file}"), bytes.as_slice())?;
    }
    tar.into_inner()?.finish()?;
    Ok(name)
}

/// Zips the extension for the store: every file, with the manifest's `key` removed.
fn write_store_zip(extension: &Path, out: &Path) -> anyhow::Result<()> {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(out)?);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut files = Vec::new();
    list_files(extension, extension, &mut files)?;
    files.sort();
    for relative in files {
        let path = extension.join(&relative);
        let bytes = if relative == "manifest.json" {
            let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            if let Some(fields) = manifest.as_object_mut() {
                fields.remove("key");
            }
            let mut text = serde_json::to_string_pretty(&manifest)?;
            text.push('\n');
            text.into_bytes()
        } else {
            std::fs::read(&path)?
        };
        zip.start_file(relative, options)?;
        zip.write_all(&bytes)?;
    }
    zip.finish()?;
    Ok(())
}

/// Every file under `dir`, as `/`-separated paths relative to `base`.
fn list_files(base: &Path, dir: &Path, out: &mut Vec<String>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            list_files(base, &path, out)?;
        } else if let Ok(relative) = path.strip_prefix(base) {
            out.push(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `INSTALL.md`: the steps from download to a connected agent.
fn install_text() -> String {
    format!(
        r#"# Installing Sightline {VERSION}

Sightline has two parts: a browser extension and a small native program, `sightline-host`, that
connects the extension to your MCP client (Claude Code, Claude Desktop, Cursor, VS Code, …).
Check a download with `sha256sum -c SHA256SUMS` (macOS: `shasum -a 256 -c SHA256SUMS`).

## 1. The extension

Open `chrome://extensions` (Edge: `edge://extensions`, Brave: `brave://extensions`), turn on
**Developer mode**, click **Load unpacked** and pick the folder `sightline-extension-{VERSION}`.
Its id is `{id}`, the one `sightline-host` accepts.

## 2. The host

Unpack `sightline-host-{VERSION}-<your platform>` somewhere it can stay (the browser starts the
binary from there), then register it with your browsers and check every link:

```sh
./sightline-host install     # every Chrome, Chromium, Edge, Brave and Vivaldi profile found
./sightline-host doctor      # says what is missing and the exact fix, or that all is well
```

`install --browser chrome` registers one browser; `install --user-data-dir DIR` a browser started
with `--user-data-dir=DIR`. `uninstall` takes the same options. On Windows run
`sightline-host.exe install`, which registers the host under `HKEY_CURRENT_USER`.

## 3. Your MCP client

Point the client at `sightline-host mcp` with the absolute path, e.g. for Claude Code:

```sh
claude mcp add sightline -- /path/to/sightline-host mcp
```

or in a client's JSON configuration:

```json
{{"mcpServers": {{"sightline": {{"command": "/path/to/sightline-host", "args": ["mcp"]}}}}}}
```

Then click the Sightline toolbar button on a tab to share it, or let the agent open its own tabs.
"#,
        id = sightline_harness::EXTENSION_ID,
    )
}
