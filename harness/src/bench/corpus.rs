//! Snapshot size over a corpus of real pages: for each saved page, every server navigates to it
//! and then reads it with its snapshot tool; the bench records the tokens and characters of the
//! snapshot reply's text, and the wall time of both calls.
//!
//! A page a server fails on is recorded with the error, never dropped. After a call that runs
//! out of time or breaks the connection the server is restarted, so one bad page costs one page.

use std::path::{Path, PathBuf};

use crate::FixtureServer;
use crate::paths::Corpus;
use serde::Serialize;

use super::extensions::{self, ExtraColumn, PageProbe};
use super::parts::PageParts;
use super::replies::Replies;
use super::servers::{Server, ServerKind, Timed};
use super::tokens::{Size, Tokenizer};

/// The `--quick` subset: fifteen pages chosen to vary in size (25 KB to 1.2 MB of HTML), kind
/// (news, blogs, reference, specs, tables, forums) and script (Latin, Japanese, Chinese), so a
/// quick run shows the same spread as the full one in a fraction of the time.
pub const QUICK_CASES: [&str; 15] = [
    "hukumusume",        // 25 KB, Japanese children's stories, tiny layout
    "v8-blog",           // 33 KB, engineering blog post
    "ars-1",             // 56 KB, news article
    "keep-tabular-data", // 64 KB, data tables
    "ietf-1",            // 65 KB, plain-text specification
    "lwn-1",             // 87 KB, news site with dense navigation
    "medium-1",          // 120 KB, blogging platform
    "links-in-tables",   // 132 KB, layout tables full of links
    "mathjax",           // 202 KB, documentation with formulas
    "wikipedia",         // 244 KB, encyclopedia article
    "cnn",               // 259 KB, news front matter and article
    "bbc-1",             // 264 KB, news article with large menus
    "nytimes-1",         // 309 KB, news article
    "qq",                // 320 KB, Chinese news portal
    "guardian-1",        // 1.2 MB, large news page
];

/// The cases to measure: every page of `corpus` (at `dir`), sorted; with `quick`, the quick
/// subset of the readability corpus and none of the others.
pub fn cases(corpus: Corpus, dir: &Path, quick: bool) -> anyhow::Result<Vec<String>> {
    if quick {
        if corpus != Corpus::Readability {
            return Ok(Vec::new());
        }
        let missing: Vec<&str> = QUICK_CASES.iter().copied().filter(|c| !dir.join(corpus.page(c)).is_file()).collect();
        anyhow::ensure!(missing.is_empty(), "the corpus at {} lacks quick cases {missing:?}", dir.display());
        return Ok(QUICK_CASES.iter().map(|c| (*c).to_owned()).collect());
    }
    Ok(corpus.cases(dir)?)
}

/// How one call went.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The tool answered without an error.
    Ok {
        /// The size of the reply's text.
        size: Size,
        /// Wall time.
        ms: f64,
        /// Calls it took (a snapshot read in pages takes one per page).
        calls: usize,
    },
    /// The tool reported an error, ran out of time, or the connection failed.
    Failed {
        /// What went wrong (the tool's own message, shortened).
        error: String,
        /// Wall time, when the tool answered at all.
        ms: Option<f64>,
    },
}

impl Outcome {
    fn from_call(call: Result<&Timed, &anyhow::Error>, tokenizer: &Tokenizer) -> Self {
        match call {
            Ok(t) if !t.reply.is_error => {
                Outcome::Ok { size: Size::of(tokenizer, &t.reply.text), ms: millis(t), calls: t.calls }
            }
            Ok(t) => Outcome::Failed { error: shorten(&t.reply.text), ms: Some(millis(t)) },
            Err(e) => Outcome::Failed { error: shorten(&format!("{e:#}")), ms: None },
        }
    }

    /// The size, when the call succeeded.
    pub fn size(&self) -> Option<Size> {
        match self {
            Outcome::Ok { size, .. } => Some(*size),
            Outcome::Failed { .. } => None,
        }
    }

    /// The wall time, when the tool answered.
    pub fn ms(&self) -> Option<f64> {
        match self {
            Outcome::Ok { ms, .. } => Some(*ms),
            Outcome::Failed { ms, .. } => *ms,
        }
    }

    /// The error, when the call failed.
    pub fn error(&self) -> Option<&str> {
        match self {
            Outcome::Ok { .. } => None,
            Outcome::Failed { error, .. } => Some(error),
        }
    }
}

/// One server on one page.
#[derive(Debug, Clone, Serialize)]
pub struct PageResult {
    /// The corpus case.
    pub case: String,
    /// The navigation (its reply's size, for reference: Sightline's already holds the page).
    pub navigate: Outcome,
    /// The snapshot: the measured value.
    pub snapshot: Outcome,
    /// A snapshot after the bench changed the page since that one (`Server::change_page`), so
    /// no capture can be used again: what a look costs on a page that moved on.
    pub changed_snapshot: Outcome,
    /// Extra columns from [`extensions::sightline_page_extras`].
    pub extras: Vec<ExtraColumn>,
    /// Where Sightline's snapshot tokens go, against the page's visible text (Sightline only,
    /// on a page with a recorded capture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<PageParts>,
}

