//! `tools/list` is paid for in every session: its size is held to a budget, counted the way the
//! bench counts it (the `tools` array as JSON, in `o200k_base` tokens).

/// The most tokens `tools/list` may cost.
const BUDGET: usize = 3_500;

#[test]
fn tools_list_stays_within_its_token_budget() {
    let tools = super::SightlineMcp::default().listed_tools();
    let json = serde_json::to_string(&tools).expect("tools serialize");
    let tokenizer = tiktoken_rs::o200k_base().expect("o200k tables are embedded");
    let tokens = tokenizer.encode_ordinary(&json).len();
    eprintln!("tools/list: {} tools, {tokens} tokens", tools.len());
    assert!(
        tokens <= BUDGET,
        "tools/list costs {tokens} tokens for {} tools, over the budget of {BUDGET}",
        tools.len()
    );
}
