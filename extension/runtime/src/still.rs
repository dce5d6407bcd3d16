//! Keeping a page still while it is photographed, and noticing when it did not keep still.
//!
//! A screenshot paints over masked fields where they were measured right before and right after
//! the capture (`sightline_core::screenshot`). What could move a field between those moments
//! without a script of ours seeing it is an animation, or the page's own scripts changing style
//! or layout. So, around the capture, the running animations of every frame holding a masked
//! field are paused (and played again after), and the renderer's layout and style counters
//! (`Performance.getMetrics`, which a page cannot set) of the top page and of those frames are
//! read: if either counted anything between the first measurement and the last, the page
//! changed while it was photographed, and the screenshot is taken again.
//!
//! Scripts are never paused: a frame the renderer draws while a page is paused in the debugger
//! drops the page's pending animation-frame callbacks, which would break the page for the
//! person.
//!
//! A hold is always let go: [`Still::release`] after the capture, or, when the call is dropped
//! first (it ran out of time or was called off), from `Drop`, which finishes in the background.

use serde_json::{Value, json};
use sightline_core::capture::probe::counters;

use crate::chrome::DebuggeeTarget;
use crate::input::NodeTarget;

/// Pauses the running animations of the frame's document; returns them (an array object of the
/// isolated world) to play again.
const PAUSE_ANIMATIONS: &str = "(() => { const a = document.getAnimations().filter((x) => x.playState === 'running'); a.forEach((x) => x.pause()); return a; })()";
/// Called on that array: plays them again.
const PLAY_ANIMATIONS: &str = "function () { for (const a of this) { try { a.play(); } catch (e) {} } }";

/// A page whose animations are held still, and the processes whose counters are watched.
pub struct Still {
    /// The frames whose animations are paused, and the array of those animations.
    animations: Vec<(NodeTarget, String)>,
    /// The top page's session and those of the frames holding masked fields.
    watched: Vec<DebuggeeTarget>,
    released: bool,
}

impl Still {
    /// Holds still the animations of `frames` (the frames holding masked fields) of `tab`.
    pub async fn hold(tab: i32, frames: Vec<NodeTarget>) -> Still {
        let mut watched = vec![DebuggeeTarget::main(tab)];
        let mut animations = Vec::new();
        for frame in frames {
            if !watched.contains(&frame.target) {
                watched.push(frame.target.clone());
            }
            if let Some(object) = pause_animations(&frame).await {
                // The renderer applies a pause at its next frame: let it, before anything is
                // measured, or that frame would look like the page moving.
                next_frame(&frame).await;
                animations.push((frame, object));
            }
        }
        Still { animations, watched, released: false }
    }

    /// The layout and style counters of the watched processes now (an empty reading for one
    /// that did not answer, which then never matches: the screenshot is taken again).
    pub async fn counters(&self) -> Vec<Option<Vec<(String, f64)>>> {
        let mut readings = Vec::with_capacity(self.watched.len());
        for target in &self.watched {
            let metrics: Option<Value> =
                crate::cdp::send_to(target, "Performance.getMetrics", json!({}), crate::cdp::COMMAND_TIMEOUT_MS)
                    .await
                    .ok();
            readings.push(metrics.as_ref().map(counters).filter(|c| !c.is_empty()));
        }
        readings
    }

    /// Plays the paused animations again.
    pub async fn release(mut self) {
        self.released = true;
        play(std::mem::take(&mut self.animations)).await;
    }
}

impl Drop for Still {
    fn drop(&mut self) {
        if !self.released {
            wasm_bindgen_futures::spawn_local(play(std::mem::take(&mut self.animations)));
        }
    }
}

async fn play(animations: Vec<(NodeTarget, String)>) {
    for (frame, object) in animations {
        let call = json!({"objectId": object, "functionDeclaration": PLAY_ANIMATIONS});
        let _ = frame.send::<Value>("Runtime.callFunctionOn", call).await;
        crate::input::release(&frame, &object).await;
    }
}

/// Waits for the frame's next animation frame (at most 100 ms: a hidden tab draws none).
async fn next_frame(frame: &NodeTarget) {
    let Ok(context) = frame.isolated_context().await else { return };
    let wait = "new Promise((r) => { requestAnimationFrame(() => r(0)); setTimeout(() => r(0), 100); })";
    let params = json!({"expression": wait, "contextId": context, "awaitPromise": true});
    let _ = frame.send::<Value>("Runtime.evaluate", params).await;
}

/// Pauses the frame's running animations in its isolated world; the array of them, if any.
async fn pause_animations(frame: &NodeTarget) -> Option<String> {
    let context = frame.isolated_context().await.ok()?;
    let params = json!({"expression": PAUSE_ANIMATIONS, "contextId": context});
    let evaluated: Value = frame.send("Runtime.evaluate", params).await.ok()?;
    let object = evaluated["result"]["objectId"].as_str()?.to_owned();
    // None was running: nothing to play again.
    if evaluated["result"]["description"].as_str() == Some("Array(0)") {
        crate::input::release(frame, &object).await;
        return None;
    }
    Some(object)
}
