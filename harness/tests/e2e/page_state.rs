//! The page state, for real: deltas that reproduce a fresh snapshot over a thousand random DOM
//! mutations, overlays, agents acting on old versions, regions unchanged across pages, and the
//! bounded wait for a page that never settles.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};
use sightline_harness::client::Reply;
use sightline_harness::grammar::ends_page_header;
use sightline_harness::{Rig, paths, ref_of};

const WAIT: Duration = Duration::from_secs(10);

/// The body of a full snapshot: its lines after the header (which ends with the version line,
/// alone when the agent has the page's title and URL), without region tags.
fn body(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    for line in lines.by_ref() {
        if ends_page_header(line) {
            break;
        }
    }
    lines
        .filter(|l| {
            // Region tags; page text never starts a line with `<` unmarked.
            !l.trim().starts_with('<')
        })
        .map(str::to_owned)
        .collect()
}

/// Lines as a multiset.
fn counted(lines: &[String]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for l in lines {
        *out.entry(l.clone()).or_insert(0) += 1;
    }
    out
}

/// Applies a delta's structured line changes to the agent's view of the page.
fn apply(view: &mut BTreeMap<String, i64>, lines: &Value) {
    let mut change = |text: &Value, by: i64| {
        let text = text.as_str().expect("line text").to_owned();
        *view.entry(text).or_insert(0) += by;
    };
    for removed in lines["removed"].as_array().into_iter().flatten() {
        change(&removed["text"], -1);
    }
    for changed in lines["changed"].as_array().into_iter().flatten() {
        change(&changed["before"], -1);
        change(&changed["after"], 1);
    }
    for added in lines["added"].as_array().into_iter().flatten() {
        change(&added["line"]["text"], 1);
    }
    view.retain(|_, n| *n != 0);
}

