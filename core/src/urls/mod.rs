//! URLs, handled as untrusted input both ways: what an agent may load ([`policy`]), and what a
//! URL may reveal when it is written into an answer ([`secrets`]).

pub mod policy;
pub mod secrets;

pub use policy::{UrlError, UrlPolicy};
pub use secrets::{redact_text_urls, redact_url};
