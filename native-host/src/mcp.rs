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

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use sightline_core::page_state::pointed::UserSelectionFacts;
use sightline_core::protocol::{ChangesParams, CheckpointParams, ConsoleMessagesParams, NetworkRequestsParams};
use sightline_core::protocol::{
    ClickParams, FindParams, HandleDialogParams, HoverParams, NavigateParams, PressKeyParams, SelectOptionParams,
    SnapshotFacts, SnapshotParams, TabsParams, ToolCall, ToolOutput, TypeParams, UserSelectionParams,
};
use sightline_core::protocol::{DragParams, FillFormParams, ScrollParams, WaitForParams};
use sightline_core::protocol::{
    EvaluateParams, FileUploadParams, MouseClickXyParams, MouseDragXyParams, ScreenshotParams, SelectTextParams,
};

use crate::bridge_client::{BridgeClient, Choice, DEFAULT_TIME_LIMIT};
use crate::link;

const INSTRUCTIONS: &str = "Sightline drives the user's own browser. Read a page with browser_snapshot, act on \
elements by ref (e12). Actions answer with what changed. Only tabs you opened or the user shared are reachable.";

/// The MCP server.
#[derive(Clone)]
pub struct SightlineMcp {
    client: Arc<BridgeClient>,
    tool_router: ToolRouter<Self>,
    /// Whether the user allows `browser_evaluate`, as the browser said in its latest answer
    /// (off until it says otherwise): the tool is listed only then.
    evaluate: Arc<AtomicBool>,
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

/// An optional group of tools, listed only when `sightline-host mcp --caps` names it (the
/// names follow Playwright MCP's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Cap {
    /// Clicks and drags at coordinates (`browser_mouse_click_xy`, `browser_mouse_drag_xy`), a
    /// last resort for what has no element, such as a canvas.
    Vision,
}

