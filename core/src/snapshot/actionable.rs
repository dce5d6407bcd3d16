//! Which elements an agent can act on, and so get a ref.
//!
//! An element is a candidate when its accessible role is interactive, when HTML makes it
//! interactive (`a[href]`, `button`, form fields, `summary`, the outermost `contenteditable`,
//! a `draggable="true"` element a person can pick up), when it has an `onclick` attribute or a
//! non-negative `tabindex`. Pages also make elements
//! clickable by script alone, so two more kinds count while they hold no other candidate:
//! an element Chrome reports a click or mouse-button listener on (icons bound with jQuery's
//! `.on('click')`, SVG shapes bound with d3), and an element whose pointer cursor starts at it
//! rather than being inherited (a handler delegated to an ancestor leaves only that trace).
//! An element with both traces stays a candidate around other candidates too (an inbox row
//! with its own star and trash icons).
//!
//! Lists that answer the mouse themselves: a list (`ul`, `ol`) that is a candidate only for its
//! listener, holding two or more items and no other candidate, delegates to its items (a
//! sortable list binds `mousedown` on the list and drags the item under the pointer): the
//! items get the refs, not the list.
//!
//! Propagating bounds: inside a link, a button, or an element with role button, link or
//! combobox, a nested candidate whose box lies (≥ 99 %) within the outer one is the same click
//! target and gets no ref of its own — unless it is a form field or label, another propagating
//! element, has an `onclick` attribute, its own `aria-label`, or an interactive role.
//!
//! Same-name wrappers: a control inside another control of the same name (a `tab` around its
//! own link "Round trip"), whose box lies within the outer one and covers its centre (where the
//! outer ref is clicked), and which is all the outer one holds, is one control with one ref:
//! the outer one, which takes the inner one's role when it has none of its own. An outer
//! control that holds more (a jQuery UI accordion header `<p>` with a line break above its
//! Submit button) is a control of its own around another: both keep their refs.
//!
//! Menus a hover opens: a list item that shows only words and holds targets the page hides (a
//! CSS dropdown under a plain word such as "Products") is a target, and stays one while its
//! menu shows ([`super::hover_menus`]).
//!
//! Labels standing for hidden controls: a visible `<label>` whose native checkbox, radio or
//! switch is hidden (a styled checkbox draws its own box and hides the real one) is what a user
//! clicks, and clicking it toggles the control: the label gets the ref, shown as the control.

use std::collections::HashMap;

use super::hover_menus;
use super::signal::Signal;
use super::text::normalise;
use super::tree::{Node, NodeId, NodeKind, PageTree, Rect};

/// Accessible roles an agent can act on.
pub const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
    "DisclosureTriangle",
    "PopUpButton",
];

/// Roles that never make an element a candidate on their own.
const PASSIVE_OPTION_PARENTS: &[&str] = &["select", "datalist"];

/// The candidates, by node, and the list items and boxes among them that are open menus (see
/// [`hover_menus::open_menu`]). `named_before` says whether a node holds a ref already: a
/// menu's trigger named while its menu was hidden stays a target while the menu shows, so the
/// agent's ref does not go away under the pointer that opened it.
pub fn candidates(tree: &PageTree, named_before: &dyn Fn(NodeId) -> bool) -> (Vec<bool>, Vec<NodeId>) {
    let n = tree.nodes.len();
    let semantic: Vec<bool> = (0..n).map(|id| is_candidate(tree, id)).collect();
    let mut candidate: Vec<bool> = (0..n).map(|id| semantic[id] || listener_only(tree, id)).collect();
    // An element that is a candidate only for its click listener counts only when it holds no
    // other candidate (otherwise it is a container of the real targets).
    for id in (0..n).rev() {
        if candidate[id]
            && !semantic[id]
            && !listens_with_own_pointer(tree, id)
            && tree.nodes[id].children.iter().any(|&c| subtree_has(tree, c, &candidate))
        {
            candidate[id] = false;
        }
    }
    let mut open_menus = Vec::new();
    let before = candidate.clone();
    for (id, candidate) in candidate.iter_mut().enumerate() {
        if *candidate {
            continue;
        }
        if hover_menus::hidden_menu(tree, id, &semantic).is_some()
            && (tree.nodes[id].tag == "li" || !hover_menus::shows_a_candidate(tree, id, &before))
        {
            *candidate = true;
        } else if hover_menus::menu_host(&tree.nodes[id])
            && named_before(id)
            && hover_menus::open_menu(tree, id, &semantic)
        {
            *candidate = true;
            open_menus.push(id);
        }
    }
    for id in 0..n {
        if candidate[id]
            && !semantic[id]
            && tree.nodes[id].clickable
            && matches!(tree.nodes[id].tag.as_str(), "ul" | "ol")
        {
            let items: Vec<NodeId> =
                tree.nodes[id].children.iter().copied().filter(|&c| tree.nodes[c].tag == "li").collect();
            if items.len() >= 2 {
                candidate[id] = false;
                for item in items {
                    candidate[item] = true;
                }
            }
        }
    }
    (candidate, open_menus)
}

