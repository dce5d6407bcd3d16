//! Checks on the paths an agent gives `browser_file_upload`, made here because the extension
//! cannot look at the file system. Paths come from the agent, and the agent is steered by what
//! pages write, so a page could ask it for the user's keys, or for an ordinary-looking file
//! that is a link to them.
//!
//! Each path is checked as named ([`rules::check_text`], then [`rules::check_place`]), then
//! resolved, links and all, and what it resolves to is checked again: only an existing,
//! readable, regular file in an ordinary place passes. The browser is handed the *resolved*
//! path, so what was checked is what it reads, even if a link is changed afterwards.

mod rules;

use std::path::Path;

use rules::{Homes, Refusal};

use crate::platform::Os;

/// Most files one call may choose.
const MOST_FILES: usize = 100;

/// The resolved paths to hand the browser, or the reason the paths cannot be uploaded, worded
/// for the agent.
pub fn check(paths: &[String]) -> Result<Vec<String>, String> {
    check_on(Os::CURRENT, &Homes::current(), paths)
}

/// [`check`] with the user's directories given.
fn check_on(os: Os, homes: &Homes, paths: &[String]) -> Result<Vec<String>, String> {
    if paths.len() > MOST_FILES {
        return Err(format!("browser_file_upload takes at most {MOST_FILES} files, not {}", paths.len()));
    }
    let resolved_homes = homes.resolved();
    paths.iter().map(|p| check_one(os, &[homes, &resolved_homes], p)).collect()
}

/// The resolved path of `text`, or why it is refused.
fn check_one(os: Os, homes: &[&Homes], text: &str) -> Result<String, String> {
    let quoted = serde_json::Value::from(text).to_string();
    let named = |r: Refusal| match r {
        Refusal::NotAbsolute => {
            let example = if os == Os::Windows { r"C:\Users\me\report.pdf" } else { "/home/me/report.pdf" };
            format!("{}, such as {example}", r.describe(&quoted, false))
        }
        r => r.describe(&quoted, false),
    };
    // Nothing is asked of the file system about a path refused as named: on Windows, even
    // looking at a network path would connect to that computer.
    rules::check_text(os, text).map_err(named)?;
    rules::check_place(os, text, homes).map_err(named)?;
    let resolved = std::fs::canonicalize(text).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no file at {quoted} (or it is a link to nothing)"),
        _ => format!("{quoted} cannot be read: {e}"),
    })?;
    let resolved = resolved.to_str().ok_or_else(|| format!("{quoted} leads to a path that is not valid Unicode"))?;
    let resolved = match os {
        Os::Windows => rules::plain_windows(resolved).map_err(|r| r.describe(&quoted, true))?,
        _ => resolved.to_owned(),
    };
    rules::check_place(os, &resolved, homes).map_err(|r| r.describe(&quoted, true))?;
    // Asked of the resolved path, so nothing it names can change between the checks.
    let metadata = std::fs::metadata(&resolved).map_err(|e| format!("{quoted} cannot be read: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{quoted} is not a regular file (a directory, a device or a socket)"));
    }
    std::fs::File::open(Path::new(&resolved)).map_err(|e| format!("{quoted} cannot be read: {e}"))?;
    Ok(resolved)
}

#[cfg(test)]
mod tests;
