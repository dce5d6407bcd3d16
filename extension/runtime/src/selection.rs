//! What the person pointed at for the agent, per tab: the node selected in DevTools' Elements
//! panel (the Sightline panel's DevTools page hands it over under a one-time global name, read
//! and deleted at once), or the node clicked on the page after the panel's Pick button (a
//! one-shot listener in an isolated world of every frame, out-of-process iframes included).
//! Kept as the node's backend id and those of its ancestors, with the session of the process
//! they belong to, which `browser_user_selection` finds in the page as the agent reads it.
//!
//! Only tabs the agent may use are attached to, so nothing is pointed at in any other tab.
//!
//! The other way round, [`reveal`] puts the node behind one of the agent's refs under a
//! one-time global name, for the DevTools page to select in the Elements panel
//! (`inspect(...)`) and delete.

use serde::Deserialize;
use serde_json::{Value, json};
use sightline_core::page_state::pointed::PointedBy;

use crate::cdp;
use crate::chrome::DebuggeeTarget;
use crate::state::{Sessions, TabsState};
use crate::timer;

/// The isolated world of the pick listener.
const PICK_WORLD: &str = "sightline-pick";
/// The pick listener: the first click (or Escape) ends it; the click never reaches the page.
const PICK: &str = include_str!("hooks/pick.js");
/// Longest wait for the person to pick a node.
pub const PICK_WAIT_MS: u32 = 60_000;
/// Most ancestors kept.
const MAX_DEPTH: usize = 64;
/// The object group of every remote object made here, released when done.
const GROUP: &str = "sightline-selection";
/// The node and its ancestors (through shadow roots), innermost first.
const CHAIN: &str = "function(max) { const out = []; for (let n = this; n && out.length < max; \
                     n = n.parentNode || n.host) out.push(n); return out; }";

/// A node the person pointed at.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Backend node ids of the node and its ancestors, innermost first.
    pub chain: Vec<i64>,
    /// The flat session of the out-of-process iframe the node is in (its ids are that
    /// process's); `None` for the tab's own process.
    pub session: Option<String>,
    /// How it was pointed at.
    pub by: PointedBy,
    /// Its tag, id and classes, for the panel (never sent to the agent).
    pub node: String,
    /// When ([`timer::epoch_ms`]).
    pub at_ms: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RemoteObject {
    #[serde(default)]
    object_id: Option<String>,
}

#[derive(Deserialize)]
struct Evaluated {
    result: RemoteObject,
}

#[derive(Deserialize)]
struct Resolved {
    object: RemoteObject,
}

#[derive(Deserialize)]
struct Property {
    name: String,
    #[serde(default)]
    value: Option<RemoteObject>,
}

