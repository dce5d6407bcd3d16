//! The frames of one tab as CDP reports them: which frame is the main one, the loader id of
//! every frame's current document (what a ref's document is checked against), which flat
//! session serves each out-of-process iframe, and the execution contexts of the isolated worlds
//! in each frame's current document (so a script run in one needs no round trip to find it).
//!
//! Fed from `Page.getFrameTree` replies and from events (`Page.frameNavigated`,
//! `Page.frameDetached`, `Target.attachedToTarget`, `Target.detachedFromTarget`,
//! `Runtime.executionContextCreated`, `Runtime.executionContextDestroyed`,
//! `Runtime.executionContextsCleared`); pure, so the runtime only hands them in.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::cdp::page::FrameTreeResult;

/// Every CDP event the tracker reads.
pub const METHODS: &[&str] = &[
    "Page.frameNavigated",
    "Page.frameDetached",
    "Target.attachedToTarget",
    "Target.detachedFromTarget",
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
];

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
    /// Isolated worlds' execution contexts, each with the document it was made in.
    worlds: Vec<WorldContext>,
}

/// The execution context of one isolated world in one frame's document.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WorldContext {
    /// The session it was reported on (`None`: the page's own).
    session: Option<String>,
    frame: String,
    world: String,
    /// The loader id of the frame's document when the context was made: the context is that
    /// document's, and is not used for any other.
    loader: String,
    /// Its id, unique within its renderer process only.
    id: i64,
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
                self.worlds.retain(|w| w.frame != id || w.loader == loader);
            }
            "Page.frameDetached" => {
                if let Some(id) = params["frameId"].as_str() {
                    self.loaders.remove(id);
                    self.worlds.retain(|w| w.frame != id);
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
                    self.worlds.retain(|w| w.session.as_deref() != Some(child));
                }
            }
            "Runtime.executionContextCreated" => {
                let context = &params["context"];
                let aux = &context["auxData"];
                if aux["type"] != "isolated" {
                    return;
                }
                let (Some(frame), Some(world), Some(id)) =
                    (aux["frameId"].as_str(), context["name"].as_str(), context["id"].as_i64())
                else {
                    return;
                };
                self.remember_world(session, frame, world, id);
            }
            "Runtime.executionContextDestroyed" => {
                if let Some(id) = params["executionContextId"].as_i64() {
                    self.forget_world(session, id);
                }
            }
            "Runtime.executionContextsCleared" => self.worlds.retain(|w| w.session.as_deref() != session),
            _ => {}
        }
    }

    /// The execution context of the isolated world `world` in the current document of
    /// `frame_id` (reported on `session`), when it is known.
    pub fn world_context(&self, session: Option<&str>, frame_id: &str, world: &str) -> Option<i64> {
        self.current_worlds(session, world).find(|w| w.frame == frame_id).map(|w| w.id)
    }

    /// The frames (reported on `session`) whose current document's isolated world `world` has a
    /// known context.
    pub fn frames_with_world<'a>(&'a self, session: Option<&'a str>, world: &'a str) -> impl Iterator<Item = &'a str> {
        self.current_worlds(session, world).map(|w| w.frame.as_str())
    }

    /// The contexts of `world` reported on `session` that belong to their frame's current
    /// document.
    fn current_worlds<'a>(
        &'a self,
        session: Option<&'a str>,
        world: &'a str,
    ) -> impl Iterator<Item = &'a WorldContext> {
        self.worlds.iter().filter(move |w| {
            w.session.as_deref() == session && w.world == world && self.loaders.get(&w.frame) == Some(&w.loader)
        })
    }

    /// Records that the isolated world `world` of `frame_id`'s current document runs in context
    /// `id` (from an event, or from `Page.createIsolatedWorld`). A frame whose document is not
    /// known is not recorded: nothing could tell its context from a later document's.
    pub fn remember_world(&mut self, session: Option<&str>, frame_id: &str, world: &str, id: i64) {
        let Some(loader) = self.loaders.get(frame_id).cloned() else { return };
        self.worlds.retain(|w| !(w.session.as_deref() == session && w.frame == frame_id && w.world == world));
        let session = session.map(str::to_owned);
        self.worlds.push(WorldContext { session, frame: frame_id.to_owned(), world: world.to_owned(), loader, id });
    }

    /// Forgets context `id` of `session`: the browser said it does not know it.
    pub fn forget_world(&mut self, session: Option<&str>, id: i64) {
        self.worlds.retain(|w| !(w.session.as_deref() == session && w.id == id));
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

    fn created(id: i64, frame: &str, world: &str, kind: &str) -> Value {
        json!({"context": {"id": id, "name": world, "auxData": {"frameId": frame, "type": kind, "isDefault": kind == "default"}}})
    }

    #[test]
    fn an_isolated_worlds_context_serves_the_document_it_was_made_in_and_no_later_one() {
        let mut frames = FrameTracker::from_tree(&tree(&[("M", None, "L1")]));
        frames.observe("Runtime.executionContextCreated", None, &created(1, "M", "", "default"));
        frames.observe("Runtime.executionContextCreated", None, &created(3, "M", "watch", "isolated"));
        assert_eq!(frames.world_context(None, "M", "watch"), Some(3));
        assert_eq!(frames.world_context(None, "M", ""), None, "only isolated worlds are kept");
        assert_eq!(frames.world_context(None, "M", "other"), None);
        assert_eq!(frames.world_context(Some("S1"), "M", "watch"), None, "another session's frame");
        // A new document: the old context no longer serves, even before the browser says it went
        // (a process change restarts context ids, so an old id may name a new context).
        frames.observe("Page.frameNavigated", None, &json!({"frame": {"id": "M", "loaderId": "L2"}}));
        assert_eq!(frames.world_context(None, "M", "watch"), None);
        frames.observe("Runtime.executionContextCreated", None, &created(3, "M", "watch", "isolated"));
        assert_eq!(frames.world_context(None, "M", "watch"), Some(3));
        assert_eq!(frames.frames_with_world(None, "watch").collect::<Vec<_>>(), ["M"]);
        assert_eq!(frames.frames_with_world(Some("S1"), "watch").count(), 0);
    }

    #[test]
    fn contexts_the_browser_destroys_or_clears_are_forgotten() {
        let mut frames = FrameTracker::from_tree(&tree(&[("M", None, "L1"), ("C", Some("M"), "LC")]));
        frames.observe("Runtime.executionContextCreated", None, &created(3, "M", "watch", "isolated"));
        frames.observe("Runtime.executionContextCreated", None, &created(4, "C", "watch", "isolated"));
        frames.observe("Runtime.executionContextDestroyed", Some("S1"), &json!({"executionContextId": 4}));
        assert_eq!(frames.world_context(None, "C", "watch"), Some(4), "another session's context 4 went");
        frames.observe("Runtime.executionContextDestroyed", None, &json!({"executionContextId": 4}));
        assert_eq!(frames.world_context(None, "C", "watch"), None);
        frames.observe("Runtime.executionContextsCleared", None, &json!({}));
        assert_eq!(frames.world_context(None, "M", "watch"), None);
        assert_eq!(frames.frames_with_world(None, "watch").count(), 0);
        frames.remember_world(None, "M", "watch", 7);
        assert_eq!(frames.world_context(None, "M", "watch"), Some(7));
        frames.forget_world(None, 7);
        assert_eq!(frames.world_context(None, "M", "watch"), None);
        frames.remember_world(None, "unknown frame", "watch", 8);
        assert_eq!(frames.world_context(None, "unknown frame", "watch"), None, "no document to tie it to");
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
