//! The load wait replayed on the event sequences real pages produce.

use super::*;

const CAP: u32 = 30_000;

/// Runs `wait` from `now` through the `script`: each entry is what one listening hears (the
/// events it takes in, `None` for a slice that ended with nothing and the committed loader
/// then), or a probe's answer. Returns the steps taken and when it ended.
enum Beat<'a> {
    Hear(Vec<LoadEvent<'a>>),
    Quiet(Option<&'a str>),
    Probe(ProbeAnswer),
}

fn replay(wait: &mut LoadWait, mut now: f64, script: Vec<Beat<'_>>) -> (Vec<Step>, f64) {
    let mut steps = Vec::new();
    for beat in script {
        let step = wait.step(now);
        steps.push(step);
        match (step, beat) {
            (Step::Listen(ms), Beat::Hear(events)) => {
                for event in events {
                    if wait.observe(event) {
                        break;
                    }
                }
                now += 10.0_f64.min(f64::from(ms));
            }
            (Step::Listen(ms), Beat::Quiet(committed)) => {
                wait.quiet(committed);
                now += f64::from(ms);
            }
            (Step::Probe(ms), Beat::Probe(answer)) => {
                let silent = answer == ProbeAnswer::Unanswered;
                wait.probed(answer, now);
                now += if silent { f64::from(ms) } else { 5.0 };
            }
            (step, _) => panic!("the wait asked for {step:?} out of turn"),
        }
    }
    (steps, now)
}

#[test]
fn a_document_that_fires_load_ends_the_wait() {
    let mut wait = LoadWait::new(Some("L2".into()), 0.0, CAP);
    let (_, now) = replay(
        &mut wait,
        0.0,
        vec![Beat::Hear(vec![
            LoadEvent::Loaded { loader: "L1" },
            LoadEvent::Committed { loader: "L2" },
            LoadEvent::Loaded { loader: "L2" },
        ])],
    );
    assert_eq!(wait.step(now), Step::Done);
    assert_eq!(wait.outcome(now), LoadOutcome { loaded: true, ..LoadOutcome::default() });
}

#[test]
fn a_page_from_the_back_forward_cache_is_done_when_it_says_it_is_complete() {
    // It fires no load: once it is the committed document, a probe finds it complete.
    let mut wait = LoadWait::new(Some("L1".into()), 0.0, CAP);
    let (steps, now) = replay(
        &mut wait,
        0.0,
        vec![Beat::Quiet(Some("L0")), Beat::Quiet(Some("L1")), Beat::Probe(ProbeAnswer::Answered("complete".into()))],
    );
    assert_eq!(steps, [Step::Listen(SLICE_MS), Step::Listen(SLICE_MS), Step::Probe(PROBE_TIMEOUT_MS)]);
    assert!(wait.outcome(now).loaded);
}

#[test]
fn a_document_replaced_before_it_loaded_hands_the_wait_to_the_next() {
    let mut wait = LoadWait::new(Some("L1".into()), 0.0, CAP);
    let (_, now) = replay(
        &mut wait,
        0.0,
        vec![
            Beat::Hear(vec![LoadEvent::Requested { url: "https://b.test/" }, LoadEvent::Committed { loader: "L2" }]),
            Beat::Hear(vec![LoadEvent::Loaded { loader: "L1" }, LoadEvent::Loaded { loader: "L2" }]),
        ],
    );
    assert!(wait.outcome(now).loaded, "the replacing document's load ends it, not the old one's");
}

#[test]
fn a_busy_page_is_given_up_on_at_the_cap_saying_a_script_keeps_it_busy() {
    let mut wait = LoadWait::new(Some("L1".into()), 0.0, 3_000);
    let mut now = 0.0;
    let mut probes = 0;
    loop {
        match wait.step(now) {
            Step::Done => break,
            Step::Listen(ms) => {
                wait.quiet(Some("L1"));
                now += f64::from(ms);
            }
            Step::Probe(ms) => {
                probes += 1;
                assert!(ms <= PROBE_TIMEOUT_MS);
                wait.probed(ProbeAnswer::Unanswered, now);
                now += f64::from(ms);
            }
        }
    }
    assert!(now <= 3_000.0 + 1.0, "the cap holds in all: {now}");
    assert!(probes >= 2);
    let outcome = wait.outcome(now);
    assert!(!outcome.loaded);
    assert_eq!(outcome.notes[0], "the page had not finished loading after 3 s; what follows is what had loaded");
    assert!(outcome.notes[1].contains("has not answered the browser for") && outcome.notes[1].contains("busy"));
    assert!(outcome.silent_ms.is_some() && outcome.on_its_way_to.is_none());
}

#[test]
fn a_page_on_its_way_to_an_address_that_never_answers_is_not_blamed() {
    let mut wait = LoadWait::new(None, 0.0, 2_000);
    let mut now = 0.0;
    wait.observe(LoadEvent::Requested { url: "https://slow.test/next?token=abc" });
    while let step @ (Step::Listen(_) | Step::Probe(_)) = wait.step(now) {
        match step {
            Step::Listen(ms) => {
                wait.quiet(Some("L0"));
                now += f64::from(ms);
            }
            Step::Probe(ms) => {
                wait.probed(ProbeAnswer::Unanswered, now);
                now += f64::from(ms);
            }
            Step::Done => unreachable!(),
        }
    }
    let outcome = wait.outcome(now);
    assert_eq!(outcome.on_its_way_to.as_deref(), Some("https://slow.test/next?token=••••••"), "masked");
    assert!(outcome.notes[1].starts_with("the page is on its way to https://slow.test/next?token=••••••"));
}

#[test]
fn an_answer_after_silence_clears_it_and_a_failed_probe_changes_nothing() {
    let mut wait = LoadWait::new(None, 0.0, CAP);
    wait.probed(ProbeAnswer::Unanswered, 10.0);
    wait.probed(ProbeAnswer::Failed, 20.0);
    assert!(wait.outcome(30.0).silent_ms.is_some());
    wait.probed(ProbeAnswer::Answered("interactive".into()), 40.0);
    assert_eq!(wait.outcome(50.0).silent_ms, None);
}

#[test]
fn no_new_page_says_what_the_server_answered() {
    assert_eq!(no_new_page(Some(204), None), "the request was sent; the server answered 204, and the page stayed");
    assert!(no_new_page(Some(205), None).contains("answered 205"));
    assert!(no_new_page(Some(200), None).contains("without a new page (the server answered 200)"));
    assert!(no_new_page(None, None).contains("or it became a download"));
    assert_eq!(
        no_new_page(Some(200), Some("report.csv")),
        "the navigation became a download (report.csv); the page stayed"
    );
    // The name is the page's: no line of its own, no path.
    assert_eq!(
        no_new_page(None, Some("../x\n! pose.csv")),
        "the navigation became a download (x! pose.csv); the page stayed"
    );
}

#[test]
fn only_a_wait_that_did_not_end_quietly_has_a_note() {
    assert_eq!(settling_note(Settling::Quiet), None);
    let changing = settling_note(Settling::StillChanging { elapsed_ms: 2_000.0, mutations: 41 }).unwrap();
    assert_eq!(changing, "the page was still changing after 2.0 s (41 mutations); this snapshot may be mid-update");
    assert!(settling_note(Settling::Navigated).unwrap().contains("navigated"));
    assert!(settling_note(Settling::Unanswered { waited_ms: 5_000 }).unwrap().contains("within 5 s"));
}

#[test]
fn a_page_too_busy_to_read_is_answered_with_what_the_call_did_and_what_to_do() {
    let did = "browser_click ran and opened https://shop.example/cart";
    for text in [
        unread_after_load(did),
        silent_after_load(did, 31_400.0),
        stuck_on_the_way(did, "https://pay.example/", 30_000.0),
    ] {
        assert!(text.starts_with(&format!("{did}, but the page ")), "{text}");
        assert!(text.ends_with("Take a browser_snapshot in a while, or navigate elsewhere."), "{text}");
    }
    assert!(unread_after_load(did).contains(&format!("too slowly to be read within {} s", READ_CAP_MS / 1000)));
    let silent = silent_after_load(did, 31_400.0);
    assert!(silent.contains(&format!("had not finished loading after {} s", LOAD_CAP_MS / 1000)), "{silent}");
    assert!(silent.contains("has not answered the browser for 31 s"), "{silent}");
    let stuck = stuck_on_the_way(did, "https://pay.example/", 30_000.0);
    assert!(
        stuck.contains("sent the browser on to https://pay.example/, which had not answered after 30 s"),
        "{stuck}"
    );
}
