//! `sightline-host mcp`: the MCP server an agent's client launches on stdio.
//!
//! Every tool call is forwarded over a bridge socket to the browser that runs the extension.
//! The server holds no page state of its own (the extension runtime is the one authority): it
//! declares the tools, hands each call to a [`BridgeClient`] (which finds a live bridge of the
//! same version; with no browser connected, each tool answers with what to do, and a browser
//! that starts later is picked up on the next call), and maps the result onto MCP.
//!
//! An MCP `notifications/cancelled` for a call reaches the tool as its request's cancellation
//! token; the call is then called off in the browser, where it stops before acting if it has
//! not acted yet.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use sightline_core::protocol::{CallError, Cap, Gate, HostStep, TOOLS, ToolCall, ToolOutput, ToolSpec};

use crate::client::bridge_client::{BridgeClient, Choice, DEFAULT_TIME_LIMIT};
use crate::transport::link;

const INSTRUCTIONS: &str = "Sightline drives the user's own browser. Read a page with browser_snapshot, act on \
elements by ref (e12). Actions answer with what changed. Only tabs you opened or the user shared are reachable.";

/// The MCP server.
#[derive(Clone)]
pub struct SightlineMcp {
    client: Arc<BridgeClient>,
    /// Every declared tool as `tools/list` describes it, in the order it lists them (by name).
    tools: Arc<Vec<(&'static ToolSpec, Tool)>>,
    /// Whether the user allows the tools gated by the extension's options (`browser_evaluate`),
    /// as the browser said in its latest answer (off until it says otherwise): they are listed
    /// only then.
    allowed_in_options: Arc<AtomicBool>,
    /// The optional groups of tools this session lists.
    caps: Arc<Vec<Cap>>,
}

/// How `sightline-host mcp` reaches the browser.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where bridge sockets are.
    pub socket_dir: PathBuf,
    /// Which browser to use when several are open.
    pub choice: Choice,
    /// How long each call may run.
    pub time_limit: Duration,
    /// Optional groups of tools the client asked for (`--caps`).
    pub caps: Vec<Cap>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            socket_dir: crate::transport::socket::socket_dir(),
            choice: Choice::default(),
            time_limit: DEFAULT_TIME_LIMIT,
            caps: Vec::new(),
        }
    }
}

/// Runs the MCP server on stdin/stdout until the client disconnects.
pub async fn run(options: Options) -> anyhow::Result<()> {
    let server = SightlineMcp::new(options);
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

/// A declared tool as `tools/list` describes it: its compacted schemas and its annotations.
fn describe(spec: &'static ToolSpec) -> Tool {
    let input = crate::client::schema::compact(&(spec.input_schema)());
    let mut tool = Tool::new_with_raw(spec.name, Some(spec.description.into()), Arc::new(input))
        .with_annotations(crate::client::annotations::for_effect(spec.effect));
    if let Some(output) = spec.output_schema() {
        tool = tool.with_raw_output_schema(Arc::new(crate::client::schema::compact_output(&output)));
    }
    tool
}

impl SightlineMcp {
    /// A server with a fresh session id.
    pub fn new(options: Options) -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let mut tools: Vec<(&'static ToolSpec, Tool)> = TOOLS.iter().map(|spec| (spec, describe(spec))).collect();
        tools.sort_by(|(a, _), (b, _)| a.name.cmp(b.name));
        let session = format!("{}-{nanos:x}", std::process::id());
        let caps = Arc::new(options.caps);
        let client = BridgeClient::new(session, options.socket_dir, options.choice, options.time_limit);
        Self {
            client: Arc::new(client),
            tools: Arc::new(tools),
            allowed_in_options: Arc::new(AtomicBool::new(false)),
            caps,
        }
    }

    /// Every declared tool, listed or not (`browser_evaluate` while off, the tools of a group
    /// the session did not ask for).
    #[cfg(test)]
    pub fn declared_tools(&self) -> Vec<Tool> {
        self.tools.iter().map(|(_, tool)| tool.clone()).collect()
    }

    /// Whether this session lists the tool `spec` declares: its gate is open, its group was
    /// asked for, or the user allows it in the extension's options.
    fn lists(&self, spec: &ToolSpec) -> bool {
        match spec.gate {
            Gate::Open => true,
            Gate::Cap(cap) => self.caps.contains(&cap),
            Gate::AllowedInOptions => self.allowed_in_options.load(Ordering::Relaxed),
        }
    }

    /// The tools as `tools/list` lists them: every tool whose gate this session passes.
    pub fn listed_tools(&self) -> Vec<Tool> {
        self.tools.iter().filter(|(spec, _)| self.lists(spec)).map(|(_, tool)| tool.clone()).collect()
    }

    /// Reads one `tools/call` into a [`ToolCall`] and forwards it. Arguments that do not fit
    /// the tool are answered as a tool error naming what is wrong, so the agent reads it; a
    /// name that is no tool is a protocol error, as for any unknown method.
    async fn call(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        match ToolCall::from_arguments(&request.name, arguments) {
            Ok(call) => Ok(self.forward(call, ctx).await),
            Err(error @ CallError::Arguments(_)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(error.to_string())]))
            }
            Err(CallError::NoSuchTool) => Err(McpError::invalid_params(
                format!("tool not found: there is no tool called {:?}; tools/list names them", request.name),
                None,
            )),
        }
    }

    /// Forwards one call to the browser and maps its output onto MCP; a cancellation from the
    /// client calls it off. A tool of a group the session did not ask for is refused, and the
    /// host's own step for the tool is taken first.
    async fn forward(&self, mut call: ToolCall, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let spec = call.spec();
        if let Gate::Cap(cap) = spec.gate
            && !self.caps.contains(&cap)
        {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "{} is not enabled in this session: it is a last resort for what has no ref. Use the element's ref \
                 with browser_click or browser_drag, or start the server with `sightline-host mcp --caps {}`.",
                spec.name,
                cap.name()
            ))]);
        }
        // Gate::AllowedInOptions is not checked here: the extension refuses the tool while the
        // user does not allow it, whatever the host believes.
        match spec.host_step {
            None => {}
            Some(HostStep::CheckUploadPaths) => {
                // The browser cannot look at files: they are checked here, before the call
                // leaves, and the browser is given the paths they resolve to, which are what
                // was checked.
                if let Some(paths) = call.upload_paths_mut() {
                    match uploads::check(paths) {
                        Ok(resolved) => *paths = resolved,
                        Err(text) => {
                            return CallToolResult::error(vec![ContentBlock::text(format!("{}: {text}", spec.name))]);
                        }
                    }
                }
            }
        }
        if let Some(info) = ctx.peer.peer_info() {
            self.client.set_client_name(&info.client_info.name);
        }
        let tool = spec.name;
        let (waiting, question) = tokio::sync::watch::channel(None);
        let answer = self.client.call(call, ctx.ct.cancelled_owned(), &waiting);
        let output = match ctx.meta.get_progress_token() {
            None => answer.await,
            Some(token) => with_progress(answer, tool, token, question, &ctx.peer).await,
        };
        // The user turned browser_evaluate on or off: the client lists the tools again.
        if let Some(allowed) = output.evaluate_allowed
            && self.allowed_in_options.swap(allowed, Ordering::Relaxed) != allowed
        {
            let _ = ctx.peer.notify_tool_list_changed().await;
        }
        to_mcp(output)
    }
}

