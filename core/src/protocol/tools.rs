//! Parameter types of the agent-facing tools.
//!
//! Doc comments on these types become the JSON Schema descriptions an agent reads in
//! `tools/list`, so they are kept short: every word here is paid for on every session.

use serde::{Deserialize, Serialize};

use super::page_tools::*;
use super::reading::*;
use crate::changes::ActionKind;

/// One tool call: the tool's name and its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
pub enum ToolCall {
    /// `browser_tabs`
    BrowserTabs(TabsParams),
    /// `browser_navigate`
    BrowserNavigate(NavigateParams),
    /// `browser_snapshot`
    BrowserSnapshot(SnapshotParams),
    /// `browser_click`
    BrowserClick(ClickParams),
    /// `browser_type`
    BrowserType(TypeParams),
    /// `browser_press_key`
    BrowserPressKey(PressKeyParams),
    /// `browser_select_option`
    BrowserSelectOption(SelectOptionParams),
    /// `browser_hover`
    BrowserHover(HoverParams),
    /// `browser_handle_dialog`
    BrowserHandleDialog(HandleDialogParams),
    /// `browser_find`
    BrowserFind(FindParams),
    /// `browser_fill_form`
    BrowserFillForm(FillFormParams),
    /// `browser_scroll`
    BrowserScroll(ScrollParams),
    /// `browser_wait_for`
    BrowserWaitFor(WaitForParams),
    /// `browser_drag`
    BrowserDrag(DragParams),
    /// `browser_take_screenshot`
    BrowserTakeScreenshot(ScreenshotParams),
    /// `browser_mouse_click_xy`
    BrowserMouseClickXy(MouseClickXyParams),
    /// `browser_mouse_drag_xy`
    BrowserMouseDragXy(MouseDragXyParams),
    /// `browser_file_upload`
    BrowserFileUpload(FileUploadParams),
    /// `browser_evaluate`
    BrowserEvaluate(EvaluateParams),
    /// `browser_select_text`
    BrowserSelectText(SelectTextParams),
    /// `get_changes_since`
    GetChangesSince(super::changes::ChangesParams),
    /// `browser_checkpoint`
    BrowserCheckpoint(super::changes::CheckpointParams),
    /// `browser_console_messages`
    BrowserConsoleMessages(ConsoleMessagesParams),
    /// `browser_network_requests`
    BrowserNetworkRequests(NetworkRequestsParams),
    /// `browser_user_selection`
    BrowserUserSelection(super::selection::UserSelectionParams),
}

