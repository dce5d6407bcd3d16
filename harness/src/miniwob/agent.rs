//! The solvers' one way to a page: a small abstract interface (read the page, click, type,
//! press a key, select, hover, drag, scroll, wait, select text…) with an adapter per server
//! that maps each operation to that server's own tool and argument names, and reads its replies
//! into [`Page`]s.
//!
//! An operation whose tool the server does not list in `tools/list` fails with
//! [`Failure::NoTool`] before anything is sent: never a silent skip, never a fake success.
//! `browser_evaluate` (and the peers' script tools) are never called, and nothing here reads the
//! DOM: a solver knows only what the replies show. Every call and its reply is recorded for the
//! report (tokens, wall time).

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::formats;
use super::page::Page;
use crate::client::{McpClient, Reply};

pub use super::page::Node;

/// One navigation (the servers wait for `load` themselves).
const NAVIGATE_LIMIT: Duration = Duration::from_secs(60);
/// One snapshot.
const SNAPSHOT_LIMIT: Duration = Duration::from_secs(60);
/// One action (above the 30 s a server may itself wait for a navigation to load, so its own
/// answer arrives rather than a timeout here).
const ACTION_LIMIT: Duration = Duration::from_secs(45);
/// Pages of one long Sightline snapshot read at most.
const MAX_SNAPSHOT_PAGES: u64 = 20;

/// The server under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Server {
    /// Sightline: `sightline-host mcp`, the extension in Chromium.
    Sightline,
    /// Playwright MCP (`@playwright/mcp`).
    Playwright,
    /// chrome-devtools-mcp.
    Devtools,
}

impl Server {
    /// Every server, Sightline first.
    pub const ALL: [Server; 3] = [Server::Sightline, Server::Playwright, Server::Devtools];

    /// The name shown in reports.
    pub fn label(self) -> &'static str {
        match self {
            Server::Sightline => "Sightline",
            Server::Playwright => "Playwright MCP",
            Server::Devtools => "chrome-devtools-mcp",
        }
    }

    /// A file-name-safe name.
    pub fn slug(self) -> &'static str {
        match self {
            Server::Sightline => "sightline",
            Server::Playwright => "playwright-mcp",
            Server::Devtools => "chrome-devtools-mcp",
        }
    }

    /// The npm package of a peer (`None` for Sightline).
    pub fn package(self) -> Option<&'static str> {
        match self {
            Server::Sightline => None,
            Server::Playwright => Some("@playwright/mcp"),
            Server::Devtools => Some("chrome-devtools-mcp"),
        }
    }

    /// The tool that reads the whole page.
    pub fn snapshot_tool(self) -> &'static str {
        match self {
            Server::Sightline | Server::Playwright => "browser_snapshot",
            Server::Devtools => "take_snapshot",
        }
    }
}

/// An operation of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Load a URL.
    Navigate,
    /// Read the whole page.
    Snapshot,
    /// Click an element.
    Click,
    /// Double-click an element.
    DoubleClick,
    /// Replace a field's text.
    Type,
    /// Press a key (on an element, or where focus is).
    PressKey,
    /// Pick options of a select.
    Select,
    /// Move the pointer over an element.
    Hover,
    /// Drag an element onto another.
    Drag,
    /// Drag an element by an offset.
    DragBy,
    /// Scroll an element (or the page).
    Scroll,
    /// Wait until a text shows.
    WaitFor,
    /// Select an element's text.
    SelectText,
    /// Fill several fields in one call.
    FillForm,
    /// Put files into a file input.
    Upload,
    /// Accept or dismiss a JavaScript dialog.
    Dialog,
    /// Take a screenshot (no solver reads one: they do not see images).
    Screenshot,
    /// Click at a point (coordinates; a last resort).
    ClickAt,
    /// Drag from a point to another (coordinates; a last resort).
    DragAt,
}

