//! A virtual X display (Xvfb) for the tests that need a headful Chromium, such as the one that
//! opens real DevTools; stopped when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, bail};

/// Where `cargo xtask test` installs Debian's `xvfb`.
const XVFB: &str = "/usr/bin/Xvfb";

/// A running Xvfb server on a display number it chose itself.
pub struct VirtualDisplay {
    child: Child,
    display: String,
}

impl VirtualDisplay {
    /// Starts Xvfb with one 1280×900 screen, on the first free display number (Xvfb picks it
    /// and writes it to its standard output, `-displayfd 1`), listening on no TCP port.
    pub fn start() -> anyhow::Result<Self> {
        if !std::path::Path::new(XVFB).exists() {
            bail!("{XVFB} is missing: `cargo xtask test` installs it (`apt-get install xvfb`)");
        }
        let mut child = Command::new(XVFB)
            .args(["-displayfd", "1", "-screen", "0", "1280x900x24", "-nolisten", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting Xvfb")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).context("reading Xvfb's display number")?;
        let number: u32 = match line.trim().parse() {
            Ok(n) => n,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                bail!("Xvfb did not name its display (it wrote {line:?})");
            }
        };
        Ok(VirtualDisplay { child, display: format!(":{number}") })
    }

    /// The display's name, for `DISPLAY` (`:99`).
    pub fn name(&self) -> &str {
        &self.display
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