impl ToolCall {
    /// The tool's MCP name.
    pub fn name(&self) -> &'static str {
        match self {
            ToolCall::BrowserTabs(_) => "browser_tabs",
            ToolCall::BrowserNavigate(_) => "browser_navigate",
            ToolCall::BrowserSnapshot(_) => "browser_snapshot",
            ToolCall::BrowserClick(_) => "browser_click",
            ToolCall::BrowserType(_) => "browser_type",
            ToolCall::BrowserPressKey(_) => "browser_press_key",
            ToolCall::BrowserSelectOption(_) => "browser_select_option",
            ToolCall::BrowserHover(_) => "browser_hover",
            ToolCall::BrowserHandleDialog(_) => "browser_handle_dialog",
            ToolCall::BrowserFind(_) => "browser_find",
            ToolCall::BrowserFillForm(_) => "browser_fill_form",
            ToolCall::BrowserScroll(_) => "browser_scroll",
            ToolCall::BrowserWaitFor(_) => "browser_wait_for",
            ToolCall::BrowserDrag(_) => "browser_drag",
            ToolCall::BrowserTakeScreenshot(_) => "browser_take_screenshot",
            ToolCall::BrowserMouseClickXy(_) => "browser_mouse_click_xy",
            ToolCall::BrowserMouseDragXy(_) => "browser_mouse_drag_xy",
            ToolCall::BrowserFileUpload(_) => "browser_file_upload",
            ToolCall::BrowserEvaluate(_) => "browser_evaluate",
            ToolCall::BrowserSelectText(_) => "browser_select_text",
            ToolCall::GetChangesSince(_) => "get_changes_since",
            ToolCall::BrowserCheckpoint(_) => "browser_checkpoint",
            ToolCall::BrowserConsoleMessages(_) => "browser_console_messages",
            ToolCall::BrowserNetworkRequests(_) => "browser_network_requests",
            ToolCall::BrowserUserSelection(_) => "browser_user_selection",
        }
    }

    /// The tab the call names explicitly, if any.
    pub fn tab(&self) -> Option<u32> {
        match self {
            ToolCall::BrowserTabs(p) => p.tab,
            ToolCall::BrowserNavigate(p) => p.tab,
            ToolCall::BrowserSnapshot(p) => p.tab,
            ToolCall::BrowserClick(p) => p.tab,
            ToolCall::BrowserType(p) => p.tab,
            ToolCall::BrowserPressKey(p) => p.tab,
            ToolCall::BrowserSelectOption(p) => p.tab,
            ToolCall::BrowserHover(p) => p.tab,
            ToolCall::BrowserHandleDialog(p) => p.tab,
            ToolCall::BrowserFind(p) => p.tab,
            ToolCall::BrowserFillForm(p) => p.tab,
            ToolCall::BrowserScroll(p) => p.tab,
            ToolCall::BrowserWaitFor(p) => p.tab,
            ToolCall::BrowserDrag(p) => p.tab,
            ToolCall::BrowserTakeScreenshot(p) => p.tab,
            ToolCall::BrowserMouseClickXy(p) => p.tab,
            ToolCall::BrowserMouseDragXy(p) => p.tab,
            ToolCall::BrowserFileUpload(p) => p.tab,
            ToolCall::BrowserEvaluate(p) => p.tab,
            ToolCall::BrowserSelectText(p) => p.tab,
            ToolCall::GetChangesSince(p) => p.tab,
            ToolCall::BrowserCheckpoint(_) => None,
            ToolCall::BrowserConsoleMessages(p) => p.tab,
            ToolCall::BrowserNetworkRequests(p) => p.tab,
            ToolCall::BrowserUserSelection(p) => p.tab,
        }
    }

    /// The element ref an action names, if any.
    pub fn element_ref(&self) -> Option<&str> {
        match self {
            ToolCall::BrowserClick(p) => Some(&p.element_ref),
            ToolCall::BrowserType(p) => Some(&p.element_ref),
            ToolCall::BrowserPressKey(p) => p.element_ref.as_deref(),
            ToolCall::BrowserSelectOption(p) => Some(&p.element_ref),
            ToolCall::BrowserHover(p) => Some(&p.element_ref),
            _ => None,
        }
    }

    /// The kind and a short description of the action this call performs, as the timeline
    /// records it; `None` for tools that only read. Every tool is listed, so a new action tool
    /// cannot be forgotten here. A navigation's URL is not repeated: the action's `url` (the
    /// tab's URL afterwards) says where it went. Typed text never appears.
    pub fn action(&self) -> Option<(ActionKind, String)> {
        match self {
            ToolCall::BrowserNavigate(p) => Some((
                ActionKind::Navigate,
                match (&p.url, p.go) {
                    (Some(_), _) => "navigate".to_owned(),
                    (None, Some(HistoryMove::Back)) => "go back".to_owned(),
                    (None, Some(HistoryMove::Forward)) => "go forward".to_owned(),
                    (None, Some(HistoryMove::Reload)) => "reload".to_owned(),
                    (None, None) => "navigate".to_owned(),
                },
            )),
            ToolCall::BrowserClick(p) => {
                let how = match (p.double, p.button.unwrap_or_default()) {
                    (true, _) => "double-click",
                    (false, MouseButton::Left) => "click",
                    (false, MouseButton::Right) => "right-click",
                    (false, MouseButton::Middle) => "middle-click",
                };
                Some((ActionKind::Click, format!("{how} {}", p.element_ref)))
            }
            ToolCall::BrowserType(p) => {
                let submit = if p.submit { " and submit" } else { "" };
                Some((ActionKind::Type, format!("type into {}{submit}", p.element_ref)))
            }
            ToolCall::BrowserPressKey(p) => {
                let on = p.element_ref.as_deref().map(|r| format!(" on {r}")).unwrap_or_default();
                Some((ActionKind::Key, format!("press {}{on}", p.key)))
            }
            ToolCall::BrowserSelectOption(p) => {
                Some((ActionKind::Select, format!("select {} in {}", p.values.len(), p.element_ref)))
            }
            ToolCall::BrowserHover(p) => Some((ActionKind::Hover, format!("hover {}", p.element_ref))),
            ToolCall::BrowserHandleDialog(p) => {
                Some((ActionKind::Other, if p.accept { "accept the dialog" } else { "dismiss the dialog" }.to_owned()))
            }
            ToolCall::BrowserFillForm(p) => Some((ActionKind::Type, format!("fill {} field(s)", p.fields.len()))),
            ToolCall::BrowserScroll(p) => {
                let what = match (&p.to_ref, &p.element_ref) {
                    (Some(to), _) => format!("scroll to {to}"),
                    (None, Some(r)) => format!("scroll {} {}", r, p.direction.unwrap_or_default().name()),
                    (None, None) => format!("scroll {}", p.direction.unwrap_or_default().name()),
                };
                Some((ActionKind::Scroll, what))
            }
            ToolCall::BrowserDrag(p) => {
                let to = p.end_ref.clone().unwrap_or_else(|| "an offset".to_owned());
                Some((ActionKind::Other, format!("drag {} to {to}", p.start_ref)))
            }
            ToolCall::BrowserMouseClickXy(p) => Some((ActionKind::Click, format!("click at {:.0},{:.0}", p.x, p.y))),
            ToolCall::BrowserMouseDragXy(p) => Some((
                ActionKind::Other,
                format!("drag from {:.0},{:.0} to {:.0},{:.0}", p.start_x, p.start_y, p.end_x, p.end_y),
            )),
            ToolCall::BrowserFileUpload(p) => {
                let on = p.element_ref.as_deref().map(|r| format!(" into {r}")).unwrap_or_default();
                Some((ActionKind::Other, format!("upload {} file(s){on}", p.paths.len())))
            }
            ToolCall::BrowserEvaluate(p) => {
                let on = p.element_ref.as_deref().map(|r| format!(" on {r}")).unwrap_or_default();
                let world = if p.main_world { " in the page's world" } else { "" };
                Some((ActionKind::Other, format!("evaluate a function{on}{world}")))
            }
            ToolCall::BrowserSelectText(p) => {
                let within = p.element_ref.as_deref().map(|r| format!(" in {r}")).unwrap_or_default();
                Some((ActionKind::Other, format!("select text{within}")))
            }
            ToolCall::BrowserTabs(_)
            | ToolCall::BrowserTakeScreenshot(_)
            | ToolCall::BrowserWaitFor(_)
            | ToolCall::BrowserSnapshot(_)
            | ToolCall::BrowserFind(_)
            | ToolCall::GetChangesSince(_)
            | ToolCall::BrowserCheckpoint(_)
            | ToolCall::BrowserConsoleMessages(_)
            | ToolCall::BrowserNetworkRequests(_)
            | ToolCall::BrowserUserSelection(_) => None,
        }
    }
}

