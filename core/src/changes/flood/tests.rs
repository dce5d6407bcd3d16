//! The flood guard's decisions, message by message.

use serde_json::json;

use super::*;

const PAGE: Session = None;

fn frame() -> Session {
    Some("S1".to_owned())
}

#[test]
fn a_target_logging_past_the_limit_is_paused_and_its_replays_are_dropped() {
    let mut guard = FloodGuard::default();
    for i in 0..LIMIT_PER_S {
        assert_eq!(guard.admit(1, &PAGE, Some(100.0 + f64::from(i) / 10.0), 5_000.0, 10.0), Admit::Keep);
    }
    assert_eq!(guard.admit(2, &PAGE, Some(150.0), 5_000.0, 10.0), Admit::Keep, "another tab is not paused");
    let trip = Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Messages };
    assert_eq!(guard.admit(1, &PAGE, Some(200.0), 5_000.0, 10.0), trip);
    guard.paused_as(1, &PAGE, 7, 10.0);
    assert_eq!(guard.admit(1, &PAGE, Some(201.0), 5_000.0, 30.0), Admit::Drop);
    let dropped = Dropped { pause_id: 7, messages: 2, characters: 40 };
    let resumed = Resumed { pause_id: Some(7), dropped: Some(dropped), still_there: true };
    assert_eq!(guard.resume(1, &PAGE, 6_000.0), resumed);
    assert_eq!(guard.admit(1, &PAGE, Some(5_900.0), 6_100.0, 5.0), Admit::Drop, "logged during the pause");
    assert_eq!(guard.admit(1, &PAGE, Some(6_001.0), 6_100.0, 5.0), Admit::Keep);
    assert_eq!(guard.take_all_dropped(), [Dropped { pause_id: 7, messages: 1, characters: 5 }]);
    assert_eq!(guard.take_all_dropped(), [], "told once");
}

#[test]
fn a_flooding_frame_is_paused_without_its_page_and_the_page_without_its_frames() {
    let mut guard = FloodGuard::default();
    guard.frame_attached(1, "S1", "F1", "");
    assert_eq!(guard.frame_navigated(1, "S1", "F2", "http://b.test/inner.html"), None, "a frame inside it");
    assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some(""), "yet unknown");
    for i in 0..=LIMIT_PER_S {
        let admit = guard.admit(1, &frame(), Some(f64::from(i) / 10.0), 0.0, 10.0);
        // The page logs on, slowly, all along.
        if i % 100 == 0 {
            assert_eq!(guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 10.0), Admit::Keep, "message {i}");
        }
        if i == LIMIT_PER_S {
            assert_eq!(admit, Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Messages });
        }
    }
    guard.paused_as(1, &frame(), 1, 10.0);
    assert_eq!(guard.frame_navigated(1, "S1", "F1", "http://b.test/chatter.html"), Some(1), "paused unknown");
    assert_eq!(guard.frame_navigated(1, "S1", "F1", "http://b.test/chatter.html"), None, "known since");
    assert_eq!(guard.admit(1, &frame(), Some(200.0), 0.0, 10.0), Admit::Drop);
    assert_eq!(guard.admit(1, &PAGE, Some(200.0), 0.0, 10.0), Admit::Keep, "the page is recorded");
    assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some("http://b.test/chatter.html"));
    assert_eq!(guard.frame_url(1, &PAGE), None);
    // And the other way round, in the next second.
    for i in 0..LIMIT_PER_S {
        assert_eq!(guard.admit(1, &PAGE, Some(1_000.0 + f64::from(i) / 10.0), 0.0, 10.0), Admit::Keep);
    }
    assert!(matches!(guard.admit(1, &PAGE, Some(1_100.0), 0.0, 10.0), Admit::Trip { .. }));
    guard.paused_as(1, &PAGE, 2, 10.0);
    guard.resume(1, &frame(), 1_200.0);
    assert_eq!(guard.admit(1, &frame(), Some(1_300.0), 0.0, 10.0), Admit::Keep, "the frame is recorded again");
    assert_eq!(guard.admit(1, &PAGE, Some(1_300.0), 0.0, 10.0), Admit::Drop, "while its page is paused");
}

