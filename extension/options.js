// @ts-check
// The options page: reads and writes the settings the runtime reads at each call, in
// chrome.storage.local: `sightline.options` (`allow_file_urls`, `allow_evaluate`, `secret_words`,
// `sizes` within the bounds the runtime gives)
// and `sightline.noise` (`{add: [rules], remove: [built-in names]}`); asks the runtime for its built-in noise rules
// and to forget the recorded calls and events.

import { ask, el } from './ui/ask.js';

const OPTIONS_KEY = 'sightline.options';
const NOISE_KEY = 'sightline.noise';
const TARGETS = /** @type {Record<string, string>} */ ({
  request_url: 'request URL', request_path: 'request path', console_text: 'console text',
  console_source: 'console source', web_socket_url: 'WebSocket URL',
});
const HOW = /** @type {Record<string, string>} */ ({ contains: 'contains', starts_with: 'starts with', ends_with: 'ends with' });

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** What the options page keeps under `OPTIONS_KEY` (the runtime reads and bounds it again).
 * @typedef {{allow_file_urls?: boolean, secret_words?: string[], allow_evaluate?: boolean, sizes?: Record<string, number>}} StoredOptions */

/** The stored options, `{}` when none are.
 * @returns {Promise<StoredOptions>} */
async function storedOptions() {
  return /** @type {StoredOptions} */ ((await chrome.storage.local.get(OPTIONS_KEY))[OPTIONS_KEY] ?? {});
}

/** @returns {Promise<{add: any[], remove: string[]}>} */
async function noise() {
  const stored = /** @type {{add?: any[], remove?: string[]}} */ ((await chrome.storage.local.get(NOISE_KEY))[NOISE_KEY] ?? {});
  return { add: stored.add ?? [], remove: stored.remove ?? [] };
}

/** @param {{add: any[], remove: string[]}} config */
async function saveNoise(config) {
  await chrome.storage.local.set({ [NOISE_KEY]: config });
  saved();
}

function saved() {
  $('saved').textContent = `Saved at ${new Date().toLocaleTimeString([], { hour12: false })}.`;
}

/** @param {any} pattern */
function patternText(pattern) {
  const [how, text] = Object.entries(pattern)[0] ?? ['', ''];
  return el('span', null, `${HOW[how] ?? how} `, el('code', null, String(text)));
}

async function drawNoise() {
  const config = await noise();
  const { rules } = await ask('noise_defaults');
  const builtin = /** @type {HTMLElement} */ ($('builtin').querySelector('tbody'));
  builtin.replaceChildren(...rules.map((/** @type {any} */ r) => {
    const box = el('input', { type: 'checkbox', 'data-rule': r.name, 'aria-label': `${r.name} on` });
    /** @type {HTMLInputElement} */ (box).checked = !config.remove.includes(r.name);
    box.addEventListener('change', async () => {
      const now = await noise();
      now.remove = now.remove.filter((n) => n !== r.name);
      if (!/** @type {HTMLInputElement} */ (box).checked) now.remove.push(r.name);
      await saveNoise(now);
    });
    return el('tr', null, el('td', null, box), el('td', null, el('code', null, r.name)), el('td', null, TARGETS[r.target] ?? r.target), el('td', null, patternText(r.pattern)));
  }));
  const custom = /** @type {HTMLElement} */ ($('custom').querySelector('tbody'));
  custom.replaceChildren(...config.add.map((/** @type {any} */ r) => el('tr', { 'data-rule': r.name },
    el('td', null, el('code', null, r.name)),
    el('td', null, TARGETS[r.target] ?? r.target),
    el('td', null, patternText(r.pattern)),
    el('td', null, el('button', {
      'aria-label': `Remove ${r.name}`,
      onclick: async () => {
        const now = await noise();
        now.add = now.add.filter((x) => x.name !== r.name);
        await saveNoise(now);
        drawNoise();
      },
    }, 'Remove')))));
  if (config.add.length === 0) custom.replaceChildren(el('tr', null, el('td', { colspan: 4, class: 'muted' }, 'None yet.')));
}

