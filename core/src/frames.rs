//! The frames of one tab as CDP reports them: which frame is the main one, the loader id of
//! every frame's current document (what a ref's document is checked against), and which flat
//! session serves each out-of-process iframe.
//!
//! Fed from `Page.getFrameTree` replies and from events (`Page.frameNavigated`,
//! `Page.frameDetached`, `Target.attachedToTarget`, `Target.detachedFromTarget`); pure, so the
//! runtime only hands them in.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::cdp::page::FrameTreeResult;

/// Every CDP event the tracker reads.
pub const METHODS: &[&str] =
    &["Page.frameNavigated", "Page.frameDetached", "Target.attachedToTarget", "Target.detachedFromTarget"];

/// The frames of one tab.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameTracker {
    main_frame: String,
    /// Loader id of each frame's current document.
    loaders: HashMap<String, String>,
    /// Out-of-process iframes: flat session id → the iframe's frame id.
    children: BTreeMap<String, String>,
    /// Frames served by a child session (an out-of-process iframe and the frames inside it).
    frame_sessions: HashMap<String, String>,
}

impl FrameTracker {
    /// The frames of a page whose tree is `tree` (its own process's frames).
    pub fn from_tree(tree: &FrameTreeResult) -> FrameTracker {
        let mut tracker = FrameTracker { main_frame: tree.frame_tree.frame.id.clone(), ..FrameTracker::default() };
        for frame in tree.frame_tree.frames() {
            tracker.loaders.insert(frame.id.clone(), frame.loader_id.clone());
        }
        tracker
    }

    /// Adds the frames an out-of-process iframe's session reports, served by `session`.
    pub fn add_child_tree(&mut self, session: &str, tree: &FrameTreeResult) {
        for frame in tree.frame_tree.frames() {
            self.loaders.insert(frame.id.clone(), frame.loader_id.clone());
            self.frame_sessions.insert(frame.id.clone(), session.to_owned());
        }
    }

    /// Follows one event from the tab (`session` is set for events of a child session).
    pub fn observe(&mut self, method: &str, session: Option<&str>, params: &Value) {
        match method {
            "Page.frameNavigated" => {
                let frame = &params["frame"];
                let (Some(id), Some(loader)) = (frame["id"].as_str(), frame["loaderId"].as_str()) else { return };
                if frame["parentId"].is_null() && session.is_none() {
                    self.main_frame = id.to_owned();
                }
                self.loaders.insert(id.to_owned(), loader.to_owned());
            }
            "Page.frameDetached" => {
                if let Some(id) = params["frameId"].as_str() {
                    self.loaders.remove(id);
                }
            }
            "Target.attachedToTarget" if params["targetInfo"]["type"] == "iframe" => {
                let (Some(child), Some(frame)) =
                    (params["sessionId"].as_str(), params["targetInfo"]["targetId"].as_str())
                else {
                    return;
                };
                self.children.insert(child.to_owned(), frame.to_owned());
            }
            "Target.detachedFromTarget" => {
                if let Some(child) = params["sessionId"].as_str()
                    && let Some(frame) = self.children.remove(child)
                {
                    self.loaders.remove(&frame);
                    self.frame_sessions.retain(|_, s| s != child);
                }
            }
            _ => {}
        }
    }

    /// The main frame's id.
    pub fn main_frame(&self) -> &str {
        &self.main_frame
    }

    /// The loader id of every frame's current document, by frame id.
    pub fn loaders(&self) -> &HashMap<String, String> {
        &self.loaders
    }

    /// The loader id of the main frame's current document.
    pub fn main_loader(&self) -> Option<&str> {
        self.loaders.get(&self.main_frame).map(String::as_str)
    }

    /// The flat sessions of the tab's out-of-process iframes, in a stable order.
    pub fn child_sessions(&self) -> impl Iterator<Item = &str> {
        self.children.keys().map(String::as_str)
    }

    /// The flat session that serves `frame_id`, when it is out of process.
    pub fn session_of(&self, frame_id: &str) -> Option<&str> {
        self.frame_sessions.get(frame_id).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tree(frames: &[(&str, Option<&str>, &str)]) -> FrameTreeResult {
        let (main, rest) = frames.split_first().expect("a main frame");
        serde_json::from_value(json!({"frameTree": {
            "frame": {"id": main.0, "loaderId": main.2},
            "childFrames": rest.iter().map(|(id, parent, loader)|
                json!({"frame": {"id": id, "parentId": parent, "loaderId": loader}})).collect::<Vec<_>>(),
        }}))
        .expect("a frame tree")
    }

    #[test]
    fn a_navigation_moves_its_frames_document_and_a_detach_forgets_it() {
        let mut frames = FrameTracker::from_tree(&tree(&[("M", None, "L1"), ("C", Some("M"), "LC")]));
        assert_eq!((frames.main_frame(), frames.main_loader()), ("M", Some("L1")));
        frames.observe("Page.frameNavigated", None, &json!({"frame": {"id": "M", "loaderId": "L2"}}));
        assert_eq!(frames.main_loader(), Some("L2"));
        frames.observe("Page.frameDetached", None, &json!({"frameId": "C"}));
        assert!(!frames.loaders().contains_key("C"));
    }

    #[test]
    fn a_child_frame_navigating_does_not_become_the_main_frame() {
        let mut frames = FrameTracker::from_tree(&tree(&[("M", None, "L1")]));
        let child = json!({"frame": {"id": "X", "loaderId": "LX"}});
        frames.observe("Page.frameNavigated", Some("S1"), &child);
        assert_eq!(frames.main_frame(), "M");
        assert_eq!(frames.loaders().get("X").map(String::as_str), Some("LX"));
    }

    #[test]
    fn out_of_process_iframes_are_served_by_their_session_until_it_detaches() {
        let mut frames = FrameTracker::from_tree(&tree(&[("M", None, "L1")]));
        let attached = json!({"sessionId": "S1", "targetInfo": {"type": "iframe", "targetId": "X"}});
        frames.observe("Target.attachedToTarget", None, &attached);
        frames.add_child_tree("S1", &tree(&[("X", None, "LX"), ("Y", Some("X"), "LY")]));
        assert_eq!(frames.child_sessions().collect::<Vec<_>>(), ["S1"]);
        assert_eq!((frames.session_of("X"), frames.session_of("Y")), (Some("S1"), Some("S1")));
        frames.observe("Target.detachedFromTarget", None, &json!({"sessionId": "S1"}));
        assert_eq!(frames.child_sessions().count(), 0);
        assert_eq!(frames.session_of("Y"), None);
        assert!(!frames.loaders().contains_key("X"));
    }
}