impl Operation {
    /// Every operation, in the order reports list them.
    pub const ALL: [Operation; 19] = [
        Operation::Navigate,
        Operation::Snapshot,
        Operation::Click,
        Operation::DoubleClick,
        Operation::Type,
        Operation::PressKey,
        Operation::Select,
        Operation::Hover,
        Operation::Drag,
        Operation::DragBy,
        Operation::Scroll,
        Operation::WaitFor,
        Operation::SelectText,
        Operation::FillForm,
        Operation::Upload,
        Operation::Dialog,
        Operation::Screenshot,
        Operation::ClickAt,
        Operation::DragAt,
    ];

    /// The operation's name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Operation::Navigate => "navigate",
            Operation::Snapshot => "snapshot",
            Operation::Click => "click",
            Operation::DoubleClick => "double click",
            Operation::Type => "type",
            Operation::PressKey => "press key",
            Operation::Select => "select option",
            Operation::Hover => "hover",
            Operation::Drag => "drag onto",
            Operation::DragBy => "drag by offset",
            Operation::Scroll => "scroll",
            Operation::WaitFor => "wait for text",
            Operation::SelectText => "select text",
            Operation::FillForm => "fill a form",
            Operation::Upload => "upload files",
            Operation::Dialog => "answer a dialog",
            Operation::Screenshot => "screenshot",
            Operation::ClickAt => "click at x,y",
            Operation::DragAt => "drag x,y to x,y",
        }
    }

    /// The tool `server` does this with (the first step, when it takes more than one call).
    pub fn tool(self, server: Server) -> Option<&'static str> {
        use Operation as O;
        match server {
            Server::Sightline => Some(match self {
                O::Navigate => "browser_navigate",
                O::Snapshot => "browser_snapshot",
                O::Click | O::DoubleClick => "browser_click",
                O::Type => "browser_type",
                O::PressKey => "browser_press_key",
                O::Select => "browser_select_option",
                O::Hover => "browser_hover",
                O::Drag | O::DragBy => "browser_drag",
                O::Scroll => "browser_scroll",
                O::WaitFor => "browser_wait_for",
                O::SelectText => "browser_select_text",
                O::FillForm => "browser_fill_form",
                O::Upload => "browser_file_upload",
                O::Dialog => "browser_handle_dialog",
                O::Screenshot => "browser_take_screenshot",
                O::ClickAt => "browser_mouse_click_xy",
                O::DragAt => "browser_mouse_drag_xy",
            }),
            Server::Playwright => match self {
                O::Navigate => Some("browser_navigate"),
                O::Snapshot => Some("browser_snapshot"),
                O::Click | O::DoubleClick => Some("browser_click"),
                O::Type => Some("browser_type"),
                O::PressKey => Some("browser_press_key"),
                O::Select => Some("browser_select_option"),
                O::Hover => Some("browser_hover"),
                O::Drag => Some("browser_drag"),
                O::WaitFor => Some("browser_wait_for"),
                // Only with `--caps vision`, which the harness does not give it: solvers read
                // no coordinates.
                O::FillForm => Some("browser_fill_form"),
                O::Upload => Some("browser_file_upload"),
                O::Dialog => Some("browser_handle_dialog"),
                O::Screenshot => Some("browser_take_screenshot"),
                O::ClickAt => Some("browser_mouse_click_xy"),
                O::DragAt => Some("browser_mouse_drag_xy"),
                O::DragBy | O::Scroll | O::SelectText => None,
            },
            Server::Devtools => match self {
                O::Navigate => Some("navigate_page"),
                O::Snapshot => Some("take_snapshot"),
                O::Click | O::DoubleClick => Some("click"),
                O::Type | O::Select => Some("fill"),
                O::PressKey => Some("press_key"),
                O::Hover => Some("hover"),
                O::Drag => Some("drag"),
                O::WaitFor => Some("wait_for"),
                O::FillForm => Some("fill_form"),
                O::Upload => Some("upload_file"),
                O::Dialog => Some("handle_dialog"),
                O::Screenshot => Some("take_screenshot"),
                O::ClickAt => Some("click_at"),
                O::DragBy | O::Scroll | O::SelectText | O::DragAt => None,
            },
        }
    }
}