/// Every (ref, item number) pair on the page's lines: `e12 button "Button red #7"` and
/// `[e13 Link red #8]`.
fn refs_to_items(lines: &[String]) -> Vec<(u32, u32)> {
    let element = Regex::new(r#"\be(\d+) [a-z]+ "[^"]*#(\d+)""#).expect("regex");
    let link = Regex::new(r"\[e(\d+) [^\]]*#(\d+)\]").expect("regex");
    let mut out = Vec::new();
    for line in lines {
        for c in element.captures_iter(line) {
            out.push((c[1].parse().expect("number"), c[2].parse().expect("number")));
        }
        for c in link.captures_iter(line) {
            out.push((c[1].parse().expect("number"), c[2].parse().expect("number")));
        }
    }
    out
}

/// Every ref on the page's lines.
fn refs(lines: &[String]) -> BTreeSet<u32> {
    let re = Regex::new(r"(?:^|[\s(\[])e(\d+)\b").expect("regex");
    lines
        .iter()
        .flat_map(|l| re.captures_iter(l).map(|c| c[1].parse().expect("number")).collect::<Vec<u32>>())
        .collect()
}

fn version(reply: &Reply) -> u64 {
    reply.structured.as_ref().and_then(|s| s["version"].as_u64()).unwrap_or_else(|| panic!("no version: {reply:?}"))
}

/// The element table a client keeps: ref → (role, name, value).
type Elements = BTreeMap<String, (String, String, Option<String>)>;

fn element_entry(e: &serde_json::Value) -> (String, (String, String, Option<String>)) {
    let text = |k: &str| e[k].as_str().map(str::to_owned);
    (
        text("ref").unwrap_or_default(),
        (text("role").unwrap_or_default(), text("name").unwrap_or_default(), text("value")),
    )
}

/// The elements of a full page's structured content.
fn elements_of(reply: &Reply) -> Elements {
    let facts = reply.structured.as_ref().expect("structured content");
    facts["elements"].as_array().into_iter().flatten().map(element_entry).collect()
}

/// Follows a delta's structured facts alone: gone refs leave the table, elements of changed and
/// added lines are (re)written.
fn follow(table: &mut Elements, facts: &serde_json::Value) {
    for gone in facts["gone"].as_array().into_iter().flatten() {
        table.remove(gone.as_str().unwrap_or_default());
    }
    let lines = &facts["lines"];
    let changed = lines["changed"].as_array().into_iter().flatten();
    let added = lines["added"].as_array().into_iter().flatten().map(|a| &a["line"]);
    for line in changed.chain(added) {
        for e in line["elements"].as_array().into_iter().flatten() {
            let (r, entry) = element_entry(e);
            table.insert(r, entry);
        }
    }
}

fn kind(reply: &Reply) -> String {
    reply.structured.as_ref().and_then(|s| s["kind"].as_str()).unwrap_or("?").to_owned()
}

/// Over a thousand random DOM mutations in a real page, each action's delta, applied to what
/// the agent had, gives exactly the page a fresh snapshot shows; a client that keeps its table
/// of elements from the deltas' structured facts alone has exactly the snapshot's elements; no
/// delta drops a ref the agent still holds, no ref ever points at another element, and no ref
/// is reused.
#[tokio::test(flavor = "multi_thread")]
async fn deltas_replay_to_the_fresh_snapshot_over_a_thousand_random_mutations() {
    const MUTATIONS: u64 = 1_000;
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("page-state/mutations.html?seed=20261121")})).await;
    let status = Regex::new(r"Step (\d+) · (\d+) mutations").unwrap();

    let mut fresh = c.call("browser_snapshot", json!({})).await.unwrap();
    let mut lines = body(&fresh.text);
    let mutate = ref_of(&fresh, "button", "Mutate");
    let mut item_of: HashMap<u32, u32> = HashMap::new();
    let mut ref_of_item: HashMap<u32, u32> = HashMap::new();
    let mut ever_seen: BTreeSet<u32> = refs(&lines);
    let mut table = elements_of(&fresh);
    let (mut steps, mut mutations, mut deltas) = (0u64, 0u64, 0u64);

    while mutations < MUTATIONS {
        assert!(steps < 1_000, "the page stopped mutating at {mutations} mutations");
        let before_version = version(&fresh);
        let before_refs = refs(&lines);
        let mut view = counted(&lines);

        let acted = c.call("browser_click", json!({"ref": mutate, "since_version": before_version})).await.unwrap();
        assert!(!acted.is_error, "step {steps}: {}", acted.text);
        let facts = acted.structured.clone().expect("structured content");
        let after_version = version(&acted);
        let gone: BTreeSet<u32> = facts["gone"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| sightline_core::refs::parse_ref(r.as_str().unwrap()).unwrap())
            .collect();
        match kind(&acted).as_str() {
            "delta" => {
                deltas += 1;
                assert_eq!(facts["from"].as_u64(), Some(before_version), "{}", acted.text);
                assert_eq!(after_version, before_version + 1, "one action, one version: {}", acted.text);
                apply(&mut view, &facts["lines"]);
                follow(&mut table, &facts);
            }
            "full" => {
                view = counted(&body(&acted.text));
                table = elements_of(&acted);
            }
            other => panic!("step {steps}: a mutation answered {other}: {}", acted.text),
        }

        fresh = c.call("browser_snapshot", json!({})).await.unwrap();
        assert!(!fresh.is_error, "{}", fresh.text);
        assert_eq!(version(&fresh), after_version, "looking again at an unchanged page is the same version");
        lines = body(&fresh.text);
        let expected = counted(&lines);
        if view != expected {
            let missing: Vec<_> = expected.iter().filter(|(l, n)| view.get(*l) != Some(n)).collect();
            let extra: Vec<_> = view.iter().filter(|(l, n)| expected.get(*l) != Some(n)).collect();
            panic!(
                "step {steps}: the delta does not reproduce the page.\nmissing or miscounted: {missing:#?}\nextra: \
                 {extra:#?}\ndelta:\n{}",
                acted.text
            );
        }

        assert_eq!(
            table,
            elements_of(&fresh),
            "step {steps}: the elements followed from deltas differ:\n{}",
            acted.text
        );

        let now_refs = refs(&lines);
        if kind(&acted) == "delta" {
            for dropped in before_refs.difference(&now_refs) {
                assert!(gone.contains(dropped), "step {steps}: e{dropped} left the page unannounced:\n{}", acted.text);
            }
        }
        for appeared in now_refs.difference(&before_refs) {
            assert!(!ever_seen.contains(appeared), "step {steps}: e{appeared} was reused for another element");
        }
        ever_seen.extend(now_refs.iter().copied());
        for (r, item) in refs_to_items(&lines) {
            assert_eq!(*item_of.entry(r).or_insert(item), item, "step {steps}: e{r} now points at item #{item}");
            assert_eq!(*ref_of_item.entry(item).or_insert(r), r, "step {steps}: item #{item} changed its ref");
        }

        let joined = lines.join("\n");
        let progress = status.captures(&joined).unwrap_or_else(|| panic!("no status line in:\n{joined}"));
        steps = progress[1].parse().unwrap();
        mutations = progress[2].parse().unwrap();
    }
    // Most steps must be real deltas, or the check above proved little.
    assert!(deltas * 10 >= steps * 9, "only {deltas} of {steps} steps were deltas");
    println!("{mutations} mutations over {steps} actions, {deltas} deltas; {} refs seen", ever_seen.len());
}

