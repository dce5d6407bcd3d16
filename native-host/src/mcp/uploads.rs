//! Checks on the paths an agent gives `browser_file_upload`, made here because the extension
//! cannot look at the file system. Paths come from the agent, and the agent is steered by what
//! pages write, so a page could ask it for the user's keys: only absolute paths to existing,
//! readable, regular files are sent on, and none inside a hidden directory or named like a
//! hidden file (`~/.ssh`, `~/.aws`, `.env`) or in the kernel's own trees (`/proc`, `/sys`, `/dev`).

use std::path::{Component, Path};

/// Most files one call may choose.
const MOST_FILES: usize = 100;

/// The reason the paths cannot be uploaded, worded for the agent; `Ok` when all can.
pub fn check(paths: &[String]) -> Result<(), String> {
    if paths.len() > MOST_FILES {
        return Err(format!("browser_file_upload takes at most {MOST_FILES} files, not {}", paths.len()));
    }
    paths.iter().try_for_each(|p| check_one(p))
}

fn check_one(text: &str) -> Result<(), String> {
    let quoted = serde_json::Value::from(text).to_string();
    let path = Path::new(text);
    if !path.is_absolute() {
        return Err(format!("{quoted} is not an absolute path; give the full path, such as /home/me/report.pdf"));
    }
    let hidden = path.components().any(|c| matches!(c, Component::Normal(n) if n.to_string_lossy().starts_with('.')));
    let system = ["/proc", "/sys", "/dev"].iter().any(|root| path.starts_with(root));
    if hidden || system || path.components().any(|c| c == Component::ParentDir) {
        return Err(format!(
            "{quoted} is refused: Sightline does not upload hidden files, files in hidden directories (such as \
             ~/.ssh), paths with `..`, or files under /proc, /sys and /dev. Copy the file somewhere ordinary if \
             the user wants it uploaded."
        ));
    }
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no file at {quoted}"),
        _ => format!("{quoted} cannot be read: {e}"),
    })?;
    if !metadata.is_file() {
        return Err(format!("{quoted} is not a regular file (a directory, a device or a socket)"));
    }
    std::fs::File::open(path).map_err(|e| format!("{quoted} cannot be read: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_paths_to_ordinary_readable_files_pass() {
        let dir = tempfile_dir();
        let file = dir.join("report.txt");
        std::fs::write(&file, "hello").unwrap();
        let ok = file.to_string_lossy().into_owned();
        assert_eq!(check(std::slice::from_ref(&ok)), Ok(()));
        assert_eq!(check(&[]), Ok(()), "no paths clears the input");

        let refused = |p: &str| check(&[p.to_owned()]).unwrap_err();
        assert!(refused("report.txt").contains("not an absolute path"));
        assert!(refused(&dir.join("missing.txt").to_string_lossy()).contains("there is no file"));
        assert!(refused(&dir.to_string_lossy()).contains("not a regular file"));
        assert!(refused("/home/me/.ssh/id_ed25519").contains("hidden"));
        assert!(refused(&format!("{}/../x", dir.display())).contains("`..`"));
        assert!(refused("/proc/self/environ").contains("/proc"));
        assert!(check(&vec![ok; MOST_FILES + 1]).unwrap_err().contains("at most"));
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sightline-uploads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
