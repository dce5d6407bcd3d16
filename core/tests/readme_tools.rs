//! The README's tools table against the tools declared in `sightline_core::protocol::tools`:
//! every declared tool has a row, and every row names declared tools only, so the table a
//! person reads cannot fall behind the tools an agent is served.
//!
//! A row of the table is a Markdown table row whose first cell holds only tool names in
//! backticks, one or several: ``| `browser_click` | … |`` or
//! ``| `browser_mouse_click_xy`, `browser_mouse_drag_xy` | … |``. A tool name is a lower-case
//! snake_case word with at least one underscore, which no other table's first cell in the
//! README is made of.

use std::collections::BTreeSet;

use sightline_core::protocol::TOOLS;

/// The tool names each tools-table row of `markdown` names, with the row's line number.
fn tool_rows(markdown: &str) -> Vec<(usize, Vec<&str>)> {
    markdown
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let first_cell = line.strip_prefix('|')?.split('|').next()?.trim();
            let names = first_cell
                .split(',')
                .map(|name| name.trim().strip_prefix('`')?.strip_suffix('`').filter(|name| is_tool_name(name)))
                .collect::<Option<Vec<&str>>>()?;
            Some((index + 1, names))
        })
        .collect()
}

/// Whether `word` is made like a tool name: lower-case letters, digits and underscores, with at
/// least one underscore between words.
fn is_tool_name(word: &str) -> bool {
    word.contains('_')
        && !word.starts_with('_')
        && !word.ends_with('_')
        && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The problems with `markdown`'s tools table: declared tools without a row, and rows naming
/// what no tool is called.
fn problems(markdown: &str, declared: &BTreeSet<&str>) -> Vec<String> {
    let rows = tool_rows(markdown);
    let documented: BTreeSet<&str> = rows.iter().flat_map(|(_, names)| names.iter().copied()).collect();
    let missing = declared
        .difference(&documented)
        .map(|name| format!("`{name}` is declared but has no row in the README's tools table"));
    let unknown = rows.iter().flat_map(|(line, names)| {
        names
            .iter()
            .filter(|name| !declared.contains(*name))
            .map(move |name| format!("README line {line}: `{name}` has a row but no tool is called that"))
    });
    missing.chain(unknown).collect()
}

fn declared() -> BTreeSet<&'static str> {
    TOOLS.iter().map(|spec| spec.name).collect()
}

#[test]
fn every_declared_tool_has_a_readme_row_and_every_row_names_a_declared_tool() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README is at the top of the workspace");
    let problems = problems(&readme, &declared());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_missing_row_and_a_row_for_no_tool_are_both_found() {
    let mut rows: String = declared().iter().map(|name| format!("| `{name}` | what it does |\n")).collect();
    assert!(problems(&rows, &declared()).is_empty(), "{rows}");

    let without_click = rows.replace("| `browser_click` | what it does |\n", "");
    assert_eq!(
        problems(&without_click, &declared()),
        ["`browser_click` is declared but has no row in the README's tools table"]
    );

    rows.push_str("| `browser_hover`, `browser_teleport` | moves you elsewhere |\n");
    let found = problems(&rows, &declared());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("`browser_teleport` has a row but no tool is called that"), "{found:?}");
}

#[test]
fn rows_of_other_tables_are_not_taken_for_tools() {
    let other = "| file | what it is |\n|---|---|\n| `SHA256SUMS`, `INSTALL.md` | checksums |\n\
                 | `sightline-extension-<version>/` | the extension |\n| `tools/list` (tokens, tools) | 2,796 |\n";
    assert!(tool_rows(other).is_empty(), "{:?}", tool_rows(other));
}
