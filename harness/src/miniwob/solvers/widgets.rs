//! Tasks built on interactive widgets: tabs, collapsible sections, menus, selects, a date
//! picker, autocompletion, sliders, pagination, sortable lists, text areas to scroll.

use std::time::Duration;

use super::words::{after, between, first_number, numbers, ordinal_before, quoted_after};
use super::{button, instruction, need, need_actionable, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};
use crate::miniwob::page::Page;

/// How often, and how far apart, a solver looks again at a page that animates.
const SETTLE: (usize, Duration) = (8, Duration::from_millis(250));

/// click-collapsible: "Expand the section below and click submit."
pub async fn click_collapsible(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let header = page
        .nodes
        .iter()
        .find(|n| n.reference.is_some() && n.name.starts_with("Section"))
        .cloned()
        .ok_or_else(|| Failure::not_shown("no section header with a ref"))?;
    a.click(&header).await?;
    // The section opens with an animation; the Submit button shows once it has.
    let now = a.poll(SETTLE.0, SETTLE.1, |p| p.find("button", "Submit").is_some()).await?;
    button(a, &now, "Submit").await
}

/// click-collapsible-2: `Expand the sections below, to find and click on the link "X".`
pub async fn click_collapsible_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "the link ").ok_or_else(|| Failure::undecided(&text))?;
    let headers: Vec<Node> = page
        .nodes
        .iter()
        .filter(|n| n.reference.is_some() && n.name.trim().starts_with("Section #"))
        .cloned()
        .collect();
    if headers.is_empty() {
        return Err(Failure::not_shown("no section headers with refs"));
    }
    for header in &headers {
        a.click(header).await?;
        let now = a.poll(SETTLE.0, SETTLE.1, |p| section_open(p, header) || p.find_actionable(&name).is_some()).await?;
        if let Some(link) = now.find_actionable(&name).cloned() {
            return a.click(&link).await.map(drop);
        }
    }
    Err(Failure::not_shown(format!("no section showed a link \"{name}\" with a ref")))
}

/// Whether the section under `header` shows its content (something other than a header
/// follows it before the next header).
fn section_open(page: &Page, header: &Node) -> bool {
    let Some(i) = page.nodes.iter().position(|n| n.reference == header.reference) else { return false };
    page.nodes[i + 1..]
        .iter()
        .take_while(|n| !is_section_header(n))
        .any(|n| !n.name.trim().is_empty() && !n.name.trim().starts_with("Section #"))
}

fn is_section_header(n: &Node) -> bool {
    n.reference.is_some()
        && n.name.trim().starts_with("Section #")
        && !matches!(n.role.as_str(), "tabpanel" | "region" | "text")
}

/// click-tab-2 (and -easy, -medium, -hard): `Switch between the tabs to find and click on the
/// link "X".`
pub async fn click_tab_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "the link ").ok_or_else(|| Failure::undecided(&text))?;
    let tabs: Vec<Node> = page.all("tab").into_iter().cloned().collect();
    if tabs.is_empty() {
        return Err(Failure::not_shown("no tabs"));
    }
    let mut now = page.clone();
    for (i, tab) in tabs.iter().enumerate() {
        if i > 0 {
            // Clicking the tab's link (or the tab itself) shows its panel.
            let target = now
                .find("link", &tab.name)
                .or_else(|| now.find("tab", &tab.name))
                .cloned()
                .unwrap_or_else(|| tab.clone());
            a.click(&target).await?;
            now = a.page().await?;
        }
        if let Some(link) = now.find_actionable(&name).cloned() {
            return a.click(&link).await.map(drop);
        }
    }
    Err(Failure::not_shown(format!("no tab showed a link \"{name}\" with a ref")))
}

/// choose-list: "Select X from the list and click Submit."
pub async fn choose_list(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Select ", " from the list").ok_or_else(|| Failure::undecided(&text))?;
    let select = select_field(&page)?;
    a.select(&select, &[name]).await?;
    button(a, &page, "Submit").await
}

