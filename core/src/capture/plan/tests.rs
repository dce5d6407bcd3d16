//! The plan driven by a scripted browser: which requests go out in which round, and what a
//! failed or unreadable reply does to the capture.

use super::*;

fn frame_tree(id: &str, children: &[&str]) -> Value {
    json!({"frameTree": {"frame": {"id": id, "loaderId": format!("L-{id}")},
        "childFrames": children.iter().map(|c| json!({"frame": {"id": c, "parentId": id}})).collect::<Vec<_>>()}})
}

fn snapshot() -> Value {
    json!({"documents": [], "strings": []})
}

/// Answers every request the way `answer` says, one round at a time; returns the methods
/// sent per round.
fn drive(plan: &mut CapturePlan<Value>, answer: impl Fn(&Request) -> Option<Value>) -> Vec<Vec<String>> {
    let mut rounds = Vec::new();
    loop {
        let requests = plan.requests();
        if requests.is_empty() {
            break;
        }
        rounds.push(
            requests
                .iter()
                .map(|r| format!("{}{}", r.session.as_deref().map(|s| format!("{s}:")).unwrap_or_default(), r.method))
                .collect(),
        );
        for request in requests {
            let reply = answer(&request);
            plan.reply(request.id, reply);
        }
    }
    rounds
}

#[test]
fn replies_already_held_are_not_asked_for_again() {
    let mut plan = CapturePlan::<Value>::new(Vec::<String>::new(), RolesFrom::Dom);
    plan.already_answered(Some(frame_tree("MAIN", &[])), Some(json!({})));
    let rounds = drive(&mut plan, browser);
    assert_eq!(rounds, vec![vec!["DOMSnapshot.captureSnapshot".to_owned()]]);
    let parts = plan.finish().expect("the capture is whole");
    assert!(parts.main.frame_tree.is_some() && parts.layout.is_some());
}

#[test]
fn a_reply_not_held_is_asked_for() {
    let mut plan = CapturePlan::<Value>::new(Vec::<String>::new(), RolesFrom::Dom);
    plan.already_answered(None, Some(json!({})));
    let rounds = drive(&mut plan, browser);
    assert_eq!(rounds, vec![vec!["Page.getFrameTree".to_owned(), "DOMSnapshot.captureSnapshot".to_owned()]]);
    assert!(plan.finish().expect("whole").main.frame_tree.is_some());
}

fn browser(request: &Request) -> Option<Value> {
    match (request.session.as_deref(), request.method) {
        (None, "Page.getFrameTree") => Some(frame_tree("MAIN", &["SAME"])),
        (Some("S1"), "Page.getFrameTree") => Some(frame_tree("OOP", &[])),
        (_, "DOMSnapshot.captureSnapshot") => Some(snapshot()),
        (_, "Accessibility.getFullAXTree") => Some(json!({"nodes": []})),
        (None, "DOM.getFrameOwner") => Some(json!({"backendNodeId": 42, "frameId": "MAIN"})),
        (None, "Page.getLayoutMetrics") => Some(json!({})),
        _ => None,
    }
}

#[test]
fn root_frames_are_asked_at_once_and_child_frames_once_the_frame_tree_is_in() {
    let mut plan = CapturePlan::new(["S1".to_owned()], RolesFrom::Chrome);
    let rounds = drive(&mut plan, browser);
    assert_eq!(
        rounds,
        [
            vec![
                "Page.getLayoutMetrics",
                "Page.getFrameTree",
                "Accessibility.getFullAXTree",
                "DOMSnapshot.captureSnapshot",
                "S1:Page.getFrameTree",
                "S1:Accessibility.getFullAXTree",
                "S1:DOMSnapshot.captureSnapshot"
            ],
            vec!["Accessibility.getFullAXTree", "DOM.getFrameOwner"],
        ]
    );
    assert!(plan.is_done());
    let parts = plan.finish().unwrap();
    let frames: Vec<&str> = parts.main.ax_trees().map(|(f, _)| f).collect();
    assert_eq!(frames, ["MAIN", "SAME"]);
    assert_eq!(parts.children.len(), 1);
    assert_eq!(parts.children[0].owner_backend_node_id, Some(42));
    let file: Capture = serde_json::from_value(parts.to_json()).unwrap();
    assert_eq!(file.children[0].frame_tree.frame_tree.frame.id, "OOP");
    let capture = parts.into_capture();
    assert_eq!(capture.children[0].owner_backend_node_id, Some(42));
    let frames: Vec<&str> = capture.main.ax_trees.iter().map(|t| t.frame_id.as_str()).collect();
    assert_eq!(frames, ["MAIN", "SAME"]);
}