/// Whether `id` or a node inside it is marked in `flag`.
pub(super) fn subtree_has(tree: &PageTree, id: NodeId, flag: &[bool]) -> bool {
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        if flag[x] {
            return true;
        }
        stack.extend(tree.nodes[x].children.iter().copied());
    }
    false
}

pub(super) fn is_candidate(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    if node.kind != NodeKind::Element {
        return false;
    }
    let tag = node.tag.as_str();
    // Options of a native <select> are reached through the select itself.
    if tag == "option" || tag == "optgroup" {
        return false;
    }
    let role = node.ax.role();
    if INTERACTIVE_ROLES.contains(&role.as_str()) && !node.ax.ignored() {
        if role == "option" && node.parent.is_some_and(|p| PASSIVE_OPTION_PARENTS.contains(&tree.nodes[p].tag.as_str()))
        {
            return false;
        }
        return true;
    }
    match tag {
        "a" if node.has_attr("href") => return true,
        "button" | "select" | "textarea" | "summary" => return true,
        "input" => return !node.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("hidden")),
        _ => {}
    }
    // A person can pick up a `draggable="true"` element whatever listens to it (its
    // `dragstart` listener is not among the mouse-button listeners Chrome reports).
    if is_editing_host(tree, id) || node.has_attr("onclick") || draggable(node) {
        return true;
    }
    node.attr("tabindex").and_then(|t| t.trim().parse::<i64>().ok()).is_some_and(|t| t >= 0)
}

