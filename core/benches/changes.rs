//! Cost of a change report on a busy page: 1,000 console entries, 100 requests, 500 WebSocket
//! events and 50 actions recorded after a checkpoint. Measures the whole report, each section
//! alone, resolving the reference, and the one-line response summary.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_main};
use sightline_core::changes::{
    ActionEntry, ActionKind, Actor, ConsoleEntry, ConsoleLevel, NetworkEntry, SourceLocation, Timeline, WebSocketEvent,
    WebSocketEventKind,
};
use sightline_core::protocol::{ChangesParams, Section};

/// 2025-01-02T03:04:05.000Z
const T0: u64 = 1_735_787_045_000;
const CHECKPOINT: &str = "before_refactor";

/// A timeline with some history, a named checkpoint, and the workload recorded after it.
fn busy_timeline() -> Timeline {
    let mut timeline = Timeline::new();
    for n in 0..40u64 {
        timeline.record_network(request(n, T0 - 10_000 + n));
    }
    timeline.create_checkpoint(CHECKPOINT, T0).expect("checkpoint");
    for n in 0..1000u64 {
        let (level, text) = match n % 10 {
            0 => (
                ConsoleLevel::Error,
                format!("TypeError: cannot read properties of undefined (reading 'item{}')", n % 7),
            ),
            1 => (
                ConsoleLevel::Error,
                format!("Failed to load order {} for user 5f0c{:04x}-1d2e-4f3a-9b8c-0123456789ab", 100_000 + n, n),
            ),
            2 => (
                ConsoleLevel::Warning,
                format!("[Deprecation] Listener added to a scroll-blocking event ({} ms)", 1000 + n),
            ),
            3 => (ConsoleLevel::Log, "[vite] hot updated: /src/App.tsx".to_owned()),
            _ => (ConsoleLevel::Log, format!("render pass {n} finished")),
        };
        timeline.record_console(ConsoleEntry {
            level,
            text,
            source: Some(SourceLocation {
                url: "https://shop.test/assets/index-3f2a1b.js".into(),
                line: 1,
                column: 9000 + n as u32 % 50,
            }),
            time_ms: T0 + n,
            tab: 1,
        });
    }
    for n in 0..100u64 {
        timeline.record_network(request(n, T0 + 1000 + n));
    }
    for n in 0..500u64 {
        let kind = match n % 50 {
            0 => WebSocketEventKind::Created,
            1 => WebSocketEventKind::Handshake { status: 101 },
            49 => WebSocketEventKind::Closed { code: Some(1006), reason: None },
            k if k.is_multiple_of(2) => WebSocketEventKind::FrameSent,
            _ => WebSocketEventKind::FrameReceived,
        };
        timeline.record_websocket(WebSocketEvent {
            connection: format!("ws-{}", n / 50),
            url: "wss://shop.test/live?token=abc".into(),
            kind,
            time_ms: T0 + 2000 + n,
            tab: 1,
        });
    }
    for n in 0..50u64 {
        timeline.record_action(ActionEntry {
            kind: if n.is_multiple_of(5) { ActionKind::Navigate } else { ActionKind::Click },
            by: if n.is_multiple_of(7) { Actor::User } else { Actor::Agent },
            description: format!("click e{n} button \"Add to basket\""),
            url: Some(format!("https://shop.test/product/{}", n / 5)),
            time_ms: T0 + 3000 + n,
            tab: 1,
        });
    }
    timeline
}

fn request(n: u64, at: u64) -> NetworkEntry {
    let endpoint = n % 20;
    let failing = at > T0 && endpoint == 3;
    NetworkEntry {
        method: if endpoint.is_multiple_of(4) { "POST" } else { "GET" }.into(),
        url: format!("https://shop.test/api/v1/resource{endpoint}/{}?page={n}", 10_000 + n),
        status: if failing { 500 } else { 200 },
        error: None,
        duration_ms: if at > T0 && endpoint == 7 { 900 } else { 40 + n % 30 },
        encoded_bytes: 2048,
        resource_type: Some("Fetch".into()),
        time_ms: at,
        tab: 1,
    }
}

fn since(checkpoint: &str) -> ChangesParams {
    ChangesParams { checkpoint: Some(checkpoint.into()), ..ChangesParams::default() }
}

fn bench_changes(c: &mut Criterion) {
    let mut timeline = busy_timeline();
    let report = timeline.changes_since("bench", &since(CHECKPOINT), T0 + 5000).expect("report");
    eprintln!("report: {} bytes, {} tokens, summary: {}", report.json_len(), report.tokens, report.summary);

    let mut group = c.benchmark_group("changes_since");
    group.bench_function("named_checkpoint_all_sections", |b| {
        b.iter(|| timeline.changes_since("bench", black_box(&since(CHECKPOINT)), T0 + 5000).expect("report"))
    });
    group.bench_function("auto_checkpoint_first_call", |b| {
        b.iter_batched(
            busy_timeline,
            |mut fresh| fresh.changes_since("bench", &ChangesParams::default(), T0 + 5000).expect("report"),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("iso_time_reference", |b| {
        b.iter(|| {
            timeline.changes_since("bench", black_box(&since("2025-01-02T03:04:05Z")), T0 + 5000).expect("report")
        })
    });
    for section in Section::ALL {
        let params = ChangesParams { include: Some(vec![section]), ..since(CHECKPOINT) };
        group.bench_function(format!("only_{}", section.name()), |b| {
            b.iter(|| timeline.changes_since("bench", black_box(&params), T0 + 5000).expect("report"))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("resolve");
    group.bench_function("named", |b| b.iter(|| timeline.resolve(black_box(Some(CHECKPOINT))).expect("resolves")));
    group.bench_function("iso_time", |b| {
        b.iter(|| timeline.resolve(black_box(Some("2025-01-02T03:04:05.250+01:00"))).expect("resolves"))
    });
    group.bench_function("auto", |b| b.iter(|| timeline.resolve(black_box(None)).expect("resolves")));
    group.finish();

    c.bench_function("last_response_line_first_call", |b| {
        b.iter_batched(busy_timeline, |mut fresh| fresh.last_response_line("bench"), BatchSize::LargeInput)
    });
}

/// Criterion's entry points (its macro defines a public function without documentation).
#[allow(missing_docs)]
mod entry {
    criterion::criterion_group!(benches, super::bench_changes);
}
criterion_main!(entry::benches);
