//! Finding the secret values in a URL's text without rewriting anything else.
//!
//! A URL is read as text broken by delimiters (`?`, `#`, `&`, `;`, `=`, `/`), each found at a
//! depth of percent-encoding: `?` is at depth 0, `%3F` at depth 1, `%253F` (encoded twice) at
//! depth 2. That is how a URL nested in a parameter (`redirect_uri=https%3A%2F%2Fapp%2Fcb%3Fcode%3D…`)
//! keeps its own parameters, and so they are found where they stand, at any depth, and masked in
//! place: the rest of the URL is kept byte for byte.
//!
//! A `name=value` pair is one whose name follows `?`, `#`, `&`, `;` or `/` at any depth, in the
//! query, the fragment (so a query inside a fragment, `#/callback?code=…`, is one too) or a
//! nested URL; in the path only a parameter after `;` is one (`/cart;jsessionid=…`), since a
//! path's `=` is usually just a character. A secret value runs to the next `&`, `;` or `#` no
//! deeper than its `=` (and, in the path, also to the next `/` or `?`).

use super::{MASK, is_secret_name};

/// A delimiter, where it stands, its length (`%253F` is 5 bytes), what it is and how many
/// times it was percent-encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Delimiter {
    at: usize,
    len: usize,
    kind: u8,
    depth: u8,
}

impl Delimiter {
    fn end(&self) -> usize {
        self.at + self.len
    }
}

/// The characters that break a URL into names and values.
const KINDS: &[u8] = b"?#&;=/";

/// Every delimiter in `text`, in order.
fn delimiters(text: &str) -> Vec<Delimiter> {
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u8> {
        let pair = bytes.get(at..at + 2)?;
        u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if KINDS.contains(&bytes[i]) {
            found.push(Delimiter { at: i, len: 1, kind: bytes[i], depth: 0 });
        } else if bytes[i] == b'%' {
            // `%` then any number of `25` (an encoded `%`), then the encoded character.
            let (mut next, mut depth) = (i + 1, 1u8);
            while let Some(byte) = hex(next) {
                if byte == b'%' && hex(next + 2).is_some() {
                    next += 2;
                    depth = depth.saturating_add(1);
                    continue;
                }
                if KINDS.contains(&byte) {
                    found.push(Delimiter { at: i, len: next + 2 - i, kind: byte, depth });
                    i = next + 1;
                }
                break;
            }
        }
        i += 1;
    }
    found
}

/// The byte ranges of `text` holding secret values: values of parameters with secret names,
/// JSON web tokens under any name, and ASP.NET's cookieless session and ticket segments.
pub(super) fn secret_ranges(text: &str) -> Vec<(usize, usize)> {
    let found = delimiters(text);
    // The path ends at the first `?` or `#` that is not encoded.
    let path_end = found.iter().find(|d| d.depth == 0 && matches!(d.kind, b'?' | b'#')).map_or(text.len(), |d| d.at);
    let mut ranges = cookieless_segments(&text[..path_end]);
    let mut masked_until = 0;
    for (index, equals) in found.iter().enumerate().filter(|(_, d)| d.kind == b'=') {
        if equals.at < masked_until {
            continue;
        }
        let Some(before) = index.checked_sub(1).map(|i| found[i]) else { continue };
        let in_path = equals.at < path_end;
        let introduces = if in_path { before.kind == b';' } else { b"?#&;/".contains(&before.kind) };
        if !introduces {
            continue;
        }
        let ends = |d: &&Delimiter| {
            d.depth <= equals.depth
                && (matches!(d.kind, b'&' | b';' | b'#') || (in_path && matches!(d.kind, b'/' | b'?')))
        };
        let value_end = found[index + 1..].iter().find(ends).map_or(text.len(), |d| d.at);
        let (name, value) = (&text[before.end()..equals.at], &text[equals.end()..value_end]);
        if !value.is_empty() && (is_secret_name(&decoded(name)) || is_json_web_token(value)) {
            ranges.push((equals.end(), value_end));
            masked_until = value_end;
        }
    }
    ranges.sort_unstable();
    ranges
}

/// `text` with each of `ranges` (sorted, possibly nested) replaced by [`MASK`].
pub(super) fn mask(text: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut kept_to = 0;
    for &(start, end) in ranges {
        if start < kept_to {
            // Within, or overlapping, what is already masked.
            kept_to = kept_to.max(end);
            continue;
        }
        out.push_str(&text[kept_to..start]);
        out.push_str(MASK);
        kept_to = end;
    }
    out.push_str(&text[kept_to..]);
    out
}

/// ASP.NET's cookieless segments in a path, `/(S(session id))/` and its `A` (anonymous id) and
/// `F` (sign-in ticket) kin: the ranges of what is inside.
fn cookieless_segments(path: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(open) = path[from..].find('(').map(|i| from + i) {
        from = open + 1;
        let kind = path.as_bytes().get(open + 1).map(u8::to_ascii_uppercase);
        if !matches!(kind, Some(b'S' | b'A' | b'F')) || path.as_bytes().get(open + 2) != Some(&b'(') {
            continue;
        }
        if let Some(close) = path[open + 3..].find("))").map(|i| open + 3 + i)
            && close > open + 3
        {
            ranges.push((open + 3, close));
            from = close;
        }
    }
    ranges
}

/// Whether `value` is a JSON web token (`eyJ…` header, then payload and signature, separated
/// by dots; five parts when encrypted): a credential whatever the parameter is called.
fn is_json_web_token(value: &str) -> bool {
    let parts: Vec<&str> = value.split('.').collect();
    let base64url = |p: &&str| p.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    value.starts_with("eyJ") && matches!(parts.len(), 3 | 5) && parts[..2].iter().all(|p| p.len() >= 4 && base64url(p))
}

/// A parameter name with its `%XX` escapes and `+` decoded, as often as it was encoded (at most
/// four times); lossy, only for comparing names.
pub(super) fn decoded(name: &str) -> String {
    let mut text = name.to_owned();
    for _ in 0..4 {
        let next = decode_once(&text);
        if next == text {
            break;
        }
        text = next;
    }
    text
}

fn decode_once(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok());
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
                continue;
            }
            (None, b'+') => out.push(b' '),
            (None, byte) => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_found_at_every_depth_of_encoding() {
        let found = delimiters("a?b%3Dc%253Fd%252526e%25");
        let seen: Vec<(char, u8)> = found.iter().map(|d| (d.kind as char, d.depth)).collect();
        assert_eq!(seen, [('?', 0), ('=', 1), ('?', 2), ('&', 3)]);
        assert_eq!(found[2].len, "%253F".len());
        assert!(delimiters("100%25 of %41 and %zz and %").is_empty(), "escapes of other characters are text");
    }

    #[test]
    fn names_are_decoded_as_often_as_they_were_encoded() {
        assert_eq!(decoded("oauth%5Fverifier"), "oauth_verifier");
        assert_eq!(decoded("oauth%255Fverifier"), "oauth_verifier");
        assert_eq!(decoded("a+b%zz"), "a b%zz");
    }

    #[test]
    fn json_web_tokens_are_told_from_ordinary_values() {
        assert!(is_json_web_token("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"));
        assert!(!is_json_web_token("eyJhbGciOiJIUzI1NiJ9"), "a header alone");
        assert!(!is_json_web_token("eyJ.x.y") && !is_json_web_token("v1.2.3"));
    }
}