/// What `browser_tabs` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TabsAction {
    /// List the tabs the agent may use.
    #[default]
    List,
    /// Open a new tab (optionally at `url`) and make it current.
    New,
    /// Make `tab` the current tab.
    Select,
    /// Close `tab` (default: the current tab).
    Close,
}

/// List, open, select or close tabs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TabsParams {
    /// Default `list`.
    #[serde(default)]
    pub action: TabsAction,
    /// Tab id, for `select` and `close`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
    /// URL to open, for `new`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// History moves for `browser_navigate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HistoryMove {
    /// Go back one entry.
    Back,
    /// Go forward one entry.
    Forward,
    /// Reload the page.
    Reload,
}

/// Load a URL, or move through history; waits for load and a quiet DOM.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NavigateParams {
    /// URL to load. Give either `url` or `go`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `back`, `forward` or `reload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go: Option<HistoryMove>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Read the page: element refs, roles, names, values, states and visible text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SnapshotParams {
    /// Page of a long snapshot (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Add element boxes `@x,y,w,h`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bbox: bool,
    /// Write regions unchanged since your last page as one line each (fewer tokens).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collapse: bool,
    /// Only this region, e.g. `nav` or `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// At most this many lines of each region (its first and last), with a marker saying how
    /// to read the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<u32>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Click an element by ref.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClickParams {
    /// Element ref from the snapshot, e.g. `e12`.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Double click.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub double: bool,
    /// Mouse button (default left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// Primary button.
    #[default]
    Left,
    /// Context-menu button.
    Right,
    /// Wheel button.
    Middle,
}

