//! Small helpers for text the engine writes: cutting at a byte budget on a character boundary,
//! and writing counts the way people read them. Every part of the engine that writes text (the
//! snapshot, the change reports, the recorder) uses these, so they live apart from all of them.

/// The longest prefix of `text` of at most `max` bytes that ends at a character boundary.
pub fn prefix_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_never_splits_a_character() {
        assert_eq!(prefix_bytes("héllo", 2), "h");
        assert_eq!(prefix_bytes("héllo", 3), "hé");
        assert_eq!(prefix_bytes("short", 10), "short");
        assert_eq!(prefix_bytes("", 0), "");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(4_000_000), "4,000,000");
    }
}
