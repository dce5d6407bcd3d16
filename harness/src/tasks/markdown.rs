//! `target/tasks/report.md`: the summary per server, the ratio against Playwright MCP, one row
//! per task with every server side by side, why episodes were not solved, the operations each
//! server has no tool for, and the tasks without solvers.

use std::fmt::Write as _;

use crate::miniwob::agent::Server;
use crate::miniwob::episode::REASONS;

use super::report::{Report, TaskRow};

/// Renders the report.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# MiniWoB++ through MCP\n");
    let _ = writeln!(
        out,
        "Run {} ({}, {:.0} s). {}. Seeds {:?}; the harness raised each episode's time limit to {} s. \
         Each episode starts on a freshly loaded page (the harness loads it through the \
         server; that reply is setup and not counted) and lasts from the start the harness gives it to the reward. \
         Tokens: o200k, the text of every reply the solver got.\n",
        r.started,
        if r.quick { "quick subset" } else { "all tasks with solvers" },
        r.seconds,
        r.machine,
        r.seeds,
        r.episode_limit_s
    );
    for run in &r.runs {
        let _ = writeln!(out, "- {}: {}", run.server.label(), run.version);
    }
    let with = r.tasks.iter().filter(|t| t.solver).count();
    let _ = writeln!(out, "\nTasks in the wheel: {}; with a solver: {with}.\n", r.tasks.len());

    out.push_str(&summary_table(r));
    out.push('\n');
    match &r.ratio {
        Some(ratio) => {
            let _ = writeln!(
                out,
                "Sightline ÷ Playwright MCP, tokens per solved episode over the {} tasks both solved: median {:.2} (totals {:.2}).\n",
                ratio.tasks, ratio.median, ratio.total
            );
        }
        None => out.push_str("No task was solved by both Sightline and Playwright MCP, so there is no ratio.\n\n"),
    }

    out.push_str("## Per task\n\nEach cell: episodes solved of those played · mean raw reward · mean tokens per solved episode (or per episode, in brackets, when none was solved) · mean wall time.\n\n");
    out.push_str(&task_table(r));

    out.push_str("\n## Why episodes were not solved\n\n");
    for (reason, meaning) in REASONS {
        let _ = writeln!(out, "- **{reason}**: {meaning}");
    }
    for run in &r.runs {
        let _ = writeln!(out, "\n### {}\n", run.server.label());
        if let Some(e) = &run.error {
            let _ = writeln!(out, "Did not run: {e}\n");
        }
        if !run.no_tool.is_empty() {
            let ops: Vec<&str> = run.no_tool.iter().map(|o| o.label()).collect();
            let _ = writeln!(out, "Operations with no tool: {}.\n", ops.join(", "));
        }
        let unsolved: Vec<&TaskRow> =
            r.rows.iter().filter(|row| row.server == run.server && row.solved < row.episodes).collect();
        if unsolved.is_empty() {
            out.push_str("Every episode was solved.\n");
            continue;
        }
        out.push_str("| task | unsolved | reasons | detail |\n|---|--:|---|---|\n");
        for row in unsolved {
            let reasons: Vec<String> = row.reasons.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                row.task,
                row.episodes - row.solved,
                reasons.join(", "),
                cell(row.detail.as_deref().unwrap_or(""))
            );
        }
    }

    out.push_str("\n## Tasks without a solver\n\n| task | why |\n|---|---|\n");
    for t in r.tasks.iter().filter(|t| !t.solver) {
        let _ = writeln!(out, "| {} | {} |", t.task, cell(t.why_not.as_deref().unwrap_or("")));
    }
    out
}

/// The per-server summary table (also printed and copied into `docs/performance.md`).
pub fn summary_table(r: &Report) -> String {
    let mut out = String::from(
        "| server | tasks with solvers | tasks solved | episodes solved | tokens per solved episode (median over tasks) | wall time per episode (median) |\n|---|--:|--:|--:|--:|--:|\n",
    );
    for s in &r.summaries {
        let pct = if s.episodes == 0 { 0.0 } else { 100.0 * s.solved as f64 / s.episodes as f64 };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} / {} ({pct:.1}%) | {} | {} |",
            s.server.label(),
            s.tasks,
            s.tasks_solved,
            s.solved,
            s.episodes,
            s.median_tokens_per_solved.map_or("—".into(), |t| format!("{t:.0}")),
            s.median_ms.map_or("—".into(), |ms| format!("{:.1} s", ms / 1000.0)),
        );
    }
    out
}

fn task_table(r: &Report) -> String {
    let servers: Vec<Server> = r.runs.iter().map(|run| run.server).collect();
    let mut out = String::from("| task |");
    for s in &servers {
        let _ = write!(out, " {} |", s.label());
    }
    out.push_str("\n|---|");
    for _ in &servers {
        out.push_str("---|");
    }
    out.push('\n');
    let mut tasks: Vec<&str> = r.rows.iter().map(|row| row.task.as_str()).collect();
    tasks.sort_unstable();
    tasks.dedup();
    for task in tasks {
        let _ = write!(out, "| {task} |");
        for s in &servers {
            match r.rows.iter().find(|row| row.task == task && row.server == *s) {
                Some(row) => {
                    let tokens = match row.tokens_per_solved {
                        Some(t) => format!("{t:.0} tok"),
                        None => format!("({:.0} tok)", row.tokens),
                    };
                    let _ = write!(
                        out,
                        " {}/{} · {:.2} · {tokens} · {:.1} s |",
                        row.solved,
                        row.episodes,
                        row.mean_reward,
                        row.ms / 1000.0
                    );
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    out
}

/// `text` made safe for a table cell.
fn cell(text: &str) -> String {
    let one_line: String = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    if one_line.chars().count() > 160 {
        format!("{}…", one_line.chars().take(160).collect::<String>())
    } else {
        one_line
    }
}