#[derive(Deserialize)]
struct Properties {
    result: Vec<Property>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DescribedNode {
    backend_node_id: i64,
    #[serde(default)]
    local_name: String,
    #[serde(default)]
    attributes: Vec<String>,
}

#[derive(Deserialize)]
struct Described {
    node: DescribedNode,
}

/// `button#add.primary` for a described node.
fn node_label(node: &DescribedNode) -> String {
    let mut label = if node.local_name.is_empty() { "#text".to_owned() } else { node.local_name.clone() };
    for pair in node.attributes.chunks(2) {
        match pair {
            [name, value] if name == "id" && !value.is_empty() => label.push_str(&format!("#{value}")),
            [name, value] if name == "class" => {
                value.split_whitespace().take(3).for_each(|c| label.push_str(&format!(".{c}")));
            }
            _ => {}
        }
    }
    label.chars().take(120).collect()
}

/// Sends a command to `target` (the tab's own session or an out-of-process iframe's).
async fn send_in<T: serde::de::DeserializeOwned>(
    target: &DebuggeeTarget,
    method: &str,
    params: Value,
) -> Result<T, cdp::CdpError> {
    cdp::send_to(target, method, params, cdp::COMMAND_TIMEOUT_MS).await
}

/// The backend ids of `object` (in `target`) and its ancestors, and a label of `object`.
async fn chain_of(target: &DebuggeeTarget, object: &str) -> Result<(Vec<i64>, String), String> {
    let params = json!({"objectId": object, "functionDeclaration": CHAIN, "arguments": [{"value": MAX_DEPTH}],
        "objectGroup": GROUP});
    let list: Evaluated = send_in(target, "Runtime.callFunctionOn", params).await.map_err(|e| e.to_string())?;
    let list = list.result.object_id.ok_or("the node's ancestors could not be read")?;
    let properties: Properties =
        send_in(target, "Runtime.getProperties", json!({"objectId": list, "ownProperties": true}))
            .await
            .map_err(|e| e.to_string())?;
    let mut nodes: Vec<(usize, String)> = properties
        .result
        .into_iter()
        .filter_map(|p| Some((p.name.parse::<usize>().ok()?, p.value?.object_id?)))
        .collect();
    nodes.sort();
    let mut chain = Vec::with_capacity(nodes.len());
    let mut label = String::new();
    for (index, node) in nodes {
        let described: Described =
            send_in(target, "DOM.describeNode", json!({"objectId": node})).await.map_err(|e| e.to_string())?;
        if index == 0 {
            label = node_label(&described.node);
        }
        chain.push(described.node.backend_node_id);
    }
    if chain.is_empty() {
        return Err("the selected node is no longer in the page".into());
    }
    Ok((chain, label))
}

async fn release(target: &DebuggeeTarget) {
    let _ = send_in::<Value>(target, "Runtime.releaseObjectGroup", json!({"objectGroup": GROUP})).await;
}

/// Checks that the agent may use `tab`, and attaches to it.
async fn reachable(tabs: &TabsState, tab: i32) -> Result<(), String> {
    if !tabs.registry.borrow().is_controlled(tab) {
        return Err("the agent may not use this tab: share it with the Sightline toolbar button first".into());
    }
    tabs.ensure_attached(tab).await.map_err(|e| e.to_string())
}

/// Keeps `object`'s node (in `target`) as what the person pointed at on its tab.
async fn keep(tabs: &TabsState, target: &DebuggeeTarget, object: &str, by: PointedBy) -> Value {
    let found = chain_of(target, object).await;
    release(target).await;
    match found {
        Ok((chain, node)) => {
            let session = target.session_id.clone();
            let selection = Selection { chain, session, by, node: node.clone(), at_ms: timer::epoch_ms() };
            tabs.selections.borrow_mut().insert(target.tab_id, selection);
            json!({"selected": node})
        }
        Err(e) => json!({"error": e}),
    }
}

/// Whether `key` is a name the DevTools page made (`__sightline_selection_<letters and digits>`).
fn valid_key(key: &str) -> bool {
    key.strip_prefix("__sightline_selection_")
        .is_some_and(|rest| (8..=64).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The node the Elements panel has selected, which the DevTools page put under `globalThis[key]`.
pub async fn from_elements_panel(tabs: &TabsState, tab: i32, key: &str) -> Value {
    if !valid_key(key) {
        return json!({"error": format!("`{key}` is not a selection key")});
    }
    if let Err(e) = reachable(tabs, tab).await {
        return json!({"error": e});
    }
    let expression = format!(
        "(() => {{ const n = globalThis[{k}]; delete globalThis[{k}]; return n instanceof Node ? n : null; }})()",
        k = Value::from(key)
    );
    let evaluated: Result<Evaluated, _> =
        cdp::send(tab, "Runtime.evaluate", json!({"expression": expression, "objectGroup": GROUP})).await;
    match evaluated.map(|e| e.result.object_id) {
        Ok(Some(object)) => keep(tabs, &DebuggeeTarget::main(tab), &object, PointedBy::ElementsPanel).await,
        Ok(None) => {
            release(&DebuggeeTarget::main(tab)).await;
            json!({"error": "the node selected in the Elements panel is not in this tab's page (select it again)"})
        }
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// Puts the node behind `element_ref` (in `session`'s view of `tab`) under `globalThis[key]`,
/// for the DevTools page to reveal in the Elements panel; a ref that no longer resolves says why.
pub async fn reveal(
    tabs: &TabsState,
    sessions: &Sessions,
    tab: i32,
    session: &str,
    element_ref: &str,
    key: &str,
) -> Value {
    if !valid_key(key) {
        return json!({"error": format!("`{key}` is not a selection key")});
    }
    let node = match crate::tools::resolve_ref(tabs, sessions, session, tab, element_ref) {
        Ok(node) => node,
        Err(e) => return json!({"error": e.to_string()}),
    };
    let at = crate::input::NodeTarget::of(tabs, tab, &node);
    let resolved: Result<Resolved, _> =
        at.send("DOM.resolveNode", json!({"backendNodeId": node.backend_node_id, "objectGroup": GROUP})).await;
    let object = match resolved {
        Ok(r) => r.object.object_id,
        Err(e) => return json!({"error": format!("{element_ref} cannot be revealed: {e}")}),
    };
    let Some(object) = object else { return json!({"error": format!("{element_ref} is no longer in the page")}) };
    let put = "function(key) { Object.defineProperty(globalThis, key, {value: this, configurable: true}); }";
    let params = json!({"objectId": object, "functionDeclaration": put, "arguments": [{"value": key}]});
    let done = at.send::<Value>("Runtime.callFunctionOn", params).await;
    let _ = at.send::<Value>("Runtime.releaseObjectGroup", json!({"objectGroup": GROUP})).await;
    match done {
        Ok(_) => json!({"ok": true, "frame": at.frame_id}),
        Err(e) => json!({"error": format!("{element_ref} cannot be revealed: {e}")}),
    }
}

/// Lets the person pick a node on the page (at most [`PICK_WAIT_MS`]; Escape gives up), and
/// keeps it. A one-shot listener in an isolated world the page cannot see, in every frame (the
/// top frame, its iframes, and out-of-process iframes through their own sessions), takes the
/// first click (it never reaches the page) and answers with its target; the listeners of the
/// other frames are then called off.
pub async fn pick(tabs: &TabsState, tab: i32) -> Value {
    if let Err(e) = reachable(tabs, tab).await {
        return json!({"error": e});
    }
    let mut targets = vec![DebuggeeTarget::main(tab)];
    let children: Vec<String> = tabs.registry.borrow().frames(tab).child_sessions().map(str::to_owned).collect();
    targets.extend(children.into_iter().map(|session| DebuggeeTarget { tab_id: tab, session_id: Some(session) }));
    let mut worlds = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        match pick_worlds(target).await {
            Ok(found) => worlds.extend(found.into_iter().map(|context| (target.clone(), context))),
            // The top frame must listen; an iframe that cannot (it went away) is left out.
            Err(e) if i == 0 => return json!({"error": format!("the page cannot be picked from: {e}")}),
            Err(_) => {}
        }
    }
    tabs.picking.borrow_mut().insert(tab);
    let picked = first_pick(&worlds).await;
    tabs.picking.borrow_mut().remove(&tab);
    for (target, context) in &worlds {
        let cancel = json!({"expression": "globalThis.__sightlineCancelPick?.()", "contextId": context});
        let _ = send_in::<Value>(target, "Runtime.evaluate", cancel).await;
    }
    let release_all = || async {
        for target in &targets {
            release(target).await;
        }
    };
    match picked {
        Ok((target, Evaluated { result: RemoteObject { object_id: Some(object) } })) => {
            keep(tabs, &target, &object, PointedBy::Pick).await
        }
        Ok(_) => {
            release_all().await;
            json!({"error": "the pick was cancelled (Escape)"})
        }
        Err(e) => {
            release_all().await;
            if matches!(e, cdp::CdpError::Timeout { .. }) {
                json!({"error": format!("nothing was picked within {} s", PICK_WAIT_MS / 1000)})
            } else {
                json!({"error": e.to_string()})
            }
        }
    }
}

/// Runs the pick listener in every one of `worlds` and answers with the first that ends (a
/// click or Escape) and where. A frame whose listener fails (it navigated or was removed
/// meanwhile) leaves the others listening; the last failure is the answer when all fail.
async fn first_pick(worlds: &[(DebuggeeTarget, i64)]) -> Result<(DebuggeeTarget, Evaluated), cdp::CdpError> {
    let mut running: Vec<_> = worlds
        .iter()
        .map(|(target, context)| {
            let params = json!({"expression": PICK, "contextId": context, "awaitPromise": true, "objectGroup": GROUP});
            let target = target.clone();
            Box::pin(async move {
                let picked = cdp::send_to::<Evaluated>(&target, "Runtime.evaluate", params, PICK_WAIT_MS).await;
                picked.map(|p| (target, p))
            })
        })
        .collect();
    loop {
        let (result, _, rest) = futures::future::select_all(running).await;
        match result {
            Err(e) if !rest.is_empty() && !matches!(e, cdp::CdpError::Timeout { .. }) => running = rest,
            result => return result,
        }
    }
}

/// The isolated worlds the pick listener runs in: one in each frame `target` serves (its top
/// frame first, then the iframes of the same process), as execution context ids.
async fn pick_worlds(target: &DebuggeeTarget) -> Result<Vec<i64>, String> {
    let tree: Value = send_in(target, "Page.getFrameTree", json!({})).await.map_err(|e| e.to_string())?;
    let mut frames = Vec::new();
    let mut pending = vec![&tree["frameTree"]];
    while let Some(node) = pending.pop() {
        if let Some(id) = node["frame"]["id"].as_str() {
            frames.push(id.to_owned());
        }
        pending.extend(node["childFrames"].as_array().into_iter().flatten().rev());
    }
    let top = frames.first().cloned().ok_or("the page has no main frame")?;
    let mut contexts = Vec::with_capacity(frames.len());
    for frame in frames {
        let world =
            send_in::<Value>(target, "Page.createIsolatedWorld", json!({"frameId": frame, "worldName": PICK_WORLD}))
                .await
                .map_err(|e| e.to_string());
        match world.map(|w| w["executionContextId"].as_i64()) {
            Ok(Some(context)) => contexts.push(context),
            // The top frame must listen; an iframe that cannot (another process, gone) is skipped.
            _ if frame != top => {}
            Ok(None) => return Err("no isolated world".to_owned()),
            Err(e) => return Err(e),
        }
    }
    Ok(contexts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_keys_the_devtools_page_makes_are_read() {
        assert!(valid_key("__sightline_selection_a1b2c3d4e5"));
        assert!(!valid_key("__sightline_selection_x"));
        assert!(!valid_key("__sightline_selection_a1b2c3d4'];alert(1);//"));
        assert!(!valid_key("location"));
    }
}
