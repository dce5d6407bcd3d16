//! Regions: landmarks (`header`, `nav`, `main`, `footer`, `aside`, `search`, named forms and
//! sections), the overlays that open over a page (modals, dialogs, dropdowns), and on pages
//! without landmarks a header, nav, footer or sidebar recognised by its id or class.

use super::Builder;
use crate::snapshot::actionable::INTERACTIVE_ROLES;
use crate::snapshot::text::normalise;
use crate::snapshot::tree::{NodeId, PageTree};

/// What kind of overlay a region is, and how sure the rule that found it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlay {
    /// Modal, dialog or dropdown.
    pub kind: OverlayKind,
    /// 1.0 for an ARIA modal down to 0.7 for a class-name match.
    pub confidence: f32,
    /// Its z-index, for stacking order.
    pub z_index: i64,
}

/// The kinds of overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKind {
    /// Blocks the page behind it.
    Modal,
    /// A dialog that does not block the page.
    Dialog,
    /// A menu or listbox that drops down.
    Dropdown,
}

impl Builder<'_, '_> {
    /// The region an element starts: a landmark, an overlay, or (outside every region) a header,
    /// nav, footer or sidebar recognised by its id or class.
    pub(super) fn region_of(&self, id: NodeId) -> Option<(&'static str, String, Option<Overlay>)> {
        let node = &self.tree.nodes[id];
        let label = crate::snapshot::escape::cap(&normalise(&node.ax.name()), crate::snapshot::escape::MAX_NAME_BYTES)
            .into_owned();
        // A dialog hidden from assistive technology has no accessible role; its attribute says.
        let mut role = node.ax.role();
        if role.is_empty() {
            role = node.attr("role").unwrap_or("").trim().to_ascii_lowercase();
        }
        if let Some(overlay) = overlay_of(self.tree, id, &role) {
            return Some(("dialog", label, Some(overlay)));
        }
        let kind = match role.as_str() {
            "banner" => "header",
            "navigation" => "nav",
            "main" => "main",
            "contentinfo" => "footer",
            "complementary" => "aside",
            "search" => "search",
            "form" if !label.is_empty() => "form",
            "region" if !label.is_empty() => "section",
            // A control is never a page's header or nav, whatever its class says (a jQuery UI
            // accordion header is a `tab` with the class `ui-accordion-header`; a menu item bound
            // by script has the class `menu-user`).
            _ if INTERACTIVE_ROLES.contains(&role.as_str()) || self.actionable[id] => return None,
            _ if self.regions.is_empty() => fallback_region(node.attr("id"), node.attr("class"))?,
            _ => return None,
        };
        Some((kind, label, None))
    }
}

/// The deterministic overlay rules, first match wins:
/// 1. role `dialog` or `alertdialog` with `aria-modal="true"` — a modal (confidence 1.0);
/// 2. role `dialog` or `alertdialog` — a dialog (0.9);
/// 3. a `data-overlay`, `data-modal` or `data-dialog` attribute — a modal (0.85);
/// 4. a class naming a modal, dialog, overlay, popup or dropdown menu, with a z-index of at
///    least 1000 or a full-viewport backdrop beside it — a modal or dropdown (0.7).
pub fn overlay_of(tree: &PageTree, id: NodeId, role: &str) -> Option<Overlay> {
    let node = &tree.nodes[id];
    let z_index = node.layout.as_ref().and_then(|l| l.z_index).unwrap_or(0);
    let found = |kind, confidence| Some(Overlay { kind, confidence, z_index });
    if matches!(role, "dialog" | "alertdialog") || node.tag == "dialog" {
        let modal = node.attr("aria-modal").is_some_and(|m| m.eq_ignore_ascii_case("true"));
        return if modal { found(OverlayKind::Modal, 1.0) } else { found(OverlayKind::Dialog, 0.9) };
    }
    if ["data-overlay", "data-modal", "data-dialog"].iter().any(|a| node.has_attr(a)) {
        return found(OverlayKind::Modal, 0.85);
    }
    let class = node.attr("class").unwrap_or("").to_ascii_lowercase();
    let classes: Vec<&str> = class.split_whitespace().collect();
    let names = |word: &str| classes.iter().any(|c| c.split(['-', '_']).any(|part| part == word));
    let dropdown = classes.iter().any(|c| c.contains("dropdown-menu"));
    if (names("modal") || names("dialog") || names("overlay") || names("popup") || dropdown)
        && (z_index >= 1000 || has_backdrop_sibling(tree, id))
    {
        return found(if dropdown { OverlayKind::Dropdown } else { OverlayKind::Modal }, 0.7);
    }
    None
}

/// Whether a sibling of `id` is a fixed box covering the viewport (a backdrop).
fn has_backdrop_sibling(tree: &PageTree, id: NodeId) -> bool {
    let Some(parent) = tree.nodes[id].parent else { return false };
    let (vw, vh) = tree.viewport;
    tree.nodes[parent].children.iter().filter(|&&s| s != id).any(|&s| {
        tree.nodes[s]
            .layout
            .as_ref()
            .is_some_and(|l| l.position == "fixed" && vw > 0.0 && l.bounds.w >= 0.9 * vw && l.bounds.h >= 0.9 * vh)
    })
}

/// Regions recognised by id or class on pages without landmarks.
fn fallback_region(id: Option<&str>, class: Option<&str>) -> Option<&'static str> {
    let tokens = id.into_iter().chain(class.into_iter().flat_map(str::split_whitespace)).map(str::to_ascii_lowercase);
    for token in tokens {
        let parts: Vec<&str> = token.split(['-', '_']).collect();
        let has = |w: &str| parts.contains(&w);
        if has("header") || has("masthead") || has("topbar") {
            return Some("header");
        }
        if has("nav") || has("navbar") || has("navigation") || has("menu") {
            return Some("nav");
        }
        if has("footer") {
            return Some("footer");
        }
        if has("sidebar") {
            return Some("aside");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_regions_come_from_id_or_class_tokens() {
        assert_eq!(fallback_region(Some("site-header"), None), Some("header"));
        assert_eq!(fallback_region(None, Some("wrapper main_nav")), Some("nav"));
        assert_eq!(fallback_region(None, Some("navigational")), None);
    }
}
