//! Tasks about filling fields: text to copy from the instruction or the page, numbers to
//! compute, labels that are not tied to their fields, tables to read.

use super::words::{after, between, first_number, numbers, ordinal_before, quoted_after};
use super::{button, instruction, need, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};
use crate::miniwob::page::Page;

/// Roles a one-line text field shows as.
const FIELDS: &[&str] = &["textbox", "searchbox", "spinbutton", "combobox"];

/// The `n`th (from 1) text field of `page`.
fn field(page: &Page, n: usize) -> Step<Node> {
    let fields: Vec<&Node> =
        page.nodes.iter().filter(|n| n.reference.is_some() && FIELDS.contains(&n.role.as_str())).collect();
    fields.get(n.wrapping_sub(1)).map(|f| (*f).clone()).ok_or_else(|| Failure::not_shown(format!("no text field #{n}")))
}

/// The button (or clickable) that submits: the first of `names` the page shows with a ref.
fn submit_control(page: &Page, names: &[&str]) -> Step<Node> {
    names
        .iter()
        .find_map(|name| page.find("button", name).or_else(|| page.find_actionable(name)))
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("no {} to submit with", names.join(" or "))))
}

/// enter-text, enter-text-dynamic: `Enter "X" into the text field and press Submit.`
pub async fn enter_text(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let value = quoted_after(&text, "Enter ").ok_or_else(|| Failure::undecided(&text))?;
    a.type_text(&field(&page, 1)?, &value).await?;
    button(a, &page, "Submit").await
}

/// enter-text-2: `Type "X" in all upper case letters in the text input and press Submit.`
pub async fn enter_text_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let value = quoted_after(&text, "Type ").ok_or_else(|| Failure::undecided(&text))?;
    let value = if text.contains("upper case") {
        value.to_uppercase()
    } else if text.contains("lower case") {
        value.to_lowercase()
    } else {
        return Err(Failure::undecided(&text));
    };
    a.type_text(&field(&page, 1)?, &value).await?;
    button(a, &page, "Submit").await
}

/// enter-password: `Enter the password "X" into both text fields and press submit.`
pub async fn enter_password(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let password = quoted_after(&text, "password ").ok_or_else(|| Failure::undecided(&text))?;
    a.fill(&[(field(&page, 1)?, password.clone()), (field(&page, 2)?, password)]).await?;
    button(a, &page, "Submit").await
}

/// The field a label names: tied to it (its accessible name), or the first field after the
/// label's text.
fn labelled(page: &Page, label: &str) -> Step<Node> {
    page.nodes
        .iter()
        .find(|n| n.reference.is_some() && FIELDS.contains(&n.role.as_str()) && n.label() == label)
        .or_else(|| page.after_text(label, FIELDS))
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("no field labelled \"{label}\"")))
}

/// login-user: `Enter the username "U" and the password "P" into the text fields and press login.`
pub async fn login_user(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let user = quoted_after(&text, "username ").ok_or_else(|| Failure::undecided(&text))?;
    let password = quoted_after(&text, "password ").ok_or_else(|| Failure::undecided(&text))?;
    a.fill(&[(labelled(&page, "Username")?, user), (labelled(&page, "Password")?, password)]).await?;
    button(a, &page, "Login").await
}

/// login-user-popup: the same, but focusing a field may open a popup ("Exit to home page?")
/// that must be cancelled, after which the field is typed again.
pub async fn login_user_popup(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let user = quoted_after(&text, "username ").ok_or_else(|| Failure::undecided(&text))?;
    let password = quoted_after(&text, "password ").ok_or_else(|| Failure::undecided(&text))?;
    for (label, value) in [("Username", user), ("Password", password)] {
        let target = labelled(&page, label)?;
        let typed = a.type_text(&target, &value).await;
        // Whether or not typing went through, a popup that opened must be cancelled first.
        let popup = a.look_for(|n| n.role == "button" && n.label() == "Cancel").await?;
        if let Some(cancel) = popup {
            a.click(&cancel).await?;
            a.type_text(&target, &value).await?;
        } else {
            typed?;
        }
    }
    button(a, &page, "OK").await
}

/// find-word: "Find the 3rd word in the paragraph, type that into the textbox and press Submit."
pub async fn find_word(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let n = ordinal_before(&text, "word").ok_or_else(|| Failure::undecided(&text))?;
    let paragraph = page.after_instruction().until(|n| n.role == "textbox").texts().join(" ");
    let word = paragraph.split_whitespace().nth(n - 1).ok_or_else(|| Failure::not_shown(format!("no word #{n}")))?;
    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    a.type_text(&field(&page, 1)?, &word).await?;
    button(a, &page, "Submit").await
}

