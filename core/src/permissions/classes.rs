//! The class of an action, judged from what it would do to the page: the element it lands on,
//! the form around it, the fields in that form, where a link or navigation goes. The facts are
//! gathered by the runtime from the page through the debugger; what the agent calls its action
//! plays no part.
//!
//! An action can be of several classes at once (a click on "Place order" in a form with a card
//! field is an act, a submit and a payment); the strictest verdict among them decides, and the
//! question names the most consequential ([`ActionClass::headline`]).

use serde::{Deserialize, Serialize};

use super::sites::same_site;
use crate::snapshot::secrets::names_a_secret;

/// What an action does, as the person's rules name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionClass {
    /// Reads the page (snapshot, screenshot, find, logs).
    Read,
    /// Clicks, types, selects, scrolls, hovers, drags.
    Act,
    /// Submits a form.
    Submit,
    /// Enters or submits payment details (card, IBAN, CVC).
    Payment,
    /// Downloads a file.
    Download,
    /// Uploads a file.
    Upload,
    /// Goes to another site.
    Leave,
    /// Runs the agent's script in the page (`browser_evaluate`).
    RunScript,
}

impl ActionClass {
    /// Every class, least consequential first.
    pub const ALL: [ActionClass; 8] = [
        ActionClass::Read,
        ActionClass::Act,
        ActionClass::Leave,
        ActionClass::Submit,
        ActionClass::Download,
        ActionClass::Upload,
        ActionClass::RunScript,
        ActionClass::Payment,
    ];

    /// Whether the default "ask" level asks before it.
    pub fn is_consequential(self) -> bool {
        !matches!(self, ActionClass::Read | ActionClass::Act)
    }

    /// The class as the person reads it.
    pub fn words(self) -> &'static str {
        match self {
            ActionClass::Read => "read",
            ActionClass::Act => "act",
            ActionClass::Submit => "submit",
            ActionClass::Payment => "payment",
            ActionClass::Download => "download",
            ActionClass::Upload => "upload",
            ActionClass::Leave => "leave for another site",
            ActionClass::RunScript => "run script",
        }
    }

    /// The most consequential of `classes` (what a question is about).
    pub fn headline(classes: &[ActionClass]) -> ActionClass {
        let rank = |c: &ActionClass| ActionClass::ALL.iter().position(|a| a == c).unwrap_or(0);
        classes.iter().copied().max_by_key(rank).unwrap_or(ActionClass::Read)
    }
}

/// What the runtime learnt of a form field: the words a person or a browser's autofill goes by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct FieldFacts {
    /// `type`.
    pub r#type: String,
    /// `autocomplete`.
    pub autocomplete: String,
    /// `name`, `id`, `aria-label`, `placeholder` and the label's text.
    pub names: Vec<String>,
}

/// Words that make a secret field a payment field (a card, its code, an account to pay from).
const PAYMENT_WORDS: &[&str] =
    &["card", "cc", "cvc", "cvv", "cvc2", "cvv2", "csc", "iban", "expiry", "exp", "bic", "swift", "cardholder"];

impl FieldFacts {
    /// Whether the field takes payment details: autofill's `cc-` kinds, or a name the secret
    /// judgement marks as secret that speaks of a card, its code or an IBAN.
    pub fn is_payment(&self) -> bool {
        let autocomplete = self.autocomplete.to_ascii_lowercase();
        if autocomplete.split_whitespace().any(|t| t.starts_with("cc-")) {
            return true;
        }
        self.names.iter().any(|name| {
            let lower = name.to_ascii_lowercase();
            let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).collect();
            let speaks_of_payment = words.iter().any(|w| PAYMENT_WORDS.contains(w))
                || ["cardnumber", "ccnumber", "securitycode", "iban"]
                    .iter()
                    .any(|s| lower.replace([' ', '-', '_'], "").contains(s));
            speaks_of_payment && (names_a_secret(name) || lower.contains("iban"))
        })
    }
}

/// What the runtime learnt of the element an action lands on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ElementFacts {
    /// Lower-case tag name.
    pub tag: String,
    /// The element as a field (its type, autocomplete and names).
    pub field: FieldFacts,
    /// Whether it belongs to a form (`element.form`, or inside one).
    pub in_form: bool,
    /// The fields of that form.
    pub form_fields: Vec<FieldFacts>,
    /// For a link (or an element inside one): where it goes, as an absolute URL.
    pub href: Option<String>,
    /// Whether that link downloads (`download` attribute).
    pub download: bool,
}

