//! MCP argument fuzz: arbitrary arguments to every tool (and to a tool that does not exist),
//! sent by rmcp's own client to the server in process, with a fake bridge behind it that echoes
//! each call it receives.
//!
//! Property: every request is answered (no hang, no crash); a call reaches the bridge exactly
//! when its arguments parse as that tool's parameter type, and then exactly as parsed, so the
//! MCP layer and the extension can never disagree about a call; everything else is refused at
//! the MCP layer with an error that names the problem. The server is still usable afterwards.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use sightline_core::protocol::{ToolCall, ToolOutput, WIRE_PROTOCOL};
use tokio::net::UnixListener;

use super::{Options, SightlineMcp};
use crate::bridge_client::{Choice, DEFAULT_TIME_LIMIT};
use crate::frame;
use crate::link::{self, BridgeMessage, ClientMessage, ExtensionInfo};

/// How many argument sets are tried.
pub const CASES: u32 = 3_000;

const TOOLS: &[&str] = &[
    "browser_tabs",
    "browser_navigate",
    "browser_snapshot",
    "browser_click",
    "browser_type",
    "browser_press_key",
    "browser_select_option",
    "browser_hover",
    "browser_handle_dialog",
    "browser_find",
    "get_changes_since",
    "browser_checkpoint",
    "browser_console_messages",
    "browser_network_requests",
    "browser_user_selection",
    "browser_evaluate",
    "browser_fill_form",
    "browser_scroll",
    "browser_wait_for",
    "browser_drag",
    "browser_take_screenshot",
    "browser_mouse_click_xy",
    "browser_mouse_drag_xy",
    "browser_file_upload",
    "browser_select_text",
];

/// Argument names of the tools, plus a few no tool has.
const KEYS: &[&str] = &[
    "ref",
    "text",
    "submit",
    "key",
    "url",
    "go",
    "tab",
    "action",
    "page",
    "bbox",
    "region",
    "collapse",
    "since_version",
    "double",
    "button",
    "role",
    "checkpoint",
    "include",
    "severity",
    "name",
    "level",
    "failed",
    "page_size",
    "values",
    "accept",
    "prompt_text",
    "fields",
    "direction",
    "amount",
    "to_ref",
    "text_gone",
    "ref_gone",
    "time",
    "start_ref",
    "end_ref",
    "dx",
    "full_page",
    "type",
    "scale",
    "x",
    "end_y",
    "paths",
    "function",
    "main_world",
    "color",
    "",
    "\u{1f980}",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        (0u32..30).prop_map(Value::from),
        "[a-z0-9 ]{0,12}".prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::from),
        prop_oneof![
            Just("e1"),
            Just("back"),
            Just("reload"),
            Just("new"),
            Just("list"),
            Just("left"),
            Just("Enter"),
            Just("Control+a"),
            Just("http://127.0.0.1/"),
            Just("create"),
            Just("errors_only"),
        ]
        .prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("[a-z]{0,6}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Option<Map<String, Value>>> {
    proptest::option::weighted(
        0.9,
        proptest::collection::btree_map(proptest::sample::select(KEYS), value(), 0..4)
            .prop_map(|m| m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
    )
}

/// A bridge that welcomes every client and answers each call with the call itself, as JSON.
async fn echo_bridge(listener: UnixListener) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else { return };
        tokio::spawn(async move {
            let Ok(Some(ClientMessage::Hello { session, .. })) = frame::read_frame(&mut stream).await else { return };
            let extension =
                ExtensionInfo { version: link::HOST_VERSION.into(), browser: "fuzz".into(), protocol: WIRE_PROTOCOL };
            let welcome = BridgeMessage::Welcome {
                version: link::HOST_VERSION.into(),
                pid: 1,
                extension: Some(extension),
                browser: None,
                started_ms: 0,
            };
            if frame::write_frame(&mut stream, &welcome).await.is_err() || session.is_none() {
                return;
            }
            while let Ok(Some(message)) = frame::read_frame::<_, ClientMessage>(&mut stream).await {
                if let ClientMessage::Call { id, call, .. } = message {
                    let output = ToolOutput::text(serde_json::to_string(&call).unwrap_or_default());
                    if frame::write_frame(&mut stream, &BridgeMessage::Result { id, output }).await.is_err() {
                        return;
                    }
                }
            }
        });
    }
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect()
}

