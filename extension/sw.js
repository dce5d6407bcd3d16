// @ts-check
// Sightline's service worker: registers every chrome.* listener synchronously (a listener
// added after an await would miss the event that woke the worker), owns the native messaging
// port, and hands everything else to the Rust runtime compiled to wasm.
//
// A panic in the runtime poisons its wasm instance: every later call into it would trap, and a
// call it was running would never be answered. So does any exception that unwinds through the
// instance's frames without Rust knowing: a trap, a stack overflow (a `RangeError`), an error
// thrown by a JavaScript function it called. The runtime's panic hook calls
// `sightlinePanicked` before the instance traps; anything else is seen where it surfaces (a
// call into the runtime that throws, or the `error` and `unhandledrejection` listeners, for a
// task the runtime was running). Either way the worker makes a fresh instance of the same
// module, answers every call the old one had in flight with an error, and hands later
// messages and events to the fresh one, which resumes from what was saved in
// chrome.storage.session.

import init, { Runtime, __wbg_reset_state } from './pkg/sightline_runtime.js';

const HOST_NAME = 'dev.sightline.host';
const RECONNECT_ALARM = 'sightline-reconnect';

/** The runtime in use, and how many times it was replaced after a failure. */
/** @type {Runtime | null} */
let runtime = null;
let generation = 0;
/** Whether a failed runtime is being replaced (until the fresh one is ready). */
let replacing = false;
/**
 * Calls handed to a runtime and not answered yet: id → the runtime's generation and the port
 * the call came on, so a call left behind by a failed runtime can still be answered.
 * @type {Map<number, { generation: number, port: chrome.runtime.Port }>}
 */
const inFlight = new Map();

function startRuntime() {
  runtime = new Runtime(chrome.runtime.getManifest().version, navigator.userAgent);
  // The runtime is reachable from this worker's own DevTools console (only extension contexts
  // see the worker's global), for diagnostics and for the end-to-end tests, which deliver
  // through it what headless Chromium cannot produce: a person's toolbar click, a cancelled
  // debugging bar, a panic.
  /** @type {any} */ (globalThis).sightline = runtime;
  return runtime;
}

/** Resolves to the runtime in use. Every handler goes through it; never await at top level. */
let ready = init({ module_or_path: new URL('./pkg/sightline_runtime_bg.wasm', import.meta.url) }).then(startRuntime);

/**
 * Runs `use` on the runtime in use; a trap thrown back synchronously replaces the runtime.
 * @template T
 * @param {(rt: Runtime) => T} use
 * @returns {Promise<T | undefined>}
 */
function withRuntime(use) {
  return ready.then((rt) => {
    try {
      return use(rt);
    } catch (error) {
      if (poisons(error)) runtimeFailed(String(error));
      throw error;
    }
  });
}

/**
 * Whether `error` left the runtime's instance unusable: a trap, a stack overflow (V8 throws a
 * `RangeError` when the wasm frames exhaust its stack), or any exception that unwound through
 * the instance's own frames (its stack names them `wasm-function[…]`). An error the runtime
 * returns on purpose is a rejected promise the caller handles, never one of these.
 * @param {unknown} error
 */
