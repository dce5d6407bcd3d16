//! The redaction corpus: a value typed into every kind of secret field, and secrets in every
//! kind of URL (the page's own, its requests, a link followed, a URL the page rewrites, console
//! messages quoting them), never appear anywhere in what the server sends the MCP client: the
//! raw JSON-RPC transcript, text, `structuredContent` and errors alike. The URLs carry secrets
//! under many names (`token`, `oobCode`, `ticket`, `PHPSESSID`, `oauth_verifier`, `session_key`,
//! `secret_key`, `passcode`, `auth_code`, `SAMLResponse`), in a path (`;jsessionid=`), in a
//! query inside the fragment (`#/callback?code=`) and in URLs nested in `redirect_uri`, `next`
//! and `return`, encoded once and twice. Every read tool and action answer is called on them;
//! the fields stay visible and addressable, masked, an ordinary field's value is shown, and
//! ordinary parameters (`q=shoes`, `page=2`, `id=17`) stay readable.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::client::Reply;
use sightline_harness::{McpClient, Rig, ref_of, service_worker};

/// What every secret in the page and in this test starts with.
const MARKER: &str = "SLMARK";

/// How the test finds a field: a field without a name is shown with its id, a labelled one by
/// its name.
#[derive(Debug, Clone, Copy)]
enum Locator {
    Id(&'static str),
    Name(&'static str),
}

/// The secret fields of the fixture, and what kind of secret each is.
const SECRET_FIELDS: &[(Locator, &str)] = &[
    (Locator::Id("otp"), "one-time code named by its id"),
    (Locator::Id("f-3"), "expiry named by its name"),
    (Locator::Id("f-4"), "PIN named by its name"),
    (Locator::Id("iban"), "IBAN named by its id"),
    (Locator::Name("Memorable word"), "field masked by -webkit-text-security"),
    (Locator::Name("Access word"), "password field"),
];

/// The ref of a field in a snapshot: by the id on its line, or by its name in the facts.
fn field_ref(snapshot: &Reply, locator: Locator) -> String {
    match locator {
        Locator::Name(name) => ref_of(snapshot, "textbox", name),
        Locator::Id(id) => {
            let by_id = format!("id=\"{id}\"");
            snapshot
                .text
                .lines()
                .filter(|l| l.contains(&by_id))
                .find_map(|l| l.split([' ', '[']).find(|w| sightline_core::refs::leading_ref_len(w) == Some(w.len())))
                .map(str::to_owned)
                .unwrap_or_else(|| panic!("no field with id {id} in:\n{}", snapshot.text))
        }
    }
}

/// Calls `tool`, which must succeed.
async fn ok(c: &McpClient, tool: &str, args: Value) -> Reply {
    let reply = c.call(tool, args.clone()).await.unwrap_or_else(|e| panic!("{tool} {args}: {e:#}"));
    assert!(!reply.is_error, "{tool} {args} failed: {}", reply.text);
    reply
}

/// Waits (at most 10 s) until `tool` answers with text containing `wanted`.
async fn until_contains(c: &McpClient, tool: &str, args: Value, wanted: &str) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = ok(c, tool, args.clone()).await;
        if reply.text.contains(wanted) || Instant::now() > deadline {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_secret_typed_into_a_field_or_carried_in_a_url_ever_reaches_the_client() {
    let rig = Rig::start().await.expect("rig");
    let c = &McpClient::connect_recording(&rig.sandbox).await.expect("a recording client");
    let url = rig.server.url(&format!(
        "trust/redaction.html;jsessionid={MARKER}-pagejsess?lang=en&token={MARKER}-page&access_token={MARKER}-pageat\
         &oobCode={MARKER}-pageoob&ticket={MARKER}-pageticket&PHPSESSID={MARKER}-pagephp\
         &oauth_verifier={MARKER}-pageverifier&q=shoes#/callback?code={MARKER}-pagefrag&tab=2"
    ));

    // The page: its URL's secrets masked in the header, the fragment's too (the header shows the
    // address as the address bar does), ordinary parameters readable, every field present.
    let page = ok(c, "browser_navigate", json!({"url": url})).await;
    let header = "redaction.html;jsessionid=••••••?lang=en&token=••••••&access_token=••••••&oobCode=••••••\
                  &ticket=••••••&PHPSESSID=••••••&oauth_verifier=••••••&q=shoes#/callback?code=••••••&tab=2 · v";
    assert!(page.text.contains(header), "{}", page.text);
    let tabs = ok(c, "browser_tabs", json!({"action": "list"})).await;
    assert!(tabs.text.contains("&q=shoes#/callback?code=••••••&tab=2"), "the tab list: {}", tabs.text);
    let snapshot = ok(c, "browser_snapshot", json!({})).await;
    let name = ref_of(&snapshot, "textbox", "Full name");
    ok(c, "browser_type", json!({"ref": name, "text": "Ada Lovelace"})).await;

    // A marker typed into every secret field, each answer a delta showing the field masked.
    for (n, (locator, what)) in SECRET_FIELDS.iter().enumerate() {
        let field = field_ref(&snapshot, *locator);
        let typed = ok(c, "browser_type", json!({"ref": field, "text": format!("{MARKER}-{n}")})).await;
        assert!(typed.text.contains(&format!("{field} ")) && typed.text.contains("••••••"), "{what}: {}", typed.text);
    }
    // "Show it" makes the password field a text field: the delta says so, masked.
    let toggle = ref_of(&snapshot, "button", "Show it");
    let shown = ok(c, "browser_click", json!({"ref": toggle})).await;
    assert!(shown.text.contains("Hide it"), "the toggle ran: {}", shown.text);
    // Requests, a console error and a rewritten URL, all carrying secrets.
    let sync = ref_of(&snapshot, "button", "Sync");
    ok(c, "browser_click", json!({"ref": sync})).await;

    // Every read tool.
    let after = ok(c, "browser_snapshot", json!({})).await;
    let facts = after.structured.clone().unwrap_or_default();
    let elements = facts["elements"].as_array().cloned().unwrap_or_default();
    for (locator, what) in SECRET_FIELDS {
        let field = field_ref(&after, *locator);
        let element = elements.iter().find(|e| e["ref"] == field.as_str());
        assert_eq!(element.map(|e| e["value"].clone()), Some(json!("••••••")), "{what}: {}", after.text);
    }
    assert!(after.text.contains("= \"Ada Lovelace\""), "an ordinary field shows its value: {}", after.text);
    assert!(
        after.text.contains("?step=3&code=••••••#/callback?code=••••••&id_token=•••••• · v"),
        "the rewritten URL: {}",
        after.text
    );
    let found = ok(c, "browser_find", json!({"text": MARKER})).await;
    assert!(found.text.starts_with("0 matches"), "{}", found.text);
    let textboxes = ok(c, "browser_find", json!({"role": "textbox"})).await;
    assert!(textboxes.text.contains("Ada Lovelace") && textboxes.text.contains("••••••"), "{}", textboxes.text);
    let tabs = ok(c, "browser_tabs", json!({"action": "list"})).await;
    assert!(tabs.text.contains("?step=3&code=••••••#/callback?code=••••••&id_token=••••••"), "{}", tabs.text);
    let network = until_contains(c, "browser_network_requests", json!({}), "/status/502").await;
    let requests = [
        "/status/404?access_token=••••••&lang=en",
        "/status/500?token=••••••&sig=••••••&page=1",
        "key=••••••",
        "/status/403;jsessionid=••••••?oobCode=••••••&ticket=••••••&PHPSESSID=••••••&oauth_verifier=••••••&id=17",
        "/status/502?session_key=••••••&secret_key=••••••&passcode=••••••&auth_code=••••••&SAMLResponse=••••••&q=shoes",
        "&redirect_uri=https%3A%2F%2Fapp.test%2Fcb%3Fcode%3D••••••%26state%3D1&next=",
        "&return=https%3A%2F%2Fb.test%2Fsso%3Fnext%3Dhttps%253A%252F%252Fc.test%252F%253Fticket%253D••••••",
    ];
    for request in requests {
        assert!(network.text.contains(request), "{request}: {}", network.text);
    }
    let console = until_contains(c, "browser_console_messages", json!({}), "sync failed").await;
    assert!(console.text.contains("checkout at ") && console.text.contains("token=••••••"), "{}", console.text);
    let changes = ok(c, "get_changes_since", json!({})).await;
    let reported = [
        "GET /status/403;jsessionid=••••••",
        "&oobCode=••••••&ticket=••••••&PHPSESSID=••••••&oauth_verifier=••••••&q=shoes#/callback?code=••••••&tab=2",
        "?step=3&code=••••••#/callback?code=••••••&id_token=••••••",
    ];
    for shape in reported {
        assert!(changes.text.contains(shape), "the change report: {shape}: {}", changes.text);
    }
    ok(c, "browser_checkpoint", json!({"action": "create", "name": "before_leaving"})).await;

    // A link whose URL carries secrets, followed; then back.
    let next = ref_of(&after, "link", "Next page");
    let followed = ok(c, "browser_click", json!({"ref": next})).await;
    let followed_to = "second.html;jsessionid=••••••?password=••••••&page=2#access_token=•••••• · v";
    assert!(followed.text.contains(followed_to), "{}", followed.text);
    let tabs = ok(c, "browser_tabs", json!({})).await;
    let link = "second.html;jsessionid=••••••?password=••••••&page=2#access_token=••••••";
    assert!(tabs.text.contains(link), "{}", tabs.text);
    ok(c, "get_changes_since", json!({"checkpoint": "before_leaving"})).await;
    let back = ok(c, "browser_navigate", json!({"go": "back"})).await;
    assert!(back.text.contains("token=••••••"), "{}", back.text);
    ok(c, "browser_snapshot", json!({})).await;
    ok(c, "browser_network_requests", json!({})).await;
    ok(c, "browser_console_messages", json!({})).await;
    ok(c, "get_changes_since", json!({})).await;

    // Nothing the server sent holds a secret; what it sent is the real exchange (the fields,
    // the ordinary value, the masks and the answers' structured content).
    let transcript = c.transcript().expect("a recording client");
    let leaks: Vec<&str> = transcript.lines().filter(|l| l.contains(MARKER)).collect();
    assert!(leaks.is_empty(), "secrets reached the client:\n{}", leaks.join("\n"));
    for expected in ["Ada Lovelace", "••••••", "id=\\\"otp\\\"", "\"structuredContent\"", "Hide it", "/status/500"]
    {
        assert!(transcript.contains(expected), "the transcript lacks {expected}:\n{transcript}");
    }
}

/// Polls `browser_snapshot` until it answers (a worker or runtime coming back), at most 30 s.
async fn snapshot_once_back(c: &McpClient) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = c.call("browser_snapshot", json!({})).await.expect("the call reaches the server");
        if !reply.is_error {
            return reply;
        }
        assert!(Instant::now() < deadline, "no snapshot within 30 s: {}", reply.text);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The value the snapshot gives the "Access word" field, which must be masked and hold no secret.
fn assert_access_word_masked(snapshot: &Reply, after: &str) {
    let facts = snapshot.structured.clone().unwrap_or_default();
    let field = facts["elements"].as_array().and_then(|all| all.iter().find(|e| e["name"] == "Access word").cloned());
    assert_eq!(field.map(|f| f["value"].clone()), Some(json!("••••••")), "{after}: {}", snapshot.text);
    assert!(!snapshot.text.contains(MARKER) && !facts.to_string().contains(MARKER), "{after}: {}", snapshot.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_field_shown_as_text_stays_masked_after_a_worker_restart_and_a_runtime_replacement() {
    let rig = Rig::start_with(&[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &McpClient::connect_recording(&rig.sandbox).await.expect("a recording client");
    ok(c, "browser_navigate", json!({"url": rig.server.url("trust/redaction.html")})).await;
    let snapshot = ok(c, "browser_snapshot", json!({})).await;
    let field = ref_of(&snapshot, "textbox", "Access word");
    ok(c, "browser_type", json!({"ref": field, "text": format!("{MARKER}-kept")})).await;
    // "Show it" makes the password field a text field, with a neutral name, id and label: from
    // now on only the memory of what it was keeps it masked.
    let toggle = ref_of(&snapshot, "button", "Show it");
    let shown = ok(c, "browser_click", json!({"ref": toggle})).await;
    assert!(shown.text.contains("Hide it"), "the toggle ran: {}", shown.text);
    let (mut page, session) = service_worker::attach_to_page(&rig.devtools(), "redaction.html").expect("attach");
    let expression = "[document.getElementById('f-access').type, document.getElementById('f-access').value]";
    let params = json!({"expression": expression, "returnByValue": true});
    let field_now = page.call(Some(&session), "Runtime.evaluate", params).expect("read the field");
    assert_eq!(field_now["result"]["value"], json!(["text", format!("{MARKER}-kept")]), "the page shows the value");
    drop(page);

    // The worker stops (as the browser stops an idle one) and is woken by the page.
    service_worker::stop_extension_worker(&rig.devtools()).expect("stop the worker");
    service_worker::wake_with_console_message(&rig.devtools(), "redaction.html", "wake up").expect("wake");
    assert_access_word_masked(&snapshot_once_back(c).await, "a worker restart");

    // A panic replaces the runtime.
    rig.in_worker("sightline.panicOnNextCall('browser_tabs')");
    let failed = c.call("browser_tabs", json!({})).await.expect("the call reaches the server");
    assert!(failed.is_error && failed.text.contains("runtime failed"), "{}", failed.text);
    assert_access_word_masked(&snapshot_once_back(c).await, "a runtime replacement");

    // Nothing the server sent holds the secret.
    let transcript = c.transcript().expect("a recording client");
    assert!(!transcript.contains(MARKER), "the secret reached the client:\n{transcript}");
}
