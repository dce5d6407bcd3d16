//! Bindings to the `chrome.*` extension APIs the runtime calls, and small helpers to turn
//! their promises into Rust results. Every function here is a thin declaration; behaviour
//! lives in the modules that use them. The browser's error messages are classified here, once,
//! into [`ChromeError`] variants.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{JsString, Promise, Uint8Array};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "debugger"], js_name = attach, catch)]
    fn debugger_attach(target: &JsValue, version: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "debugger"], js_name = detach, catch)]
    fn debugger_detach(target: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "debugger"], js_name = sendCommand, catch)]
    fn debugger_send_command(target: &JsValue, method: &str, params: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "downloads"], js_name = search, catch)]
    fn downloads_search(query: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = create, catch)]
    fn tabs_create(properties: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = get, catch)]
    fn tabs_get(tab_id: i32) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = update, catch)]
    fn tabs_update(tab_id: i32, properties: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = remove, catch)]
    fn tabs_remove(tab_id: i32) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = group, catch)]
    fn tabs_group(options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = ungroup, catch)]
    fn tabs_ungroup(tab_ids: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabGroups"], js_name = update, catch)]
    fn tab_groups_update(group_id: i32, properties: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "action"], js_name = setBadgeText, catch)]
    fn action_set_badge_text(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = get, catch)]
    fn storage_session_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set, catch)]
    fn storage_session_set(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = remove, catch)]
    fn storage_session_remove(keys: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get, catch)]
    fn storage_local_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set, catch)]
    fn storage_local_set(items: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = create, catch)]
    fn windows_create(data: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = remove, catch)]
    fn windows_remove(window_id: i32) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn runtime_get_url(path: &str) -> String;

    #[wasm_bindgen(js_namespace = crypto, js_name = randomUUID)]
    fn crypto_random_uuid() -> String;

    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);

    /// The service worker's way to the native host for a message about a call under way
    /// (`sw.js` posts it on the port the call came on, if that port is still open).
    #[wasm_bindgen(js_name = sightlineToHost)]
    fn sightline_to_host(message: JsValue);

    /// `TextEncoder`, declared here because its `encode` must take the JavaScript string
    /// itself (web-sys's takes a Rust `&str`, which would first have to be copied into wasm).
    type Utf8Encoder;
    #[wasm_bindgen(constructor, js_class = "TextEncoder")]
    fn new() -> Utf8Encoder;
    #[wasm_bindgen(method, js_class = "TextEncoder", js_name = encode)]
    fn encode(this: &Utf8Encoder, text: &JsString) -> Uint8Array;
}

thread_local! {
    static UTF8: Utf8Encoder = Utf8Encoder::new();
    static KEYS: RefCell<HashMap<&'static str, JsValue>> = RefCell::new(HashMap::new());
}

/// A failed `chrome.*` call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChromeError {
    /// `chrome.debugger.attach` found a debugger already attached (after a service-worker
    /// restart, that is our own session).
    #[error("another debugger is already attached to this tab")]
    AlreadyAttached,
    /// The browser does not allow debugging this tab (a `chrome://` page, the Web Store,
    /// another extension's page).
    #[error("{0}")]
    NoAccess(String),
    /// The debugger is not, or no longer, attached.
    #[error("the debugger is no longer attached to this tab")]
    Detached,
    /// A value could not cross between Rust and JavaScript.
    #[error("unexpected shape: {0}")]
    Shape(String),
    /// Anything else, in the browser's words.
    #[error("{0}")]
    Other(String),
}

impl ChromeError {
    /// Classifies a browser message.
    fn classify(message: String) -> ChromeError {
        if message.contains("Another debugger is already attached") {
            ChromeError::AlreadyAttached
        } else if message.contains("Cannot access") || message.contains("Cannot attach") {
            ChromeError::NoAccess(message)
        } else if message.contains("not attached") || message.contains("Detached while handling") {
            ChromeError::Detached
        } else {
            ChromeError::Other(message)
        }
    }
}

impl From<JsValue> for ChromeError {
    fn from(value: JsValue) -> Self {
        let message = js_sys::Reflect::get(&value, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| value.as_string())
            .unwrap_or_else(|| format!("{value:?}"));
        ChromeError::classify(message)
    }
}

