//! Which words of a line changed: the two sides of a changed line split into pieces that are the
//! same on both sides, removed from the old one or added in the new one, so a person sees the
//! changed words marked rather than two whole lines to compare.
//!
//! Words and the spaces between them are kept exactly, so joining a side's pieces gives its line
//! back. Lines longer than [`MAX_TOKENS`] words are compared as a whole (one removed piece, one
//! added piece): the comparison is quadratic and a person does not read such lines word by word.

use serde::Serialize;

/// Longest line, in words and spaces, compared word by word.
pub const MAX_TOKENS: usize = 600;

/// A piece of one side of a changed line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum Piece {
    /// The same on both sides.
    Same(String),
    /// Only in the old line.
    Removed(String),
    /// Only in the new line.
    Added(String),
}

/// The old line's pieces (same or removed) and the new line's (same or added).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WordDiff {
    /// The old line.
    pub before: Vec<Piece>,
    /// The new line.
    pub after: Vec<Piece>,
}

/// Splits `text` into words and runs of whitespace, keeping every character.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            out.push(&text[start..i]);
            start = i;
        }
        space = Some(is_space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The word-level difference between `before` and `after`.
pub fn word_diff(before: &str, after: &str) -> WordDiff {
    let (a, b) = (tokens(before), tokens(after));
    if a.len() > MAX_TOKENS || b.len() > MAX_TOKENS {
        let side = |text: &str, piece: fn(String) -> Piece| {
            if text.is_empty() { vec![] } else { vec![piece(text.to_owned())] }
        };
        return WordDiff { before: side(before, Piece::Removed), after: side(after, Piece::Added) };
    }
    // Longest common subsequence of tokens, by dynamic programming from the ends.
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut diff = WordDiff { before: Vec::new(), after: Vec::new() };
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            push(&mut diff.before, Piece::Same(a[i].to_owned()));
            push(&mut diff.after, Piece::Same(b[j].to_owned()));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            push(&mut diff.after, Piece::Added(b[j].to_owned()));
            j += 1;
        } else {
            push(&mut diff.before, Piece::Removed(a[i].to_owned()));
            i += 1;
        }
    }
    diff
}

/// Appends `piece`, merging it into the last piece of the same kind.
fn push(side: &mut Vec<Piece>, piece: Piece) {
    match (side.last_mut(), piece) {
        (Some(Piece::Same(last)), Piece::Same(t))
        | (Some(Piece::Removed(last)), Piece::Removed(t))
        | (Some(Piece::Added(last)), Piece::Added(t)) => last.push_str(&t),
        (_, piece) => side.push(piece),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(t: &str) -> Piece {
        Piece::Same(t.into())
    }

    #[test]
    fn only_the_changed_words_are_marked_and_each_side_reads_back_whole() {
        let d = word_diff("Basket: 0 items", "Basket: 1 items");
        assert_eq!(d.before, vec![same("Basket: "), Piece::Removed("0".into()), same(" items")]);
        assert_eq!(d.after, vec![same("Basket: "), Piece::Added("1".into()), same(" items")]);
        let join = |side: &[Piece]| {
            side.iter()
                .map(|p| match p {
                    Piece::Same(t) | Piece::Removed(t) | Piece::Added(t) => t.as_str(),
                })
                .collect::<String>()
        };
        let d = word_diff("e12 radio \"Black\" checked", "e12 radio \"Black\"  (sold out)");
        assert_eq!(join(&d.before), "e12 radio \"Black\" checked");
        assert_eq!(join(&d.after), "e12 radio \"Black\"  (sold out)");
    }

    #[test]
    fn an_added_word_leaves_the_old_side_all_the_same() {
        let d = word_diff("Add to basket", "Add to your basket");
        assert_eq!(d.before, vec![same("Add to basket")]);
        assert_eq!(d.after, vec![same("Add to "), Piece::Added("your ".into()), same("basket")]);
    }

    #[test]
    fn very_long_lines_are_compared_whole() {
        let long = "word ".repeat(400);
        let d = word_diff(&long, "short");
        assert_eq!(d.before, vec![Piece::Removed(long.clone())]);
        assert_eq!(d.after, vec![Piece::Added("short".into())]);
    }
}
