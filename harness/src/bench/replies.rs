//! Every reply the bench counted, saved as plain text under `target/bench/replies/`, so anyone
//! can read exactly what each server answered and what the numbers were counted over:
//! `<server>/corpus/<case>.txt` (the snapshot) and `<server>/flow/<step>-<tool>.txt`.
//!
//! Saving is best effort: a reply that cannot be written never changes a measurement.

use std::path::PathBuf;

use super::servers::ServerKind;

/// Where replies go.
pub struct Replies {
    root: PathBuf,
}

impl Replies {
    /// Replies under `root`, emptied first so a run never mixes with an earlier one.
    pub fn fresh(root: PathBuf) -> Self {
        let _ = std::fs::remove_dir_all(&root);
        Replies { root }
    }

    /// Saves `text` as `<server>/<section>/<name>.txt`.
    pub fn save(&self, server: ServerKind, section: &str, name: &str, text: &str) {
        let dir = self.root.join(server.slug()).join(section);
        let file: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(dir.join(format!("{file}.txt")), text);
        }
    }
}
