//! Tasks of their own kind: a ticket to buy by price or duration, a food order, a terminal, a
//! rich text editor.

use super::words::{after, between};
use super::{button, instruction, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};
use crate::miniwob::page::Page;

/// buy-ticket: "Buy the ticket with the cheapest cost." (or most expensive cost, shortest or
/// longest duration). Each trip shows its duration, then a "Book for $390" button.
pub async fn buy_ticket(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let by_price = text.contains("cost");
    let highest = text.contains("most expensive") || text.contains("longest");
    if !by_price && !text.contains("duration") {
        return Err(Failure::undecided(&text));
    }
    let mut best: Option<(u64, Node)> = None;
    let mut duration: Option<u64> = None;
    for node in &page.nodes {
        if let Some(minutes) = parse_duration(&node.name) {
            duration = Some(minutes);
        }
        if node.role == "button" && node.name.starts_with("Book for $") {
            let price: u64 = node
                .name
                .trim_start_matches("Book for $")
                .trim()
                .parse()
                .map_err(|_| Failure::undecided(&node.name))?;
            let key = if by_price {
                price
            } else {
                duration.take().ok_or_else(|| Failure::not_shown("a trip without its duration"))?
            };
            let better = best.as_ref().is_none_or(|(k, _)| if highest { key > *k } else { key < *k });
            if better {
                best = Some((key, node.clone()));
            }
        }
    }
    let (_, ticket) = best.ok_or_else(|| Failure::not_shown("no tickets listed"))?;
    a.click(&ticket).await.map(drop)
}

/// "3h 20m" → 200.
pub(super) fn parse_duration(text: &str) -> Option<u64> {
    let (h, m) = text.trim().split_once("h ")?;
    Some(h.trim().parse::<u64>().ok()? * 60 + m.trim().strip_suffix('m')?.parse::<u64>().ok()?)
}

/// order-food: "Order one of each item: A, B" or "Order 3 items that are vegan". Each menu item
/// shows its name, its kinds (images named "vegan", "meat"…) and a "+" to add one.
pub async fn order_food(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let items = menu(&page);
    let mut adds: Vec<Node> = Vec::new();
    if let Some(names) = after(&text, "Order one of each item: ") {
        for name in names.split(", ") {
            let item = items
                .iter()
                .find(|i| i.name == name.trim())
                .ok_or_else(|| Failure::not_shown(format!("no menu item \"{name}\"")))?;
            adds.push(item.add.clone().ok_or_else(|| Failure::not_shown(format!("the \"+\" of {name} has no ref")))?);
        }
    } else if let Some(count) =
        between(&text, "Order ", " items that are ").and_then(|n| n.trim().parse::<usize>().ok())
    {
        let kind = after(&text, " items that are ").unwrap_or("").trim();
        let item = items
            .iter()
            .find(|i| i.kinds.iter().any(|k| k == kind))
            .ok_or_else(|| Failure::not_shown(format!("no {kind} item")))?;
        let add =
            item.add.clone().ok_or_else(|| Failure::not_shown(format!("the \"+\" of {} has no ref", item.name)))?;
        adds.extend(std::iter::repeat_n(add, count));
    } else {
        return Err(Failure::undecided(&text));
    }
    for add in adds {
        a.click(&add).await?;
    }
    let now = a.page().await?;
    button(a, &now, "Order!").await
}

/// One menu item as the page shows it.
struct MenuItem {
    name: String,
    kinds: Vec<String>,
    add: Option<Node>,
}

/// The menu: a name, the images naming its kinds, then its "+".
fn menu(page: &Page) -> Vec<MenuItem> {
    let mut items: Vec<MenuItem> = Vec::new();
    for node in &page.after_instruction().nodes {
        let label = node.name.trim();
        if node.role == "img" {
            if let Some(item) = items.last_mut() {
                item.kinds.push(label.to_owned());
            }
        } else if label == "+" || label.ends_with(" +") {
            if let Some(item) = items.last_mut()
                && item.add.is_none()
            {
                item.add = node.reference.is_some().then(|| node.clone()).filter(|_| label == "+");
            }
        } else if label.starts_with("![") {
            // Sightline writes images inline: `![vegan]![gluten-free]`.
            if let Some(item) = items.last_mut() {
                item.kinds.extend(label.split("![").filter_map(|k| k.strip_suffix(']')).map(str::to_owned));
            }
        } else if !label.is_empty()
            && label != "-"
            && node.role != "heading"
            && (node.is_text() || node.reference.is_none())
        {
            if items.last().is_some_and(|i| i.name == label) {
                continue;
            }
            items.push(MenuItem { name: label.to_owned(), kinds: Vec::new(), add: None });
        }
    }
    items
}