$('add-rule').addEventListener('submit', async (e) => {
  e.preventDefault();
  const value = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id)).value.trim();
  const rule = { name: value('rule-name'), target: value('rule-target'), pattern: { [value('rule-how')]: value('rule-pattern') } };
  if (!rule.name || !value('rule-pattern')) return;
  const now = await noise();
  now.add = now.add.filter((x) => x.name !== rule.name).concat([rule]);
  await saveNoise(now);
  /** @type {HTMLFormElement} */ ($('add-rule')).reset();
  drawNoise();
});

const allowFile = /** @type {HTMLInputElement} */ ($('allow-file'));
storedOptions().then((options) => { allowFile.checked = Boolean(options.allow_file_urls); });
allowFile.addEventListener('change', async () => {
  const options = await storedOptions();
  await chrome.storage.local.set({ [OPTIONS_KEY]: { ...options, allow_file_urls: allowFile.checked } });
  saved();
});

const secretWords = /** @type {HTMLTextAreaElement} */ ($('secret-words'));
storedOptions().then((options) => { secretWords.value = (options.secret_words ?? []).join('\n'); });
$('save-secret-words').addEventListener('click', async () => {
  const words = secretWords.value.split('\n').map((w) => w.trim()).filter((w) => w !== '').slice(0, 64);
  const options = await storedOptions();
  await chrome.storage.local.set({ [OPTIONS_KEY]: { ...options, secret_words: words } });
  saved();
});

const allowEvaluate = /** @type {HTMLInputElement} */ ($('allow-evaluate'));
storedOptions().then((options) => { allowEvaluate.checked = Boolean(options.allow_evaluate); });
allowEvaluate.addEventListener('change', async () => {
  const options = await storedOptions();
  await chrome.storage.local.set({ [OPTIONS_KEY]: { ...options, allow_evaluate: allowEvaluate.checked } });
  saved();
});

/** The history and log sizes: each input takes its bounds and default from the runtime, and
 * what is saved is brought within them (the runtime bounds it again). */
async function drawSizes() {
  const { bounds } = await ask('size_bounds');
  const stored = (await storedOptions()).sizes ?? {};
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#sizes input'))) {
    const bound = bounds[/** @type {string} */ (input.dataset.size)];
    input.min = String(bound.min);
    input.max = String(bound.max);
    input.value = String(stored[/** @type {string} */ (input.dataset.size)] ?? bound.default);
    input.title = `${bound.min}–${bound.max}, ${bound.default} by default`;
  }
  $('sizes').addEventListener('submit', async (e) => {
    e.preventDefault();
    /** @type {Record<string, number>} */
    const sizes = {};
    for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#sizes input'))) {
      const bound = bounds[/** @type {string} */ (input.dataset.size)];
      const value = Math.min(bound.max, Math.max(bound.min, Math.round(Number(input.value) || bound.default)));
      input.value = String(value);
      sizes[/** @type {string} */ (input.dataset.size)] = value;
    }
    const options = await storedOptions();
    await chrome.storage.local.set({ [OPTIONS_KEY]: { ...options, sizes } });
    saved();
  });
  $('sizes-default').addEventListener('click', () => {
    for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#sizes input'))) {
      input.value = String(bounds[/** @type {string} */ (input.dataset.size)].default);
    }
  });
}

$('forget').addEventListener('click', async () => {
  const done = await ask('forget');
  $('forget-done').textContent = `Forgotten (and ${done.events} recorded events).`;
  $('forget-done').hidden = false;
});

drawNoise().catch((e) => { $('saved').textContent = `Could not read the noise rules: ${e.message}`; });
drawSizes().catch((e) => { $('saved').textContent = `Could not read the sizes: ${e.message}`; });

