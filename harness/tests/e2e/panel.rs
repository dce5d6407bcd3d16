//! The human side of the extension, in a real browser: the Sightline panel lists an agent's calls
//! on a tab (arguments masked), shows a delta as a human diff with the changed words marked, and
//! stops the agent on the tab; the popup shares a tab and stops it again; a noise rule added in the
//! options page keeps a console error out of change reports, and removing it brings the error back;
//! without a registered host the popup names the command that fixes it. A change report is drawn as
//! cards, the page's console, network and WebSocket events sit on the calls' time axis (a call
//! shows those during it), the session exports as JSON and Markdown with its secrets masked, and
//! forgetting empties calls and lanes. The person points at an element for the agent (as the
//! Elements panel hands it over, and with Pick), which `browser_user_selection` answers with its
//! ref and line; a ref is handed to the Elements panel; the agent's current view folds by region,
//! the regions the agent read as unchanged folded. Pick reaches into iframes, out-of-process ones
//! included. History and log sizes set in the options page are what the runtime keeps. Each page is
//! saved as a screenshot under `target/ui/`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::cdp::CdpConnection;
use sightline_harness::client::Reply;
use sightline_harness::ui::ExtensionPage;
use sightline_harness::websocket::WebSocketServer;
use sightline_harness::{Chromium, McpClient, Rig, Sandbox, paths, ref_of, service_worker};

const WAIT: Duration = Duration::from_secs(15);
const SECRET: &str = "hunter2-harbour";
const ERROR_TEXT: &str = "Checkout failed: price service unreachable";

async fn rig() -> Rig {
    Rig::serving(paths::fixtures_dir().join("panel"), &[REMOTE_DEBUGGING]).await.expect("rig")
}

async fn call(c: &McpClient, tool: &str, args: Value) -> Reply {
    let reply = c.call(tool, args.clone()).await.expect("the call reaches the server");
    assert!(!reply.is_error, "{tool} {args} failed: {}", reply.text);
    reply
}

