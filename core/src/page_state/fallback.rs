//! When a delta would mislead and the full page is sent instead: confidence below 0.6 (more
//! than a fifth of the lines changed) or more than 40 % of the lines changed, unless the delta
//! is at most half as long as the page.

use super::FullReason;
use super::delta::{Delta, delta_lines};
use super::view::{LineDiff, View};
use crate::refs::GoneReason;
use crate::snapshot::Snapshot;

/// Below this confidence a delta would mislead, and the full page is sent.
pub const MIN_CONFIDENCE: f64 = 0.6;
/// Above this share of changed lines the full page is sent.
pub const MAX_CHANGED_SHARE: f64 = 0.4;
/// A delta at most this share of the full page's length is sent even when the two rules above
/// would send the page: on a five-line page one removed line is a fifth of it, and `gone: e8`
/// says it in a tenth of the characters. A delta that long is no harder to follow than the page.
pub const SHORT_DELTA_SHARE: f64 = 0.5;

/// Why the change from `previous` to `now` (`lines`, on `snapshot`) is better sent as the full
/// page, or `None` when a delta says it well.
pub(super) fn misleading(previous: &View, now: &View, lines: &LineDiff, snapshot: &Snapshot) -> Option<FullReason> {
    let total = now.lines.len().max(previous.lines.len()).max(1);
    let share = lines.size() as f64 / total as f64;
    let confidence = 1.0 - (2.0 * share).min(1.0);
    let too_much = confidence < MIN_CONFIDENCE || share > MAX_CHANGED_SHARE;
    (too_much && !short(previous, now, lines, snapshot))
        .then_some(FullReason::Unreliable { confidence, changed_share: share })
}

/// Whether the delta reads in at most [`SHORT_DELTA_SHARE`] of the characters of the full page.
fn short(previous: &View, now: &View, lines: &LineDiff, snapshot: &Snapshot) -> bool {
    // Its versions are not part of its lines, and every gone ref reads the same length.
    let gone = previous.refs().difference(&now.refs()).map(|&r| (r, GoneReason::Removed)).collect();
    let delta = Delta { from: 0, to: 0, gone, lines: lines.clone() };
    let delta_chars: usize = delta_lines(&delta).iter().map(|l| l.len() + 1).sum();
    let page_chars: usize =
        snapshot.title.len() + snapshot.url.len() + now.lines.iter().map(|l| l.text.len() + 1).sum::<usize>();
    (delta_chars as f64) <= SHORT_DELTA_SHARE * page_chars as f64
}