/// click-scroll-list: "Select A, B from the scroll list and click Submit." (a multiple select).
pub async fn click_scroll_list(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let names = between(&text, "Select ", " from the scroll list").ok_or_else(|| Failure::undecided(&text))?;
    // The page joins the names with commas only: "and" may be part of one ("Heard Island and
    // McDonald Islands").
    let names: Vec<&str> = names.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
    let select = select_field(&page)?;
    a.select(&select, &names).await?;
    button(a, &page, "Submit").await
}

fn select_field(page: &Page) -> Step<Node> {
    page.nodes
        .iter()
        .find(|n| n.reference.is_some() && matches!(n.role.as_str(), "combobox" | "listbox"))
        .cloned()
        .ok_or_else(|| Failure::not_shown("no select with a ref"))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// choose-date (and -easy, -medium, -nodelay): "Select 03/05/2016 as the date and hit submit."
/// The field is read-only: open the date picker, move to the month, click the day.
pub async fn choose_date(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let date = between(&text, "Select ", " as the date").ok_or_else(|| Failure::undecided(&text))?;
    let parts: Vec<u32> = date.split('/').filter_map(|p| p.parse().ok()).collect();
    let [month, day, year] = parts[..] else { return Err(Failure::undecided(&text)) };
    let field = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no date field"))?;
    pick_date(a, &field, month, day, year).await?;
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// Opens the date picker of `field`, moves to the month, and clicks the day.
pub(super) async fn pick_date(a: &mut Agent<'_>, field: &Node, month: u32, day: u32, year: u32) -> Step {
    a.click(field).await?;
    let wanted = year * 12 + month - 1;
    for _ in 0..24 {
        let now = a.poll(SETTLE.0, SETTLE.1, |p| shown_month(p).is_some()).await?;
        let shown = shown_month(&now).ok_or_else(|| Failure::not_shown("the date picker shows no month"))?;
        if shown == wanted {
            let day = now
                .nodes
                .iter()
                .find(|n| n.reference.is_some() && n.role == "link" && n.label() == day.to_string())
                .cloned()
                .ok_or_else(|| Failure::not_shown(format!("no day {day} with a ref")))?;
            return a.click(&day).await.map(drop);
        }
        let step = if shown > wanted { "Prev" } else { "Next" };
        let control =
            now.find_actionable(step).cloned().ok_or_else(|| Failure::not_shown(format!("no \"{step}\" control")))?;
        a.click(&control).await?;
    }
    Err(Failure::undecided("the date picker never reached the month"))
}

/// The month the date picker shows (`year * 12 + month index`), from its "March 2016" title
/// (read across nodes: a server may give the month and the year a node each).
fn shown_month(page: &Page) -> Option<u32> {
    let words: Vec<&str> = page.nodes.iter().flat_map(|n| n.name.split_whitespace()).collect();
    words.windows(2).find_map(|w| {
        let m = MONTHS.iter().position(|m| *m == w[0])?;
        let y: u32 = w[1].parse().ok()?;
        Some(y * 12 + m as u32)
    })
}

/// use-autocomplete (and -nodelay): `Enter an item that starts with "Ce" and ends with "lic".`
/// Type the start, then pick the suggestion that fits.
pub async fn use_autocomplete(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let prefix = quoted_after(&text, "starts with ").ok_or_else(|| Failure::undecided(&text))?;
    let suffix = quoted_after(&text, "ends with ");
    let field = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no text field"))?;
    pick_suggestion(a, &field, &prefix, |name| {
        name.starts_with(&prefix) && suffix.as_deref().is_none_or(|s| name.ends_with(s))
    })
    .await?;
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// Types `typed` into `field`, waits for the suggestions, and takes the first whose text
/// `fits`: a click when the server gives the suggestion a ref, otherwise the keyboard, as the
/// page itself advises ("use up and down arrow keys to navigate"): Arrow Down to it, then Enter.
pub(super) async fn pick_suggestion(a: &mut Agent<'_>, field: &Node, typed: &str, fits: impl Fn(&str) -> bool) -> Step {
    a.type_text(field, typed).await?;
    let lowered = typed.to_lowercase();
    let is_suggestion = |n: &Node| {
        n.reference != field.reference
            && (n.is_text() || matches!(n.role.as_str(), "menuitem" | "option" | "listitem" | "clickable" | "generic"))
            && n.name.to_lowercase().contains(&lowered)
            && n.name.trim() != typed
    };
    let now = a
        .poll(SETTLE.0, SETTLE.1, |p| p.after_instruction().nodes.iter().any(|n| is_suggestion(n) && fits(&n.name)))
        .await?;
    let area = now.after_instruction();
    // One entry per suggestion: an element and the text inside it read as one.
    let mut suggestions: Vec<&Node> = Vec::new();
    for n in area.nodes.iter().filter(|n| is_suggestion(n)) {
        if suggestions.last().is_none_or(|last| last.name.trim() != n.name.trim()) {
            suggestions.push(n);
        }
    }
    let index =
        suggestions.iter().position(|n| fits(&n.name)).ok_or_else(|| Failure::not_shown("no suggestion that fits"))?;
    let choice = suggestions[index];
    if choice.reference.is_some() && !choice.is_text() {
        return a.click(&choice.clone()).await.map(drop);
    }
    for i in 0..=index {
        a.press("ArrowDown", (i == 0).then_some(field)).await?;
    }
    a.press("Enter", None).await.map(drop)
}

/// search-engine: `Use the textbox to enter "X" and press "Search", then find and click the 7th
/// search result.` Three results a page; pages are numbered links.
pub async fn search_engine(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let query = quoted_after(&text, "enter ").ok_or_else(|| Failure::undecided(&text))?;
    let n = ordinal_before(&text, "search result").ok_or_else(|| Failure::undecided(&text))?;
    let field = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no search field"))?;
    a.type_text(&field, &query).await?;
    button(a, &page, "Search").await?;
    let result_page = (n - 1) / 3 + 1;
    let mut now = a.page().await?;
    if result_page > 1 {
        let link = now
            .find("link", &result_page.to_string())
            .cloned()
            .ok_or_else(|| Failure::not_shown(format!("no link to page {result_page}")))?;
        a.click(&link).await?;
        now = a.page().await?;
    }
    // Results are the links after the search button, before the page links.
    let results: Vec<Node> = now
        .section(
            |n| n.role == "button" && n.label() == "Search",
            |n| n.role == "link" && n.name.trim().parse::<u32>().is_ok() || n.name == "<",
        )
        .nodes
        .into_iter()
        .filter(|n| n.reference.is_some() && n.role == "link")
        .collect();
    let target = results.get((n - 1) % 3).cloned().ok_or_else(|| Failure::not_shown(format!("no result #{n}")))?;
    a.click(&target).await.map(drop)
}

/// phone-book: "Find Sayre in the contact book and click on their address." One contact a page;
/// ">" goes to the next.
pub async fn phone_book(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let person = between(&text, "Find ", " in the contact book").ok_or_else(|| Failure::undecided(&text))?.to_owned();
    let property = if text.contains("phone") {
        "Phone"
    } else if text.contains("email") {
        "Email"
    } else if text.contains("address") {
        "Address"
    } else {
        return Err(Failure::undecided(&text));
    };
    let mut now = page;
    for _ in 0..6 {
        let area = now.after_instruction();
        let on_this_page =
            area.nodes.iter().any(|n| n.label() == person && !n.is_text() || n.is_text() && n.name.trim() == person);
        if on_this_page {
            // The value follows its "Phone:" label.
            let start = area
                .nodes
                .iter()
                .position(|n| n.name.trim().starts_with(property))
                .ok_or_else(|| Failure::not_shown(format!("no {property} line")))?;
            let value = area.nodes[start + 1..]
                .iter()
                .find(|n| n.reference.is_some() && !n.name.trim().is_empty())
                .cloned()
                .ok_or_else(|| Failure::not_shown(format!("the {property} has no ref")))?;
            return a.click(&value).await.map(drop);
        }
        let next = now.find("link", ">").cloned().ok_or_else(|| Failure::not_shown("no \">\" link"))?;
        a.click(&next).await?;
        now = a.page().await?;
    }
    Err(Failure::not_shown(format!("{person} is on no page")))
}

/// click-menu: "Select Alvera>Terza>Ludovika": open each level by hovering its item, then
/// click the leaf.
pub async fn click_menu(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let path = after(&text, "Select ").ok_or_else(|| Failure::undecided(&text))?;
    let steps: Vec<&str> = path.split('>').map(str::trim).collect();
    let Some((leaf, parents)) = steps.split_last() else { return Err(Failure::undecided(&text)) };
    for (i, parent) in parents.iter().enumerate() {
        let now = a.page().await?;
        let item = need(&now, "menuitem", parent)?;
        a.hover(&item).await?;
        let next = steps[i + 1];
        a.poll(SETTLE.0, SETTLE.1, |p| p.find("menuitem", next).is_some()).await?;
    }
    let now = a.page().await?;
    let item = need(&now, "menuitem", leaf)?;
    a.click(&item).await.map(drop)
}

/// click-menu-2: `Click the "Menu" button, and then find and click on the item labeled "Prev".`
/// (Half the episodes name the item by an icon drawn in the instruction: that needs vision.)
pub async fn click_menu_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let Some(label) = quoted_after(&text, "labeled ") else {
        return Err(Failure::undecided("the instruction shows an icon, not a label: that needs vision"));
    };
    let menu =
        page.find_any(&["button", "clickable", "navigation"], "Menu").or_else(|| page.find_actionable("Menu")).cloned();
    let menu = menu.ok_or_else(|| Failure::not_shown("no Menu button with a ref"))?;
    a.click(&menu).await?;
    let now = a.page().await?;
    if let Some(item) = now.find("menuitem", &label).cloned() {
        return a.click(&item).await.map(drop);
    }
    // The playback items are in a submenu.
    let playback = need(&now, "menuitem", "Playback")?;
    a.hover(&playback).await?;
    let now = a.poll(SETTLE.0, SETTLE.1, |p| p.find("menuitem", &label).is_some()).await?;
    let item = need(&now, "menuitem", &label)?;
    a.click(&item).await.map(drop)
}

/// form-sequence-3: "Choose 5ft 9in from the dropdown, then click the button labeled "Yes"."
pub async fn form_sequence_3(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let choice = between(&text, "Choose ", " from the dropdown").ok_or_else(|| Failure::undecided(&text))?;
    let label = quoted_after(&text, "labeled ").ok_or_else(|| Failure::undecided(&text))?;
    match select_field(&page) {
        Ok(select) => {
            a.select(&select, &[choice]).await?;
        }
        // A dropdown drawn by script over a hidden select: open it as a person does (the
        // control before the buttons), then click the choice.
        Err(no_select) => {
            let opener = page
                .after_instruction()
                .until(|n| n.role == "button")
                .nodes
                .into_iter()
                .find(|n| n.reference.is_some() && n.role == "clickable")
                .ok_or(no_select)?;
            a.click(&opener).await?;
            let open = a.page().await?;
            let item = need_actionable(&open, choice)?;
            a.click(&item).await?;
        }
    }
    let now = a.page().await?;
    button(a, &now, &label).await
}

/// Presses keys on a slider's handle until the value shown after it reads `target`: Home (or
/// End) first, then Page Up and arrows. `value` reads the current value from a page.
async fn set_slider(
    a: &mut Agent<'_>,
    handle: &Node,
    target: i64,
    min: Option<i64>,
    value: impl Fn(&Page) -> Option<i64>,
) -> Step {
    let mut now = a.page().await?;
    let mut current = value(&now).ok_or_else(|| Failure::not_shown("the slider's value is not shown"))?;
    let mut first = true;
    if let Some(min) = min
        && (target - min) < (current - target).abs()
    {
        a.press("Home", Some(handle)).await?;
        first = false;
        now = a.page().await?;
        current = value(&now).unwrap_or(current);
    }
    for _ in 0..120 {
        if current == target {
            return Ok(());
        }
        let key = if current < target { "ArrowRight" } else { "ArrowLeft" };
        a.press(key, first.then_some(handle)).await?;
        first = false;
        now = a.page().await?;
        let next = value(&now).ok_or_else(|| Failure::not_shown("the slider's value is not shown"))?;
        if next == current {
            // A vertical slider moves the other way round with left and right? Up and down move
            // every orientation; try those once.
            let key = if current < target { "ArrowUp" } else { "ArrowDown" };
            a.press(key, None).await?;
            now = a.page().await?;
            let moved = value(&now).ok_or_else(|| Failure::not_shown("the slider's value is not shown"))?;
            if moved == current {
                return Err(Failure::not_shown("the slider does not move with the keyboard"));
            }
            current = moved;
            continue;
        }
        current = next;
    }
    Err(Failure::undecided("the slider never reached the value"))
}

/// use-slider: "Select 7 with the slider and hit Submit." The handle is the element with a ref
/// before the value it shows.
pub async fn use_slider(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let target = first_number(&text).ok_or_else(|| Failure::undecided(&text))?;
    let handle =
        slider_handles(&page).into_iter().next().ok_or_else(|| Failure::not_shown("no slider handle with a ref"))?;
    set_slider(a, &handle, target, None, |p| slider_values(p).first().copied()).await?;
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// use-slider-2: "Set the sliders to the combination [12,3,11] and submit."
pub async fn use_slider_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let combination = numbers(&text);
    let handles = slider_handles(&page);
    if handles.len() != combination.len() || handles.is_empty() {
        return Err(Failure::not_shown(format!("{} slider handles for {} values", handles.len(), combination.len())));
    }
    for (i, (handle, target)) in handles.iter().zip(&combination).enumerate() {
        set_slider(a, handle, *target, Some(0), |p| slider_values(p).get(i).copied()).await?;
    }
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// Slider handles: elements with a ref followed by the number they show (and not the element
/// that shows the number).
fn slider_handles(page: &Page) -> Vec<Node> {
    let area = page.after_instruction();
    area.nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            n.reference.is_some()
                && !n.is_text()
                && n.role != "button"
                && n.name.trim().parse::<i64>().is_err()
                && area.nodes.get(i + 1).is_some_and(|next| next.is_text() && next.name.trim().parse::<i64>().is_ok())
        })
        .map(|(_, n)| n.clone())
        .collect()
}

/// The numbers shown after the instruction, in order.
fn slider_values(page: &Page) -> Vec<i64> {
    page.after_instruction().nodes.iter().filter(|n| n.is_text()).filter_map(|n| n.name.trim().parse().ok()).collect()
}

/// form-sequence: "Select 2 with the slider, click the 1st checkbox, then hit Submit."
pub async fn form_sequence(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let target = first_number(&text).ok_or_else(|| Failure::undecided(&text))?;
    let n = ordinal_before(&text, "checkbox").ok_or_else(|| Failure::undecided(&text))?;
    let handle =
        slider_handles(&page).into_iter().next().ok_or_else(|| Failure::not_shown("no slider handle with a ref"))?;
    set_slider(a, &handle, target, None, |p| slider_values(p).first().copied()).await?;
    let now = a.page().await?;
    let boxes = now.all("checkbox");
    let checkbox =
        boxes.get(n - 1).map(|b| (*b).clone()).ok_or_else(|| Failure::not_shown(format!("no checkbox #{n}")))?;
    a.click(&checkbox).await?;
    button(a, &now, "Submit").await
}

/// scroll-text: "Find the last word in the text area, enter it into the text field and hit
/// Submit." The text area's whole text is its value; no scrolling is needed to read it.
pub async fn scroll_text(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let fields: Vec<&Node> = page.all("textbox");
    let area = fields.iter().find(|f| f.value.as_deref().is_some_and(|v| !v.trim().is_empty()));
    let area = area.ok_or_else(|| Failure::not_shown("the text area's text is not shown"))?;
    let last = area.value.as_deref().unwrap_or("").split_whitespace().last().unwrap_or("");
    let word: String = last.chars().filter(|c| c.is_alphanumeric()).collect();
    let input = fields.iter().find(|f| f.value.as_deref().is_none_or(|v| v.trim().is_empty())).map(|f| (*f).clone());
    let input = input.ok_or_else(|| Failure::not_shown("no empty text field"))?;
    a.type_text(&input, &word).await?;
    button(a, &page, "Submit").await
}

/// scroll-text-2: "Scroll the textarea to the bottom of the text hit submit."
pub async fn scroll_text_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let down = if text.contains("to the bottom") {
        true
    } else if text.contains("to the top") {
        false
    } else {
        return Err(Failure::undecided(&text));
    };
    let area = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no text area"))?;
    a.scroll(Some(&area), if down { 100_000 } else { -100_000 }).await?;
    button(a, &page, "Submit").await
}

