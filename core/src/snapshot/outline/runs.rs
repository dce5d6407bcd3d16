//! Text collapsing: the inline text of one block becomes as few runs as possible, whitespace
//! collapsed the way a browser collapses it, so a sentence split over `<b>`, `<span>` and text
//! nodes reads as one line. Links stay runs of their own, with the spaces around them kept.

use super::Run;

/// Merges consecutive text runs (collapsing whitespace) and trims the line's ends.
pub fn collapse_runs(runs: Vec<Run>) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::with_capacity(runs.len());
    for run in runs {
        match (out.last_mut(), run) {
            (Some(Run::Text(prev)), Run::Text(next)) => prev.push_str(&next),
            (_, run) => out.push(run),
        }
    }
    let last = out.len().saturating_sub(1);
    let mut collapsed = Vec::with_capacity(out.len());
    for (i, run) in out.into_iter().enumerate() {
        match run {
            Run::Text(t) => {
                let mut s = collapse_spaces(&t);
                if i == 0 {
                    s = s.trim_start().to_owned();
                }
                if i == last {
                    s = s.trim_end().to_owned();
                }
                if !s.is_empty() {
                    collapsed.push(Run::Text(s));
                }
            }
            other => collapsed.push(other),
        }
    }
    collapsed
}

/// Collapses whitespace runs to one space, keeping a leading or trailing space (it separates
/// the text from a neighbouring link).
fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Whether a list of runs says nothing.
pub(super) fn is_blank(runs: &[Run]) -> bool {
    runs.iter().all(|r| match r {
        Run::Text(t) | Run::Pre(t) => t.trim().is_empty(),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::ElementId;

    #[test]
    fn adjacent_text_runs_merge_and_ends_are_trimmed() {
        let runs = vec![Run::Text("  Hello ".into()), Run::Text("\n bold".into()), Run::Text(" world  ".into())];
        assert_eq!(collapse_runs(runs), vec![Run::Text("Hello bold world".into())]);
    }

    #[test]
    fn spaces_around_links_survive() {
        let runs = vec![Run::Text("Read ".into()), Run::Link(ElementId(0)), Run::Text(" now".into())];
        assert_eq!(
            collapse_runs(runs),
            vec![Run::Text("Read ".into()), Run::Link(ElementId(0)), Run::Text(" now".into())]
        );
    }
}
