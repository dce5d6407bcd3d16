//! What `tools/list` costs an agent: every session pays for it before its first call, so the
//! whole list is held to a budget, counted with the `o200k_base` encoding the bench uses.

use sightline_e2e::client::McpClient;
use sightline_e2e::{Sandbox, paths};

/// The most `tools/list` may cost, in o200k tokens.
const BUDGET: usize = 3_500;

#[tokio::test(flavor = "multi_thread")]
async fn the_tool_list_stays_within_its_token_budget() {
    paths::require_artefacts();
    let sandbox = Sandbox::new().unwrap();
    let client = McpClient::connect(&sandbox).await.unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    let json = serde_json::to_string(&tools).unwrap();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = bpe.encode_ordinary(&json).len();
    for tool in &tools {
        let one = serde_json::to_string(tool).unwrap();
        println!("{:>5} {}", bpe.encode_ordinary(&one).len(), tool.name);
        if std::env::var_os("SHOW_TOOLS").is_some() {
            println!("{one}");
        }
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    println!("tools/list: {tokens} tokens, {} tools: {}", tools.len(), names.join(", "));
    assert!(tokens <= BUDGET, "tools/list costs {tokens} tokens, over its budget of {BUDGET}");
}