impl ServerHandler for SightlineMcp {
    /// See [`SightlineMcp::listed_tools`].
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.listed_tools()))
    }

    /// See [`SightlineMcp::call`].
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, context).await.map(CallToolResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|(spec, _)| spec.name == name && self.lists(spec)).map(|(_, tool)| tool.clone())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("sightline", link::HOST_VERSION))
            .with_instructions(INSTRUCTIONS)
    }
}

impl Default for SightlineMcp {
    fn default() -> Self {
        Self::new(Options::default())
    }
}

/// How often a client that sent a progress token hears that a call is still running.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Awaits `answer`, telling the client every [`PROGRESS_EVERY`] that `tool` is still running
/// (a navigation waiting for a slow page, a long wait), so it neither times out nor leaves the
/// person guessing; while the call waits for the person to answer a question in the browser
/// (`question` holds it), the note says so, at once and then every tick. The progress value is
/// the seconds elapsed; no total is known.
async fn with_progress<F: std::future::Future<Output = ToolOutput>>(
    answer: F,
    tool: &str,
    token: ProgressToken,
    mut question: tokio::sync::watch::Receiver<Option<String>>,
    peer: &Peer<RoleServer>,
) -> ToolOutput {
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    let mut asking = true;
    let mut last = 0.0_f64;
    tokio::pin!(answer);
    loop {
        tokio::select! {
            output = &mut answer => return output,
            _ = ticks.tick() => {}
            changed = question.changed(), if asking => {
                // The sender is gone only once the call has ended.
                asking = changed.is_ok();
                if !asking {
                    continue;
                }
            }
        }
        let elapsed = started.elapsed();
        let message = progress_message(tool, elapsed.as_secs(), question.borrow().as_deref());
        // Progress must rise from note to note, and a question can come between two ticks.
        let progress = (elapsed.as_millis() as f64 / 1000.0).max(last + 0.001);
        last = progress;
        let note = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
        // A client that went away is noticed by the call itself; a lost note is harmless.
        let _ = peer.notify_progress(note).await;
    }
}

/// What a progress note says: what the call waits for, when it waits for the person.
fn progress_message(tool: &str, seconds: u64, question: Option<&str>) -> String {
    match question {
        Some(question) => format!("waiting for the person to answer: {question}"),
        None => format!("{tool}: still running after {seconds} s"),
    }
}

#[cfg(test)]
mod progress_tests {
    use super::progress_message;

    #[test]
    fn a_call_waiting_for_the_person_says_what_it_waits_for() {
        assert_eq!(progress_message("browser_click", 3, None), "browser_click: still running after 3 s");
        assert_eq!(
            progress_message("browser_click", 3, Some("click \"Place order\" (submit) on shop.example")),
            "waiting for the person to answer: click \"Place order\" (submit) on shop.example"
        );
    }
}

#[cfg(test)]
mod argument_fuzz;
#[cfg(test)]
mod gates;
#[cfg(test)]
mod list_budget;
mod uploads;

fn to_mcp(output: ToolOutput) -> CallToolResult {
    let mut content = vec![ContentBlock::text(output.text)];
    if let Some(image) = output.image {
        content.push(ContentBlock::image(image.base64, image.mime));
    }
    let mut result = if output.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    result.structured_content = output.structured;
    result
}
