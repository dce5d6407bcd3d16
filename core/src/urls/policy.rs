//! Which URLs an agent may load in the user's browser.
//!
//! An agent's URL is parsed, not prefix-matched: only `http:`, `https:` and `about:blank` load;
//! `file:` loads only when the user turned it on in the extension's options. Everything else
//! (`javascript:`, `data:`, `blob:`, `view-source:`, `chrome:` and other browser-internal
//! schemes, whatever their case or leading spaces) is refused with the reason. A bare host name
//! (`example.com`) means `https://`, a loopback one (`localhost:8080`, `127.0.0.1`) `http://`.
//!
//! A page's frames answer to the same rule: a frame showing a URL an agent could not load
//! (a file, a browser page, another extension's page, `data:`) is not read
//! ([`UrlPolicy::frame_refusal`]). `about:blank` and `about:srcdoc` frames are the embedding
//! page's own documents and are read with it.

use url::Url;

use super::secrets::redact_url;

/// Why a URL is not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Nothing was given.
    #[error("the url is empty")]
    Empty,
    /// The text is not a URL.
    #[error("{url:?} is not a URL ({why}); give an absolute http or https URL")]
    Unparsable {
        /// What was given, its secrets masked.
        url: String,
        /// The parser's reason.
        why: String,
    },
    /// A `file:` URL while the user has not allowed them.
    #[error(
        "file: URLs are off: they would expose files on this computer. The user can allow them in Sightline's \
         options (\"Allow file: URLs\")"
    )]
    FileOff,
    /// A scheme Sightline never loads.
    #[error("{scheme}: URLs are not loaded: {why}. Give an http or https URL")]
    Refused {
        /// The scheme, lower case.
        scheme: String,
        /// Why not.
        why: &'static str,
    },
}

/// What the user allows beyond the web.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Whether `file:` URLs may be loaded.
    pub allow_file: bool,
}

impl UrlPolicy {
    /// The URL an agent's `text` asks for, or why it may not be loaded.
    pub fn check(&self, text: &str) -> Result<Url, UrlError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(UrlError::Empty);
        }
        // `localhost:8080` reads as scheme "localhost": a "scheme" followed by a port is a host.
        let host_and_port =
            text.split_once(':').is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()));
        let url = match Url::parse(text) {
            Ok(url) if !host_and_port => url,
            // No scheme: a host name, maybe with a port and path.
            Ok(_) | Err(url::ParseError::RelativeUrlWithoutBase) => {
                let loopback = ["localhost", "127.", "[::1]"].iter().any(|p| text.starts_with(p));
                let scheme = if loopback { "http" } else { "https" };
                Url::parse(&format!("{scheme}://{text}"))
                    .map_err(|e| UrlError::Unparsable { url: redact_url(text), why: e.to_string() })?
            }
            Err(e) => return Err(UrlError::Unparsable { url: redact_url(text), why: e.to_string() }),
        };
        match url.scheme() {
            "http" | "https" if url.host().is_some() => Ok(url),
            "http" | "https" => Err(UrlError::Unparsable { url: redact_url(text), why: "it has no host".into() }),
            "about" if url.path() == "blank" => Ok(url),
            "file" if self.allow_file => Ok(url),
            "file" => Err(UrlError::FileOff),
            scheme => Err(UrlError::Refused { scheme: scheme.to_owned(), why: refusal(scheme) }),
        }
    }

    /// Whether a tab showing `url` is on a page an agent may act on (the same rule as loading).
    pub fn allows(&self, url: &str) -> bool {
        self.check(url).is_ok()
    }

    /// Why the document of a frame showing `url` is not read, worded for the agent; `None` when
    /// it is read. The rule of loading applies, but for `about:blank`, `about:srcdoc` and the
    /// empty URL of a frame's first document (one whose load the browser blocked keeps it),
    /// which hold what the embedding page wrote into them. The browser's own error page, shown
    /// in a frame that did not load, is a browser page like any other.
    pub fn frame_refusal(&self, url: &str) -> Option<String> {
        if embedders_document(url) {
            return None;
        }
        let scheme = url.trim().split_once(':').map(|(s, _)| s.to_ascii_lowercase()).unwrap_or_default();
        match self.check(url) {
            Ok(_) => None,
            Err(_) if scheme == "chrome-error" => Some("it did not load".into()),
            Err(UrlError::FileOff) => Some(
                "file: pages are not read: they would expose files on this computer (the user can allow file: URLs \
                 in Sightline's options)"
                    .into(),
            ),
            Err(UrlError::Refused { scheme, why }) => Some(format!("{scheme}: pages are not read: {why}")),
            Err(UrlError::Empty | UrlError::Unparsable { .. }) => Some("its URL is not a web page's".into()),
        }
    }
}