/// Why an operation (and so an episode) did not go through.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server has no tool for the operation (none in its `tools/list`).
    NoTool {
        /// The operation.
        operation: Operation,
        /// The tool it would use, if the server has a name for one.
        tool: Option<&'static str>,
    },
    /// What the solver needs is not in what the server shows (no ref on the element, a
    /// widget the snapshot leaves out…).
    NotShown {
        /// What was missing.
        what: String,
    },
    /// The tool answered with an error.
    ToolError {
        /// The tool.
        tool: String,
        /// The start of its answer.
        message: String,
    },
    /// The call failed at the protocol level or ran out of time.
    Protocol {
        /// The tool.
        tool: String,
        /// What happened.
        message: String,
    },
    /// The solver could not decide from what it read (an instruction it does not understand).
    Undecided {
        /// Why.
        why: String,
    },
}

impl Failure {
    /// The short reason a report groups by.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::NoTool { .. } => "no tool",
            Failure::NotShown { .. } => "wrong snapshot",
            Failure::ToolError { .. } => "tool error",
            Failure::Protocol { .. } => "protocol error",
            Failure::Undecided { .. } => "could not decide",
        }
    }

    /// A failure for something the page as shown lacks.
    pub fn not_shown(what: impl Into<String>) -> Failure {
        Failure::NotShown { what: what.into() }
    }

    /// A failure for an instruction or page the solver cannot read.
    pub fn undecided(why: impl Into<String>) -> Failure {
        Failure::Undecided { why: why.into() }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::NoTool { operation, tool: Some(tool) } => {
                write!(f, "no tool: {} needs `{tool}`, which is not in tools/list", operation.label())
            }
            Failure::NoTool { operation, tool: None } => write!(f, "no tool: nothing to {} with", operation.label()),
            Failure::NotShown { what } => write!(f, "wrong snapshot: {what}"),
            Failure::ToolError { tool, message } => write!(f, "{tool} answered with an error: {message}"),
            Failure::Protocol { tool, message } => write!(f, "{tool}: {message}"),
            Failure::Undecided { why } => write!(f, "could not decide: {why}"),
        }
    }
}

impl std::error::Error for Failure {}

/// What a solver step returns.
pub type Step<T = ()> = Result<T, Failure>;

/// One tool call and its reply, as recorded for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Call {
    /// The tool.
    pub tool: String,
    /// Its arguments.
    pub args: Value,
    /// The reply's text (what a model reads).
    pub text: String,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// Wall time from request to reply.
    pub ms: f64,
}

/// A server seen through the interface, for one run of episodes.
pub struct Agent<'a> {
    server: Server,
    client: &'a McpClient,
    tools: BTreeSet<String>,
    /// chrome-devtools-mcp addresses pages by id.
    page_id: Option<u64>,
    calls: Vec<Call>,
    /// The page as the replies showed it: the last whole page, kept current from Sightline's
    /// deltas.
    view: Option<Page>,
    /// Sightline: the copy deltas are applied to.
    sightline_view: Option<formats::SightlineView>,
    /// Whether `view` is the page as it is now (nothing done since a whole page was shown, or
    /// every change since applied from deltas).
    current: bool,
    /// What the last reply showed (the whole page, or what a delta added or changed).
    last: Page,
    /// Operations a solver attempted that this server has no tool for.
    missing: BTreeSet<Operation>,
}