/// A dialog opens as an overlay with its content; the page behind it is frozen while it is
/// open; closing it gives back its refs and what changed behind it meanwhile.
#[tokio::test(flavor = "multi_thread")]
async fn an_overlay_opens_freezes_the_page_behind_it_and_closes_with_what_changed() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("page-state/overlay.html")})).await.unwrap();
    let open = ref_of(&page, "button", "Choose a size");

    let opened = c.call("browser_click", json!({"ref": open})).await.unwrap();
    assert!(rig.server.wait_for_event("opened", WAIT));
    assert_eq!(kind(&opened), "overlay_opened", "{}", opened.text);
    assert!(opened.text.contains("Pick your size") && opened.text.contains("\"Small\""), "{}", opened.text);
    assert!(!opened.text.contains("Waterproof"), "the page behind is not repeated: {}", opened.text);

    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    let add = ref_of(&snap, "button", "Add to basket");
    let small = ref_of(&snap, "radio", "Small");
    let close = ref_of(&snap, "button", "Close");

    let added = c.call("browser_click", json!({"ref": add})).await.unwrap();
    assert!(rig.server.wait_for_event("added:1", WAIT));
    assert!(!added.is_error, "{}", added.text);
    assert!(
        !added.text.contains("Basket: 1 items"),
        "the page behind is frozen while the dialog is open: {}",
        added.text
    );

    let closed = c.call("browser_click", json!({"ref": close})).await.unwrap();
    assert!(rig.server.wait_for_event("closed", WAIT));
    assert_eq!(kind(&closed), "overlay_closed", "{}", closed.text);
    assert!(
        closed.text.contains("changed while it was open") && closed.text.contains("Basket: 1 items"),
        "{}",
        closed.text
    );
    let gone = closed.structured.clone().unwrap()["gone"].clone();
    assert!(
        gone.as_array().unwrap().iter().any(|r| r == small.as_str()),
        "the dialog's refs are gone: {}",
        closed.text
    );

    let stale = c.call("browser_click", json!({"ref": small})).await.unwrap();
    assert!(stale.is_error, "a ref of the closed dialog is refused: {}", stale.text);
}

