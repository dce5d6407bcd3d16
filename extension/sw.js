// @ts-check
// Sightline's service worker: registers every chrome.* listener synchronously (a listener
// added after an await would miss the event that woke the worker), owns the native messaging
// port, and hands everything else to the Rust runtime compiled to wasm.

import init, { Runtime } from './pkg/sightline_runtime.js';

const HOST_NAME = 'dev.sightline.host';
const RECONNECT_ALARM = 'sightline-reconnect';

/** Resolves once the wasm runtime is ready. Every handler awaits it; never await at top level. */
const ready = init({ module_or_path: new URL('./pkg/sightline_runtime_bg.wasm', import.meta.url) }).then(
  () => new Runtime(chrome.runtime.getManifest().version, navigator.userAgent),
);
// The runtime is reachable from this worker's own DevTools console (only extension contexts see
// the worker's global), for diagnostics and for the end-to-end tests, which deliver through it
// what headless Chromium cannot produce: a person's toolbar click, a cancelled debugging bar.
ready.then((rt) => { globalThis.sightline = rt; });

chrome.debugger.onEvent.addListener((source, method, params) => {
  ready.then((rt) => rt.onDebuggerEvent(source, method, params ?? {}));
});
chrome.debugger.onDetach.addListener((source, reason) => {
  ready.then((rt) => rt.onDebuggerDetach(source, reason));
});
chrome.tabs.onRemoved.addListener((tabId) => {
  ready.then((rt) => rt.onTabRemoved(tabId));
});
// The extension's own pages (panel, popup, options) ask the runtime through messages
// `{panel: "<request>", ...}`; nothing outside the extension can send them.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || !sender.url?.startsWith(chrome.runtime.getURL(''))) return false;
  if (typeof message?.panel !== 'string') return false;
  const host = { connected: port !== null, error: hostError };
  ready
    .then((rt) => rt.handlePageMessage(message, host))
    .then(sendResponse, (error) => sendResponse({ error: String(error) }));
  return true;
});
chrome.action.onClicked.addListener((tab) => {
  if (tab.id !== undefined) ready.then((rt) => rt.onActionClicked(tab.id));
});
// Waking the worker is enough: the top-level code below connects.
chrome.runtime.onStartup.addListener(() => {});
chrome.runtime.onInstalled.addListener(() => {});
// While disconnected the worker may be stopped; the alarm wakes it to try again.
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === RECONNECT_ALARM && port === null) connect();
});
chrome.alarms.create(RECONNECT_ALARM, { periodInMinutes: 0.5 });

/** @type {chrome.runtime.Port | null} */
let port = null;
/** Why the native port last closed, for the popup; `null` once the host answers. */
/** @type {string | null} */
let hostError = null;
let backoffMs = 250;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retryTimer;

function connect() {
  clearTimeout(retryTimer);
  const current = chrome.runtime.connectNative(HOST_NAME);
  port = current;
  current.onMessage.addListener((message) => {
    backoffMs = 250;
    hostError = null;
    ready
      .then((rt) => rt.handleHostMessage(message))
      .then((reply) => {
        if (reply !== undefined && port === current) current.postMessage(reply);
      })
      .catch((error) => console.error('Sightline: handling a host message failed', error));
  });
  current.onDisconnect.addListener(() => {
    const reason = chrome.runtime.lastError?.message ?? 'closed';
    hostError = reason;
    console.warn(`Sightline: native host disconnected (${reason}); retrying in ${backoffMs} ms`);
    if (port === current) port = null;
    retryTimer = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 30_000);
  });
  ready.then((rt) => {
    if (port === current) current.postMessage(rt.hello());
  });
}

connect();
