//! The flood drill: a page that logs 10,000 console messages a second (2,000 control characters
//! each), keeps 1,000 requests waiting on a server that never answers (every tenth to a 1.5 MB
//! URL) and opens 1,000 WebSockets. While it runs, every read tool and an action answer within
//! 5 s each, the extension's service worker keeps running, and what it and the host processes
//! hold stays under stated caps, and the timeline it saves for a restart still fits the session
//! storage.
//!
//! Only every tenth URL is 1.5 MB because Chromium itself cannot keep 1,000 such requests
//! waiting on a 24 GiB machine: with no debugger attached, its network service holds about 12 MB
//! per waiting request and crashes within a minute, taking the extension's worker with it.
//!
//! The frame flood drill: a page whose iframe of another site (an out-of-process frame, a session
//! of its own) logs 10,000 messages a second while the page throws 1,000 errors a second and logs
//! a 1 MiB string ten times a second. Every tool (snapshot, click, type, console messages, changes
//! since) answers within 5 s, the click and the typing reach the page, and the console listing and
//! the change report name each paused console (the frame by its URL, the page) with what it
//! dropped. First, a 1 MiB string logged alone is listed cut, with its length.
//!
//! The 5 s bound is a cap on a wait (a tool stuck behind the flood would exceed it many times
//! over), not a measure of speed; the memory caps are several times what a quiet session holds,
//! and far below what keeping the flood would take (a minute of it is over a gigabyte).
//!
//! The two drills take turns ([`ONE_FLOOD_AT_A_TIME`]): each keeps a processor busy, and two at
//! once beside the other tests on a two-processor machine starve all three browsers alike (the
//! navigation to the flood, 1.3 s alone, took 35 to 56 s with three floods or two and a
//! fidelity run beside it), which says nothing of how Sightline stands a flood.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::{REMOTE_DEBUGGING, bridge_pids};
use sightline_harness::client::Reply;
use sightline_harness::websocket::WebSocketServer;
use sightline_harness::{Rig, ref_named, ref_of, service_worker};

/// How long each tool may take under the flood.
/// Held by each drill for its whole run, so the floods never overlap.
static ONE_FLOOD_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const TOOL_CAP: Duration = Duration::from_secs(5);
/// How long the page may take to start its 1,000 requests and sockets.
const ESTABLISH_CAP: Duration = Duration::from_secs(300);
/// How long the flood runs before and between the rounds of tools.
const FLOOD_SETTLE: Duration = Duration::from_secs(10);
/// The service worker's JavaScript heap in use, under the flood.
const WORKER_HEAP_CAP: u64 = 64 * 1024 * 1024;
/// The runtime's wasm linear memory, under the flood.
const WASM_MEMORY_CAP: u64 = 256 * 1024 * 1024;
/// Resident memory of each host process (the bridge, the MCP server), under the flood.
const HOST_RSS_CAP: u64 = 128 * 1024 * 1024;

const MIB: f64 = 1024.0 * 1024.0;

/// Resident memory of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The `sightline-host mcp` processes this test started.
fn mcp_pids() -> Vec<u32> {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let parent = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1));
            let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            parent == Some(me.as_str()) && cmdline.contains("sightline-host") && cmdline.contains("\0mcp")
        })
        .collect()
}

/// What the extension and the host hold now.
#[derive(Debug)]
struct Memory {
    worker_heap: u64,
    wasm: u64,
    bridge: u64,
    mcp: u64,
}

fn measure(rig: &Rig, devtools: &str) -> Memory {
    let worker = service_worker::extension_worker_memory(devtools).expect("measure the worker");
    let bridge = bridge_pids(&rig.sandbox).into_iter().map(rss).max().unwrap_or(0);
    let mcp = mcp_pids().into_iter().map(rss).max().unwrap_or(0);
    Memory { worker_heap: worker.js_heap_used, wasm: worker.wasm_memory, bridge, mcp }
}

fn print(label: &str, m: &Memory) {
    eprintln!(
        "{label}: worker JS heap {:.1} MiB, wasm memory {:.1} MiB, bridge RSS {:.1} MiB, mcp RSS {:.1} MiB",
        m.worker_heap as f64 / MIB,
        m.wasm as f64 / MIB,
        m.bridge as f64 / MIB,
        m.mcp as f64 / MIB
    );
}

