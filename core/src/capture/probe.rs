//! Telling cheaply whether a page changed since its last capture, so that capture can be used
//! again instead of asking the browser for megabytes it already sent.
//!
//! A probe is four small readings taken just before a capture:
//!
//! * the frame tree (`Page.getFrameTree`): frame ids, loader ids and URLs, so any navigation of
//!   any frame shows;
//! * the renderer's own counters (`Performance.getMetrics`): layouts, style recalculations,
//!   nodes, layout objects, documents and frames. Anything that changes what is painted — a
//!   checkbox checked by a script, a hover style, an image that arrived — recalculates style or
//!   lays out again;
//! * the viewport and document size (`Page.getLayoutMetrics`): scrolling and resizing;
//! * the page's watch (`WATCH_HOOK` in the extension, an isolated world no page script can
//!   reach): DOM mutations and input, scroll, focus and toggle events counted since the
//!   document started, and a digest of every form control's state (a password field by its
//!   length only), for changes that neither mutate the DOM nor restyle anything.
//!
//! When every reading equals the one taken before the kept capture, nothing the capture reads
//! can have changed: a change during that capture would show in the next probe, because the
//! readings kept are the ones from *before* it. A page the probe cannot vouch for — several
//! frames (their own documents are not watched), out-of-process iframes, no watch in the page
//! yet, no counters — is captured afresh every time; [`NotVouched`] says why.

use serde::Deserialize;
use serde_json::Value;

use crate::cdp::page::FrameTreeResult;

/// The `Performance.getMetrics` counters a probe compares.
pub const COUNTERS: &[&str] = &["LayoutCount", "RecalcStyleCount", "Nodes", "LayoutObjects", "Documents", "Frames"];

/// The page's watch as its probe expression returns it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WatchReading {
    /// Mutations and events counted since the document started.
    pub changes: u64,
    /// Digest of every form control's value, checked state and selection.
    pub forms: u64,
    /// The document's URL (a same-document navigation keeps the loader id).
    pub url: String,
}

/// What one probe read.
#[derive(Debug, Clone, PartialEq)]
pub struct PageProbe {
    frames: Vec<(String, String, String)>,
    counters: Vec<(String, f64)>,
    layout: Value,
    watch: WatchReading,
}

/// Why a probe cannot vouch that a page is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotVouched {
    /// The page holds iframes, whose documents the probe does not read.
    #[error("the page has iframes")]
    Frames,
    /// Out-of-process iframes are captured through sessions the probe does not read.
    #[error("the page has out-of-process iframes")]
    OutOfProcessFrames,
    /// The page's watch is not running (the document started before it was added, or the page
    /// refused it).
    #[error("the page's watch is not running")]
    NoWatch,
    /// The renderer's counters were not read.
    #[error("the renderer's counters are missing")]
    NoCounters,
    /// One of the readings failed.
    #[error("a reading failed")]
    Unread,
}

/// The replies of one probe, as the driver received them.
#[derive(Debug, Default)]
pub struct ProbeReplies {
    /// `Page.getFrameTree`.
    pub frame_tree: Option<FrameTreeResult>,
    /// `Performance.getMetrics`.
    pub metrics: Option<Value>,
    /// `Page.getLayoutMetrics`.
    pub layout: Option<Value>,
    /// The watch's probe expression, `null` when the page has no watch.
    pub watch: Option<Value>,
    /// How many out-of-process iframe sessions the tab has.
    pub child_sessions: usize,
}

impl PageProbe {
    /// Reads a probe from its replies, or says why it cannot vouch for the page.
    pub fn read(replies: ProbeReplies) -> Result<PageProbe, NotVouched> {
        if replies.child_sessions > 0 {
            return Err(NotVouched::OutOfProcessFrames);
        }
        let tree = replies.frame_tree.ok_or(NotVouched::Unread)?;
        if !tree.frame_tree.child_frames.is_empty() {
            return Err(NotVouched::Frames);
        }
        let watch = match replies.watch {
            None | Some(Value::Null) => return Err(NotVouched::NoWatch),
            Some(value) => WatchReading::deserialize(value).map_err(|_| NotVouched::NoWatch)?,
        };
        let counters = counters(&replies.metrics.ok_or(NotVouched::NoCounters)?);
        if counters.len() != COUNTERS.len() {
            return Err(NotVouched::NoCounters);
        }
        let frame = &tree.frame_tree.frame;
        Ok(PageProbe {
            frames: vec![(frame.id.clone(), frame.loader_id.clone(), frame.url.clone())],
            counters,
            layout: replies.layout.ok_or(NotVouched::Unread)?,
            watch,
        })
    }
}

