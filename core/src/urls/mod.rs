//! URLs, handled as untrusted input both ways: what an agent may load ([`policy`]), what a URL
//! may reveal when it is written into an answer ([`secrets`]), and which site a document is of
//! ([`site`]).

pub mod policy;
pub mod secrets;
pub mod site;

pub use policy::{UrlError, UrlPolicy};
pub use secrets::{redact_text_urls, redact_url};