#[test]
fn every_kind_of_event_the_recorder_makes_a_console_message_of_is_counted() {
    use crate::changes::record::{self, Recorded, Recorder};
    // Parameters that make a console message of any event that can be one.
    let params = json!({
        "type": "log",
        "args": [{"type": "string", "value": "x"}],
        "exceptionDetails": {"text": "Uncaught x"},
        "entry": {"source": "javascript", "level": "info", "text": "x"},
    });
    let mut recorder = Recorder::default();
    for method in record::METHODS {
        let console = recorder.event(1, None, method, &params, 0).iter().any(|r| matches!(r, Recorded::Console(_)));
        assert_eq!(console, counts(method, Some("javascript")), "{method}");
    }
    assert!(GUARDED.iter().all(|m| record::records(m)), "the guard counts only what the recorder takes");
    // A failed load the browser logs is left to the network side, by the recorder and the guard.
    let failed = json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource"}});
    assert!(recorder.event(1, None, "Log.entryAdded", &failed, 0).is_empty());
    assert!(!counts("Log.entryAdded", Some("network")));
}

#[test]
fn a_few_huge_messages_trip_the_guard_by_their_text() {
    let mut guard = FloodGuard::default();
    let mib = 1_048_576.0;
    for i in 0..3 {
        assert_eq!(guard.admit(1, &PAGE, Some(f64::from(i)), 0.0, mib), Admit::Keep, "string {i}");
    }
    assert_eq!(guard.admit(1, &PAGE, Some(3.0), 0.0, mib), Admit::Trip { pause_ms: PAUSE_MS, why: Flooded::Text });
    // Long after the pause the count starts again.
    guard.resume(1, &PAGE, 5_000.0);
    for i in 0..3 {
        let logged = 5_000.0 + RELAPSE_MS + f64::from(i);
        assert_eq!(guard.admit(1, &PAGE, Some(logged), 0.0, mib), Admit::Keep, "string {i}");
    }
    assert_eq!(Flooded::Text.reason(), "it logged more than 4,000,000 characters of text within a second");
    assert_eq!(Flooded::Messages.reason(), "it logged more than 1,000 messages within a second");
}

#[test]
fn a_target_that_floods_again_as_soon_as_it_resumes_is_paused_longer_each_time() {
    let mut guard = FloodGuard::default();
    let flood = |guard: &mut FloodGuard, from: f64| {
        (0..=LIMIT_PER_S)
            .map(|i| guard.admit(1, &frame(), Some(from + f64::from(i) / 10.0), from, 1.0))
            .find(|admit| *admit != Admit::Keep)
    };
    let trip = |pause_ms| Some(Admit::Trip { pause_ms, why: Flooded::Messages });
    assert_eq!(flood(&mut guard, 0.0), trip(PAUSE_MS));
    let mut resumed = 5_000.0;
    for expected in [10_000, 20_000, 40_000, MAX_PAUSE_MS, MAX_PAUSE_MS] {
        guard.resume(1, &frame(), resumed);
        assert_eq!(flood(&mut guard, resumed + 1.0), trip(expected));
        resumed += f64::from(expected);
    }
    // A flood long after the last one starts again from the first pause.
    guard.resume(1, &frame(), resumed);
    assert_eq!(flood(&mut guard, resumed + RELAPSE_MS + 1.0), trip(PAUSE_MS));
}

