//! Which fields hold secrets: the one place that judges it. Every output path (snapshot text,
//! `structuredContent`, deltas, `browser_find`, the panel's review) shows a field's value only
//! through [`super::element::facts`], which asks [`is_secret`] and writes [`MASK`] instead.
//!
//! A field that holds a value (a text-like input, a textarea, a select, an editable element) is
//! secret when any of these says so:
//!
//! * its `type` is `password`;
//! * its computed `-webkit-text-security` is anything but `none` (a field the page masks itself);
//! * its `autocomplete` names a password, a one-time code or payment data (`cc-*`);
//! * its `name`, `id`, `aria-label`, `placeholder` or accessible name reads as one: a password
//!   or passcode, a one-time or verification code (`otp`, `totp`, `2fa`, `mfa`), a PIN, a card
//!   number, security code (`cvc`, `cvv`, `csc`) or expiry (`exp`, `expiry`, `MM/YY`), a bank
//!   account (`iban`, `bic`, account, routing or sort code), a social security number;
//! * its `name`, `id`, `aria-label`, `placeholder` or accessible name contains one of the
//!   person's own words, set in the extension's options ([`SecretFields::set_extra_words`]);
//! * it was secret earlier ([`SecretFields`]): a password field that a "show password" toggle
//!   switched to `type=text`, or a field whose masking style was removed, stays masked, also
//!   when its page comes back from the back/forward cache, and after the extension's service
//!   worker restarts or its runtime is replaced (the memory is part of what a page state keeps
//!   across those: [`RememberedFields`], in `crate::page_state::ResumePoint`).
//!
//! The agent can still type into such a field; it only never reads its value back.

use std::collections::{HashMap, HashSet, VecDeque};

use super::tree::{Node, NodeKind, PageTree};

/// The mask written instead of a secret value.
pub const MASK: &str = "••••••";

/// At most this many fields are remembered as secret per page state (the oldest first
/// forgotten).
pub const REMEMBERED_MAX: usize = 4096;

/// Whether `node` holds a value a user types or picks (what a mask can apply to).
pub fn holds_value(node: &Node) -> bool {
    if node.kind != NodeKind::Element {
        return false;
    }
    match node.tag.as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            node.attr("type").unwrap_or("").trim().to_ascii_lowercase().as_str(),
            "button" | "submit" | "reset" | "image" | "checkbox" | "radio" | "file" | "range" | "color" | "hidden"
        ),
        _ => {
            node.attr("contenteditable").is_some_and(|v| !v.eq_ignore_ascii_case("false"))
                || matches!(node.ax.role().as_str(), "textbox" | "searchbox" | "textField")
        }
    }
}

/// Whether the field `node` holds a secret by what it is now (its type, style, autocomplete,
/// names and label). [`is_secret`] adds what the page state remembers.
pub fn judge(node: &Node) -> bool {
    if !holds_value(node) {
        return false;
    }
    if node.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("password")) {
        return true;
    }
    if node.layout.as_ref().is_some_and(|l| !l.text_security.is_empty() && l.text_security != "none") {
        return true;
    }
    let autocomplete = node.attr("autocomplete").unwrap_or("").to_ascii_lowercase();
    if autocomplete
        .split_whitespace()
        .any(|t| t.starts_with("cc-") || matches!(t, "current-password" | "new-password" | "one-time-code"))
    {
        return true;
    }
    let label = node.ax.name();
    [node.attr("name"), node.attr("id"), node.attr("aria-label"), node.attr("placeholder"), Some(label.as_str())]
        .into_iter()
        .flatten()
        .any(names_a_secret)
}

/// Whether field `id` of `tree` is secret: judged so now, or remembered as secret.
pub fn is_secret(tree: &PageTree, id: usize) -> bool {
    let node = &tree.nodes[id];
    (node.remembered_secret && holds_value(node)) || judge(node)
}

/// Words that name a secret on their own (compared after trailing digits are cut: `cvv2`).
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "passcode",
    "passphrase",
    "pin",
    "otp",
    "totp",
    "hotp",
    "mfa",
    "2fa",
    "tfa",
    "cvv",
    "cvc",
    "csc",
    "cvn",
    "cvd",
    "iban",
    "bic",
    "ssn",
    "exp",
    "expiry",
    "expiration",
    "expires",
    "ccnum",
    "ccnumber",
    "cardnumber",
    "ccexp",
    "cccvc",
    "cccsc",
    "securitycode",
    "onetimecode",
];

/// What names a secret wherever it stands inside a word.
const SECRET_STEMS: &[&str] = &[
    "password",
    "passwd",
    "passcode",
    "cardnumber",
    "creditcard",
    "ccnumber",
    "securitycode",
    "onetimecode",
    "onetimepassword",
    "verificationcode",
    "accountnumber",
    "routingnumber",
    "socialsecurity",
    "expiry",
    "expiration",
];

