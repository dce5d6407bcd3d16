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

/// The words of `text`: maximal runs of letters and digits, lower-cased. Scripts written
/// without spaces (Chinese, Japanese, Korean) count each character as a word.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).flat_map(|w| {
        let mut parts = Vec::new();
        let mut run = String::new();
        for c in w.chars() {
            if is_unspaced_script(c) {
                if !run.is_empty() {
                    parts.push(std::mem::take(&mut run).to_lowercase());
                }
                parts.push(c.to_string());
            } else {
                run.push(c);
            }
        }
        if !run.is_empty() {
            parts.push(run.to_lowercase());
        }
        parts
    })
}

/// Characters of scripts written without spaces between words.
fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F) // CJK extensions B–F
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
        assert_eq!(words("03来源 网易").collect::<Vec<_>>(), ["03", "来", "源", "网", "易"]);
        assert!(words_covered("add TO basket", "Add to basket"));
        assert!(!words_covered("Price 14", "Product X"));
    }
}
