//! MCP argument fuzz: arbitrary arguments to every declared tool (and to a tool that does not
//! exist), built from the argument names the tools' schemas list, sent by rmcp's own client to
//! the server in process, with a fake bridge behind it that echoes each call it receives.
//!
//! Property: every request is answered (no hang, no crash); a call reaches the bridge exactly
//! when its arguments parse as that tool's parameter type (and, for an upload, its paths pass
//! the host's check), and then exactly as parsed (an upload's paths as the host resolved them),
//! so the MCP layer and the extension can never disagree about a call; everything else is
//! refused at the MCP layer with an error that names the problem. A second run sends uploads
//! only, since arbitrary arguments seldom make one that parses. The server is still usable
//! afterwards.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use sightline_core::protocol::{Cap, TOOLS, ToolCall, ToolOutput, WIRE_PROTOCOL};
use tokio::net::UnixListener;

use super::{Options, SightlineMcp};
use crate::client::bridge_client::{Choice, DEFAULT_TIME_LIMIT};
use crate::transport::frame;
use crate::transport::link::{self, BridgeMessage, ClientMessage, ExtensionInfo};

/// How many argument sets are tried.
pub const CASES: u32 = 3_000;

/// A name no tool has.
const NO_SUCH_TOOL: &str = "browser_teleport";

/// Every declared tool with the argument names its schema in `tools/list` gives, and one tool
/// that does not exist.
fn tools_and_their_arguments() -> Vec<(&'static str, Vec<String>)> {
    let served = SightlineMcp::default().declared_tools();
    let arguments_of = |name: &str| -> Vec<String> {
        let tool = served.iter().find(|tool| tool.name == name);
        let properties = tool.and_then(|tool| tool.input_schema.get("properties")).and_then(Value::as_object);
        properties.map(|p| p.keys().cloned().collect()).unwrap_or_default()
    };
    TOOLS.iter().map(|spec| spec.name).chain([NO_SUCH_TOOL]).map(|name| (name, arguments_of(name))).collect()
}

/// Argument names for a call of a tool taking `own`: mostly its own, sometimes another tool's
/// (`all`) or one no tool has.
fn names_for(own: &[String], all: &[String]) -> Vec<String> {
    let mut names: Vec<String> = own.iter().flat_map(|name| std::iter::repeat_n(name.clone(), 8)).collect();
    names.extend(all.iter().cloned());
    names.extend(["", "color", "\u{1f980}"].map(String::from));
    names
}

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

