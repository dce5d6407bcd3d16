//! Which site a host belongs to: its registrable domain, as the public suffix list tells it
//! (`www.shop.example` and `pay.shop.example` are both of `shop.example`; `a.co.uk` and
//! `b.co.uk` are two sites). An IP address is a site of its own, and so is a name the list does
//! not know beyond its last label (`localhost`). Ports and schemes are not part of a site.
//!
//! "Leave for another site" is judged by sites, not hosts: moving between hosts of one site
//! stays on it.

use std::net::IpAddr;

/// The site of `host` (lower case, no port; an IPv6 address with or without its brackets).
pub fn site_of(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        return host;
    }
    match psl::domain_str(&host) {
        Some(domain) => domain.to_owned(),
        // A public suffix itself, or a single label (`localhost`): the host is its own site.
        None => host,
    }
}

/// Whether `a` and `b` (hosts) are of one site.
pub fn same_site(a: &str, b: &str) -> bool {
    site_of(a) == site_of(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_one_registrable_domain_are_one_site() {
        assert_eq!(site_of("www.shop.example"), "shop.example");
        assert!(same_site("www.shop.example", "pay.shop.example"));
        assert!(same_site("shop.example", "pay.shop.example"));
        assert!(same_site("WWW.Shop.Example.", "shop.example"));
        assert!(!same_site("shop.example", "bank.example"));
        assert!(!same_site("shop.example", "shop.example.evil"));
    }

    #[test]
    fn a_public_suffix_of_two_labels_keeps_its_sites_apart() {
        assert_eq!(site_of("www.bbc.co.uk"), "bbc.co.uk");
        assert!(same_site("www.bbc.co.uk", "news.bbc.co.uk"));
        assert!(!same_site("bbc.co.uk", "shop.co.uk"), "co.uk is a suffix, not a site");
        assert_eq!(site_of("co.uk"), "co.uk");
        assert!(!same_site("alice.github.io", "bob.github.io"), "github.io hands out sites");
    }

    #[test]
    fn addresses_and_single_labels_are_sites_of_their_own() {
        assert_eq!(site_of("127.0.0.1"), "127.0.0.1", "not `0.1` under a suffix `1`");
        assert!(!same_site("127.0.0.1", "10.0.0.1"));
        assert!(!same_site("127.0.0.1", "localhost"));
        assert_eq!(site_of("localhost"), "localhost");
        assert!(same_site("localhost", "LOCALHOST"));
        assert_eq!(site_of("[::1]"), "[::1]");
        assert!(!same_site("[::1]", "[::2]"));
    }

    #[test]
    fn ports_are_not_part_of_a_site() {
        // Hosts come without their ports (`host_of`): two ports of one host are one site.
        let host = |url: &str| super::super::classes::host_of(url).expect("a host");
        assert!(same_site(&host("http://127.0.0.1:8080/a"), &host("http://127.0.0.1:9090/b")));
        assert!(same_site(&host("https://www.shop.example:8443/"), &host("http://pay.shop.example/")));
    }
}