#[test]
fn roles_from_the_dom_ask_for_no_accessibility_tree() {
    let mut plan = CapturePlan::new(["S1".to_owned()], RolesFrom::Dom);
    let rounds = drive(&mut plan, browser);
    assert_eq!(
        rounds,
        [
            vec![
                "Page.getLayoutMetrics",
                "Page.getFrameTree",
                "DOMSnapshot.captureSnapshot",
                "S1:Page.getFrameTree",
                "S1:DOMSnapshot.captureSnapshot"
            ],
            vec!["DOM.getFrameOwner"],
        ]
    );
    let parts = plan.finish().unwrap();
    assert_eq!(parts.main.ax_trees().count(), 0);
    assert_eq!(parts.children[0].owner_backend_node_id, Some(42));
}

#[test]
fn only_the_pages_frame_tree_and_dom_snapshot_are_required() {
    let mut plan: CapturePlan<Value> = CapturePlan::new(["S1".to_owned()], RolesFrom::Chrome);
    let requests = plan.requests();
    let required: Vec<&str> = requests.iter().filter(|r| r.required).map(|r| r.method).collect();
    assert_eq!(required, ["Page.getFrameTree", "DOMSnapshot.captureSnapshot"]);
}

#[test]
fn an_iframe_that_went_away_and_a_refused_tree_are_left_out() {
    let mut plan = CapturePlan::new(["S1".to_owned()], RolesFrom::Chrome);
    drive(&mut plan, |r| match (r.session.as_deref(), r.method) {
        (Some("S1"), _) => None,
        (None, "Accessibility.getFullAXTree") if r.params["frameId"] == "SAME" => None,
        _ => browser(r),
    });
    let parts = plan.finish().unwrap();
    assert!(parts.children.is_empty());
    assert_eq!(parts.main.ax_trees().count(), 1);
}

#[test]
fn an_unreadable_dom_snapshot_fails_the_page_and_leaves_an_iframe_out() {
    let mut plan = CapturePlan::new(["S1".to_owned()], RolesFrom::Chrome);
    let garbled = |r: &Request| match (r.session.as_deref(), r.method) {
        (Some("S1"), "DOMSnapshot.captureSnapshot") => Some(json!({"documents": "garbled"})),
        _ => browser(r),
    };
    drive(&mut plan, garbled);
    assert!(plan.finish().unwrap().children.is_empty());
    let mut plan = CapturePlan::new(Vec::new(), RolesFrom::Chrome);
    drive(
        &mut plan,
        |r| {
            if r.method == "DOMSnapshot.captureSnapshot" { Some(json!({"strings": 7})) } else { browser(r) }
        },
    );
    assert!(
        matches!(plan.finish(), Err(CaptureError::Unreadable { what: "DOM snapshot", .. })),
        "the page's DOM snapshot could not be read"
    );
}

#[test]
fn a_page_without_its_dom_snapshot_is_no_capture() {
    let mut plan = CapturePlan::new(Vec::new(), RolesFrom::Chrome);
    drive(&mut plan, |r| if r.method == "DOMSnapshot.captureSnapshot" { None } else { browser(r) });
    assert_eq!(plan.finish().unwrap_err(), CaptureError::Missing("DOM snapshot of the page"));
}
