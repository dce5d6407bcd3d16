//! Tables as the accessibility tree has them: Chrome's guess whether a `<table>` holds data or
//! lays the page out, and the roles of its row groups, rows, cells and header cells.

use crate::snapshot::tree::{NodeId, NodeKind, PageTree};

/// The element children of `id` with one of `tags`.
pub(super) fn children_tagged<'t>(
    tree: &'t PageTree,
    id: NodeId,
    tags: &'t [&str],
) -> impl Iterator<Item = NodeId> + 't {
    tree.nodes[id]
        .children
        .iter()
        .copied()
        .filter(move |&c| tree.nodes[c].kind == NodeKind::Element && tags.contains(&tree.nodes[c].tag.as_str()))
}

/// A table's rows: its own `<tr>`s and those of its row groups.
pub(super) fn table_rows(tree: &PageTree, table: NodeId) -> Vec<NodeId> {
    let mut rows = Vec::new();
    for child in children_tagged(tree, table, &["tr", "thead", "tbody", "tfoot"]) {
        if tree.nodes[child].tag == "tr" {
            rows.push(child);
        } else {
            rows.extend(children_tagged(tree, child, &["tr"]));
        }
    }
    rows
}

/// Whether the accessibility tree takes `table` for a data table rather than one that only
/// lays the page out, as far as the capture can tell: its markup says so (a caption, header or
/// footer group, columns, header cells or header attributes, 20 rows or more), at least half its
/// cells are set apart from it by their own colour with space between them, or its rows are
/// striped in turn. Chrome also counts cells drawn with borders; the capture does not carry
/// borders, so a table set apart only by them reads here as a layout one.
pub(super) fn data_table(tree: &PageTree, table: NodeId) -> bool {
    let node = &tree.nodes[table];
    let Some(layout) = node.layout.as_ref() else { return true };
    if node.attr("summary").is_some_and(|v| !v.is_empty())
        || node.attr("rules").is_some_and(|r| !r.is_empty())
        || children_tagged(tree, table, &["caption", "thead", "tfoot", "col", "colgroup"]).next().is_some()
    {
        return true;
    }
    let rows = table_rows(tree, table);
    if rows.len() >= 20 {
        return true;
    }
    let Some(&first) = rows.first() else { return false };
    if rows.len() == 1 && children_tagged(tree, first, &["td", "th"]).count() == 1 {
        return false;
    }
    let spaced = cells_spaced(tree, table, &rows);
    let (mut valid, mut coloured) = (0, 0);
    let mut row_colours: Vec<&str> = Vec::new();
    for (r, &row) in rows.iter().enumerate() {
        for cell in children_tagged(tree, row, &["td", "th"]) {
            let c = &tree.nodes[cell];
            if c.tag == "th"
                || ["headers", "abbr", "axis", "scope"].iter().any(|a| c.attr(a).is_some_and(|v| !v.is_empty()))
            {
                return true;
            }
            let Some(cell_layout) = c.layout.as_ref() else { continue };
            if cell_layout.bounds.w < 1.0 || cell_layout.bounds.h < 1.0 {
                continue;
            }
            valid += 1;
            if spaced && cell_layout.background != layout.background && !transparent(&cell_layout.background) {
                coloured += 1;
                if coloured >= 10 {
                    return true;
                }
            }
            if r < 5
                && r == row_colours.len()
                && let Some(row_layout) = tree.nodes[row].layout.as_ref()
            {
                row_colours.push(&row_layout.background);
            }
        }
    }
    if valid <= 1 {
        return false;
    }
    if coloured >= valid / 2 {
        return true;
    }
    row_colours.len() > 2 && row_colours.iter().enumerate().skip(1).all(|(k, c)| (k % 2 == 0) == (*c == row_colours[0]))
}