/// An agent acting on an older version is told what changed first, without counting it twice;
/// one acting on a version older than the history is not run at all; a future version is an
/// error; a failed action leaves the version and refs as they were.
#[tokio::test(flavor = "multi_thread")]
async fn actions_on_old_versions_are_explained_or_refused() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("page-state/restless.html")})).await.unwrap();
    let count = ref_of(&page, "button", "Count");
    let v1 = version(&page);

    let first = c.call("browser_click", json!({"ref": count, "since_version": v1})).await.unwrap();
    assert!(rig.server.wait_for_event("count:1", WAIT));
    assert!(!first.text.contains("note: you acted"), "{}", first.text);
    let v2 = version(&first);
    assert_eq!(v2, v1 + 1);

    // Still holding v1: the answer first says what v1 → v2 changed, then what the click did.
    let second = c.call("browser_click", json!({"ref": count, "since_version": v1})).await.unwrap();
    assert!(rig.server.wait_for_event("count:2", WAIT));
    assert!(second.text.contains(&format!("note: you acted on v{v1}")), "{}", second.text);
    assert_eq!(second.text.matches("Count: 1").count(), 2, "each change is said once: {}", second.text);
    assert!(second.text.contains("Count: 2"), "{}", second.text);
    let v3 = version(&second);

    // A failed action changes nothing: same version, and the agent is still current.
    let failed = c.call("browser_click", json!({"ref": "e9999", "since_version": v3})).await.unwrap();
    assert!(failed.is_error, "{}", failed.text);
    let third = c.call("browser_click", json!({"ref": count, "since_version": v3})).await.unwrap();
    assert!(rig.server.wait_for_event("count:3", WAIT));
    assert!(!third.text.contains("note: you acted"), "a failed action made no version: {}", third.text);
    assert_eq!(version(&third), v3 + 1);

    for n in 4..=6 {
        c.ok("browser_click", json!({"ref": count})).await;
        assert!(rig.server.wait_for_event(&format!("count:{n}"), WAIT));
    }
    let refused = c.call("browser_click", json!({"ref": count, "since_version": v1})).await.unwrap();
    assert!(refused.text.contains(&format!("Not run: your refs come from v{v1}")), "{}", refused.text);
    assert!(refused.text.contains("Count: 6"), "the agent gets the page as it is: {}", refused.text);
    // The refused click did not happen: the next one is the seventh.
    c.ok("browser_click", json!({"ref": count})).await;
    assert!(rig.server.wait_for_event("count:7", WAIT), "{:?}", rig.server.events());
    assert!(!rig.server.events().iter().any(|e| e == "count:8"), "{:?}", rig.server.events());

    let future = c.call("browser_click", json!({"ref": count, "since_version": 999})).await.unwrap();
    assert!(future.is_error && future.text.contains("v999"), "{}", future.text);
}

/// The wait after an action is bounded: a page that never stops mutating is captured after the
/// cap with a note, and a page that navigates mid-wait is followed to its new document.
#[tokio::test(flavor = "multi_thread")]
async fn waiting_for_a_page_to_settle_is_bounded_and_reported() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let url = rig.server.url("page-state/restless.html");
    let page = c.call("browser_navigate", json!({"url": url})).await.unwrap();
    let start = ref_of(&page, "button", "Start ticking");
    let ticking = c.ok("browser_click", json!({"ref": start})).await;
    assert!(ticking.contains("the page was still changing after 2.0 s"), "{ticking}");

    // A document without a body settles at once and reads as an empty page.
    let page = c.call("browser_navigate", json!({"url": url})).await.unwrap();
    let remove = ref_of(&page, "button", "Remove the body");
    let emptied = c.call("browser_click", json!({"ref": remove})).await.unwrap();
    assert!(!emptied.is_error && !emptied.text.contains("still changing"), "{}", emptied.text);
    assert!(body(&emptied.text).iter().all(|l| l.starts_with("Since the last response")), "{}", emptied.text);

    let page = c.call("browser_navigate", json!({"url": url})).await.unwrap();
    let leave = ref_of(&page, "button", "Leave soon");
    let left = c.call("browser_click", json!({"ref": leave})).await.unwrap();
    assert!(left.text.contains("navigated while waiting"), "{}", left.text);
    assert!(left.text.contains("# Second page") && kind(&left) == "full", "{}", left.text);
}