/// sign-agreement: "Click the cancel button." or `Scroll to the bottom of the textarea, enter
/// the name "X" then press "Agree"` (the field and the buttons unlock once scrolled).
pub async fn sign_agreement(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    if text.starts_with("Click the cancel button") {
        return button(a, &page, "Cancel").await;
    }
    let name = quoted_after(&text, "the name ").ok_or_else(|| Failure::undecided(&text))?;
    let press = quoted_after(&text, "press ").ok_or_else(|| Failure::undecided(&text))?;
    let area = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no text area"))?;
    a.scroll(Some(&area), 100_000).await?;
    let now = a.page().await?;
    let field = now.all("textbox").into_iter().nth(1).cloned().ok_or_else(|| Failure::not_shown("no name field"))?;
    a.type_text(&field, &name).await?;
    button(a, &now, &press).await
}

/// highlight-text: "Highlight the text in the paragraph below and click submit."
pub async fn highlight_text(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let paragraph = page
        .after_instruction()
        .nodes
        .into_iter()
        .find(|n| n.is_text() || (n.reference.is_some() && n.role == "paragraph"))
        .ok_or_else(|| Failure::not_shown("no paragraph"))?;
    a.select_text(&paragraph).await?;
    button(a, &page, "Submit").await
}

/// highlight-text-2: "Highlight the text in the 2nd paragraph and click submit."
pub async fn highlight_text_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let n = ordinal_before(&text, "paragraph").ok_or_else(|| Failure::undecided(&text))?;
    let paragraphs: Vec<Node> = page.after_instruction().nodes.into_iter().filter(Node::is_text).collect();
    let paragraph = paragraphs.get(n - 1).cloned().ok_or_else(|| Failure::not_shown(format!("no paragraph #{n}")))?;
    a.select_text(&paragraph).await?;
    button(a, &page, "Submit").await
}