/// Whether a frame at `url` holds only what its embedder wrote into it: `about:blank`,
/// `about:srcdoc`, and the first document of a frame that has loaded nothing, whose URL the
/// browser reports as empty (or `:`, as Chrome does for a frame whose load it blocked).
pub fn embedders_document(url: &str) -> bool {
    let url = url.trim();
    if url.is_empty() || url == ":" {
        return true;
    }
    let Some((scheme, rest)) = url.split_once(':') else { return false };
    scheme.eq_ignore_ascii_case("about") && ["blank", "srcdoc"].contains(&rest.split(['?', '#']).next().unwrap_or(""))
}

fn refusal(scheme: &str) -> &'static str {
    match scheme {
        "javascript" => "they run script in whatever page is open",
        "data" | "blob" => "their content comes from the URL itself, not from a site",
        "view-source" => "source views are not pages an agent can act on",
        "about" => "only about:blank is loaded",
        "chrome" | "chrome-extension" | "chrome-untrusted" | "devtools" | "edge" | "brave" | "vivaldi" | "opera" => {
            "browser-internal pages are off limits"
        }
        _ => "only web pages are loaded",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loads(text: &str) -> String {
        UrlPolicy::default().check(text).map(|u| u.to_string()).unwrap_or_else(|e| format!("refused: {e}"))
    }

    #[test]
    fn web_urls_and_about_blank_load_and_bare_hosts_get_a_scheme() {
        assert_eq!(loads("https://example.com/a?b=1"), "https://example.com/a?b=1");
        assert_eq!(loads("  HTTP://Example.COM  "), "http://example.com/");
        assert_eq!(loads("example.com/shop"), "https://example.com/shop");
        assert_eq!(loads("localhost:8080/x"), "http://localhost:8080/x");
        assert_eq!(loads("127.0.0.1:3000"), "http://127.0.0.1:3000/");
        assert_eq!(loads("about:blank"), "about:blank");
    }

    #[test]
    fn every_other_scheme_is_refused_whatever_its_case() {
        let matrix = [
            ("file:///etc/hostname", "file: URLs are off"),
            ("FILE:///etc/hostname", "file: URLs are off"),
            ("javascript:alert(1)", "javascript: URLs are not loaded"),
            (" JavaScript:alert(1)", "javascript: URLs are not loaded"),
            ("data:text/html,<h1>hi</h1>", "data: URLs are not loaded"),
            ("blob:https://example.com/0b1c", "blob: URLs are not loaded"),
            ("view-source:file:///etc/passwd", "view-source: URLs are not loaded"),
            ("view-source:https://example.com", "view-source: URLs are not loaded"),
            ("Chrome://settings", "chrome: URLs are not loaded: browser-internal pages are off limits"),
            ("chrome-extension://abc/page.html", "chrome-extension: URLs are not loaded"),
            ("devtools://devtools/bundled/inspector.html", "devtools: URLs are not loaded"),
            ("about:config", "about: URLs are not loaded: only about:blank is loaded"),
            ("ftp://example.com/x", "ftp: URLs are not loaded: only web pages are loaded"),
            ("https://", "is not a URL"),
            ("https://?token=s3cr3t", "\"https://?token=••••••\" is not a URL"),
            ("", "the url is empty"),
        ];
        for (url, why) in matrix {
            let answer = loads(url);
            assert!(answer.starts_with("refused: ") && answer.contains(why), "{url}: {answer}");
        }
    }

    #[test]
    fn frames_of_urls_an_agent_could_not_load_are_not_read() {
        let policy = UrlPolicy::default();
        let read = [
            "https://bank.example/",
            "http://127.0.0.1:8000/x",
            "about:blank",
            "about:srcdoc",
            "about:blank#top",
            "",
            ":",
        ];
        for url in read {
            assert_eq!(policy.frame_refusal(url), None, "{url}");
        }
        let refused = |url: &str| policy.frame_refusal(url).unwrap_or_else(|| panic!("{url} is read"));
        assert!(refused("file:///etc/passwd").starts_with("file: pages are not read"));
        assert!(refused("chrome://settings/").contains("browser-internal pages are off limits"));
        assert!(refused("chrome-extension://abcdef/popup.html").starts_with("chrome-extension: pages are not read"));
        assert!(refused("data:text/html,<p>hi</p>").starts_with("data: pages are not read"));
        assert!(refused("about:config").starts_with("about: pages are not read"));
        assert_eq!(refused("chrome-error://chromewebdata/"), "it did not load");
        let with_files = UrlPolicy { allow_file: true };
        assert_eq!(with_files.frame_refusal("file:///home/me/report.html"), None, "the user allowed files");
    }

    #[test]
    fn file_urls_load_once_the_user_allows_them() {
        let policy = UrlPolicy { allow_file: true };
        assert_eq!(policy.check("file:///tmp/report.html").unwrap().as_str(), "file:///tmp/report.html");
        assert!(policy.check("view-source:file:///tmp/report.html").is_err(), "still no source views");
        assert!(!UrlPolicy::default().allows("file:///tmp/report.html"));
    }
}
