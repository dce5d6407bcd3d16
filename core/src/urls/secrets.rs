//! Secrets in URLs: one-time codes, tokens, keys, signatures and passwords that sites put in a
//! query, a fragment (OAuth's `#access_token=`) or the user-info part. They are masked wherever
//! a URL is written into an answer (request lists, change reports, actions, tab lists, snapshot
//! headers), and wherever one appears inside recorded text, so they never leave the browser.
//!
//! Only the values are masked; everything else stays byte for byte, so an endpoint is still
//! recognisable (`/login?code=••••••&state=7f`).

/// What is written instead of a secret value.
pub const MASK: &str = "••••••";

/// Parameter names whose values are secrets, compared without case, `-` or `_`.
const SECRET_NAMES: &[&str] = &[
    "token",
    "accesstoken",
    "idtoken",
    "refreshtoken",
    "authtoken",
    "auth",
    "authorization",
    "bearer",
    "code",
    "key",
    "apikey",
    "sig",
    "signature",
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "clientsecret",
    "session",
    "sessionid",
    "sid",
    "jwt",
    "otp",
    "pin",
    "xamzsignature",
    "xamzcredential",
    "xamzsecuritytoken",
];

/// Name endings that make a parameter a secret (`csrf_token`, `client_secret`, `private_key`).
const SECRET_SUFFIXES: &[&str] = &["token", "secret", "password", "signature", "apikey", "privatekey", "accesskey"];

/// Whether a parameter called `name` carries a secret.
pub fn is_secret_name(name: &str) -> bool {
    let folded: String = name.chars().filter(|c| !matches!(c, '-' | '_' | '.')).flat_map(char::to_lowercase).collect();
    SECRET_NAMES.contains(&folded.as_str()) || SECRET_SUFFIXES.iter().any(|s| folded.ends_with(s))
}

/// `url` with the values of secret parameters (query and fragment) and any user-info password
/// masked. Text that is not a URL comes back as it is, apart from secret `name=value` pairs
/// after a `?` or `#`.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let mut out = redact_userinfo(base);
    if let Some(query) = query {
        out.push('?');
        out.push_str(&redact_pairs(query));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(&redact_pairs(fragment));
    }
    out
}

/// `scheme://user:password@host/…` → `scheme://user:••••••@host/…`.
fn redact_userinfo(base: &str) -> String {
    let Some((scheme, rest)) = base.split_once("://") else { return base.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:{MASK}@{host}{path}"),
            None => base.to_owned(),
        },
        None => base.to_owned(),
    }
}

/// `a=1&token=xyz&b` → `a=1&token=••••••&b`.
fn redact_pairs(pairs: &str) -> String {
    pairs
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_secret_name(&percent_decoded(name)) => {
                format!("{name}={MASK}")
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A parameter name with `%XX` escapes and `+` decoded (lossy; only for comparing names).
fn percent_decoded(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every URL in it (`http://`, `https://`, `ws://`, `wss://` up to the next space or
/// quote) passed through [`redact_url`]: console messages and errors often quote a request URL.
pub fn redact_text_urls(text: &str) -> String {
    const SCHEMES: &[&str] = &["https://", "http://", "wss://", "ws://"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = SCHEMES.iter().filter_map(|s| find_ascii_ci(rest, s)).min() {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | ']' | '}'))
            .map(|(i, _)| i)
            .unwrap_or(tail.len());
        out.push_str(&redact_url(&tail[..end]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn find_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    haystack.as_bytes().windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_parameters_are_masked_and_the_rest_kept_byte_for_byte() {
        assert_eq!(
            redact_url("https://shop.test/api/orders?page=2&token=abc123&sort=desc"),
            "https://shop.test/api/orders?page=2&token=••••••&sort=desc"
        );
        assert_eq!(
            redact_url("https://id.test/cb#access_token=eyJhbGciOi&token_type=bearer&expires_in=3600"),
            "https://id.test/cb#access_token=••••••&token_type=bearer&expires_in=3600"
        );
        assert_eq!(
            redact_url("https://a.test/login?code=4/0AX4XfWh&state=7f&X-Amz-Signature=deadbeef"),
            "https://a.test/login?code=••••••&state=7f&X-Amz-Signature=••••••"
        );
        assert_eq!(
            redact_url("https://a.test/x?csrf_token=1&CLIENT-SECRET=2&api%5Fkey=3&sig="),
            "https://a.test/x?csrf_token=••••••&CLIENT-SECRET=••••••&api%5Fkey=••••••&sig="
        );
    }

    #[test]
    fn passwords_in_the_user_info_are_masked() {
        assert_eq!(redact_url("https://ada:hunter2@db.test:8443/x?y=1"), "https://ada:••••••@db.test:8443/x?y=1");
        assert_eq!(redact_url("https://ada@db.test/"), "https://ada@db.test/");
    }

    #[test]
    fn urls_without_secrets_and_plain_text_are_untouched() {
        for url in ["https://example.com/a/b?c=d&e", "about:blank", "/api/items", "not a url at all", ""] {
            assert_eq!(redact_url(url), url);
        }
        assert!(!is_secret_name("keyboard") && !is_secret_name("passage") && is_secret_name("sessionId"));
    }

    #[test]
    fn urls_inside_text_are_masked_where_they_stand() {
        assert_eq!(
            redact_text_urls("GET https://a.test/x?token=s3cr3t failed (500); see \"http://b.test/?key=k\"."),
            "GET https://a.test/x?token=•••••• failed (500); see \"http://b.test/?key=••••••\"."
        );
        assert_eq!(redact_text_urls("nothing here"), "nothing here");
    }
}
