//! Elements by `id` and `<label>`s by the field they name, per frame: what `aria-labelledby`,
//! `aria-describedby` and `<label for>` point at, found without a scan of the page for each
//! reference. Built once per page tree, the first time a reference is followed.

use std::collections::HashMap;

use super::{NodeId, NodeKind, PageTree};

/// Elements by `id` and `<label>`s by `for`, each with its frame, in document order.
#[derive(Debug, Clone, Default)]
pub struct IdIndex<'a> {
    elements: HashMap<&'a str, Vec<(usize, NodeId)>>,
    labels: HashMap<&'a str, Vec<(usize, NodeId)>>,
}

impl<'a> IdIndex<'a> {
    /// Indexes every element of `tree`.
    pub fn new(tree: &PageTree<'a>) -> IdIndex<'a> {
        let mut index = IdIndex::default();
        for (id, node) in tree.nodes.iter().enumerate() {
            if node.kind != NodeKind::Element {
                continue;
            }
            if let Some(own) = node.attr("id") {
                index.elements.entry(own).or_default().push((node.frame, id));
            }
            if node.tag == "label"
                && let Some(target) = node.attr("for")
            {
                index.labels.entry(target).or_default().push((node.frame, id));
            }
        }
        index
    }

    /// The element of `frame` whose `id` is `wanted`.
    pub fn element(&self, frame: usize, wanted: &str) -> Option<NodeId> {
        // The first in document order wins, as `getElementById` has it.
        self.elements.get(wanted)?.iter().find(|(f, _)| *f == frame).map(|(_, id)| *id)
    }

    /// The `<label>`s of `frame` whose `for` is `field_id`, in document order.
    pub fn labels(&self, frame: usize, field_id: &str) -> impl Iterator<Item = NodeId> + '_ {
        self.labels.get(field_id).into_iter().flatten().filter(move |(f, _)| *f == frame).map(|(_, id)| *id)
    }
}