impl<'a> Agent<'a> {
    /// An agent on `client`, which speaks for `server`; reads its `tools/list` (and, for
    /// chrome-devtools-mcp, the id of its selected page). Neither call is recorded.
    pub async fn new(server: Server, client: &'a McpClient) -> anyhow::Result<Agent<'a>> {
        let listed = tokio::time::timeout(SNAPSHOT_LIMIT, client.peer().list_all_tools())
            .await
            .map_err(|_| anyhow::anyhow!("tools/list got no answer within {SNAPSHOT_LIMIT:?}"))??;
        let tools = listed.iter().map(|t| t.name.to_string()).collect();
        let mut agent = Agent {
            server,
            client,
            tools,
            page_id: None,
            calls: Vec::new(),
            view: None,
            sightline_view: None,
            current: false,
            last: Page::default(),
            missing: BTreeSet::new(),
        };
        if server == Server::Devtools {
            let listed = client.call("list_pages", json!({})).await?;
            agent.page_id = listed
                .text
                .lines()
                .filter(|l| l.contains("[selected]"))
                .find_map(|l| l.split_once(':').and_then(|(id, _)| id.trim().parse().ok()));
            anyhow::ensure!(agent.page_id.is_some(), "no selected page in list_pages: {}", listed.text);
        }
        Ok(agent)
    }

    /// The server.
    pub fn server(&self) -> Server {
        self.server
    }

    /// Whether `operation` has a tool on this server.
    pub fn can(&self, operation: Operation) -> bool {
        operation.tool(self.server).is_some_and(|t| self.tools.contains(t))
    }

    /// The calls recorded since the last [`Agent::take_calls`].
    pub fn take_calls(&mut self) -> Vec<Call> {
        std::mem::take(&mut self.calls)
    }

    /// Operations attempted that had no tool, since the agent started.
    pub fn missing(&self) -> &BTreeSet<Operation> {
        &self.missing
    }

    /// Forgets what the replies showed: the page changed behind the server's back (the harness
    /// started an episode).
    pub fn forget(&mut self) {
        self.view = None;
        self.sightline_view = None;
        self.current = false;
        self.last = Page::default();
    }

    /// What the last reply showed: the whole page, or the lines a delta added or changed.
    pub fn last_shown(&self) -> &Page {
        &self.last
    }

    // --- reading ------------------------------------------------------------------------------

    /// Loads `url` in the current tab.
    pub async fn navigate(&mut self, url: &str) -> Step<Page> {
        self.require(Operation::Navigate)?;
        let (tool, args) = match self.server {
            Server::Sightline | Server::Playwright => ("browser_navigate", json!({"url": url})),
            Server::Devtools => ("navigate_page", self.with_page(json!({"type": "url", "url": url}))),
        };
        let reply = self.call(tool, args, NAVIGATE_LIMIT).await?;
        self.take_in(&reply);
        Ok(self.last.clone())
    }

    /// The whole page as the server shows it now (always a call to its snapshot tool).
    pub async fn snapshot(&mut self) -> Step<Page> {
        self.require(Operation::Snapshot)?;
        let tool = Operation::Snapshot.tool(self.server).unwrap_or_default();
        let mut reply = self.call(tool, self.with_page(json!({})), SNAPSHOT_LIMIT).await?;
        if self.server == Server::Sightline {
            // A long page comes in pages; read them all.
            let mut next = reply.structured.as_ref().and_then(|s| s["next_page"].as_u64());
            while let Some(page) = next.filter(|&p| p <= MAX_SNAPSHOT_PAGES) {
                let more = self.call(tool, json!({"page": page}), SNAPSHOT_LIMIT).await?;
                next = more.structured.as_ref().and_then(|s| s["next_page"].as_u64());
                let body: String =
                    more.text.lines().skip_while(|l| !l.contains(" · v")).skip(1).collect::<Vec<_>>().join("\n");
                reply.text.push('\n');
                reply.text.push_str(&body);
                if let (Some(first), Some(more)) = (reply.structured.as_mut(), more.structured) {
                    let extra = more["elements"].as_array().cloned().unwrap_or_default();
                    if let Some(elements) = first["elements"].as_array_mut() {
                        elements.extend(extra);
                    }
                }
            }
        }
        self.take_in(&reply);
        if self.last.is_empty() {
            return Err(Failure::not_shown(format!("{tool} answered without a page: {}", first_line(&reply.text))));
        }
        Ok(self.last.clone())
    }

    /// The page as it is now: from the replies when they showed every change since the last
    /// whole page (nothing was done since, or Sightline's deltas were applied), otherwise from a
    /// fresh snapshot.
    pub async fn page(&mut self) -> Step<Page> {
        match (&self.view, self.current) {
            (Some(view), true) => Ok(view.clone()),
            _ => self.snapshot().await,
        }
    }

    /// The first node satisfying `wanted`, looked for in what the last reply showed, then (if
    /// it is not there) in the page as it is now ([`Agent::page`]).
    pub async fn look_for(&mut self, wanted: impl Fn(&Node) -> bool) -> Step<Option<Node>> {
        if let Some(node) = self.last.nodes.iter().find(|n| wanted(n)) {
            return Ok(Some(node.clone()));
        }
        let page = self.page().await?;
        Ok(page.nodes.into_iter().find(|n| wanted(n)))
    }

    /// Snapshots until `done` holds for the page (at most `attempts` snapshots, `pause` apart),
    /// for pages that change on their own (animations, delayed content). Returns the last page.
    pub async fn poll(&mut self, attempts: usize, pause: Duration, done: impl Fn(&Page) -> bool) -> Step<Page> {
        let mut page = self.page().await?;
        for _ in 1..attempts {
            if done(&page) {
                break;
            }
            tokio::time::sleep(pause).await;
            page = self.snapshot().await?;
        }
        Ok(page)
    }

    // --- acting -------------------------------------------------------------------------------

    /// Clicks `node`.
    pub async fn click(&mut self, node: &Node) -> Step<Page> {
        self.click_with(Operation::Click, node).await
    }

    /// Double-clicks `node`.
    pub async fn double_click(&mut self, node: &Node) -> Step<Page> {
        self.click_with(Operation::DoubleClick, node).await
    }

    async fn click_with(&mut self, operation: Operation, node: &Node) -> Step<Page> {
        self.require(operation)?;
        let r = reference(node)?;
        let double = operation == Operation::DoubleClick;
        let (tool, args) = match self.server {
            Server::Sightline if double => ("browser_click", json!({"ref": r, "double": true})),
            Server::Sightline => ("browser_click", json!({"ref": r})),
            Server::Playwright if double => {
                ("browser_click", json!({"target": r, "element": describe(node), "doubleClick": true}))
            }
            Server::Playwright => ("browser_click", json!({"target": r, "element": describe(node)})),
            Server::Devtools if double => ("click", self.with_page(json!({"uid": r, "dblClick": true}))),
            Server::Devtools => ("click", self.with_page(json!({"uid": r}))),
        };
        self.act(tool, args).await
    }

    /// Replaces the text of the field `node` with `text`.
    pub async fn type_text(&mut self, node: &Node, text: &str) -> Step<Page> {
        self.type_with(node, text, false).await
    }

    /// Replaces the text of `node` with `text`, then presses Enter.
    pub async fn type_and_submit(&mut self, node: &Node, text: &str) -> Step<Page> {
        self.type_with(node, text, true).await
    }

    async fn type_with(&mut self, node: &Node, text: &str, submit: bool) -> Step<Page> {
        self.require(Operation::Type)?;
        let r = reference(node)?;
        match self.server {
            Server::Sightline => {
                let mut args = json!({"ref": r, "text": text});
                if submit {
                    args["submit"] = json!(true);
                }
                self.act("browser_type", args).await
            }
            Server::Playwright => {
                let mut args = json!({"target": r, "element": describe(node), "text": text});
                if submit {
                    args["submit"] = json!(true);
                }
                self.act("browser_type", args).await
            }
            Server::Devtools => {
                let shown = self.act("fill", self.with_page(json!({"uid": r, "value": text}))).await?;
                if submit { self.press("Enter", None).await } else { Ok(shown) }
            }
        }
    }

    /// Presses `key` (`Enter`, `ArrowDown`, `Control+a`) on `on`, or where focus is. Servers
    /// whose key tool takes no element get the element clicked first, as a user focuses it.
    pub async fn press(&mut self, key: &str, on: Option<&Node>) -> Step<Page> {
        self.require(Operation::PressKey)?;
        match (self.server, on) {
            (Server::Sightline, Some(node)) => {
                let args = json!({"key": key, "ref": reference(node)?});
                self.act("browser_press_key", args).await
            }
            (Server::Sightline, None) => self.act("browser_press_key", json!({"key": key})).await,
            (Server::Playwright, _) | (Server::Devtools, _) => {
                if let Some(node) = on {
                    self.click(node).await?;
                }
                let tool = Operation::PressKey.tool(self.server).unwrap_or_default();
                self.act(tool, self.with_page(json!({"key": key}))).await
            }
        }
    }

    /// Picks the options labelled `labels` in the select `node`.
    pub async fn select(&mut self, node: &Node, labels: &[&str]) -> Step<Page> {
        self.require(Operation::Select)?;
        let r = reference(node)?;
        match self.server {
            Server::Sightline => self.act("browser_select_option", json!({"ref": r, "values": labels})).await,
            Server::Playwright => {
                let args = json!({"target": r, "element": describe(node), "values": labels});
                self.act("browser_select_option", args).await
            }
            Server::Devtools => match labels {
                [one] => self.act("fill", self.with_page(json!({"uid": r, "value": one}))).await,
                _ => {
                    self.missing.insert(Operation::Select);
                    Err(Failure::NoTool { operation: Operation::Select, tool: None })
                }
            },
        }
    }

    /// Moves the pointer over `node`.
    pub async fn hover(&mut self, node: &Node) -> Step<Page> {
        self.require(Operation::Hover)?;
        let r = reference(node)?;
        match self.server {
            Server::Sightline => self.act("browser_hover", json!({"ref": r})).await,
            Server::Playwright => self.act("browser_hover", json!({"target": r, "element": describe(node)})).await,
            Server::Devtools => self.act("hover", self.with_page(json!({"uid": r}))).await,
        }
    }

    /// Drags `from` onto `to`.
    pub async fn drag(&mut self, from: &Node, to: &Node) -> Step<Page> {
        self.require(Operation::Drag)?;
        let (a, b) = (reference(from)?, reference(to)?);
        match self.server {
            Server::Sightline => self.act("browser_drag", json!({"start_ref": a, "end_ref": b})).await,
            Server::Playwright => {
                let args = json!({"startTarget": a, "startElement": describe(from), "endTarget": b, "endElement": describe(to)});
                self.act("browser_drag", args).await
            }
            Server::Devtools => self.act("drag", self.with_page(json!({"from_uid": a, "to_uid": b}))).await,
        }
    }

    /// Drags `node` by (`dx`, `dy`) CSS pixels.
    pub async fn drag_by(&mut self, node: &Node, dx: i64, dy: i64) -> Step<Page> {
        self.require(Operation::DragBy)?;
        let args = json!({"start_ref": reference(node)?, "dx": dx, "dy": dy});
        self.act("browser_drag", args).await
    }

    /// Scrolls `node` (or the page) by `dy` CSS pixels.
    pub async fn scroll(&mut self, node: Option<&Node>, dy: i64) -> Step<Page> {
        self.require(Operation::Scroll)?;
        let direction = if dy < 0 { "up" } else { "down" };
        let mut args = json!({"direction": direction, "amount": dy.unsigned_abs()});
        if let Some(node) = node {
            args["ref"] = json!(reference(node)?);
        }
        self.act("browser_scroll", args).await
    }

    /// Waits until `text` shows on the page.
    pub async fn wait_for(&mut self, text: &str) -> Step<Page> {
        self.require(Operation::WaitFor)?;
        match self.server {
            Server::Sightline | Server::Playwright => self.act("browser_wait_for", json!({"text": text})).await,
            Server::Devtools => self.act("wait_for", self.with_page(json!({"text": [text]}))).await,
        }
    }

    /// Selects the whole text of `node` (as a user highlights it): by its ref, or for plain text
    /// (which has none) by the words the reply showed.
    pub async fn select_text(&mut self, node: &Node) -> Step<Page> {
        self.require(Operation::SelectText)?;
        let args = match &node.reference {
            Some(r) => json!({"ref": r}),
            None if node.is_text() && !node.name.trim().is_empty() => json!({"text": node.name.trim()}),
            None => return Err(Failure::not_shown(format!("{node} has no ref to act on"))),
        };
        self.act("browser_select_text", args).await
    }

    /// Fills each field with its value: in one call where the server has a form tool, field by
    /// field otherwise.
    pub async fn fill(&mut self, fields: &[(Node, String)]) -> Step<Page> {
        if !self.can(Operation::FillForm) {
            let mut shown = Page::default();
            for (node, value) in fields {
                shown = self.type_text(node, value).await?;
            }
            return Ok(shown);
        }
        let mut entries = Vec::new();
        for (node, value) in fields {
            let r = reference(node)?;
            entries.push(match self.server {
                Server::Sightline => json!({"name": describe(node), "type": "textbox", "ref": r, "value": value}),
                Server::Playwright => {
                    json!({"name": describe(node), "type": "textbox", "target": r, "element": describe(node), "value": value})
                }
                Server::Devtools => json!({"uid": r, "value": value}),
            });
        }
        match self.server {
            Server::Sightline | Server::Playwright => self.act("browser_fill_form", json!({"fields": entries})).await,
            Server::Devtools => self.act("fill_form", self.with_page(json!({"elements": entries}))).await,
        }
    }

    /// Puts the files at `paths` into the file input `node`.
    pub async fn upload(&mut self, node: &Node, paths: &[&str]) -> Step<Page> {
        self.require(Operation::Upload)?;
        let r = reference(node)?;
        match self.server {
            // Playwright MCP answers a file chooser the click opened.
            Server::Sightline => self.act("browser_file_upload", json!({"ref": r, "paths": paths})).await,
            Server::Playwright => {
                self.click(node).await?;
                self.act("browser_file_upload", json!({"paths": paths})).await
            }
            Server::Devtools => self.act("upload_file", self.with_page(json!({"uid": r, "filePaths": paths}))).await,
        }
    }

    /// Accepts (or dismisses) the JavaScript dialog on screen, typing `text` into a prompt.
    pub async fn answer_dialog(&mut self, accept: bool, text: Option<&str>) -> Step<Page> {
        self.require(Operation::Dialog)?;
        match self.server {
            Server::Sightline | Server::Playwright => {
                let mut args = json!({"accept": accept});
                if let Some(t) = text {
                    let key = if self.server == Server::Sightline { "prompt_text" } else { "promptText" };
                    args[key] = json!(t);
                }
                self.act("browser_handle_dialog", args).await
            }
            Server::Devtools => {
                let mut args = json!({"action": if accept { "accept" } else { "dismiss" }});
                if let Some(t) = text {
                    args["promptText"] = json!(t);
                }
                self.act("handle_dialog", self.with_page(args)).await
            }
        }
    }

    /// Takes a screenshot (recorded like any reply; solvers read no images).
    pub async fn screenshot(&mut self) -> Step {
        self.require(Operation::Screenshot)?;
        let tool = Operation::Screenshot.tool(self.server).unwrap_or_default();
        self.call(tool, self.with_page(json!({})), SNAPSHOT_LIMIT).await.map(drop)
    }

    /// Clicks at (`x`, `y`) CSS pixels of the viewport.
    pub async fn click_at(&mut self, x: f64, y: f64) -> Step<Page> {
        self.require(Operation::ClickAt)?;
        let tool = Operation::ClickAt.tool(self.server).unwrap_or_default();
        self.act(tool, self.with_page(json!({"x": x, "y": y}))).await
    }

    /// Drags from (`x1`, `y1`) to (`x2`, `y2`) CSS pixels of the viewport.
    pub async fn drag_at(&mut self, from: (f64, f64), to: (f64, f64)) -> Step<Page> {
        self.require(Operation::DragAt)?;
        let tool = Operation::DragAt.tool(self.server).unwrap_or_default();
        let args = if self.server == Server::Sightline {
            json!({"start_x": from.0, "start_y": from.1, "end_x": to.0, "end_y": to.1})
        } else {
            json!({"startX": from.0, "startY": from.1, "endX": to.0, "endY": to.1})
        };
        self.act(tool, self.with_page(args)).await
    }

    // --- plumbing -----------------------------------------------------------------------------

    /// Fails with [`Failure::NoTool`] unless the server lists the tool for `operation`.
    fn require(&mut self, operation: Operation) -> Step {
        if self.can(operation) {
            return Ok(());
        }
        self.missing.insert(operation);
        Err(Failure::NoTool { operation, tool: operation.tool(self.server) })
    }

    /// Runs an action tool and takes in what its reply shows.
    async fn act(&mut self, tool: &str, args: Value) -> Step<Page> {
        let reply = self.call(tool, args, ACTION_LIMIT).await?;
        if self.server != Server::Sightline {
            // The peers' action replies do not carry the page (Playwright MCP writes it to a
            // file, chrome-devtools-mcp leaves it out unless asked).
            self.current = false;
        }
        self.take_in(&reply);
        Ok(self.last.clone())
    }

    /// Reads what a reply shows into `last`, and into `view` when it is the whole page (or a
    /// Sightline delta to apply to it).
    fn take_in(&mut self, reply: &Reply) {
        match self.server {
            Server::Sightline => {
                let shown = formats::sightline(reply);
                if shown.full {
                    self.sightline_view = formats::SightlineView::full(reply);
                    self.current = self.sightline_view.is_some();
                } else if let (Some(view), Some(facts)) = (self.sightline_view.as_mut(), reply.structured.as_ref()) {
                    self.current = self.current && view.apply(facts);
                } else {
                    self.current = false;
                }
                self.view = self.sightline_view.as_ref().map(formats::SightlineView::page);
                self.last = shown.page;
            }
            Server::Playwright | Server::Devtools => {
                self.last = if self.server == Server::Playwright {
                    formats::playwright(&reply.text)
                } else {
                    formats::devtools(&reply.text)
                };
                if !self.last.is_empty() {
                    self.view = Some(self.last.clone());
                    self.current = true;
                }
            }
        }
    }

    /// Calls `tool`, recording the call; a tool error or a protocol failure is a [`Failure`].
    async fn call(&mut self, tool: &str, args: Value, limit: Duration) -> Step<Reply> {
        let started = Instant::now();
        let result = tokio::time::timeout(limit, self.client.call(tool, args.clone())).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let reply = match result {
            Err(_) => {
                let message = format!("no answer within {} s", limit.as_secs());
                self.calls.push(Call { tool: tool.to_owned(), args, text: String::new(), is_error: true, ms });
                return Err(Failure::Protocol { tool: tool.to_owned(), message });
            }
            Ok(Err(e)) => {
                self.calls.push(Call { tool: tool.to_owned(), args, text: String::new(), is_error: true, ms });
                return Err(Failure::Protocol { tool: tool.to_owned(), message: format!("{e:#}") });
            }
            Ok(Ok(reply)) => reply,
        };
        self.calls.push(Call { tool: tool.to_owned(), args, text: reply.text.clone(), is_error: reply.is_error, ms });
        if reply.is_error {
            // The page may have changed even though the action failed (a focus handler opened
            // a popup): what the replies showed is no longer known to be current.
            self.current = false;
            return Err(Failure::ToolError { tool: tool.to_owned(), message: first_line(&reply.text) });
        }
        Ok(reply)
    }

    /// Adds chrome-devtools-mcp's `pageId` to `args`.
    fn with_page(&self, mut args: Value) -> Value {
        if let (Some(id), Some(map)) = (self.page_id, args.as_object_mut()) {
            map.insert("pageId".to_owned(), json!(id));
        }
        args
    }
}

/// The ref of `node`, or why there is none.
fn reference(node: &Node) -> Step<&str> {
    node.reference.as_deref().ok_or_else(|| Failure::not_shown(format!("{node} has no ref to act on")))
}

/// The human-readable description Playwright MCP asks for beside a ref.
fn describe(node: &Node) -> String {
    if node.name.is_empty() { node.role.clone() } else { format!("{} \"{}\"", node.role, node.name) }
}

/// The first non-empty line of `text`, at most 200 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    line.chars().take(200).collect()
}