/// text-transform: type the letters shown below the instruction (each drawn skewed).
pub async fn text_transform(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let letters: String = page.after_instruction().until(|n| n.role == "textbox").texts().concat();
    let letters: String = letters.split_whitespace().collect();
    if letters.is_empty() {
        return Err(Failure::not_shown("no letters to copy"));
    }
    a.type_text(&field(&page, 1)?, &letters).await?;
    button(a, &page, "Submit").await
}

/// simple-arithmetic: "7 x 3 =".
pub async fn simple_arithmetic(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let problem = page.after_instruction().until(|n| n.role == "textbox").texts().join(" ");
    let terms: Vec<&str> = problem.split_whitespace().collect();
    let answer = match terms.as_slice() {
        [x, op, y, "=", ..] => {
            let (x, y): (i64, i64) = (
                x.parse().map_err(|_| Failure::undecided(&problem))?,
                y.parse().map_err(|_| Failure::undecided(&problem))?,
            );
            match *op {
                "+" => x + y,
                "-" => x - y,
                "x" | "*" | "×" => x * y,
                _ => return Err(Failure::undecided(&problem)),
            }
        }
        _ => return Err(Failure::undecided(&problem)),
    };
    a.type_text(&field(&page, 1)?, &answer.to_string()).await?;
    button(a, &page, "Submit").await
}

/// simple-algebra: "x - 3 = 12", "4 + x = 9", "5 - x = 1".
pub async fn simple_algebra(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    // The equation is the first text after the instruction ("x =" labels the field after it).
    let area = page.after_instruction();
    let problem = area.texts().first().map(|t| (*t).to_owned()).unwrap_or_default();
    let terms: Vec<&str> = problem.split_whitespace().collect();
    let int = |s: &str| s.parse::<i64>().map_err(|_| Failure::undecided(&problem));
    let answer = match terms.as_slice() {
        ["x", op, d, "=", r, ..] => match *op {
            "+" => int(r)? - int(d)?,
            "-" => int(r)? + int(d)?,
            _ => return Err(Failure::undecided(&problem)),
        },
        [d, op, "x", "=", r, ..] => match *op {
            "+" => int(r)? - int(d)?,
            "-" => int(d)? - int(r)?,
            _ => return Err(Failure::undecided(&problem)),
        },
        _ => return Err(Failure::undecided(&problem)),
    };
    a.type_text(&field(&page, 1)?, &answer.to_string()).await?;
    button(a, &page, "Submit").await
}

/// copy-paste: copy the text area's text into the text input. The text area is the field that
/// shows a value; the input the one that does not.
pub async fn copy_paste(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let fields: Vec<&Node> = page.all("textbox");
    let source = fields.iter().find(|f| f.value.as_deref().is_some_and(|v| !v.is_empty()));
    let target = fields.iter().find(|f| f.value.as_deref().is_none_or(str::is_empty));
    let (Some(source), Some(target)) = (source, target) else {
        return Err(Failure::not_shown("no text area with text beside an empty input"));
    };
    let text = source.value.clone().unwrap_or_default();
    let target = (*target).clone();
    a.type_text(&target, &text).await?;
    button(a, &page, "Submit").await
}

/// copy-paste-2: "Copy the text from the 2nd text area below and paste it into the text input".
pub async fn copy_paste_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let n = ordinal_before(&text, "text area").ok_or_else(|| Failure::undecided(&text))?;
    let fields: Vec<&Node> = page.all("textbox");
    let areas: Vec<&&Node> = fields.iter().filter(|f| f.value.as_deref().is_some_and(|v| !v.is_empty())).collect();
    let source = areas.get(n - 1).ok_or_else(|| Failure::not_shown(format!("no text area #{n} with text")))?;
    let target = fields
        .iter()
        .rev()
        .find(|f| f.value.as_deref().is_none_or(str::is_empty))
        .ok_or_else(|| Failure::not_shown("no empty text input"))?;
    let (value, target) = (source.value.clone().unwrap_or_default(), (*target).clone());
    a.type_text(&target, &value).await?;
    button(a, &page, "Submit").await
}

/// Texts and the names of table cells, in order: what a reader sees of a table.
fn cells(page: &Page) -> Vec<&str> {
    page.nodes.iter().filter(|n| n.is_text() || (is_cell(n) && !n.name.is_empty())).map(|n| n.name.as_str()).collect()
}