/// Replace the text of an editable element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TypeParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Text to type.
    pub text: String,
    /// Press Enter afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submit: bool,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Press a key or chord, e.g. `Enter`, `ArrowDown`, `Control+a`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PressKeyParams {
    /// Key name or chord.
    pub key: String,
    /// Focus this element first.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Choose options of a `<select>` or listbox by value or label (several for `multiple`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SelectOptionParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Values or labels to select; they replace the selection.
    pub values: Vec<String>,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Move the mouse over an element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HoverParams {
    /// Element ref from the snapshot.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Version (`vN`) your refs are from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_version: Option<u64>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

/// Answer the page's open alert, confirm, prompt or leave-page dialog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandleDialogParams {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// Text to answer a prompt with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// Tab id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_arguments_are_rejected_with_their_name() {
        let err = serde_json::from_value::<ClickParams>(serde_json::json!({"ref": "e1", "foo": 1})).unwrap_err();
        assert!(err.to_string().contains("unknown field `foo`"), "{err}");
    }

    #[test]
    fn tool_call_names_match_their_wire_tags() {
        let call = ToolCall::BrowserPressKey(PressKeyParams { key: "Enter".into(), ..Default::default() });
        let json = serde_json::to_value(&call).unwrap();
        assert_eq!(json["tool"], call.name());
    }

    #[test]
    fn agent_actions_are_described_without_typed_text() {
        let typed = ToolCall::BrowserType(TypeParams {
            element_ref: "e4".into(),
            text: "hunter2".into(),
            submit: true,
            ..Default::default()
        });
        assert_eq!(typed.action(), Some((ActionKind::Type, "type into e4 and submit".into())));
        let click =
            ToolCall::BrowserClick(ClickParams { element_ref: "e12".into(), double: true, ..Default::default() });
        assert_eq!(click.action(), Some((ActionKind::Click, "double-click e12".into())));
        let back = ToolCall::BrowserNavigate(NavigateParams { go: Some(HistoryMove::Back), ..Default::default() });
        assert_eq!(back.action(), Some((ActionKind::Navigate, "go back".into())));
        let load = ToolCall::BrowserNavigate(NavigateParams { url: Some("example.com".into()), ..Default::default() });
        assert_eq!(load.action(), Some((ActionKind::Navigate, "navigate".into())), "the action's url says where");
        let key = ToolCall::BrowserPressKey(PressKeyParams {
            key: "Enter".into(),
            element_ref: Some("e2".into()),
            ..Default::default()
        });
        assert_eq!(key.action(), Some((ActionKind::Key, "press Enter on e2".into())));
        assert_eq!(ToolCall::GetChangesSince(Default::default()).action(), None);
    }

    #[test]
    fn change_tools_use_their_mcp_names_on_the_wire() {
        let calls = [
            ToolCall::GetChangesSince(Default::default()),
            ToolCall::BrowserCheckpoint(Default::default()),
            ToolCall::BrowserConsoleMessages(Default::default()),
            ToolCall::BrowserNetworkRequests(Default::default()),
        ];
        for call in calls {
            let json = serde_json::to_value(&call).unwrap();
            assert_eq!(json["tool"], call.name());
            assert_eq!(serde_json::from_value::<ToolCall>(json).unwrap(), call);
        }
    }
}
