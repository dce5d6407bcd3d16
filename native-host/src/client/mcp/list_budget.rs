//! `tools/list` is paid for in every session: its size is held to a budget, counted the way the
//! bench counts it (the `tools` array as JSON, in `o200k_base` tokens), with each tool's share
//! printed so a change shows where the tokens went.

/// The most tokens `tools/list` may cost: 3,550 for the tools up to `browser_user_selection`,
/// then about 100 for `browser_export_test` (the test of what the agent did), 75 for
/// `browser_permissions` (so an agent plans around the person's site permissions instead of
/// meeting their refusals) and about 100 for `browser_downloads`.
const BUDGET: usize = 3_850;

#[test]
fn tools_list_stays_within_its_token_budget() {
    let tools = super::SightlineMcp::default().listed_tools();
    let tokenizer = tiktoken_rs::o200k_base().expect("o200k tables are embedded");
    let count = |json: String| tokenizer.encode_ordinary(&json).len();
    for tool in &tools {
        eprintln!("{:>5} {}", count(serde_json::to_string(tool).expect("tool serializes")), tool.name);
    }
    let tokens = count(serde_json::to_string(&tools).expect("tools serialize"));
    eprintln!("tools/list: {} tools, {tokens} tokens", tools.len());
    assert!(
        tokens <= BUDGET,
        "tools/list costs {tokens} tokens for {} tools, over the budget of {BUDGET}",
        tools.len()
    );
}