fn js(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// Clicks the first element matching `selector` in `page`.
fn click(page: &mut ExtensionPage, selector: &str) {
    page.eval(&format!("document.querySelector({}).click()", js(selector))).expect("click");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_panel_lists_the_calls_marks_the_changed_words_and_stops_the_agent() {
    let rig = rig().await;
    let c = &rig.client;
    // An agent session: a look at the page, a delta, a dialog opened and closed with a password
    // typed in it, a console error, a change report.
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let delta = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await;
    assert!(delta.text.contains("Basket: 1 item"), "{}", delta.text);
    eprintln!("the agent's text for the click:\n{}", delta.text);
    let opened = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Sign in")})).await;
    let in_dialog = call(c, "browser_snapshot", json!({})).await;
    let password = in_dialog
        .structured
        .as_ref()
        .and_then(|s| s["elements"].as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .find(|e| e["name"] == "Password")
        .and_then(|e| e["ref"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no password field after {}:\n{}", opened.text, in_dialog.text));
    call(c, "browser_type", json!({"ref": password, "text": SECRET})).await;
    call(c, "browser_click", json!({"ref": ref_of(&in_dialog, "button", "Close")})).await;
    let checkout = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Check out")})).await;
    assert!(checkout.text.contains("error"), "{}", checkout.text);
    call(c, "get_changes_since", json!({})).await;
    let tab = rig.tab_id("shop.html");

    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1120, 680).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 9", WAIT).expect("the calls are listed");
    let tools = panel.eval("[...document.querySelectorAll('.call')].map((c) => c.dataset.tool)").expect("tools");
    let tools: Vec<&str> = tools.as_array().map(|t| t.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    assert_eq!(
        tools,
        [
            "browser_navigate",
            "browser_snapshot",
            "browser_click",
            "browser_click",
            "browser_snapshot",
            "browser_type",
            "browser_click",
            "browser_click",
            "get_changes_since"
        ],
        "oldest first, newest at the bottom"
    );
    let grant = panel.eval("document.querySelector('#grant').textContent").expect("grant");
    assert!(grant.as_str().is_some_and(|g| g.starts_with("Opened by an agent")), "{grant}");
    // The password typed never reaches the panel, neither its page nor what the runtime sends it.
    let everything = panel
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'model', tab: {tab}}}).then(JSON.stringify)"))
        .expect("model");
    let everything = everything.as_str().unwrap_or_default().to_owned();
    assert!(everything.contains("browser_type") && !everything.contains(SECRET), "{everything}");
    assert!(!panel.eval("document.documentElement.outerHTML").expect("html").to_string().contains(SECRET));
    // The console error the checkout click caused is flagged on its call.
    let flagged = panel.eval("document.querySelector('.call:nth-child(8)').textContent").expect("checkout call");
    assert!(flagged.as_str().is_some_and(|t| t.contains("page errors")), "{flagged}");
    // The overlay's opening is said as such.
    let kinds = panel.eval("[...document.querySelectorAll('.call .kind')].map((k) => k.textContent)").expect("kinds");
    assert!(kinds.to_string().contains("opened"), "{kinds}");

    // The delta, as a person reads it: the basket line changed, its changed words marked.
    click(&mut panel, ".call:nth-child(3)");
    panel.wait_for("document.querySelector('#detail .row.changed ins') !== null", WAIT).expect("a changed line");
    let changed = panel
        .eval(
            "[...document.querySelectorAll('#detail .row.changed')].map((r) => ({before: r.querySelector('.before').textContent, \
             after: r.querySelector('.after').textContent, del: [...r.querySelectorAll('del')].map((d) => d.textContent), \
             ins: [...r.querySelectorAll('ins')].map((i) => i.textContent)}))",
        )
        .expect("changed rows");
    let basket = changed
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["after"].as_str().is_some_and(|a| a.contains("Basket: 1 item"))))
        .unwrap_or_else(|| panic!("no changed basket line: {changed:#}"));
    assert_eq!(basket["before"], "Basket: 0 items", "{basket:#}");
    assert!(basket["ins"].as_array().is_some_and(|i| i.contains(&json!("1"))), "{basket:#}");
    assert!(basket["del"].as_array().is_some_and(|d| d.contains(&json!("0"))), "{basket:#}");
    // The exact text the agent read is there too, its refs live.
    let answer = panel.eval("document.querySelector('#detail pre.answer').textContent").expect("answer");
    assert_eq!(answer.as_str().map(str::trim_end), Some(delta.text.trim_end()), "the answer as the agent read it");
    assert!(panel.eval("document.querySelectorAll('#detail .ref').length > 0").expect("refs") == json!(true));
    // A ref outlines its element in the page; a ref never given is refused with the reason.
    let outline = |r: &str| format!("chrome.runtime.sendMessage({{panel: 'highlight', tab: {tab}, ref: '{r}'}})");
    let outlined = panel.eval(&outline("e3")).expect("highlight");
    assert_eq!(outlined, json!({"ok": true}), "outlining e3");
    let unknown = panel.eval(&outline("e999")).expect("highlight");
    assert!(unknown["error"].as_str().is_some_and(|e| e.contains("e999")), "{unknown}");
    panel.eval(&format!("chrome.runtime.sendMessage({{panel: 'unhighlight', tab: {tab}}})")).expect("unhighlight");
    let shot = panel.screenshot("panel.png").expect("screenshot");
    panel.dark(true).expect("dark");
    panel.screenshot("panel-dark.png").expect("screenshot");
    panel.dark(false).expect("light");
    eprintln!("panel screenshots in {}", shot.display());

    // Stop the agent here: the next call on the tab is refused.
    click(&mut panel, "#stop");
    panel.wait_for("document.querySelector('#grant').textContent === 'Not shared'", WAIT).expect("stopped");
    let refused = c.call("browser_snapshot", json!({"tab": tab})).await.expect("call");
    assert!(refused.is_error, "the agent still reads the tab after the stop: {}", refused.text);
    assert!(refused.text.contains("stopped the agent on this tab"), "{}", refused.text);
    panel.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_popup_shares_and_stops_a_tab() {
    let rig = rig().await;
    let c = &rig.client;
    let mut cdp = CdpConnection::connect(&rig.devtools()).expect("devtools");
    cdp.call(None, "Target.createTarget", json!({"url": rig.server.url("shop.html?mine")}))
        .expect("a tab of the user's");
    let deadline = Instant::now() + WAIT;
    let tab = loop {
        let found = service_worker::evaluate_in_extension_worker(
            &rig.devtools(),
            "chrome.tabs.query({}).then((t) => (t.find((x) => (x.url || '').includes('?mine') && x.status === 'complete') || {}).id)",
        )
        .expect("query tabs");
        if let Some(id) = found.as_i64() {
            break id;
        }
        assert!(Instant::now() < deadline, "the user's tab never loaded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let before = c.call("browser_snapshot", json!({"tab": tab})).await.expect("call");
    assert!(before.is_error, "a tab nobody shared was read: {}", before.text);

    let mut popup = ExtensionPage::open(&rig.devtools(), &format!("popup.html?tab={tab}"), 340, 440).expect("popup");
    popup.wait_for("document.querySelector('#host-state').textContent === 'connected'", WAIT).expect("host connected");
    popup.wait_for("document.querySelector('#tab-state').textContent === 'not shared'", WAIT).expect("not shared");
    click(&mut popup, "#toggle");
    popup.wait_for("document.querySelector('#tab-state').textContent === 'shared'", WAIT).expect("shared");
    let page = call(c, "browser_snapshot", json!({"tab": tab})).await;
    assert!(page.text.contains("Harbour Rain Jacket"), "{}", page.text);
    popup
        .wait_for(
            "document.querySelectorAll('#sessions li').length === 1 && !document.querySelector('#sessions li.muted')",
            WAIT,
        )
        .expect("the session is listed");
    popup.screenshot("popup.png").expect("screenshot");
    popup
        .wait_for("document.querySelector('#toggle').textContent === 'Stop the agent here'", WAIT)
        .expect("stop offered");
    click(&mut popup, "#toggle");
    popup.wait_for("document.querySelector('#tab-state').textContent === 'not shared'", WAIT).expect("stopped");
    let after = c.call("browser_snapshot", json!({"tab": tab})).await.expect("call");
    assert!(after.is_error, "the agent still reads the tab after the stop: {}", after.text);
    popup.close().expect("close");
}

/// Clicks "Check out" (which logs [`ERROR_TEXT`]) and returns the change report that follows.
async fn checkout_report(c: &McpClient, page: &Reply) -> String {
    call(c, "browser_click", json!({"ref": ref_of(page, "button", "Check out")})).await;
    call(c, "get_changes_since", json!({})).await.text
}

#[tokio::test(flavor = "multi_thread")]
async fn a_noise_rule_added_in_the_options_page_keeps_an_error_out_of_reports_until_removed() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "get_changes_since", json!({})).await;
    let report = checkout_report(c, &page).await;
    assert!(report.contains(ERROR_TEXT), "without a rule the error is reported: {report}");

    let mut options = ExtensionPage::open(&rig.devtools(), "options.html", 900, 1100).expect("options");
    options.wait_for("document.querySelectorAll('#builtin tbody tr').length > 5", WAIT).expect("built-in rules");
    // A built-in rule turned off is written where the runtime reads it.
    click(&mut options, "#builtin input[data-rule='favicon']");
    options
        .wait_for("chrome.storage.local.get('sightline.noise').then((s) => (s['sightline.noise']?.remove ?? []).includes('favicon'))", WAIT)
        .expect("favicon rule off");
    let fill = "document.querySelector('#rule-name').value = 'price_service'; \
                document.querySelector('#rule-target').value = 'console_text'; \
                document.querySelector('#rule-how').value = 'contains'; \
                document.querySelector('#rule-pattern').value = 'price service'; \
                document.querySelector('#add-rule').requestSubmit()";
    options.eval(fill).expect("add a rule");
    options
        .wait_for("document.querySelector('#custom tr[data-rule=price_service]') !== null", WAIT)
        .expect("rule listed");
    options.screenshot("options.png").expect("screenshot");

    let quiet = checkout_report(c, &page).await;
    assert!(!quiet.contains(ERROR_TEXT), "the rule keeps the error out: {quiet}");
    let raw = call(c, "browser_console_messages", json!({"level": "error"})).await;
    assert!(raw.text.contains(ERROR_TEXT), "the raw list still has it: {}", raw.text);

    click(&mut options, "#custom tr[data-rule=price_service] button");
    options
        .wait_for("document.querySelector('#custom tr[data-rule=price_service]') === null", WAIT)
        .expect("rule removed");
    let again = checkout_report(c, &page).await;
    assert!(again.contains(ERROR_TEXT), "without the rule the error is reported again: {again}");
    options.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn history_and_log_sizes_set_in_the_options_page_are_what_the_runtime_keeps() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let tab = rig.tab_id("shop.html");

    let mut options = ExtensionPage::open(&rig.devtools(), "options.html", 900, 1300).expect("options");
    // The inputs show the runtime's defaults and bounds.
    options.wait_for("document.querySelector('#size-console').value === '1000'", WAIT).expect("defaults");
    let bounds = options
        .eval("['history', 'console'].map((s) => [document.querySelector(`#size-${s}`).min, document.querySelector(`#size-${s}`).max])")
        .expect("bounds");
    assert_eq!(bounds, json!([["2", "200"], ["10", "10000"]]));
    // The page logs with browser_evaluate, allowed here first.
    click(&mut options, "#allow-evaluate");
    options
        .wait_for(
            "chrome.storage.local.get('sightline.options').then((s) => s['sightline.options']?.allow_evaluate)",
            WAIT,
        )
        .expect("evaluate allowed");
    // Three versions, and a console log of 4 entries, which is below its bound: 10 is kept.
    options
        .eval(
            "document.querySelector('#size-history').value = '3'; document.querySelector('#size-console').value = '4'; \
             document.querySelector('#sizes').requestSubmit()",
        )
        .expect("set sizes");
    options
        .wait_for(
            "chrome.storage.local.get('sightline.options').then((s) => s['sightline.options']?.sizes?.history === 3 \
             && s['sightline.options'].sizes.console === 10 && s['sightline.options'].allow_evaluate === true)",
            WAIT,
        )
        .expect("sizes saved within their bounds");
    assert_eq!(options.eval("document.querySelector('#size-console').value").expect("value"), json!("10"));
    options.eval("document.querySelector('#sizes').closest('section').scrollIntoView(); true").expect("scroll");
    options.screenshot("options-sizes.png").expect("screenshot");
    options.close().expect("close");

    // The page logs 25 messages: the console log keeps the newest 10.
    let logged = "() => { for (let i = 0; i < 25; i++) console.log(`message ${i} of 25`); return 25; }";
    call(c, "browser_evaluate", json!({"function": logged})).await;
    let deadline = Instant::now() + WAIT;
    let listed = loop {
        let listed = call(c, "browser_console_messages", json!({})).await.text;
        if listed.contains("message 24 of 25") || Instant::now() > deadline {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let kept: Vec<&str> = listed.lines().filter(|l| l.contains(" of 25")).collect();
    assert_eq!(kept.len(), 10, "{listed}");
    assert!(kept[0].contains("message 15 of 25") && kept[9].contains("message 24 of 25"), "{listed}");

    // Five changes to the page: the panel can compare the newest three versions only.
    let page = call(c, "browser_snapshot", json!({})).await;
    let button = ref_of(&page, "button", "Add to basket");
    for _ in 0..5 {
        call(c, "browser_click", json!({"ref": button})).await;
    }
    let page = call(c, "browser_snapshot", json!({})).await;
    let version = page.structured.as_ref().and_then(|s| s["version"].as_u64()).expect("a version");
    let model = ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 900, 600)
        .expect("panel")
        .eval(&format!(
            "chrome.runtime.sendMessage({{panel: 'model', tab: {tab}}}).then((m) => Object.values(m.versions))"
        ))
        .expect("model");
    assert_eq!(model, json!([[version - 2, version - 1, version]]), "the versions held");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agents_current_view_shows_the_regions_it_saw_as_unchanged_folded() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    // The next page has the same header and footer: the agent reads them as one line each.
    let returns = call(c, "browser_navigate", json!({"url": rig.server.url("returns.html")})).await;
    let agent_read: Vec<&str> = returns.text.lines().filter(|l| l.contains("unchanged=\"true\"")).collect();
    assert_eq!(agent_read.len(), 2, "{}", returns.text);
    let tab = rig.tab_id("returns.html");

    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1120, 760).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 2", WAIT).expect("the calls are listed");
    click(&mut panel, "#agent-view");
    panel.wait_for("document.querySelectorAll('#current-view details.region').length >= 3", WAIT).expect("the view");
    let sections = eval_json(
        &mut panel,
        "[...document.querySelectorAll('#current-view details.region')].map((d) => ({region: d.dataset.region, \
         open: d.open, folded: d.classList.contains('folded'), as: d.querySelector('.folded-as')?.textContent ?? null, \
         text: d.querySelector('pre.answer').textContent}))",
    );
    let sections = sections.as_array().cloned().unwrap_or_default();
    let section = |name: &str| {
        sections.iter().find(|s| s["region"] == name).cloned().unwrap_or_else(|| panic!("no {name}: {sections:#?}"))
    };
    // Folded as the agent saw them, each with the very line it read; the new content is open.
    let folded_as: Vec<&str> = sections.iter().filter_map(|s| s["as"].as_str()).collect();
    assert_eq!(folded_as, agent_read, "{sections:#?}");
    // The header holds only its navigation, whose section carries the header's line.
    for name in ["nav \"Primary\"", "footer"] {
        let s = section(name);
        assert_eq!((&s["folded"], &s["open"]), (&json!(true), &json!(false)), "{name}: {sections:#?}");
    }
    let main = section("main");
    assert_eq!((&main["folded"], &main["open"]), (&json!(false), &json!(true)), "{sections:#?}");
    assert!(main["text"].as_str().is_some_and(|t| t.contains("Print a returns label")), "{main}");
    // What a folded region holds is there when opened.
    assert!(section("footer")["text"].as_str().is_some_and(|t| t.contains("12 Quay Street")), "{sections:#?}");
    panel.screenshot("panel-view-folded.png").expect("screenshot");

    // After a snapshot that writes every region out, nothing is folded any more.
    call(c, "browser_snapshot", json!({})).await;
    click(&mut panel, "#agent-view");
    panel
        .wait_for(
            "document.querySelectorAll('#current-view details.region').length >= 3 \
             && document.querySelectorAll('#current-view details.folded').length === 0",
            WAIT,
        )
        .expect("nothing folded after a full snapshot");
    panel.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn pick_takes_an_element_inside_an_iframe_of_the_same_process() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("framed.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let label = ref_of(&page, "button", "Print a returns label");
    let tab = rig.tab_id("framed.html");
    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1120, 700).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 2", WAIT).expect("the calls are listed");
    panel.eval("document.querySelector('#pick').click(); true").expect("pick");
    panel.wait_for("document.body.dataset.picking === 'true'", WAIT).expect("waiting for the person's click");
    // The person clicks the button inside the iframe.
    let inside = "(() => { const f = document.querySelector('#returns'); const e = f.contentDocument.querySelector('#label'); \
                  const a = f.getBoundingClientRect(), b = e.getBoundingClientRect(); \
                  return JSON.stringify({x: a.x + f.clientLeft + b.x, y: a.y + f.clientTop + b.y}); })()";
    person_clicks_where(&rig, tab, "framed.html", inside);
    panel.wait_for("document.querySelector('#selection').dataset.by === 'pick'", WAIT).expect("picked");
    let picked = call(c, "browser_user_selection", json!({})).await;
    let header = format!(" · the user selected {label} with Pick in the Sightline panel\n");
    assert!(picked.text.contains(&header) && picked.text.contains("Print a returns label"), "{}", picked.text);
    // The click picked; it never reached the framed page.
    let text = in_page(
        &rig.devtools(),
        "framed.html",
        "document.querySelector('#returns').contentDocument.querySelector('#label').textContent",
    );
    assert_eq!(text, json!("Print a returns label"));
    // The listeners of the other frames were called off: nothing is still picking.
    panel.wait_for("document.body.dataset.picking === 'false'", WAIT).expect("no longer picking");
    panel.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn pick_takes_an_element_inside_an_out_of_process_iframe() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("framed-elsewhere.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let label = ref_of(&page, "button", "Print a returns label");
    let tab = rig.tab_id("framed-elsewhere.html");
    // The framed page is another site, so the browser runs it in a process of its own.
    let devtools = rig.devtools();
    let (mut cdp, session) =
        service_worker::attach_to_frame(&devtools, "localhost").expect("the framed page is out of process");
    let inner = cdp
        .call(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": "JSON.stringify(document.querySelector('#label').getBoundingClientRect())", "returnByValue": true}),
        )
        .expect("measure inside the frame");
    let inner: Value = serde_json::from_str(inner["result"]["value"].as_str().unwrap_or("{}")).expect("rect");

    let mut panel = ExtensionPage::open(&devtools, &format!("panel/panel.html?tab={tab}"), 1120, 700).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 2", WAIT).expect("the calls are listed");
    panel.eval("document.querySelector('#pick').click(); true").expect("pick");
    panel.wait_for("document.body.dataset.picking === 'true'", WAIT).expect("waiting for the person's click");
    let at = format!(
        "(() => {{ const f = document.querySelector('#returns'); const a = f.getBoundingClientRect(); \
         return JSON.stringify({{x: a.x + f.clientLeft + {x}, y: a.y + f.clientTop + {y}}}); }})()",
        x = inner["x"].as_f64().unwrap_or(0.0),
        y = inner["y"].as_f64().unwrap_or(0.0)
    );
    person_clicks_where(&rig, tab, "framed-elsewhere.html", &at);
    panel.wait_for("document.querySelector('#selection').dataset.by === 'pick'", WAIT).expect("picked");
    let picked = call(c, "browser_user_selection", json!({})).await;
    let header = format!(" · the user selected {label} with Pick in the Sightline panel\n");
    assert!(picked.text.contains(&header) && picked.text.contains("Print a returns label"), "{}", picked.text);
    // The click picked; it never reached the framed page.
    let text = cdp
        .call(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": "document.querySelector('#label').textContent", "returnByValue": true}),
        )
        .expect("read the frame");
    assert_eq!(text["result"]["value"], json!("Print a returns label"));
    panel.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_registered_host_the_popup_says_what_fixes_it() {
    let _slot = sightline_harness::browser_slots(1).await.expect("a browser slot");
    let sandbox = Sandbox::new().expect("sandbox");
    // The host is never registered with this browser.
    let browser = Chromium::launch_with(&sandbox, &[REMOTE_DEBUGGING]).expect("browser");
    let devtools = browser.devtools_endpoint().expect("devtools endpoint");
    let mut popup = ExtensionPage::open(&devtools, "popup.html", 340, 520).expect("popup");
    popup
        .wait_for("document.querySelector('#host-state').textContent === 'not connected'", WAIT)
        .expect("not connected");
    let fix = popup.eval("document.querySelector('#host-fix').innerText").expect("fix");
    let fix = fix.as_str().unwrap_or_default();
    assert!(fix.contains("sightline-host install") && fix.contains("not found"), "{fix}");
    popup.screenshot("popup-no-host.png").expect("screenshot");
    popup.close().expect("close");
}

/// A value the panel page computes, as JSON text parsed back.
fn eval_json(page: &mut ExtensionPage, expression: &str) -> Value {
    let text = page.eval(&format!("JSON.stringify({expression})")).expect("evaluate");
    serde_json::from_str(text.as_str().unwrap_or("null")).expect("JSON")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_report_is_drawn_as_cards_the_page_events_share_the_calls_time_axis_and_the_session_exports() {
    let sockets = WebSocketServer::start().expect("websocket server");
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    // The orders page loads its orders (HTTP 200) and opens a socket; a secret rides in its URL.
    let url = rig.server.url(&format!("changes/app.html?ws={}&token={SECRET}", sockets.port()));
    call(c, "browser_navigate", json!({"url": url})).await;
    assert!(rig.server.wait_for_event("ready", WAIT), "the page never got ready: {:?}", rig.server.events());
    call(c, "browser_checkpoint", json!({"action": "create", "name": "before_checkout"})).await;
    // Then the orders API breaks, and "Place order" logs an error and closes the socket.
    rig.server.set_status("orders", 500);
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await;
    assert!(rig.server.wait_for_event("socket:closed", WAIT), "the socket never closed");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let report = call(c, "get_changes_since", json!({"checkpoint": "before_checkout"})).await;
    assert!(report.text.contains("Checkout failed"), "{}", report.text);
    let tab = rig.tab_id("changes/app.html");

    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1200, 820).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 5", WAIT).expect("the calls are listed");
    // The newest call, the report, is shown as cards made by the core from the same report.
    panel.wait_for("document.querySelectorAll('#report .change-card').length >= 4", WAIT).expect("cards");
    let cards = eval_json(
        &mut panel,
        "[...document.querySelectorAll('#report .change-card')].map((c) => ({kind: c.dataset.kind, \
         title: c.querySelector('.card-title').textContent, change: c.querySelector('.card-change')?.textContent ?? null, \
         detail: c.querySelector('.card-detail')?.textContent ?? null}))",
    );
    let card = |kind: &str| {
        cards
            .as_array()
            .and_then(|all| all.iter().find(|c| c["kind"] == kind).cloned())
            .unwrap_or_else(|| panic!("no {kind} card: {cards:#}"))
    };
    assert_eq!(card("console_error")["title"], "Checkout failed: the orders API answered HTTP 500", "{cards:#}");
    assert_eq!(card("endpoint_failing")["title"], "GET /switch/orders", "{cards:#}");
    assert_eq!(card("endpoint_failing")["change"], "200 → 500", "{cards:#}");
    assert_eq!(card("socket_closed")["detail"], "code 4001: checkout finished", "{cards:#}");
    assert!(card("agent_action")["title"].as_str().is_some_and(|t| t.starts_with("click")), "{cards:#}");
    let severity = panel.eval("document.querySelector('#report .cards-head .pill').textContent").expect("severity");
    assert_eq!(severity, "error");
    panel.screenshot("panel-cards.png").expect("screenshot");

    // The checkpoint call shows its checkpoint as a card.
    click(&mut panel, ".call:nth-child(2)");
    panel
        .wait_for(
            "document.querySelector('#report .change-card.checkpoint .card-title')?.textContent === 'before_checkout'",
            WAIT,
        )
        .expect("the checkpoint card");

    // Console, network and WebSocket events sit on the lanes; the failures stand out.
    for lane in ["console", "network", "websocket"] {
        panel
            .wait_for(&format!("document.querySelector('#lanes .track[data-lane={lane}] .tick') !== null"), WAIT)
            .unwrap_or_else(|e| panic!("no event in the {lane} lane: {e}"));
    }
    let failures = eval_json(
        &mut panel,
        "['console', 'network', 'websocket'].map((l) => document.querySelectorAll(`#lanes .track[data-lane=${l}] .tick.error, \
         #lanes .track[data-lane=${l}] .tick.warning`).length)",
    );
    assert!(failures.as_array().is_some_and(|n| n.iter().all(|n| n.as_u64() > Some(0))), "{failures}");
    // Picking the click's bar on the axis shows what happened while it ran.
    click(&mut panel, "#lanes .track[data-lane=calls] .bar:nth-of-type(4)");
    panel
        .wait_for("document.querySelector('.call[aria-selected=true]')?.dataset.tool === 'browser_click'", WAIT)
        .expect("the click is selected");
    panel
        .wait_for("document.querySelector('#detail .detail-head h1')?.textContent === 'browser_click'", WAIT)
        .expect("the click is shown");
    let during = eval_json(&mut panel, "[...document.querySelectorAll('#during .event')].map((e) => e.textContent)");
    let during = during.to_string();
    assert!(during.contains("Checkout failed: the orders API answered HTTP 500"), "{during}");
    assert!(during.contains("GET 500"), "{during}");
    assert!(panel.eval("document.querySelectorAll('#lanes .band').length > 0").expect("band") == json!(true));
    panel.screenshot("panel-lanes.png").expect("screenshot");

    // The session exports as Markdown and JSON, its secret masked.
    let export =
        |format: &str| format!("chrome.runtime.sendMessage({{panel: 'export', tab: {tab}, format: '{format}'}})");
    let markdown = panel.eval(&export("markdown")).expect("markdown export");
    let text = markdown["text"].as_str().unwrap_or_default();
    assert!(
        markdown["file_name"]
            .as_str()
            .is_some_and(|n| n.starts_with(&format!("sightline-tab-{tab}-")) && n.ends_with(".md")),
        "{markdown}"
    );
    assert!(text.contains("### 1. `browser_navigate`") && text.contains("### 5. `get_changes_since`"), "{text}");
    assert!(text.contains("- endpoint_failing: GET /switch/orders (200 → 500)"), "{text}");
    assert!(text.contains("| console | error | error: Checkout failed"), "{text}");
    assert!(text.contains("token=••••••") && !text.contains(SECRET), "{text}");
    let exported = panel.eval(&export("json")).expect("json export");
    let json_text = exported["text"].as_str().unwrap_or_default();
    assert!(!json_text.contains(SECRET), "{json_text}");
    let session: Value = serde_json::from_str(json_text).expect("the JSON export parses");
    assert_eq!(session["calls"].as_array().map(Vec::len), Some(5), "{session:#}");
    assert!(session["events"].as_array().is_some_and(|e| e.iter().any(|e| e["lane"] == "websocket")), "{session:#}");
    let bad = panel
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'export', tab: {tab}, format: 'pdf'}})"))
        .expect("bad");
    assert!(bad["error"].as_str().is_some_and(|e| e.contains("pdf")), "an unknown format is refused: {bad}");
    // The buttons save the same files.
    click(&mut panel, "#export-md");
    panel.wait_for("(document.body.dataset.exported ?? '').endsWith('.md')", WAIT).expect("markdown saved");
    click(&mut panel, "#export-json");
    panel.wait_for("(document.body.dataset.exported ?? '').endsWith('.json')", WAIT).expect("JSON saved");

    // Forgetting (the options page's button) empties the lanes as well as the calls.
    let forgot = panel.eval("chrome.runtime.sendMessage({panel: 'forget'})").expect("forget");
    assert!(forgot["events"].as_u64() > Some(0), "{forgot}");
    panel.wait_for("document.querySelectorAll('.call').length === 0", WAIT).expect("no calls");
    panel.wait_for("document.querySelectorAll('#lanes .tick').length === 0", WAIT).expect("no events");
    panel.close().expect("close");
}