/// The compared counters from a `Performance.getMetrics` reply, in [`COUNTERS`] order.
fn counters(metrics: &Value) -> Vec<(String, f64)> {
    let listed = metrics["metrics"].as_array().map(Vec::as_slice).unwrap_or_default();
    COUNTERS
        .iter()
        .filter_map(|name| {
            let value = listed.iter().find(|m| m["name"] == *name)?["value"].as_f64()?;
            Some(((*name).to_owned(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tree(children: usize) -> FrameTreeResult {
        let child = json!({"frame": {"id": "C", "parentId": "M", "loaderId": "LC"}});
        serde_json::from_value(json!({"frameTree": {
            "frame": {"id": "M", "loaderId": "L1", "url": "https://shop.test/"},
            "childFrames": vec![child; children],
        }}))
        .unwrap()
    }

    fn metrics(layouts: f64, styles: f64) -> Value {
        let mut listed: Vec<Value> =
            COUNTERS.iter().map(|name| json!({"name": name, "value": 10.0})).collect::<Vec<_>>();
        listed[0]["value"] = layouts.into();
        listed[1]["value"] = styles.into();
        listed.push(json!({"name": "JSHeapUsedSize", "value": 123_456.0}));
        json!({"metrics": listed})
    }

    fn replies() -> ProbeReplies {
        ProbeReplies {
            frame_tree: Some(tree(0)),
            metrics: Some(metrics(3.0, 5.0)),
            layout: Some(json!({"cssVisualViewport": {"pageX": 0, "pageY": 0, "clientWidth": 1280}})),
            watch: Some(json!({"changes": 4, "forms": 2_166_136_261_u64, "url": "https://shop.test/"})),
            child_sessions: 0,
        }
    }

    #[test]
    fn the_same_readings_vouch_for_an_unchanged_page() {
        assert_eq!(PageProbe::read(replies()).unwrap(), PageProbe::read(replies()).unwrap());
    }

    #[test]
    fn a_heap_that_grew_alone_is_no_change() {
        let mut later = replies();
        later.metrics = Some(json!({"metrics": metrics(3.0, 5.0)["metrics"].as_array().unwrap().iter().map(|m| {
            let mut m = m.clone();
            if m["name"] == "JSHeapUsedSize" { m["value"] = 999_999.0.into(); }
            m
        }).collect::<Vec<_>>()}));
        assert_eq!(PageProbe::read(replies()).unwrap(), PageProbe::read(later).unwrap());
    }

    #[test]
    fn any_reading_that_moved_is_a_change() {
        let before = PageProbe::read(replies()).unwrap();
        let changes: Vec<fn(&mut ProbeReplies)> = vec![
            |r| r.metrics = Some(metrics(3.0, 6.0)),
            |r| r.metrics = Some(metrics(4.0, 5.0)),
            |r| r.layout = Some(json!({"cssVisualViewport": {"pageX": 0, "pageY": 300, "clientWidth": 1280}})),
            |r| r.watch.as_mut().unwrap()["changes"] = 5.into(),
            |r| r.watch.as_mut().unwrap()["forms"] = 7.into(),
            |r| r.watch.as_mut().unwrap()["url"] = "https://shop.test/#basket".into(),
            |r| r.frame_tree.as_mut().unwrap().frame_tree.frame.loader_id = "L2".into(),
        ];
        for change in changes {
            let mut later = replies();
            change(&mut later);
            assert_ne!(before, PageProbe::read(later).unwrap());
        }
    }

    #[test]
    fn pages_the_probe_cannot_read_whole_are_not_vouched_for() {
        let cases: Vec<(fn(&mut ProbeReplies), NotVouched)> = vec![
            (|r| r.frame_tree = Some(tree(1)), NotVouched::Frames),
            (|r| r.child_sessions = 1, NotVouched::OutOfProcessFrames),
            (|r| r.watch = Some(Value::Null), NotVouched::NoWatch),
            (|r| r.watch = None, NotVouched::NoWatch),
            (|r| r.metrics = Some(json!({"metrics": []})), NotVouched::NoCounters),
            (|r| r.metrics = None, NotVouched::NoCounters),
            (|r| r.layout = None, NotVouched::Unread),
            (|r| r.frame_tree = None, NotVouched::Unread),
        ];
        for (change, why) in cases {
            let mut r = replies();
            change(&mut r);
            assert_eq!(PageProbe::read(r), Err(why));
        }
    }
}
