//! Building the extension (wasm runtime and all) and the native host, and running the tests.

pub use sightline_harness::paths::workspace_root;
pub use sightline_harness::{Built, run};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The exact `wasm-bindgen` version pinned in the workspace manifest.
pub fn pinned_wasm_bindgen() -> anyhow::Result<String> {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))?;
    manifest
        .lines()
        .find_map(|line| {
            let rest = line.trim().strip_prefix("wasm-bindgen")?.trim_start().strip_prefix('=')?.trim();
            rest.strip_prefix("\"=")?.strip_suffix('"').map(str::to_owned)
        })
        .context("Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = \"=X.Y.Z\")")
}

fn ensure_wasm_target() -> anyhow::Result<()> {
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    Ok(())
}

/// Finds `wasm-bindgen` of exactly `version`, installing it with cargo if needed.
fn ensure_wasm_bindgen_cli(version: &str) -> anyhow::Result<PathBuf> {
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default()
        .join("bin/wasm-bindgen");
    let wanted = format!("wasm-bindgen {version}");
    for candidate in [cargo_bin.clone(), PathBuf::from("wasm-bindgen")] {
        if output(Command::new(&candidate).arg("--version")).is_some_and(|v| v.trim() == wanted) {
            return Ok(candidate);
        }
    }
    eprintln!("xtask: installing wasm-bindgen-cli {version} (takes a few minutes, once)");
    run(cargo().args(["install", "wasm-bindgen-cli", "--version", &format!("={version}"), "--force"]))?;
    if output(Command::new(&cargo_bin).arg("--version")).is_some_and(|v| v.trim() == wanted) {
        return Ok(cargo_bin);
    }
    bail!("installed wasm-bindgen-cli {version} but {} does not report it", cargo_bin.display())
}

/// Builds everything a user needs: the extension and the optimised host.
pub fn build() -> anyhow::Result<Built> {
    let extension_dir = build_extension()?;
    run(cargo().current_dir(workspace_root()).args(["build", "--release", "--package", "sightline-host"]))?;
    Ok(Built { extension_dir, host_binary: workspace_root().join("target/release/sightline-host") })
}

/// Builds the wasm runtime and assembles the unpacked extension; returns its folder.
pub fn build_extension() -> anyhow::Result<PathBuf> {
    let root = workspace_root();
    ensure_wasm_target()?;
    let bindgen = ensure_wasm_bindgen_cli(&pinned_wasm_bindgen()?)?;
    run(cargo().current_dir(&root).args([
        "build",
        "--package",
        "sightline-runtime",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "wasm",
    ]))?;
    let extension_dir = root.join("target/extension");
    assemble_extension(&root.join("extension"), &extension_dir)?;
    run(Command::new(bindgen)
        .arg(root.join("target/wasm32-unknown-unknown/wasm/sightline_runtime.wasm"))
        .args(["--target", "web", "--out-name", "sightline_runtime"])
        // `__wbg_reset_state`: the service worker replaces an instance poisoned by a panic.
        .arg("--experimental-reset-state-function")
        .arg("--out-dir")
        .arg(extension_dir.join("pkg")))?;
    keep_runtime_types(&extension_dir.join("pkg"), &root.join(RUNTIME_TYPES))?;
    Ok(extension_dir)
}

/// Where the TypeScript declarations of the built runtime are kept for the type check of the
/// extension's JavaScript (`xtask/typecheck/tsconfig.json` reads them as if beside `sw.js`).
const RUNTIME_TYPES: &str = "target/runtime-types";