/// Converts a Rust value to a plain JS object (maps become objects, not `Map`s).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, ChromeError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| ChromeError::Shape(e.to_string()))
}

/// Converts a JS value to a Rust value.
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, ChromeError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| ChromeError::Shape(e.to_string()))
}

/// Reads a CDP reply (a value the browser handed over as parsed JSON) through its JSON text:
/// `JSON.stringify` walks the objects and `TextEncoder` makes the text UTF-8, both natively, and
/// `serde_json` parses the bytes in wasm, skipping the fields `T` does not read. Converting a
/// large reply property by property across the wasm boundary ([`from_js`]) costs several times
/// more, and copying its text in as a Rust `String` goes character by character in JavaScript
/// (wasm-bindgen's way for a string that may hold non-ASCII characters). Event parameters are
/// not read this way: a page's console floods carry control characters, which JSON writes six
/// bytes each. A reply with no result (`undefined`, which has no JSON text) reads as `null`,
/// as it did through [`from_js`].
pub fn from_json<T: DeserializeOwned>(value: &JsValue) -> Result<T, ChromeError> {
    if value.is_undefined() {
        return serde_json::from_value(serde_json::Value::Null).map_err(|e| ChromeError::Shape(e.to_string()));
    }
    let text = js_sys::JSON::stringify(value).map_err(ChromeError::from)?;
    let bytes = UTF8.with(|utf8| utf8.encode(&text)).to_vec();
    serde_json::from_slice(&bytes).map_err(|e| ChromeError::Shape(e.to_string()))
}

/// Turns `value` into the JavaScript value its JSON text stands for (`JSON.parse` of it): one
/// string crosses into JavaScript instead of one per key.
pub fn to_json_js(value: &serde_json::Value) -> Result<JsValue, ChromeError> {
    js_sys::JSON::parse(&value.to_string()).map_err(ChromeError::from)
}

/// The JavaScript string for a property name, made once: a string made from Rust is decoded
/// into JavaScript (a `TextDecoder` call) each time, and the path every debugger event takes
/// reads a few names of it.
pub fn key(name: &'static str) -> JsValue {
    KEYS.with(|keys| keys.borrow_mut().entry(name).or_insert_with(|| JsValue::from_str(name)).clone())
}

/// Property `name` of `owner`, `None` when it cannot be read.
pub fn property(owner: &JsValue, name: &'static str) -> Option<JsValue> {
    js_sys::Reflect::get(owner, &key(name)).ok()
}

async fn settle(promise: Result<Promise, JsValue>) -> Result<JsValue, ChromeError> {
    Ok(JsFuture::from(promise?).await?)
}

/// Logs a warning to the service worker console.
pub fn warn(message: &str) {
    console_warn(message);
}

/// Sends `message` about a call under way to the native host, on the port the call came on.
/// A message that cannot be sent is lost: the host then holds the call to its normal limit.
pub fn to_host(message: &sightline_core::protocol::ExtensionToHost) {
    match to_js(message) {
        Ok(message) => sightline_to_host(message),
        Err(e) => warn(&format!("Sightline could not tell the host about a call: {e}")),
    }
}

/// A `chrome.debugger` target: a tab, optionally one of its flat child sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebuggeeTarget {
    /// Tab id.
    pub tab_id: i32,
    /// Child session (out-of-process iframe), if any.
    pub session_id: Option<String>,
}

impl DebuggeeTarget {
    /// The tab's own page (its top-level session).
    pub fn main(tab_id: i32) -> Self {
        DebuggeeTarget { tab_id, session_id: None }
    }

    /// The `chrome.debugger.Debuggee` object, built with the keys made once ([`key`]): every
    /// CDP command needs one.
    fn debuggee(&self) -> JsValue {
        let debuggee = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&debuggee, &key("tabId"), &JsValue::from(self.tab_id));
        if let Some(session) = &self.session_id {
            let _ = js_sys::Reflect::set(&debuggee, &key("sessionId"), &JsValue::from_str(session));
        }
        debuggee.into()
    }
}

/// `chrome.debugger.attach`.
pub async fn attach(tab_id: i32) -> Result<(), ChromeError> {
    settle(debugger_attach(&DebuggeeTarget::main(tab_id).debuggee(), "1.3")).await.map(|_| ())
}

