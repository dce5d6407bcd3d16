//! The bench's results as one value: what was measured (raw, per page and per step), where it
//! ran, and the summaries derived from it (medians, p90s, Sightline's ratios). It is written as
//! `report.json` and rendered by `markdown` as `report.md`; both come from the same value, so
//! the two can never disagree.

use serde::Serialize;

use super::changes::ChangesRun;
use super::corpus::PageResult;
use super::flow::{Flow, FlowRun, Purpose};
use super::machine::Machine;
use super::servers::ServerKind;
use super::stats::{Summary, summarize};
use super::tokens::Size;
use crate::fidelity::CorpusFidelity;
use crate::paths::Corpus;

/// Everything one bench run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Whether this was a `--quick` run.
    pub quick: bool,
    /// Where it ran.
    pub machine: Machine,
    /// The servers and their versions.
    pub servers: Vec<ServerInfo>,
    /// Snapshot sizes over each corpus, each apart.
    pub corpora: Vec<CorpusSection>,
    /// The scripted flow.
    pub flow: FlowSection,
    /// `tools/list` footprints.
    pub tools: Vec<ToolsFootprint>,
    /// Reading errors after the tracking page's scripted failures.
    pub changes: Option<ChangesRun>,
    /// Sightline's worker memory over many fresh snapshots of a large page.
    pub memory: Option<super::memory::MemoryRun>,
    /// Summaries per server over the pages of every corpus and the flow (wall time, flow
    /// tokens), derived from the raw results above.
    pub summaries: Vec<ServerSummary>,
    /// Wall time of the whole bench, in seconds.
    pub seconds: f64,
}

/// One server.
#[derive(Debug, Clone, Serialize)]
pub struct ServerInfo {
    /// Which.
    pub server: ServerKind,
    /// Display name.
    pub label: String,
    /// Exact version.
    pub version: String,
    /// How often it was restarted after a failure.
    pub restarts: usize,
}

/// One corpus.
#[derive(Debug, Serialize)]
pub struct CorpusSection {
    /// Which corpus.
    pub corpus: Corpus,
    /// Why the corpus was not measured, if it was not.
    pub skipped: Option<String>,
    /// The cases measured.
    pub cases: Vec<String>,
    /// Per server, one result per case, in case order.
    pub results: Vec<ServerPages>,
    /// Per server, over this corpus's pages, derived from `results`.
    pub summaries: Vec<ServerSummary>,
    /// Sightline's snapshot tokens relative to each peer's, over this corpus.
    pub ratios: Vec<Ratio>,
    /// Sightline's fidelity over this corpus's cases, measured on their captures.
    pub fidelity: Option<CorpusFidelity>,
    /// Cases without a capture to measure fidelity on.
    pub fidelity_missing: Vec<String>,
}

/// One server's pages.
#[derive(Debug, Serialize)]
pub struct ServerPages {
    /// Which server.
    pub server: ServerKind,
    /// One per case.
    pub pages: Vec<PageResult>,
}

impl CorpusSection {
    /// An empty section for `corpus`.
    pub fn new(corpus: Corpus) -> Self {
        CorpusSection {
            corpus,
            skipped: None,
            cases: Vec::new(),
            results: Vec::new(),
            summaries: Vec::new(),
            ratios: Vec::new(),
            fidelity: None,
            fidelity_missing: Vec::new(),
        }
    }

    /// Derives the summaries and ratios from the results.
    pub fn summarize(&mut self) {
        self.summaries = summarize_servers(&[&*self], None);
        self.ratios = ratios(self);
    }

    /// The result of `server` on `case`.
    pub fn result(&self, server: ServerKind, case: &str) -> Option<&PageResult> {
        self.results.iter().find(|r| r.server == server)?.pages.iter().find(|p| p.case == case)
    }

    fn pages(&self, server: ServerKind) -> &[PageResult] {
        self.results.iter().find(|r| r.server == server).map(|r| r.pages.as_slice()).unwrap_or_default()
    }
}

/// The flow part.
#[derive(Debug, Serialize)]
pub struct FlowSection {
    /// The flow as run.
    pub flow: Flow,
    /// One run per server.
    pub runs: Vec<FlowRun>,
    /// Sightline's flow answered with the full page at every step, for comparison.
    pub sightline_full_pages: Option<super::flow::FullPageRun>,
}

