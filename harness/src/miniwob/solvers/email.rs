//! The email-inbox family: find an email by its sender, open it, then reply, forward, delete
//! or star it. Instructions come in one fixed phrasing, or (the `-nl` tasks) in hundreds of
//! natural phrasings read here by their cues: a quoted message means a reply, "forward",
//! "send" or "give" a forward, "star" or "important" a star, "delete" or "trash" a deletion;
//! the sender is a name the inbox shows, the recipient the name after "to".
//!
//! The email's icons (close, trash, star; the send arrow of a reply or forward) have no text:
//! they are told apart by the id a server shows, or else by their order in the view.

use super::words::quoted_after;
use super::{instruction, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};
use crate::miniwob::page::Page;

/// What to do with the email.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Errand {
    Reply(String),
    Forward(String),
    Delete,
    Star,
}

/// email-inbox and its variants with the fixed phrasing.
pub async fn email_inbox(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let sender = between_words(&text, "Find the email by ", " and ").ok_or_else(|| Failure::undecided(&text))?;
    let errand = if let Some(message) = quoted_after(&text, "with the text ") {
        Errand::Reply(message)
    } else if let Some(to) = between_words(&text, "forward that email to ", ".") {
        Errand::Forward(to)
    } else if text.contains("trash icon") {
        Errand::Delete
    } else if text.contains("star icon") {
        Errand::Star
    } else {
        return Err(Failure::undecided(&text));
    };
    run(a, &page, &sender, errand).await
}

/// email-inbox-nl-turk, -forward-nl, -forward-nl-turk: the same errands in natural phrasing.
pub async fn email_inbox_nl(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let senders = senders(&page);
    let (sender, errand) = read_errand(&text, &senders).ok_or_else(|| Failure::undecided(&text))?;
    run(a, &page, &sender, errand).await
}

fn between_words(text: &str, start: &str, end: &str) -> Option<String> {
    super::words::between(text, start, end).map(|s| s.trim().to_owned())
}

/// The senders the inbox lists, in order.
fn senders(page: &Page) -> Vec<String> {
    let area = page.after_instruction();
    let mut out: Vec<String> = Vec::new();
    let nodes = &area.nodes;
    for (i, n) in nodes.iter().enumerate() {
        // A row is an element with a ref whose text starts with the sender (Sightline writes
        // the row as one line; others give the sender its own node first inside the row).
        let first_word = if n.reference.is_some() && !n.is_text() && n.role != "heading" {
            let own = n.name.split_whitespace().next().map(str::to_owned);
            own.or_else(|| nodes.get(i + 1).filter(|c| c.depth > n.depth).map(|c| c.name.trim().to_owned()))
        } else {
            None
        };
        if let Some(name) = first_word
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().all(char::is_alphabetic))
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    if out.is_empty() {
        // chrome-devtools-mcp leaves the rows out and lists their texts: sender, subject, body.
        let texts: Vec<&str> = area.nodes.iter().filter(|n| n.is_text()).map(|n| n.name.trim()).collect();
        for chunk in texts.chunks(3) {
            if let Some(name) = chunk.first().filter(|w| w.chars().all(char::is_alphabetic) && !w.is_empty())
                && !out.contains(&name.to_string())
            {
                out.push((*name).to_owned());
            }
        }
    }
    out
}

/// Reads a natural instruction: the errand and the sender whose email it concerns.
fn read_errand(text: &str, senders: &[String]) -> Option<(String, Errand)> {
    let lower = text.to_lowercase();
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric() && c != '\'').map(|w| w.trim_end_matches("'s").to_owned()).collect();
    let mentioned: Vec<&String> = senders.iter().filter(|s| words.iter().any(|w| w == *s)).collect();
    if let Some(message) = quoted(text) {
        let sender = mentioned.first()?;
        return Some(((*sender).clone(), Errand::Reply(message)));
    }
    let forward = ["forward", "send", "give", "copy", "wants", "waiting"].iter().any(|k| lower.contains(k));
    let star = ["star", "important", "flag", "mark"].iter().any(|k| lower.contains(k));
    let delete = ["delete", "trash", "remove", "rid of", "discard", "erase", "throw"].iter().any(|k| lower.contains(k));
    if forward && !star && !delete {
        let to = recipient(text)?;
        let sender = mentioned.iter().find(|s| **s != &to).map(|s| (*s).clone()).or_else(|| {
            // The sender may be named without being in the list the solver read.
            name_after(text, &["from ", "by "])
        })?;
        return Some((sender, Errand::Forward(to)));
    }
    let sender = mentioned.first().map(|s| (*s).clone()).or_else(|| name_after(text, &["from ", "by "]))?;
    if star {
        return Some((sender, Errand::Star));
    }
    if delete {
        return Some((sender, Errand::Delete));
    }
    None
}

/// The first double-quoted piece of `text`.
fn quoted(text: &str) -> Option<String> {
    let mut parts = text.split('"');
    parts.next()?;
    parts.next().filter(|q| !q.is_empty()).map(str::to_owned)
}

/// The recipient of a forward: the name after "to", or the one a sentence opens with ("Forward
/// Ann the email…", "Ann wants…").
fn recipient(text: &str) -> Option<String> {
    if let Some(name) = name_after(text, &[" to "]) {
        return Some(name);
    }
    for verb in ["Forward ", "Send ", "Give "] {
        if let Some(rest) = text.strip_prefix(verb)
            && let Some(name) = capitalized(rest.split_whitespace().next()?)
        {
            return Some(name);
        }
    }
    let first = text.split_whitespace().next()?;
    capitalized(first)
}

