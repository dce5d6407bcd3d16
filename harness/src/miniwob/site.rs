//! Where MiniWoB++'s task pages are on disk: the `miniwob` 1.1.0 wheel from PyPI, unpacked
//! under `target/tasks/` by `cargo xtask tasks` (and by `cargo xtask test`). Only its HTML,
//! scripts and images are used; none of its Python code ever runs.

use std::path::PathBuf;

use crate::paths;

/// The wheel's version, pinned: task pages differ between releases.
pub const VERSION: &str = "1.1.0";

/// The wheel's file name on PyPI.
pub fn wheel_name() -> String {
    format!("miniwob-{VERSION}-py3-none-any.whl")
}

/// The directory the wheel is fetched into and unpacked under.
pub fn tasks_dir() -> PathBuf {
    paths::workspace_root().join("target/tasks")
}

/// The served root: `core/`, `common/` and `miniwob/<task>.html` sit under it. Overridden by
/// `SIGHTLINE_MINIWOB_HTML`.
pub fn html_dir() -> PathBuf {
    std::env::var_os("SIGHTLINE_MINIWOB_HTML")
        .map(PathBuf::from)
        .unwrap_or_else(|| tasks_dir().join(format!("miniwob-{VERSION}/miniwob/html")))
}

/// Whether the task pages are there.
pub fn present() -> bool {
    html_dir().join("core/core.js").is_file()
}

/// The path of `task`'s page relative to [`html_dir`].
pub fn task_path(task: &str) -> String {
    format!("miniwob/{task}.html")
}

/// Every task the wheel ships, sorted.
pub fn all_tasks() -> anyhow::Result<Vec<String>> {
    let mut tasks: Vec<String> = std::fs::read_dir(html_dir().join("miniwob"))?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".html").map(str::to_owned))
        .collect();
    tasks.sort();
    Ok(tasks)
}