/// A list of file paths, some the host lets through and some it refuses (relative, hidden, a
/// system directory), so upload calls that parse are often made.
fn paths() -> impl Strategy<Value = Value> {
    let path = prop_oneof![
        Just("/etc/hostname"),
        Just("/dev/null"),
        Just("report.txt"),
        Just("/home/me/.ssh/id_ed25519"),
        Just("/proc/self/environ"),
    ];
    proptest::collection::vec(path, 0..3).prop_map(Value::from)
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

fn arguments(keys: Vec<String>) -> impl Strategy<Value = Option<Map<String, Value>>> {
    proptest::option::weighted(
        0.9,
        proptest::collection::btree_map(proptest::sample::select(keys), prop_oneof![4 => value(), 1 => paths()], 0..4)
            .prop_map(|m| m.into_iter().collect()),
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
    crate::transport::socket::ensure_private_dir(&dir).unwrap();
    let client = runtime.block_on(async {
        let listener = UnixListener::bind(dir.join("bridge-1.sock")).unwrap();
        tokio::spawn(echo_bridge(listener));
        let options = Options {
            socket_dir: dir.clone(),
            choice: Choice::default(),
            time_limit: DEFAULT_TIME_LIMIT,
            caps: vec![Cap::Vision],
        };
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(service) = SightlineMcp::new(options).serve(server_io).await {
                let _ = service.waiting().await;
            }
        });
        ().serve(client_io).await.unwrap()
    });

    let tools = tools_and_their_arguments();
    let mut all: Vec<String> = tools.iter().flat_map(|(_, own)| own.iter().cloned()).collect();
    all.sort();
    all.dedup();
    assert!(all.iter().any(|k| k == "ref") && all.iter().any(|k| k == "paths"), "{all:?}");
    let strategy = proptest::sample::select(tools)
        .prop_flat_map(move |(tool, own)| (Just(tool), arguments(names_for(&own, &all))));
    let tally = run_cases(&runtime, &client, CASES, strategy);
    eprintln!("{CASES} argument sets: {tally:?}");
    assert_eq!(tally.forwarded + tally.refused + tally.refused_by_the_host, CASES);
    // Both sides of the property were exercised, not only refusals.
    assert!(tally.forwarded >= CASES / 10 && tally.refused >= CASES / 10, "{tally:?}");

    // Uploads with lists of paths, some of which the host refuses: only what passes its check
    // reaches the bridge, as the paths it resolved them to.
    let uploads = (paths(), proptest::option::of("e[0-9]")).prop_map(|(paths, element)| {
        let mut args = Map::from_iter([("paths".to_owned(), paths)]);
        if let Some(element) = element {
            args.insert("ref".to_owned(), Value::from(element));
        }
        ("browser_file_upload", Some(args))
    });
    let tally = run_cases(&runtime, &client, UPLOAD_CASES, uploads);
    eprintln!("{UPLOAD_CASES} uploads: {tally:?}");
    assert!(tally.forwarded > 0 && tally.refused_by_the_host > 0, "{tally:?}");
    assert_eq!(tally.refused, 0, "every upload here parses: {tally:?}");

    // Still serving.
    let after = runtime.block_on(client.peer().call_tool(CallToolRequestParams::new("browser_tabs"))).unwrap();
    assert_ne!(after.is_error, Some(true), "{:?}", after.content);
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many upload argument sets are tried.
const UPLOAD_CASES: u32 = 300;

/// What became of the calls a run made.
#[derive(Debug, Default)]
struct Tally {
    /// Reached the bridge exactly as parsed.
    forwarded: u32,
    /// Refused at the MCP layer: arguments that do not parse, or a tool that does not exist.
    refused: u32,
    /// Uploads that parse, refused by the host's check of their paths.
    refused_by_the_host: u32,
}

/// Makes `cases` calls drawn from `strategy` and checks each answer against the property.
fn run_cases(
    runtime: &tokio::runtime::Runtime,
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    cases: u32,
    strategy: impl Strategy<Value = (&'static str, Option<Map<String, Value>>)>,
) -> Tally {
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let tally = std::cell::RefCell::new(Tally::default());
    runner
        .run(&strategy, |(tool, args)| {
            let mut params = CallToolRequestParams::new(tool.to_owned());
            params.arguments = args.clone();
            let answer = runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), client.peer().call_tool(params)).await
            });
            let answer = answer.map_err(|_| TestCaseError::fail(format!("{tool} {args:?}: no answer in 10 s")))?;
            let mut expected = as_the_extension_reads_it(tool, &args);
            // The host's check of upload paths: a refusal, or the paths it resolved them to.
            let host_check = match expected.as_mut() {
                Some(ToolCall::BrowserFileUpload(p)) => {
                    Some(super::uploads::check(&p.paths).map(|resolved| p.paths = resolved))
                }
                _ => None,
            };
            match (answer, expected) {
                (Ok(result), Some(_)) if matches!(host_check, Some(Err(_))) => {
                    let text = text_of(&result);
                    prop_assert_eq!(result.is_error, Some(true), "{} {:?} was forwarded: {}", tool, args, text);
                    prop_assert!(text.starts_with("browser_file_upload: "), "{} {:?}: {}", tool, args, text);
                    tally.borrow_mut().refused_by_the_host += 1;
                }
                (Ok(result), Some(expected)) => {
                    let text = text_of(&result);
                    prop_assert_ne!(result.is_error, Some(true), "{} {:?} failed: {}", tool, args, text);
                    let received: ToolCall = serde_json::from_str(&text)
                        .map_err(|e| TestCaseError::fail(format!("{tool} {args:?}: the bridge got {text}: {e}")))?;
                    prop_assert_eq!(received, expected, "what reached the bridge differs from the arguments");
                    tally.borrow_mut().forwarded += 1;
                }
                // Arguments that do not parse are answered with an error result naming them.
                (Ok(result), None) if tool != NO_SUCH_TOOL => {
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
                    tally.borrow_mut().refused += 1;
                }
                // A tool that does not exist is a protocol error that names it.
                (Err(rmcp::ServiceError::McpError(error)), None) if tool == NO_SUCH_TOOL => {
                    prop_assert!(error.message.contains(NO_SUCH_TOOL), "{} {:?}: {}", tool, args, error.message);
                    tally.borrow_mut().refused += 1;
                }
                (answer, expected) => {
                    return Err(TestCaseError::fail(format!(
                        "{tool} {args:?} (parses: {}): {answer:?}",
                        expected.is_some()
                    )));
                }
            }
            Ok(())
        })
        .unwrap();
    tally.into_inner()
}