/// Marked `draggable="true"`: a person can pick it up and drop it (HTML5 drag and drop).
pub fn draggable(node: &Node<'_>) -> bool {
    node.attr("draggable").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// An element with both traces of a script's click target: a listener on it and a pointer
/// cursor that starts at it. It is a target even around others (an inbox row around its star).
fn listens_with_own_pointer(tree: &PageTree, id: NodeId) -> bool {
    tree.nodes[id].clickable && pointer_starts_at(tree, id)
}

/// Whether the element shows a pointer cursor its parent does not (the cursor is inherited, so
/// this is where a page set it).
fn pointer_starts_at(tree: &PageTree, id: NodeId) -> bool {
    let pointer = |n: NodeId| tree.nodes[n].layout.as_ref().is_some_and(|l| l.cursor == "pointer");
    pointer(id) && !tree.nodes[id].parent.is_some_and(pointer)
}

/// An element made clickable by script: Chrome reports a click or mouse-button listener on
/// it, or its pointer cursor starts at it (its parent shows none).
fn listener_only(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    if node.kind != NodeKind::Element || matches!(node.tag.as_str(), "html" | "body" | "label") {
        return false;
    }
    // Chrome counts everything inside an editable area as clickable (a click there places the
    // caret): that is the editor's text, reached through the area's own ref.
    node.clickable && !in_editable_content(tree, id) || pointer_starts_at(tree, id)
}

/// Whether the element is editable content inside an editing host (its `contenteditable`
/// inherited, not switched off by a nearer `contenteditable="false"`).
fn in_editable_content(tree: &PageTree, id: NodeId) -> bool {
    let mut ancestors = tree.ancestors(id);
    ancestors.find_map(|a| editable_attr(&tree.nodes[a])).unwrap_or(false)
        && editable_attr(&tree.nodes[id]).is_none_or(|own| own)
}

/// What an element's own `contenteditable` says: editable, not editable, or nothing.
fn editable_attr(node: &Node<'_>) -> Option<bool> {
    node.attr("contenteditable")
        .map(|v| v.is_empty() || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("plaintext-only"))
}

/// An element a person types into as into a text field: the outermost element made editable by
/// `contenteditable` (a rich-text editor's body, a comment box).
pub fn is_editing_host(tree: &PageTree, id: NodeId) -> bool {
    editable_attr(&tree.nodes[id]) == Some(true) && !in_editable_content(tree, id)
}

/// Elements whose box captures clicks for what is inside it.
fn propagates(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    matches!(node.tag.as_str(), "a" | "button") || matches!(node.ax.role().as_str(), "button" | "link" | "combobox")
}

/// Propagating bounds: removes nested candidates that are the same click target as an enclosing
/// propagating element. Returns how many were removed.
pub fn propagate_bounds(tree: &PageTree, signal: &Signal, actionable: &mut [bool]) -> usize {
    let mut removed = 0;
    let mut stack: Vec<(NodeId, Option<Rect>)> = vec![(tree.root, None)];
    while let Some((id, active)) = stack.pop() {
        let node = &tree.nodes[id];
        if !signal.kept(id) {
            continue;
        }
        if let (Some(outer), Some(bounds)) = (active, node.bounds())
            && actionable[id]
            && contained(bounds, outer, 0.99)
            && !keeps_own_ref(tree, id)
        {
            actionable[id] = false;
            removed += 1;
        }
        let next = match node.bounds() {
            Some(b) if actionable[id] && propagates(tree, id) => Some(b),
            _ => active,
        };
        for &c in node.children.iter().rev() {
            stack.push((c, next));
        }
        // Another site's frame is its own click target, whatever link or button is around it.
        for document in tree.framed_documents(id) {
            stack.push((document, None));
        }
    }
    removed
}

/// The exceptions to propagating bounds.
fn keeps_own_ref(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    matches!(node.tag.as_str(), "input" | "select" | "textarea" | "label")
        || propagates(tree, id)
        || node.has_attr("onclick")
        || node.attr("aria-label").is_some_and(|l| !l.trim().is_empty())
        || matches!(node.ax.role().as_str(), "button" | "link" | "checkbox" | "radio" | "tab" | "menuitem")
}

/// A native checkbox or radio (`<input type=checkbox|radio>`), what a styled control hides
/// behind its label.
pub(super) fn native_toggle(node: &Node<'_>) -> bool {
    node.tag == "input"
        && node.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("checkbox") || t.eq_ignore_ascii_case("radio"))
}

/// Labels standing for hidden controls: maps each visible label whose native checkbox, radio
/// or switch gets no ref (hidden, or covered) to that control, and makes the label actionable.
pub fn labels_for_hidden_controls(
    tree: &PageTree,
    signal: &Signal,
    actionable: &mut [bool],
) -> HashMap<NodeId, NodeId> {
    let mut by_id: HashMap<(usize, &str), NodeId> = HashMap::new();
    for (id, node) in tree.nodes.iter().enumerate() {
        if let Some(i) = node.attr("id") {
            by_id.entry((node.frame, i)).or_insert(id);
        }
    }
    let toggle = |id: NodeId| native_toggle(&tree.nodes[id]);
    let mut stands_for = HashMap::new();
    for (id, node) in tree.nodes.iter().enumerate() {
        if node.tag != "label" || !signal.kept(id) || signal.ax_hidden[id] {
            continue;
        }
        let control = match node.attr("for") {
            Some(target) => by_id.get(&(node.frame, target)).copied(),
            None => first_descendant(tree, id, &toggle),
        };
        let Some(control) = control.filter(|&c| toggle(c) && !actionable[c]) else { continue };
        if tree.nodes[control].has_attr("disabled") && !signal.kept(control) {
            // A hidden, disabled control is not there for the user at all.
            continue;
        }
        actionable[id] = true;
        stands_for.insert(id, control);
    }
    stands_for
}

fn first_descendant(tree: &PageTree, id: NodeId, wanted: &dyn Fn(NodeId) -> bool) -> Option<NodeId> {
    let mut stack: Vec<NodeId> = tree.nodes[id].children.iter().rev().copied().collect();
    while let Some(x) = stack.pop() {
        if wanted(x) {
            return Some(x);
        }
        stack.extend(tree.nodes[x].children.iter().rev().copied());
    }
    None
}

