//! Reading instructions: the few shapes MiniWoB++ phrases its tasks in (quoted values, "the
//! 2nd …", lists joined with commas), without regular expressions.

/// The text between the first `start` and the next `end` after it.
pub fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// The text after the first `marker`.
pub fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The value quoted right after `marker` (`link "` … `"`): the quote that ends it is the last
/// one followed by the end of the sentence or a space, so values holding a full stop or a quote
/// read whole (`link "euismod."`).
pub fn quoted_after(text: &str, marker: &str) -> Option<String> {
    let rest = after(text, marker)?;
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let ends: Vec<usize> = rest
        .char_indices()
        .filter(|&(i, c)| {
            c == '"' && {
                let next = rest[i + 1..].chars().next();
                next.is_none_or(|n| n == ' ' || n == '.' || n == ',' || n == ')')
            }
        })
        .map(|(i, _)| i)
        .collect();
    // The first closing quote followed by a space or the sentence's end.
    let end = *ends.first()?;
    Some(rest[..end].to_owned())
}

/// `1st`, `2nd`, `3rd`, `4th`… → 1, 2, 3, 4.
pub fn ordinal(word: &str) -> Option<usize> {
    let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The ordinal right before `noun` (`the 2nd word` → 2).
pub fn ordinal_before(text: &str, noun: &str) -> Option<usize> {
    let head = &text[..text.find(noun)?];
    ordinal(head.split_whitespace().last()?)
}

/// `a, b, c` (or `a, b and c`) → the items.
pub fn list(text: &str) -> Vec<String> {
    text.split(',')
        .flat_map(|part| part.split(" and "))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The first integer (with its sign) in `text`.
pub fn first_number(text: &str) -> Option<i64> {
    numbers(text).into_iter().next()
}

/// Every integer (with its sign) in `text`, in order.
pub fn numbers(text: &str) -> Vec<i64> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let sign = c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit) && current.is_empty();
        if c.is_ascii_digit() || sign {
            current.push(c);
        } else if !current.is_empty() {
            out.extend(current.parse::<i64>().ok());
            current.clear();
        }
    }
    out.extend(current.parse::<i64>().ok());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_keep_their_own_full_stops() {
        let t = "Switch between the tabs to find and click on the link \"euismod.\".";
        assert_eq!(quoted_after(t, "link ").as_deref(), Some("euismod."));
        assert_eq!(quoted_after("Click on the \"ok\" button.", "the ").as_deref(), Some("ok"));
    }

    #[test]
    fn ordinals_lists_and_numbers() {
        assert_eq!(ordinal_before("Find the 12th word in the paragraph", "word"), Some(12));
        assert_eq!(list("DKkQH, USa and click"), ["DKkQH", "USa", "click"]);
        assert_eq!(numbers("Select -7 with 3 and 10-2"), [-7, 3, 10, 2]);
    }
}