#[test]
fn right_after_a_pause_a_target_trips_at_a_tenth_of_the_limits() {
    let mut guard = FloodGuard::default();
    for i in 0..=LIMIT_PER_S {
        guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 1.0);
    }
    guard.resume(1, &PAGE, 5_000.0);
    for i in 0..LIMIT_PER_S / 10 {
        assert_eq!(guard.admit(1, &PAGE, Some(5_001.0 + f64::from(i)), 0.0, 1.0), Admit::Keep, "message {i}");
    }
    let relapse = Admit::Trip { pause_ms: 2 * PAUSE_MS, why: Flooded::Messages };
    assert_eq!(guard.admit(1, &PAGE, Some(5_200.0), 0.0, 1.0), relapse);
    // Text likewise: a tenth of it.
    guard.resume(1, &PAGE, 20_000.0);
    assert_eq!(guard.admit(1, &PAGE, Some(20_001.0), 0.0, TEXT_LIMIT_PER_S / 10.0), Admit::Keep);
    assert!(matches!(guard.admit(1, &PAGE, Some(20_002.0), 0.0, 1.0), Admit::Trip { why: Flooded::Text, .. }));
    // Long after resuming, the full limits again.
    guard.resume(1, &PAGE, 40_000.0);
    for i in 0..LIMIT_PER_S {
        let logged = 40_000.0 + RELAPSE_MS + f64::from(i) / 10.0;
        assert_eq!(guard.admit(1, &PAGE, Some(logged), 0.0, 1.0), Admit::Keep, "message {i}");
    }
}

#[test]
fn a_flood_is_paused_even_when_its_messages_arrive_slower_than_the_limit() {
    let mut guard = FloodGuard::default();
    // Logged at 10,000 a second, delivered at 500 a second.
    for i in 0..LIMIT_PER_S {
        let admit = guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), f64::from(i) * 2.0, 1.0);
        assert_eq!(admit, Admit::Keep, "message {i}");
    }
    assert!(matches!(guard.admit(1, &PAGE, Some(100.0), 2_000.0, 1.0), Admit::Trip { .. }));
}

#[test]
fn a_steady_rate_under_the_limits_is_never_paused_even_when_it_arrives_in_bursts() {
    let mut guard = FloodGuard::default();
    // Just under both limits each second: LIMIT_PER_S messages of 3,900 characters.
    let characters = 3_900.0;
    for i in 0..10 * LIMIT_PER_S {
        // Logged evenly, delivered ten seconds' worth at once.
        let logged = f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
        assert_eq!(guard.admit(1, &PAGE, Some(logged), 10_000.0, characters), Admit::Keep, "message {i}");
    }
    for i in 0..10 * LIMIT_PER_S {
        // Without stamps, arrival times count.
        let now = 20_000.0 + f64::from(i) * 1_000.0 / f64::from(LIMIT_PER_S);
        assert_eq!(guard.admit(2, &PAGE, None, now, characters), Admit::Keep, "message {i}");
    }
}

#[test]
fn pauses_kept_on_a_replaced_timeline_are_told_nothing_more() {
    let mut guard = FloodGuard::default();
    for i in 0..=LIMIT_PER_S {
        guard.admit(1, &PAGE, Some(f64::from(i) / 10.0), 0.0, 1.0);
    }
    guard.paused_as(1, &PAGE, 1, 1.0);
    guard.timeline_replaced();
    assert_eq!(guard.admit(1, &PAGE, Some(200.0), 0.0, 1.0), Admit::Drop, "still paused");
    assert_eq!(guard.take_all_dropped(), [], "pause 1 of the new timeline is another one");
    assert_eq!(guard.resume(1, &PAGE, 5_000.0), Resumed { pause_id: None, dropped: None, still_there: true });
}

#[test]
fn a_frame_that_goes_away_is_forgotten_once_its_pause_ends() {
    let mut guard = FloodGuard::default();
    guard.frame_attached(1, "S1", "F1", "http://b.test/");
    for i in 0..=LIMIT_PER_S {
        guard.admit(1, &frame(), Some(f64::from(i) / 10.0), 0.0, 1.0);
    }
    guard.paused_as(1, &frame(), 3, 1.0);
    assert_eq!(guard.frame_detached(1, "S1"), Some(Dropped { pause_id: 3, messages: 1, characters: 1 }));
    let resumed = guard.resume(1, &frame(), 5_000.0);
    assert_eq!(resumed, Resumed { pause_id: Some(3), dropped: None, still_there: false }, "not turned back on");
    assert_eq!(guard.frame_url(1, &frame()).as_deref(), Some(""), "forgotten");
    guard.frame_attached(1, "S2", "F2", "http://c.test/");
    assert_eq!(guard.frame_detached(1, "S2"), None);
    assert!(guard.tabs[&1].is_empty(), "a quiet frame is forgotten at once");
}