/// The call the extension would read for `tool` with `args`, if it reads one.
fn as_the_extension_reads_it(tool: &str, args: &Option<Map<String, Value>>) -> Option<ToolCall> {
    let args = Value::Object(args.clone().unwrap_or_default());
    serde_json::from_value(json!({"tool": tool, "args": args})).ok()
}

#[test]
fn arbitrary_arguments_reach_the_bridge_exactly_when_they_parse() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = std::env::temp_dir().join(format!("sl-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::socket::ensure_private_dir(&dir).unwrap();
    let client = runtime.block_on(async {
        let listener = UnixListener::bind(dir.join("bridge-1.sock")).unwrap();
        tokio::spawn(echo_bridge(listener));
        let options = Options {
            socket_dir: dir.clone(),
            choice: Choice::default(),
            time_limit: DEFAULT_TIME_LIMIT,
            caps: vec![crate::mcp::Cap::Vision],
        };
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(service) = SightlineMcp::new(options).serve(server_io).await {
                let _ = service.waiting().await;
            }
        });
        ().serve(client_io).await.unwrap()
    });

    let mut runner = TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() });
    let strategy = (proptest::sample::select(TOOLS), arguments());
    let (forwarded, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&strategy, |(tool, args)| {
            let mut params = CallToolRequestParams::new(tool.to_owned());
            params.arguments = args.clone();
            let answer = runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), client.peer().call_tool(params)).await
            });
            let answer = answer.map_err(|_| TestCaseError::fail(format!("{tool} {args:?}: no answer in 10 s")))?;
            match (answer, as_the_extension_reads_it(tool, &args)) {
                // Upload paths are checked by the host before anything is forwarded.
                (Ok(result), Some(ToolCall::BrowserFileUpload(p))) if super::uploads::check(&p.paths).is_err() => {
                    let text = text_of(&result);
                    prop_assert_eq!(result.is_error, Some(true), "{} {:?} was forwarded: {}", tool, args, text);
                    prop_assert!(text.starts_with("browser_file_upload: "), "{} {:?}: {}", tool, args, text);
                    refused.set(refused.get() + 1);
                }
                (Ok(result), Some(expected)) => {
                    let text = text_of(&result);
                    prop_assert_ne!(result.is_error, Some(true), "{} {:?} failed: {}", tool, args, text);
                    let received: ToolCall = serde_json::from_str(&text)
                        .map_err(|e| TestCaseError::fail(format!("{tool} {args:?}: the bridge got {text}: {e}")))?;
                    prop_assert_eq!(received, expected, "what reached the bridge differs from the arguments");
                    forwarded.set(forwarded.get() + 1);
                }
                // rmcp answers arguments that do not parse with an error result naming them.
                (Ok(result), None) => {
                    let text = text_of(&result);
                    prop_assert_eq!(result.is_error, Some(true), "{} {:?} was forwarded: {}", tool, args, text);
                    prop_assert!(
                        serde_json::from_str::<ToolCall>(&text).is_err(),
                        "{} {:?} reached the bridge",
                        tool,
                        args
                    );
                    prop_assert!(
                        text.contains("parameters"),
                        "{} {:?}: the error does not say what: {}",
                        tool,
                        args,
                        text
                    );
                    refused.set(refused.get() + 1);
                }
                (Err(rmcp::ServiceError::McpError(error)), None) => {
                    prop_assert!(!error.message.is_empty(), "{} {:?}: an empty error", tool, args);
                    refused.set(refused.get() + 1);
                }
                (Err(error), expected) => {
                    return Err(TestCaseError::fail(format!(
                        "{tool} {args:?} (parses: {}): {error}",
                        expected.is_some()
                    )));
                }
            }
            Ok(())
        })
        .unwrap();

    // Both sides of the property were exercised, not only refusals.
    eprintln!("{CASES} argument sets: {} forwarded, {} refused", forwarded.get(), refused.get());
    assert_eq!(forwarded.get() + refused.get(), CASES);
    assert!(forwarded.get() >= CASES / 10 && refused.get() >= CASES / 10);

    // Still serving.
    let after = runtime.block_on(client.peer().call_tool(CallToolRequestParams::new("browser_tabs"))).unwrap();
    assert_ne!(after.is_error, Some(true), "{:?}", after.content);
    let _ = std::fs::remove_dir_all(&dir);
}