/// One server measuring corpus pages, one page at a time, so the bench can take turns between
/// servers page by page.
pub struct Measurer {
    kind: ServerKind,
    /// The server, running (`None` once a restart failed).
    current: Option<Server>,
    /// Why the server is gone, for the pages it can no longer measure.
    broken: String,
    /// How often the server was restarted after a failure.
    pub restarts: usize,
}

impl Measurer {
    /// Starts measuring with `server`.
    pub fn new(server: Server) -> Measurer {
        Measurer { kind: server.kind(), current: Some(server), broken: String::new(), restarts: 0 }
    }

    /// Which server this is.
    pub fn kind(&self) -> ServerKind {
        self.kind
    }

    /// Hands the server back (`None` when a restart failed).
    pub fn into_server(self) -> Option<Server> {
        self.current
    }

    /// Measures one corpus page (served by `site` from `dir`), restarting the server after a
    /// call that ran out of time or lost the connection. `progress` names the page in the log.
    #[allow(clippy::too_many_arguments)]
    pub async fn page(
        &mut self,
        corpus: Corpus,
        site: &FixtureServer,
        dir: &Path,
        case: &str,
        progress: &str,
        tokenizer: &Tokenizer,
        replies: &Replies,
    ) -> PageResult {
        let kind = self.kind;
        let Some(server) = self.current.as_ref() else {
            let failed = Outcome::Failed { error: self.broken.clone(), ms: None };
            return PageResult {
                case: case.to_owned(),
                navigate: failed.clone(),
                snapshot: failed.clone(),
                changed_snapshot: failed,
                extras: Vec::new(),
                parts: None,
            };
        };
        let url = site.url(&corpus.page(case));
        let navigated = server.navigate(&url).await;
        let navigate = Outcome::from_call(navigated.as_ref(), tokenizer);
        let snapped = if navigated.is_ok() { Some(server.snapshot().await) } else { None };
        let snapshot = match &snapped {
            Some(call) => Outcome::from_call(call.as_ref(), tokenizer),
            None => Outcome::Failed { error: "not taken: the navigation failed".to_owned(), ms: None },
        };
        if let Some(Ok(timed)) = &snapped {
            replies.save(kind, "corpus", case, &timed.reply.text);
        }
        let mut extras = Vec::new();
        let mut parts = None;
        if let (ServerKind::Sightline, Some(Ok(timed))) = (kind, &snapped)
            && !timed.reply.is_error
        {
            parts = super::parts::of_reply(corpus, case, &timed.reply.text, tokenizer);
        }
        if let (ServerKind::Sightline, Some(Ok(timed))) = (kind, &snapped) {
            let source: PathBuf = dir.join(corpus.page(case));
            let wall_ms = (timed.calls == 1).then(|| millis(timed));
            let navigate = navigated.as_ref().ok().filter(|n| n.calls == 1).map(|n| (&n.reply, millis(n)));
            let probe = PageProbe {
                server,
                corpus,
                case,
                url: &url,
                source: &source,
                snapshot: &timed.reply,
                wall_ms,
                navigate,
            };
            extras = extensions::sightline_page_extras(&probe).await;
        }
        // After the extras, which read the page as the snapshot showed it.
        let mut changed_lost = false;
        let changed_snapshot = match &snapped {
            Some(Ok(timed)) if !timed.reply.is_error => match server.change_page(&url).await {
                Ok(()) => {
                    let call = server.snapshot().await;
                    changed_lost = call.is_err();
                    if let (ServerKind::Sightline, Ok(changed)) = (kind, &call) {
                        let wall_ms = (changed.calls == 1).then(|| millis(changed));
                        extras.extend(extensions::changed_page_extras(&changed.reply, wall_ms));
                    }
                    Outcome::from_call(call.as_ref(), tokenizer)
                }
                Err(e) => {
                    Outcome::Failed { error: shorten(&format!("the page could not be changed: {e:#}")), ms: None }
                }
            },
            _ => Outcome::Failed { error: "not taken: there was no snapshot before it".to_owned(), ms: None },
        };
        let progress = format!("bench: {} {progress}", kind.label());
        match (snapshot.size(), snapshot.error()) {
            (Some(size), _) => eprintln!("{progress}: {} tokens", size.tokens),
            (None, error) => eprintln!("{progress}: failed: {}", error.unwrap_or_default()),
        }
        let connection_lost = navigated.is_err() || matches!(snapped, Some(Err(_))) || changed_lost;
        if connection_lost && let Some(old) = self.current.take() {
            self.restarts += 1;
            match old.restart().await {
                Ok(fresh) => self.current = Some(fresh),
                Err(e) => self.broken = format!("not measured: {} could not be restarted: {e:#}", kind.label()),
            }
        }
        PageResult { case: case.to_owned(), navigate, snapshot, changed_snapshot, extras, parts }
    }
}

/// Milliseconds of a call, to a tenth.
pub fn millis(t: &Timed) -> f64 {
    (t.elapsed.as_secs_f64() * 10_000.0).round() / 10.0
}

/// An error message cut to a readable length for the report.
pub fn shorten(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}