/// button-delay: "Click button ONE, wait 2 seconds, then click button TWO." The page times the
/// gap between the two clicks; the solver waits the seconds less the time its first click took.
pub async fn button_delay(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let seconds = between(&text, "wait ", " second")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .ok_or_else(|| Failure::undecided(&text))?;
    let (one, two) = (need(&page, "button", "ONE")?, need(&page, "button", "TWO")?);
    // Each click lands about as far into its call as the other, so the gap between them is
    // the wait plus the first call's duration.
    let started = std::time::Instant::now();
    a.click(&one).await?;
    let took = started.elapsed();
    let wait = Duration::from_secs(seconds).saturating_sub(took);
    tokio::time::sleep(wait).await;
    a.click(&two).await.map(drop)
}

/// drag-items: "Drag Gerda to the 3rd position."
pub async fn drag_items(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Drag ", " to the").ok_or_else(|| Failure::undecided(&text))?;
    let n = ordinal_before(&text, "position").ok_or_else(|| Failure::undecided(&text))?;
    let items = list_items(&page);
    let from = items
        .iter()
        .find(|i| i.label() == name)
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("no item \"{name}\" with a ref")))?;
    let to = items.get(n - 1).cloned().ok_or_else(|| Failure::not_shown(format!("no item #{n} with a ref")))?;
    if from.reference == to.reference {
        return Ok(());
    }
    a.drag(&from, &to).await.map(drop)
}

