//! `browser_evaluate`: runs an agent's JavaScript function in a page, only when the user turned
//! it on in the extension's options (`allow_evaluate`). It runs in an isolated world (the
//! page's DOM, none of its scripts' globals) unless the agent asks for the page's own world.
//! What it returns is page-controlled text: it is written as JSON on one line, every string
//! quoted the way names and values are in a snapshot, and capped.

use serde::Deserialize;
use sightline_core::protocol::{EvaluateParams, ToolOutput};
use sightline_core::snapshot::escape;

use super::actions::{ActionResult, on_tab};
use super::{CallContext, Failure, refuse_if_dialog};
use crate::cdp::{self, CdpError};
use crate::error::ToolError;
use crate::input::{self, NodeTarget};
use crate::options::Options;
use crate::state::{Reach, TabsState};
use sightline_core::refs::NodeKey;

/// The tool's name, in its answers.
const TOOL: &str = "browser_evaluate";
/// Longest a function may run, in milliseconds.
const RUN_LIMIT_MS: u32 = 10_000;
/// Longest result written, in bytes.
const MOST_RESULT_BYTES: usize = 50_000;
/// The isolated world's name (one per frame, reused: creating one is cheap).
const WORLD: &str = "sightline-evaluate";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct World {
    execution_context_id: i64,
}

