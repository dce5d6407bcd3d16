//! What each tool does to the user's world, said as MCP tool annotations.
//!
//! A client uses the hints to decide what to ask the user before a call: a tool that only reads
//! the page or Sightline's own buffers can run without a prompt; a tool that clicks, types or
//! navigates in the user's logged-in browser may buy, send or delete something. Every tool gets
//! `readOnlyHint`, `destructiveHint` and `openWorldHint`, so no client has to fall back on the
//! protocol's defaults, which assume the worst. (`idempotentHint` is left out: no acting tool is
//! idempotent on a live page, and its default, false, already says so.)
//!
//! Each tool's [`Effect`] is declared with the tool (`sightline_core::protocol::tools`); this
//! module says what each effect means in MCP's hints.

use rmcp::model::ToolAnnotations;
use sightline_core::protocol::Effect;

/// The annotations that say `effect`. The match is exhaustive: a new class of effect must be
/// given its hints here before anything compiles.
pub fn for_effect(effect: Effect) -> ToolAnnotations {
    let mut hints = ToolAnnotations::new();
    let (read_only, destructive, open_world) = match effect {
        Effect::Reads => (true, false, false),
        Effect::Bookkeeps => (false, false, false),
        Effect::Gentle => (false, false, true),
        Effect::Acts => (false, true, true),
    };
    hints.read_only_hint = Some(read_only);
    hints.destructive_hint = Some(destructive);
    hints.open_world_hint = Some(open_world);
    hints
}

#[cfg(test)]
mod tests {
    use sightline_core::protocol::TOOLS;

    use super::*;

    /// The hints `tools/list` gives the tool called `name`.
    fn listed_hints(name: &str) -> ToolAnnotations {
        let tools = crate::client::mcp::SightlineMcp::default().declared_tools();
        let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} is not served"));
        tool.annotations.clone().unwrap_or_else(|| panic!("{name} has no annotations"))
    }

    #[test]
    fn every_declared_tool_is_served_with_the_hints_of_its_effect() {
        let served = crate::client::mcp::SightlineMcp::default().declared_tools();
        assert_eq!(served.len(), TOOLS.len(), "every declared tool is served, and nothing else");
        for spec in TOOLS {
            let hints = listed_hints(spec.name);
            assert_eq!(hints, for_effect(spec.effect), "{}", spec.name);
            assert!(
                hints.read_only_hint.is_some() && hints.destructive_hint.is_some() && hints.open_world_hint.is_some(),
                "{}: {hints:?}",
                spec.name
            );
        }
    }

    #[test]
    fn reading_tools_are_read_only_and_acting_tools_destructive() {
        let snapshot = listed_hints("browser_snapshot");
        assert_eq!((snapshot.read_only_hint, snapshot.destructive_hint), (Some(true), Some(false)));
        let click = listed_hints("browser_click");
        assert_eq!(
            (click.read_only_hint, click.destructive_hint, click.open_world_hint),
            (Some(false), Some(true), Some(true))
        );
        let checkpoint = listed_hints("browser_checkpoint");
        assert_eq!((checkpoint.read_only_hint, checkpoint.destructive_hint), (Some(false), Some(false)));
        let hover = listed_hints("browser_hover");
        assert_eq!((hover.read_only_hint, hover.destructive_hint), (Some(false), Some(false)));
    }
}
