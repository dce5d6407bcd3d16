//! The page tree the pipeline reads: the documents of a capture joined into one tree
//! ([`super::tree`]), its deepest branches folded ([`super::depth`]), frames of other sites set
//! apart ([`super::frames`]), then the roles and names of elements whose frame was captured without
//! Chrome's accessibility tree derived from the DOM ([`super::semantics`]). The two stages are
//! kept apart so that the tree knows nothing of how roles are worked out.

use super::tree::PageTree;
use super::{depth, frames, semantics};
use crate::capture::Capture;
use crate::urls::UrlPolicy;

impl<'a> PageTree<'a> {
    /// Builds the page tree of `capture`, with the URL policy that an agent's own loads have by
    /// default (no `file:` URLs).
    pub fn build(capture: &'a Capture) -> PageTree<'a> {
        Self::build_with(capture, &UrlPolicy::default())
    }

    /// Builds the page tree of `capture`; frames whose URL `policy` refuses are left out.
    pub fn build_with(capture: &'a Capture, policy: &UrlPolicy) -> PageTree<'a> {
        let mut tree = PageTree::join(capture, policy);
        // Every walk after this one is as deep as the tree: bound it before any of them.
        depth::bound(&mut tree);
        frames::set_apart_other_sites(&mut tree, policy);
        semantics::derive_missing(&mut tree, capture);
        tree
    }
}
