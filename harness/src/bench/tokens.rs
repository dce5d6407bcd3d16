//! Counting tokens the way a model reads a tool response: OpenAI's `o200k_base` byte-pair
//! encoding, whose tables `tiktoken-rs` embeds, so counting never touches the network.
//!
//! This module only counts; it never decides what text is counted (see `servers::Reply`).

use tiktoken_rs::CoreBPE;

/// The o200k tokenizer.
pub struct Tokenizer {
    bpe: &'static CoreBPE,
}

impl Tokenizer {
    /// Loads the embedded `o200k_base` tables (once per process).
    pub fn o200k() -> Self {
        Tokenizer { bpe: tiktoken_rs::o200k_base_singleton() }
    }

    /// Tokens in `text`, special-token markers counted as plain text.
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }

    /// The length in bytes of each token of `text`, in order (they add up to its length).
    pub fn token_lengths(&self, text: &str) -> Vec<usize> {
        let tokens = self.bpe.encode_ordinary(text);
        tokens.iter().map(|t| self.bpe.decode_bytes(&[*t]).map_or(0, |b| b.len())).collect()
    }
}

/// The size of one piece of text: tokens and characters (Unicode scalar values).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Size {
    /// o200k tokens.
    pub tokens: usize,
    /// Characters.
    pub chars: usize,
}

impl Size {
    /// Measures `text`.
    pub fn of(tokenizer: &Tokenizer, text: &str) -> Self {
        Size { tokens: tokenizer.count(text), chars: text.chars().count() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_o200k_tokens_of_plain_text() {
        let t = Tokenizer::o200k();
        assert_eq!(t.count(""), 0);
        assert_eq!(t.count("hello world"), 2);
        assert_eq!(Size::of(&t, "héllo").chars, 5);
    }

    #[test]
    fn every_ref_of_one_letter_costs_two_tokens() {
        // What the ref alphabet is chosen for: its letter and its number are one token each,
        // at the start of an element line and after a link's `[`.
        let t = Tokenizer::o200k();
        let base = t.count(" button");
        for (i, _) in sightline_core::refs::REF_LETTERS.iter().enumerate() {
            for number in [1, 7, 42, 100, 999] {
                let r = sightline_core::refs::format_ref(i as u32 * 999 + number);
                assert_eq!(r.len(), 1 + number.to_string().len(), "{r}");
                assert_eq!(t.count(&format!("{r} button")) - base, 2, "{r} on an element line");
                assert_eq!(t.count(&format!("[{r} Home]")), 4, "{r} in a link");
            }
        }
    }
}