/// terminal: "Use the terminal below to delete a file ending with the extension .gpg" (or "that
/// has no file extension"). Types `ls`, reads the listing, then `rm` the file, one key at a time
/// (the terminal reads key presses, not text put into a field).
pub async fn terminal(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let extension = if text.contains("no file extension") {
        None
    } else {
        Some(
            after(&text, "extension ")
                .ok_or_else(|| Failure::undecided(&text))?
                .trim()
                .trim_end_matches('.')
                .trim_start_matches('.')
                .to_owned(),
        )
    };
    // A person clicks into the terminal before typing: it takes focus by itself only a moment
    // after the episode starts, and keys before that are lost.
    if let Some(terminal) =
        page.after_instruction().nodes.iter().find(|n| n.reference.is_some() && n.name.contains("user$")).cloned()
    {
        a.click(&terminal).await?;
    }
    keys(a, "ls").await?;
    let now = a.page().await?;
    let listing = ls_output(&now).ok_or_else(|| {
        Failure::not_shown("the terminal shows no file listing after `ls` (did the key presses reach it?)")
    })?;
    let file = listing
        .split_whitespace()
        .find(|f| match &extension {
            Some(ext) => f.ends_with(&format!(".{ext}")),
            None => !f.contains('.'),
        })
        .ok_or_else(|| {
            Failure::not_shown(format!(
                "no file that fits in \"{listing}\" (the terminal may not have seen the letters of `ls`)"
            ))
        })?
        .to_owned();
    keys(a, &format!("rm {file}")).await
}

/// What the terminal printed after its last `ls`: the text between that prompt and the next,
/// read from the page's texts and from the names of elements that hold text (a server may show
/// the whole terminal as one element), and the letters typed as separate pieces ("l s").
fn ls_output(page: &Page) -> Option<String> {
    let shown: Vec<&str> =
        page.nodes.iter().filter(|n| n.is_text() || n.reference.is_some()).map(|n| n.name.as_str()).collect();
    let all = shown.join("\n");
    all.rsplit("user$").find_map(|segment| {
        let segment = segment.trim_start();
        let rest = segment.strip_prefix("ls").or_else(|| segment.strip_prefix("l s"))?;
        let listing = rest.replace('█', " ");
        let listing = listing.trim();
        (!listing.is_empty()).then(|| listing.to_owned())
    })
}

/// Presses each character of `text`, then Enter, where focus is.
async fn keys(a: &mut Agent<'_>, text: &str) -> Step {
    for c in text.chars() {
        let key = if c == ' ' { "Space".to_owned() } else { c.to_string() };
        a.press(&key, None).await?;
    }
    a.press("Enter", None).await.map(drop)
}

/// text-editor: "Using the text editor, give everything the style bold and press Submit." (or
/// one word, or a color). Styles come from the toolbar's nameless buttons, in the editor's order
/// (color, bold, italic, underline); a single word must be selected first.
pub async fn text_editor(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    if text.contains(" the color ") {
        return Err(Failure::undecided(
            "a color is picked from swatches that only show their color: that needs vision",
        ));
    }
    let style = after(&text, "the style ")
        .and_then(|s| s.split_whitespace().next())
        .ok_or_else(|| Failure::undecided(&text))?;
    // Bold, italic and underline are the toolbar's last three nameless buttons (a color picker
    // may come before them).
    let from_end = match style {
        "bold" => 3,
        "italics" => 2,
        "underlined" => 1,
        _ => return Err(Failure::undecided(&text)),
    };
    let toolbar: Vec<Node> = page
        .nodes
        .iter()
        .filter(|n| n.reference.is_some() && n.role == "button" && n.name.trim().is_empty())
        .cloned()
        .collect();
    let style_button = toolbar
        .len()
        .checked_sub(from_end)
        .and_then(|i| toolbar.get(i))
        .cloned()
        .ok_or_else(|| Failure::not_shown("the toolbar's buttons have no refs"))?;
    // The editor: a text box, or the element with a ref that holds the text.
    let area = page.after_instruction();
    let editor = page
        .all("textbox")
        .into_iter()
        .next()
        .or_else(|| {
            area.nodes.iter().find(|n| n.reference.is_some() && n.role != "button" && !n.name.trim().is_empty())
        })
        .cloned()
        .ok_or_else(|| Failure::not_shown("no editor"))?;
    if text.contains("everything") {
        a.press("Control+a", Some(&editor)).await?;
    } else {
        // The word must be selected on its own: that takes a text selection.
        a.select_text(&editor).await?;
    }
    a.click(&style_button).await?;
    let now = a.page().await?;
    button(a, &now, "Submit").await
}
