//! What a screenshot's pixels must hide and show: the fields a snapshot masks are painted over,
//! and the ref labels of `refs: true` are drawn, both into the image after the browser captured
//! it, where the page can neither undo nor move them.
//!
//! The runtime measures each masked field right before the capture and right after it (in the
//! page's document coordinates, CSS pixels), with the page's scripts paused; [`plan`] turns
//! those boxes and the capture's clip into rectangles of the image's own pixels. A field that
//! moved between the two measurements is covered where it was both times, and the plan says it
//! moved, so the runtime can take the screenshot again rather than trust a cover over a field
//! in motion.

/// A box in the page's document coordinates (CSS pixels).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// The smallest box holding both.
    pub fn union(self, other: Rect) -> Rect {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        let right = (self.x + self.width).max(other.x + other.width);
        let bottom = (self.y + self.height).max(other.y + other.height);
        Rect { x, y, width: right - x, height: bottom - y }
    }

    /// This box grown by `by` on every side.
    pub fn grown(self, by: f64) -> Rect {
        Rect { x: self.x - by, y: self.y - by, width: self.width + 2.0 * by, height: self.height + 2.0 * by }
    }

    /// Whether the two boxes are the same within half a pixel.
    fn same_as(self, other: Rect) -> bool {
        [(self.x, other.x), (self.y, other.y), (self.width, other.width), (self.height, other.height)]
            .iter()
            .all(|(a, b)| (a - b).abs() <= 0.5)
    }
}

/// The part of the page a capture shows, and the scale it was taken at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clip {
    /// The captured box, in document coordinates.
    pub area: Rect,
    /// Image pixels per CSS pixel.
    pub scale: f64,
}

/// A rectangle of the image, in its own pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PixelRect {
    /// Left edge.
    pub x: i64,
    /// Top edge.
    pub y: i64,
    /// Width.
    pub width: i64,
    /// Height.
    pub height: i64,
}

/// One masked field, measured before and after the capture (`None` where it had no box: it
/// was not drawn).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskedField {
    /// Its box right before the capture.
    pub before: Option<Rect>,
    /// Its box right after it.
    pub after: Option<Rect>,
}

/// A ref label to draw: the ref, and the element's box.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// The ref (`e12`).
    pub element_ref: String,
    /// The element's box, in document coordinates.
    pub rect: Rect,
}

/// A label as drawn: the element's outline and the tag with its ref, in image pixels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DrawnLabel {
    /// The ref.
    pub element_ref: String,
    /// The element's outline.
    pub outline: PixelRect,
    /// The tag's box, at the outline's top-left corner.
    pub tag: PixelRect,
}

/// What to paint into a captured image.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PaintPlan {
    /// Rectangles painted over, opaque.
    pub covers: Vec<PixelRect>,
    /// Ref labels, drawn after the covers.
    pub labels: Vec<DrawnLabel>,
    /// Some masked field moved between the measurements around the capture.
    pub moved: bool,
}

/// CSS pixels added around a masked field's box: its border and focus ring may carry a
/// letter's edge, and measurements round.
pub const COVER_MARGIN: f64 = 3.0;

/// Height of a ref tag in image pixels, and the width of one of its characters (bold 10 px
/// monospace, with 2 px of padding each side).
pub const TAG_HEIGHT: i64 = 12;
const TAG_CHAR_WIDTH: i64 = 7;
const TAG_PADDING: i64 = 4;

/// The image rectangle of `rect` captured with `clip` (rounded outwards), clamped to the image;
/// `None` when none of it is in the image.
pub fn to_pixels(rect: Rect, clip: Clip) -> Option<PixelRect> {
    let image_width = (clip.area.width * clip.scale).round() as i64;
    let image_height = (clip.area.height * clip.scale).round() as i64;
    let left = (((rect.x - clip.area.x) * clip.scale).floor() as i64).max(0);
    let top = (((rect.y - clip.area.y) * clip.scale).floor() as i64).max(0);
    let right = (((rect.x + rect.width - clip.area.x) * clip.scale).ceil() as i64).min(image_width);
    let bottom = (((rect.y + rect.height - clip.area.y) * clip.scale).ceil() as i64).min(image_height);
    (right > left && bottom > top).then_some(PixelRect { x: left, y: top, width: right - left, height: bottom - top })
}

