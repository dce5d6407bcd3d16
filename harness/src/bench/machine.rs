//! Where and with what a bench ran: date, kernel, CPU, cores, Chromium, Node, the tokenizer.
//! Each fact is read from the machine at run time; nothing here is assumed.

use std::process::Command;

use serde::Serialize;

use crate::paths::workspace_root;

/// The facts printed at the top of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// When the bench started (UTC).
    pub date: String,
    /// `uname -a`.
    pub uname: String,
    /// The CPU model from `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    /// `chromium --version`.
    pub chromium: String,
    /// `node --version`.
    pub node: String,
    /// The tokenizer and the crate version that embeds it.
    pub tokenizer: String,
}

impl Machine {
    /// Reads the facts; a fact that cannot be read says so instead of failing the bench.
    pub fn describe(chromium: &std::path::Path) -> Self {
        Machine {
            date: stdout(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])),
            uname: stdout(Command::new("uname").arg("-a")),
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map(usize::from).unwrap_or(0),
            chromium: stdout(Command::new(chromium).arg("--version")),
            node: stdout(Command::new("node").arg("--version")),
            tokenizer: format!("o200k_base (tiktoken-rs {})", locked_version("tiktoken-rs")),
        }
    }
}

impl Machine {
    /// The machine and browser on one line, for a report's header.
    pub fn summary(&self) -> String {
        format!("{}, {}, {} cores, {}", self.uname, self.cpu, self.cores, self.chromium)
    }
}

fn stdout(cmd: &mut Command) -> String {
    match cmd.output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        Ok(out) => format!("unknown ({})", String::from_utf8_lossy(&out.stderr).trim()),
        Err(e) => format!("unknown ({e})"),
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                l.strip_prefix("model name").and_then(|rest| rest.split_once(':')).map(|(_, m)| m.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The version of `package` in the workspace's Cargo.lock.
fn locked_version(package: &str) -> String {
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock")).unwrap_or_default();
    let wanted = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted
            && let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = "))
        {
            return v.trim_matches('"').to_owned();
        }
    }
    "unknown".to_owned()
}
