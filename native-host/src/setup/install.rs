//! `sightline-host install` / `uninstall`: registering this binary as a native messaging host.
//!
//! A browser starts a native host only if it finds a manifest named after the host that names
//! the host binary by absolute path and lists the extension's origin: on Linux and macOS in
//! one of its `NativeMessagingHosts` directories, on Windows through a registry key whose
//! default value is the manifest's path (see [`crate::platform`] for every path and key). The extension's id is fixed by the `key` in its manifest, so the same
//! origin works on every machine.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::platform::{self, Env, Os, system};
use crate::platform::{Browser, HOST_NAME};

/// Where a manifest goes: a browser's default profile, or a custom `--user-data-dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The browser, when known.
    pub browser: Option<Browser>,
    /// The user data directory the browser reads.
    pub user_data_dir: PathBuf,
    /// The manifest file.
    pub manifest: PathBuf,
    /// The registry key under `HKEY_CURRENT_USER` that names the manifest (Windows).
    pub registry_key: Option<String>,
}

impl Target {
    /// The target for `browser` (if known) with profile root `user_data_dir`, on this system.
    fn new(browser: Option<Browser>, user_data_dir: PathBuf) -> anyhow::Result<Self> {
        let os = Os::CURRENT;
        let manifest = platform::manifest_path(os, browser, &user_data_dir, &Env::current())
            .context("cannot tell where the manifest goes: LOCALAPPDATA is not set")?;
        let registry_key = browser.and_then(|b| platform::registry_key(os, b));
        Ok(Target { browser, user_data_dir, manifest, registry_key })
    }

    /// The manifest file for this target.
    pub fn manifest_path(&self) -> PathBuf {
        self.manifest.clone()
    }

    /// A short label for messages.
    pub fn label(&self) -> String {
        match self.browser {
            Some(b) => b.name().to_owned(),
            None => self.user_data_dir.display().to_string(),
        }
    }
}

/// The native messaging host manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostManifest {
    /// Host name.
    pub name: String,
    /// Shown by the browser.
    pub description: String,
    /// Absolute path to the host binary.
    pub path: PathBuf,
    /// Always `stdio`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Extension origins allowed to start the host.
    pub allowed_origins: Vec<String>,
}

impl HostManifest {
    /// The manifest for the binary at `path`.
    pub fn for_binary(path: &Path) -> Self {
        HostManifest {
            name: HOST_NAME.into(),
            description: "Sightline: lets an AI agent drive the tabs you share, over MCP".into(),
            path: path.to_owned(),
            kind: "stdio".into(),
            allowed_origins: vec![platform::allowed_origin()],
        }
    }
}

/// The targets an `install`/`uninstall` invocation means. With no browser named, every
/// browser whose profile directory exists.
pub fn targets(browser: Option<Browser>, all: bool, user_data_dir: Option<PathBuf>) -> anyhow::Result<Vec<Target>> {
    if let Some(dir) = user_data_dir {
        if let Some(why) = platform::user_data_dir_unsupported(Os::CURRENT) {
            anyhow::bail!("--user-data-dir {} is not needed: {why}", dir.display());
        }
        return Ok(vec![Target::new(browser, absolute(&dir)?)?]);
    }
    let browsers: Vec<Browser> = match browser {
        Some(b) if !all => vec![b],
        _ => Browser::ALL.to_vec(),
    };
    let explicit = browser.is_some() || all;
    let targets: Vec<Target> = browsers
        .into_iter()
        .filter_map(|b| b.profile_root().map(|root| Target::new(Some(b), root)))
        .collect::<anyhow::Result<Vec<Target>>>()?
        .into_iter()
        .filter(|t| explicit || t.user_data_dir.exists())
        .collect();
    if targets.is_empty() {
        anyhow::bail!(
            "found no Chrome, Chromium, Edge, Brave or Vivaldi profile under your home directory; \
             name one with --browser (e.g. `sightline-host install --browser chrome`) or give --user-data-dir"
        );
    }
    Ok(targets)
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    if path.is_absolute() { Ok(path.to_owned()) } else { Ok(std::env::current_dir()?.join(path)) }
}

/// This binary's absolute path, which the manifest must name.
pub fn current_binary() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where sightline-host is")?;
    Ok(system::binary_path(exe))
}

/// Writes the manifest for each target, and on Windows the registry key naming it; returns
/// the files and keys written.
pub fn install(targets: &[Target]) -> anyhow::Result<Vec<PathBuf>> {
    let manifest = HostManifest::for_binary(&current_binary()?);
    let body = serde_json::to_string_pretty(&manifest)?;
    let mut written = Vec::new();
    for target in targets {
        let path = target.manifest_path();
        // On Windows, Chrome, Brave and Vivaldi share one manifest and key.
        if written.contains(&path) {
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&path, &body).with_context(|| format!("writing {}", path.display()))?;
        if let Some(key) = &target.registry_key {
            let name = platform::registry_key_name(key);
            system::register(key, &path).with_context(|| format!("writing {name}"))?;
            written.push(PathBuf::from(name));
        }
        written.push(path);
    }
    Ok(written)
}

/// Removes the manifest for each target, and on Windows its registry key; returns the files
/// and keys removed. On Windows, Chrome, Brave and Vivaldi share one key and one manifest, so
/// removing one removes the three.
pub fn uninstall(targets: &[Target]) -> anyhow::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for target in targets {
        let path = target.manifest_path();
        if let Some(key) = &target.registry_key {
            let name = platform::registry_key_name(key);
            if system::unregister(key).with_context(|| format!("removing {name}"))? {
                removed.push(PathBuf::from(name));
            }
        }
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", path.display())),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::browser::EXTENSION_ID;

    #[test]
    fn extension_id_is_derived_from_the_manifest_key() {
        let manifest: serde_json::Value =
            serde_json::from_str(include_str!("../../../extension/manifest.json")).expect("extension manifest parses");
        let key = manifest["key"].as_str().expect("manifest has a key");
        let der = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, key).expect("key is base64");
        let digest = sha256(&der);
        let id: String =
            digest[..16].iter().flat_map(|b| [b >> 4, b & 0xf]).map(|nibble| (b'a' + nibble) as char).collect();
        assert_eq!(id, EXTENSION_ID);
    }

    #[test]
    fn manifest_names_the_binary_and_only_our_extension() {
        let m = HostManifest::for_binary(Path::new("/opt/sightline/sightline-host"));
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["name"], HOST_NAME);
        assert_eq!(json["type"], "stdio");
        assert_eq!(json["path"], "/opt/sightline/sightline-host");
        assert_eq!(json["allowed_origins"], serde_json::json!([format!("chrome-extension://{EXTENSION_ID}/")]));
    }

    #[test]
    fn a_custom_user_data_dir_gets_its_own_native_messaging_hosts_dir() {
        let t = targets(Some(Browser::Chromium), false, Some(PathBuf::from("/tmp/profile"))).unwrap();
        assert_eq!(t[0].manifest_path(), PathBuf::from("/tmp/profile/NativeMessagingHosts/dev.sightline.host.json"));
    }

    fn sha256(data: &[u8]) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(data).into()
    }
}
