//! How an exported test finds an element again: by role and accessible name first
//! (`page.getByRole('button', { name: "Add to basket", exact: true })`), inside the region or
//! frame that makes the name unique when the page had several, and by id, test id, placeholder
//! or text only when role and name cannot say it, with a comment saying why.

use super::super::target::ActionTarget;

/// Roles the snapshot shows that are ARIA roles a test can find an element by.
const ARIA_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "treeitem",
    "gridcell",
    "row",
    "heading",
];

/// Whether the snapshot's `role` is an ARIA role `getByRole` takes.
pub fn is_aria_role(role: &str) -> bool {
    ARIA_ROLES.contains(&role)
}

/// `text` as a JavaScript string literal (JSON's, which JavaScript reads the same): page text of
/// any kind stays inside its quotes.
pub fn js(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `text` on one comment line: a line break in page text cannot end the comment.
pub fn comment_text(text: &str) -> String {
    text.chars().map(|c| if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c }).collect()
}

/// `page.getByRole(role, { name, exact: true })`.
pub fn by_role(within: &str, role: &str, name: &str) -> String {
    if name.is_empty() {
        format!("{within}.getByRole({})", js(role))
    } else {
        format!("{within}.getByRole({}, {{ name: {}, exact: true }})", js(role), js(name))
    }
}

/// A located element: the expression, and a comment when it is not found by role and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The Playwright locator expression.
    pub expression: String,
    /// Why the locator is not by role and name alone, when it is not.
    pub why: Option<String>,
}

/// The locator of `target`.
pub fn locate(target: &ActionTarget) -> Located {
    let mut within = "page".to_owned();
    let mut notes = Vec::new();
    if let Some(origin) = &target.frame_origin {
        within = format!("page.frameLocator({})", js(&format!("iframe[src^=\"{}\"]", css_string(origin))));
    }
    if let Some(scope) = &target.scope {
        within = by_role(&within, &scope.role, &scope.name);
        notes.push(format!(
            "{} elements of the page are {} \"{}\"; this one is the only one in its {}",
            target.same_on_page,
            target.role,
            comment_text(&target.name),
            scope.role
        ));
    }
    let nameless = target.name.is_empty() || target.name == crate::snapshot::render::NO_NAME;
    let (mut expression, why) = if is_aria_role(&target.role) && !nameless {
        (by_role(&within, &target.role, &target.name), None)
    } else if let Some(testid) = &target.testid {
        (format!("{within}.getByTestId({})", js(testid)), Some(fallback_reason(target, "its test id")))
    } else if let Some(id) = &target.id {
        let selector = format!("[id=\"{}\"]", css_string(id));
        (format!("{within}.locator({})", js(&selector)), Some(fallback_reason(target, "its id (CSS)")))
    } else if let Some(hint) = &target.hint {
        (
            format!("{within}.getByPlaceholder({}, {{ exact: true }})", js(hint)),
            Some(fallback_reason(target, "its placeholder")),
        )
    } else if !nameless {
        (
            format!("{within}.getByText({}, {{ exact: true }})", js(&target.name)),
            Some(fallback_reason(target, "its text")),
        )
    } else {
        (format!("{within}.getByRole({})", js(&target.role)), Some(fallback_reason(target, "its role alone")))
    };
    notes.extend(why);
    if let Some(nth) = target.nth {
        expression = format!("{expression}.nth({nth})");
        notes.push(format!(
            "{} elements of the page are {} \"{}\" and no region tells them apart: this is number {} of them",
            target.same_on_page,
            target.role,
            comment_text(&target.name),
            nth + 1
        ));
    }
    Located { expression, why: (!notes.is_empty()).then(|| notes.join("; ")) }
}

fn fallback_reason(target: &ActionTarget, by: &str) -> String {
    if is_aria_role(&target.role) {
        format!("found by {by}: the {} has no accessible name", target.role)
    } else {
        format!("found by {by}: \"{}\" is not an ARIA role a test can find it by", comment_text(&target.role))
    }
}

/// `text` inside a double-quoted CSS string.
fn css_string(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c if c.is_control() => vec![' '],
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::target::Scope;

    fn target(role: &str, name: &str) -> ActionTarget {
        ActionTarget {
            element_ref: "e3".into(),
            role: role.into(),
            name: name.into(),
            same_on_page: 1,
            ..ActionTarget::default()
        }
    }

    #[test]
    fn a_unique_role_and_name_is_found_by_role_and_name_alone() {
        let located = locate(&target("button", "Add to basket"));
        assert_eq!(located.expression, "page.getByRole(\"button\", { name: \"Add to basket\", exact: true })");
        assert_eq!(located.why, None);
    }

    #[test]
    fn an_ambiguous_name_is_scoped_by_its_region_and_says_why() {
        let mut t = target("link", "Basket");
        t.same_on_page = 2;
        t.scope = Some(Scope { role: "navigation".into(), name: "Primary".into() });
        let located = locate(&t);
        assert_eq!(
            located.expression,
            "page.getByRole(\"navigation\", { name: \"Primary\", exact: true }).getByRole(\"link\", { name: \"Basket\", exact: true })"
        );
        assert!(located.why.unwrap_or_default().contains("2 elements of the page are link \"Basket\""));
        t.scope = None;
        t.nth = Some(1);
        assert!(locate(&t).expression.ends_with(".nth(1)"));
    }

    #[test]
    fn what_role_and_name_cannot_find_falls_back_with_a_comment() {
        let mut t = target("date", "Delivery day");
        t.id = Some("day\"x".into());
        let located = locate(&t);
        assert_eq!(located.expression, "page.locator(\"[id=\\\"day\\\\\\\"x\\\"]\")");
        assert!(located.why.unwrap_or_default().contains("\"date\" is not an ARIA role"));
        let located = locate(&target("clickable", "Open\nmenu"));
        assert_eq!(located.expression, "page.getByText(\"Open\\nmenu\", { exact: true })");
        assert!(!located.why.unwrap_or_default().contains('\n'));
    }

    #[test]
    fn page_text_stays_inside_its_string_literal() {
        let hostile = "\"); await page.goto(\"https://evil.test\"); //";
        let located = locate(&target("button", hostile));
        let literal = located
            .expression
            .trim_start_matches("page.getByRole(\"button\", { name: ")
            .trim_end_matches(", exact: true })");
        assert_eq!(serde_json::from_str::<String>(literal).ok().as_deref(), Some(hostile));
    }
}
