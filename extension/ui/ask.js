// @ts-check
// What every Sightline page (panel, popup, options) shares: asking the service worker's runtime
// through `chrome.runtime` messages, and building DOM nodes without HTML strings (page text and
// agent answers are never parsed as HTML).

/**
 * Sends `{panel: request, ...fields}` to the service worker; resolves to its answer, or rejects
 * with the error it gave.
 * @param {string} request
 * @param {Record<string, unknown>} [fields]
 * @returns {Promise<any>}
 */
export async function ask(request, fields = {}) {
  const answer = await chrome.runtime.sendMessage({ panel: request, ...fields });
  if (answer === undefined) throw new Error('the extension did not answer');
  if (answer && typeof answer.error === 'string') throw new Error(answer.error);
  return answer;
}

/**
 * A new element with attributes (`class`, `title`, `data-*`, event handlers as `on<event>`) and
 * children (strings become text nodes; `null` and `false` are skipped).
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = String(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'object' ? child : String(child));
  }
  return node;
}

/**
 * The tab a page is about: `?tab=<id>`, else the tab DevTools inspects, else the active tab.
 * @returns {Promise<number | undefined>}
 */
export async function pageTab() {
  const named = new URLSearchParams(location.search).get('tab');
  if (named !== null && named !== '') return Number(named);
  const inspected = globalThis.chrome?.devtools?.inspectedWindow?.tabId;
  if (typeof inspected === 'number') return inspected;
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  return active?.id;
}

/** @param {number} n */
export function tokens(n) {
  return n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * Fills `select` with the connected agents (`[id, client name]`), the one holding the tab chosen
 * (or a blank "nobody yet" when none does). Left alone while the person has it open, so a
 * redraw never takes their choice away.
 * @param {HTMLSelectElement} select
 * @param {Array<[string, string | null | undefined]>} agents
 * @param {string | null | undefined} held
 */
export function fillAgents(select, agents, held) {
  if (document.activeElement === select) return;
  const label = (/** @type {string} */ id, /** @type {string | null | undefined} */ client) =>
    `${client ?? 'MCP client'} · ${id.slice(0, 6)}`;
  const options = agents.map(([id, client]) => el('option', { value: id }, label(id, client)));
  if (!held || !agents.some(([id]) => id === held)) {
    options.unshift(el('option', { value: '' }, held ? `an agent that left · ${held.slice(0, 6)}` : 'no agent yet'));
  }
  select.replaceChildren(...options);
  select.value = held && agents.some(([id]) => id === held) ? held : '';
}