impl Cap {
    /// The tools this group adds.
    fn tools(self) -> &'static [&'static str] {
        match self {
            Cap::Vision => &["browser_mouse_click_xy", "browser_mouse_drag_xy"],
        }
    }

    /// The group a tool belongs to, if any.
    fn of(tool: &str) -> Option<Cap> {
        [Cap::Vision].into_iter().find(|cap| cap.tools().contains(&tool))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            socket_dir: crate::socket::socket_dir(),
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

#[tool_router]
impl SightlineMcp {
    /// A server with a fresh session id.
    pub fn new(options: Options) -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let mut tool_router = Self::tool_router();
        for route in tool_router.map.values_mut() {
            route.attr.annotations = crate::annotations::for_tool(&route.attr.name);
            route.attr.input_schema = Arc::new(crate::schema::compact(&route.attr.input_schema));
            if let Some(output) = &route.attr.output_schema {
                route.attr.output_schema = Some(Arc::new(crate::schema::compact_output(output)));
            }
        }
        let session = format!("{}-{nanos:x}", std::process::id());
        let caps = Arc::new(options.caps);
        let client = BridgeClient::new(session, options.socket_dir, options.choice, options.time_limit);
        Self { client: Arc::new(client), tool_router, evaluate: Arc::new(AtomicBool::new(false)), caps }
    }

    #[tool(description = "List, open (new), select or close tabs. Only tabs you opened or the user shared are listed.")]
    async fn browser_tabs(
        &self,
        Parameters(p): Parameters<TabsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserTabs(p), ctx).await)
    }

    #[tool(description = "Go to a URL, or back/forward/reload. Waits for load and a quiet DOM.")]
    async fn browser_navigate(
        &self,
        Parameters(p): Parameters<NavigateParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserNavigate(p), ctx).await)
    }

    #[tool(
        description = "Read the current page: text and actionable elements with refs.",
        output_schema = rmcp::handler::server::tool::schema_for_output::<SnapshotFacts>()
    )]
    async fn browser_snapshot(
        &self,
        Parameters(p): Parameters<SnapshotParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserSnapshot(p), ctx).await)
    }

    #[tool(description = "Click an element by ref.")]
    async fn browser_click(
        &self,
        Parameters(p): Parameters<ClickParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserClick(p), ctx).await)
    }

    #[tool(description = "Replace the text of an input or editable element by ref.")]
    async fn browser_type(
        &self,
        Parameters(p): Parameters<TypeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserType(p), ctx).await)
    }

    #[tool(description = "Press a key or chord (Enter, ArrowDown, Control+a), optionally on an element.")]
    async fn browser_press_key(
        &self,
        Parameters(p): Parameters<PressKeyParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserPressKey(p), ctx).await)
    }

    #[tool(description = "Select options of a <select>, listbox or combobox by value or label.")]
    async fn browser_select_option(
        &self,
        Parameters(p): Parameters<SelectOptionParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserSelectOption(p), ctx).await)
    }

    #[tool(description = "Move the mouse over an element by ref (menus and tooltips that open on hover).")]
    async fn browser_hover(
        &self,
        Parameters(p): Parameters<HoverParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserHover(p), ctx).await)
    }

    #[tool(
        description = "Accept or dismiss the page's alert, confirm or prompt dialog (an action says when it opened one)."
    )]
    async fn browser_handle_dialog(
        &self,
        Parameters(p): Parameters<HandleDialogParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserHandleDialog(p), ctx).await)
    }

    #[tool(description = "Find elements by text, role or region, including regions shown as unchanged or trimmed.")]
    async fn browser_find(
        &self,
        Parameters(p): Parameters<FindParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserFind(p), ctx).await)
    }

    #[tool(
        description = "Fill several form fields in one call.",
        output_schema = page_answer()
    )]
    async fn browser_fill_form(
        &self,
        Parameters(p): Parameters<FillFormParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserFillForm(p), ctx).await)
    }

    #[tool(
        description = "Scroll the page or an element; the answer shows what appeared.",
        output_schema = page_answer()
    )]
    async fn browser_scroll(
        &self,
        Parameters(p): Parameters<ScrollParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserScroll(p), ctx).await)
    }

    #[tool(description = "Wait for text to appear or go, an element to go, or a time.", output_schema = page_answer())]
    async fn browser_wait_for(
        &self,
        Parameters(p): Parameters<WaitForParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserWaitFor(p), ctx).await)
    }

    #[tool(description = "Drag an element onto another, or by dx/dy pixels.", output_schema = page_answer())]
    async fn browser_drag(
        &self,
        Parameters(p): Parameters<DragParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserDrag(p), ctx).await)
    }

    #[tool(
        description = "Screenshot of the viewport, the whole page or an element.",
        output_schema = object_schema(serde_json::json!({"width": {"type": "integer"}, "height": {"type": "integer"}}))
    )]
    async fn browser_take_screenshot(
        &self,
        Parameters(p): Parameters<ScreenshotParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserTakeScreenshot(p), ctx).await)
    }

    #[tool(
        description = "Click at viewport CSS pixels. Last resort, for what has no ref (canvas).",
        output_schema = page_answer()
    )]
    async fn browser_mouse_click_xy(
        &self,
        Parameters(p): Parameters<MouseClickXyParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserMouseClickXy(p), ctx).await)
    }

    #[tool(
        description = "Drag between viewport CSS pixels. Last resort, for what has no ref.",
        output_schema = page_answer()
    )]
    async fn browser_mouse_drag_xy(
        &self,
        Parameters(p): Parameters<MouseDragXyParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserMouseDragXy(p), ctx).await)
    }

    #[tool(
        description = "Choose files for a file input, or for the file chooser an action opened.",
        output_schema = page_answer()
    )]
    async fn browser_file_upload(
        &self,
        Parameters(p): Parameters<FileUploadParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        // The browser cannot look at files: they are checked here, before the call leaves, and
        // the browser is given the paths they resolve to, which are what was checked.
        let paths = match uploads::check(&p.paths) {
            Ok(resolved) => resolved,
            Err(text) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!("browser_file_upload: {text}"))]));
            }
        };
        Ok(self.forward(ToolCall::BrowserFileUpload(FileUploadParams { paths, ..p }), ctx).await)
    }

    #[tool(
        description = "Run a JavaScript function in the page (isolated world unless main_world); returns its JSON.",
        output_schema = object_schema(serde_json::json!({"world": {"type": "string"}}))
    )]
    async fn browser_evaluate(
        &self,
        Parameters(p): Parameters<EvaluateParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        // Listed only while the user allows it; the extension refuses it otherwise, whatever
        // the host believes.
        Ok(self.forward(ToolCall::BrowserEvaluate(p), ctx).await)
    }

    #[tool(description = "Select words on the page or in an element, as a person drags over them.", output_schema = page_answer())]
    async fn browser_select_text(
        &self,
        Parameters(p): Parameters<SelectTextParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserSelectText(p), ctx).await)
    }

    #[tool(description = "What changed since your previous call (or a checkpoint or ISO time): new console errors, \
                       failed/new/slow requests, WebSocket closes, actions, as small JSON.")]
    async fn get_changes_since(
        &self,
        Parameters(p): Parameters<ChangesParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::GetChangesSince(p), ctx).await)
    }

    #[tool(description = "Create, list or delete named checkpoints to compare against with get_changes_since.")]
    async fn browser_checkpoint(
        &self,
        Parameters(p): Parameters<CheckpointParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserCheckpoint(p), ctx).await)
    }

    #[tool(description = "Console messages of your tabs, newest last, a page at a time (page 1 is the newest).")]
    async fn browser_console_messages(
        &self,
        Parameters(p): Parameters<ConsoleMessagesParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserConsoleMessages(p), ctx).await)
    }

    #[tool(description = "Requests of your tabs (method, status, time, size; unanswered ones as pending, with their \
                       age), newest last, a page at a time (page 1 is the newest).")]
    async fn browser_network_requests(
        &self,
        Parameters(p): Parameters<NetworkRequestsParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserNetworkRequests(p), ctx).await)
    }

    #[tool(
        description = "The element the user pointed at for you (selected in DevTools or picked in the Sightline \
                       panel): its ref and snapshot line.",
        output_schema = rmcp::handler::server::tool::schema_for_output::<UserSelectionFacts>()
    )]
    async fn browser_user_selection(
        &self,
        Parameters(p): Parameters<UserSelectionParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self.forward(ToolCall::BrowserUserSelection(p), ctx).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SightlineMcp {
    /// See [`SightlineMcp::listed_tools`].
    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, McpError> {
        Ok(rmcp::model::ListToolsResult::with_all_items(self.listed_tools()))
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

impl SightlineMcp {
    /// Every tool the server routes, listed or not (`browser_evaluate` while off, the tools of a
    /// group the session did not ask for).
    #[cfg(test)]
    pub fn routed_tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// The tools as `tools/list` lists them: every tool, `browser_evaluate` only while the user
    /// allows it, and the tools of an optional group ([`Cap`]) only when the session asked for it.
    pub fn listed_tools(&self) -> Vec<rmcp::model::Tool> {
        let evaluate = self.evaluate.load(Ordering::Relaxed);
        self.tool_router
            .list_all()
            .into_iter()
            .filter(|t| evaluate || t.name != "browser_evaluate")
            .filter(|t| Cap::of(&t.name).is_none_or(|cap| self.caps.contains(&cap)))
            .collect()
    }

    /// Forwards one call to the browser and maps its output onto MCP; a cancellation from the
    /// client calls it off.
    async fn forward(&self, call: ToolCall, ctx: RequestContext<RoleServer>) -> CallToolResult {
        if let Some(cap) = Cap::of(call.name()).filter(|cap| !self.caps.contains(cap)) {
            let name = format!("{cap:?}").to_lowercase();
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "{} is not enabled in this session: it is a last resort for what has no ref. Use the element's ref \
                 with browser_click or browser_drag, or start the server with `sightline-host mcp --caps {name}`.",
                call.name()
            ))]);
        }
        if let Some(info) = ctx.peer.peer_info() {
            self.client.set_client_name(&info.client_info.name);
        }
        let tool = call.name();
        let answer = self.client.call(call, ctx.ct.cancelled_owned());
        let output = match ctx.meta.get_progress_token() {
            None => answer.await,
            Some(token) => with_progress(answer, tool, token, &ctx.peer).await,
        };
        // The user turned browser_evaluate on or off: the client lists the tools again.
        if let Some(allowed) = output.evaluate_allowed
            && self.evaluate.swap(allowed, Ordering::Relaxed) != allowed
        {
            let _ = ctx.peer.notify_tool_list_changed().await;
        }
        to_mcp(output)
    }
}

