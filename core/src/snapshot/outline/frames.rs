//! Frames of other sites and refused frames in the outline (see [`crate::snapshot::frames`]).
//!
//! Another site's frame is written as a region of kind `frame` labelled with its origin: its
//! lines sit inside it, so the text says where they come from (`<frame site="other"
//! origin="https://bank.example">` … `</frame>`), and so do the elements' regions, deltas and
//! searches. Its content starts afresh: nothing of the page around the `<iframe>` takes it in
//! (a link's or a button's name, a table cell, a list item, an indentation), and a frame with
//! nothing to show (a tracking pixel, an empty or hidden frame) writes nothing at all. A
//! refused frame is one line saying so, when its `<iframe>` shows (see
//! [`shows_a_frame`]).

use super::{Builder, LineContent, Region, RegionId};
use crate::snapshot::frames::Framed;
use crate::snapshot::signal::shows_a_frame;
use crate::snapshot::tree::NodeId;

/// The kind of the region another site's frame is written as.
pub const FRAME_REGION: &str = "frame";

impl Builder<'_, '_> {
    /// Writes what `host` holds apart from its children: other sites' frames and refused ones.
    pub(super) fn framed(&mut self, host: NodeId) {
        let framed = self.tree.nodes[host].framed.clone();
        for frame in framed {
            match frame {
                Framed::OtherSite { document, origin } => self.apart(|b| {
                    let before = (b.out.regions.len(), b.out.lines.len(), b.out.elements.len());
                    b.out.regions.push(Region {
                        kind: FRAME_REGION,
                        label: origin,
                        parent: b.regions.last().copied(),
                        anchor: document,
                        element: None,
                        overlay: None,
                    });
                    b.regions.push(RegionId(b.out.regions.len() - 1));
                    b.visit(document);
                    b.flush();
                    b.regions.pop();
                    // A frame that shows nothing leaves no trace, not even an empty region.
                    if (b.out.lines.len(), b.out.elements.len()) == (before.1, before.2) {
                        b.out.regions.truncate(before.0);
                    }
                }),
                Framed::Refused { origin, reason } if shows_a_frame(self.tree, self.signal, host) => {
                    self.apart(|b| b.push_line(host, 0, LineContent::RefusedFrame { origin, reason }))
                }
                Framed::Refused { .. } => {}
            }
        }
    }

    /// Runs `write` with nothing of the surrounding content open: no block, cell, list or
    /// element whose text or name the frame's content could join. Inside a table cell the
    /// row is still being gathered, so the frame's lines come before the row's line.
    fn apart(&mut self, write: impl FnOnce(&mut Self)) {
        if self.in_cell == 0 {
            self.flush();
        }
        let block = self.block.take();
        let lists = std::mem::take(&mut self.lists);
        let (in_cell, suppress_text, indent) = (self.in_cell, self.suppress_text, self.indent);
        (self.in_cell, self.suppress_text, self.indent) = (0, 0, 0);
        write(self);
        (self.in_cell, self.suppress_text, self.indent) = (in_cell, suppress_text, indent);
        self.lists = lists;
        self.block = block;
    }
}