/// The capitalized word after the first of `markers` followed by one.
fn name_after(text: &str, markers: &[&str]) -> Option<String> {
    markers.iter().find_map(|m| {
        text.match_indices(m).find_map(|(i, _)| capitalized(text[i + m.len()..].split_whitespace().next()?))
    })
}

/// `word` without punctuation (and a possessive `'s`), when it is a capitalized name.
fn capitalized(word: &str) -> Option<String> {
    let w: String = word.trim_end_matches("'s").chars().filter(|c| c.is_alphabetic()).collect();
    let common = ["The", "Email", "Mail", "Please", "All", "Me", "It", "Them", "That", "This", "My", "I"];
    (w.chars().next().is_some_and(char::is_uppercase) && !common.contains(&w.as_str())).then_some(w)
}

/// Opens `sender`'s email and does the errand.
async fn run(a: &mut Agent<'_>, page: &Page, sender: &str, errand: Errand) -> Step {
    let row = email_row(page, sender).ok_or_else(|| Failure::not_shown(format!("no email by {sender} with a ref")))?;
    a.click(&row).await?;
    let view = a.page().await?;
    match errand {
        Errand::Delete => {
            let icon = icon(&view, &["trash"], 1).ok_or_else(|| Failure::not_shown("no trash icon with a ref"))?;
            a.click(&icon).await.map(drop)
        }
        Errand::Star => {
            let icon = icon(&view, &["star"], 2).ok_or_else(|| Failure::not_shown("no star icon with a ref"))?;
            a.click(&icon).await.map(drop)
        }
        Errand::Reply(message) => {
            let reply =
                named_control(&view, "Reply").ok_or_else(|| Failure::not_shown("no Reply control with a ref"))?;
            a.click(&reply).await?;
            let form = a.page().await?;
            let field = form
                .all("textbox")
                .into_iter()
                .last()
                .cloned()
                .ok_or_else(|| Failure::not_shown("no reply text area"))?;
            a.type_text(&field, &message).await?;
            let send = icon(&form, &["send-reply"], 1).ok_or_else(|| Failure::not_shown("no send icon with a ref"))?;
            a.click(&send).await.map(drop)
        }
        Errand::Forward(to) => {
            let forward =
                named_control(&view, "Forward").ok_or_else(|| Failure::not_shown("no Forward control with a ref"))?;
            a.click(&forward).await?;
            let form = a.page().await?;
            let field = form
                .all("textbox")
                .into_iter()
                .next()
                .cloned()
                .ok_or_else(|| Failure::not_shown("no recipient field"))?;
            a.type_text(&field, &to).await?;
            let send =
                icon(&form, &["send-forward"], 1).ok_or_else(|| Failure::not_shown("no send icon with a ref"))?;
            a.click(&send).await.map(drop)
        }
    }
}

/// The inbox row of `sender`'s email (or the sender's name inside it), with a ref.
fn email_row(page: &Page, sender: &str) -> Option<Node> {
    let prefix = format!("{sender} ");
    page.after_instruction().nodes.into_iter().find(|n| {
        n.reference.is_some() && n.role != "heading" && (n.name.trim() == sender || n.name.starts_with(&prefix))
    })
}

/// A control named `name` ("Reply", "Forward"): an element with that name, or the text inside
/// one.
fn named_control(page: &Page, name: &str) -> Option<Node> {
    page.nodes.iter().find(|n| n.reference.is_some() && n.label() == name).cloned()
}

/// A nameless icon: the one whose id (when the server shows ids) contains one of `ids`, or else
/// the `position`th (0-based) nameless element with a ref in the view.
fn icon(page: &Page, ids: &[&str], position: usize) -> Option<Node> {
    let nameless: Vec<&Node> = page
        .nodes
        .iter()
        .filter(|n| n.reference.is_some() && !n.is_text() && n.name.trim().is_empty() && n.role != "textbox")
        .collect();
    if let Some(found) =
        nameless.iter().find(|n| n.states.iter().any(|s| ids.iter().any(|id| s.starts_with("id=") && s.contains(id))))
    {
        return Some((*found).clone());
    }
    let with_ids = nameless.iter().any(|n| n.states.iter().any(|s| s.starts_with("id=")));
    if with_ids && ids.iter().all(|id| id.starts_with("send")) {
        // Ids are shown but none matched: the send icon is not there.
        return None;
    }
    nameless.get(position).map(|n| (*n).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn natural_instructions_read_their_errand() {
        let senders = names(&["Coletta", "Evy", "Cathrine"]);
        assert_eq!(
            read_errand("Answer Evy's email with \"Sed tempus.\"", &senders),
            Some(("Evy".into(), Errand::Reply("Sed tempus.".into())))
        );
        assert_eq!(
            read_errand("Forward Cathrine's email to Evy.", &senders),
            Some(("Cathrine".into(), Errand::Forward("Evy".into())))
        );
        assert_eq!(
            read_errand("Send Ranna the email you got from Coletta.", &senders),
            Some(("Coletta".into(), Errand::Forward("Ranna".into())))
        );
        assert_eq!(read_errand("Please star the email by Evy.", &senders), Some(("Evy".into(), Errand::Star)));
        assert_eq!(read_errand("Delete Coletta's email.", &senders), Some(("Coletta".into(), Errand::Delete)));
    }
}