/// A navigation captures the page as soon as it loads, ahead of the wait for a quiet DOM, and
/// answers with that capture only when the DOM did not change until the page settled. A page
/// quiet at its load is answered from it; a page that goes on changing its DOM after its load
/// (here for 600 ms) is captured again once it settles, so the answer shows its last state, not
/// the one at the load.
#[tokio::test(flavor = "multi_thread")]
async fn a_navigation_answers_with_the_page_as_it_settled_not_as_it_loaded() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let stats = |reply: &Reply| reply.structured.as_ref().map(|s| s["stats"].clone()).unwrap_or_default();

    let quiet = c.call("browser_navigate", json!({"url": rig.server.url("shop.html")})).await.unwrap();
    assert!(!quiet.is_error, "{}", quiet.text);
    assert!(stats(&quiet)["captured_ahead"] == true, "a quiet page was captured twice: {}", stats(&quiet));

    let late = c.call("browser_navigate", json!({"url": rig.server.url("page-state/late-content.html")})).await;
    let late = late.unwrap();
    assert!(!late.is_error, "{}", late.text);
    assert!(late.text.contains("All loaded") && late.text.contains("Added after the page loaded"), "{}", late.text);
    assert!(!late.text.contains("Loading step"), "{}", late.text);
    assert!(stats(&late)["captured_ahead"].is_null(), "the capture at the load was kept: {}", stats(&late));
}

/// The ref of the icon under the post `post` (`- Post 1`, then `e4 clickable (no name)`), if
/// the answer shows one: in a full page, or added by a delta (`+ after e3: - Post 1`, then
/// `+ e4 clickable (no name)`).
fn icon_of(text: &str, post: &str) -> Option<String> {
    let mut lines = text.lines().skip_while(|l| !l.trim_end().ends_with(&format!("- {post}")));
    lines.next()?;
    let icon = lines.next()?.trim();
    let icon = icon.strip_prefix("+ ").unwrap_or(icon);
    icon.ends_with("clickable (no name)").then(|| icon.split(' ').next().unwrap_or_default().to_owned())
}

/// Images, style sheets and fonts still loading are waited for before a capture (bounded): an
/// icon drawn by a style rule has no width until its image arrives, and used to be missing
/// from an answer taken in between (the icons under a feed's posts, drawn just after the page
/// built them). The server answers the icon's image 600 ms late; without the wait neither
/// answer below has its ref.
#[tokio::test(flavor = "multi_thread")]
async fn icons_whose_images_are_still_loading_are_waited_for() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("page-state/late-icons.html")})).await.unwrap();

    // An action's answer.
    let added = c.ok("browser_click", json!({"ref": ref_of(&page, "button", "Add a post")})).await;
    let icon = icon_of(&added, "Post 1").unwrap_or_else(|| panic!("the click's answer shows the icon: {added}"));
    c.ok("browser_click", json!({"ref": icon})).await;
    assert!(rig.server.wait_for_event("starred:1", WAIT), "the icon's ref reaches the icon");

    // A snapshot taken while the image is on its way: the post comes 300 ms after the click.
    c.ok("browser_click", json!({"ref": ref_of(&page, "button", "Add a post in a moment")})).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let snapshot = c.call("browser_snapshot", json!({})).await.unwrap();
    assert!(icon_of(&snapshot.text, "Post 2").is_some(), "the snapshot shows the icon: {}", snapshot.text);
    let stats = snapshot.structured.as_ref().map(|s| s["stats"].clone()).unwrap_or_default();
    assert!(stats["loads_ms"].is_number(), "the wait is reported: {stats}");

    // An image that never arrives holds the answer only up to the wait's cap, and the page's
    // other targets are all there.
    let never =
        c.call("browser_click", json!({"ref": ref_of(&page, "button", "Add a post whose icon never loads")})).await;
    let never = never.unwrap();
    assert!(!never.is_error && never.text.contains("Post 3"), "{}", never.text);
    assert!(rig.server.wait_for_event("hang:never-icon", WAIT), "the page asked for the image");
}