impl ElementFacts {
    /// Whether activating the element submits its form: a `<button>` whose type is submit (the
    /// default), an `<input type=submit|image>`.
    pub fn submits(&self) -> bool {
        let kind = self.field.r#type.trim().to_ascii_lowercase();
        self.in_form
            && match self.tag.as_str() {
                "button" => kind.is_empty() || kind == "submit",
                "input" => kind == "submit" || kind == "image",
                _ => false,
            }
    }

    /// Whether Enter in the element submits its form: a text-like `<input>` in a form.
    pub fn enter_submits(&self) -> bool {
        let kind = self.field.r#type.trim().to_ascii_lowercase();
        self.submits()
            || (self.in_form
                && self.tag == "input"
                && !matches!(
                    kind.as_str(),
                    "checkbox" | "radio" | "file" | "range" | "color" | "hidden" | "button" | "reset"
                ))
    }

    /// Whether it is a frame element (`iframe`, `frame`, `object`, `embed`): a click or a key
    /// there goes to a document the facts do not show, so it is judged as strictly as an
    /// element that could not be told.
    pub fn is_frame(&self) -> bool {
        matches!(self.tag.as_str(), "iframe" | "frame" | "object" | "embed")
    }

    /// Whether its form holds a payment field.
    pub fn form_takes_payment(&self) -> bool {
        self.in_form && (self.field.is_payment() || self.form_fields.iter().any(FieldFacts::is_payment))
    }
}

/// What an action would do, as gathered by the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionFacts {
    /// Reads the page only.
    Read,
    /// A click (`element`: what it lands on, `None` when it could not be told).
    Click {
        /// The element under the click.
        element: Option<ElementFacts>,
        /// The site of the page clicked on.
        site: Option<String>,
    },
    /// Text typed into a field; `enter` when the tool presses Enter after it.
    Type {
        /// The field.
        element: Option<ElementFacts>,
        /// Whether Enter follows.
        enter: bool,
    },
    /// A key pressed with the focus on `element` (`None`: focus unknown).
    Key {
        /// The focused element.
        element: Option<ElementFacts>,
        /// The key, e.g. `Enter`, `Control+a`.
        key: String,
    },
    /// Selecting, scrolling, hovering, dragging, filling several fields.
    Gentle {
        /// The element, when one is named (a field being filled with a card number is payment).
        element: Option<ElementFacts>,
    },
    /// Loading `to` in a tab showing `from` (hosts; they leave when their sites differ).
    Navigate {
        /// The tab's host now (`None`: a page of no host, e.g. a new tab).
        from: Option<String>,
        /// The host loaded.
        to: Option<String>,
    },
    /// A file put into a file chooser.
    Upload,
    /// A script run in the page.
    Evaluate,
}

/// The classes of the action `facts` describe, most often one or two.
pub fn classify(facts: &ActionFacts) -> Vec<ActionClass> {
    use ActionClass::*;
    let mut classes = Vec::new();
    match facts {
        ActionFacts::Read => classes.push(Read),
        ActionFacts::Click { element, site } => {
            classes.push(Act);
            match element {
                // What is under the click inside a frame cannot be told: judged as a submit.
                Some(e) if e.is_frame() => classes.push(Submit),
                Some(e) => {
                    if e.submits() {
                        classes.push(Submit);
                        if e.form_takes_payment() {
                            classes.push(Payment);
                        }
                    }
                    if e.download {
                        classes.push(Download);
                    }
                    if let Some(href) = &e.href
                        && leaves(site.as_deref(), href)
                    {
                        classes.push(Leave);
                    }
                }
                // A click whose element cannot be told may submit anything: judged as a submit.
                None => classes.push(Submit),
            }
        }
        ActionFacts::Type { element, enter } => {
            classes.push(Act);
            if let Some(e) = element {
                if e.field.is_payment() {
                    classes.push(Payment);
                }
                if *enter && e.enter_submits() {
                    classes.push(Submit);
                    if e.form_takes_payment() {
                        classes.push(Payment);
                    }
                }
            } else if *enter {
                classes.push(Submit);
            }
        }
        ActionFacts::Key { element, key } => {
            classes.push(Act);
            let enter = key.rsplit('+').next().is_some_and(|k| k.eq_ignore_ascii_case("enter"));
            let space = key.rsplit('+').next().is_some_and(|k| k == " " || k.eq_ignore_ascii_case("space"));
            match element {
                Some(e) if enter && e.is_frame() => classes.push(Submit),
                Some(e) if (enter && e.enter_submits()) || (space && e.submits()) => {
                    classes.push(Submit);
                    if e.form_takes_payment() {
                        classes.push(Payment);
                    }
                }
                Some(_) => {}
                None if enter => classes.push(Submit),
                None => {}
            }
        }
        ActionFacts::Gentle { element } => {
            classes.push(Act);
            if element.as_ref().is_some_and(|e| e.field.is_payment()) {
                classes.push(Payment);
            }
        }
        ActionFacts::Navigate { from, to } => {
            classes.push(Read);
            // Another host of the same site (`www.` to `pay.`) is not another site.
            if let Some(from) = from
                && to.as_deref().is_none_or(|to| !same_site(from, to))
            {
                classes.push(Leave);
            }
        }
        ActionFacts::Upload => classes.extend([Act, Upload]),
        ActionFacts::Evaluate => classes.push(RunScript),
    }
    classes.dedup();
    classes
}