/// Word runs that name a secret, written joined (`card number` → `cardnumber`).
const SECRET_PHRASES: &[&str] = &[
    "password",
    "passcode",
    "onetimecode",
    "onetimepassword",
    "onetimepin",
    "cardnumber",
    "creditcard",
    "debitcard",
    "cardno",
    "ccnumber",
    "ccnum",
    "ccexp",
    "cardexp",
    "expdate",
    "securitycode",
    "verificationcode",
    "cardverification",
    "authcode",
    "authenticationcode",
    "smscode",
    "logincode",
    "accesscode",
    "accountnumber",
    "accountno",
    "routingnumber",
    "sortcode",
    "socialsecurity",
];

/// Whether a field's name, id or label names a secret. Words are split at non-alphanumerics and
/// at a lower-to-upper case change (`cardNumber`, `otp_code`, `cc-exp-month`, `One-time code`).
pub fn names_a_secret(text: &str) -> bool {
    let words = words(text);
    if words.iter().any(|w| SECRET_WORDS.contains(&w.trim_end_matches(|c: char| c.is_ascii_digit()))) {
        return true;
    }
    // An expiry written as its format (`MM / YY`, `MM/YYYY`).
    if words.iter().any(|w| w == "mm") && words.iter().any(|w| w == "yy" || w == "yyyy") {
        return true;
    }
    // Names written as one word (`newpassword`, `cardnumber`).
    if words.iter().any(|w| SECRET_STEMS.iter().any(|s| w.contains(s))) {
        return true;
    }
    // Runs of two or three words, joined.
    (2..=3).any(|n| words.windows(n).any(|run| SECRET_PHRASES.contains(&run.concat().as_str())))
}

fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The fields a page state has judged secret, by frame and node: a field once secret stays
/// masked after a "show password" toggle or a style change, and when its document comes back
/// from the back/forward cache under a new loader id (which is why documents are not part of
/// the key: a renderer never gives two nodes the same backend id, so a new document's fields
/// are not taken for old ones). Bounded: past [`REMEMBERED_MAX`] fields, the oldest go first.
#[derive(Debug, Clone, Default)]
pub struct SecretFields {
    nodes: HashSet<(String, i64)>,
    order: VecDeque<(String, i64)>,
    /// The person's own words that make a field secret, lower case.
    extra: Vec<String>,
}

/// The fields a page state remembers as secret, as it keeps them across a worker restart or a
/// runtime replacement: each frame id written once, each field as the index of its frame and its
/// backend node id, oldest first. At most [`REMEMBERED_MAX`] fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RememberedFields {
    /// Frame ids.
    #[serde(default)]
    pub frames: Vec<String>,
    /// Fields: index into `frames`, backend node id.
    #[serde(default)]
    pub fields: Vec<(usize, i64)>,
}

/// Most extra words kept, and their longest length in characters.
pub const MAX_EXTRA_WORDS: (usize, usize) = (64, 64);

/// Whether one of `node`'s names contains one of `words` (lower case), ASCII case ignored.
fn names_an_extra_word(node: &Node, words: &[String]) -> bool {
    if words.is_empty() {
        return false;
    }
    let label = node.ax.name();
    [node.attr("name"), node.attr("id"), node.attr("aria-label"), node.attr("placeholder"), Some(label.as_str())]
        .into_iter()
        .flatten()
        .map(str::to_lowercase)
        .any(|name| words.iter().any(|w| name.contains(w.as_str())))
}

impl SecretFields {
    /// Remembers the fields of `tree` judged secret now, and marks those remembered from
    /// before (`Node::remembered_secret`).
    pub fn apply(&mut self, tree: &mut PageTree) {
        let mut marks = Vec::new();
        for id in 0..tree.nodes.len() {
            if !holds_value(&tree.nodes[id]) {
                continue;
            }
            let key = (tree.frame_of(id).frame_id.clone(), tree.nodes[id].backend_id);
            if judge(&tree.nodes[id]) {
                self.remember(key);
            } else if names_an_extra_word(&tree.nodes[id], &self.extra) {
                self.remember(key);
                marks.push(id);
            } else if self.nodes.contains(&key) {
                marks.push(id);
            }
        }
        for id in marks {
            tree.nodes[id].remembered_secret = true;
        }
    }

    fn remember(&mut self, key: (String, i64)) {
        if self.nodes.insert(key.clone()) {
            self.order.push_back(key);
            while self.order.len() > REMEMBERED_MAX {
                if let Some(oldest) = self.order.pop_front() {
                    self.nodes.remove(&oldest);
                }
            }
        }
    }

    /// Sets the person's own words that make a field secret (trimmed, lower case, empty ones
    /// dropped; at most [`MAX_EXTRA_WORDS`]). A field they made secret stays masked when they
    /// change.
    pub fn set_extra_words(&mut self, words: &[String]) {
        let (count, length) = MAX_EXTRA_WORDS;
        self.extra = words
            .iter()
            .map(|w| w.trim().to_lowercase())
            .filter(|w| !w.is_empty() && w.chars().count() <= length)
            .take(count)
            .collect();
    }

