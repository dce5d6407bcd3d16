//! Telling cheaply whether a page changed since its last capture, so that capture can be used
//! again instead of asking the browser for megabytes it already sent.
//!
//! A probe is four small readings taken just before a capture:
//!
//! * the frame tree (`Page.getFrameTree`): frame ids, loader ids and URLs, so any navigation of
//!   any frame, and any frame that came or went, shows;
//! * the renderer's layout and style counters (`Performance.getMetrics`), which count the
//!   layouts and style recalculations of this target's own frames. Anything that changes what
//!   is painted — a checkbox checked by a script, a hover style, an image that arrived, text
//!   changed inside a shadow root the watch cannot observe — recalculates style or lays out
//!   again. The process-wide counts the same reply carries (nodes, layout objects, documents,
//!   frames) are not compared: they also move when the renderer tears down the documents of
//!   pages left earlier, or when another tab it serves changes, which would make an unchanged
//!   page look changed;
//! * the viewport and document size (`Page.getLayoutMetrics`): scrolling and resizing;
//! * the page's watch (`WATCH_HOOK` in the extension, an isolated world no page script can
//!   reach): DOM mutations and input, scroll, focus and toggle events counted since the
//!   document started, and a digest of every form control's state (a password field by its
//!   length only), for changes that neither mutate the DOM nor restyle anything.
//!
//! The frame tree, the counters and the watch are read for the page and for every out-of-process
//! iframe through its own session, and the watch in every frame.
//!
//! When every reading equals the one taken before the kept capture, nothing the capture reads
//! can have changed: a change during that capture would show in the next probe, because the
//! readings kept are the ones from *before* it. A page the probe cannot vouch for — a frame
//! without the watch (a document that started before it was added), missing counters, a
//! reading that failed — is captured afresh; [`NotVouched`] says why.

use serde::Deserialize;
use serde_json::Value;

use crate::cdp::page::FrameTreeResult;

/// The `Performance.getMetrics` counters a probe compares.
pub const COUNTERS: &[&str] = &["LayoutCount", "RecalcStyleCount"];

/// The address of the browser's own error page, which a frame shows when its page could not be
/// loaded.
const ERROR_PAGE: &str = "chrome-error://";

/// The page's watch as its probe expression returns it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct WatchReading {
    /// Mutations and events counted since the document started.
    pub changes: u64,
    /// DOM mutation records alone counted since the document started (what settling watches).
    pub mutations: u64,
    /// Digest of every form control's value, checked state and selection.
    pub forms: u64,
    /// The document's URL (a same-document navigation keeps the loader id).
    pub url: String,
}

/// What one probe read.
#[derive(Debug, Clone, PartialEq)]
pub struct PageProbe {
    targets: Vec<TargetReading>,
    layout: Value,
}

/// What one probe read of one target (the page, or an out-of-process iframe).
#[derive(Debug, Clone, PartialEq)]
struct TargetReading {
    frames: Vec<(String, String, String)>,
    counters: Vec<(String, f64)>,
    watches: Vec<WatchReading>,
}

/// Why a probe cannot vouch that a page is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotVouched {
    /// The watch is not running in one of the page's documents (it started before the watch
    /// was added, or the page refused it).
    #[error("the page's watch is not running in every frame")]
    NoWatch,
    /// The renderer's counters were not read.
    #[error("the renderer's counters are missing")]
    NoCounters,
    /// One of the readings failed.
    #[error("a reading failed")]
    Unread,
}

/// The replies of one probe of one target, as the driver received them.
#[derive(Debug, Default)]
pub struct TargetReplies {
    /// `Page.getFrameTree`.
    pub frame_tree: Option<FrameTreeResult>,
    /// `Performance.getMetrics`.
    pub metrics: Option<Value>,
    /// The watch's probe expression per frame id of the tree, `null` where the frame has no
    /// watch.
    pub watches: Vec<(String, Option<Value>)>,
}