// Site permissions, kept under `sightline.permissions` as the runtime's `Policy` JSON
// (`{rules: [{site, level, classes?}], answer_seconds}`); every change is checked by the runtime
// before it is stored, so what is stored is always what the runtime will read.
const PERMISSIONS_KEY = 'sightline.permissions';
const LEVELS = /** @type {Record<string, string>} */ ({
  no_access: 'no access', read_only: 'read only', ask: 'ask before consequential actions', act_freely: 'act freely',
});
const DEFAULT_PERMISSIONS = { rules: [{ site: '*', level: 'ask' }], answer_seconds: 120 };

/** @returns {Promise<{rules: any[], answer_seconds: number}>} */
async function permissions() {
  const stored = (await chrome.storage.local.get(PERMISSIONS_KEY))[PERMISSIONS_KEY];
  return /** @type {{rules: any[], answer_seconds: number}} */ (stored ?? structuredClone(DEFAULT_PERMISSIONS));
}

/**
 * Checks `policy` with the runtime and stores it; shows what is wrong instead.
 * @param {any} policy
 */
async function savePermissions(policy) {
  const checked = await ask('check_permissions', { json: JSON.stringify(policy) });
  const error = $('permissions-error');
  if (checked.invalid) {
    error.textContent = `Not saved: ${checked.invalid}`;
    error.hidden = false;
    return false;
  }
  error.hidden = true;
  await chrome.storage.local.set({ [PERMISSIONS_KEY]: checked.policy });
  saved();
  await drawPermissions();
  return true;
}

async function drawPermissions() {
  const policy = await permissions();
  /** @type {HTMLInputElement} */ ($('answer-seconds')).value = String(policy.answer_seconds ?? 120);
  const body = /** @type {HTMLElement} */ ($('site-rules').querySelector('tbody'));
  body.replaceChildren(...policy.rules.map((/** @type {any} */ rule, /** @type {number} */ i) => {
    const level = el('select', { 'aria-label': `What agents may do on ${rule.site}`, 'data-site': rule.site },
      ...Object.entries(LEVELS).map(([value, words]) => el('option', { value }, words)));
    /** @type {HTMLSelectElement} */ (level).value = rule.level;
    level.addEventListener('change', async () => {
      const now = await permissions();
      now.rules[i] = { ...now.rules[i], level: /** @type {HTMLSelectElement} */ (level).value };
      if (now.rules[i].level === 'no_access') delete now.rules[i].classes;
      await savePermissions(now);
    });
    const except = Object.entries(rule.classes ?? {}).map(([c, v]) => `${v} ${c.replace('_', ' ')}`).join(', ');
    const remove = el('button', { type: 'button', 'aria-label': `Remove ${rule.site}` }, 'Remove');
    remove.addEventListener('click', async () => {
      const now = await permissions();
      now.rules.splice(i, 1);
      await savePermissions(now);
    });
    return el('tr', null, el('td', null, el('code', null, rule.site)), el('td', null, level), el('td', null, except), el('td', null, remove));
  }));
}

$('add-site-rule').addEventListener('submit', async (event) => {
  event.preventDefault();
  const now = await permissions();
  const site = /** @type {HTMLInputElement} */ ($('site-pattern')).value.trim();
  now.rules.push({ site, level: /** @type {HTMLSelectElement} */ ($('site-level')).value });
  if (await savePermissions(now)) /** @type {HTMLInputElement} */ ($('site-pattern')).value = '';
});
$('answer-seconds').addEventListener('change', async () => {
  const now = await permissions();
  now.answer_seconds = Number(/** @type {HTMLInputElement} */ ($('answer-seconds')).value);
  await savePermissions(now);
});
$('export-permissions').addEventListener('click', async () => {
  /** @type {HTMLTextAreaElement} */ ($('permissions-json')).value = JSON.stringify(await permissions(), null, 2);
});
$('import-permissions').addEventListener('click', async () => {
  let policy;
  try {
    policy = JSON.parse(/** @type {HTMLTextAreaElement} */ ($('permissions-json')).value);
  } catch (e) {
    $('permissions-error').textContent = `Not saved: that is not JSON (${e})`;
    $('permissions-error').hidden = false;
    return;
  }
  await savePermissions(policy);
});
drawPermissions();