/// drag-items-grid: "Drag Marcille to the bottom right." (a 3×3 or larger grid of items).
pub async fn drag_items_grid(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = between(&text, "Drag ", " to the").ok_or_else(|| Failure::undecided(&text))?;
    let place = after(&text, " to the ")
        .map(|p| p.trim_end_matches('.').to_owned())
        .ok_or_else(|| Failure::undecided(&text))?;
    let items = list_items(&page);
    // The grid is filled row by row; its width is the square root of the item count.
    let width = (items.len() as f64).sqrt().round() as usize;
    if width == 0 {
        return Err(Failure::not_shown("no items with refs"));
    }
    let rows = items.len().div_ceil(width);
    let (row, col) = match place.as_str() {
        "top left" => (0, 0),
        "top center" => (0, width / 2),
        "top right" => (0, width - 1),
        "center left" | "left center" => (rows / 2, 0),
        "center" => (rows / 2, width / 2),
        "center right" | "right center" => (rows / 2, width - 1),
        "bottom left" => (rows - 1, 0),
        "bottom center" => (rows - 1, width / 2),
        "bottom right" => (rows - 1, width - 1),
        _ => return Err(Failure::undecided(&text)),
    };
    let from = items
        .iter()
        .find(|i| i.label() == name)
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("no item \"{name}\" with a ref")))?;
    let to = items.get(row * width + col).cloned().ok_or_else(|| Failure::not_shown("no item at that place"))?;
    if from.reference == to.reference {
        return Ok(());
    }
    a.drag(&from, &to).await.map(drop)
}

