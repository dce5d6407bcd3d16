//! Where the built artefacts and the shared corpus are.

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from).unwrap_or_default()
}

/// The `sightline-host` binary under test.
pub fn host_binary() -> PathBuf {
    std::env::var_os("SIGHTLINE_HOST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/release/sightline-host"))
}

/// The assembled unpacked extension.
pub fn extension_dir() -> PathBuf {
    std::env::var_os("SIGHTLINE_EXTENSION_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/extension"))
}

/// The Chromium binary.
pub fn chromium() -> PathBuf {
    std::env::var_os("SIGHTLINE_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Fixture pages of the end-to-end tests.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("tests/fixtures")
}

/// The shared corpus of real pages (`../shared/corpus` from the workspace root), if present.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SIGHTLINE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/corpus/readability"));
    dir.is_dir().then_some(dir)
}

/// Whether this run is CI's (`CI=true`), where a missing corpus is a failure rather than a
/// reason to skip: a gate that passes by skipping guards nothing.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Skips (returns `false`, saying why) when `what` is absent outside CI; fails under CI.
pub fn present_or_skip(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(!in_ci(), "{what} is missing, and under CI=true a missing corpus fails the run instead of skipping");
    eprintln!("skipped: {what} is missing (outside CI this is allowed; under CI=true it fails)");
    false
}

/// Panics with the command that fixes it unless the artefacts exist.
pub fn require_artefacts() {
    let host = host_binary();
    let ext = extension_dir();
    assert!(
        host.is_file() && ext.join("manifest.json").is_file() && chromium().is_file(),
        "end-to-end tests need {} , {} and {}: run `cargo xtask test` (it builds them and installs Chromium)",
        host.display(),
        ext.display(),
        chromium().display()
    );
}
