//! Clients that are not ours drive a real browser through `sightline-host mcp`: the official MCP
//! TypeScript SDK, the official MCP Python SDK and the MCP Inspector's command-line mode. Each
//! runs as its own process against the rig's Chromium, with the sandbox's environment, exactly as
//! a user's client would. `cargo xtask test` installs all three (npm ci, a Python virtual
//! environment in `target/python-client`).

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use sightline_harness::Rig;
use sightline_harness::paths::{host_binary, python_client_dir, workspace_root};

const WAIT: Duration = Duration::from_secs(10);

/// The directory of the external clients' scripts and npm packages.
fn clients_dir() -> std::path::PathBuf {
    workspace_root().join("tests/external-client")
}

/// `program` in the clients' directory, with only `PATH` from outside and the sandbox's own HOME
/// and runtime directories (so it finds the rig's browser and nothing else).
fn client_command(rig: &Rig, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(clients_dir()).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in rig.sandbox.env() {
        cmd.env(k, v);
    }
    cmd
}

async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output()).await.expect("join").expect("the client starts")
}

/// The JSON lines a driver script printed, by step name.
struct Steps(Vec<Value>, String);

impl Steps {
    fn of(out: &Output) -> Steps {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "client failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        Steps(stdout.lines().map(|l| serde_json::from_str(l).expect("json line")).collect(), stdout)
    }

    fn get(&self, name: &str) -> &Value {
        self.0.iter().find(|s| s["step"] == name).unwrap_or_else(|| panic!("no step {name}: {}", self.1))
    }

    fn text(&self, name: &str) -> &str {
        let step = self.get(name);
        assert_eq!(step["isError"], false, "{name}: {}", step["text"]);
        step["text"].as_str().unwrap_or_default()
    }
}

fn assert_installed(path: &Path) {
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask test`, which installs the external clients",
        path.display()
    );
}

/// The acceptance check with the official MCP TypeScript SDK.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_typescript_sdk_drives_navigate_snapshot_click_snapshot() {
    let rig = Rig::start().await.expect("rig");
    assert_installed(&clients_dir().join("node_modules/@modelcontextprotocol/sdk"));
    let mut cmd = client_command(&rig, "node");
    cmd.arg("drive.mjs").arg(host_binary()).arg(rig.server.url("shop.html"));
    let steps = Steps::of(&run(cmd).await);
    assert_eq!(steps.0[0]["snapshotHasOutputSchema"], true);
    assert!(steps.text("navigate").contains("# Tiny shop"));
    assert!(steps.text("snapshot").contains("Basket: 0 items"));
    steps.text("click");
    assert!(rig.server.wait_for_event("bought:1", WAIT), "the click reached the page");
    assert!(steps.text("snapshot-after").contains("Basket: 1 items"));
}

/// The same session with the official MCP Python SDK, plus ping, annotations and progress
/// notifications during a navigation that takes seconds.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_sdk_drives_the_browser_and_hears_progress_on_a_slow_navigation() {
    let rig = Rig::start().await.expect("rig");
    let python = python_client_dir().join("bin/python");
    assert_installed(&python);
    let mut cmd = client_command(&rig, &python);
    cmd.arg("drive.py").arg(host_binary()).arg(rig.server.url("shop.html")).arg(rig.server.url("clients/slow.html"));
    let steps = Steps::of(&run(cmd).await);

    let init = steps.get("initialize");
    assert_eq!(init["server"], "sightline", "{init}");
    assert!(init["protocolVersion"].as_str().is_some_and(|v| v >= "2025-06-18"), "{init}");
    let tools = steps.get("tools");
    assert_eq!(tools["annotated"], true, "{tools}");
    assert!(tools["names"].as_array().is_some_and(|n| n.len() >= 14), "{tools}");

    assert!(steps.text("snapshot").contains("Basket: 0 items"));
    steps.text("click");
    assert!(rig.server.wait_for_event("bought:1", WAIT), "the click reached the page");
    assert!(steps.text("snapshot-after").contains("Basket: 1 items"));

    // The slow page holds its load for three seconds: the client hears the call is still running.
    assert!(steps.text("slow-navigate").contains("Loaded at last."));
    let notes = steps.get("slow-navigate")["progress"].as_array().cloned().unwrap_or_default();
    assert!(!notes.is_empty(), "no progress during a 3 s navigation: {}", steps.get("slow-navigate"));
    let values: Vec<f64> = notes.iter().filter_map(|n| n["progress"].as_f64()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]) && values[0] >= 1.0, "progress must rise: {values:?}");
    assert!(notes[0]["message"].as_str().is_some_and(|m| m.contains("browser_navigate")), "{notes:?}");
}

/// `mcp-inspector --cli` starting `sightline-host mcp`. The Inspector hands the server only a few
/// variables of its own environment (like the SDKs' default), so the sandbox's are passed with
/// `-e`, as a user's client configuration passes them with its `env` block.
fn inspector_command(rig: &Rig, inspector: &Path) -> Command {
    let mut cmd = client_command(rig, inspector);
    cmd.arg("--cli");
    for (k, v) in rig.sandbox.env() {
        cmd.arg("-e").arg(format!("{k}={}", v.display()));
    }
    cmd.arg(host_binary()).arg("mcp");
    cmd
}

/// The MCP Inspector's command-line mode lists the tools and calls one.
#[tokio::test(flavor = "multi_thread")]
async fn the_mcp_inspector_cli_lists_tools_and_navigates() {
    let rig = Rig::start().await.expect("rig");
    let inspector = clients_dir().join("node_modules/.bin/mcp-inspector");
    assert_installed(&inspector);
    rig.client.wait_for_browser(Duration::from_secs(30)).await.expect("browser connected");

    let mut list = inspector_command(&rig, &inspector);
    list.args(["--method", "tools/list"]);
    let out = run(list).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).expect("tools/list prints JSON");
    let names: Vec<&str> =
        listed["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"browser_navigate") && names.contains(&"browser_snapshot"), "{names:?}");

    let mut call = inspector_command(&rig, &inspector);
    call.args(["--method", "tools/call", "--tool-name", "browser_navigate"]);
    call.arg("--tool-arg").arg(format!("url={}", rig.server.url("shop.html")));
    let out = run(call).await;
    let said = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("tools/call prints JSON");
    assert_ne!(answer["isError"], true, "{answer}");
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("# Tiny shop") && text.contains("Basket: 0 items"), "{text}");
}