/// `chrome.debugger.detach`.
pub async fn detach(tab_id: i32) -> Result<(), ChromeError> {
    settle(debugger_detach(&DebuggeeTarget::main(tab_id).debuggee())).await.map(|_| ())
}

/// `chrome.debugger.sendCommand`, resolving to the raw JS result.
pub async fn send_command(
    target: &DebuggeeTarget,
    method: &str,
    params: &serde_json::Value,
) -> Result<JsValue, ChromeError> {
    settle(debugger_send_command(&target.debuggee(), method, &to_json_js(params)?)).await
}

/// The fields of `chrome.tabs.Tab` the runtime reads.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    /// Tab id.
    #[serde(default)]
    pub id: Option<i32>,
    /// Window id.
    #[serde(default)]
    pub window_id: i32,
    /// URL (needs the `tabs` permission).
    #[serde(default)]
    pub url: Option<String>,
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
}

/// `chrome.downloads.search({id})`: the browser's record of one download, if it still has one.
pub async fn download_by_id<T: DeserializeOwned>(id: i64) -> Result<Option<T>, ChromeError> {
    let found: Vec<T> = from_js(settle(downloads_search(&to_js(&serde_json::json!({"id": id}))?)).await?)?;
    Ok(found.into_iter().next())
}

/// `chrome.tabs.create`.
pub async fn create_tab(url: &str, active: bool) -> Result<Tab, ChromeError> {
    from_js(settle(tabs_create(&to_js(&serde_json::json!({"url": url, "active": active}))?)).await?)
}

/// `chrome.tabs.get`.
pub async fn get_tab(tab_id: i32) -> Result<Tab, ChromeError> {
    from_js(settle(tabs_get(tab_id)).await?)
}

/// `chrome.tabs.update(tabId, {active: true})`.
pub async fn activate_tab(tab_id: i32) -> Result<(), ChromeError> {
    settle(tabs_update(tab_id, &to_js(&serde_json::json!({"active": true}))?)).await.map(|_| ())
}

/// `chrome.tabs.update(tabId, {url})`: loads `url` without the debugger (which a page the
/// browser does not let extensions debug has shut out).
pub async fn navigate_tab(tab_id: i32, url: &str) -> Result<(), ChromeError> {
    settle(tabs_update(tab_id, &to_js(&serde_json::json!({"url": url}))?)).await.map(|_| ())
}

/// `chrome.tabs.remove`.
pub async fn remove_tab(tab_id: i32) -> Result<(), ChromeError> {
    settle(tabs_remove(tab_id)).await.map(|_| ())
}

/// Puts `tab_id` into `group_id` (or a new group) and returns the group id.
pub async fn group_tab(tab_id: i32, group_id: Option<i32>) -> Result<i32, ChromeError> {
    let mut options = serde_json::json!({"tabIds": [tab_id]});
    if let Some(g) = group_id {
        options["groupId"] = g.into();
    }
    let id = settle(tabs_group(&to_js(&options)?)).await?;
    id.as_f64().map(|n| n as i32).ok_or_else(|| ChromeError::Shape("tabs.group returned no id".into()))
}

/// Takes a tab out of its group.
pub async fn ungroup_tab(tab_id: i32) -> Result<(), ChromeError> {
    settle(tabs_ungroup(&to_js(&[tab_id])?)).await.map(|_| ())
}

/// Names and colours a tab group.
pub async fn title_group(group_id: i32, title: &str) -> Result<(), ChromeError> {
    settle(tab_groups_update(group_id, &to_js(&serde_json::json!({"title": title, "color": "blue"}))?))
        .await
        .map(|_| ())
}

/// Shows `text` on the toolbar button for one tab.
pub async fn set_badge(tab_id: i32, text: &str) -> Result<(), ChromeError> {
    settle(action_set_badge_text(&to_js(&serde_json::json!({"tabId": tab_id, "text": text}))?)).await.map(|_| ())
}

/// Reads one key of `chrome.storage.session`.
pub async fn session_storage_get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, ChromeError> {
    let all = settle(storage_session_get(&JsValue::from_str(key))).await?;
    stored_value(&all, key)
}