/// Runs `expression` in the page whose URL contains `url_part`, over the test's own connection.
fn in_page(devtools: &str, url_part: &str, expression: &str) -> Value {
    let (mut cdp, session) = service_worker::attach_to_page(devtools, url_part).expect("attach to the page");
    let params = json!({"expression": expression, "returnByValue": true});
    let result = cdp.call(Some(&session), "Runtime.evaluate", params).expect("evaluate");
    let _ = cdp.call(None, "Target.detachFromTarget", json!({"sessionId": session}));
    result["result"]["value"].clone()
}

/// Clicks the middle of the element matching `selector` as a person would: trusted mouse events
/// into the page's input (sent through the browser's debugger API from the extension's worker).
fn person_clicks(rig: &Rig, tab: i64, selector: &str) {
    let measure = format!(
        "(() => {{ const e = document.querySelector({}); e.scrollIntoView({{block: 'center'}}); \
         return JSON.stringify(e.getBoundingClientRect()); }})()",
        js(selector)
    );
    person_clicks_where(rig, tab, "shop.html", &measure);
}

/// Like [`person_clicks`], for the element `measure` (evaluated in the page at `url_part`)
/// gives the viewport rectangle of, as JSON.
fn person_clicks_where(rig: &Rig, tab: i64, url_part: &str, measure: &str) {
    let at = in_page(&rig.devtools(), url_part, measure);
    let rect: Value = serde_json::from_str(at.as_str().unwrap_or("{}")).expect("rect");
    let (x, y) = (rect["x"].as_f64().unwrap_or(0.0) + 10.0, rect["y"].as_f64().unwrap_or(0.0) + 5.0);
    let send = |kind: &str, buttons: u32| {
        format!(
            "chrome.debugger.sendCommand({{tabId: {tab}}}, 'Input.dispatchMouseEvent', {{type: '{kind}', x: {x}, y: {y}, \
             button: 'left', buttons: {buttons}, clickCount: 1}}).then(() => true)"
        )
    };
    for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
        assert_eq!(rig.in_worker(&send(kind, buttons)), json!(true), "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_user_points_at_an_element_for_the_agent_and_a_ref_is_handed_to_the_elements_panel() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let buy = ref_of(&page, "button", "Add to basket");
    let checkout = ref_of(&page, "button", "Check out");
    let tab = rig.tab_id("shop.html");
    let devtools = rig.devtools();
    let nothing = c.call("browser_user_selection", json!({})).await.expect("call");
    assert!(nothing.is_error && nothing.text.contains("has not selected anything"), "{}", nothing.text);

    let mut panel = ExtensionPage::open(&devtools, &format!("panel/panel.html?tab={tab}"), 1200, 700).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 3", WAIT).expect("the calls are listed");
    // What the DevTools page does when the Elements panel selects a node: the node under a
    // one-time name in the page, handed to the runtime, which reads and deletes it.
    let select = |selector: &str, key: &str| {
        let put = format!(
            "Object.defineProperty(globalThis, '{key}', {{value: document.querySelector({}), configurable: true}}); true",
            js(selector)
        );
        assert_eq!(in_page(&devtools, "shop.html", &put), json!(true));
        format!("chrome.runtime.sendMessage({{panel: 'selected', tab: {tab}, key: '{key}'}})")
    };
    let selected = panel.eval(&select("#buy", "__sightline_selection_0123456789abcdef")).expect("selected");
    assert_eq!(selected, json!({"selected": "button#buy"}));
    let left = in_page(&devtools, "shop.html", "'__sightline_selection_0123456789abcdef' in globalThis");
    assert_eq!(left, json!(false), "the one-time name is gone from the page");
    panel.wait_for("document.querySelector('#selection').textContent.includes('button#buy')", WAIT).expect("shown");
    let answer = call(c, "browser_user_selection", json!({})).await;
    let header = format!(" · the user selected {buy} in the Elements panel\n{buy} ");
    assert!(answer.text.contains(&header) && answer.text.contains("Add to basket"), "{}", answer.text);
    let facts = answer.structured.clone().expect("structuredContent");
    assert_eq!((&facts["ref"], &facts["exact"], &facts["by"]), (&json!(buy), &json!(true), &json!("elements_panel")));
    panel.screenshot("panel-selection.png").expect("screenshot");

    // Text the page shows without a ref answers with its line.
    panel.eval(&select("#basket", "__sightline_selection_aaaaaaaabbbbbbbb")).expect("selected");
    let text = call(c, "browser_user_selection", json!({})).await;
    assert!(text.text.ends_with("the user selected this text in the Elements panel\nBasket: 0 items"), "{}", text.text);
    // A key the DevTools page would never make is refused.
    let odd = panel
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'selected', tab: {tab}, key: 'location'}})"))
        .expect("odd key");
    assert!(odd["error"].as_str().is_some_and(|e| e.contains("not a selection key")), "{odd}");

    // Pick: the person clicks the button, then "Check out" in the page.
    panel.eval("document.querySelector('#pick').click(); true").expect("pick");
    panel.wait_for("document.body.dataset.picking === 'true'", WAIT).expect("waiting for the person's click");
    person_clicks(&rig, tab, "#break");
    panel.wait_for("document.querySelector('#selection').dataset.by === 'pick'", WAIT).expect("picked");
    let picked = c.call("browser_user_selection", json!({})).await.expect("call");
    let shown = panel.eval("document.querySelector('#selection').textContent").expect("selection");
    assert!(!picked.is_error, "{shown}: {}", picked.text);
    let header = format!(" · the user selected {checkout} with Pick in the Sightline panel\n");
    assert!(picked.text.contains(&header), "{}", picked.text);
    // The click picked; it never reached the page (its button would have logged an error).
    let logged = call(c, "browser_console_messages", json!({"level": "error"})).await;
    assert!(!logged.text.contains(ERROR_TEXT), "{}", logged.text);
    // An agent whose refs are older is told so first; a version it never had is refused.
    call(c, "browser_click", json!({"ref": buy})).await;
    let behind = call(c, "browser_user_selection", json!({"since_version": 1})).await;
    assert!(behind.text.starts_with("! your refs are from v1; the page is at v2 now"), "{}", behind.text);
    let future = c.call("browser_user_selection", json!({"since_version": 99})).await.expect("call");
    assert!(future.is_error, "{}", future.text);

    // The page as the agent last saw it, one foldable section per region, refs live.
    click(&mut panel, "#agent-view");
    panel.wait_for("document.querySelectorAll('#current-view details.region').length >= 2", WAIT).expect("the view");
    let regions = eval_json(
        &mut panel,
        "[...document.querySelectorAll('#current-view details.region')].map((d) => ({region: d.dataset.region, \
         text: d.querySelector('pre.answer').textContent, refs: [...d.querySelectorAll('.ref')].map((r) => r.dataset.ref)}))",
    );
    let main = regions
        .as_array()
        .and_then(|all| all.iter().find(|r| r["region"] == "main"))
        .unwrap_or_else(|| panic!("no main region: {regions:#}"));
    assert!(
        main["text"].as_str().is_some_and(|t| t.contains("Basket: 1 item")),
        "the view after the click: {regions:#}"
    );
    assert!(main["refs"].as_array().is_some_and(|r| r.contains(&json!(buy))), "{regions:#}");
    panel.screenshot("panel-view.png").expect("screenshot");
    panel
        .eval(
            "[...document.querySelectorAll('#current-view button')].find((b) => b.textContent === 'Fold all').click()",
        )
        .expect("fold");
    assert_eq!(panel.eval("document.querySelectorAll('#current-view details[open]').length").expect("open"), json!(0));

    // A ref the agent holds is handed over for the Elements panel to select; a ref never given
    // says why it cannot be.
    let reveal = |r: &str, key: &str| {
        format!("chrome.runtime.sendMessage({{panel: 'reveal', tab: {tab}, ref: '{r}', key: '{key}'}})")
    };
    let revealed = panel.eval(&reveal(&buy, "__sightline_selection_cccccccc11111111")).expect("reveal");
    assert_eq!(revealed["ok"], json!(true), "{revealed}");
    let there = in_page(&devtools, "shop.html", "globalThis['__sightline_selection_cccccccc11111111'].id");
    assert_eq!(there, json!("buy"));
    let unknown = panel.eval(&reveal("e999", "__sightline_selection_dddddddd22222222")).expect("reveal");
    assert!(unknown["error"].as_str().is_some_and(|e| e.contains("e999")), "{unknown}");

    // Once the agent is stopped on the tab, nothing there can be pointed at for it.
    click(&mut panel, "#stop");
    panel.wait_for("document.querySelector('#grant').textContent === 'Not shared'", WAIT).expect("stopped");
    let refused = panel.eval(&format!("chrome.runtime.sendMessage({{panel: 'pick', tab: {tab}}})")).expect("pick");
    assert!(refused["error"].as_str().is_some_and(|e| e.contains("may not use this tab")), "{refused}");
    match c.call("browser_user_selection", json!({"tab": tab})).await {
        Ok(gone) => assert!(gone.is_error, "{}", gone.text),
        Err(e) => panic!("browser_user_selection on a stopped tab did not answer: {e:#}"),
    }
    panel.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn while_the_panel_is_open_an_action_gets_screenshots_before_and_after_that_the_agent_never_sees() {
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let tab = rig.tab_id("shop.html");
    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1200, 820).expect("panel");
    panel.wait_for("document.querySelectorAll('.call').length >= 2", WAIT).expect("the calls are listed");
    let clicked = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await;
    let sent = format!("{} {}", clicked.text, clicked.structured.clone().unwrap_or_default());
    assert!(!sent.contains("jpeg") && !sent.contains("base64"), "a screenshot reached the agent: {sent}");
    panel.wait_for("document.querySelectorAll('.call').length >= 3", WAIT).expect("the click is listed");
    click(&mut panel, ".call:nth-child(3)");
    panel
        .wait_for(
            "[...document.querySelectorAll('#shots img')].filter((i) => i.complete && i.naturalWidth > 0).length === 2",
            WAIT,
        )
        .expect("two screenshots");
    let shots = eval_json(
        &mut panel,
        "[...document.querySelectorAll('#shots figure')].map((f) => ({caption: f.querySelector('figcaption').textContent, \
         width: f.querySelector('img').naturalWidth, outline: f.querySelector('.outline') !== null}))",
    );
    assert_eq!(shots[0]["caption"], "Before", "{shots:#}");
    assert_eq!(shots[1]["caption"], "After", "{shots:#}");
    assert!(
        shots.as_array().is_some_and(|s| s.iter().all(|s| s["width"].as_u64().is_some_and(|w| w <= 480))),
        "{shots:#}"
    );
    assert!(
        shots.as_array().is_some_and(|s| s.iter().all(|s| s["outline"] == true)),
        "the button is outlined: {shots:#}"
    );
    panel.screenshot("panel-shots.png").expect("screenshot");
    // A call made while no panel looks gets none (the panel is closed here).
    panel.close().expect("close");
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await;
    let mut again =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1200, 820).expect("panel");
    again.wait_for("document.querySelectorAll('.call').length >= 4", WAIT).expect("listed");
    let kept = again
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'model', tab: {tab}}}).then((m) => m.shots)"))
        .expect("shots");
    assert_eq!(kept, json!([3]), "only the call made while the panel was open has screenshots");
    again.close().expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_word_added_in_the_options_page_masks_a_field_from_the_next_look_on() {
    const MEMBER: &str = "LC-4471-9920";
    let rig = rig().await;
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("member.html")})).await;
    let before = call(c, "browser_snapshot", json!({})).await;
    assert!(before.text.contains(MEMBER), "an ordinary field shows its value: {}", before.text);

    let mut options = ExtensionPage::open(&rig.devtools(), "options.html", 900, 1300).expect("options");
    options.wait_for("document.querySelector('#secret-words') !== null", WAIT).expect("the words");
    options
        .eval("document.querySelector('#secret-words').value = 'loyalty\\n\\n'; document.querySelector('#save-secret-words').click(); true")
        .expect("save");
    options
        .wait_for(
            "chrome.storage.local.get('sightline.options').then((s) => JSON.stringify(s['sightline.options']?.secret_words) === '[\"loyalty\"]')",
            WAIT,
        )
        .expect("the word is saved");
    options.screenshot("options-secret-words.png").expect("screenshot");

    let after = call(c, "browser_snapshot", json!({})).await;
    let sent = format!("{} {}", after.text, after.structured.clone().unwrap_or_default());
    assert!(!sent.contains(MEMBER) && after.text.contains("••••••"), "the field is masked: {sent}");
    assert!(after.text.contains("Ada Lovelace"), "{}", after.text);
    let tab = rig.tab_id("member.html");
    let last = options
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'model', tab: {tab}}}).then((m) => JSON.stringify(m.model.calls.at(-1)))"))
        .expect("model");
    assert!(last.as_str().is_some_and(|l| l.contains("browser_snapshot") && !l.contains(MEMBER)), "{last}");
    options.close().expect("close");
}
