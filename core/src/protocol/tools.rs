//! Every agent-facing tool, declared once.
//!
//! Each entry names the tool, its parameter type, the description an agent reads, the shape of
//! its structured output, its effect on the user's world, its gate, how it picks a tab, the
//! element it names and how the timeline records it (see [`super::tool_spec`] for what each
//! means). From these `declare_tools!` writes [`ToolCall`] and [`TOOLS`]: the native host
//! lists and serves tools from that table, and the extension runtime deserialises the very
//! same `ToolCall` and names each tool's handler in its one exhaustive match on it. Adding a
//! tool is an entry here, its parameter type, that handler, and its row in the README's tools
//! table (`core/tests/readme_tools.rs` checks the table against these entries).

use super::declare::{declare_tools, host_step, tab_argument, tool_output, upload_paths};
use super::element_tools::*;
use super::page_tools::*;
use super::reading::*;
use super::tool_spec::{Cap, Effect, Gate};
use super::{ChangesParams, CheckpointParams, PermissionsParams, SnapshotFacts, UserSelectionParams};
use crate::changes::ActionKind;
use crate::page_state::pointed::UserSelectionFacts;

declare_tools! {
    BrowserTabs {
        name: "browser_tabs",
        params: TabsParams,
        description: "List, open (new), select or close tabs. Only tabs you opened or the user shared are listed.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Tabs,
        element: |_| None,
        action: |_| None,
    },
    BrowserNavigate {
        name: "browser_navigate",
        params: NavigateParams,
        description: "Go to a URL, or back/forward/reload. Waits for load and a quiet DOM.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: PageOrNew,
        element: |_| None,
        action: |p| {
            let what = match (&p.url, p.go) {
                (Some(_), _) | (None, None) => "navigate",
                (None, Some(HistoryMove::Back)) => "go back",
                (None, Some(HistoryMove::Forward)) => "go forward",
                (None, Some(HistoryMove::Reload)) => "reload",
            };
            Some((ActionKind::Navigate, what.to_owned()))
        },
    },
    BrowserSnapshot {
        name: "browser_snapshot",
        params: SnapshotParams,
        description: "Read the current page: text and actionable elements with refs.",
        output: Facts(SnapshotFacts),
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserClick {
        name: "browser_click",
        params: ClickParams,
        description: "Click an element by ref.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |p| Some(&p.element_ref),
        action: |p| {
            let how = match (p.double, p.button.unwrap_or_default()) {
                (true, _) => "double-click",
                (false, MouseButton::Left) => "click",
                (false, MouseButton::Right) => "right-click",
                (false, MouseButton::Middle) => "middle-click",
            };
            Some((ActionKind::Click, format!("{how} {}", p.element_ref)))
        },
    },
    BrowserType {
        name: "browser_type",
        params: TypeParams,
        description: "Replace the text of an input or editable element by ref; a date, time or colour field takes the value in the format its line shows, a slider a number.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |p| Some(&p.element_ref),
        action: |p| {
            let submit = if p.submit { " and submit" } else { "" };
            Some((ActionKind::Type, format!("type into {}{submit}", p.element_ref)))
        },
    },
    BrowserPressKey {
        name: "browser_press_key",
        params: PressKeyParams,
        description: "Press a key or chord (Enter, ArrowDown, Control+a), optionally on an element.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |p| p.element_ref.as_deref(),
        action: |p| {
            let on = p.element_ref.as_deref().map(|r| format!(" on {r}")).unwrap_or_default();
            Some((ActionKind::Key, format!("press {}{on}", p.key)))
        },
    },
    BrowserSelectOption {
        name: "browser_select_option",
        params: SelectOptionParams,
        description: "Select options of a <select>, listbox or combobox by value or label.",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |p| Some(&p.element_ref),
        action: |p| Some((ActionKind::Select, format!("select {} in {}", p.values.len(), p.element_ref))),
    },
    BrowserHover {
        name: "browser_hover",
        params: HoverParams,
        description: "Move the mouse over an element by ref (menus and tooltips that open on hover).",
        output: Text,
        effect: Effect::Gentle,
        gate: Gate::Open,
        tab: Page,
        element: |p| Some(&p.element_ref),
        action: |p| Some((ActionKind::Hover, format!("hover {}", p.element_ref))),
    },
    BrowserHandleDialog {
        name: "browser_handle_dialog",
        params: HandleDialogParams,
        description: "Accept or dismiss the page's alert, confirm or prompt dialog (an action says when it opened one).",
        output: Text,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| {
            let what = if p.accept { "accept the dialog" } else { "dismiss the dialog" };
            Some((ActionKind::Other, what.to_owned()))
        },
    },
    BrowserFind {
        name: "browser_find",
        params: FindParams,
        description: "Find elements by text, role or region, including regions shown as unchanged or trimmed.",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserFillForm {
        name: "browser_fill_form",
        params: FillFormParams,
        description: "Fill several form fields in one call.",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| Some((ActionKind::Type, format!("fill {} field(s)", p.fields.len()))),
    },
    BrowserScroll {
        name: "browser_scroll",
        params: ScrollParams,
        description: "Scroll the page or an element; the answer shows what appeared.",
        output: PageAnswer,
        effect: Effect::Gentle,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| {
            let what = match (&p.to_ref, &p.element_ref) {
                (Some(to), _) => format!("scroll to {to}"),
                (None, Some(r)) => format!("scroll {} {}", r, p.direction.unwrap_or_default().name()),
                (None, None) => format!("scroll {}", p.direction.unwrap_or_default().name()),
            };
            Some((ActionKind::Scroll, what))
        },
    },
    BrowserWaitFor {
        name: "browser_wait_for",
        params: WaitForParams,
        description: "Wait for text to appear or go, an element to go, or a time.",
        output: PageAnswer,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserDrag {
        name: "browser_drag",
        params: DragParams,
        description: "Drag an element onto another, or by dx/dy pixels.",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| {
            let to = p.end_ref.clone().unwrap_or_else(|| "an offset".to_owned());
            Some((ActionKind::Other, format!("drag {} to {to}", p.start_ref)))
        },
    },
    BrowserTakeScreenshot {
        name: "browser_take_screenshot",
        params: ScreenshotParams,
        description: "Screenshot of the viewport, the whole page or an element.",
        output: Fields("width": "integer", "height": "integer"),
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserMouseClickXy {
        name: "browser_mouse_click_xy",
        params: MouseClickXyParams,
        description: "Click at viewport CSS pixels. Last resort, for what has no ref (canvas).",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Cap(Cap::Vision),
        tab: Page,
        element: |_| None,
        action: |p| Some((ActionKind::Click, format!("click at {:.0},{:.0}", p.x, p.y))),
    },
    BrowserMouseDragXy {
        name: "browser_mouse_drag_xy",
        params: MouseDragXyParams,
        description: "Drag between viewport CSS pixels. Last resort, for what has no ref.",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Cap(Cap::Vision),
        tab: Page,
        element: |_| None,
        action: |p| {
            let what = format!("drag from {:.0},{:.0} to {:.0},{:.0}", p.start_x, p.start_y, p.end_x, p.end_y);
            Some((ActionKind::Other, what))
        },
    },
    BrowserFileUpload {
        name: "browser_file_upload",
        params: FileUploadParams,
        description: "Choose files for a file input, or for the file chooser an action opened.",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| {
            let on = p.element_ref.as_deref().map(|r| format!(" into {r}")).unwrap_or_default();
            Some((ActionKind::Other, format!("upload {} file(s){on}", p.paths.len())))
        },
        upload_paths: paths,
    },
    BrowserEvaluate {
        name: "browser_evaluate",
        params: EvaluateParams,
        description: "Run a JavaScript function in the page (isolated world unless main_world); returns its JSON.",
        output: Fields("world": "string"),
        effect: Effect::Acts,
        gate: Gate::AllowedInOptions,
        tab: Page,
        element: |_| None,
        action: |p| {
            let on = p.element_ref.as_deref().map(|r| format!(" on {r}")).unwrap_or_default();
            let world = if p.main_world { " in the page's world" } else { "" };
            Some((ActionKind::Other, format!("evaluate a function{on}{world}")))
        },
    },
    BrowserSelectText {
        name: "browser_select_text",
        params: SelectTextParams,
        description: "Select words on the page or in an element, as a person drags over them.",
        output: PageAnswer,
        effect: Effect::Acts,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |p| {
            let within = p.element_ref.as_deref().map(|r| format!(" in {r}")).unwrap_or_default();
            Some((ActionKind::Other, format!("select text{within}")))
        },
    },
    GetChangesSince {
        name: "get_changes_since",
        params: ChangesParams,
        description: "What changed since your previous call (or a checkpoint or ISO time): new console errors, \
                      failed/new/slow requests, WebSocket closes, actions, as small JSON.",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Records,
        element: |_| None,
        action: |_| None,
    },
    BrowserCheckpoint {
        name: "browser_checkpoint",
        params: CheckpointParams,
        description: "Create, list or delete named checkpoints to compare against with get_changes_since.",
        output: Text,
        effect: Effect::Bookkeeps,
        gate: Gate::Open,
        tab: NoTab,
        element: |_| None,
        action: |_| None,
    },
    BrowserConsoleMessages {
        name: "browser_console_messages",
        params: ConsoleMessagesParams,
        description: "Console messages of your tabs, newest last, a page at a time (page 1 is the newest).",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Records,
        element: |_| None,
        action: |_| None,
    },
    BrowserNetworkRequests {
        name: "browser_network_requests",
        params: NetworkRequestsParams,
        description: "Requests of your tabs (method, status, time, size; unanswered ones as pending, with their \
                      age), newest last, a page at a time (page 1 is the newest).",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Records,
        element: |_| None,
        action: |_| None,
    },
    BrowserUserSelection {
        name: "browser_user_selection",
        params: UserSelectionParams,
        description: "The element the user pointed at for you (selected in DevTools or picked in the Sightline \
                      panel): its ref and snapshot line.",
        output: Facts(UserSelectionFacts),
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserExportTest {
        name: "browser_export_test",
        params: ExportTestParams,
        description: "Your actions on the tab as a Playwright test (TypeScript) that does them again.",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: Page,
        element: |_| None,
        action: |_| None,
    },
    BrowserDownloads {
        name: "browser_downloads",
        params: DownloadsParams,
        description: "Files your actions downloaded, and where; can wait for one to finish.",
        output: Text,
        effect: Effect::Reads,
        gate: Gate::Open,
        tab: NoTab,
        element: |_| None,
        action: |_| None,
    },
    BrowserPermissions {
        name: "browser_permissions",
        params: PermissionsParams,
        description: "What the person lets you do on a tab's site: what runs, what asks them first, what is refused.",
        output: Text,
        effect: Effect::Bookkeeps,
        gate: Gate::Open,
        tab: NoTab,
        element: |_| None,
        action: |_| None,
    },
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
