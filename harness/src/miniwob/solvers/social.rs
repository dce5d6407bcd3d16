//! The social-media family: act on posts by a user through the icons under each post (reply,
//! retweet, like, then "more" or share) and the "more" menu. The icons are images without text;
//! they are told apart by their order under the post.

use super::words::{between, quoted_after};
use super::{button, instruction, start};
use crate::miniwob::agent::{Agent, Failure, Node, Step};
use crate::miniwob::page::Page;

/// The icons under each post, in order.
const ICONS: [&str; 4] = ["Reply", "Retweet", "Like", "More"];

/// social-media: `For the user @leo, click on the "Mute" button.`
pub async fn social_media(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let user = between(&text, "For the user ", ",").ok_or_else(|| Failure::undecided(&text))?.to_owned();
    let action = quoted_after(&text, "click on the ").ok_or_else(|| Failure::undecided(&text))?;
    let post =
        posts_by(&page, &user).into_iter().next().ok_or_else(|| Failure::not_shown(format!("no post by {user}")))?;
    match ICONS.iter().position(|i| *i == action) {
        Some(i) => click_icon(a, &page, post, i).await,
        None => {
            // A "more" menu item: open the menu, then click the item that starts with it.
            click_icon(a, &page, post, 3).await?;
            let now = a.page().await?;
            let item = now
                .nodes
                .iter()
                .find(|n| n.reference.is_some() && n.name.starts_with(action.as_str()))
                .cloned()
                .ok_or_else(|| Failure::not_shown(format!("no \"{action}\" menu item with a ref")))?;
            a.click(&item).await.map(drop)
        }
    }
}

/// social-media-all and -some: `Click the "Like" button on all posts by @user and then click
/// Submit.` / `… on 2 posts by @user …`.
pub async fn social_media_many(a: &mut Agent<'_>) -> Step {
    let page = start(a).await?;
    let text = instruction(&page)?;
    let action = quoted_after(&text, "Click the ").ok_or_else(|| Failure::undecided(&text))?;
    let icon = ICONS.iter().position(|i| *i == action).unwrap_or(3);
    let user = between(&text, "posts by ", " and").ok_or_else(|| Failure::undecided(&text))?.to_owned();
    let how_many = between(&text, "button on ", " post").and_then(|n| n.trim().parse::<usize>().ok());
    let posts = posts_by(&page, &user);
    if posts.is_empty() {
        return Err(Failure::not_shown(format!("no post by {user}")));
    }
    for post in posts.into_iter().take(how_many.unwrap_or(usize::MAX)) {
        click_icon(a, &page, post, icon).await?;
    }
    let now = a.page().await?;
    button(a, &now, "Submit").await
}

/// Indexes (in `page.nodes`) of the posts by `user`: where the `@user` text is.
fn posts_by(page: &Page, user: &str) -> Vec<usize> {
    page.nodes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, n)| n.name.split_whitespace().any(|w| w == user))
        .map(|(i, _)| i)
        .collect()
}

/// Clicks the `index`th icon under the post whose user name is at `at`: the nameless elements
/// with refs after it, before the next post.
async fn click_icon(a: &mut Agent<'_>, page: &Page, at: usize, index: usize) -> Step {
    let icons: Vec<Node> = page.nodes[at + 1..]
        .iter()
        .take_while(|n| !n.name.contains('@'))
        .filter(|n| n.reference.is_some() && !n.is_text() && n.name.trim().is_empty())
        .cloned()
        .collect();
    let icon = icons.get(index).cloned().ok_or_else(|| Failure::not_shown("the post's icons have no refs"))?;
    a.click(&icon).await.map(drop)
}
