//! Overlays (modals, dialogs, dropdowns) as the agent sees them: which are open, and the view
//! that shows them over a page whose part behind them is frozen until they close.

use std::collections::{BTreeSet, HashMap};

use super::view::{LineKey, View, ViewLine};
use crate::refs::NodeKey;
use crate::snapshot::Snapshot;

/// An open overlay: its region name, and the identity of its element (frame, document, node),
/// which tells apart two overlays of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOverlay {
    /// Region name, e.g. `dialog "Settings"`.
    pub name: String,
    /// The overlay element.
    pub key: NodeKey,
}

/// The open overlays of a snapshot, in document order (an outer overlay before the ones inside
/// it).
pub fn overlays_in(snapshot: &Snapshot) -> Vec<OpenOverlay> {
    snapshot
        .regions
        .iter()
        .filter(|r| r.overlay.is_some())
        .map(|r| OpenOverlay { name: r.name.clone(), key: r.key.clone() })
        .collect()
}

/// The agent's view of a page whose base part is `base` (frozen while overlays are open) and
/// whose overlays are as in `page`: `base`'s lines, with each run of overlay lines placed after
/// the base line that precedes it in `page`.
pub fn compose(base: &View, page: &View) -> View {
    let mut lines: Vec<ViewLine> = base.lines.clone();
    let mut elements = base.elements.clone();
    let base_ids: HashMap<&LineKey, usize> = base.lines.iter().enumerate().map(|(i, l)| (&l.id, i)).collect();
    // Insert overlay runs from the last to the first so earlier insert positions stay valid.
    let mut runs: Vec<(Option<usize>, Vec<ViewLine>)> = Vec::new();
    let mut anchor: Option<usize> = None;
    let mut in_overlay = false;
    for line in &page.lines {
        if line.overlay.is_none() {
            in_overlay = false;
            if let Some(&i) = base_ids.get(&line.id) {
                anchor = Some(i);
            }
            continue;
        }
        match runs.last_mut() {
            Some((_, run)) if in_overlay => run.push(line.clone()),
            _ => runs.push((anchor, vec![line.clone()])),
        }
        in_overlay = true;
    }
    for (anchor, run) in runs.into_iter().rev() {
        let at = anchor.map(|a| a + 1).unwrap_or(0);
        for line in run.into_iter().rev() {
            lines.insert(at, line);
        }
    }
    let overlay_refs: BTreeSet<u32> =
        lines.iter().filter(|l| l.overlay.is_some()).flat_map(|l| l.refs.iter().copied()).collect();
    for r in overlay_refs {
        if let Some(f) = page.elements.get(&r) {
            elements.insert(r, f.clone());
        }
    }
    View { lines, elements }
}
