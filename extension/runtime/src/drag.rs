//! Dragging with the mouse, for both kinds of drag a page may implement: its own
//! `mousedown`/`mousemove`/`mouseup` handlers (sortable lists, sliders, jQuery UI), and HTML5
//! drag and drop (`draggable` and `drop` events), which the browser runs itself once a drag
//! starts.
//!
//! The button is pressed at the start point and the first move is made with the browser's
//! drags intercepted (`Input.setInterceptDrags`). If the page started an HTML5 drag, the browser
//! hands it over (`Input.dragIntercepted`) and the rest is dispatched as drag events
//! (`dragEnter`, `dragOver`, `drop`) with its data; otherwise the mouse goes on moving to the end
//! point, a little past it and back (where a sortable list decides the order), and is released
//! there.

use crate::cdp::{self, Subscription};
use crate::error::ToolError;
use crate::input;
use crate::state::TabsState;

/// Moves between the two points, so handlers that follow the pointer see it travel.
const STEPS: u32 = 8;
/// How long the browser has to hand over an HTML5 drag the first move started.
const DRAG_START_MS: u32 = 150;

/// How far past the end point a mouse drag goes before it comes back (CSS pixels).
const OVERSHOOT_PX: f64 = 6.0;

/// The point [`OVERSHOOT_PX`] past `to` on the line from `from` (less on a short drag: at most a
/// quarter of it); `None` when the two points are the same.
fn overshoot(from: (f64, f64), to: (f64, f64)) -> Option<(f64, f64)> {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = dx.hypot(dy);
    if length < 1.0 {
        return None;
    }
    let past = OVERSHOOT_PX.min(length / 4.0);
    Some((to.0 + dx / length * past, to.1 + dy / length * past))
}

/// Drags from `from` to `to` (the page's viewport coordinates) on `tab`.
pub async fn drag(tabs: &TabsState, tab: i32, from: (f64, f64), to: (f64, f64)) -> Result<(), ToolError> {
    let at = |i: u32| {
        let t = f64::from(i) / f64::from(STEPS);
        (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
    };
    let moved =
        |(x, y): (f64, f64)| serde_json::json!({"type": "mouseMoved", "x": x, "y": y, "button": "left", "buttons": 1});
    input::move_mouse(tab, from.0, from.1).await?;
    input::mouse(
        tab,
        serde_json::json!({"type": "mousePressed", "x": from.0, "y": from.1, "button": "left", "buttons": 1, "clickCount": 1}),
    )
    .await?;
    let mut handed_over = Subscription::new(&tabs.hub, tab, &["Input.dragIntercepted"]);
    cdp::send::<serde_json::Value>(tab, "Input.setInterceptDrags", serde_json::json!({"enabled": true})).await?;
    let first = input::mouse(tab, moved(at(1))).await;
    let drag = match first {
        Ok(()) => handed_over.next_where(DRAG_START_MS, |e| e.session_id.is_none()).await,
        Err(_) => None,
    };
    let _ = cdp::send::<serde_json::Value>(tab, "Input.setInterceptDrags", serde_json::json!({"enabled": false})).await;
    first?;
    match drag.map(|event| event.params["data"].clone()) {
        Some(data) => {
            let event =
                |kind: &str, (x, y): (f64, f64)| serde_json::json!({"type": kind, "x": x, "y": y, "data": data});
            cdp::send::<serde_json::Value>(tab, "Input.dispatchDragEvent", event("dragEnter", at(1))).await?;
            for i in 2..=STEPS {
                cdp::send::<serde_json::Value>(tab, "Input.dispatchDragEvent", event("dragOver", at(i))).await?;
            }
            cdp::send::<serde_json::Value>(tab, "Input.dispatchDragEvent", event("drop", to)).await?;
        }
        None => {
            for i in 2..=STEPS {
                input::mouse(tab, moved(at(i))).await?;
            }
            // A sortable list moves an item only once the pointer passes the middle of the
            // item it is over, so the pointer goes a little past the end point and comes back
            // to it, as a hand does.
            if let Some(past) = overshoot(from, to) {
                input::mouse(tab, moved(past)).await?;
                input::mouse(tab, moved(to)).await?;
            }
            input::mouse(
                tab,
                serde_json::json!({"type": "mouseReleased", "x": to.0, "y": to.1, "button": "left", "buttons": 0, "clickCount": 1}),
            )
            .await?;
        }
    }
    Ok(())
}
