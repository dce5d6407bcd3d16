//! Where the built artefacts and the shared corpus are.

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from).unwrap_or_default()
}

/// The `sightline-host` binary under test.
pub fn host_binary() -> PathBuf {
    std::env::var_os("SIGHTLINE_HOST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/release/sightline-host"))
}

/// The assembled unpacked extension.
pub fn extension_dir() -> PathBuf {
    std::env::var_os("SIGHTLINE_EXTENSION_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/extension"))
}

/// The Chromium binary.
pub fn chromium() -> PathBuf {
    std::env::var_os("SIGHTLINE_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// The Python virtual environment holding the MCP Python SDK (`cargo xtask test` makes it).
pub fn python_client_dir() -> PathBuf {
    std::env::var_os("SIGHTLINE_PYTHON_CLIENT")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/python-client"))
}

/// The release packages under test: `SIGHTLINE_DIST_DIR` (`cargo xtask test` packages the host
/// it tests there), else `target/dist/`, where `cargo xtask dist` writes them.
pub fn dist_dir() -> PathBuf {
    std::env::var_os("SIGHTLINE_DIST_DIR").map(PathBuf::from).unwrap_or_else(|| workspace_root().join("target/dist"))
}

/// Fixture pages of the end-to-end tests.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("tests/fixtures")
}

/// The shared readability corpus (`../shared/corpus/readability`), if present.
pub fn corpus_dir() -> Option<PathBuf> {
    Corpus::Readability.dir()
}

/// A corpus of saved real pages under `../shared/corpus/`, served from 127.0.0.1 for the
/// fidelity gate and the bench. The pages are never copied into the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Corpus {
    /// Mozilla readability's test pages: one directory per page with its `source.html`.
    Readability,
    /// Trafilatura's test pages (news, blogs and shops in German, English and French): one
    /// `<name>.html` file per page.
    Trafilatura,
}

impl Corpus {
    /// Every corpus, in the order reports list them.
    pub const ALL: [Corpus; 2] = [Corpus::Readability, Corpus::Trafilatura];

    /// Its name, as under `../shared/corpus/`.
    pub fn name(self) -> &'static str {
        match self {
            Corpus::Readability => "readability",
            Corpus::Trafilatura => "trafilatura",
        }
    }

    /// The environment variable that points at it elsewhere.
    pub fn env_var(self) -> &'static str {
        match self {
            Corpus::Readability => "SIGHTLINE_CORPUS",
            Corpus::Trafilatura => "SIGHTLINE_CORPUS_TRAFILATURA",
        }
    }

    /// Its directory (the environment variable, else `../shared/corpus/<name>` beside the
    /// workspace), if present.
    pub fn dir(self) -> Option<PathBuf> {
        let dir = std::env::var_os(self.env_var())
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace_root().join("../shared/corpus").join(self.name()));
        dir.is_dir().then_some(dir)
    }

    /// Where it is expected, for messages.
    pub fn expected_at(self) -> String {
        format!("../shared/corpus/{} (or set {})", self.name(), self.env_var())
    }

    /// Its pages (case names), sorted.
    pub fn cases(self, dir: &std::path::Path) -> std::io::Result<Vec<String>> {
        let mut cases = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            match self {
                Corpus::Readability if path.join("source.html").is_file() => cases.push(name),
                Corpus::Trafilatura if path.is_file() => {
                    if let Some(stem) = name.strip_suffix(".html") {
                        cases.push(stem.to_owned());
                    }
                }
                _ => {}
            }
        }
        cases.sort();
        Ok(cases)
    }

    /// The path of page `case` relative to the corpus directory (and so in its URL).
    pub fn page(self, case: &str) -> String {
        match self {
            Corpus::Readability => format!("{case}/source.html"),
            Corpus::Trafilatura => format!("{case}.html"),
        }
    }

    /// Where `cargo xtask test` (or `cargo xtask capture --corpus NAME --all`) keeps the
    /// captures of every page, one `<case>.json` each. The readability corpus keeps the
    /// directory it had when it was the only corpus.
    pub fn captures_dir(self) -> PathBuf {
        let name = match self {
            Corpus::Readability => "corpus-all",
            Corpus::Trafilatura => "corpus-trafilatura",
        };
        workspace_root().join("target/captures").join(name)
    }
}

/// Whether this run is CI's (`CI=true`), where a missing corpus is a failure rather than a
/// reason to skip: a gate that passes by skipping guards nothing.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Skips (returns `false`, saying why) when `what` is absent outside CI; fails under CI.
pub fn present_or_skip(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(!in_ci(), "{what} is missing, and under CI=true a missing corpus fails the run instead of skipping");
    eprintln!("skipped: {what} is missing (outside CI this is allowed; under CI=true it fails)");
    false
}

/// Panics with the command that fixes it unless the artefacts exist.
pub fn require_artefacts() {
    let host = host_binary();
    let ext = extension_dir();
    assert!(
        host.is_file() && ext.join("manifest.json").is_file() && chromium().is_file(),
        "end-to-end tests need {} , {} and {}: run `cargo xtask test` (it builds them and installs Chromium)",
        host.display(),
        ext.display(),
        chromium().display()
    );
}