/// Same-name wrappers: removes the ref of a control nested (box within, ≥ 99 %) in an actionable
/// element of the same name. Returns how many it removed, and for each outer element without
/// an interactive role of its own, the inner control whose role it takes.
pub fn merge_same_name(tree: &PageTree, signal: &Signal, actionable: &mut [bool]) -> (usize, HashMap<NodeId, NodeId>) {
    let mut removed = 0;
    let mut borrowed = HashMap::new();
    for id in 0..tree.nodes.len() {
        let node = &tree.nodes[id];
        if !actionable[id] || matches!(node.tag.as_str(), "input" | "select" | "textarea" | "label") {
            continue;
        }
        let Some(outer) = tree.ancestors(id).find(|&a| actionable[a]) else { continue };
        let (Some(inner_box), Some(outer_box)) = (node.bounds(), tree.nodes[outer].bounds()) else { continue };
        if tree.nodes[outer].tag == "label" || !contained(inner_box, outer_box, 0.99) {
            continue;
        }
        // The outer ref is clicked at its centre: it stands for the inner control only if that
        // point lands on it (an accordion header whose button sits off-centre is two controls).
        if !covers_point(inner_box, centre(outer_box)) {
            continue;
        }
        let name = plain_name(tree, signal, id);
        if name.is_empty() || !name.eq_ignore_ascii_case(&plain_name(tree, signal, outer)) {
            continue;
        }
        if !holds_only(tree, signal, outer, id) {
            continue;
        }
        actionable[id] = false;
        removed += 1;
        if !has_interactive_role(tree, outer) {
            borrowed.entry(outer).or_insert(id);
        }
    }
    (removed, borrowed)
}

/// Whether everything `outer` shows is `inner`: apart from `inner` and the elements between the
/// two, it holds no element and no text that reaches the agent (white space aside).
fn holds_only(tree: &PageTree, signal: &Signal, outer: NodeId, inner: NodeId) -> bool {
    let path: Vec<NodeId> = tree.ancestors(inner).take_while(|&a| a != outer).collect();
    let mut stack: Vec<NodeId> = tree.nodes[outer].children.clone();
    while let Some(x) = stack.pop() {
        if x == inner || !signal.kept(x) {
            continue;
        }
        let node = &tree.nodes[x];
        match node.kind {
            NodeKind::Text if !node.text.trim().is_empty() => return false,
            NodeKind::Element if !path.contains(&x) => return false,
            _ => stack.extend(node.children.iter().copied()),
        }
    }
    true
}

/// The accessible name, else the visible text, normalised.
fn plain_name(tree: &PageTree, signal: &Signal, id: NodeId) -> String {
    let name = normalise(&tree.nodes[id].ax.name());
    if !name.is_empty() {
        return name;
    }
    let mut out = String::new();
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        if !signal.kept(x) {
            continue;
        }
        let node = &tree.nodes[x];
        if node.kind == NodeKind::Text {
            out.push_str(node.text);
            out.push(' ');
        }
        stack.extend(node.children.iter().rev().copied());
    }
    normalise(&out)
}

/// Whether the element says what it is: an interactive role, or a tag that is one.
fn has_interactive_role(tree: &PageTree, id: NodeId) -> bool {
    let node = &tree.nodes[id];
    INTERACTIVE_ROLES.contains(&node.ax.role().as_str())
        || matches!(node.tag.as_str(), "a" | "button" | "summary" | "select" | "textarea" | "input")
}

/// The point a click on `r` lands on.
fn centre(r: Rect) -> (f64, f64) {
    (r.x + r.w / 2.0, r.y + r.h / 2.0)
}

fn covers_point(r: Rect, (x, y): (f64, f64)) -> bool {
    r.x <= x && x <= r.right() && r.y <= y && y <= r.bottom()
}

/// Whether at least `threshold` of `inner`'s area lies within `outer`.
pub fn contained(inner: Rect, outer: Rect, threshold: f64) -> bool {
    let area = inner.area();
    area > 0.0 && inner.intersection(&outer).area() / area >= threshold
}