function poisons(error) {
  return (
    error instanceof WebAssembly.RuntimeError ||
    error instanceof RangeError ||
    (error instanceof Error && /wasm-function\[/.test(String(error.stack)))
  );
}

/**
 * The runtime failed (`what` says how): from now on, messages and events wait for a fresh one.
 * Called from inside the failing instance, so the work happens once it has unwound.
 * @param {string} what
 */
function runtimeFailed(what) {
  if (replacing) return;
  replacing = true;
  const failed = generation;
  console.error(`Sightline: the runtime failed (${what}); starting a fresh one`);
  ready = new Promise((resolve) => setTimeout(resolve, 0)).then(() => replaceRuntime(failed, what));
}

/**
 * @param {number} failed the failed runtime's generation
 * @param {string} what
 */
function replaceRuntime(failed, what) {
  // The old object must not free its memory in the fresh instance when it is collected.
  try {
    // Not in the runtime's declarations: wasm-bindgen's own release of the object's memory.
    /** @type {any} */ (runtime)?.__destroy_into_raw();
  } catch {}
  __wbg_reset_state();
  generation = failed + 1;
  const rt = startRuntime();
  replacing = false;
  for (const [id, call] of inFlight) {
    if (call.generation !== failed) continue;
    inFlight.delete(id);
    if (port === call.port) call.port.postMessage(rt.failedCall(id, what));
  }
  return rt;
}

globalThis.sightlinePanicked = (/** @type {string} */ message) => runtimeFailed(`panic: ${message}`);
/**
 * A message about a call under way (it waits for the person): posted on the port the call came
 * on, while that port is the open one; the bridge of a closed port no longer waits for it.
 * @param {{ id: number }} message
 */
globalThis.sightlineToHost = (message) => {
  const call = inFlight.get(message.id);
  if (call !== undefined && call.port === port && call.generation === generation) port.postMessage(message);
};
self.addEventListener('error', (event) => {
  if (poisons(event.error)) runtimeFailed(String(event.error));
});
self.addEventListener('unhandledrejection', (event) => {
  if (poisons(event.reason)) runtimeFailed(String(event.reason));
});

/**
 * The debugger events the runtime's flood guard counts, by number and by the characters of text
 * they hold: every kind its recorder turns into a console message (the runtime's `flood::GUARDED`).
 */
const GUARDED = new Set(['Runtime.consoleAPICalled', 'Runtime.exceptionThrown', 'Log.entryAdded']);
/**
 * Longest string of such an event, or of a network event where a page controls its length,
 * handed to the runtime: well past the 2,000 characters its recorders keep of any text (they mask
 * secrets first, then cut), far below what a page can log or send.
 */
const LONGEST_STRING = 16_000;
/** How deep into such an event strings are looked for (arguments, their previews, stack frames). */
const STRING_DEPTH = 8;

/**
 * Measures the text `value` holds and cuts, in place, each of its strings longer than
 * `LONGEST_STRING` to its first `LONGEST_STRING` characters, after a mark saying how long it was
 * (`[cut: 1048576 characters] …`, at the start so the runtime's shorter cut keeps it). Done here,
 * in JavaScript, so a string of megabytes a page logs is never copied into the runtime's memory.
 * Returns the characters of text it held before the cut, for the flood guard.
 * @param {any} value
 * @param {number} depth levels still to look into
 * @returns {number}
 */
function measureAndCut(value, depth) {
  let characters = 0;
  for (const key in value) {
    const item = value[key];
    if (typeof item === 'string') {
      characters += item.length;
      if (item.length > LONGEST_STRING) {
        value[key] = `[cut: ${item.length} characters] ${item.slice(0, LONGEST_STRING)}`;
      }
    } else if (depth > 0 && typeof item === 'object' && item !== null) {
      characters += measureAndCut(item, depth - 1);
    }
  }
  return characters;
}

/** Where network events carry strings a page controls the length of (`trimNetworkEvent`). */
const LONG_NETWORK_STRINGS = [['request', 'url'], ['documentURL'], ['response', 'url'], ['redirectResponse', 'url'],
  ['response', 'payloadData'], ['url']];

/**
 * The parts of a network response no recorder of the runtime reads (`trimNetworkEvent`).
 */
const UNREAD_OF_RESPONSE = ['headers', 'headersText', 'requestHeaders', 'requestHeadersText', 'timing',
  'securityDetails'];

/**
 * Readies a `Network.*` event, in place, to be copied into the runtime value by value. Deletes
 * what no recorder of the runtime reads, and copying would cost: the stack of the script that
 * sent a request (dozens of call frames), headers (cookies and credentials among them), request
 * bodies, timings and certificate details (a page's load brings hundreds of network events).
 * Cuts the strings a page controls the length of to `LONGEST_STRING` (a 1.5 MB URL), without a
 * mark, as a URL must stay a URL. Done here, in JavaScript, these parts are never copied.
 * @param {any} params
 */
function trimNetworkEvent(params) {
  delete params.initiator;
  const request = params.request;
  if (request && typeof request === 'object') {
    delete request.headers;
    delete request.postData;
    delete request.postDataEntries;
  }
  for (const key of ['response', 'redirectResponse']) {
    const response = params[key];
    if (response && typeof response === 'object') {
      for (const field of UNREAD_OF_RESPONSE) delete response[field];
    }
  }
  for (const path of LONG_NETWORK_STRINGS) {
    let owner = params;
    for (const key of path.slice(0, -1)) owner = owner && typeof owner === 'object' ? owner[key] : undefined;
    const last = path[path.length - 1];
    if (owner && typeof owner === 'object' && typeof owner[last] === 'string' && owner[last].length > LONGEST_STRING) {
      owner[last] = owner[last].slice(0, LONGEST_STRING);
    }
  }
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (params && method.startsWith('Network.')) trimNetworkEvent(params);
  const characters = params && GUARDED.has(method) ? measureAndCut(params, STRING_DEPTH) : undefined;
  withRuntime((rt) => rt.onDebuggerEvent(source, method, params ?? {}, characters)).catch(() => {});
});
chrome.debugger.onDetach.addListener((source, reason) => {
  withRuntime((rt) => rt.onDebuggerDetach(source, reason)).catch(() => {});
});
// A download an agent's action starts goes to the session's own folder (the runtime says
// where), or is cancelled when the person's rules refuse it; the person's own downloads are left
// as the browser decides. The runtime answers once the rules decided, which may mean asking the
// person. The browser waits for `suggest`, so it is called whatever happens.
chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
  withRuntime((rt) => rt.onDownloadNaming(item))
    .then((deciding) => deciding)
    .then(
      (answer) => {
        if (answer?.cancel) {
          // Cancelled while the browser still waits for the name: named first, a small file
          // could be complete (and stay, in the download folder) before the cancel arrived.
          chrome.downloads
            .cancel(item.id)
            .catch(() => {})
            .finally(() => suggest());
        } else if (typeof answer?.filename === 'string') {
          suggest({ filename: answer.filename, conflictAction: 'uniquify' });
        } else {
          suggest();
        }
      },
      () => suggest(),
    );
  return true;
});
// A tab a page opened (a `target="_blank"` link, `window.open`): the agent's when the tab it was
// opened from is. (`openerTabId` of `tabs.onCreated` names the active tab, not always the one
// whose page opened it; this event names the page's own tab.)
chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => {
  withRuntime((rt) => rt.onTabOpened(details.tabId, details.sourceTabId, details.url || '')).catch(() => {});
});
chrome.tabs.onRemoved.addListener((tabId) => {
  withRuntime((rt) => rt.onTabRemoved(tabId)).catch(() => {});
});
// The extension's own pages (panel, popup, options) ask the runtime through messages
// `{panel: "<request>", ...}`; nothing outside the extension can send them.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || !sender.url?.startsWith(chrome.runtime.getURL(''))) return false;
  if (typeof message?.panel !== 'string') return false;
  const host = { connected: port !== null, error: hostError };
  withRuntime((rt) => rt.handlePageMessage(message, host)).then(sendResponse, (error) =>
    sendResponse({ error: String(error) }),
  );
  return true;
});
// The person's answer to a question about an action comes only from the question's own window:
// the runtime checks that the browser-set `sender.url` is that window's, for that question.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || typeof message?.question !== 'string') return false;
  withRuntime((rt) => rt.handleQuestionMessage(message, sender.url ?? '')).then(sendResponse, (error) =>
    sendResponse({ error: String(error) }),
  );
  return true;
});
chrome.action.onClicked.addListener((tab) => {
  const id = tab.id;
  if (id !== undefined) withRuntime((rt) => rt.onActionClicked(id)).catch(() => {});
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
    const id = message?.type === 'call' && typeof message.id === 'number' ? message.id : undefined;
    withRuntime((rt) => {
      if (id !== undefined) inFlight.set(id, { generation, port: current });
      return rt.handleHostMessage(message);
    })
      .then((reply) => {
        // A call its failed runtime left behind was answered already.
        if (id !== undefined && !inFlight.delete(id)) return;
        if (reply !== undefined && port === current) current.postMessage(reply);
      })
      .catch((error) => console.error('Sightline: handling a host message failed', error));
  });
  current.onDisconnect.addListener(() => {
    const reason = chrome.runtime.lastError?.message ?? 'closed';
    hostError = reason;
    console.warn(`Sightline: native host disconnected (${reason}); retrying in ${backoffMs} ms`);
    if (port === current) port = null;
    // Nobody can receive these calls' answers any more: call them off, so none holds its tab
    // (a navigation would hold it up to the load cap) while the next bridge's calls wait.
    for (const [id, call] of inFlight) {
      if (call.port !== current) continue;
      inFlight.delete(id);
      if (call.generation === generation) {
        withRuntime((rt) => rt.handleHostMessage({ type: 'cancel', id })).catch(() => {});
      }
    }
    retryTimer = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 30_000);
  });
  withRuntime((rt) => {
    if (port === current) current.postMessage(rt.hello());
  }).catch(() => {});
}

connect();