/// The replies of one probe: the page's target first, then each out-of-process iframe's, in a
/// stable order.
#[derive(Debug, Default)]
pub struct ProbeReplies {
    /// Per target.
    pub targets: Vec<TargetReplies>,
    /// `Page.getLayoutMetrics` of the page.
    pub layout: Option<Value>,
}

impl PageProbe {
    /// Reads a probe from its replies, or says why it cannot vouch for the page.
    pub fn read(replies: ProbeReplies) -> Result<PageProbe, NotVouched> {
        let targets = replies.targets.into_iter().map(TargetReading::read).collect::<Result<Vec<_>, _>>()?;
        if targets.is_empty() {
            return Err(NotVouched::Unread);
        }
        Ok(PageProbe { targets, layout: replies.layout.ok_or(NotVouched::Unread)? })
    }

    /// The DOM mutations the page's main frame counted since its document started: a capture
    /// taken after this probe shows the DOM of every moment until that count moves.
    pub fn main_frame_mutations(&self) -> u64 {
        // A probe holds at least one target, and every target at least its root frame's watch.
        self.targets[0].watches[0].mutations
    }
}

impl TargetReading {
    fn read(replies: TargetReplies) -> Result<TargetReading, NotVouched> {
        let tree = replies.frame_tree.ok_or(NotVouched::Unread)?;
        let frames: Vec<(String, String, String)> =
            tree.frame_tree.frames().into_iter().map(|f| (f.id.clone(), f.loader_id.clone(), f.url.clone())).collect();
        // Every frame of the tree, each with its watch running.
        let watches = frames
            .iter()
            .map(|(id, _, _)| {
                let reading = replies.watches.iter().find(|(frame, _)| frame == id).and_then(|(_, w)| w.clone());
                match reading {
                    None | Some(Value::Null) => Err(NotVouched::NoWatch),
                    Some(value) => WatchReading::deserialize(value).map_err(|_| NotVouched::NoWatch),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        // A target showing nothing but the browser's own error page (an ad frame whose site did
        // not answer, or that a blocker stopped) is styled for the first time by the capture
        // itself, so its style count moves between a capture's probe and the next look's, and
        // every look after a navigation would be captured afresh. No page script runs in such a
        // document; its frame tree and watch still tell a navigation or a mutation.
        let counters = if frames.iter().all(|(_, _, url)| url.starts_with(ERROR_PAGE)) {
            Vec::new()
        } else {
            let counters = counters(&replies.metrics.ok_or(NotVouched::NoCounters)?);
            if counters.len() != COUNTERS.len() {
                return Err(NotVouched::NoCounters);
            }
            counters
        };
        Ok(TargetReading { frames, counters, watches })
    }
}

/// The compared counters from a `Performance.getMetrics` reply, in [`COUNTERS`] order.
pub fn counters(metrics: &Value) -> Vec<(String, f64)> {
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
        let child = |i: usize| json!({"frame": {"id": format!("C{i}"), "parentId": "M", "loaderId": "LC"}});
        serde_json::from_value(json!({"frameTree": {
            "frame": {"id": "M", "loaderId": "L1", "url": "https://shop.test/"},
            "childFrames": (0..children).map(child).collect::<Vec<_>>(),
        }}))
        .unwrap()
    }

    fn metrics(layouts: f64, styles: f64) -> Value {
        let mut listed: Vec<Value> =
            COUNTERS.iter().map(|name| json!({"name": name, "value": 10.0})).collect::<Vec<_>>();
        listed[0]["value"] = layouts.into();
        listed[1]["value"] = styles.into();
        listed.push(json!({"name": "JSHeapUsedSize", "value": 123_456.0}));
        for name in PROCESS_WIDE {
            listed.push(json!({"name": name, "value": 10.0}));
        }
        json!({"metrics": listed})
    }

    /// Counts the reply carries for the whole renderer process.
    const PROCESS_WIDE: [&str; 4] = ["Nodes", "LayoutObjects", "Documents", "Frames"];

    fn watch(changes: u64) -> Option<Value> {
        Some(json!({"changes": changes, "mutations": changes, "forms": 2_166_136_261_u64, "url": "https://shop.test/"}))
    }

    /// The page with one same-process iframe, and one out-of-process iframe.
    fn replies() -> ProbeReplies {
        ProbeReplies {
            targets: vec![
                TargetReplies {
                    frame_tree: Some(tree(1)),
                    metrics: Some(metrics(3.0, 5.0)),
                    watches: vec![("M".into(), watch(4)), ("C0".into(), watch(1))],
                },
                TargetReplies {
                    frame_tree: serde_json::from_value(json!({"frameTree": {"frame": {"id": "O", "loaderId": "LO"}}}))
                        .ok(),
                    metrics: Some(metrics(1.0, 1.0)),
                    watches: vec![("O".into(), watch(0))],
                },
            ],
            layout: Some(json!({"cssVisualViewport": {"pageX": 0, "pageY": 0, "clientWidth": 1280}})),
        }
    }

    #[test]
    fn the_main_frames_mutations_are_read_apart_from_its_events_and_other_frames() {
        let mut page = replies();
        page.targets[0].watches[0].1 =
            Some(json!({"changes": 9, "mutations": 7, "forms": 2_166_136_261_u64, "url": "https://shop.test/"}));
        page.targets[0].watches[1].1 = watch(3);
        page.targets[1].watches[0].1 = watch(5);
        assert_eq!(PageProbe::read(page).unwrap().main_frame_mutations(), 7);
    }

    #[test]
    fn the_same_readings_vouch_for_an_unchanged_page() {
        assert_eq!(PageProbe::read(replies()).unwrap(), PageProbe::read(replies()).unwrap());
    }

    #[test]
    fn a_heap_that_grew_alone_is_no_change() {
        let mut later = replies();
        let listed = metrics(3.0, 5.0)["metrics"].as_array().unwrap().clone();
        let grown: Vec<Value> = listed
            .into_iter()
            .map(|mut m| {
                if m["name"] == "JSHeapUsedSize" {
                    m["value"] = 999_999.0.into();
                }
                m
            })
            .collect();
        later.targets[0].metrics = Some(json!({ "metrics": grown }));
        assert_eq!(PageProbe::read(replies()).unwrap(), PageProbe::read(later).unwrap());
    }

    #[test]
    fn counts_of_the_whole_renderer_process_that_moved_alone_are_no_change() {
        // The renderer tore down the documents of pages left earlier: its node, layout object,
        // document and frame counts fell, while this page did not change.
        let fewer = |metrics: Value| {
            let listed: Vec<Value> = metrics["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .cloned()
                .map(|mut m| {
                    if PROCESS_WIDE.contains(&m["name"].as_str().unwrap()) {
                        m["value"] = 2.0.into();
                    }
                    m
                })
                .collect();
            json!({ "metrics": listed })
        };
        let mut later = replies();
        later.targets[0].metrics = Some(fewer(metrics(3.0, 5.0)));
        later.targets[1].metrics = Some(fewer(metrics(1.0, 1.0)));
        assert_eq!(PageProbe::read(replies()).unwrap(), PageProbe::read(later).unwrap());
    }

    /// The page's replies with its out-of-process iframe showing the browser's error page, its
    /// counters `layouts` and `styles`.
    fn with_error_frame(layouts: f64, styles: f64) -> ProbeReplies {
        let mut r = replies();
        let frame =
            json!({"frameTree": {"frame": {"id": "O", "loaderId": "LO", "url": "chrome-error://chromewebdata/"}}});
        r.targets[1].frame_tree = serde_json::from_value(frame).ok();
        r.targets[1].metrics = Some(metrics(layouts, styles));
        r
    }

    #[test]
    fn an_error_page_frame_that_the_capture_styled_is_no_change() {
        // The capture styles the error page for the first time: 0 → 1, and nothing else moved.
        let before = PageProbe::read(with_error_frame(0.0, 0.0)).unwrap();
        assert_eq!(before, PageProbe::read(with_error_frame(0.0, 1.0)).unwrap());
        // Its navigation, a mutation its watch saw, and the page around it still tell.
        let changes: Vec<fn(&mut ProbeReplies)> = vec![
            |r| r.targets[1].frame_tree.as_mut().unwrap().frame_tree.frame.loader_id = "LO2".into(),
            |r| r.targets[1].frame_tree.as_mut().unwrap().frame_tree.frame.url = "https://ad.test/".into(),
            |r| r.targets[1].watches[0].1 = watch(1),
            |r| r.targets[0].metrics = Some(metrics(3.0, 6.0)),
        ];
        for change in changes {
            let mut later = with_error_frame(0.0, 1.0);
            change(&mut later);
            assert_ne!(before, PageProbe::read(later).unwrap());
        }
        // A target whose error page sits beside a page of its own is compared in full.
        let mut mixed = replies();
        mixed.targets[0].frame_tree.as_mut().unwrap().frame_tree.child_frames[0].frame.url =
            "chrome-error://chromewebdata/".into();
        let mut later = replies();
        later.targets[0].frame_tree = mixed.targets[0].frame_tree.clone();
        later.targets[0].metrics = Some(metrics(3.0, 6.0));
        assert_ne!(PageProbe::read(mixed).unwrap(), PageProbe::read(later).unwrap());
    }

    #[test]
    fn any_reading_that_moved_in_any_frame_is_a_change() {
        let before = PageProbe::read(replies()).unwrap();
        let changes: Vec<fn(&mut ProbeReplies)> = vec![
            |r| r.targets[0].metrics = Some(metrics(3.0, 6.0)),
            |r| r.targets[0].metrics = Some(metrics(4.0, 5.0)),
            |r| r.targets[1].metrics = Some(metrics(2.0, 1.0)),
            |r| r.layout = Some(json!({"cssVisualViewport": {"pageX": 0, "pageY": 300, "clientWidth": 1280}})),
            |r| r.targets[0].watches[0].1 = watch(5),
            |r| r.targets[0].watches[1].1 = watch(2),
            |r| r.targets[1].watches[0].1 = watch(1),
            |r| r.targets[0].watches[0].1.as_mut().unwrap()["forms"] = 7.into(),
            |r| r.targets[0].watches[0].1.as_mut().unwrap()["url"] = "https://shop.test/#basket".into(),
            |r| r.targets[0].frame_tree.as_mut().unwrap().frame_tree.frame.loader_id = "L2".into(),
            |r| {
                r.targets[0].frame_tree.as_mut().unwrap().frame_tree.child_frames[0].frame.url =
                    "https://ad.test/".into()
            },
        ];
        for change in changes {
            let mut later = replies();
            change(&mut later);
            assert_ne!(before, PageProbe::read(later).unwrap());
        }
        // A frame that came or went.
        let mut later = replies();
        later.targets[0].frame_tree = Some(tree(2));
        later.targets[0].watches.push(("C1".into(), watch(0)));
        assert_ne!(before, PageProbe::read(later).unwrap());
        let mut later = replies();
        later.targets.pop();
        assert_ne!(before, PageProbe::read(later).unwrap());
    }

    #[test]
    fn pages_the_probe_cannot_read_whole_are_not_vouched_for() {
        type Spoil = fn(&mut ProbeReplies);
        let cases: Vec<(Spoil, NotVouched)> = vec![
            (|r| r.targets[0].watches[1].1 = Some(Value::Null), NotVouched::NoWatch),
            (|r| r.targets[1].watches.clear(), NotVouched::NoWatch),
            (|r| r.targets[0].watches[0].1 = Some(json!({"changes": "many"})), NotVouched::NoWatch),
            (|r| r.targets[1].metrics = Some(json!({"metrics": []})), NotVouched::NoCounters),
            (|r| r.targets[0].metrics = None, NotVouched::NoCounters),
            (|r| r.layout = None, NotVouched::Unread),
            (|r| r.targets[1].frame_tree = None, NotVouched::Unread),
            (|r| r.targets.clear(), NotVouched::Unread),
        ];
        for (change, why) in cases {
            let mut r = replies();
            change(&mut r);
            assert_eq!(PageProbe::read(r), Err(why));
        }
    }
}