/// How often a client that sent a progress token hears that a call is still running.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Awaits `answer`, telling the client every [`PROGRESS_EVERY`] that `tool` is still running
/// (a navigation waiting for a slow page, a long wait), so it neither times out nor leaves the
/// person guessing. The progress value is the seconds elapsed; no total is known.
async fn with_progress<F: std::future::Future<Output = ToolOutput>>(
    answer: F,
    tool: &str,
    token: ProgressToken,
    peer: &Peer<RoleServer>,
) -> ToolOutput {
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    tokio::pin!(answer);
    loop {
        tokio::select! {
            output = &mut answer => return output,
            _ = ticks.tick() => {
                let seconds = started.elapsed().as_secs();
                let note = ProgressNotificationParam::new(token.clone(), seconds as f64)
                    .with_message(format!("{tool}: still running after {seconds} s"));
                // A client that went away is noticed by the call itself; a lost note is harmless.
                let _ = peer.notify_progress(note).await;
            }
        }
    }
}

#[cfg(test)]
mod argument_fuzz;
#[cfg(test)]
mod list_budget;
mod uploads;

/// The output schema of tools that answer with the page: what kind of answer it is (`full`,
/// `no_change`, `delta`, `overlay_opened`, `overlay_closed`, `dialog_opened`), with the facts
/// of that kind (the version among them) beside it. Only the kind is declared: every byte here
/// is paid for in every session.
fn page_answer() -> Arc<rmcp::model::JsonObject> {
    object_schema(serde_json::json!({"kind": {"type": "string"}}))
}

/// An object schema with these `properties`.
fn object_schema(properties: serde_json::Value) -> Arc<rmcp::model::JsonObject> {
    let mut schema = rmcp::model::JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), properties);
    Arc::new(schema)
}

fn to_mcp(output: ToolOutput) -> CallToolResult {
    let mut content = vec![ContentBlock::text(output.text)];
    if let Some(image) = output.image {
        content.push(ContentBlock::image(image.base64, image.mime));
    }
    let mut result = if output.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    result.structured_content = output.structured;
    result
}