/// Calls `tool` and checks it answers, without an error, within [`TOOL_CAP`].
async fn within_cap(rig: &Rig, tool: &str, args: Value) -> Reply {
    let started = Instant::now();
    let reply = tokio::time::timeout(TOOL_CAP * 3, rig.client.call(tool, args.clone()))
        .await
        .unwrap_or_else(|_| panic!("{tool} {args}: no answer within {:?}", TOOL_CAP * 3))
        .expect("the call reaches the server");
    let took = started.elapsed();
    eprintln!("{tool} {args}: {took:?}, {} bytes", reply.text.len());
    assert!(took < TOOL_CAP, "{tool} {args} took {took:?} under the flood");
    assert!(!reply.is_error, "{tool} {args} failed under the flood: {}", reply.text);
    // The timeline saved for a worker restart stays within the session storage: a save that
    // failed would head every answer.
    assert!(!reply.text.contains("could not save its state"), "{tool} {args}: {}", reply.text);
    reply
}

/// How a navigation answers when the page it loaded could not be read within the read cap
/// (`sightline_core::loading::unread_after_load`): what a starved machine may give the drills.
fn too_busy_to_read() -> String {
    format!("too slowly to be read within {} s", sightline_core::loading::READ_CAP_MS / 1000)
}

#[tokio::test(flavor = "multi_thread")]
async fn under_a_flood_every_tool_answers_within_5_s_and_memory_stays_bounded() {
    let _alone = ONE_FLOOD_AT_A_TIME.lock().await;
    let sockets = WebSocketServer::start().expect("websocket server");
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let devtools = rig.devtools();
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    c.ok("browser_console_messages", json!({})).await;
    let before = measure(&rig, &devtools);
    print("before the flood", &before);

    // The requests go to another host name of the same server, so the page's own reports are not
    // queued behind them.
    let hang = rig.server.url("hang/flood").replace("127.0.0.1", "localhost");
    let url = format!("{}?hang={hang}&ws={}", rig.server.url("faults/flood.html"), sockets.url("flood"));
    let started = Instant::now();
    let page = c.call("browser_navigate", json!({"url": url})).await.expect("the call reaches the server");
    let took = started.elapsed();
    // What the browser side measured of it (load, capture, settle, the whole call in the worker),
    // for a slow one.
    let stats = page.structured.as_ref().map(|s| s["stats"].to_string()).unwrap_or_default();
    eprintln!("browser_navigate to the flood: {took:?}, stats {stats}");
    // The load is capped at 30 s and reading the page after it at 15 s; what is left for the
    // steps before the load and the way to and fro is a few seconds. On a loaded machine the read
    // cap may pass: the answer then says the page was too busy to read, and the snapshots below
    // read it.
    assert!(took < Duration::from_secs(50), "past the load and read caps: {took:?}: {}", page.text);
    assert!(!page.is_error || page.text.contains(&too_busy_to_read()), "{}", page.text);
    // Set in the worker's global: gone if the browser restarts the worker during the flood.
    service_worker::evaluate_in_extension_worker(&devtools, "globalThis.floodMarker = 1").expect("mark the worker");

    // The page starts its requests and sockets ten at a time; the browser's instrumentation of
    // 1.5 MB URLs slows its main thread while it does, so wait (bounded) for all of them.
    let establishing = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_secs(5)).await;
        let snapshot = c.call("browser_snapshot", json!({})).await.expect("the call reaches the server");
        let status = snapshot.text.lines().find(|l| l.contains("Started")).unwrap_or_default().to_owned();
        eprintln!("{:?}: {status}", establishing.elapsed());
        if snapshot.is_error {
            eprintln!("snapshot failed: {}", snapshot.text);
        }
        match service_worker::extension_worker_memory(&devtools) {
            Ok(worker) => eprintln!(
                "  worker JS heap {:.1} MiB, wasm memory {:.1} MiB",
                worker.js_heap_used as f64 / MIB,
                worker.wasm_memory as f64 / MIB
            ),
            Err(e) => eprintln!("  the worker is not measurable now: {e}"),
        }
        if status.contains("Started 1000 requests") {
            break;
        }
        assert!(establishing.elapsed() < ESTABLISH_CAP, "the page never started its requests: {}", snapshot.text);
    }

    let mut peak = Memory { worker_heap: 0, wasm: 0, bridge: 0, mcp: 0 };
    for round in 1..=3 {
        tokio::time::sleep(FLOOD_SETTLE).await;
        eprintln!("round {round}");
        let snapshot = within_cap(&rig, "browser_snapshot", json!({})).await;
        assert!(snapshot.text.contains("# Flood"), "{}", snapshot.text);
        let tap = ref_of(&snapshot, "button", "Tap");
        let console = within_cap(&rig, "browser_console_messages", json!({})).await;
        assert!(console.text.len() < 256 * 1024, "a console listing is paged: {} bytes", console.text.len());
        let network = within_cap(&rig, "browser_network_requests", json!({})).await;
        assert!(network.text.len() < 256 * 1024, "a request listing is paged: {} bytes", network.text.len());
        // The 1.5 MB URLs are listed cut, not whole (the recorder keeps 2,000 characters).
        let big = network.text.lines().find(|l| l.contains("?n=990&")).unwrap_or_else(|| panic!("{}", network.text));
        assert!(big.len() < 4_000, "a 1.5 MB URL is listed cut: {} characters", big.len());
        let changes = within_cap(&rig, "get_changes_since", json!({})).await;
        assert!(changes.text.len() < 256 * 1024, "a change report is bounded: {} bytes", changes.text.len());
        let clicked = within_cap(&rig, "browser_click", json!({"ref": tap})).await;
        assert!(clicked.text.contains(&format!("Taps: {round}")), "the click ran once: {}", clicked.text);

        let now = measure(&rig, &devtools);
        print(&format!("round {round}"), &now);
        peak = Memory {
            worker_heap: peak.worker_heap.max(now.worker_heap),
            wasm: peak.wasm.max(now.wasm),
            bridge: peak.bridge.max(now.bridge),
            mcp: peak.mcp.max(now.mcp),
        };
    }
    print("peak under the flood", &peak);
    // The worker ran through the flood: nothing made the browser stop it.
    let marker = service_worker::evaluate_in_extension_worker(&devtools, "globalThis.floodMarker ?? 0").expect("ask");
    assert_eq!(marker, json!(1), "the browser restarted the extension's worker during the flood");
    assert!(peak.worker_heap < WORKER_HEAP_CAP, "worker JS heap {peak:?}");
    assert!(peak.wasm < WASM_MEMORY_CAP, "wasm memory {peak:?}");
    assert!(peak.bridge < HOST_RSS_CAP && peak.mcp < HOST_RSS_CAP, "host RSS {peak:?}");
    assert!(peak.bridge > 0 && peak.mcp > 0, "both host processes were measured: {peak:?}");
    let hung = rig.server.events().iter().filter(|e| *e == "hang:flood").count();
    eprintln!("requests the server held: {hung}");
    assert!(hung > 0, "the page's requests reached the server: {:?}", rig.server.events().len());
}