/// Across the shop's pages, the header and footer the agent has already read collapse to one
/// line each; their refs stay the same, `browser_find` reaches them and `browser_snapshot`
/// expands them on request.
#[tokio::test(flavor = "multi_thread")]
async fn regions_unchanged_since_the_last_page_collapse_and_stay_reachable() {
    let shop = paths::workspace_root().join("bench/sites/shop");
    let rig = Rig::serving(shop, &[]).await.expect("rig");
    let c = &rig.client;
    let home = c.call("browser_navigate", json!({"url": rig.server.url("index.html")})).await.unwrap();
    let basket = ref_of(&home, "link", "Basket");
    assert!(home.text.contains(&format!("[{basket} ")) || home.text.contains(&format!("{basket} link")));
    assert!(!home.text.contains("unchanged=\"true\""), "a first look shows everything: {}", home.text);

    let listing =
        c.call("browser_navigate", json!({"url": rig.server.url("category.html?c=outerwear")})).await.unwrap();
    let collapsed = Regex::new(r#"<([a-z]+)[^>]* unchanged="true" count="(\d+)" />"#).unwrap();
    let names: Vec<String> = collapsed.captures_iter(&listing.text).map(|c| c[1].to_owned()).collect();
    assert!(!names.is_empty(), "the shared header collapses: {}", listing.text);
    assert!(listing.text.contains("Outerwear"), "what changed is written in full: {}", listing.text);
    assert_eq!(ref_of(&listing, "link", "Basket"), basket, "the same link keeps its ref on the next page");
    assert!(!listing.text.contains(&format!("[{basket} ")), "{}", listing.text);
    assert!(
        home.text.len() > listing.text.len() * 3 / 2,
        "collapsing saves: {} vs {}",
        home.text.len(),
        listing.text.len()
    );

    let found = c.ok("browser_find", json!({"text": "Basket"})).await;
    let line = found.lines().find(|l| l.contains(&format!("[{basket} ")) || l.contains(&format!("{basket} ")));
    let line = line.unwrap_or_else(|| panic!("find reaches collapsed regions: {found}"));
    let region = Regex::new(r"^\[([^\]]+)\]").unwrap().captures(line).map(|c| c[1].to_owned()).expect("a region");
    let expanded = c.ok("browser_snapshot", json!({"region": region})).await;
    assert!(expanded.contains(&format!("[{basket} ")) && !expanded.contains("unchanged=\"true\""), "{expanded}");
    // An explicit snapshot right after a navigation writes every region out…
    let full = c.ok("browser_snapshot", json!({})).await;
    assert!(full.contains(&format!("[{basket} ")) && !full.contains("unchanged=\"true\""), "{full}");
    // …unless the agent asks for what it has already read to collapse.
    let again = c.ok("browser_snapshot", json!({"collapse": true})).await;
    assert!(again.contains("unchanged=\"true\"") && again.len() < full.len() / 2, "{again}");

    // Trimmed on request: the first and last lines of each region, a marker for the rest, and
    // find still reaches what was left out.
    let trimmed = c.ok("browser_snapshot", json!({"trim": 6})).await;
    // Counted in lines, what trimming leaves out (in bytes the marker lines weigh as much as
    // the short link lines they stand for).
    assert!(trimmed.contains("<trimmed count=") && trimmed.lines().count() < full.lines().count() / 2, "{trimmed}");
    assert!(!trimmed.contains("Shop all men"), "{trimmed}");
    let found = c.ok("browser_find", json!({"text": "Shop all men"})).await;
    assert!(found.contains("link \"Shop all men\"") || found.contains(" Shop all men]"), "{found}");

    // A collapsed ref is as good as any other.
    let opened = c.ok("browser_click", json!({"ref": basket})).await;
    assert!(opened.contains("basket.html"), "{opened}");
}

/// Refs inside a frame act on that frame's document; when the frame navigates, its old refs are
/// announced gone and refused with the reason, and its new document gets new refs.
#[tokio::test(flavor = "multi_thread")]
async fn a_frame_that_navigates_takes_its_refs_with_it() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("page-state/frames.html")})).await.unwrap();
    let inner_a = ref_of(&page, "button", "Inner A");
    c.ok("browser_click", json!({"ref": inner_a})).await;
    assert!(rig.server.wait_for_event("inner:a", WAIT), "the click reached the frame: {:?}", rig.server.events());

    let swap = ref_of(&page, "button", "Swap the frame");
    let swapped = c.call("browser_click", json!({"ref": swap})).await.unwrap();
    assert_eq!(kind(&swapped), "delta", "{}", swapped.text);
    let gone = swapped.structured.clone().unwrap()["gone"].clone();
    assert!(gone.as_array().unwrap().iter().any(|r| r == inner_a.as_str()), "{}", swapped.text);
    assert!(swapped.text.contains("Inner B"), "{}", swapped.text);

    let stale = c.call("browser_click", json!({"ref": inner_a})).await.unwrap();
    assert!(stale.is_error && stale.text.contains(&inner_a), "{}", stale.text);
    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    let inner_b = ref_of(&snap, "button", "Inner B");
    assert_ne!(inner_b, inner_a, "a new document's element gets a new ref");
    c.ok("browser_click", json!({"ref": inner_b})).await;
    assert!(rig.server.wait_for_event("inner:b", WAIT), "{:?}", rig.server.events());
}