/// Whether the table leaves space between its cells both ways (`border-spacing`, which the
/// capture does not carry), read off the boxes: a gap between neighbouring cells of a row, or
/// before the first cell; and a gap between rows, or above the first.
fn cells_spaced(tree: &PageTree, table: NodeId, rows: &[NodeId]) -> bool {
    let Some(table_box) = tree.nodes[table].layout.as_ref().map(|l| l.bounds) else { return false };
    let boxes = |row: NodeId| -> Vec<crate::snapshot::tree::Rect> {
        children_tagged(tree, row, &["td", "th"])
            .filter_map(|c| tree.nodes[c].layout.as_ref().map(|l| l.bounds))
            .collect()
    };
    let gap = |a: f64, b: f64| b - a >= 0.5;
    let first: Vec<_> = rows.first().map(|&r| boxes(r)).unwrap_or_default();
    let Some(corner) = first.first() else { return false };
    let across = match first.get(1) {
        Some(next) => gap(corner.right(), next.x),
        None => gap(table_box.x, corner.x),
    };
    let down = match rows.get(1).map(|&r| boxes(r)).and_then(|b| b.first().copied()) {
        Some(below) => gap(corner.bottom(), below.y),
        None => gap(table_box.y, corner.y),
    };
    across && down
}

/// A computed colour with nothing to show.
fn transparent(colour: &str) -> bool {
    colour.is_empty() || colour == "transparent" || colour.replace(' ', "").ends_with(",0)")
}

/// The role of a table part (`table`, `thead`/`tbody`/`tfoot`, `tr`, `td`, `th`) laid out as
/// one; `None` where the markup around it is not a plain table these rules follow.
pub(super) fn table_part(tree: &PageTree, id: NodeId) -> Option<&'static str> {
    let node = &tree.nodes[id];
    let parent = |id: NodeId| tree.nodes[id].parent.filter(|&p| tree.nodes[p].kind == NodeKind::Element);
    let plain = |id: NodeId, display: &str| {
        let n = &tree.nodes[id];
        !n.has_attr("role") && n.layout.as_ref().is_some_and(|l| l.display == display)
    };
    let table_of_row = |row: NodeId| {
        let up = parent(row)?;
        let table = if tree.nodes[up].tag == "table" { up } else { parent(up)? };
        (tree.nodes[table].tag == "table" && plain(table, "table")).then_some(table)
    };
    match node.tag.as_str() {
        "table" if plain(id, "table") => Some(if data_table(tree, id) { "table" } else { "LayoutTable" }),
        "thead" | "tbody" | "tfoot" => {
            let table = parent(id).filter(|&t| tree.nodes[t].tag == "table" && plain(t, "table"))?;
            Some(if data_table(tree, table) { "rowgroup" } else { "generic" })
        }
        "tr" if plain(id, "table-row") => {
            Some(if data_table(tree, table_of_row(id)?) { "row" } else { "LayoutTableRow" })
        }
        "td" | "th" if plain(id, "table-cell") => {
            let row = parent(id).filter(|&r| tree.nodes[r].tag == "tr" && plain(r, "table-row"))?;
            if !data_table(tree, table_of_row(row)?) {
                return Some("LayoutTableCell");
            }
            if node.tag == "td" {
                return Some("cell");
            }
            Some(header_role(tree, id, row))
        }
        _ => None,
    }
}

/// Whether a `<th>` heads its column or its row: its `scope`, else what cells stand beside it.
pub(super) fn header_role(tree: &PageTree, th: NodeId, row: NodeId) -> &'static str {
    match tree.nodes[th].attr("scope").map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("row" | "rowgroup") => return "rowheader",
        Some("col" | "colgroup") => return "columnheader",
        _ => {}
    }
    // Its neighbours are nodes of any kind (whitespace too); the row's ends are elements.
    let siblings = &tree.nodes[row].children;
    let at = siblings.iter().position(|&c| c == th).unwrap_or(0);
    let data = |c: Option<&NodeId>| c.is_some_and(|&c| tree.nodes[c].tag == "td" && !tree.nodes[c].children.is_empty());
    let header = |c: Option<&NodeId>| c.is_some_and(|&c| tree.nodes[c].tag == "th");
    let (before, after) = (at.checked_sub(1).and_then(|i| siblings.get(i)), siblings.get(at + 1));
    if before.is_none() && after.is_none() || header(before) && header(after) {
        return "columnheader";
    }
    if data(before) || data(after) {
        return "rowheader";
    }
    let cells: Vec<NodeId> = siblings.iter().copied().filter(|&c| tree.nodes[c].kind == NodeKind::Element).collect();
    let last = cells.len().saturating_sub(1);
    if data(cells.first())
        || data(cells.get(last))
        || data(cells.get(1))
        || data(last.checked_sub(1).and_then(|i| cells.get(i)))
    {
        return "rowheader";
    }
    "columnheader"
}