/// drag-sort-numbers: "Sort the numbers in increasing order, starting with the lowest number
/// at the top of the list." Moves one item at a time (a selection sort), reading the list again
/// after each move.
pub async fn drag_sort_numbers(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let count = list_items(&page).len();
    if count == 0 {
        return Err(Failure::not_shown("no list items with refs"));
    }
    for position in 0..count {
        let now = a.page().await?;
        let items = list_items(&now);
        let values: Vec<i64> = items.iter().map(|i| i.name.trim().parse().unwrap_or(i64::MAX)).collect();
        let smallest = (position..items.len()).min_by_key(|&i| values[i]).unwrap_or(position);
        if smallest != position {
            a.drag(&items[smallest], &items[position]).await?;
        }
    }
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// Items of a list with refs, named by their text: list items, or (a server that does not call
/// them list items) the named elements with refs between the instruction and the first button.
fn list_items(page: &Page) -> Vec<Node> {
    let nodes = &page.nodes;
    let items: Vec<Node> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.reference.is_some() && n.role == "listitem")
        .map(|(i, n)| {
            let mut item = n.clone();
            if item.name.is_empty() {
                item.name = nodes[i + 1..]
                    .iter()
                    .take_while(|c| c.depth > n.depth)
                    .filter(|c| !c.name.is_empty())
                    .map(|c| c.name.clone())
                    .next()
                    .unwrap_or_default();
            }
            item
        })
        .collect();
    if !items.is_empty() {
        return items;
    }
    page.after_instruction()
        .until(|n| n.role == "button")
        .nodes
        .into_iter()
        .filter(|n| n.reference.is_some() && !n.name.trim().is_empty())
        .collect()
}