/// Moves the declarations wasm-bindgen wrote next to the runtime out of the extension (it ships
/// without them) into `types/pkg/`.
fn keep_runtime_types(pkg: &Path, types: &Path) -> anyhow::Result<()> {
    let kept = types.join("pkg");
    std::fs::create_dir_all(&kept)?;
    for entry in std::fs::read_dir(pkg)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(".d.ts") {
            let name = path.file_name().unwrap_or_default();
            std::fs::copy(&path, kept.join(name))?;
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Copies the extension's static files (everything but the Rust crate) to `out`, fresh.
fn assemble_extension(src: &Path, out: &Path) -> anyhow::Result<()> {
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src.join("manifest.json"))?)?;
    let version = env!("CARGO_PKG_VERSION");
    if manifest["version"] != version {
        bail!(
            "extension/manifest.json has version {} but the workspace is {version}; make them equal",
            manifest["version"]
        );
    }
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("clearing {}", out.display()))?;
    }
    copy_tree(src, out, &|p: &Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        !(name == "runtime" && p.parent() == Some(src)) && name != "node_modules"
    })
}

/// Copies the files under `src` that `keep` accepts to `dst`, creating folders as needed.
pub fn copy_tree(src: &Path, dst: &Path, keep: &dyn Fn(&Path) -> bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(dst)?;
    for entry in std::fs::read_dir(src)? {
        let path = entry?.path();
        if !keep(&path) {
            continue;
        }
        let target = dst.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_tree(&path, &target, keep)?;
        } else {
            std::fs::copy(&path, &target).with_context(|| format!("copying {}", path.display()))?;
        }
    }
    Ok(())
}

/// Formatting and lints for every crate, the wasm runtime included.
pub fn lint() -> anyhow::Result<()> {
    let root = workspace_root();
    // The runtime is linted for the target it ships on; a fresh machine may not have it yet.
    ensure_wasm_target()?;
    // The extension's JavaScript is type-checked against the built runtime's declarations.
    build_extension()?;
    typecheck(&root)?;
    run(cargo().current_dir(&root).args(["fmt", "--all", "--", "--check"]))?;
    run(cargo().current_dir(&root).args([
        "clippy",
        "--workspace",
        "--exclude",
        "sightline-runtime",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(cargo().current_dir(&root).args([
        "clippy",
        "--package",
        "sightline-runtime",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The host is also built for macOS and Windows: lint it for their targets (std only, no
    // linker needed), so code for one system cannot break on another unseen. One Mac target is
    // enough: the host has no code that depends on the processor.
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    let mut clippy = cargo();
    clippy.current_dir(&root).args(["clippy", "--package", "sightline-host"]);
    for target in ["x86_64-pc-windows-gnu", "aarch64-apple-darwin"] {
        if !installed.lines().any(|l| l.trim() == target) {
            run(Command::new("rustup").args(["target", "add", target]))?;
        }
        clippy.args(["--target", target]);
    }
    run(clippy.args(["--", "-D", "warnings"]))?;
    engine_files_stay_small(&root.join("core/src"))
}

/// Type-checks the extension's JavaScript (`// @ts-check`, JSDoc types) with the TypeScript
/// compiler and Chrome's extension types, pinned in `xtask/typecheck/package.json` and installed
/// from npm when its lock file changed.
fn typecheck(root: &Path) -> anyhow::Result<()> {
    let dir = root.join("xtask/typecheck");
    crate::setup::ensure_npm_packages(&dir)?;
    run(Command::new(dir.join("node_modules/.bin/tsc")).args(["--project", "tsconfig.json"]).current_dir(&dir))
}

/// The engine keeps one mechanism per file: a file that grows past this many lines holds more
/// than one and is split.
const MAX_ENGINE_FILE_LINES: usize = 500;

/// Fails naming every `.rs` file under `dir` longer than [`MAX_ENGINE_FILE_LINES`].
fn engine_files_stay_small(dir: &Path) -> anyhow::Result<()> {
    let mut long = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path)?.lines().count();
                if lines > MAX_ENGINE_FILE_LINES {
                    long.push(format!("{} ({lines} lines)", path.display()));
                }
            }
        }
    }
    long.sort();
    anyhow::ensure!(
        long.is_empty(),
        "engine files over {MAX_ENGINE_FILE_LINES} lines (split them, one mechanism per file): {}",
        long.join(", ")
    );
    Ok(())
}
