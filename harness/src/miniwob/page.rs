//! What a solver knows of a page: the nodes one MCP reply showed, in reading order, whichever
//! server wrote them. Each server's own format is read into this shape by `formats`; solvers
//! only ever ask questions of it (find by role and name, the text before an element, states).
//!
//! A `Page` holds exactly what the reply said: a node the reply did not show is not here, and
//! nothing is filled in from anywhere else.

use std::fmt;

/// One node of a reply: an element (with a ref when the server lets an agent act on it) or a
/// run of text (`role == "text"`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    /// Nesting depth as the reply wrote it (0 outermost).
    pub depth: usize,
    /// ARIA role, lower case (`button`, `checkbox`, `textbox`, `link`, `clickable`, …), or
    /// `text` for text.
    pub role: String,
    /// Accessible name, or the text of a text node (or of a nameless clickable).
    pub name: String,
    /// The ref to act on it with (`e12`, `f3e12`, `4_12`).
    pub reference: Option<String>,
    /// Current value (text fields, selects, sliders).
    pub value: Option<String>,
    /// States as the reply gave them, lower case (`checked`, `selected`, `expanded`,
    /// `disabled`, `focused`, `readonly`, …).
    pub states: Vec<String>,
    /// Options a select shows (some servers summarise them; then this is partial).
    pub options: Vec<String>,
}

impl Node {
    /// A text node.
    pub fn text(depth: usize, text: &str) -> Node {
        Node { depth, role: "text".into(), name: text.to_owned(), ..Node::default() }
    }

    /// Whether this is a run of text.
    pub fn is_text(&self) -> bool {
        self.role == "text"
    }

    /// Whether the reply gave this node `state`.
    pub fn has(&self, state: &str) -> bool {
        self.states.iter().any(|s| s == state)
    }

    /// Whether a checkbox, radio or switch is checked.
    pub fn checked(&self) -> bool {
        self.has("checked")
    }

    /// The name with runs of whitespace collapsed.
    pub fn label(&self) -> String {
        normalize(&self.name)
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_text() {
            return write!(f, "text {:?}", self.name);
        }
        write!(f, "{}", self.role)?;
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        if let Some(r) = &self.reference {
            write!(f, " [{r}]")?;
        }
        Ok(())
    }
}

/// The nodes of one reply, in reading order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    /// Every node shown.
    pub nodes: Vec<Node>,
}

impl Page {
    /// Whether the reply showed nothing of the page.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The first element with `role` whose name is `name` (whitespace collapsed, case kept).
    pub fn find(&self, role: &str, name: &str) -> Option<&Node> {
        let wanted = normalize(name);
        self.nodes.iter().find(|n| n.role == role && n.label() == wanted)
    }

    /// The first element of any of `roles` whose name is `name`.
    pub fn find_any(&self, roles: &[&str], name: &str) -> Option<&Node> {
        let wanted = normalize(name);
        self.nodes.iter().find(|n| roles.contains(&n.role.as_str()) && n.label() == wanted)
    }

    /// The first node with a ref whose name or text is `name`, whatever its role: what an agent
    /// clicks when the page gives a word no role (a `span` with a click handler).
    pub fn find_actionable(&self, name: &str) -> Option<&Node> {
        let wanted = normalize(name);
        self.nodes.iter().find(|n| n.reference.is_some() && n.label() == wanted)
    }

    /// Every element with `role`, in order.
    pub fn all(&self, role: &str) -> Vec<&Node> {
        self.nodes.iter().filter(|n| n.role == role).collect()
    }

    /// Every node with a ref, in order.
    pub fn actionable(&self) -> Vec<&Node> {
        self.nodes.iter().filter(|n| n.reference.is_some()).collect()
    }

    /// The first element with a ref and one of `roles` after the first text node containing
    /// `text` (the field a label that is not tied to it stands before).
    pub fn after_text(&self, text: &str, roles: &[&str]) -> Option<&Node> {
        let start = self.nodes.iter().position(|n| n.is_text() && n.name.contains(text))?;
        self.nodes[start + 1..].iter().find(|n| n.reference.is_some() && roles.contains(&n.role.as_str()))
    }

    /// The nodes after the first node matching `from`, up to (not including) the next one
    /// matching `until` (or the end).
    pub fn section(&self, from: impl Fn(&Node) -> bool, until: impl Fn(&Node) -> bool) -> Page {
        let Some(start) = self.nodes.iter().position(from) else { return Page::default() };
        let rest = &self.nodes[start + 1..];
        let end = rest.iter().position(until).unwrap_or(rest.len());
        Page { nodes: rest[..end].to_vec() }
    }

