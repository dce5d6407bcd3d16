//! Origins and sites of URLs, as browsers define them: what tells a page's own content from
//! the content of another site it frames (a recipe page showing the person's bank).
//!
//! * The **origin** is the scheme, host and port (`https://bank.example:8443`, the default port
//!   left out): it is what a snapshot names a frame by.
//! * The **site** is the scheme and the registrable domain, the public suffix plus one label
//!   (`https://www.bank.co.uk` and `https://login.bank.co.uk` are one site; `a.github.io` and
//!   `b.github.io` are two, as `github.io` is a suffix anyone can register under). The
//!   registrable domain is the browser's own: every frame in `Page.getFrameTree` carries it
//!   (`domainAndRegistry`, from the public suffix list the browser ships, private registries
//!   included, as for the sites it isolates), so nothing is fetched, no list is carried, and
//!   the answer is the browser's. Where it gives none (an IP address, `localhost`, a host that
//!   is a public suffix itself, a frame no frame tree names), the whole host is the site: at
//!   worst two hosts of one site are taken for two sites, never the other way round. Every
//!   `file:` URL is one site.
//!
//! A URL without a host (`about:`, `data:`, `blob:`) has no site here: the caller decides what
//! its document belongs to (an `about:blank` frame is its embedder's).

use url::{Host, Url};

/// The origin of `url` as written for an agent: `scheme://host[:port]`, `file://` for files,
/// `scheme:` for a URL without a host (`data:`). `None` if `url` does not parse.
pub fn origin(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    let scheme = url.scheme();
    Some(match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{scheme}://{host}:{port}"),
        (Some(host), None) if !host.is_empty() => format!("{scheme}://{host}"),
        _ if scheme == "file" => "file://".to_owned(),
        _ => format!("{scheme}:"),
    })
}

/// The site of `url`, whose registrable domain the browser gave as `registrable`: its scheme
/// and that domain (`https://bank.co.uk`), or its whole host when the browser gave none or one
/// that is not the end of the host; `file://` for every `file:` URL. `None` for a URL without
/// a host, or one that does not parse.
pub fn site(url: &str, registrable: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    let scheme = url.scheme();
    if scheme == "file" {
        return Some("file://".to_owned());
    }
    let domain = match url.host()? {
        Host::Domain(host) => {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            let registrable = registrable.trim_end_matches('.').to_ascii_lowercase();
            let ends_host = host == registrable || host.ends_with(&format!(".{registrable}"));
            if !registrable.is_empty() && ends_host { registrable } else { host }
        }
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => format!("[{ip}]"),
    };
    if domain.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{domain}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_scheme_host_and_port() {
        assert_eq!(origin("https://bank.example/login?token=s3cr3t").as_deref(), Some("https://bank.example"));
        assert_eq!(origin("https://user:pw@bank.example:8443/x").as_deref(), Some("https://bank.example:8443"));
        assert_eq!(origin("https://bank.example:443/x").as_deref(), Some("https://bank.example"));
        assert_eq!(origin("http://127.0.0.1:35515/recipe.html").as_deref(), Some("http://127.0.0.1:35515"));
        assert_eq!(origin("http://[::1]:80/").as_deref(), Some("http://[::1]"));
        assert_eq!(origin("chrome-extension://abcdef/popup.html").as_deref(), Some("chrome-extension://abcdef"));
        assert_eq!(origin("file:///etc/passwd").as_deref(), Some("file://"));
        assert_eq!(origin("data:text/html,<p>hi</p>").as_deref(), Some("data:"));
        assert_eq!(origin("not a url"), None);
    }

    #[test]
    fn a_site_is_the_scheme_and_the_registrable_domain_the_browser_gives() {
        // As Chrome's frame trees give `domainAndRegistry`.
        let same = |(a, ra): (&str, &str), (b, rb): (&str, &str)| site(a, ra).is_some() && site(a, ra) == site(b, rb);
        assert!(same(("https://www.bank.co.uk/", "bank.co.uk"), ("https://login.bank.co.uk:8443/x", "bank.co.uk")));
        assert!(same(("https://bank.example/", "bank.example"), ("https://BANK.example./", "bank.example")));
        assert!(!same(("https://bank.co.uk/", "bank.co.uk"), ("https://recipes.co.uk/", "recipes.co.uk")));
        assert!(!same(
            ("https://alice.github.io/", "alice.github.io"),
            ("https://mallory.github.io/", "mallory.github.io")
        ));
        assert!(!same(("http://bank.example/", "bank.example"), ("https://bank.example/", "bank.example")));
        assert_eq!(site("https://www.bank.co.uk/", "bank.co.uk").as_deref(), Some("https://bank.co.uk"));
        assert_eq!(site("http://recipes.test:8080/", "recipes.test").as_deref(), Some("http://recipes.test"));
    }

    #[test]
    fn without_the_browsers_registrable_domain_the_whole_host_is_the_site() {
        assert_eq!(site("http://localhost:3000/", "").as_deref(), Some("http://localhost"));
        assert_eq!(site("http://127.0.0.1:3000/", "").as_deref(), Some("http://127.0.0.1"));
        assert_ne!(site("http://127.0.0.1/", ""), site("http://127.0.0.2/", ""));
        assert_ne!(site("http://localhost/", ""), site("http://127.0.0.1/", ""));
        assert_eq!(site("http://[::1]:8080/", "").as_deref(), Some("http://[::1]"));
        assert_eq!(site("https://github.io/", "").as_deref(), Some("https://github.io"));
        assert_eq!(site("https://www.bank.example/", "").as_deref(), Some("https://www.bank.example"));
        // A registrable domain that is not the end of the host is not taken.
        assert_eq!(site("https://bank.example/", "evil.example").as_deref(), Some("https://bank.example"));
        assert_eq!(site("https://notbank.example/", "bank.example").as_deref(), Some("https://notbank.example"));
    }

    #[test]
    fn files_are_one_site_and_urls_without_a_host_none() {
        assert_eq!(site("file:///etc/passwd", ""), site("file:///home/me/notes.html", ""));
        assert_eq!(site("about:blank", ""), None);
        assert_eq!(site("data:text/html,hi", ""), None);
        assert_eq!(site("nonsense", ""), None);
    }
}
