//! The replay on a recorded session: every call, its diff, its screenshots and the events, and
//! a hostile page's text shown as text.

use super::*;

const HOSTILE: &str = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";

fn export() -> SessionExport {
    let answer =
        format!("v2 · 2 changes since v1\n~ e4 textbox \"Password\" = \"\" → \"••••••\"\n+ after e4: {HOSTILE}");
    crate::review::export::sample(&answer, HOSTILE, HOSTILE)
}

fn shot(data: &str) -> Option<Shot> {
    Some(Shot { jpeg_base64: data.into(), width: 4, height: 3, outline: None })
}

#[test]
fn the_replay_holds_every_call_its_diff_screenshots_and_events_and_nothing_it_could_fetch() {
    let html = session_replay(&export(), &[ShotPair { seq: 1, before: shot("QUJD"), after: shot("REVG") }]);
    assert!(html.contains(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{REPLAY_CSP}\">")));
    assert!(html.contains("<h2>1. browser_type</h2>"), "{html}");
    assert!(
        html.contains("<div class=\"chg\">~ e4 textbox &quot;Password&quot; = &quot;&quot; → &quot;••••••&quot;</div>"),
        "{html}"
    );
    assert!(
        html.contains("src=\"data:image/jpeg;base64,QUJD\"") && html.contains("src=\"data:image/jpeg;base64,REVG\"")
    );
    assert!(html.contains("<td>console</td><td>error</td>"), "{html}");
    assert!(!html.contains("hunter2"), "the typed secret");
    for fetching in ["src=\"http", "href=\"http", "<link", "<script", "url("] {
        assert!(!html.contains(fetching), "{fetching} in {html}");
    }
}

#[test]
fn a_hostile_pages_markup_shows_as_text() {
    let html = session_replay(&export(), &[ShotPair { seq: 1, before: shot("\"><script>x</script>"), after: None }]);
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img src=x"), "{html}");
    assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"));
    // A screenshot whose data is not plain base64 is left out rather than written.
    assert!(!html.contains("data:image/jpeg;base64,\""), "{html}");
}