    /// The nodes nested under the node at `index` (deeper than it, up to the next node at its
    /// depth or shallower).
    pub fn children_of(&self, index: usize) -> Page {
        let depth = self.nodes[index].depth;
        let rest = &self.nodes[index + 1..];
        let end = rest.iter().position(|n| n.depth <= depth).unwrap_or(rest.len());
        Page { nodes: rest[..end].to_vec() }
    }

    /// The index of `node` (compared by value) in this page.
    pub fn index_of(&self, node: &Node) -> Option<usize> {
        self.nodes.iter().position(|n| n == node)
    }

    /// Every text node's text, in order.
    pub fn texts(&self) -> Vec<&str> {
        self.nodes.iter().filter(|n| n.is_text()).map(|n| n.name.as_str()).collect()
    }

    /// All visible text, each node's own text (text nodes, and names of nameless clickables
    /// that carry text) joined by `\n`.
    pub fn text(&self) -> String {
        self.texts().join("\n")
    }

    /// Whether any text node or element name contains `needle`.
    pub fn contains(&self, needle: &str) -> bool {
        self.nodes.iter().any(|n| n.name.contains(needle))
    }

    /// The task's instruction: MiniWoB++ writes it first, before the task's area, so it is the
    /// first text the reply shows. Servers that split a text at inline markup (a `<span>`) give
    /// several text nodes; consecutive ones at the same depth are joined.
    pub fn instruction(&self) -> String {
        self.instruction_span().map(|(first, end)| self.join_text(first, end)).unwrap_or_default()
    }

    /// The text after the instruction, up to the first element: the task's own words when it
    /// starts with text (a paragraph to read, an equation), joined like the instruction.
    pub fn text_after_instruction(&self) -> String {
        let Some((_, end)) = self.instruction_span() else { return String::new() };
        let stop = self.nodes[end..].iter().position(|n| !n.is_text()).map_or(self.nodes.len(), |p| end + p);
        self.nodes[end..stop].iter().map(|n| normalize(&n.name)).collect::<Vec<_>>().join("\n")
    }

    /// Everything after the instruction: the task's own area.
    pub fn after_instruction(&self) -> Page {
        let end = self.instruction_span().map_or(0, |(_, end)| end);
        Page { nodes: self.nodes[end..].to_vec() }
    }

    /// The nodes before the first node matching `until` (all of them when none does).
    pub fn until(&self, until: impl Fn(&Node) -> bool) -> Page {
        let end = self.nodes.iter().position(until).unwrap_or(self.nodes.len());
        Page { nodes: self.nodes[..end].to_vec() }
    }

    /// Where the instruction's text nodes start and end. It ends at an element, at a change of
    /// depth, or after a sentence ends (a run of text nodes at one depth can carry the next
    /// paragraph too when the server leaves out the blocks between them).
    fn instruction_span(&self) -> Option<(usize, usize)> {
        let first = self.nodes.iter().position(Node::is_text)?;
        let depth = self.nodes[first].depth;
        let mut end = first;
        while end < self.nodes.len() && self.nodes[end].is_text() && self.nodes[end].depth == depth {
            end += 1;
            let ended = self.nodes[end - 1].name.trim_end().ends_with(['.', '!', '?']);
            let continues = self
                .nodes
                .get(end)
                .is_some_and(|n| n.is_text() && n.name.starts_with(['"', '\'', '.', ',', ';', ':', '!', '?', ')']));
            if ended && !continues {
                break;
            }
        }
        Some((first, end))
    }

    fn join_text(&self, first: usize, end: usize) -> String {
        normalize(&self.nodes[first..end].iter().map(|n| n.name.as_str()).collect::<String>())
    }
}

/// `s` with surrounding and repeated whitespace collapsed to single spaces.
pub fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(depth: usize, role: &str, name: &str, r: &str) -> Node {
        Node { depth, role: role.into(), name: name.into(), reference: Some(r.into()), ..Node::default() }
    }

    #[test]
    fn instruction_joins_text_split_at_inline_markup() {
        let page = Page {
            nodes: vec![
                Node::text(1, "Enter \""),
                Node::text(1, "Jerald"),
                Node::text(1, "\" into the text field."),
                el(1, "textbox", "", "e1"),
                Node::text(1, "later"),
            ],
        };
        assert_eq!(page.instruction(), "Enter \"Jerald\" into the text field.");
    }

    #[test]
    fn a_field_is_found_after_its_untied_label() {
        let page = Page {
            nodes: vec![
                Node::text(0, "Username"),
                el(0, "textbox", "", "e1"),
                Node::text(0, "Password"),
                el(0, "textbox", "", "e2"),
            ],
        };
        assert_eq!(page.after_text("Password", &["textbox"]).and_then(|n| n.reference.as_deref()), Some("e2"));
        assert_eq!(page.find("textbox", ""), page.nodes.get(1));
    }
}
