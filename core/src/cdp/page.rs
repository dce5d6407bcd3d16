//! `Page.getFrameTree` and `Page.getLayoutMetrics`.

use serde::Deserialize;

/// The result of `Page.getFrameTree`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTreeResult {
    /// The root of the tree.
    pub frame_tree: FrameTree,
}

/// A frame and its children.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    /// The frame.
    pub frame: Frame,
    /// Child frames (same process only; out-of-process frames come through their own session).
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

/// A frame.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// Frame id.
    pub id: String,
    /// Parent frame id; absent for the main frame.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// Id of the document load; changes on every navigation of this frame.
    #[serde(default)]
    pub loader_id: String,
    /// Document URL, without its fragment.
    #[serde(default)]
    pub url: String,
    /// The URL's fragment, `#` included (absent when it has none).
    #[serde(default)]
    pub url_fragment: Option<String>,
    /// Frame name.
    #[serde(default)]
    pub name: Option<String>,
    /// For a frame showing the browser's error page (`url` is `chrome-error://chromewebdata/`):
    /// the URL that did not load.
    #[serde(default)]
    pub unreachable_url: Option<String>,
    /// The registrable domain of `url`'s host as the browser computes it (its public suffix
    /// list, private registries included, as for its sites): `bank.co.uk` for
    /// `https://login.bank.co.uk/`; empty for an IP address, `localhost`, or a host that is a
    /// public suffix itself.
    #[serde(default)]
    pub domain_and_registry: String,
}

impl FrameTree {
    /// Every frame in the tree, parents before children (in document order). Walked without
    /// recursion: a page decides how deep its frames nest.
    pub fn frames(&self) -> Vec<&Frame> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(tree) = stack.pop() {
            out.push(&tree.frame);
            stack.extend(tree.child_frames.iter().rev());
        }
        out
    }
}

/// The result of `Page.getLayoutMetrics` (CSS pixels).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    /// The visual viewport.
    #[serde(default)]
    pub css_visual_viewport: Option<VisualViewport>,
    /// The whole document's size.
    #[serde(default)]
    pub css_content_size: Option<Rect>,
}

/// The visible part of the page.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisualViewport {
    /// Scroll offset x.
    #[serde(default)]
    pub page_x: f64,
    /// Scroll offset y.
    #[serde(default)]
    pub page_y: f64,
    /// Width.
    #[serde(default)]
    pub client_width: f64,
    /// Height.
    #[serde(default)]
    pub client_height: f64,
}

impl VisualViewport {
    /// Whether the viewport point `(x, y)` is inside it: from its top left corner up to, not
    /// including, its width and height (a point there is past its last pixel).
    pub fn shows(&self, x: f64, y: f64) -> bool {
        x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 && x < self.client_width && y < self.client_height
    }
}

/// A rectangle.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Rect {
    /// Left.
    #[serde(default)]
    pub x: f64,
    /// Top.
    #[serde(default)]
    pub y: f64,
    /// Width.
    #[serde(default)]
    pub width: f64,
    /// Height.
    #[serde(default)]
    pub height: f64,
}

#[cfg(test)]
mod tests {
    use super::VisualViewport;

    #[test]
    fn a_viewport_shows_its_pixels_and_not_its_far_edges() {
        let view = VisualViewport { page_x: 0.0, page_y: 500.0, client_width: 800.0, client_height: 600.0 };
        assert!(view.shows(0.0, 0.0) && view.shows(799.5, 599.5));
        assert!(!view.shows(800.0, 10.0) && !view.shows(10.0, 600.0));
        assert!(!view.shows(-1.0, 10.0) && !view.shows(f64::NAN, 10.0));
    }
}