#[derive(Deserialize)]
struct Evaluated {
    result: Remote,
    #[serde(default, rename = "exceptionDetails")]
    exception: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Remote {
    #[serde(default)]
    value: Option<serde_json::Value>,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    description: Option<String>,
}

/// `browser_evaluate`.
pub async fn run(reach: &Reach<'_>, session: &str, params: EvaluateParams, ctx: &CallContext) -> ActionResult {
    if !Options::read().await.allow_evaluate {
        return Err(Failure::Explained(
            "browser_evaluate is off: the user has not allowed agents to run JavaScript in pages. Only they can turn \
             it on, in Sightline's options (\"Let agents run JavaScript\"). Use the other tools meanwhile."
                .to_owned(),
        ));
    }
    if params.function.trim().is_empty() {
        return Err(ToolError::Arguments("give `function`, such as `() => document.title`").into());
    }
    let params = &params;
    on_tab(reach, session, params.tab, params.element_ref.as_deref(), ctx, |tab, node| async move {
        refuse_if_dialog(reach.custody.tabs, tab, "browser_evaluate")?;
        let allowed = crate::permissions::gate(reach, session, tab, "browser_evaluate", ctx).await?;
        let mut answer = evaluate(reach.custody.tabs, tab, node.zip(params.element_ref.clone()), params, ctx).await?;
        if let Some(note) = allowed {
            answer.text = format!("{note}\n{}", answer.text);
        }
        Ok(answer)
    })
    .await
}

/// Runs the function of `params` on the tab, locked and attached: on `node` (with its ref)
/// when the call names one, else on the document.
async fn evaluate(
    tabs: &TabsState,
    tab: i32,
    node: Option<(NodeKey, String)>,
    params: &EvaluateParams,
    ctx: &CallContext,
) -> ActionResult {
    let frame = match &node {
        Some((node, _)) => node.frame_id.clone(),
        None => tabs.registry.borrow().frames(tab).main_frame().to_owned(),
    };
    let at = match &node {
        Some((node, _)) => NodeTarget::of(tabs, tab, node),
        None => NodeTarget::frame(crate::chrome::DebuggeeTarget::main(tab), frame),
    };
    ctx.acting_on(tab);
    let context = if params.main_world {
        None
    } else {
        let world: World = at
            .send(
                "Page.createIsolatedWorld",
                serde_json::json!({"frameId": at.frame_id, "worldName": WORLD, "grantUniveralAccess": false}),
            )
            .await
            .map_err(ToolError::from)?;
        Some(world.execution_context_id)
    };
    let evaluated = match &node {
        Some((node, r)) => {
            let mut resolve = serde_json::json!({"backendNodeId": node.backend_node_id});
            if let Some(id) = context {
                resolve["executionContextId"] = id.into();
            }
            let element: input::ResolvedNode =
                at.send("DOM.resolveNode", resolve).await.map_err(|e| input::node_error(e, r))?;
            let object = element.object.object_id;
            let called = at
                .send::<Evaluated>(
                    "Runtime.callFunctionOn",
                    serde_json::json!({"objectId": object, "functionDeclaration": format!("function () {{ return ({})(this); }}", params.function),
                        "returnByValue": true, "awaitPromise": true, "userGesture": true}),
                )
                .await;
            input::release(&at, &object).await;
            called.map_err(|e| ToolError::from(e).or_timed_out(TOOL, "the function"))?
        }
        None => {
            let mut evaluate = serde_json::json!({"expression": format!("({})()", params.function), "returnByValue": true,
                "awaitPromise": true, "userGesture": true, "timeout": RUN_LIMIT_MS});
            if let Some(id) = context {
                evaluate["contextId"] = id.into();
            }
            let started = crate::timer::now_ms();
            cdp::send_to(&at.target, "Runtime.evaluate", evaluate, RUN_LIMIT_MS + cdp::COMMAND_TIMEOUT_MS)
                .await
                .map_err(|e| match e {
                    // The run limit stops a function still running, and the browser then answers
                    // with an internal error.
                    CdpError::Failed { .. } if crate::timer::now_ms() - started >= f64::from(RUN_LIMIT_MS) => {
                        ToolError::TimedOut { tool: TOOL, what: "the function", after_ms: RUN_LIMIT_MS }
                    }
                    other => ToolError::from(other).or_timed_out(TOOL, "the function"),
                })?
        }
    };
    let world = if params.main_world { "the page's world" } else { "an isolated world" };
    if let Some(exception) = evaluated.exception {
        let what = exception["exception"]["description"]
            .as_str()
            .or_else(|| exception["text"].as_str())
            .unwrap_or("an exception");
        return Err(Failure::Explained(format!(
            "browser_evaluate: the function threw in {world}: {}",
            escape::quote(&escape::cap(what, 2_000))
        )));
    }
    let value = match (evaluated.result.value, evaluated.result.kind.as_str()) {
        (Some(value), _) => written(&value),
        (None, "undefined") => "undefined".to_owned(),
        (None, _) => escape::quote(evaluated.result.description.as_deref().unwrap_or("a value JSON cannot hold")),
    };
    let value = shown(&value);
    let structured = serde_json::json!({"world": if params.main_world { "main" } else { "isolated" }});
    Ok(ToolOutput {
        structured: Some(structured),
        ..ToolOutput::text(format!("browser_evaluate returned, in {world}: {value}"))
    })
}

/// `value` as JSON on one line, with every string (keys too) quoted as page text is.
fn written(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => escape::quote(s),
        serde_json::Value::Array(items) => format!("[{}]", items.iter().map(written).collect::<Vec<_>>().join(",")),
        serde_json::Value::Object(map) => format!(
            "{{{}}}",
            map.iter().map(|(k, v)| format!("{}:{}", escape::quote(k), written(v))).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// The result as the answer shows it: at most [`MOST_RESULT_BYTES`], with how many bytes were
/// cut when it is longer.
fn shown(value: &str) -> std::borrow::Cow<'_, str> {
    escape::cap(value, MOST_RESULT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_result_says_how_many_bytes_were_cut_at_a_character_boundary() {
        // A three-byte character straddles the limit: it is cut whole, and counted.
        let value = format!("{}€{}", "a".repeat(MOST_RESULT_BYTES - 1), "b".repeat(10));
        let shown = shown(&value);
        let kept = "a".repeat(MOST_RESULT_BYTES - 1);
        assert_eq!(shown, format!("{kept}…[cut 13 bytes]"));
        assert_eq!(super::shown("short"), "short");
    }
}
