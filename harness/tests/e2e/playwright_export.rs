//! A session exported as a Playwright test and as a replay, checked for real. The shop flow of
//! the bench and two multi-step flows (a sign-in with a password then a settings change; an
//! order form with a select, a checkbox and a confirm dialog) are driven through the MCP client;
//! `browser_export_test` writes the spec, which `@playwright/test` runs against the same fixture
//! server with Debian's Chromium: it passes, and fails once the page changes (a renamed button,
//! a count or a price that no longer updates), so its assertions are real. The password typed is
//! never in the spec: the spec reads it from the environment. The replay exported from the panel
//! is opened from disk in another headless Chromium with the network cut off: its calls, diffs,
//! events and screenshots are there, and a hostile page's markup is text in it.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use sightline_harness::browser::REMOTE_DEBUGGING;
use sightline_harness::client::Reply;
use sightline_harness::ui::ExtensionPage;
use sightline_harness::{McpClient, Rig, paths, ref_of};

const WAIT: Duration = Duration::from_secs(15);
/// Longest a spec run may take (Playwright's own limits end a stuck test well before).
const SPEC_RUN_LIMIT: Duration = Duration::from_secs(240);
/// The password the account page accepts.
const PASSWORD: &str = "correct-horse-7731";

async fn call(c: &McpClient, tool: &str, args: Value) -> Reply {
    let reply = c.call(tool, args.clone()).await.expect("the call reaches the server");
    assert!(!reply.is_error, "{tool} {args} failed: {}", reply.text);
    reply
}

/// The bench's shop under `shop/` and this test's pages under `forms/`, copied so that a test
/// can change them under the running server.
fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary site");
    let root = paths::workspace_root();
    copy_dir(&root.join("bench/sites/shop"), &dir.path().join("shop"));
    copy_dir(&paths::fixtures_dir().join("playwright-export"), &dir.path().join("forms"));
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("the fixture folder").flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("a fixture file");
    }
}

/// Replaces `from` by `to` in the served file `path` (it must be there).
fn change(site: &Path, path: &str, from: &str, to: &str) -> String {
    let file = site.join(path);
    let original = std::fs::read_to_string(&file).expect("the served file");
    assert!(original.contains(from), "{path} has no {from:?}");
    std::fs::write(&file, original.replace(from, to)).expect("change the served file");
    original
}

/// The outcome of one run of a spec: passed, and what Playwright printed.
struct SpecRun {
    passed: bool,
    output: String,
}

