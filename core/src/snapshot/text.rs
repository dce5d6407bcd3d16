//! Text helpers shared by the pipeline stages: whitespace normalisation, word splitting, and
//! "does this name already say everything this text says".

/// Collapses every run of whitespace to one space and trims the ends.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The words of `text`: maximal runs of letters and digits, lower-cased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase())
}

/// Whether every word of `text` also occurs in `name`.
pub fn words_covered(text: &str, name: &str) -> bool {
    let name_words: std::collections::HashSet<String> = words(name).collect();
    words(text).all(|w| name_words.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses() {
        assert_eq!(normalise("  a \n\t b  "), "a b");
    }

    #[test]
    fn words_ignore_case_and_punctuation() {
        assert_eq!(words("Hello, World-42!").collect::<Vec<_>>(), ["hello", "world", "42"]);
        assert!(words_covered("add TO basket", "Add to basket"));
        assert!(!words_covered("Price 14", "Product X"));
    }
}