/// The consoles `report` (a `get_changes_since` answer) says were paused for flooding: whose (the
/// frame's URL; `None`: the page's own), and the messages and characters each dropped.
fn paused_consoles(report: &Reply) -> Vec<(Option<String>, u64, u64)> {
    let report: Value = serde_json::from_str(&report.text).unwrap_or_else(|e| panic!("{e}: {}", report.text));
    report["console"]["paused"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| {
            let frame = p["frame"].as_str().map(str::to_owned);
            (frame, p["dropped_messages"].as_u64().unwrap_or(0), p["dropped_characters"].as_u64().unwrap_or(0))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flooding_cross_site_frame_and_a_page_throwing_in_a_loop_cannot_stall_the_agent() {
    let _alone = ONE_FLOOD_AT_A_TIME.lock().await;
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;

    // A string of 1 MiB reaches the runtime cut, and the listing says it was.
    rig.open("faults/long-log.html").await;
    let console = within_cap(&rig, "browser_console_messages", json!({})).await;
    let long = console.text.lines().find(|l| l.contains("big:")).unwrap_or_else(|| panic!("{}", console.text));
    assert!(long.contains("[cut: 1048576 characters]"), "the long string is marked cut: {long:.300}");
    assert!(long.len() < 4_000, "the long string is listed cut: {} bytes", long.len());
    assert!(console.text.contains("after the long one"), "{}", console.text);

    let url = rig.server.url("faults/frame-flood.html");
    let started = Instant::now();
    let page = c.call("browser_navigate", json!({"url": url})).await.expect("the call reaches the server");
    let stats = page.structured.as_ref().map(|s| s["stats"].to_string()).unwrap_or_default();
    eprintln!("browser_navigate to the frame flood: {:?}, stats {stats}", started.elapsed());
    // On a loaded machine the page, throwing in a loop beside its flooding frame, may not be read
    // within the 15 s read cap: the answer then says it was too busy to read, and the snapshots
    // below read it.
    assert!(!page.is_error || page.text.contains(&too_busy_to_read()), "{}", page.text);
    assert!(started.elapsed() < Duration::from_secs(30), "past the load cap: {:?}", started.elapsed());
    // The frame of another site runs in a process of its own, reached through its own session.
    let devtools = rig.devtools();
    let deadline = Instant::now() + Duration::from_secs(30);
    while service_worker::attach_to_frame(&devtools, "frame-chatter").is_err() {
        assert!(Instant::now() < deadline, "the chatter frame never ran out of process");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    for round in 1..=3 {
        tokio::time::sleep(FLOOD_SETTLE).await;
        eprintln!("round {round}");
        let snapshot = within_cap(&rig, "browser_snapshot", json!({})).await;
        assert!(snapshot.text.contains("# Frame flood"), "{}", snapshot.text);
        let clicked = within_cap(&rig, "browser_click", json!({"ref": ref_of(&snapshot, "button", "Tap")})).await;
        assert!(clicked.text.contains(&format!("Taps: {round}")), "the click ran once: {}", clicked.text);
        let tapped = format!("tap:{round}");
        assert!(rig.server.wait_for_event(&tapped, TOOL_CAP), "the click reached the page: {:?}", rig.server.events());
        let text = format!("round {round}");
        within_cap(&rig, "browser_type", json!({"ref": ref_named(&snapshot, "Note"), "text": text})).await;
        let typed = format!("note:{text}");
        assert!(rig.server.wait_for_event(&typed, TOOL_CAP), "the typing reached the page: {:?}", rig.server.events());

        // What went unrecorded is said, for the page and for its frame apart.
        let console = within_cap(&rig, "browser_console_messages", json!({})).await;
        assert!(console.text.len() < 256 * 1024, "a console listing is paged: {} bytes", console.text.len());
        let frame_line = console.text.lines().find(|l| l.contains(" dropped") && l.contains("frame-chatter.html"));
        assert!(frame_line.is_some(), "the listing says what the frame's flood lost: {}", console.text);
        let changes = within_cap(&rig, "get_changes_since", json!({})).await;
        assert!(changes.text.len() < 256 * 1024, "a change report is bounded: {} bytes", changes.text.len());
        let paused = paused_consoles(&changes);
        eprintln!("consoles paused since the last report: {paused:?}");
        for (frame, ..) in &paused {
            let named = frame.as_deref().is_none_or(|f| f.contains("frame-chatter.html"));
            assert!(named, "each paused frame is named by its URL: {}", changes.text);
        }
        let frame = paused.iter().find(|(f, ..)| f.as_deref().is_some_and(|f| f.contains("frame-chatter.html")));
        let (_, messages, characters) =
            frame.unwrap_or_else(|| panic!("the frame's pause is reported: {}", changes.text));
        assert!(*messages > 0 && *characters > 0, "what the frame dropped is counted: {}", changes.text);
        if round == 1 {
            // The page itself, throwing and logging 1 MiB strings, was paused too, on its own.
            let (_, messages, characters) = paused
                .iter()
                .find(|(f, ..)| f.is_none())
                .unwrap_or_else(|| panic!("the page's pause is reported: {}", changes.text));
            assert!(*messages > 0 && *characters > 1024 * 1024, "what the page dropped is counted: {}", changes.text);
        }
    }
}