/// resize-textarea: "Resize the textarea so that the width is smaller than its initial size
/// then press Submit." The resize handle is dragged by an offset.
pub async fn resize_textarea(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let larger = text.contains("larger");
    let width = text.contains("width");
    let area = page.all("textbox").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no text area"))?;
    let d = if larger { 30 } else { -30 };
    let (dx, dy) = if width { (d, 0) } else { (0, d) };
    // The handle sits at the area's bottom-right corner; servers that drag by an offset start
    // from the element's corner when it is a resizable area.
    a.drag_by(&area, dx, dy).await?;
    button(a, &page, "Submit").await
}

/// stock-market: "Buy ABC stock when the price is less than $42.30." Watches the price and buys.
pub async fn stock_market(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let threshold: f64 = after(&text, "less than $")
        .and_then(|t| t.trim_end_matches('.').parse().ok())
        .ok_or_else(|| Failure::undecided(&text))?;
    let buy = need(&page, "button", "Buy")?;
    let price = |p: &Page| -> Option<f64> {
        p.after_instruction().nodes.iter().find_map(|n| {
            let at = n.name.find('$')?;
            n.name[at + 1..].split_whitespace().next()?.parse().ok()
        })
    };
    // The price moves every 100 ms for 10 s; look about as often.
    for _ in 0..120 {
        let now = a.snapshot().await?;
        if price(&now).is_some_and(|p| p <= threshold) {
            return a.click(&buy).await.map(drop);
        }
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
    Err(Failure::undecided("the price never fell below the threshold"))
}

/// identify-shape: "Click the button that best describes the figure below." A figure the server
/// shows as a letter or a digit can be told; a drawn shape cannot without vision.
pub async fn identify_shape(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let figure: Vec<String> = page
        .after_instruction()
        .until(|n| n.role == "button")
        .nodes
        .iter()
        .filter(|n| !n.name.trim().is_empty())
        .map(|n| n.name.trim().to_owned())
        .collect();
    let answer = match figure.first().map(String::as_str) {
        Some(t) if t.chars().count() == 1 && t.chars().all(|c| c.is_ascii_digit()) => "Number",
        Some(t) if t.chars().count() == 1 && t.chars().all(char::is_alphabetic) => "Letter",
        _ => {
            return Err(Failure::not_shown(
                "the figure is drawn, with no text to read: telling its shape needs vision",
            ));
        }
    };
    button(a, &page, answer).await
}

/// click-pie (and -nodelay): `Expand the pie menu below and click on the item labeled "A".`
/// The menu opens from its centre, the control drawn as "+"; its items are on the page,
/// folded, before it opens.
pub async fn click_pie(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let label = quoted_after(&text, "labeled ").ok_or_else(|| Failure::undecided(&text))?;
    let opener = need_actionable(&page, "+")?;
    let item = need_actionable(&page, &label)?;
    a.click(&opener).await?;
    a.click(&item).await.map(drop)
}

/// navigate-tree: `Navigate through the file tree. Find and click on the folder or file named
/// "X".` Clicking a folder opens it; clicking a file that is not X ends the episode. Only names
/// the reply shows are clicked, and a closed folder can only be told from a file by its icon.
pub async fn navigate_tree(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "named ").ok_or_else(|| Failure::undecided(&text))?;
    match page.after_instruction().find_actionable(&name).cloned() {
        Some(target) => a.click(&target).await.map(drop),
        None => Err(Failure::not_shown(format!(
            "\"{name}\" is in a closed folder, and the reply does not say which names are folders (only their icon does)"
        ))),
    }
}

/// ascending-numbers: "Click on the numbers in ascending order." Clicking 1 hides every number
/// behind a blank square, laid out in the numbers' order; the rest are clicked in that order.
pub async fn ascending_numbers(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let one = page
        .after_instruction()
        .find_actionable("1")
        .cloned()
        .ok_or_else(|| Failure::not_shown("no \"1\" with a ref"))?;
    a.click(&one).await?;
    let now = a.page().await?;
    let squares: Vec<Node> = now
        .after_instruction()
        .nodes
        .into_iter()
        .filter(|n| n.reference.is_some() && !n.is_text() && n.name.trim().is_empty() && n.role != "img")
        .collect();
    if squares.is_empty() {
        return Err(Failure::not_shown("the hidden numbers have no refs"));
    }
    for square in squares {
        a.click(&square).await?;
    }
    Ok(())
}
