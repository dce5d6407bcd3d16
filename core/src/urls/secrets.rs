//! Secrets in URLs: one-time codes, tokens, keys, signatures, session ids, single sign-on
//! tickets and passwords that sites put in a query, a fragment (OAuth's `#access_token=`, a
//! hash route's `#/callback?code=`), a path parameter (`;jsessionid=`), a URL nested in a
//! parameter (`redirect_uri=https%3A%2F%2F…%3Fcode%3D…`, encoded once or more) or the
//! user-info part. They are masked wherever a URL is written into an answer (request lists,
//! change reports, actions, tab lists, snapshot headers), and wherever one appears inside
//! recorded text, so they never leave the browser.
//!
//! Only the values are masked; everything else stays byte for byte, so an endpoint is still
//! recognisable (`/login?code=••••••&state=7f`) and ordinary parameters keep their meaning
//! (`?q=shoes&page=2&id=17`). How the values are found is in [`scan`].

mod scan;

/// What is written instead of a secret value.
pub const MASK: &str = "••••••";

/// Parameter names whose values are secrets, compared without case, `-`, `_` or `.`.
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
    "hmac",
    "password",
    "passwd",
    "pass",
    "pwd",
    "passcode",
    "secret",
    "clientsecret",
    "session",
    "sessionid",
    "sessid",
    "sid",
    "jsessionid",
    "phpsessid",
    "cfid",
    "jwt",
    "otp",
    "pin",
    // Single-use codes: Firebase's password reset and e-mail links, OAuth 1's verifier, PKCE's.
    "oobcode",
    "authcode",
    "authorizationcode",
    "verificationcode",
    "resetcode",
    "activationcode",
    "confirmationcode",
    "logincode",
    // Single sign-on: CAS tickets, SAML responses and artifacts, signed assertions.
    "ticket",
    "samlresponse",
    "samlart",
    "assertion",
    "xamzsignature",
    "xamzcredential",
    "xamzsecuritytoken",
    "xgoogcredential",
];

/// Name endings that make a parameter a secret (`csrf_token`, `client_secret`, `private_key`,
/// `session_key`, `oauth_verifier`).
const SECRET_SUFFIXES: &[&str] = &[
    "token",
    "secret",
    "password",
    "passcode",
    "signature",
    "apikey",
    "privatekey",
    "accesskey",
    "secretkey",
    "sessionkey",
    "sessionid",
    "sessid",
    "authcode",
    "verifier",
    "assertion",
    "credential",
    "credentials",
];

/// Name beginnings that make a parameter a secret: IIS's session cookie names
/// (`ASPSESSIONIDQQGGQGPP`).
const SECRET_PREFIXES: &[&str] = &["aspsessionid"];

/// Whether a parameter called `name` carries a secret.
pub fn is_secret_name(name: &str) -> bool {
    let folded: String = name.chars().filter(|c| !matches!(c, '-' | '_' | '.')).flat_map(char::to_lowercase).collect();
    SECRET_NAMES.contains(&folded.as_str())
        || SECRET_SUFFIXES.iter().any(|s| folded.ends_with(s))
        || SECRET_PREFIXES.iter().any(|p| folded.starts_with(p))
}

/// `url` with the values of secret parameters (query, fragment, path parameters and URLs
/// nested in parameters), JSON web tokens, session ids in the path and any user-info password
/// masked. Text that is not a URL comes back as it is, apart from secret `name=value` pairs
/// after a `?`, `#`, `&` or `;`.
pub fn redact_url(url: &str) -> String {
    let url = redact_userinfo(url);
    scan::mask(&url, &scan::secret_ranges(&url))
}