/// What to paint over an image captured with `clip`: a cover over every masked field wherever
/// it was measured, and the ref labels.
pub fn plan(clip: Clip, masked: &[MaskedField], labels: &[Label]) -> PaintPlan {
    let mut plan = PaintPlan::default();
    for field in masked {
        let (rect, moved) = match (field.before, field.after) {
            (Some(before), Some(after)) => (Some(before.union(after)), !before.same_as(after)),
            // Drawn only one of the two times: it appeared or went during the capture.
            (Some(one), None) | (None, Some(one)) => (Some(one), true),
            (None, None) => (None, false),
        };
        plan.moved |= moved;
        if let Some(cover) = rect.and_then(|r| to_pixels(r.grown(COVER_MARGIN), clip)) {
            plan.covers.push(cover);
        }
    }
    for label in labels {
        let Some(outline) = to_pixels(label.rect, clip) else { continue };
        let width = label.element_ref.chars().count() as i64 * TAG_CHAR_WIDTH + TAG_PADDING;
        let tag = PixelRect { x: outline.x, y: outline.y, width, height: TAG_HEIGHT };
        plan.labels.push(DrawnLabel { element_ref: label.element_ref.clone(), outline, tag });
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect { x, y, width, height }
    }

    const VIEW: Clip = Clip { area: Rect { x: 0.0, y: 100.0, width: 800.0, height: 600.0 }, scale: 1.0 };

    #[test]
    fn a_still_field_is_covered_with_its_margin_in_image_pixels() {
        let field =
            MaskedField { before: Some(rect(10.0, 150.0, 200.0, 30.0)), after: Some(rect(10.0, 150.0, 200.0, 30.0)) };
        let plan = plan(VIEW, &[field], &[]);
        assert!(!plan.moved);
        assert_eq!(plan.covers, [PixelRect { x: 7, y: 47, width: 206, height: 36 }]);
    }

    #[test]
    fn a_field_that_moved_is_covered_at_both_places_and_said_to_have_moved() {
        let field =
            MaskedField { before: Some(rect(10.0, 150.0, 100.0, 20.0)), after: Some(rect(300.0, 150.0, 100.0, 20.0)) };
        let plan = plan(VIEW, &[field], &[]);
        assert!(plan.moved);
        assert_eq!(plan.covers, [PixelRect { x: 7, y: 47, width: 396, height: 26 }]);
        let appeared = MaskedField { before: None, after: Some(rect(10.0, 150.0, 100.0, 20.0)) };
        let plan = super::plan(VIEW, &[appeared], &[]);
        assert!(plan.moved && plan.covers.len() == 1);
    }

    #[test]
    fn fields_outside_the_clip_or_never_drawn_paint_nothing() {
        let below =
            MaskedField { before: Some(rect(10.0, 900.0, 100.0, 20.0)), after: Some(rect(10.0, 900.0, 100.0, 20.0)) };
        let hidden = MaskedField { before: None, after: None };
        let plan = plan(VIEW, &[below, hidden], &[]);
        assert!(plan.covers.is_empty() && !plan.moved);
    }

    #[test]
    fn covers_follow_the_scale_and_round_outwards_and_stop_at_the_edges() {
        let clip = Clip { area: rect(0.0, 0.0, 1000.0, 4000.0), scale: 0.5 };
        let field =
            MaskedField { before: Some(rect(995.0, 11.0, 50.0, 5.0)), after: Some(rect(995.0, 11.0, 50.0, 5.0)) };
        let plan = plan(clip, &[field], &[]);
        assert_eq!(plan.covers, [PixelRect { x: 496, y: 4, width: 4, height: 6 }]);
    }

    #[test]
    fn labels_sit_at_their_elements_top_left_corner_sized_for_their_ref() {
        let labels = [
            Label { element_ref: "e7".into(), rect: rect(20.0, 120.0, 80.0, 30.0) },
            Label { element_ref: "e123".into(), rect: rect(20.0, 2000.0, 80.0, 30.0) },
        ];
        let plan = plan(VIEW, &[], &labels);
        assert_eq!(plan.labels.len(), 1, "a label outside the image is not drawn");
        let drawn = &plan.labels[0];
        assert_eq!(drawn.outline, PixelRect { x: 20, y: 20, width: 80, height: 30 });
        assert_eq!(drawn.tag, PixelRect { x: 20, y: 20, width: 2 * TAG_CHAR_WIDTH + TAG_PADDING, height: TAG_HEIGHT });
    }
}
