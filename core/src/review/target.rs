//! The element an action was aimed at, as the page showed it to the agent just before: its role,
//! accessible name, the region or frame it sat in, and whether that name alone picked it out.
//!
//! Recorded when the action runs (the ref resolves only in the snapshot the agent had), so an
//! exported test can find the same element again by role and name rather than by a ref that
//! only meant something to that snapshot. A secret field's value is never part of it: only
//! whether the field was secret.

use serde::{Deserialize, Serialize};

use crate::protocol::ToolCall;
use crate::snapshot::element::MASK;
use crate::snapshot::outline::frames::FRAME_REGION;
use crate::snapshot::{ElementId, RegionId, Snapshot};

/// A region an element is found within: an ARIA landmark or dialog role and its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// The ARIA role (`navigation`, `main`, `dialog`, …).
    pub role: String,
    /// Its accessible name (empty when it has none and its role is unique on the page).
    pub name: String,
}

/// The element one action was aimed at.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ActionTarget {
    /// The ref the agent used (`e12`).
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Its role as the snapshot showed it (`button`, `textbox`, `date`, `clickable`…).
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// How many elements of the page had the same role and name.
    pub same_on_page: usize,
    /// The smallest region it is the only one of its role and name in, when the page has others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Its position among those of its role and name in its scope, when even that is ambiguous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<usize>,
    /// The origin of another site's frame it sits in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_origin: Option<String>,
    /// Its `id` attribute, a fallback when role and name cannot find it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its `data-testid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub testid: Option<String>,
    /// Its placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Whether its value is secret (masked, or a password field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

/// The ARIA role a region kind stands for.
pub fn region_role(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "header" => "banner",
        "nav" => "navigation",
        "main" => "main",
        "footer" => "contentinfo",
        "aside" => "complementary",
        "search" => "search",
        "form" => "form",
        "section" => "region",
        "dialog" => "dialog",
        _ => return None,
    })
}

/// The targets of `call` in `snapshot` (the page as the agent had it before the call): one for
/// an action on a ref, one per field of a form fill, none for anything else.
pub fn targets_of(snapshot: &Snapshot, call: &ToolCall) -> Vec<ActionTarget> {
    let refs: Vec<&str> = match call {
        ToolCall::BrowserFillForm(p) => p.fields.iter().map(|f| f.element_ref.as_str()).collect(),
        ToolCall::BrowserFileUpload(p) => p.element_ref.as_deref().into_iter().collect(),
        other => other.element_ref().into_iter().collect(),
    };
    refs.into_iter().filter_map(|r| target(snapshot, r)).collect()
}

/// The target `element_ref` names in `snapshot`, if it is there.
pub fn target(snapshot: &Snapshot, element_ref: &str) -> Option<ActionTarget> {
    let number = crate::refs::parse_ref(element_ref).ok()?;
    let id = snapshot.element_ids().find(|&id| snapshot.element(id).number == number)?;
    let element = snapshot.element(id);
    let facts = &element.facts;
    let alike: Vec<ElementId> = snapshot
        .element_ids()
        .filter(|&o| {
            let other = &snapshot.element(o).facts;
            other.role == facts.role && other.name == facts.name
        })
        .collect();
    let attr = |name: &str| facts.attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
    let mut found = ActionTarget {
        element_ref: element_ref.trim().to_owned(),
        role: facts.role.clone(),
        name: facts.name.clone(),
        same_on_page: alike.len(),
        id: attr("id"),
        testid: attr("testid"),
        hint: attr("hint"),
        secret: facts.value.as_deref() == Some(MASK)
            || attr("type").is_some_and(|t| t.eq_ignore_ascii_case("password")),
        ..ActionTarget::default()
    };
    let path = snapshot.region_path(element.region);
    found.frame_origin = path
        .iter()
        .rev()
        .find(|&&r| snapshot.region(r).kind == FRAME_REGION)
        .map(|&r| snapshot.region(r).label.clone());
    // Inside a frame only what the frame holds counts: the test looks inside it.
    let frame = path.iter().rev().find(|&&r| snapshot.region(r).kind == FRAME_REGION).copied();
    let alike: Vec<ElementId> =
        alike.into_iter().filter(|&o| frame.is_none_or(|f| snapshot.within(snapshot.element(o).region, f))).collect();
    if alike.len() <= 1 {
        return Some(found);
    }
    // The innermost region that names one of them only, and is itself found by role and name.
    for &region in path.iter().rev().take_while(|&&r| Some(r) != frame) {
        let inside = alike.iter().filter(|&&o| snapshot.within(snapshot.element(o).region, region)).count();
        if inside == 1
            && let Some(scope) = scope_of(snapshot, region)
        {
            found.scope = Some(scope);
            return Some(found);
        }
    }
    found.nth = alike.iter().position(|&o| o == id);
    Some(found)
}

/// The region `region` as a scope, when its role and name find only it on the page.
fn scope_of(snapshot: &Snapshot, region: RegionId) -> Option<Scope> {
    let record = snapshot.region(region);
    let role = region_role(record.kind)?;
    let twins = snapshot
        .region_ids()
        .filter(|&r| {
            let other = snapshot.region(r);
            region_role(other.kind) == Some(role) && other.label == record.label
        })
        .count();
    (twins == 1).then(|| Scope { role: role.to_owned(), name: record.label.clone() })
}