    /// What is remembered, to keep across a restart (see [`RememberedFields`]).
    pub fn remembered(&self) -> RememberedFields {
        let mut saved = RememberedFields::default();
        let mut indexes: HashMap<&str, usize> = HashMap::new();
        for (frame, node) in &self.order {
            let index = *indexes.entry(frame.as_str()).or_insert_with(|| {
                saved.frames.push(frame.clone());
                saved.frames.len() - 1
            });
            saved.fields.push((index, *node));
        }
        saved
    }

    /// The memory of a page state that goes on after a restart: the fields `saved` remembered
    /// (within [`REMEMBERED_MAX`], the newest kept; a field naming no saved frame is skipped).
    pub fn restored(saved: &RememberedFields) -> SecretFields {
        let mut fields = SecretFields::default();
        for &(frame, node) in &saved.fields {
            if let Some(frame) = saved.frames.get(frame) {
                fields.remember((frame.clone(), node));
            }
        }
        fields
    }

    /// How many fields are remembered.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no field is remembered.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_labels_of_secret_fields_are_recognised() {
        for secret in [
            "password",
            "user_pwd",
            "newPassword",
            "otp",
            "otp-code",
            "totpCode",
            "2fa_code",
            "mfa",
            "One-time code",
            "one_time_code",
            "Verification code",
            "sms-code",
            "pin",
            "userPIN",
            "Card PIN",
            "cvv2",
            "card_cvc",
            "CSC",
            "exp",
            "cc-exp-month",
            "expMonth",
            "card_expiry",
            "Expiration date",
            "MM / YY",
            "iban",
            "payout-IBAN",
            "bic",
            "Account number",
            "routing_number",
            "Sort code",
            "ssn",
            "Social security number",
            "cardNumber",
            "Credit card",
            "ccnum",
            "newpassword",
            "securitycode",
        ] {
            assert!(names_a_secret(secret), "{secret} is a secret");
        }
        for plain in [
            "email",
            "username",
            "Full name",
            "zip",
            "Postal code",
            "Promo code",
            "coupon_code",
            "search",
            "shipping",
            "experience",
            "expert",
            "spinner",
            "passenger",
            "passport",
            "compass",
            "Caribbean",
            "footprint",
            "hotpink",
            "company",
            "Address line 2",
            "account_notes",
            "Card holder",
            "",
        ] {
            assert!(!names_a_secret(plain), "{plain} is not a secret");
        }
    }

    #[test]
    fn the_memory_of_secret_fields_is_bounded_oldest_first() {
        let mut fields = SecretFields::default();
        for n in 0..(REMEMBERED_MAX as i64 + 10) {
            fields.remember(("MAIN".into(), n));
        }
        assert_eq!(fields.len(), REMEMBERED_MAX);
        assert!(!fields.nodes.contains(&("MAIN".to_owned(), 9)) && fields.nodes.contains(&("MAIN".to_owned(), 10)));
        fields.remember(("MAIN".into(), 10));
        assert_eq!(fields.order.len(), REMEMBERED_MAX, "remembering a field twice keeps one entry");
    }

    #[test]
    fn the_remembered_fields_come_back_as_they_were_kept_and_within_the_bound() {
        let mut fields = SecretFields::default();
        for (frame, node) in [("MAIN", 7), ("CHILD", 3), ("MAIN", 9)] {
            fields.remember((frame.into(), node));
        }
        let saved = fields.remembered();
        assert_eq!(saved.frames, ["MAIN", "CHILD"], "each frame is written once");
        assert_eq!(saved.fields, [(0, 7), (1, 3), (0, 9)]);
        let back = SecretFields::restored(&saved);
        assert_eq!(back.order, fields.order);
        assert_eq!(back.nodes, fields.nodes);
        // What was saved is data: more than the bound keeps the newest, a stray index is skipped.
        let oversized = RememberedFields {
            frames: vec!["MAIN".into()],
            fields: (0..REMEMBERED_MAX as i64 + 5).map(|n| (0, n)).chain([(4, 1)]).collect(),
        };
        let back = SecretFields::restored(&oversized);
        assert_eq!(back.len(), REMEMBERED_MAX);
        assert!(back.nodes.contains(&("MAIN".to_owned(), REMEMBERED_MAX as i64 + 4)));
        assert!(!back.nodes.contains(&("MAIN".to_owned(), 4)));
    }

    #[test]
    fn words_split_at_separators_and_case_changes() {
        assert_eq!(words("cardNumber"), ["card", "number"]);
        assert_eq!(words("cc-exp-month"), ["cc", "exp", "month"]);
        assert_eq!(words("userPIN"), ["user", "pin"]);
        assert_eq!(words("2faCode"), ["2fa", "code"]);
        assert_eq!(words("IBAN"), ["iban"]);
    }
}
