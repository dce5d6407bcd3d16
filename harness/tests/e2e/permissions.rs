//! The person decides what an agent may do where, and answers in the browser.
//!
//! Sites are served under names (`shop.example`, `bank.example`) that the browser resolves to
//! the fixture server. Each level is drilled: no access (the bank can be neither opened, read
//! nor acted on), read only (reading works, a click is refused), ask (a question window of the
//! extension's own opens; a real click on Allow once runs the action, Allow for this session
//! lets the next submit run without asking, Deny and a time-out leave the page as it was), and
//! a class rule (act freely on the shop, ask before paying). Only a click in the question's own
//! window answers: a page script, another extension page and an MCP client all fail, and the
//! question stays open; a press as the window shows or changes size answers nothing either. The rules survive a service-worker restart and a browser restart. A
//! question open when the worker restarts ends its call as not run, approves nothing from its
//! old window, and the same call made again asks again.

use std::time::Duration;

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::client::{PendingCall, Reply};
use sightline_harness::ui::ExtensionPage;
use sightline_harness::{Rig, ref_named, ref_of, service_worker};

const WAIT: Duration = Duration::from_secs(15);
/// The browser resolves every `*.example` name to the fixture server.
const NAMES: &str = "--host-resolver-rules=MAP *.example 127.0.0.1";

async fn rig() -> Rig {
    Rig::start_with(&[REMOTE_DEBUGGING, NAMES]).await.expect("rig")
}

fn site_url(rig: &Rig, host: &str, page: &str) -> String {
    format!("http://{host}:{}/permissions/{page}", rig.server.port())
}

/// How many times the page reported `event`.
fn count(rig: &Rig, event: &str) -> usize {
    rig.server.events().iter().filter(|e| *e == event).count()
}