fn is_cell(n: &Node) -> bool {
    matches!(n.role.as_str(), "cell" | "gridcell" | "rowheader" | "columnheader")
}

/// The value beside `key` in a two-column table (cells read in order: key, value, key, …).
fn table_value(page: &Page, key: &str) -> Option<String> {
    let cells = cells(page);
    cells.iter().position(|c| c.trim() == key).and_then(|i| cells.get(i + 1)).map(|v| v.trim().to_owned())
}

/// read-table: "Enter the value of Color into the text field and press Submit."
pub async fn read_table(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let key = between(&text, "Enter the value of ", " into").ok_or_else(|| Failure::undecided(&text))?;
    let value =
        table_value(&page.after_instruction(), key).ok_or_else(|| Failure::not_shown(format!("no row \"{key}\"")))?;
    a.type_text(&field(&page, 1)?, &value).await?;
    button(a, &page, "Submit").await
}

/// read-table-2: two fields labelled with keys of the table ("Color:").
pub async fn read_table_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let area = page.after_instruction();
    let labels: Vec<String> =
        cells(&area).iter().filter_map(|t| t.trim().strip_suffix(':')).map(str::to_owned).collect();
    if labels.len() != 2 {
        return Err(Failure::not_shown("not two labelled fields"));
    }
    let mut fields = Vec::new();
    for label in labels {
        let value = table_value(&area, &label).ok_or_else(|| Failure::not_shown(format!("no row \"{label}\"")))?;
        let target = area
            .after_text(&format!("{label}:"), FIELDS)
            .cloned()
            .ok_or_else(|| Failure::not_shown(format!("no field after \"{label}:\"")))?;
        fields.push((target, value));
    }
    a.fill(&fields).await?;
    button(a, &page, "Submit").await
}

/// use-spinner: "Select -7 with the spinner and hit Submit."
pub async fn use_spinner(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let n = first_number(&text).ok_or_else(|| Failure::undecided(&text))?;
    let spinner = page.all("spinbutton").into_iter().next().cloned().ok_or_else(|| Failure::not_shown("no spinner"))?;
    a.type_text(&spinner, &n.to_string()).await?;
    button(a, &page, "Submit").await
}

/// enter-date: "Enter 10/11/2011 as the date and hit submit." Date fields take `yyyy-mm-dd`.
pub async fn enter_date(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let date =
        after(&text, "Enter ").and_then(|t| t.split_whitespace().next()).ok_or_else(|| Failure::undecided(&text))?;
    let parts: Vec<&str> = date.split('/').collect();
    let [m, d, y] = parts.as_slice() else { return Err(Failure::undecided(&text)) };
    let target = date_field(&page, "date")?;
    type_or_key_in(a, &target, &format!("{y}-{m}-{d}"), &format!("{m:0>2}{d:0>2}{y}")).await?;
    button(a, &page, "Submit").await
}

/// enter-time: "Enter 8:04 PM as the time and press submit." Time fields take `hh:mm` (24 h).
pub async fn enter_time(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let rest = after(&text, "Enter ").ok_or_else(|| Failure::undecided(&text))?;
    let mut words = rest.split_whitespace();
    let (clock, half) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let (h, m) = clock.split_once(':').ok_or_else(|| Failure::undecided(&text))?;
    let h: u32 = h.parse().map_err(|_| Failure::undecided(&text))?;
    let h = match half {
        "AM" => h % 12,
        "PM" => h % 12 + 12,
        _ => h,
    };
    let target = date_field(&page, "time")?;
    let keys = format!("{:02}{m}{}", if h % 12 == 0 { 12 } else { h % 12 }, if h < 12 { "A" } else { "P" });
    type_or_key_in(a, &target, &format!("{h:02}:{m}"), &keys).await?;
    button(a, &page, "Submit").await
}

/// Types `value` into a date or time field; a server that refuses typed text there gets the
/// field's keystrokes instead (`keys`, one key at a time, as a keyboard user enters a date).
async fn type_or_key_in(a: &mut Agent<'_>, field: &Node, value: &str, keys: &str) -> Step {
    match a.type_text(field, value).await {
        Ok(_) => Ok(()),
        Err(Failure::ToolError { .. }) => {
            for (i, key) in keys.chars().enumerate() {
                a.press(&key.to_string(), (i == 0).then_some(field)).await?;
            }
            Ok(())
        }
        Err(other) => Err(other),
    }
}

