//! The tags a snapshot's regions and frames are written with, shared by the full page, deltas
//! and searches: a region is tagged with its kind, `<nav label="Main">` … `</nav>` (`header`,
//! `nav`, `main`, `aside`, `footer`, `search`, `form`, `section`, `dialog`), and what another
//! site's frame shows sits between `<frame site="other" origin="https://bank.example">` and
//! `</frame>`; a region unchanged since the last page is one self-closing tag. Page text never
//! starts a line with `<` unmarked (see `escape`), so every line that does is one of these.

use super::outline::frames::FRAME_REGION;
use super::render::{BodyLine, quote};
use super::{RegionId, Snapshot};

/// The tag a region is written with: its kind (`nav`), or `frame` for another site's frame.
pub fn region_tag(snapshot: &Snapshot, region: RegionId) -> &'static str {
    snapshot.region(region).kind
}

/// The attributes of the tag of another site's frame: that it is another site, and its origin.
fn frame_attributes(origin: &str) -> String {
    format!("site=\"other\" origin={}", quote(origin))
}

/// The line that opens what comes from another site's frame: `<frame site="other"
/// origin="https://bank.example">` (in a full page, a delta and a search alike).
pub fn frame_open(origin: &str) -> String {
    format!("<frame {}>", frame_attributes(origin))
}

/// The line that closes what [`frame_open`] opened.
pub const FRAME_CLOSE: &str = "</frame>";

/// The attributes of a region's tag, each after a space: its label when the page gives one and
/// its ref when it can be acted on; for another site's frame, that it is another site and its
/// origin. Empty for a region with neither (`<main>`).
pub fn region_attributes(snapshot: &Snapshot, region: RegionId) -> String {
    let r = snapshot.region(region);
    if r.kind == FRAME_REGION {
        return format!(" {}", frame_attributes(&r.label));
    }
    let mut attrs = String::new();
    if !r.label.is_empty() {
        attrs.push_str(&format!(" label={}", quote(&r.label)));
    }
    if let Some(e) = r.element {
        attrs.push_str(&format!(" ref=\"{}\"", snapshot.element_ref(e)));
    }
    attrs
}

/// The opening tag of a region.
pub fn region_open(snapshot: &Snapshot, region: RegionId) -> String {
    format!("<{}{}>", region_tag(snapshot, region), region_attributes(snapshot, region))
}

/// The closing tag of a region.
pub fn region_close(snapshot: &Snapshot, region: RegionId) -> String {
    format!("</{}>", region_tag(snapshot, region))
}

/// `lines` (each with the origin of the frame of another site it is in) with the lines of
/// each run from one frame between [`frame_open`] and [`FRAME_CLOSE`].
pub fn in_frames<'o>(lines: impl IntoIterator<Item = (Option<&'o str>, String)>) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<&str> = None;
    for (frame, line) in lines {
        if frame != open {
            if open.is_some() {
                out.push(FRAME_CLOSE.to_owned());
            }
            if let Some(origin) = frame {
                out.push(frame_open(origin));
            }
            open = frame;
        }
        out.push(line);
    }
    if open.is_some() {
        out.push(FRAME_CLOSE.to_owned());
    }
    out
}

/// Writes body lines with region tags opened and closed around them.
pub fn with_regions(snapshot: &Snapshot, lines: &[BodyLine], out: &mut Vec<String>) {
    let mut open: Vec<RegionId> = Vec::new();
    for line in lines {
        let path = snapshot.region_path(line.region);
        let common = open.iter().zip(&path).take_while(|(a, b)| a == b).count();
        while open.len() > common {
            if let Some(r) = open.pop() {
                out.push(region_close(snapshot, r));
            }
        }
        for &r in &path[common..] {
            out.push(region_open(snapshot, r));
            open.push(r);
        }
        out.push(line.text.clone());
    }
    for r in open.into_iter().rev() {
        out.push(region_close(snapshot, r));
    }
}

/// The one line a region unchanged since the previous baseline is written as.
pub fn unchanged_region_line(snapshot: &Snapshot, r: RegionId) -> String {
    format!(
        "<{}{} unchanged=\"true\" count=\"{}\" />",
        region_tag(snapshot, r),
        region_attributes(snapshot, r),
        snapshot.refs_in_region(r).len()
    )
}