/// The `tools/list` footprint of one server.
#[derive(Debug, Serialize)]
pub struct ToolsFootprint {
    /// Which server.
    pub server: ServerKind,
    /// How many tools.
    pub tools: Option<usize>,
    /// The size of the JSON `tools` array.
    pub size: Option<Size>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// Medians and p90s of one server.
#[derive(Debug, Serialize)]
pub struct ServerSummary {
    /// Which server.
    pub server: ServerKind,
    /// Corpus pages with a snapshot.
    pub pages_ok: usize,
    /// Corpus pages without one.
    pub pages_failed: usize,
    /// Snapshot tokens over the pages with a snapshot.
    pub snapshot_tokens: Option<Summary>,
    /// Snapshot characters over the same pages.
    pub snapshot_chars: Option<Summary>,
    /// Navigation wall time over the corpus (ms).
    pub navigate_ms: Option<Summary>,
    /// Wall time until the agent holds the page after a navigation, over the corpus (ms): see
    /// [`page_in_hand_ms`].
    pub page_in_hand_ms: Option<Summary>,
    /// Snapshot wall time over the corpus (ms).
    pub snapshot_ms: Option<Summary>,
    /// Wall time of a snapshot of a page changed since the last look, over the corpus (ms).
    pub changed_snapshot_ms: Option<Summary>,
    /// Action wall time over the flow's clicks, selections and typing (ms).
    pub action_ms: Option<Summary>,
    /// Tokens of the whole flow.
    pub flow_tokens: Option<usize>,
}

/// Sightline's snapshot tokens against one peer's, over the pages both snapshotted.
#[derive(Debug, Serialize)]
pub struct Ratio {
    /// The peer.
    pub peer: ServerKind,
    /// Pages both servers snapshotted.
    pub pages: usize,
    /// Median of Sightline / peer per page.
    pub median: f64,
    /// 90th percentile of Sightline / peer per page.
    pub p90: f64,
    /// Sightline's total over the peer's total.
    pub total: f64,
}

/// Derives the per-server summaries over the pages of `corpora` and the `flow`.
pub fn summarize_servers(corpora: &[&CorpusSection], flow: Option<&FlowSection>) -> Vec<ServerSummary> {
    ServerKind::ALL
        .iter()
        .map(|&server| {
            let pages: Vec<&PageResult> = corpora.iter().flat_map(|c| c.pages(server)).collect();
            let sizes: Vec<Size> = pages.iter().filter_map(|p| p.snapshot.size()).collect();
            let run = flow.and_then(|f| f.runs.iter().find(|r| r.server == server));
            let actions: Vec<f64> = run
                .map(|r| {
                    r.steps
                        .iter()
                        .filter(|s| !s.navigation)
                        .flat_map(|s| s.calls.iter().filter(|c| c.purpose == Purpose::Step).map(|c| c.ms))
                        .collect()
                })
                .unwrap_or_default();
            ServerSummary {
                server,
                pages_ok: sizes.len(),
                pages_failed: pages.len() - sizes.len(),
                snapshot_tokens: summarize(&sizes.iter().map(|s| s.tokens as f64).collect::<Vec<_>>()),
                snapshot_chars: summarize(&sizes.iter().map(|s| s.chars as f64).collect::<Vec<_>>()),
                navigate_ms: summarize(&pages.iter().filter_map(|p| p.navigate.ms()).collect::<Vec<_>>()),
                page_in_hand_ms: summarize(&pages.iter().filter_map(|p| page_in_hand_ms(p)).collect::<Vec<_>>()),
                snapshot_ms: summarize(&pages.iter().filter_map(|p| p.snapshot.ms()).collect::<Vec<_>>()),
                changed_snapshot_ms: summarize(
                    &pages.iter().filter_map(|p| p.changed_snapshot.ms()).collect::<Vec<_>>(),
                ),
                action_ms: summarize(&actions),
                flow_tokens: run.map(FlowRun::tokens),
            }
        })
        .collect()
}

/// How long a page took to be in the agent's hands after its navigation started (ms): the
/// navigation alone when its answer carried the page (at least nine tenths of the snapshot's
/// tokens, as Sightline's does), else the navigation and the snapshot read after it, as an agent
/// of a server whose navigation answers without the page must ask for it. `None` when either
/// call did not answer.
pub fn page_in_hand_ms(page: &PageResult) -> Option<f64> {
    let navigate = page.navigate.ms()?;
    let carried = matches!(
        (page.navigate.size(), page.snapshot.size()),
        (Some(answer), Some(snapshot)) if answer.tokens * 10 >= snapshot.tokens * 9
    );
    if carried { Some(navigate) } else { Some(navigate + page.snapshot.ms()?) }
}

/// Sightline's median wall time over the faster peer's (the one with the lower median), with
/// that peer, for navigate, the page in hand after navigating, snapshot, changed-page snapshot
/// and action, in that order.
pub fn to_faster_peer(summaries: &[ServerSummary]) -> [Option<(f64, ServerKind)>; 5] {
    let median = |s: &ServerSummary, which: usize| {
        [s.navigate_ms, s.page_in_hand_ms, s.snapshot_ms, s.changed_snapshot_ms, s.action_ms][which].map(|x| x.median)
    };
    std::array::from_fn(|which| {
        let ours = summaries.iter().find(|s| s.server == ServerKind::Sightline).and_then(|s| median(s, which))?;
        let (theirs, peer) = summaries
            .iter()
            .filter(|s| s.server != ServerKind::Sightline)
            .filter_map(|s| Some((median(s, which)?, s.server)))
            .min_by(|a, b| a.0.total_cmp(&b.0))?;
        (theirs > 0.0).then_some((ours / theirs, peer))
    })
}

/// [`to_faster_peer`] written out (`0.87 (chrome-devtools-mcp)`, `—` when unmeasured): a row per
/// corpus measured, then one over every page and the flow.
pub fn faster_peer_rows(r: &Report) -> Vec<(String, [String; 5])> {
    let written = |summaries: &[ServerSummary]| {
        to_faster_peer(summaries)
            .map(|x| x.map(|(x, peer)| format!("{x:.2} ({})", peer.label())).unwrap_or_else(|| "—".to_owned()))
    };
    let corpora = r.corpora.iter().filter(|c| c.skipped.is_none() && !c.cases.is_empty());
    corpora
        .map(|c| (format!("{} corpus", c.corpus.name()), written(&c.summaries)))
        .chain(std::iter::once(("every page and the flow".to_owned(), written(&r.summaries))))
        .collect()
}

/// Derives Sightline's ratios to each peer.
pub fn ratios(corpus: &CorpusSection) -> Vec<Ratio> {
    let mut out = Vec::new();
    for peer in [ServerKind::Playwright, ServerKind::Devtools] {
        let pairs: Vec<(f64, f64)> = corpus
            .cases
            .iter()
            .filter_map(|case| {
                let ours = corpus.result(ServerKind::Sightline, case)?.snapshot.size()?;
                let theirs = corpus.result(peer, case)?.snapshot.size()?;
                (theirs.tokens > 0).then_some((ours.tokens as f64, theirs.tokens as f64))
            })
            .collect();
        let per_page: Vec<f64> = pairs.iter().map(|(a, b)| a / b).collect();
        if let Some(s) = summarize(&per_page) {
            let (ours, theirs) = pairs.iter().fold((0.0, 0.0), |(x, y), (a, b)| (x + a, y + b));
            out.push(Ratio { peer, pages: s.count, median: s.median, p90: s.p90, total: ours / theirs });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::corpus::Outcome;
    use crate::bench::tokens::Size;

    fn answered(tokens: usize, ms: f64) -> Outcome {
        Outcome::Ok { size: Size { tokens, chars: tokens * 4 }, ms, calls: 1 }
    }

    fn page(navigate: Outcome, snapshot: Outcome) -> PageResult {
        let changed_snapshot = answered(1, 1.0);
        PageResult { case: "page".into(), navigate, snapshot, changed_snapshot, extras: Vec::new(), parts: None }
    }

    #[test]
    fn the_page_is_in_hand_after_a_navigation_that_answers_with_it_else_after_the_snapshot_too() {
        // Sightline: the navigation's answer is the page.
        assert_eq!(page_in_hand_ms(&page(answered(5_094, 450.0), answered(5_017, 35.0))), Some(450.0));
        // A peer: the navigation answers in a line; the page comes with the snapshot after it.
        assert_eq!(page_in_hand_ms(&page(answered(58, 390.0), answered(11_142, 80.0))), Some(470.0));
        // A navigation that failed holds no page: the snapshot after it is needed too.
        let failed = Outcome::Failed { error: "busy".into(), ms: Some(16_000.0) };
        assert_eq!(page_in_hand_ms(&page(failed, answered(900, 60.0))), Some(16_060.0));
        // No snapshot answer: no page in hand to time.
        let unanswered = Outcome::Failed { error: "gone".into(), ms: None };
        assert_eq!(page_in_hand_ms(&page(answered(58, 390.0), unanswered)), None);
    }
}