/// A date or time field: shown with its own role (`date`, `time`), as a text box, or as a
/// group of spin buttons whose group carries the role.
fn date_field(page: &Page, kind: &str) -> Step<Node> {
    page.nodes
        .iter()
        .find(|n| n.reference.is_some() && (n.role == kind || (kind == "time" && n.role == "inputtime")))
        .or_else(|| page.nodes.iter().find(|n| n.reference.is_some() && n.role == "textbox"))
        .cloned()
        .ok_or_else(|| Failure::not_shown(format!("no {kind} field")))
}

/// form-sequence-2: "Check the 2nd radio button and enter the number "5" into the 3rd textbox."
pub async fn form_sequence_2(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let radio = ordinal_before(&text, "radio button").ok_or_else(|| Failure::undecided(&text))?;
    let number = quoted_after(&text, "number ").ok_or_else(|| Failure::undecided(&text))?;
    let textbox = ordinal_before(&text, "textbox").ok_or_else(|| Failure::undecided(&text))?;
    let radios = page.all("radio");
    let target =
        radios.get(radio - 1).map(|r| (*r).clone()).ok_or_else(|| Failure::not_shown(format!("no radio #{radio}")))?;
    a.click(&target).await?;
    a.type_text(&field(&page, textbox)?, &number).await?;
    button(a, &page, "Submit").await
}

/// multi-layouts, multi-orderings: "Search for crime movies directed by Curry from year 1995."
/// Labels stand before their fields, or (one layout) after them.
pub async fn multi_layouts(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let genre = between(&text, "Search for ", " movies").ok_or_else(|| Failure::undecided(&text))?;
    let director = between(&text, "directed by ", " from").ok_or_else(|| Failure::undecided(&text))?;
    let year = numbers(&text).into_iter().last().ok_or_else(|| Failure::undecided(&text))?.to_string();
    let area = page.after_instruction();
    // Text and fields in order; each field pairs with the text before it, or after it when the
    // area starts with a field.
    let is_label = |n: &Node| (n.is_text() || is_cell(n)) && !n.name.trim().is_empty();
    let items: Vec<&Node> = area.nodes.iter().filter(|n| is_label(n) || n.role == "textbox").collect();
    let labels_after = items
        .iter()
        .find(|n| n.role == "textbox" || !n.name.contains("Movie Search"))
        .is_some_and(|n| n.role == "textbox");
    let mut fields: Vec<(Node, String)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if item.role != "textbox" {
            continue;
        }
        let label = if labels_after { items.get(i + 1) } else { i.checked_sub(1).and_then(|j| items.get(j)) };
        let Some(label) = label.filter(|l| l.role != "textbox") else { continue };
        let value = if label.name.contains("Genre") {
            genre.to_owned()
        } else if label.name.contains("Director") {
            director.to_owned()
        } else if label.name.contains("Year") || label.name.contains("Date") {
            year.clone()
        } else {
            continue;
        };
        fields.push(((*item).clone(), value));
    }
    if fields.len() != 3 {
        return Err(Failure::not_shown(format!("found {} of the 3 labelled fields", fields.len())));
    }
    a.fill(&fields).await?;
    let submit = submit_control(&page, &["Submit", "Search", "Go!"])?;
    a.click(&submit).await.map(drop)
}

/// generate-number: press Generate until the number shown meets the condition, then Submit.
pub async fn generate_number(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let bound = first_number(&text);
    let wanted = |n: i64| -> bool {
        if text.contains("less than") {
            bound.is_some_and(|b| n < b)
        } else if text.contains("greater than") {
            bound.is_some_and(|b| n > b)
        } else if text.contains("odd") {
            n % 2 != 0
        } else if text.contains("even") {
            n % 2 == 0
        } else {
            false
        }
    };
    let generate = need(&page, "button", "Generate")?;
    for _ in 0..25 {
        a.click(&generate).await?;
        let now = a.page().await?;
        let shown = now
            .after_instruction()
            .until(|n| n.role == "button")
            .texts()
            .iter()
            .find_map(|t| t.trim().parse::<i64>().ok());
        if shown.is_some_and(&wanted) {
            return button(a, &now, "Submit").await;
        }
    }
    Err(Failure::undecided("no number that fits after 25 tries"))
}