/// Waits (at most [`WAIT`]) until the page reported `event` `times` times.
fn wait_count(rig: &Rig, event: &str, times: usize) -> bool {
    let deadline = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < deadline {
        if count(rig, event) >= times {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// Waits (at most [`WAIT`]) until no question window is open: the last one closes a moment
/// after its answer.
fn no_question_window(rig: &Rig) {
    ExtensionPage::wait_closed(&rig.devtools(), "question.html", WAIT).expect("the answered question's window closes");
}

/// The question window the extension opened.
fn question(rig: &Rig) -> ExtensionPage {
    let mut page = ExtensionPage::attach(&rig.devtools(), "question.html", WAIT).expect("a question window opens");
    let shown = "document.getElementById('action') !== null && document.getElementById('action').textContent !== '…'";
    page.wait_for(shown, WAIT).expect("the question shows");
    page
}

fn text(page: &mut ExtensionPage, id: &str) -> String {
    page.eval(&format!("document.getElementById('{id}').textContent"))
        .expect("read")
        .as_str()
        .unwrap_or_default()
        .into()
}

fn refused(reply: &Reply, words: &str) {
    assert!(reply.is_error, "refused: {}", reply.text);
    assert!(reply.text.contains(words), "{words:?} in: {}", reply.text);
    assert!(reply.text.contains("Nothing was done"), "{}", reply.text);
}

/// The person denies the question `pending` raised, with a real click on Deny in its window:
/// the call is refused as denied; returns the action as the window put it, and the answer.
async fn deny(rig: &Rig, pending: PendingCall) -> (String, Reply) {
    let mut window = question(rig);
    let action = text(&mut window, "action");
    window.click("#deny").expect("click Deny");
    let answer = pending.answer().await.expect("answer");
    refused(&answer, "the person denied it");
    (action, answer)
}

/// Every site asks before consequential actions; the person has a minute to answer.
fn ask_everywhere(rig: &Rig) {
    rig.set_permissions(&json!({"rules": [{"site": "*", "level": "ask"}], "answer_seconds": 60}));
}

/// With every site asking, the shop opened and a click on "Place order" waiting for the person.
async fn order_waiting_for_the_person(rig: &Rig) -> PendingCall {
    ask_everywhere(rig);
    let page = open_shop(rig).await;
    rig.client.start("browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await.expect("start")
}

/// The id of the question `window` shows, as the worker knows it now.
fn open_question_id(window: &mut ExtensionPage) -> Value {
    let details = window
        .eval("chrome.runtime.sendMessage({question: 'details', id: new URLSearchParams(location.search).get('id')})");
    details.expect("details")["id"].clone()
}

async fn open_shop(rig: &Rig) -> Reply {
    let page = rig.client.call("browser_navigate", json!({"url": site_url(rig, "shop.example", "shop.html")})).await;
    let page = page.expect("navigate");
    assert!(!page.is_error, "{}", page.text);
    assert!(rig.server.wait_for_event("ready:shop", WAIT));
    page
}

#[tokio::test(flavor = "multi_thread")]
async fn asking_allow_once_runs_the_submit_and_deny_leaves_the_page_as_it_was() {
    let rig = rig().await;
    ask_everywhere(&rig);
    let c = &rig.client;
    let page = open_shop(&rig).await;
    // An act is not consequential: it runs without a question.
    c.ok("browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await;
    assert!(rig.server.wait_for_event("basket", WAIT));
    let order = ref_of(&page, "button", "Place order");

    // A submit asks; the person allows it once with a real click in the question window.
    let pending = c.start("browser_click", json!({"ref": order})).await.expect("start");
    let mut window = question(&rig);
    assert_eq!(text(&mut window, "action"), "click \"Place order\" (submit) on shop.example");
    assert_eq!(text(&mut window, "site"), "shop.example");
    // The MCP client's own name, from its `initialize`.
    assert_eq!(text(&mut window, "agent"), "rmcp");
    assert!(text(&mut window, "tab").contains("Shop"), "{}", text(&mut window, "tab"));
    // Its buttons come alive once the window has stood still a moment.
    window.wait_for("!document.getElementById('allow-once').disabled", WAIT).expect("the buttons come alive");
    window.screenshot("question-window.png").expect("screenshot");
    assert_eq!(count(&rig, "ordered"), 0, "nothing runs while the person is asked");
    window.click("#allow-once").expect("click Allow once");
    let answer = pending.answer().await.expect("answer");
    assert!(!answer.is_error, "{}", answer.text);
    assert!(answer.text.contains("The person allowed this once"), "{}", answer.text);
    assert!(rig.server.wait_for_event("ordered", WAIT));

    // Once means once: the next submit asks again, and the person denies it.
    no_question_window(&rig);
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    let pending =
        c.start("browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await.expect("start");
    let (_, answer) = deny(&rig, pending).await;
    assert!(answer.text.contains("will not retry"), "{}", answer.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "ordered"), 1, "denied: the form was not submitted again");

    // Both questions and their answers are on the tab's timeline, as what the person did.
    let changes: serde_json::Value = serde_json::from_str(&c.ok("get_changes_since", json!({})).await).expect("json");
    let by_person: Vec<&str> = changes["actions"]["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["by"] == "user")
        .filter_map(|a| a["description"].as_str())
        .collect();
    for answer in ["allowed once after", "denied after"] {
        let line = format!("question from rmcp: click \"Place order\" (submit) on shop.example: {answer}");
        assert!(by_person.iter().any(|d| d.starts_with(&line)), "{line:?} in {by_person:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn allowed_for_the_session_a_submit_runs_without_asking_and_an_unanswered_question_is_denied() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [{"site": "*", "level": "ask"}], "answer_seconds": 2}));
    let c = &rig.client;
    let page = open_shop(&rig).await;
    let order = ref_of(&page, "button", "Place order");
    let pending = c.start("browser_click", json!({"ref": order})).await.expect("start");
    question(&rig).click("#allow-session").expect("click Allow for this session");
    let answer = pending.answer().await.expect("answer");
    assert!(answer.text.contains("The person allowed submit on shop.example for this session"), "{}", answer.text);
    assert!(rig.server.wait_for_event("ordered", WAIT));

    // The same class on the same site: no question.
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    let again = c.call("browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await.expect("call");
    assert!(!again.is_error && !again.text.contains("The person allowed"), "{}", again.text);
    assert!(wait_count(&rig, "ordered", 2), "{:?}", rig.server.events());

    // Paying is another class: asked, and nobody answers within the person's 2 s.
    let pay = ref_of(&page, "button", "Pay now");
    let unanswered = c.call("browser_click", json!({"ref": pay})).await.expect("call");
    refused(&unanswered, "nobody answered the question in the browser in 2 s");
    assert!(unanswered.text.contains("(payment)"), "{}", unanswered.text);
    assert_eq!(count(&rig, "paid"), 0, "timed out: nothing was paid");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_access_keeps_the_agent_off_the_bank_and_read_only_lets_it_read_but_not_act() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "act_freely"},
        {"site": "*.bank.example", "level": "no_access"},
        {"site": "shop.example", "level": "read_only"}
    ]}));
    let c = &rig.client;
    let bank = site_url(&rig, "bank.example", "bank.html");
    for (tool, args) in [
        ("browser_navigate", json!({"url": bank})),
        ("browser_tabs", json!({"action": "new", "url": site_url(&rig, "www.bank.example", "bank.html")})),
    ] {
        let reply = c.call(tool, args).await.expect("call");
        refused(&reply, "no access to");
        assert!(reply.text.contains("`*.bank.example`") && reply.text.contains("options"), "{}", reply.text);
    }
    assert_eq!(count(&rig, "ready:bank"), 0, "the bank was never opened");

    // The person opens the bank and shares the tab: still nothing may read or act on it.
    let mut cdp = sightline_harness::cdp::CdpConnection::connect(&rig.devtools()).expect("devtools");
    cdp.call(None, "Target.createTarget", json!({"url": bank})).expect("open the bank");
    assert!(rig.server.wait_for_event("ready:bank", WAIT));
    let tab = rig.tab_id("bank.example");
    rig.in_worker(&format!("sightline.onActionClicked({tab})"));
    for (tool, args) in [
        ("browser_snapshot", json!({"tab": tab})),
        ("browser_take_screenshot", json!({"tab": tab})),
        ("browser_find", json!({"tab": tab, "text": "Transfer"})),
        ("browser_press_key", json!({"tab": tab, "key": "Enter"})),
    ] {
        let reply = c.call(tool, args).await.expect("call");
        refused(&reply, "no access to bank.example");
        assert!(!reply.text.contains("12,345"), "nothing of the page is shown: {}", reply.text);
    }

    // Read only: the shop can be read (in a tab of the agent's own), not acted on.
    let shop = site_url(&rig, "shop.example", "shop.html");
    c.ok("browser_tabs", json!({"action": "new", "url": shop})).await;
    assert!(rig.server.wait_for_event("ready:shop", WAIT));
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    assert!(!page.is_error, "read only reads: {}", page.text);
    let reply = c.call("browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await.expect("call");
    refused(&reply, "does not let agents click, type or otherwise act");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "basket"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shop_can_be_used_freely_with_a_question_before_paying() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "ask"},
        {"site": "*.shop.example", "level": "act_freely", "classes": {"payment": "ask"}}
    ], "answer_seconds": 60}));
    let c = &rig.client;
    let page = open_shop(&rig).await;
    c.ok("browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await;
    assert!(rig.server.wait_for_event("ordered", WAIT), "a submit runs freely");
    let page = c.call("browser_snapshot", json!({})).await.expect("snapshot");
    let pending = c.start("browser_click", json!({"ref": ref_of(&page, "button", "Pay now")})).await.expect("start");
    let (action, _) = deny(&rig, pending).await;
    assert_eq!(action, "click \"Pay now\" (payment) on shop.example");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "paid"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn only_a_click_in_the_questions_own_window_answers_it() {
    let rig = rig().await;
    ask_everywhere(&rig);
    let c = &rig.client;
    let page = open_shop(&rig).await;
    let order = ref_of(&page, "button", "Place order");
    let pending = c.start("browser_click", json!({"ref": order})).await.expect("start");
    let mut window = question(&rig);
    let url = window.url().expect("url");
    let id = url.split("id=").nth(1).expect("the question's id").to_owned();

    // The shop's own script tries every way a page has: it cannot reach the extension.
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), "shop.example").expect("attach");
    let tried = cdp
        .call(
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": format!(
                "(async () => {{ const message = {{question: 'answer', id: '{id}', choice: 'allow_once', trusted: true}};
                   window.postMessage(message, '*');
                   try {{ await chrome.runtime.sendMessage('{}', message); return 'sent'; }}
                   catch (e) {{ return 'refused: ' + e; }} }})()", sightline_harness::EXTENSION_ID),
                "awaitPromise": true, "returnByValue": true}),
        )
        .expect("evaluate");
    assert!(tried["result"]["value"].as_str().is_some_and(|v| v.starts_with("refused")), "{tried}");

    // Another page of the extension itself, knowing the id: refused, as not the question's window.
    let mut options = ExtensionPage::open(&rig.devtools(), "options.html", 800, 600).expect("options page");
    let forged = options
        .eval(&format!(
            "chrome.runtime.sendMessage({{question: 'answer', id: '{id}', choice: 'allow_once', trusted: true}})"
        ))
        .expect("send");
    assert!(forged["error"].as_str().is_some_and(|e| e.contains("own Sightline window")), "{forged}");

    // An MCP client naming the question in its arguments: rejected, and no tool answers.
    let named = c.call("browser_click", json!({"ref": order, "question": id, "answer": "allow_once"})).await;
    assert!(named.map(|r| r.is_error).unwrap_or(true), "a call naming the question is rejected");
    let tools = c.peer().list_all_tools().await.expect("tools");
    assert!(!tools.iter().any(|t| t.name.contains("question") || t.name.contains("answer")), "no tool answers");

    // The question is still open, and nothing ran.
    assert_eq!(count(&rig, "ordered"), 0);
    assert_eq!(open_question_id(&mut window), Value::String(id.clone()), "the question is still open");
    window.click("#deny").expect("the person answers");
    refused(&pending.answer().await.expect("answer"), "the person denied it");
    assert_eq!(count(&rig, "ordered"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_press_as_the_question_window_shows_or_moves_answers_nothing() {
    let rig = rig().await;
    let pending = order_waiting_for_the_person(&rig).await;
    let mut window = question(&rig);
    // The window takes another size, every button moves, and a press right then on "Allow for
    // this session" (a click meant for what was there a moment ago) answers nothing.
    window.resize(360, 300).expect("resize");
    let (disabled, under) = window.press_now("#allow-session").expect("press");
    assert!(disabled && under, "the press landed on the button while it was not yet alive: {disabled}, {under}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(text(&mut window, "status"), "", "no answer was sent");
    let id = window.eval("new URLSearchParams(location.search).get('id')").expect("id");
    assert_eq!(open_question_id(&mut window), id, "the question is still open");
    assert_eq!(count(&rig, "ordered"), 0, "nothing ran");
    // Once the window has stood still a moment its buttons answer: the person denies.
    window.click("#deny").expect("click Deny");
    refused(&pending.answer().await.expect("answer"), "the person denied it");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "ordered"), 0, "denied: the order was not placed");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rules_survive_a_browser_restart() {
    let mut rig = rig().await;
    rig.set_permissions(
        &json!({"rules": [{"site": "*", "level": "act_freely"}, {"site": "*.bank.example", "level": "no_access"}]}),
    );
    rig.restart_browser(&[REMOTE_DEBUGGING, NAMES]).await.expect("restart the browser");
    let reply = rig.client.call("browser_navigate", json!({"url": site_url(&rig, "bank.example", "bank.html")})).await;
    refused(&reply.expect("call"), "no access to bank.example");
    assert_eq!(count(&rig, "ready:bank"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_changes_the_rules_in_the_popup_and_the_options_page() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "ask"},
        {"site": "*.shop.example", "level": "act_freely", "classes": {"payment": "ask"}}
    ]}));
    let c = &rig.client;
    let page = open_shop(&rig).await;
    let told = c.ok("browser_permissions", json!({})).await;
    assert!(told.contains("On shop.example (the person's rule `*.shop.example`: act freely)"), "{told}");
    assert!(told.contains("asked first") && told.contains("): payment;"), "{told}");
    let tab = rig.tab_id("shop.example");

    // The popup says what the agent may do here; one change makes the shop read only.
    let mut popup = ExtensionPage::open(&rig.devtools(), &format!("popup.html?tab={tab}"), 340, 520).expect("popup");
    popup.wait_for("!document.getElementById('permission-box').hidden", WAIT).expect("the popup shows the site's rule");
    assert_eq!(popup.eval("document.getElementById('site-level').value").expect("level"), json!("act_freely"));
    let detail = text(&mut popup, "permission-detail");
    assert!(detail.contains("*.shop.example") && detail.contains("ask payment"), "{detail}");
    popup.screenshot("popup-permissions.png").expect("screenshot");
    popup.choose("#site-level", "read_only").expect("choose read only");
    popup
        .wait_for("document.getElementById('permission-detail').textContent.includes('rule shop.example')", WAIT)
        .expect("changed");
    let reply = c.call("browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await.expect("call");
    refused(&reply, "does not let agents click");

    // The options page lists the rules, adds one with a real click, and refuses a bad import.
    let mut options = ExtensionPage::open(&rig.devtools(), "options.html", 900, 900).expect("options");
    options.wait_for("document.querySelectorAll('#site-rules tbody tr').length === 3", WAIT).expect("three rules");
    options.eval("document.getElementById('site-pattern').value = '*.bank.example'; document.getElementById('site-level').value = 'no_access'").expect("fill");
    options.click("#add-site-rule button[type=submit]").expect("click Add site");
    options.wait_for("document.querySelectorAll('#site-rules tbody tr').length === 4", WAIT).expect("four rules");
    options.screenshot("options-permissions.png").expect("screenshot");
    let bank = c.call("browser_navigate", json!({"url": site_url(&rig, "bank.example", "bank.html")})).await;
    refused(&bank.expect("call"), "no access to bank.example");
    options.eval("document.querySelector('#permissions details').open = true; document.getElementById('permissions-json').value = '{\"rules\": [{\"site\": \"https://bank.example/\", \"level\": \"act_freely\"}]}'").expect("fill");
    options.click("#import-permissions").expect("click Import");
    let error = options.wait_for("!document.getElementById('permissions-error').hidden && document.getElementById('permissions-error').textContent", WAIT).expect("an error");
    assert!(error.as_str().is_some_and(|e| e.contains("rule 1") && e.contains("not a site pattern")), "{error}");
    let still = c.call("browser_navigate", json!({"url": site_url(&rig, "bank.example", "bank.html")})).await;
    refused(&still.expect("call"), "no access to bank.example");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rules_survive_a_service_worker_restart() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [{"site": "*.bank.example", "level": "no_access"}]}));
    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    let bank = site_url(&rig, "bank.example", "bank.html");
    // The call wakes the worker (or waits for it): the rule holds.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let reply = loop {
        let reply = rig.client.call("browser_navigate", json!({"url": bank})).await.expect("call");
        if reply.text.contains("no access") || std::time::Instant::now() > deadline {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    refused(&reply, "no access to bank.example");
    assert_eq!(count(&rig, "ready:bank"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn leaving_for_another_site_asks_and_a_denial_keeps_the_tab_where_it_was() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "act_freely"},
        {"site": "shop.example", "level": "act_freely", "classes": {"leave": "ask"}}
    ], "answer_seconds": 60}));
    let c = &rig.client;
    open_shop(&rig).await;
    let leaving = c.start("browser_navigate", json!({"url": site_url(&rig, "news.example", "bank.html")})).await;
    let (action, _) = deny(&rig, leaving.expect("start")).await;
    assert!(action.contains("news.example") && action.contains("leave"), "{action}");
    assert_eq!(count(&rig, "ready:bank"), 0, "denied: the other site never loaded");
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("shop.example"), "the tab stayed on the shop: {page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_script_asks_before_it_runs_and_a_denied_one_never_runs() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "act_freely", "classes": {"run_script": "ask"}}
    ], "answer_seconds": 60}));
    rig.in_worker("chrome.storage.local.set({'sightline.options': {allow_evaluate: true}}).then(() => true)");
    let c = &rig.client;
    open_shop(&rig).await;
    let script = json!({"function": "() => { document.title = 'Changed by a script'; return 1; }"});
    let running = c.start("browser_evaluate", script.clone()).await.expect("start");
    let (action, _) = deny(&rig, running).await;
    assert!(action.contains("run a script"), "{action}");
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(!page.contains("Changed by a script"), "denied: the script never ran: {page}");

    no_question_window(&rig);
    let running = c.start("browser_evaluate", script).await.expect("start");
    question(&rig).click("#allow-once").expect("click Allow once");
    let answer = running.answer().await.expect("answer");
    assert!(!answer.is_error && answer.text.contains("The person allowed this once"), "{}", answer.text);
    let page = c.ok("browser_snapshot", json!({})).await;
    assert!(page.contains("Changed by a script"), "allowed: the script ran: {page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_asks_first_and_a_denied_one_hands_the_page_no_file() {
    let rig = rig().await;
    ask_everywhere(&rig);
    let c = &rig.client;
    let url = format!("http://shop.example:{}/actions/forms.html", rig.server.port());
    let page = c.call("browser_navigate", json!({"url": url})).await.expect("navigate");
    assert!(!page.is_error, "{}", page.text);
    let cv = rig.sandbox.root().join("cv.txt");
    std::fs::write(&cv, "my cv").unwrap();
    let upload = json!({"ref": ref_named(&page, "CV"), "paths": [cv.to_string_lossy()]});
    let pending = c.start("browser_file_upload", upload).await.expect("start");
    let (action, _) = deny(&rig, pending).await;
    assert!(action.contains("upload"), "{action}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!rig.server.events().iter().any(|e| e.starts_with("cv ")), "denied: no file: {:?}", rig.server.events());
}

/// An MCP client that hears the progress notes the server sends it.
#[derive(Clone, Default)]
struct HearsProgress(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl rmcp::ClientHandler for HearsProgress {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        if let (Some(message), Ok(mut heard)) = (params.message, self.0.lock()) {
            heard.push(message);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_has_their_whole_answer_time_even_past_the_hosts_call_limit_and_the_agent_hears_why_it_waits() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [{"site": "*", "level": "ask"}], "answer_seconds": 30}));
    // A session whose host ends a call after 5 s: the person still has their 30 s.
    let mut host = tokio::process::Command::new(sightline_harness::paths::host_binary());
    host.args(["mcp", "--time-limit", "5"]).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (key, value) in rig.sandbox.env() {
        host.env(key, value);
    }
    let heard = HearsProgress::default();
    let transport = rmcp::transport::TokioChildProcess::new(host).expect("spawn the host");
    let client = rmcp::ServiceExt::serve(heard.clone(), transport).await.expect("connect");
    let url = site_url(&rig, "shop.example", "shop.html");
    let mut navigate = rmcp::model::CallToolRequestParams::new("browser_navigate");
    navigate.arguments = json!({"url": url}).as_object().cloned();
    let page = client.peer().call_tool(navigate).await.expect("navigate");
    assert!(rig.server.wait_for_event("ready:shop", WAIT));
    let page = sightline_harness::client::Reply::from(page);
    let mut click = rmcp::model::CallToolRequestParams::new("browser_click");
    click.arguments = json!({"ref": ref_of(&page, "button", "Place order")}).as_object().cloned();
    let mut options = rmcp::service::PeerRequestOptions::no_options();
    let token = rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(1));
    options.meta = Some(rmcp::model::RequestMetaObject::with_progress_token(token));
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(click));
    let started = std::time::Instant::now();
    let pending = client.peer().send_request_with_option(request, options).await.expect("start the click");
    let mut window = question(&rig);
    // Answered after the host's 5 s would have cut the call.
    tokio::time::sleep(Duration::from_secs(7).saturating_sub(started.elapsed())).await;
    window.click("#allow-once").expect("click Allow once");
    let answer = match pending.await_response().await.expect("answer") {
        rmcp::model::ServerResult::CallToolResult(result) => sightline_harness::client::Reply::from(result),
        other => panic!("not a tool result: {other:?}"),
    };
    assert!(!answer.is_error, "{}", answer.text);
    assert!(answer.text.contains("The person allowed this once"), "{}", answer.text);
    assert!(rig.server.wait_for_event("ordered", WAIT));
    let heard = heard.0.lock().expect("heard").clone();
    let waiting = "waiting for the person to answer: click \"Place order\" (submit) on shop.example";
    assert!(heard.iter().any(|m| m == waiting), "{waiting:?} in {heard:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn logs_and_changes_keep_what_a_site_of_no_access_recorded_from_the_agent() {
    let rig = rig().await;
    let c = &rig.client;
    c.ok("get_changes_since", json!({})).await;
    // The agent's tab goes to the bank and then to the shop; a second tab stays on the bank.
    for host in ["bank.example", "shop.example"] {
        c.ok("browser_navigate", json!({"url": site_url(&rig, host, "noisy.html")})).await;
        assert!(rig.server.wait_for_event(&format!("noisy:{host}"), WAIT));
    }
    c.ok("browser_tabs", json!({"action": "new", "url": site_url(&rig, "www.bank.example", "noisy.html")})).await;
    assert!(rig.server.wait_for_event("noisy:www.bank.example", WAIT));
    let bank_tab = rig.tab_id("www.bank.example");
    let before = c.ok("browser_console_messages", json!({})).await;
    assert!(before.contains("account of bank.example"), "recorded while the bank was allowed: {before}");

    // The person gives agents no access to the bank.
    rig.set_permissions(&json!({"rules": [
        {"site": "*", "level": "act_freely"},
        {"site": "*.bank.example", "level": "no_access"}
    ]}));
    let console = c.ok("browser_console_messages", json!({})).await;
    assert!(console.contains("account of shop.example"), "{console}");
    assert!(!console.contains("bank.example"), "nothing the bank logged is given out: {console}");
    let network = c.ok("browser_network_requests", json!({})).await;
    assert!(network.contains("missing-on-shop.example"), "{network}");
    assert!(!network.contains("bank.example"), "no request of the bank is given out: {network}");
    let changes = c.ok("get_changes_since", json!({})).await;
    assert!(changes.contains("shop.example"), "{changes}");
    assert!(!changes.contains("bank.example"), "the change report leaves the bank out: {changes}");
    for tool in ["browser_console_messages", "browser_network_requests", "get_changes_since"] {
        let reply = c.call(tool, json!({"tab": bank_tab})).await.expect("call");
        refused(&reply, "no access to www.bank.example");
    }
}