/// `scheme://user:password@host/…` → `scheme://user:••••••@host/…`.
fn redact_userinfo(url: &str) -> String {
    let base_end = url.find(['?', '#']).unwrap_or(url.len());
    let (base, rest) = url.split_at(base_end);
    let Some((scheme, after)) = base.split_once("://") else { return url.to_owned() };
    let authority_end = after.find('/').unwrap_or(after.len());
    let (authority, path) = after.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:{MASK}@{host}{path}{rest}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
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
    fn secrets_off_the_old_list_are_masked_by_name() {
        let cases = [
            ("https://app.test/__/auth/action?mode=resetPassword&oobCode=r3s3t&lang=en", "oobCode=••••••&lang=en"),
            ("https://app.test/login?ticket=ST-1-abc-cas&service=x", "ticket=••••••&service=x"),
            ("https://forum.test/index.php?PHPSESSID=9f8e7d&page=2", "PHPSESSID=••••••&page=2"),
            ("https://api.test/cb?oauth_token=t&oauth_verifier=v1", "oauth_token=••••••&oauth_verifier=••••••"),
            (
                "https://a.test/x?session_key=s&secret_key=k&passcode=123456",
                "session_key=••••••&secret_key=••••••&passcode=••••••",
            ),
            (
                "https://a.test/x?auth_code=c&code_verifier=v&SAMLResponse=PHNhbWw%2B&SAMLart=AAQ",
                "auth_code=••••••&code_verifier=••••••&SAMLResponse=••••••&SAMLart=••••••",
            ),
            ("https://a.test/x?ASPSESSIONIDQQGGQGPP=AB12&id=7", "ASPSESSIONIDQQGGQGPP=••••••&id=7"),
        ];
        for (url, tail) in cases {
            let masked = redact_url(url);
            assert!(masked.ends_with(tail), "{url} → {masked}");
        }
    }

    #[test]
    fn a_query_inside_a_fragment_is_masked_as_a_query() {
        assert_eq!(
            redact_url("https://app.test/#/callback?code=c0de&state=s7&q=shoes"),
            "https://app.test/#/callback?code=••••••&state=s7&q=shoes"
        );
        // Outside the path a value may hold `/` (`code=4/0AX…`): it runs to the next `&`, `;` or `#`.
        assert_eq!(
            redact_url("https://app.test/#!/reset;token=t0k/next&x=1"),
            "https://app.test/#!/reset;token=••••••&x=1"
        );
    }

    #[test]
    fn session_ids_in_a_path_are_masked_and_the_rest_of_the_path_kept() {
        assert_eq!(
            redact_url("https://shop.test/cart;jsessionid=0A1B2C3D?item=4"),
            "https://shop.test/cart;jsessionid=••••••?item=4"
        );
        assert_eq!(
            redact_url("https://shop.test/a;JSESSIONID=0A1B/b;v=2/c"),
            "https://shop.test/a;JSESSIONID=••••••/b;v=2/c"
        );
        assert_eq!(
            redact_url("https://legacy.test/(S(lit3py55t21z5v55vlm25s55))/orders.aspx?id=9"),
            "https://legacy.test/(S(••••••))/orders.aspx?id=9"
        );
        // A path's `=` outside a parameter, and a version in parentheses, are just characters.
        assert_eq!(redact_url("https://a.test/token=x/(v(2))/y"), "https://a.test/token=x/(v(2))/y");
    }

    #[test]
    fn urls_nested_in_parameters_are_masked_at_any_depth_of_encoding() {
        assert_eq!(
            redact_url(
                "https://id.test/authorize?redirect_uri=https%3A%2F%2Fapp.test%2Fcb%3Fcode%3DXYZ%26state%3D1&q=a"
            ),
            "https://id.test/authorize?redirect_uri=https%3A%2F%2Fapp.test%2Fcb%3Fcode%3D••••••%26state%3D1&q=a"
        );
        assert_eq!(
            redact_url("https://a.test/login?next=%2Faccount%3Ftoken%3DT0K%23x&lang=en"),
            "https://a.test/login?next=%2Faccount%3Ftoken%3D••••••%23x&lang=en"
        );
        // Encoded twice: the inner URL's own parameters are encoded once more.
        assert_eq!(
            redact_url(
                "https://a.test/go?return=https%3A%2F%2Fb.test%2Fsso%3Fnext%3Dhttps%253A%252F%252Fc.test%252F%253Fticket%253DST-9%2526page%253D3"
            ),
            "https://a.test/go?return=https%3A%2F%2Fb.test%2Fsso%3Fnext%3Dhttps%253A%252F%252Fc.test%252F%253Fticket%253D••••••%2526page%253D3"
        );
        // Unencoded, as some sites write it.
        assert_eq!(
            redact_url("https://a.test/?next=/cb?token=t&page=2"),
            "https://a.test/?next=/cb?token=••••••&page=2"
        );
    }

    #[test]
    fn json_web_tokens_are_masked_whatever_the_parameter_is_called() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLWJ5dGVz";
        assert_eq!(redact_url(&format!("https://a.test/x?state={jwt}&page=1")), "https://a.test/x?state=••••••&page=1");
    }

    #[test]
    fn ordinary_parameters_keep_their_meaning() {
        for url in [
            "https://shop.test/search?q=running+shoes&page=2&sort=price&id=17",
            "https://shop.test/p/17?ref=home&utm_source=mail&lang=en&state=open&redirect_uri=https%3A%2F%2Fa.test%2Fdone",
            "https://docs.test/#/guide?section=install",
            "https://maps.test/@52.5,13.4,12z/data=!3m1",
            "https://a.test/x?q=code%3Dred&keyword=token",
            "https://a.test/100%25-cotton?size=M",
        ] {
            assert_eq!(redact_url(url), url);
        }
        for name in
            ["q", "page", "id", "state", "lang", "sort", "keyword", "passage", "postcode", "zip_code", "redirect_uri"]
        {
            assert!(!is_secret_name(name), "{name}");
        }
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
