//! `cargo xtask demo`: Chromium with a throwaway profile and the extension, and a short
//! scripted agent session over MCP against the bundled demo store, printing every response.

use serde_json::{Value, json};
use sightline_harness::Rig;

use crate::build::{Built, workspace_root};

/// Runs the demo.
pub fn run(built: &Built) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(session(built))
}

async fn session(built: &Built) -> anyhow::Result<()> {
    let site = workspace_root().join("xtask/demo-site");
    // The harness looks for the artefacts where `build` puts them.
    anyhow::ensure!(built.host_binary == sightline_harness::paths::host_binary(), "host built outside target/release");
    let rig = Rig::serving(site, &[]).await?;
    let c = &rig.client;

    let tools = c.peer().list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    println!("\n▶ tools/list → {} tools: {}", names.len(), names.join(", "));

    let page = step(c, "browser_navigate", json!({"url": rig.server.url("index.html")})).await?;
    let search = first_ref(&page, "textbox", "Search mugs")?;
    step(c, "browser_type", json!({"ref": search, "text": "blue", "submit": true})).await?;
    let found = step(c, "browser_find", json!({"role": "button", "text": "Add to basket"})).await?;
    let add = ref_in_find(&found.text, "Add to basket")?;
    step(c, "browser_click", json!({"ref": add})).await?;
    step(c, "get_changes_since", json!({})).await?;
    step(c, "browser_tabs", json!({})).await?;
    println!(
        "\nDone: an agent read the page, searched, found a button, added a mug to the basket and asked what \
         changed, all over MCP."
    );
    Ok(())
}

async fn step(
    c: &sightline_harness::McpClient,
    tool: &str,
    args: Value,
) -> anyhow::Result<sightline_harness::client::Reply> {
    println!("\n▶ {tool} {args}");
    let reply = c.call(tool, args).await?;
    println!("{}", reply.text.trim_end());
    anyhow::ensure!(!reply.is_error, "{tool} failed");
    Ok(reply)
}

fn first_ref(reply: &sightline_harness::client::Reply, role: &str, name: &str) -> anyhow::Result<String> {
    reply
        .structured
        .as_ref()
        .and_then(|s| s["elements"].as_array())
        .and_then(|els| els.iter().find(|e| e["role"] == role && e["name"] == name))
        .and_then(|e| e["ref"].as_str().map(str::to_owned))
        .ok_or_else(|| anyhow::anyhow!("no {role} {name:?} on the page"))
}

/// The ref on the first line of a `browser_find` answer that mentions `name`.
fn ref_in_find(text: &str, name: &str) -> anyhow::Result<String> {
    text.lines()
        .filter(|l| l.contains(name))
        .flat_map(|l| l.split([' ', '(', ')', '[', ']']))
        .find(|w| w.len() > 1 && w.starts_with('e') && w[1..].chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("browser_find named no element {name:?}:\n{text}"))
}