/// Runs `spec` with `@playwright/test` (installed by `cargo xtask test` under
/// `tests/playwright-export`) and Debian's Chromium, with `env` set.
async fn run_spec(name: &str, spec: &str, env: &[(&str, &str)]) -> SpecRun {
    let installed = paths::workspace_root().join("tests/playwright-export/node_modules");
    assert!(
        installed.join("@playwright/test").exists(),
        "{} is missing: run `cargo xtask test`, which installs @playwright/test",
        installed.display()
    );
    let dir = paths::workspace_root().join("target/playwright-export").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the spec folder");
    let link = dir.join("node_modules");
    std::os::unix::fs::symlink(&installed, &link).expect("link the installed packages");
    let config = format!(
        "const {{ defineConfig }} = require('@playwright/test');\n\
         module.exports = defineConfig({{\n  testDir: '.',\n  timeout: 60000,\n  expect: {{ timeout: 5000 }},\n  \
         retries: 0,\n  workers: 1,\n  reporter: 'line',\n  \
         use: {{ headless: true, launchOptions: {{ executablePath: {}, args: ['--no-sandbox', '--disable-gpu'] }} }},\n}});\n",
        json!(paths::chromium().display().to_string())
    );
    std::fs::write(dir.join("playwright.config.js"), config).expect("the config");
    std::fs::write(dir.join("exported.spec.ts"), spec).expect("the spec");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(installed.join("@playwright/test/cli.js"))
        .args(["test", "--config", "playwright.config.js"])
        .current_dir(&dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env_remove("SIGHTLINE_PASSWORD")
        .kill_on_drop(true);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = tokio::time::timeout(SPEC_RUN_LIMIT, command.output())
        .await
        .expect("the spec run ended in time")
        .expect("node runs");
    let output = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let run = SpecRun { passed: output.contains("1 passed") && !output.contains("failed"), output };
    eprintln!("--- {name}: {}\n{}", if run.passed { "passed" } else { "failed" }, run.output);
    run
}

async fn exported_spec(c: &McpClient) -> String {
    let spec = call(c, "browser_export_test", json!({})).await.text;
    eprintln!("the exported spec:\n{spec}");
    spec
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bench_shop_flow_exports_a_spec_that_passes_and_fails_when_the_shop_changes() {
    let site = site();
    let rig = Rig::serving(site.path().to_path_buf(), &[]).await.expect("rig");
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop/index.html")})).await;
    call(c, "browser_navigate", json!({"url": rig.server.url("shop/category.html?c=outerwear")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "link", "Harbour Rain Jacket")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "radio", "Olive")})).await;
    call(c, "browser_select_option", json!({"ref": ref_of(&page, "combobox", "Size"), "values": ["M"]})).await;
    let added = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Add to basket")})).await;
    assert!(added.text.contains("Added 1 × Harbour Rain Jacket (Olive, M)"), "{}", added.text);
    let spec = exported_spec(c).await;
    assert!(spec.contains("page.getByRole(\"button\", { name: \"Add to basket\", exact: true }).click();"), "{spec}");
    assert!(spec.contains(".selectOption(\"M\")"), "{spec}");
    assert!(spec.contains("toBeVisible()"), "{spec}");

    assert!(run_spec("shop", &spec, &[]).await.passed, "the spec fails on the page it was recorded on");
    // A renamed button.
    let original = change(site.path(), "shop/shop.js", ">Add to basket</button>", ">Add to bag</button>");
    let run = run_spec("shop-renamed", &spec, &[]).await;
    assert!(!run.passed && run.output.contains("Add to basket"), "the spec passes with the button renamed");
    std::fs::write(site.path().join("shop/shop.js"), &original).expect("restore");
    // A basket count that no longer updates.
    change(site.path(), "shop/shop.js", "status.textContent = `Added", "status.textContent = `Kept");
    let run = run_spec("shop-not-added", &spec, &[]).await;
    assert!(!run.passed, "the spec passes when adding no longer says so");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sign_in_and_settings_flow_exports_a_spec_that_reads_the_password_from_the_environment() {
    let site = site();
    let rig = Rig::serving(site.path().to_path_buf(), &[]).await.expect("rig");
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("forms/account.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_type", json!({"ref": ref_of(&page, "textbox", "Email"), "text": "ada@example.com"})).await;
    call(c, "browser_type", json!({"ref": ref_of(&page, "textbox", "Password"), "text": PASSWORD})).await;
    let signed_in = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Sign in")})).await;
    assert!(signed_in.text.contains("Signed in as ada@example.com"), "{}", signed_in.text);
    eprintln!("the agent's text for signing in:\n{}", signed_in.text);
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "checkbox", "Email me the newsletter")})).await;
    call(c, "browser_select_option", json!({"ref": ref_of(&page, "combobox", "Theme"), "values": ["Dark"]})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Save settings")})).await;
    let spec = exported_spec(c).await;
    assert!(!spec.contains(PASSWORD), "the password is written into the spec:\n{spec}");
    assert!(spec.contains("SIGHTLINE_PASSWORD"), "{spec}");
    assert!(spec.contains("Saved: Dark theme, newsletter on."), "{spec}");

    let password = [("SIGHTLINE_PASSWORD", PASSWORD)];
    assert!(run_spec("account", &spec, &password).await.passed, "the spec fails on its own page");
    let run = run_spec("account-no-password", &spec, &[]).await;
    assert!(!run.passed && run.output.contains("set SIGHTLINE_PASSWORD"), "the spec runs without its password");
    change(site.path(), "forms/account.html", ">Save settings</button>", ">Save</button>");
    assert!(!run_spec("account-renamed", &spec, &password).await.passed, "the spec passes with the button renamed");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_order_form_with_a_confirm_dialog_exports_a_spec_that_fails_when_the_price_stops_updating() {
    let site = site();
    let rig = Rig::serving(site.path().to_path_buf(), &[]).await.expect("rig");
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("forms/order.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    let sized =
        call(c, "browser_select_option", json!({"ref": ref_of(&page, "combobox", "Print size"), "values": ["Large"]}))
            .await;
    assert!(sized.text.contains("Total: £30"), "{}", sized.text);
    eprintln!("the agent's text for the select:\n{}", sized.text);
    call(c, "browser_click", json!({"ref": ref_of(&page, "checkbox", "Add a frame")})).await;
    let asked = call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Place order")})).await;
    assert!(asked.text.to_lowercase().contains("dialog"), "{}", asked.text);
    let placed = call(c, "browser_handle_dialog", json!({"accept": true})).await;
    assert!(placed.text.contains("Order placed. Total: £45."), "{}", placed.text);
    eprintln!("the agent's text for the dialog:\n{}", placed.text);
    let spec = exported_spec(c).await;
    let handler = spec.find("page.once(\"dialog\", (dialog) => void dialog.accept());");
    let place = spec.find("name: \"Place order\", exact: true }).click();");
    assert!(handler.is_some() && handler < place, "the dialog handler is not set before the click:\n{spec}");

    assert!(run_spec("order", &spec, &[]).await.passed, "the spec fails on its own page");
    change(site.path(), "forms/order.js", "document.getElementById('total').textContent = `Total: £${total}`;", "");
    assert!(
        !run_spec("order-stale-price", &spec, &[]).await.passed,
        "the spec passes with a price that does not update"
    );
}

/// Markup a hostile page puts in its title, its console and its text.
const HOSTILE: &str =
    "</script><script>document.body.dataset.pwned=1</script><img src=x onerror=\"document.body.dataset.pwned=2\">";

#[tokio::test(flavor = "multi_thread")]
async fn the_replay_opens_from_disk_offline_with_calls_diffs_events_and_screenshots_and_page_markup_as_text() {
    let site = site();
    std::fs::write(
        site.path().join("forms/hostile.html"),
        format!(
            "<!doctype html><title>{t}</title><main><p id=out>Nothing yet</p><button onclick=\"document.getElementById('out').textContent = {h}; console.error({h})\">Go</button></main>",
            t = HOSTILE.replace('<', "&lt;"),
            h = json!(HOSTILE).to_string().replace('"', "&quot;")
        ),
    )
    .expect("the hostile page");
    let rig = Rig::serving(site.path().to_path_buf(), &[REMOTE_DEBUGGING]).await.expect("rig");
    let c = &rig.client;
    call(c, "browser_navigate", json!({"url": rig.server.url("forms/account.html")})).await;
    let tab = rig.tab_id("forms/account.html");
    // Screenshots are taken while the panel is open.
    let mut panel =
        ExtensionPage::open(&rig.devtools(), &format!("panel/panel.html?tab={tab}"), 1200, 820).expect("panel");
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_type", json!({"ref": ref_of(&page, "textbox", "Email"), "text": "ada@example.com"})).await;
    call(c, "browser_type", json!({"ref": ref_of(&page, "textbox", "Password"), "text": PASSWORD})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Sign in")})).await;
    call(c, "browser_navigate", json!({"url": rig.server.url("forms/hostile.html")})).await;
    let page = call(c, "browser_snapshot", json!({})).await;
    call(c, "browser_click", json!({"ref": ref_of(&page, "button", "Go")})).await;
    panel.wait_for("document.querySelectorAll('.call').length >= 7", WAIT).expect("the calls are listed");

    let exported = panel
        .eval(&format!("chrome.runtime.sendMessage({{panel: 'export', tab: {tab}, format: 'replay'}})"))
        .expect("the replay export");
    let html = exported["text"].as_str().unwrap_or_default().to_owned();
    assert!(exported["file_name"].as_str().is_some_and(|n| n.ends_with(".html")), "{exported}");
    assert!(!html.contains(PASSWORD), "the password is in the replay");
    let file = paths::workspace_root().join("target/ui/replay.html");
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("target/ui");
    std::fs::write(&file, &html).expect("the replay file");
    // The panel's button saves the same file.
    panel.eval("document.querySelector('#export-replay').click()").expect("click");
    panel.wait_for("(document.body.dataset.exported ?? '').endsWith('.html')", WAIT).expect("replay saved");

    let dom = offline_chromium(&file, &["--dump-dom"]).await;
    for wanted in
        ["browser_type", "browser_click", "class=\"diff\"", "Signed in as ada@example.com", "<td>console</td>"]
    {
        assert!(dom.contains(wanted), "the replay has no {wanted}:\n{dom}");
    }
    assert!(dom.contains("src=\"data:image/jpeg;base64,"), "the replay has no screenshot");
    // The hostile page's markup is text: no element came of it, nothing of it ran.
    assert!(dom.contains("&lt;/script&gt;&lt;script&gt;document.body.dataset.pwned=1"), "{dom}");
    assert!(!dom.contains("<script") && !dom.contains("<img src=\"x\"") && !dom.contains("data-pwned"), "{dom}");
    let png = paths::workspace_root().join("target/ui/replay.png");
    let _ = std::fs::remove_file(&png);
    offline_chromium(&file, &[&format!("--screenshot={}", png.display()), "--window-size=1280,900"]).await;
    assert!(
        std::fs::metadata(&png).is_ok_and(|m| m.len() > 10_000),
        "no screenshot of the replay at {}",
        png.display()
    );
}

/// Runs a fresh headless Chromium on `file` with `args`, every network request sent to a proxy
/// that does not exist (the network is off); returns what it printed.
async fn offline_chromium(file: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("a profile");
    let url = format!("file://{}", file.display());
    let mut command = tokio::process::Command::new(paths::chromium());
    command
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(&url)
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("Chromium ended in time")
        .expect("Chromium runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