/// The centre of the element `selector` picks in the page at `url_part`, in viewport pixels.
fn centre_of(rig: &Rig, url_part: &str, selector: &str) -> (f64, f64) {
    let (mut cdp, session) = service_worker::attach_to_page(&rig.devtools(), url_part).expect("attach");
    let expression = format!(
        "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
        Value::String(selector.into())
    );
    let found = cdp
        .call(Some(&session), "Runtime.evaluate", json!({"expression": expression, "returnByValue": true}))
        .expect("evaluate");
    let point = &found["result"]["value"];
    (point[0].as_f64().expect("x"), point[1].as_f64().expect("y"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_click_at_a_point_asks_only_when_what_is_under_it_submits() {
    let rig = rig().await;
    rig.set_permissions(&json!({"rules": [{"site": "*", "level": "ask"}], "answer_seconds": 10}));
    let vision = sightline_harness::McpClient::connect_with(&rig.sandbox, &["--caps", "vision"]).await.expect("client");
    vision.ok("browser_navigate", json!({"url": site_url(&rig, "shop.example", "shop.html")})).await;
    assert!(rig.server.wait_for_event("ready:shop", WAIT));

    // A plain button under the point: an act, which runs without a question.
    let (x, y) = centre_of(&rig, "shop.example", "button[type=button]");
    let plain = vision.call("browser_mouse_click_xy", json!({"x": x, "y": y})).await.expect("call");
    assert!(!plain.is_error && !plain.text.contains("The person allowed"), "{}", plain.text);
    assert!(rig.server.wait_for_event("basket", WAIT));

    // The order form's submit button under the point: a submit, which asks.
    let (x, y) = centre_of(&rig, "shop.example", "#order button");
    let pending = vision.start("browser_mouse_click_xy", json!({"x": x, "y": y})).await.expect("start");
    let (action, _) = deny(&rig, pending).await;
    assert_eq!(action, "click \"Place order\" (submit) on shop.example");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "ordered"), 0, "denied: the order was not placed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_open_while_the_worker_restarts_ends_its_call_and_approves_nothing_afterwards() {
    let rig = rig().await;
    let c = &rig.client;
    let pending = order_waiting_for_the_person(&rig).await;
    let mut old = question(&rig);
    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    // The call ends (no hang), and says what the host knows: the question was open, nothing
    // was allowed, so the action did not run, and calling again asks again.
    let answer = pending.answer().await.expect("the call ends");
    assert!(answer.is_error && !answer.text.contains("The person allowed"), "{}", answer.text);
    for words in [
        "a question to the person was open (click \"Place order\" (submit) on shop.example)",
        "the action was not run",
        "Call it again to ask again",
    ] {
        assert!(answer.text.contains(words), "{words:?} in: {}", answer.text);
    }
    assert!(!answer.text.contains("may have run"), "{}", answer.text);
    // The old window's Allow reaches a fresh worker that knows no such question.
    old.click("#allow-once").expect("click Allow in the old window");
    let status = old.wait_for("document.getElementById('status').textContent", WAIT).expect("status");
    assert!(status.as_str().is_some_and(|s| s.contains("expired")), "{status}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(count(&rig, "ordered"), 0, "the old window approves nothing");

    // Called again once the worker is back, the same action asks again: a new window, which
    // the person answers with Deny.
    old.close().expect("close the old window");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let page = loop {
        let reply = c.call("browser_snapshot", json!({})).await.expect("call");
        if !reply.is_error && reply.text.contains("Place order") {
            break reply;
        }
        assert!(std::time::Instant::now() < deadline, "the worker is not back: {}", reply.text);
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let again = c.start("browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await.expect("start");
    let (action, _) = deny(&rig, again).await;
    assert_eq!(action, "click \"Place order\" (submit) on shop.example");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&rig, "ordered"), 0, "denied: the order is still not placed");
}
