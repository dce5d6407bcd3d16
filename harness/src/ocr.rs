//! Reading the text in a screenshot with OCR (Debian's `tesseract-ocr`), for the drills that
//! check a screenshot shows no value the snapshot masks: what OCR reads, a model reading the
//! image could read too.

use std::process::Command;

use anyhow::Context;
use base64::Engine;

/// The text OCR reads in `png` (PNG or JPEG bytes).
pub fn read(png: &[u8]) -> anyhow::Result<String> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("shot.png");
    std::fs::write(&path, png)?;
    let out = Command::new("tesseract")
        .arg(&path)
        .arg("stdout")
        .args(["--psm", "11"])
        .output()
        .context("running tesseract (Debian's tesseract-ocr; `cargo xtask test` installs it)")?;
    anyhow::ensure!(out.status.success(), "tesseract failed: {}", String::from_utf8_lossy(&out.stderr));
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// [`read`] for base64 image data, as MCP and CDP carry images.
pub fn read_base64(data: &str) -> anyhow::Result<String> {
    read(&base64::engine::general_purpose::STANDARD.decode(data)?)
}

/// `text` without whitespace, so a value OCR split into pieces is still found whole.
pub fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
