//! Tasks that come down to reading a name and clicking what carries it: buttons, links,
//! checkboxes, radios, dialogs, tabs, widgets.

use super::words::{between, list, ordinal_before, quoted_after};
use super::{button, instruction, need, need_actionable, start};
use crate::miniwob::agent::{Agent, Failure, Step};

/// click-test: "Click the button."
pub async fn click_test(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let target = page.all("button").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no button"))?;
    a.click(&target).await.map(drop)
}

/// click-test-2, click-test-transfer: "Click button ONE."
pub async fn click_test_named(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Click button ", ".").ok_or_else(|| Failure::undecided(&text))?;
    let target = need(&page, "button", name)?;
    a.click(&target).await.map(drop)
}

/// click-button-sequence: "Click button ONE, then click button TWO."
pub async fn click_button_sequence(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let first = between(&text, "Click button ", ",").ok_or_else(|| Failure::undecided(&text))?;
    let second = between(&text, "then click button ", ".").ok_or_else(|| Failure::undecided(&text))?;
    let (first, second) = (need(&page, "button", first)?, need(&page, "button", second)?);
    a.click(&first).await?;
    a.click(&second).await.map(drop)
}

/// click-button: `Click on the "ok" button.`
pub async fn click_button(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "Click on the ").ok_or_else(|| Failure::undecided(&text))?;
    let target = need(&page, "button", &name)?;
    a.click(&target).await.map(drop)
}

/// click-link: `Click on the link "nam".` The link is a word with a click handler and no role.
pub async fn click_link(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "the link ").ok_or_else(|| Failure::undecided(&text))?;
    let target = need_actionable(&page, &name)?;
    a.click(&target).await.map(drop)
}

/// click-option: "Select X and click Submit." with radios.
pub async fn click_option(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Select ", " and click Submit").ok_or_else(|| Failure::undecided(&text))?;
    let target = need(&page, "radio", name)?;
    a.click(&target).await?;
    button(a, &page, "Submit").await
}

/// click-checkboxes (and -large, -transfer): "Select A, B and click Submit." ("nothing": none).
pub async fn click_checkboxes(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let names = between(&text, "Select ", " and click Submit").ok_or_else(|| Failure::undecided(&text))?;
    let names = if names == "nothing" { Vec::new() } else { list(names) };
    for name in names {
        let target = need(&page, "checkbox", &name)?;
        a.click(&target).await?;
    }
    button(a, &page, "Submit").await
}

/// click-dialog: close the dialog with its "x".
pub async fn click_dialog(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let target = need(&page, "button", "Close")?;
    a.click(&target).await.map(drop)
}

/// click-dialog-2: `Click the button in the dialog box labeled "OK".` ("x" is the close button,
/// which the page names "Close").
pub async fn click_dialog_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let label = quoted_after(&text, "labeled ").ok_or_else(|| Failure::undecided(&text))?;
    let name = if label == "x" { "Close" } else { label.as_str() };
    let target = need(&page, "button", name)?;
    a.click(&target).await.map(drop)
}

/// click-tab: "Click on Tab #2."
pub async fn click_tab(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Click on ", ".").ok_or_else(|| Failure::undecided(&text))?;
    let target = page.find("link", name).or_else(|| page.find("tab", name)).cloned();
    let target = target.ok_or_else(|| Failure::not_shown(format!("no tab \"{name}\"")))?;
    a.click(&target).await.map(drop)
}

/// click-widget: `Click on a "checkbox" widget.` (radio, checkbox, text, textarea, button).
pub async fn click_widget(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let kind = quoted_after(&text, "a ").ok_or_else(|| Failure::undecided(&text))?;
    let instruction_text = text.clone();
    let target = page
        .nodes
        .iter()
        .filter(|n| n.reference.is_some() && n.name != instruction_text)
        .find(|n| match kind.as_str() {
            "radio" => n.role == "radio",
            "checkbox" => n.role == "checkbox",
            "button" => n.role == "button",
            // A one-line field and a text area are both text boxes; servers tell them apart by a
            // `multiline` state (chrome-devtools-mcp) or a `textarea` role.
            "text" => n.role == "textbox" && !n.has("multiline"),
            "textarea" => (n.role == "textbox" && n.has("multiline")) || n.role == "textarea",
            _ => false,
        })
        .cloned();
    let target = target.ok_or_else(|| Failure::not_shown(format!("no {kind} widget told apart")))?;
    a.click(&target).await.map(drop)
}

/// focus-text: "Focus into the textbox."
pub async fn focus_text(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let target = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no textbox"))?;
    a.click(&target).await.map(drop)
}

/// focus-text-2: "Focus into the 2nd input textbox."
pub async fn focus_text_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let n = ordinal_before(&text, "input textbox").ok_or_else(|| Failure::undecided(&text))?;
    let boxes = page.all("textbox");
    let target = boxes.get(n - 1).copied().cloned().ok_or_else(|| Failure::not_shown(format!("no textbox #{n}")))?;
    a.click(&target).await.map(drop)
}
