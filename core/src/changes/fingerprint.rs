//! Stable keys for things that repeat with varying details.
//!
//! A console message's fingerprint replaces the parts that differ between otherwise identical
//! messages — UUIDs, numbers of four or more digits, ISO 8601 timestamps — with placeholders,
//! so "user 8f14e45f-… not found" logged for five users is one repeated error. An endpoint key
//! is a request's method and URL path (no scheme, host, query or fragment), so `/api/users?page=1`
//! and `/api/users?page=2` are one endpoint. These are small hand-written scanners over ASCII
//! patterns: they never allocate more than their output and never panic on any input.

use std::borrow::Cow;

/// Placeholder for a UUID.
pub const UUID_PLACEHOLDER: &str = "{uuid}";
/// Placeholder for a number of four or more digits.
pub const NUMBER_PLACEHOLDER: &str = "{n}";
/// Placeholder for an ISO 8601 timestamp.
pub const TIMESTAMP_PLACEHOLDER: &str = "{ts}";

/// The message with its varying parts replaced by placeholders.
pub fn fingerprint(message: &str) -> String {
    let bytes = message.as_bytes();
    let mut out = String::with_capacity(message.len());
    // Start of the run of bytes not yet copied to `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !b.is_ascii_hexdigit() {
            i += 1;
            continue;
        }
        let after_word_char = i > 0 && bytes[i - 1].is_ascii_alphanumeric();
        let matched = if after_word_char {
            None
        } else {
            uuid_len(&bytes[i..])
                .map(|len| (len, UUID_PLACEHOLDER))
                .or_else(|| timestamp_len(&bytes[i..]).map(|len| (len, TIMESTAMP_PLACEHOLDER)))
        };
        let matched = matched.or_else(|| {
            let preceded_by_digit = i > 0 && bytes[i - 1].is_ascii_digit();
            if !b.is_ascii_digit() || preceded_by_digit {
                return None;
            }
            let run = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            (run >= 4).then_some((run, NUMBER_PLACEHOLDER))
        });
        match matched {
            Some((len, placeholder)) => {
                out.push_str(&message[copied..i]);
                out.push_str(placeholder);
                i += len;
                copied = i;
            }
            None if b.is_ascii_digit() => {
                // Skip the rest of a short digit run so its tail is not taken for a new number.
                i += bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            }
            None => i += 1,
        }
    }
    out.push_str(&message[copied..]);
    out
}

/// Length of a UUID (8-4-4-4-12 hex digits) at the start of `bytes`, when one stands there as a
/// whole word.
fn uuid_len(bytes: &[u8]) -> Option<usize> {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let mut at = 0;
    for (index, group) in GROUPS.iter().enumerate() {
        if index > 0 {
            if bytes.get(at) != Some(&b'-') {
                return None;
            }
            at += 1;
        }
        let hex = bytes.get(at..at + group)?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        at += group;
    }
    match bytes.get(at) {
        Some(next) if next.is_ascii_alphanumeric() => None,
        _ => Some(at),
    }
}

/// Length of an ISO 8601 date-time at the start of `bytes`: `YYYY-MM-DD`, `T` or a space,
/// `HH:MM`, then optionally `:SS`, a fraction, and `Z` or an offset.
fn timestamp_len(bytes: &[u8]) -> Option<usize> {
    let digits = |at: usize, n: usize| bytes.get(at..at + n).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let byte_is = |at: usize, set: &[u8]| bytes.get(at).is_some_and(|b| set.contains(b));
    let shape_ok = digits(0, 4)
        && byte_is(4, b"-")
        && digits(5, 2)
        && byte_is(7, b"-")
        && digits(8, 2)
        && byte_is(10, b"Tt ")
        && digits(11, 2)
        && byte_is(13, b":")
        && digits(14, 2);
    if !shape_ok {
        return None;
    }
    let mut at = 16;
    if byte_is(at, b":") && digits(at + 1, 2) {
        at += 3;
        if byte_is(at, b".,") && digits(at + 1, 1) {
            at += 1;
            at += bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        }
    }
    if byte_is(at, b"Zz") {
        at += 1;
    } else if byte_is(at, b"+-") && digits(at + 1, 2) {
        at += 3;
        if byte_is(at, b":") && digits(at + 1, 2) {
            at += 3;
        } else if digits(at, 2) {
            at += 2;
        }
    }
    Some(at)
}

