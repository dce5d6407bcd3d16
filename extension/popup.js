// @ts-check
// The popup: shows whether the native host is connected (and the exact fix when it is not),
// whether this tab is shared with the agent with a one-click Share / Stop, and the agent
// sessions the runtime knows. Opened from the toolbar, or as a page with ?tab=<tabId>.

import { ask, el, fillAgents, pageTab } from './ui/ask.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @type {number | undefined} */
let tab;

/** What to do about a native port that closed with `error`, as `sightline-host doctor` would say.
 * @param {string} error */
function hostFixes(error) {
  const id = chrome.runtime.id;
  if (/not found/i.test(error)) {
    return [
      'The browser found no registration for sightline-host. Build it and register it with this browser:',
      'cargo xtask build && target/release/sightline-host install',
      'Then run sightline-host doctor: it checks every link and names what is still wrong.',
    ];
  }
  if (/forbidden|access/i.test(error)) {
    return [
      `The host's registration does not allow this extension (${id}). Register it again:`,
      'target/release/sightline-host install',
    ];
  }
  if (/exited|failed to start/i.test(error)) {
    return [
      'sightline-host started but stopped at once, or could not start (moved or rebuilt elsewhere?). Check it:',
      'target/release/sightline-host doctor',
    ];
  }
  return ['The connection to sightline-host closed. Check every link with:', 'target/release/sightline-host doctor'];
}

async function draw() {
  let status;
  try {
    status = await ask('status', { tab });
  } catch (e) {
    $('host-state').textContent = 'no answer';
    $('host-state').className = 'pill bad';
    $('host-fix').hidden = false;
    $('host-fix').replaceChildren(el('p', null, `Sightline's service worker did not answer (${/** @type {Error} */ (e).message}). Reload the extension in chrome://extensions.`));
    return;
  }
  $('version').textContent = `v${status.version} · protocol ${status.protocol}`;
  const host = $('host-state');
  const fix = $('host-fix');
  if (status.host.connected) {
    host.textContent = 'connected';
    host.className = 'pill on';
    fix.hidden = true;
  } else {
    host.textContent = 'not connected';
    host.className = 'pill bad';
    fix.hidden = false;
    const [why, ...steps] = hostFixes(status.host.error ?? '');
    fix.replaceChildren(
      el('p', null, why),
      ...steps.map((s) => (s.startsWith('Then') ? el('p', { class: 'muted' }, s) : el('div', { class: 'fix' }, s))),
      ...(status.host.error ? [el('p', { class: 'muted' }, `Browser said: ${status.host.error}`)] : []),
    );
  }
  const t = status.tab ?? { grant: 'none' };
  const clients = Object.fromEntries(status.sessions.map((/** @type {any} */ s) => [s.id, s.client]));
  const state = $('tab-state');
  const toggle = /** @type {HTMLButtonElement} */ ($('toggle'));
  toggle.disabled = tab === undefined;
  if (t.grant === 'none') {
    state.textContent = 'not shared';
    state.className = 'pill off';
    $('tab-detail').textContent = t.revoked ? `The agent lost this tab: ${t.revoked}` : 'The agent cannot see or use this tab.';
    toggle.textContent = 'Share this tab with the agent';
    toggle.className = 'primary';
    toggle.dataset.action = 'share';
  } else {
    state.textContent = t.grant === 'shared' ? 'shared' : 'opened by an agent';
    state.className = 'pill on';
    const holder = t.held_by ? (clients[t.held_by] ?? 'an agent that left') : null;
    $('tab-detail').textContent = (t.grant === 'shared'
      ? 'You shared this tab: an agent can read it and act on it.'
      : 'An agent opened this tab.') + (holder ? ` Only ${holder} may use it.` : ' The first agent to use it gets it.');
    toggle.textContent = 'Stop the agent here';
    toggle.className = 'danger';
    toggle.dataset.action = 'stop';
  }
  $('holder-box').hidden = t.grant === 'none' || status.sessions.length === 0;
  fillAgents(/** @type {HTMLSelectElement} */ ($('holder')), status.sessions.map((/** @type {any} */ s) => [s.id, s.client]), t.held_by);
  const list = $('sessions');
  list.replaceChildren(...status.sessions.map((/** @type {any} */ s) => el('li', null,
    el('span', null, s.client ?? 'MCP client'),
    el('span', { class: 'muted mono' }, s.current_tab !== null && s.current_tab !== undefined ? `tab ${s.current_tab}` : 'no tab'))));
  if (status.sessions.length === 0) list.replaceChildren(el('li', { class: 'muted' }, 'No agent has connected since the browser started.'));
}

/** The site's permission: which rule decides here, and a one-click change for this host. */
async function drawPermission() {
  if (tab === undefined) return;
  let here;
  try {
    here = await ask('permissions_for', { tab });
  } catch {
    return;
  }
  if (!here.host) return;
  $('permission-box').hidden = false;
  const select = /** @type {HTMLSelectElement} */ ($('site-level'));
  if (document.activeElement !== select) select.value = here.level;
  const rule = here.rule;
  const except = Object.entries(rule?.classes ?? {}).map(([c, v]) => `${v} ${c.replace('_', ' ')}`).join(', ');
  $('permission-detail').textContent = `${here.host}: by the rule ${rule ? rule.site : '* (default)'}` + (except ? `, except ${except}` : '') + '.';
}

$('site-level').addEventListener('change', async () => {
  const here = await ask('permissions_for', { tab });
  const policy = here.policy;
  const level = /** @type {HTMLSelectElement} */ ($('site-level')).value;
  const rules = policy.rules.filter((/** @type {any} */ r) => r.site !== here.host);
  const existing = policy.rules.find((/** @type {any} */ r) => r.site === here.host);
  rules.push(level === 'no_access' || !existing?.classes ? { site: here.host, level } : { ...existing, level });
  const checked = await ask('check_permissions', { json: JSON.stringify({ ...policy, rules }) });
  if (checked.invalid) {
    $('permission-detail').textContent = `Not changed: ${checked.invalid}`;
    return;
  }
  await chrome.storage.local.set({ 'sightline.permissions': checked.policy });
  /** @type {HTMLSelectElement} */ ($('site-level')).blur();
  await drawPermission();
});

$('toggle').addEventListener('click', async () => {
  const toggle = /** @type {HTMLButtonElement} */ ($('toggle'));
  toggle.disabled = true;
  let said = '';
  try {
    const answer = await ask(toggle.dataset.action === 'share' ? 'share' : 'stop', { tab });
    if (answer.note) said = `Shared, but the page cannot be read yet: ${answer.note}`;
  } catch (e) {
    said = `That did not work: ${/** @type {Error} */ (e).message}`;
  }
  await draw();
  if (said) $('tab-detail').textContent = said;
});
$('holder').addEventListener('change', async () => {
  const select = /** @type {HTMLSelectElement} */ ($('holder'));
  if (!select.value) return;
  let said = '';
  try { await ask('hand_over', { tab, to: select.value }); } catch (e) { said = `The tab was not handed over: ${/** @type {Error} */ (e).message}`; }
  select.blur();
  await draw();
  if (said) $('tab-detail').textContent = said;
});
$('open-panel').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.tabs.create({ url: chrome.runtime.getURL(`panel/panel.html?tab=${tab}`) });
});
$('open-options').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

pageTab().then((t) => {
  tab = t;
  draw();
  drawPermission();
  setInterval(() => {
    draw();
    drawPermission();
  }, 2000);
});
