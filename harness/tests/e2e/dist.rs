//! The release packages, used as a person would: the packages under test (`target/dist/` as
//! `cargo xtask dist` writes it, or those `cargo xtask test` makes of the host it tests) are
//! checked against their checksums, the store zip against the unpacked extension, and then the
//! host is unpacked from its archive into a fresh HOME, registered with `install`, and `doctor`
//! from that archive reports every link working with the packaged extension loaded in Chromium.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sightline_harness::browser::Chromium;
use sightline_harness::paths::dist_dir;
use sightline_harness::{EXTENSION_ID, Sandbox};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn package(name: &str) -> PathBuf {
    let path = dist_dir().join(name);
    assert!(path.exists(), "{} is missing: run `cargo xtask dist` (cargo xtask test does)", path.display());
    path
}

/// `tar`, `python3`, `find` or `sha256sum` in `dir`, which must succeed; returns stdout.
fn tool(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program).current_dir(dir).args(args).output().expect(program);
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{program} {args:?} failed: {said}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_archive_matches_its_checksum() {
    let sums = std::fs::read_to_string(package("SHA256SUMS")).expect("SHA256SUMS");
    assert!(sums.contains(&format!("sightline-extension-{VERSION}.zip")), "{sums}");
    assert!(sums.contains(&format!("sightline-host-{VERSION}-")), "{sums}");
    let checked = tool(&dist_dir(), "sha256sum", &["-c", "SHA256SUMS"]);
    assert_eq!(checked.lines().count(), sums.lines().count(), "{checked}");
    assert!(checked.lines().all(|l| l.ends_with(": OK")), "{checked}");
}

#[test]
fn the_store_zip_is_the_unpacked_extension_without_its_development_key() {
    let unpacked = package(&format!("sightline-extension-{VERSION}"));
    let zip = package(&format!("sightline-extension-{VERSION}.zip"));
    let scratch = tempfile::tempdir().expect("scratch");
    // Python's zipfile, which `cargo xtask test` guarantees (the Python client test needs it).
    tool(scratch.path(), "python3", &["-m", "zipfile", "-e", zip.to_str().expect("utf-8 path"), "."]);
    let manifest = |dir: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).expect("manifest")).expect("json")
    };
    let (store, dev) = (manifest(scratch.path()), manifest(&unpacked));
    assert!(store.get("key").is_none(), "the store assigns the id; the zip must not carry a key");
    assert!(dev["key"].is_string(), "the unpacked folder keeps the key, so its id is the one the host allows");
    assert_eq!(store["version"], VERSION);
    for size in ["16", "48", "128"] {
        let icon = store["icons"][size].as_str().unwrap_or_else(|| panic!("no {size}px icon"));
        let bytes = std::fs::read(scratch.path().join(icon)).expect("icon file in the zip");
        assert!(bytes.starts_with(b"\x89PNG"), "{icon} is not a PNG");
    }
    let files = |dir: &Path| {
        let mut out = tool(dir, "find", &[".", "-type", "f"]).lines().map(str::to_owned).collect::<Vec<_>>();
        out.sort();
        out
    };
    assert_eq!(files(scratch.path()), files(&unpacked), "the zip holds exactly the unpacked extension's files");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_host_from_its_archive_installs_into_a_fresh_home_and_doctor_finds_every_link() {
    let _slot = sightline_harness::browser_slots(1).await.expect("slot");
    let archive = std::fs::read_dir(dist_dir())
        .expect("dist dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-x86_64-unknown-linux-gnu.tar.gz"))
        .expect("a Linux host archive");
    let sandbox = Sandbox::new().expect("sandbox");
    let opt = sandbox.root().join("opt");
    std::fs::create_dir_all(&opt).expect("opt");
    tool(&opt, "tar", &["xzf", archive.to_str().expect("utf-8 path")]);
    let folder = opt.join(format!("sightline-host-{VERSION}-x86_64-unknown-linux-gnu"));
    let host = folder.join("sightline-host");
    for file in ["INSTALL.md", "LICENSE", "CHANGELOG.md"] {
        assert!(folder.join(file).exists(), "{file} missing from the archive");
    }

    let version = sandbox.command(&host).arg("--version").output().expect("host runs");
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    assert!(version.contains(VERSION) && version.contains(EXTENSION_ID), "{version}");

    let profile = sandbox.profile();
    let installed = sandbox
        .command(&host)
        .args(["install", "--browser", "chromium", "--user-data-dir"])
        .arg(&profile)
        .output()
        .expect("install runs");
    assert!(installed.status.success(), "{}", String::from_utf8_lossy(&installed.stderr));
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(profile.join("NativeMessagingHosts/dev.sightline.host.json")).expect("manifest"),
    )
    .expect("json");
    assert_eq!(manifest["path"], host.canonicalize().expect("host path").to_str().expect("utf-8"));

    let doctor = || {
        let out = sandbox
            .command(&host)
            .args(["doctor", "--browser", "chromium", "--user-data-dir"])
            .arg(&profile)
            .output()
            .expect("doctor runs");
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (ok, before) = doctor();
    assert!(!ok && before.contains("no browser has started the bridge"), "doctor before the browser runs:\n{before}");

    let extension = package(&format!("sightline-extension-{VERSION}"));
    let browser = Chromium::launch_extension(&sandbox, &profile, &extension, &[]).expect("chromium");
    let deadline = Instant::now() + Duration::from_secs(60);
    let report = loop {
        let (ok, report) = doctor();
        if ok || Instant::now() > deadline {
            break (ok, report);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    browser.kill();
    assert!(report.0, "doctor never found every link with the packaged extension:\n{}", report.1);
}