/// The path of a URL: no scheme, host, query or fragment. `data:` and `blob:` URLs reduce to
/// their scheme; a URL without a path is `/`.
pub fn url_path(url: &str) -> &str {
    let url = url.trim();
    for opaque in ["data:", "blob:", "about:", "javascript:"] {
        if let Some(scheme) = url.get(..opaque.len()).filter(|s| s.eq_ignore_ascii_case(opaque)) {
            return scheme;
        }
    }
    let scheme_end = url
        .find("://")
        .filter(|&end| end > 0 && url[..end].bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)));
    let rest = match scheme_end {
        Some(scheme_end) => {
            let authority_and_path = &url[scheme_end + 3..];
            match authority_and_path.find(['/', '?', '#']) {
                Some(path_start) => &authority_and_path[path_start..],
                None => "",
            }
        }
        None => url,
    };
    let path = match rest.find(['?', '#']) {
        Some(end) => &rest[..end],
        None => rest,
    };
    if path.is_empty() { "/" } else { path }
}

/// The key that identifies an endpoint: upper-case method, a space, and the URL path with its
/// varying ids fingerprinted (`GET /api/users/{n}`).
pub fn endpoint_key(method: &str, url: &str) -> String {
    let method = method.trim();
    let method = if method.is_empty() { "GET" } else { method };
    let path = fingerprint(url_path(url));
    let mut key = String::with_capacity(method.len() + 1 + path.len());
    key.extend(method.chars().map(|c| c.to_ascii_uppercase()));
    key.push(' ');
    key.push_str(&path);
    key
}

/// `text` cut to at most `max` characters; a cut text ends with `…` (counted in `max`).
pub fn truncate_chars(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let cut = text.char_indices().nth(keep).map_or(text.len(), |(at, _)| at);
            Cow::Owned(format!("{}…", &text[..cut]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers_stay_and_long_ones_collapse() {
        assert_eq!(fingerprint("retry 3 of 5 after 1500ms, order 123456"), "retry 3 of 5 after {n}ms, order {n}");
    }

    #[test]
    fn digits_inside_words_collapse_only_when_long() {
        assert_eq!(fingerprint("user12 item98765 v2"), "user12 item{n} v2");
    }

    #[test]
    fn uuid_needs_word_boundaries() {
        let id = "123e4567-e89b-12d3-a456-426614174000";
        assert_eq!(fingerprint(&format!("id={id}.")), "id={uuid}.");
        assert_eq!(fingerprint(&format!("x{id}")), "x123e{n}-e89b-12d3-a456-{n}");
    }

    #[test]
    fn timestamps_with_offsets_and_fractions_collapse() {
        assert_eq!(fingerprint("at 2025-01-02T03:04:05.678+01:00 ok"), "at {ts} ok");
        assert_eq!(fingerprint("at 2025-01-02 03:04 ok"), "at {ts} ok");
        assert_eq!(fingerprint("on 2025-01-02 only"), "on {n}-01-02 only");
    }

    #[test]
    fn non_ascii_text_survives() {
        assert_eq!(fingerprint("échec 12345 — ünïcode"), "échec {n} — ünïcode");
    }

    #[test]
    fn opaque_and_bare_urls_have_short_paths() {
        assert_eq!(url_path("data:image/png;base64,AAAA"), "data:");
        assert_eq!(url_path("https://example.com"), "/");
        assert_eq!(url_path("https://example.com?x=1"), "/");
        assert_eq!(url_path("/relative/path#frag"), "/relative/path");
        assert_eq!(url_path("/login?next=https://example.com/a"), "/login");
        assert_eq!(url_path("éé"), "éé");
    }

    #[test]
    fn endpoint_keys_upper_case_the_method_and_fingerprint_ids() {
        assert_eq!(endpoint_key("post", "https://api.example.com/v1/orders/98765?x=1"), "POST /v1/orders/{n}");
    }

    #[test]
    fn truncation_counts_characters_and_marks_the_cut() {
        assert_eq!(truncate_chars("abcdef", 6), "abcdef");
        assert_eq!(truncate_chars("abcdefg", 6), "abcde…");
        assert_eq!(truncate_chars("ééééééé", 3), "éé…");
    }
}