/// The value of `key` in what `chrome.storage.*.get` returned, read back through JSON: values
/// are written as JSON (`serde_json`), so maps keyed by numbers (tab ids) come back as written.
fn stored_value<T: DeserializeOwned>(all: &JsValue, key: &str) -> Result<Option<T>, ChromeError> {
    let value = js_sys::Reflect::get(all, &JsValue::from_str(key)).map_err(ChromeError::from)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let json = js_sys::JSON::stringify(&value).map_err(ChromeError::from)?;
    let json = json.as_string().ok_or_else(|| ChromeError::Shape(format!("{key} is not JSON")))?;
    serde_json::from_str(&json).map(Some).map_err(|e| ChromeError::Shape(format!("{key}: {e}")))
}

/// Writes one key of `chrome.storage.session`. The value is handed to the browser at once and
/// nothing of it is kept in wasm while the write is under way: a write can wait seconds on a
/// busy browser, and the timeline's saves (up to 8 MiB each, one a second under a flood) would
/// otherwise pile up in the runtime's memory, which never shrinks.
pub fn session_storage_set<T: Serialize>(
    key: &str,
    value: &T,
) -> impl std::future::Future<Output = Result<(), ChromeError>> + 'static {
    let started = js_value_of(value).map(|value| session_storage_set_js(key, &value));
    async move { started?.await }
}

/// [`session_storage_set`] for a value already in JavaScript: the timeline's text goes over as
/// one string, with no copy of it made in wasm on the way.
pub fn session_storage_set_js(
    key: &str,
    value: &JsValue,
) -> impl std::future::Future<Output = Result<(), ChromeError>> + 'static + use<> {
    let started = storage_items(key, value).map(|items| storage_session_set(&items));
    async move { settle(started?).await.map(|_| ()) }
}

/// `value` as JavaScript, through JSON's data model: maps with number keys (the tab grants'
/// tab ids) become objects with string keys, as `chrome.storage` keeps them anyway.
fn js_value_of<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, ChromeError> {
    to_js(&serde_json::to_value(value).map_err(|e| ChromeError::Shape(e.to_string()))?)
}

/// `{[key]: value}`, the items `chrome.storage`'s `set` takes.
fn storage_items(key: &str, value: &JsValue) -> Result<JsValue, ChromeError> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(&items, &JsValue::from_str(key), value).map_err(ChromeError::from)?;
    Ok(items.into())
}

/// Removes one key of `chrome.storage.session` (which needs no room, so works when it is full).
pub async fn session_storage_remove(key: &str) -> Result<(), ChromeError> {
    settle(storage_session_remove(&JsValue::from_str(key))).await.map(|_| ())
}

/// Reads one key of `chrome.storage.local` (kept across browser restarts).
pub async fn local_storage_get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, ChromeError> {
    let all = settle(storage_local_get(&JsValue::from_str(key))).await?;
    stored_value(&all, key)
}

/// Writes one key of `chrome.storage.local`.
pub async fn local_storage_set<T: Serialize>(key: &str, value: &T) -> Result<(), ChromeError> {
    let items = storage_items(key, &js_value_of(value)?)?;
    settle(storage_local_set(&items)).await.map(|_| ())
}

/// `chrome.windows.create({type: "popup", url, focused: true, width, height})`: a small window of
/// the extension's own, raised where the person is. Returns its id.
pub async fn open_popup_window(url: &str, width: u32, height: u32) -> Result<i32, ChromeError> {
    let data = serde_json::json!({"type": "popup", "url": url, "focused": true, "width": width, "height": height});
    let window = settle(windows_create(&to_js(&data)?)).await?;
    let id = js_sys::Reflect::get(&window, &"id".into()).map_err(ChromeError::from)?;
    id.as_f64().map(|n| n as i32).ok_or_else(|| ChromeError::Shape("windows.create returned no id".into()))
}

/// `chrome.windows.remove`.
pub async fn close_window(window_id: i32) -> Result<(), ChromeError> {
    settle(windows_remove(window_id)).await.map(|_| ())
}

/// A random, unguessable id (`crypto.randomUUID`).
pub fn random_id() -> String {
    crypto_random_uuid()
}

/// The URL of the extension's own page `path` (`chrome.runtime.getURL`).
pub fn extension_url(path: &str) -> String {
    runtime_get_url(path)
}