/// Whether following `href` from a page of host `site` goes to another site (another
/// registrable domain, see [`super::sites`]).
fn leaves(site: Option<&str>, href: &str) -> bool {
    let Some(site) = site else { return false };
    match host_of(href) {
        Some(host) => !same_site(&host, site),
        // `javascript:`, `mailto:`, fragments: not another site.
        None => false,
    }
}

/// The host of `url` in lower case, without port, if it has one and is a web URL.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https" | "ws" | "wss" | "ftp") {
        return None;
    }
    parsed.host_str().map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::ActionClass::*;
    use super::*;

    fn field(kind: &str, autocomplete: &str, names: &[&str]) -> FieldFacts {
        FieldFacts {
            r#type: kind.into(),
            autocomplete: autocomplete.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
        }
    }

    fn button(kind: &str, in_form: bool, form_fields: Vec<FieldFacts>) -> ElementFacts {
        ElementFacts {
            tag: "button".into(),
            field: field(kind, "", &["Place order"]),
            in_form,
            form_fields,
            ..Default::default()
        }
    }

    fn click(e: ElementFacts) -> Vec<ActionClass> {
        classify(&ActionFacts::Click { element: Some(e), site: Some("shop.example".into()) })
    }

    #[test]
    fn a_button_that_submits_its_form_is_a_submit_whatever_it_says() {
        assert_eq!(click(button("", true, vec![])), [Act, Submit], "a button's default type is submit");
        assert_eq!(click(button("submit", true, vec![])), [Act, Submit]);
        assert_eq!(click(button("button", true, vec![])), [Act]);
        assert_eq!(click(button("submit", false, vec![])), [Act], "no form, nothing to submit");
        let image =
            ElementFacts { tag: "input".into(), field: field("image", "", &[]), in_form: true, ..Default::default() };
        assert_eq!(click(image), [Act, Submit]);
    }

    #[test]
    fn a_submit_next_to_a_card_field_is_a_payment() {
        let card = field("text", "cc-number", &["num"]);
        assert_eq!(click(button("submit", true, vec![card])), [Act, Submit, Payment]);
        let cvc = field("text", "", &["cvc"]);
        assert_eq!(click(button("", true, vec![cvc])), [Act, Submit, Payment]);
        let iban = field("text", "", &["IBAN"]);
        assert_eq!(click(button("", true, vec![iban])), [Act, Submit, Payment]);
        let card_number = field("text", "", &["Card number"]);
        assert_eq!(click(button("", true, vec![card_number])), [Act, Submit, Payment]);
        let email = field("email", "email", &["email", "Your e-mail"]);
        assert_eq!(click(button("", true, vec![email])), [Act, Submit], "an e-mail is not payment");
        let password = field("password", "current-password", &["password"]);
        assert_eq!(click(button("", true, vec![password])), [Act, Submit], "a password is secret, not payment");
        let gift_card = field("text", "", &["Gift card message"]);
        assert_eq!(click(button("", true, vec![gift_card])), [Act, Submit], "not a secret: a message");
    }

    #[test]
    fn typing_into_a_card_field_is_a_payment() {
        let e = ElementFacts {
            tag: "input".into(),
            field: field("text", "cc-csc", &["code"]),
            in_form: true,
            ..Default::default()
        };
        assert_eq!(classify(&ActionFacts::Type { element: Some(e.clone()), enter: false }), [Act, Payment]);
        let name = ElementFacts {
            tag: "input".into(),
            field: field("text", "", &["name"]),
            in_form: true,
            ..Default::default()
        };
        assert_eq!(classify(&ActionFacts::Type { element: Some(name.clone()), enter: false }), [Act]);
        assert_eq!(classify(&ActionFacts::Type { element: Some(name), enter: true }), [Act, Submit]);
    }

    #[test]
    fn enter_in_a_form_field_submits() {
        let search = ElementFacts {
            tag: "input".into(),
            field: field("search", "", &["q"]),
            in_form: true,
            ..Default::default()
        };
        let key = |key: &str, element: Option<ElementFacts>| classify(&ActionFacts::Key { element, key: key.into() });
        assert_eq!(key("Enter", Some(search.clone())), [Act, Submit]);
        assert_eq!(key("Shift+Enter", Some(search.clone())), [Act, Submit]);
        assert_eq!(key("a", Some(search.clone())), [Act]);
        let outside = ElementFacts { in_form: false, ..search };
        assert_eq!(key("Enter", Some(outside)), [Act]);
        assert_eq!(key("Enter", None), [Act, Submit], "focus unknown: judged as a submit");
        let checkbox = ElementFacts {
            tag: "input".into(),
            field: field("checkbox", "", &[]),
            in_form: true,
            ..Default::default()
        };
        assert_eq!(key("Enter", Some(checkbox)), [Act]);
        assert_eq!(key("Space", Some(button("", true, vec![]))), [Act, Submit]);
    }

    #[test]
    fn a_click_or_a_key_without_a_ref_is_judged_by_what_it_reaches() {
        // A coordinate click is classified by the element hit-tested under the point.
        let plain = ElementFacts { tag: "button".into(), field: field("button", "", &[]), ..Default::default() };
        assert_eq!(click(plain), [Act], "a plain button under the point is an act");
        assert_eq!(click(button("", true, vec![])), [Act, Submit], "a submit button under the point submits");
        let text = ElementFacts { tag: "p".into(), ..Default::default() };
        assert_eq!(click(text), [Act]);
        // Over a frame, what the click reaches inside cannot be told.
        let frame = ElementFacts { tag: "iframe".into(), ..Default::default() };
        assert_eq!(click(frame.clone()), [Act, Submit]);
        // A key goes to the focused element: Enter in a form field submits, other keys act.
        let key =
            |key: &str, element: ElementFacts| classify(&ActionFacts::Key { element: Some(element), key: key.into() });
        let body = ElementFacts { tag: "body".into(), ..Default::default() };
        assert_eq!(key("Enter", body.clone()), [Act], "Enter with the focus on the page submits nothing");
        assert_eq!(key("Tab", body), [Act]);
        let address = ElementFacts {
            tag: "input".into(),
            field: field("text", "", &["address"]),
            in_form: true,
            ..Default::default()
        };
        assert_eq!(key("Enter", address.clone()), [Act, Submit]);
        assert_eq!(key("ArrowDown", address), [Act]);
        assert_eq!(key("Enter", frame.clone()), [Act, Submit], "the focus is inside a frame");
        assert_eq!(key("a", frame), [Act]);
    }

    #[test]
    fn a_link_to_another_site_leaves_and_a_download_link_downloads() {
        let link = |href: &str, download: bool| ElementFacts {
            tag: "a".into(),
            href: Some(href.into()),
            download,
            ..Default::default()
        };
        assert_eq!(click(link("https://elsewhere.example/x", false)), [Act, Leave]);
        assert_eq!(click(link("https://pay.shop.example/checkout", false)), [Act], "another host of the site");
        assert_eq!(click(link("http://shop.example:8080/cart", false)), [Act]);
        assert_eq!(click(link("https://SHOP.example./cart", false)), [Act]);
        assert_eq!(click(link("javascript:void(0)", false)), [Act]);
        assert_eq!(click(link("https://shop.example/invoice.pdf", true)), [Act, Download]);
        assert_eq!(classify(&ActionFacts::Click { element: None, site: None }), [Act, Submit]);
    }

    #[test]
    fn navigation_reads_and_leaves_only_for_another_site() {
        let nav = |from: Option<&str>, to: &str| {
            classify(&ActionFacts::Navigate { from: from.map(String::from), to: Some(to.into()) })
        };
        assert_eq!(nav(Some("shop.example"), "shop.example"), [Read]);
        assert_eq!(nav(Some("shop.example"), "bank.example"), [Read, Leave]);
        assert_eq!(nav(Some("www.shop.example"), "pay.shop.example"), [Read], "one site");
        assert_eq!(nav(Some("www.bbc.co.uk"), "shop.co.uk"), [Read, Leave], "two sites under co.uk");
        assert_eq!(nav(Some("127.0.0.1"), "localhost"), [Read, Leave]);
        assert_eq!(nav(None, "bank.example"), [Read]);
        assert_eq!(classify(&ActionFacts::Upload), [Act, Upload]);
        assert_eq!(classify(&ActionFacts::Evaluate), [RunScript]);
        assert_eq!(ActionClass::headline(&[Act, Submit, Payment]), Payment);
        assert_eq!(ActionClass::headline(&[Act, Leave]), Leave);
    }
}