/// A frame navigating inside an open dialog, then the dialog closing: every ref the dialog had
/// is given back, those of the frame's first document included. A dialog replaced by another
/// of the same name is a new overlay, and the first one's refs are gone.
#[tokio::test(flavor = "multi_thread")]
async fn overlays_keep_track_of_their_frames_and_of_being_replaced() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    let page = c.call("browser_navigate", json!({"url": rig.server.url("page-state/frames.html")})).await.unwrap();
    let open = ref_of(&page, "button", "Open the wizard");

    let opened = c.call("browser_click", json!({"ref": open})).await.unwrap();
    assert_eq!(kind(&opened), "overlay_opened", "{}", opened.text);
    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    let elements = snap.structured.clone().unwrap()["elements"].as_array().cloned().unwrap();
    let step_a: Vec<String> =
        elements.iter().filter(|e| e["name"] == "Inner A").map(|e| e["ref"].as_str().unwrap().to_owned()).collect();
    assert_eq!(step_a.len(), 2, "one in the page's frame, one in the dialog's: {}", snap.text);
    let swap_step = ref_of(&snap, "button", "Swap the step");
    let swapped = c.call("browser_click", json!({"ref": swap_step})).await.unwrap();
    assert!(swapped.text.contains("Inner B"), "{}", swapped.text);
    let close = ref_of(&snap, "button", "Close");
    let closed = c.call("browser_click", json!({"ref": close})).await.unwrap();
    assert_eq!(kind(&closed), "overlay_closed", "{}", closed.text);
    let gone: Vec<String> = closed.structured.clone().unwrap()["gone"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    assert!(gone.contains(&close) && gone.contains(&swap_step), "the dialog's refs are gone: {}", closed.text);

    // Reopen, then replace the dialog with another of the same name.
    c.ok("browser_navigate", json!({"go": "reload"})).await;
    let page = c.call("browser_snapshot", json!({})).await.unwrap();
    let open = ref_of(&page, "button", "Open the wizard");
    c.ok("browser_click", json!({"ref": open})).await;
    let snap = c.call("browser_snapshot", json!({})).await.unwrap();
    let next = ref_of(&snap, "button", "Next step");
    let replaced = c.call("browser_click", json!({"ref": next})).await.unwrap();
    assert_eq!(kind(&replaced), "overlay_opened", "{}", replaced.text);
    assert!(replaced.text.contains("Second step") && replaced.text.contains("Finish"), "{}", replaced.text);
    let gone = replaced.structured.clone().unwrap()["gone"].clone();
    assert!(gone.as_array().unwrap().iter().any(|r| r == next.as_str()), "{}", replaced.text);
    let finish = ref_of(&c.call("browser_snapshot", json!({})).await.unwrap(), "button", "Finish");
    let finished = c.call("browser_click", json!({"ref": finish})).await.unwrap();
    assert_eq!(kind(&finished), "overlay_closed", "{}", finished.text);
}