/// guess-number: guess between 0 and 9, narrowing with the page's "higher"/"lower" feedback.
pub async fn guess_number(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let input = page.nodes.iter().find(|n| n.reference.is_some() && FIELDS.contains(&n.role.as_str())).cloned();
    let input = input.ok_or_else(|| Failure::not_shown("no number field"))?;
    let submit = need(&page, "button", "Submit")?;
    let (mut low, mut high) = (0, 9);
    while low <= high {
        let guess = (low + high) / 2;
        a.type_text(&input, &guess.to_string()).await?;
        a.click(&submit).await?;
        let now = a.page().await?;
        let feedback = now.texts().join(" ");
        if feedback.contains("higher than") {
            low = guess + 1;
        } else if feedback.contains("lower than") {
            high = guess - 1;
        } else {
            // "Correct!" (or the episode ended and the page moved on).
            return Ok(());
        }
    }
    Err(Failure::undecided("the feedback never settled on a number"))
}

/// odd-or-even: each number sits between its "Odd" and "Even" buttons.
pub async fn odd_or_even(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let area = page.after_instruction();
    let nodes = &area.nodes;
    let mut marked = 0;
    for (i, node) in nodes.iter().enumerate() {
        let Ok(n) = node.name.trim().parse::<i64>() else { continue };
        if !node.is_text() {
            continue;
        }
        let odd = nodes[..i].iter().rev().find(|b| b.role == "button" && b.label() == "Odd");
        let even = nodes[i + 1..].iter().find(|b| b.role == "button" && b.label() == "Even");
        let choice = if n % 2 != 0 { odd } else { even };
        let choice = choice.cloned().ok_or_else(|| Failure::not_shown(format!("no Odd/Even buttons beside {n}")))?;
        a.click(&choice).await?;
        marked += 1;
    }
    if marked == 0 {
        return Err(Failure::not_shown("no numbers to mark"));
    }
    button(a, &page, "Submit").await
}

/// find-greatest: three face-down cards; turning one (a click) shows its number and turns the
/// others back. Read every number (from the reply when the server shows it without turning),
/// pick the greatest card, then Submit.
pub async fn find_greatest(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let slots = card_slots(&page);
    if slots.is_empty() {
        return Err(Failure::not_shown("no cards"));
    }
    let mut values: Vec<Option<i64>> = slots.iter().map(|n| n.name.trim().parse().ok()).collect();
    for (i, value) in values.iter_mut().enumerate() {
        if value.is_some() {
            continue;
        }
        let now = card_slots(&a.page().await?);
        let card = now
            .get(i)
            .filter(|n| n.reference.is_some())
            .cloned()
            .ok_or_else(|| Failure::not_shown(format!("card #{} has no ref", i + 1)))?;
        a.click(&card).await?;
        let turned = card_slots(&a.page().await?);
        *value = turned.get(i).and_then(|n| n.name.trim().parse().ok());
        if value.is_none() {
            return Err(Failure::not_shown(format!("card #{} shows no number once turned", i + 1)));
        }
    }
    let best = (0..slots.len()).max_by_key(|&i| values[i]).unwrap_or(0);
    let now = a.page().await?;
    let shown = card_slots(&now);
    // The greatest card may already be face up (the last one turned); otherwise turn it.
    if let Some(card) = shown.get(best).filter(|n| n.reference.is_some() && n.name.trim().parse::<i64>().is_err()) {
        a.click(&card.clone()).await?;
    } else if slots[best].name.trim().parse::<i64>().is_ok() && shown.get(best).is_some_and(|n| n.reference.is_some()) {
        // The server showed every number face down: turn the greatest.
        a.click(&shown[best].clone()).await?;
    }
    button(a, &now, "Submit").await
}

/// The cards between the instruction and the Submit button, in order: leaf elements with a
/// ref (face down, or showing a number the server reads through), or a bare number (face up).
fn card_slots(page: &Page) -> Vec<Node> {
    let area = page.after_instruction().until(|n| n.role == "button");
    let nodes = &area.nodes;
    nodes
        .iter()
        .enumerate()
        .filter(|&(i, n)| {
            let leaf = nodes[i + 1..].iter().take_while(|c| c.depth > n.depth).all(Node::is_text);
            (n.reference.is_some() && !n.is_text() && leaf)
                || (n.is_text()
                    && n.name.trim().parse::<i64>().is_ok()
                    && !nodes[..i]
                        .iter()
                        .rev()
                        .take(1)
                        .any(|p| p.reference.is_some() && !p.is_text() && p.depth < n.depth))
        })
        .map(|(_, n)| n.clone())
        .collect()
}

/// unicode-test: `Click on the "ÖK" button.`
pub async fn unicode_test(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let name = quoted_after(&text, "Click on the ").ok_or_else(|| Failure::undecided(&text))?;
    button(a, &page, &name).await
}
