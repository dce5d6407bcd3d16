//! book-flight (and -nodelay): "Book the shortest one-way flight from: Cincinnati, OH to: LEX on
//! 10/16/2016." Pick both airports from their autocompletion, the date from the date picker,
//! search, then book the cheapest or shortest flight listed.

use super::misc::parse_duration;
use super::widgets::{pick_date, pick_suggestion};
use super::words::between;
use super::{button, instruction, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};

/// book-flight.
pub async fn book_flight(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let undecided = || Failure::undecided(&text);
    let from = between(&text, "from: ", " to: ").ok_or_else(undecided)?.trim().to_owned();
    let to = between(&text, " to: ", " on ").ok_or_else(undecided)?.trim().to_owned();
    let date = text.rsplit(" on ").next().ok_or_else(undecided)?.trim_end_matches('.').trim().to_owned();
    let cheapest = text.contains("cheapest");
    let parts: Vec<u32> = date.split('/').filter_map(|p| p.parse().ok()).collect();
    let [month, day, year] = parts[..] else { return Err(undecided()) };

    let fields: Vec<Node> = page.all("textbox").into_iter().cloned().collect();
    let field =
        |name: &str, i: usize| fields.iter().find(|f| f.label().starts_with(name)).or_else(|| fields.get(i)).cloned();
    let from_field = field("From", 0).ok_or_else(|| Failure::not_shown("no From field"))?;
    let to_field = field("To", 1).ok_or_else(|| Failure::not_shown("no To field"))?;
    let date_field = fields.iter().find(|f| f.has("readonly")).or_else(|| fields.get(2)).cloned();
    let date_field = date_field.ok_or_else(|| Failure::not_shown("no date field"))?;

    pick_suggestion(a, &from_field, &from, |name| name.contains(&from)).await?;
    pick_suggestion(a, &to_field, &to, |name| name.contains(&to)).await?;
    pick_date(a, &date_field, month, day, year).await?;
    let now = a.page().await?;
    button(a, &now, "Search").await?;

    // Each flight: its duration ("3h 20m") and a "Book flight for $512" button.
    let results = a.page().await?;
    let mut best: Option<(u64, Node)> = None;
    let mut duration: Option<u64> = None;
    for node in &results.nodes {
        if let Some(minutes) = parse_duration(&node.name) {
            duration = Some(minutes);
        }
        if node.role == "button" && node.name.starts_with("Book flight for $") {
            let price: u64 = node
                .name
                .trim_start_matches("Book flight for $")
                .trim()
                .parse()
                .map_err(|_| Failure::undecided(&node.name))?;
            let key = if cheapest {
                price
            } else {
                duration.ok_or_else(|| Failure::not_shown("a flight without its duration"))?
            };
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, node.clone()));
            }
            duration = None;
        }
    }
    let (_, flight) = best.ok_or_else(|| Failure::not_shown("no flights listed"))?;
    a.click(&flight).await.map(drop)
}