/// A snapshot too long for one answer says, in its structured content, which page it is, how
/// many there are and which to ask for next; the pages together hold every line once.
#[tokio::test(flavor = "multi_thread")]
async fn a_long_snapshot_is_paged_and_its_facts_say_how_to_continue() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    c.ok("browser_navigate", json!({"url": rig.server.url("page-state/long.html")})).await;
    let first = c.call("browser_snapshot", json!({})).await.unwrap();
    let facts = first.structured.clone().unwrap();
    let pages = facts["pages"].as_u64().unwrap();
    assert!(pages >= 2, "{facts}");
    assert_eq!((facts["page"].as_u64(), facts["next_page"].as_u64()), (Some(1), Some(2)));
    let mut seen: Vec<String> = body(&first.text).into_iter().filter(|l| l.starts_with("Paragraph")).collect();
    let mut next = facts["next_page"].as_u64();
    while let Some(page) = next {
        let reply = c.call("browser_snapshot", json!({"page": page})).await.unwrap();
        let facts = reply.structured.clone().unwrap();
        assert_eq!(facts["page"].as_u64(), Some(page), "{facts}");
        seen.extend(body(&reply.text).into_iter().filter(|l| l.starts_with("Paragraph")));
        next = facts["next_page"].as_u64();
    }
    let expected: Vec<String> =
        (0..1500).map(|i| format!("Paragraph {i} of a page too long for one answer.")).collect();
    assert_eq!(seen, expected, "every line once, in order, across the pages");
}

#[tokio::test(flavor = "multi_thread")]
async fn refs_past_e999_take_the_next_letter_and_act_on_their_own_element() {
    let rig = Rig::start().await.expect("rig");
    let c = &rig.client;
    rig.open("page-state/many-buttons.html").await;
    let snapshot = c.call("browser_snapshot", json!({})).await.expect("browser_snapshot answers");
    assert!(!snapshot.is_error, "{}", snapshot.text);
    let first = ref_of(&snapshot, "button", "Item 1");
    let late = ref_of(&snapshot, "button", "Item 1100");
    assert!(first.starts_with('e') && late.starts_with('f'), "{first} and {late}");
    assert_eq!(
        sightline_core::refs::parse_ref(&late).expect("a ref")
            - sightline_core::refs::parse_ref(&first).expect("a ref"),
        1099
    );

    let pressed = c.ok("browser_click", json!({"ref": late})).await;
    assert!(pressed.contains("Pressed item 1100"), "the answer shows what the click did: {pressed}");
    assert!(rig.server.wait_for_event("pressed 1100", WAIT), "{:?}", rig.server.events());
    // The same number under the first letter is another element.
    let same_number = late.replacen('f', "e", 1);
    c.ok("browser_click", json!({"ref": same_number})).await;
    let n = sightline_core::refs::parse_ref(&same_number).expect("a ref")
        - sightline_core::refs::parse_ref(&first).expect("a ref")
        + 1;
    assert!(rig.server.wait_for_event(&format!("pressed {n}"), WAIT), "{:?}", rig.server.events());
    // A number no letter takes past 999 is no ref.
    let malformed = c.call("browser_click", json!({"ref": "f1000"})).await.unwrap();
    assert!(malformed.is_error && malformed.text.contains("is not an element ref"), "{}", malformed.text);
}
