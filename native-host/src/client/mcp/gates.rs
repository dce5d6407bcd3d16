//! What the server does with each tool from its declaration alone, before any browser is
//! involved: which tools a session lists by their gates, a call to a tool of a group the
//! session did not ask for, the upload check the host makes before forwarding, and arguments
//! or names that are no call. The server runs in process, spoken to by rmcp's own client, with
//! no bridge to forward to.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use sightline_core::protocol::{Cap, Gate, TOOLS};

use super::{Options, SightlineMcp};
use crate::client::bridge_client::{Choice, DEFAULT_TIME_LIMIT};

/// A session's options, with an empty socket directory: no bridge answers.
fn options(caps: Vec<Cap>) -> Options {
    let socket_dir = std::env::temp_dir().join(format!("sl-gates-{}-none", std::process::id()));
    Options { socket_dir, choice: Choice::default(), time_limit: DEFAULT_TIME_LIMIT, caps }
}

fn names(server: &SightlineMcp) -> Vec<String> {
    server.listed_tools().into_iter().map(|tool| tool.name.into_owned()).collect()
}

#[test]
fn a_session_lists_the_open_tools_and_the_gated_ones_only_once_let_in() {
    let plain = SightlineMcp::new(options(Vec::new()));
    let listed = names(&plain);
    for spec in TOOLS {
        assert_eq!(listed.iter().any(|n| n == spec.name), spec.gate == Gate::Open, "{}: {:?}", spec.name, spec.gate);
    }

    let vision = SightlineMcp::new(options(vec![Cap::Vision]));
    let listed = names(&vision);
    assert!(listed.iter().any(|n| n == "browser_mouse_click_xy"), "{listed:?}");
    assert!(!listed.iter().any(|n| n == "browser_evaluate"), "{listed:?}");

    // The browser said the user allows browser_evaluate.
    vision.allowed_in_options.store(true, std::sync::atomic::Ordering::Relaxed);
    let listed = names(&vision);
    assert_eq!(listed.len(), TOOLS.len(), "{listed:?}");
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted, "tools/list is in the order of the names");
}

/// A running server in process and the client speaking to it.
fn connect(runtime: &tokio::runtime::Runtime, caps: Vec<Cap>) -> RunningService<RoleClient, ()> {
    runtime.block_on(async {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(service) = SightlineMcp::new(options(caps)).serve(server_io).await {
                let _ = service.waiting().await;
            }
        });
        ().serve(client_io).await.expect("the client connects")
    })
}

fn call(
    runtime: &tokio::runtime::Runtime,
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = arguments.as_object().cloned();
    runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(10), client.peer().call_tool(params)).await })
        .expect("answered in 10 s")
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect()
}

#[test]
fn a_tool_of_a_group_not_asked_for_is_refused_with_how_to_turn_it_on() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = connect(&runtime, Vec::new());
    let refused = call(&runtime, &client, "browser_mouse_click_xy", json!({"x": 10, "y": 10})).unwrap();
    let text = text_of(&refused);
    assert_eq!(refused.is_error, Some(true), "{text}");
    assert!(text.contains("not enabled in this session") && text.contains("--caps vision"), "{text}");
}

#[test]
fn an_upload_the_host_refuses_never_leaves_it() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = connect(&runtime, Vec::new());
    let refused =
        call(&runtime, &client, "browser_file_upload", json!({"paths": ["/home/me/.ssh/id_ed25519"]})).unwrap();
    let text = text_of(&refused);
    assert_eq!(refused.is_error, Some(true), "{text}");
    // The host's own refusal, not the answer of a bridge it tried to reach.
    assert!(text.starts_with("browser_file_upload: ") && text.contains(".ssh"), "{text}");
}

#[test]
fn arguments_that_fit_no_call_and_names_of_no_tool_are_refused_saying_what() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = connect(&runtime, Vec::new());
    let bad = call(&runtime, &client, "browser_click", json!({"ref": "e1", "colour": "red"})).unwrap();
    let text = text_of(&bad);
    assert_eq!(bad.is_error, Some(true), "{text}");
    assert!(text.contains("failed to deserialize parameters") && text.contains("unknown field `colour`"), "{text}");
    let missing = call(&runtime, &client, "browser_type", json!({"ref": "e1"})).unwrap();
    assert!(text_of(&missing).contains("missing field `text`"), "{}", text_of(&missing));

    let Err(rmcp::ServiceError::McpError(error)) = call(&runtime, &client, "browser_teleport", json!({})) else {
        panic!("a call of no tool was answered as a tool's")
    };
    assert!(error.message.contains("\"browser_teleport\"") && error.message.contains("tools/list"), "{error:?}");
}
