//! What each tool does to the user's world, said as MCP tool annotations.
//!
//! A client uses the hints to decide what to ask the user before a call: a tool that only reads
//! the page or Sightline's own buffers can run without a prompt; a tool that clicks, types or
//! navigates in the user's logged-in browser may buy, send or delete something. Every tool gets
//! `readOnlyHint`, `destructiveHint` and `openWorldHint`, so no client has to fall back on the
//! protocol's defaults, which assume the worst. (`idempotentHint` is left out: no acting tool is
//! idempotent on a live page, and its default, false, already says so.)

use rmcp::model::ToolAnnotations;

/// How a tool touches the world, from the user's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Reads the page or Sightline's own records; nothing in the page or beyond it changes.
    Reads,
    /// Changes only Sightline's own bookkeeping (checkpoints), never the page.
    Bookkeeps,
    /// Changes what the page shows without committing anything (hover, scroll).
    Gentle,
    /// Acts in the page or the browser as the user would: may submit, buy, send or close.
    Acts,
}

/// The effect of the tool called `name`, or `None` for a tool this table does not know (a
/// unit test fails for every routed tool without one).
fn effect(name: &str) -> Option<Effect> {
    Some(match name {
        "browser_snapshot"
        | "browser_find"
        | "browser_console_messages"
        | "browser_network_requests"
        | "get_changes_since"
        | "browser_take_screenshot"
        | "browser_wait_for"
        | "browser_user_selection" => Effect::Reads,
        "browser_checkpoint" => Effect::Bookkeeps,
        "browser_hover" | "browser_scroll" => Effect::Gentle,
        "browser_tabs"
        | "browser_navigate"
        | "browser_click"
        | "browser_type"
        | "browser_press_key"
        | "browser_select_option"
        | "browser_handle_dialog"
        | "browser_fill_form"
        | "browser_drag"
        | "browser_file_upload"
        | "browser_mouse_click_xy"
        | "browser_mouse_drag_xy"
        | "browser_evaluate"
        | "browser_select_text" => Effect::Acts,
        _ => return None,
    })
}

/// The annotations for the tool called `name`; `None` when the tool is unknown here.
pub fn for_tool(name: &str) -> Option<ToolAnnotations> {
    let mut hints = ToolAnnotations::new();
    match effect(name)? {
        Effect::Reads => {
            hints.read_only_hint = Some(true);
            hints.destructive_hint = Some(false);
            hints.open_world_hint = Some(false);
        }
        Effect::Bookkeeps => {
            hints.read_only_hint = Some(false);
            hints.destructive_hint = Some(false);
            hints.open_world_hint = Some(false);
        }
        Effect::Gentle => {
            hints.read_only_hint = Some(false);
            hints.destructive_hint = Some(false);
            hints.open_world_hint = Some(true);
        }
        Effect::Acts => {
            hints.read_only_hint = Some(false);
            hints.destructive_hint = Some(true);
            hints.open_world_hint = Some(true);
        }
    }
    Some(hints)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_routed_tool_says_what_it_does() {
        let tools = crate::mcp::SightlineMcp::default().routed_tools();
        assert!(tools.len() >= 14, "{} tools", tools.len());
        for tool in &tools {
            let hints = tool.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", tool.name));
            assert!(
                hints.read_only_hint.is_some() && hints.destructive_hint.is_some() && hints.open_world_hint.is_some(),
                "{}: {hints:?}",
                tool.name
            );
        }
    }

    #[test]
    fn reading_tools_are_read_only_and_acting_tools_destructive() {
        let snapshot = for_tool("browser_snapshot").unwrap();
        assert_eq!((snapshot.read_only_hint, snapshot.destructive_hint), (Some(true), Some(false)));
        let click = for_tool("browser_click").unwrap();
        assert_eq!(
            (click.read_only_hint, click.destructive_hint, click.open_world_hint),
            (Some(false), Some(true), Some(true))
        );
        let checkpoint = for_tool("browser_checkpoint").unwrap();
        assert_eq!((checkpoint.read_only_hint, checkpoint.destructive_hint), (Some(false), Some(false)));
        assert!(for_tool("browser_teleport").is_none());
    }
}
