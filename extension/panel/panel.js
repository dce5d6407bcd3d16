// @ts-check
// The Sightline panel for one tab: the tab's status and a stop button, the agent's calls as
// they happen (polled) on one time axis with the tab's console, network and WebSocket events,
// and for the selected call its answer as the agent read it, as a human diff computed by the
// core (changed words marked), as cards for a change report, and the events during it. Refs in
// either view outline their element in the page while hovered and, inside DevTools, select it
// in the Elements panel when clicked. Export saves the session as JSON or Markdown; Pick lets
// the person point at an element for the agent. The runtime does the work; this module only
// draws.

import { ask, el, fillAgents, pageTab, tokens } from '../ui/ask.js';
import { cardsView } from './cards.js';
import { duringView, lanesView } from './lanes.js';

const POLL_MS = 1000;
/** A ref as the snapshot writes it (`e12`, `f7`): a letter refs start with and a number, as a
 * word of its own and not escaped by a backslash. */
const REF = /(?<![\\\w])[efghijkmnpqrstuwxyzabcdBCDGJKNRTY][1-9]\d*(?!\w)/g;

/** @type {number | undefined} */
let tab;
/** @type {any[]} */
let calls = [];
/** @type {any[]} */
let events = [];
/** Calls with screenshots before and after.
 * @type {number[]} */
let shotSeqs = [];
let lastShots = '';
let lastEvents = '';
/** @type {number | null} */
let selected = null;
let lastSignature = '';
let lastVersions = '';
/** @type {Record<string, number[]>} */
let versions = {};

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {number} ms */
function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}

/** @param {number} ms */
function duration(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** @param {any} args */
function argsText(args) {
  return Object.entries(args ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
}

/** @param {any} c */
function versionText(c) {
  if (c.version_after === undefined) return '';
  if (c.version_before === undefined || c.version_before === c.version_after) return `v${c.version_after}`;
  return `v${c.version_before} → v${c.version_after}`;
}

/** @param {any} c */
function kindText(c) {
  switch (c.kind) {
    case 'delta': return 'delta';
    case 'full': return c.reason ? `full page: ${c.reason}` : 'full page';
    case 'no_change': return 'no change';
    case 'overlay_opened': return `opened ${c.reason ?? 'an overlay'}`;
    case 'overlay_closed': return `closed ${c.reason ?? 'an overlay'}`;
    case 'error': return 'error';
    default: return c.kind ?? '';
  }
}

/** The line after an action's answer that reports new console errors or failed requests
 * (`Since the last response: 1 console error (…)`), if any.
 * @param {any} c */
function trouble(c) {
  return c.answer.split('\n').find((/** @type {string} */ line) => line.startsWith('Since the last response: '));
}

/** Text with every ref made live: hovering outlines its element in the page.
 * @param {string} text @param {string} session */
function withRefs(text, session) {
  const out = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(REF)) {
    out.append(text.slice(at, m.index));
    out.append(refNode(m[0], session));
    at = (m.index ?? 0) + m[0].length;
  }
  out.append(text.slice(at));
  return out;
}

const DEVTOOLS = globalThis.chrome?.devtools?.inspectedWindow;

/** Selects the element behind `ref` in DevTools' Elements panel: the runtime puts it under a
 * one-time global name, which this page inspects and deletes.
 * @param {string} ref @param {string} session @param {HTMLElement} node */
async function reveal(ref, session, node) {
  const key = `__sightline_selection_${crypto.randomUUID().replaceAll('-', '')}`;
  try {
    await ask('reveal', { tab, session, ref, key });
  } catch (e) {
    node.classList.add('gone');
    node.title = `${ref}: ${/** @type {Error} */ (e).message}`;
    return;
  }
  const k = JSON.stringify(key);
  DEVTOOLS?.eval(`(() => { const n = globalThis[${k}]; delete globalThis[${k}]; inspect(n); return true; })()`);
}

/** @param {string} ref @param {string} session */
function refNode(ref, session) {
  const how = DEVTOOLS ? 'hover to outline it in the page, click to select it in the Elements panel' : 'hover to outline it in the page';
  const node = el('span', { class: 'ref', 'data-ref': ref, title: `${ref}: ${how}` }, ref);
  node.addEventListener('click', () => { if (DEVTOOLS) reveal(ref, session, node); });
  node.addEventListener('mouseenter', () => {
    ask('highlight', { tab, session, ref }).then(
      () => node.classList.remove('gone'),
      (e) => { node.classList.add('gone'); node.title = `${ref}: ${e.message}`; },
    );
  });
  node.addEventListener('mouseleave', () => { ask('unhighlight', { tab }).catch(() => {}); });
  return node;
}

/** @param {any[]} pieces @param {'ins' | 'del'} mark @param {string} session */
function markedWords(pieces, mark, session) {
  const out = document.createDocumentFragment();
  for (const p of pieces) {
    if (p.kind === 'same') out.append(withRefs(p.text, session));
    else out.append(el(mark, null, withRefs(p.text, session)));
  }
  return out;
}

/** The core's review rows as a diff a person reads.
 * @param {any[]} rows @param {string} session */
function diffView(rows, session) {
  if (rows.length === 0 || rows.every((r) => r.kind === 'folded')) {
    return el('p', { class: 'muted' }, 'Nothing on the page changed between these versions.');
  }
  const box = el('div', { class: 'diff' });
  for (const r of rows) {
    switch (r.kind) {
      case 'same':
        box.append(el('div', { class: 'row same' }, el('span', { class: 'sign' }, ''), el('span', { class: 'text' }, withRefs(r.text, session))));
        break;
      case 'folded':
        box.append(el('div', { class: 'row folded' }, el('span', { class: 'sign' }, '⋯'), el('span', { class: 'text' }, `${r.count} unchanged line${r.count === 1 ? '' : 's'}`)));
        break;
      case 'added':
        box.append(el('div', { class: 'row added', title: 'added' }, el('span', { class: 'sign' }, '+'), el('span', { class: 'text' }, withRefs(r.text, session))));
        break;
      case 'removed':
        box.append(el('div', { class: 'row removed', title: 'removed' }, el('span', { class: 'sign' }, '−'), el('span', { class: 'text' }, withRefs(r.text, session))));
        break;
      case 'changed':
        box.append(el('div', { class: 'row changed', title: 'changed' },
          el('span', { class: 'sign' }, '~'),
          el('span', { class: 'text before' }, markedWords(r.words.before, 'del', session)),
          el('span', { class: 'text after' }, markedWords(r.words.after, 'ins', session))));
        break;
    }
  }
  return el('div', null,
    el('div', { class: 'legend' }, el('span', null, '+ added'), el('span', null, '− removed'), el('span', null, '~ changed: before | after, changed words marked')),
    box);
}

/** @param {string} session @param {number} from @param {number} to */
async function review(session, from, to) {
  try {
    const answer = await ask('review', { tab, session, from, to });
    return diffView(answer.rows, session);
  } catch (e) {
    return el('p', { class: 'card note' }, `The diff v${from} → v${to} is not available: ${/** @type {Error} */ (e).message}.`);
  }
}

/** One screenshot with the action's target outlined.
 * @param {any} shot @param {string} caption */
function shotFigure(shot, caption) {
  if (!shot) return el('figure', { class: 'shot missing' }, el('figcaption', null, `${caption}: not taken`));
  const frame = el('div', { class: 'shot-frame' }, el('img', { src: `data:image/jpeg;base64,${shot.jpeg_base64}`, alt: `The page ${caption.toLowerCase()} the action`, width: shot.width, height: shot.height }));
  if (shot.outline) {
    const [x, y, w, h] = shot.outline;
    const box = el('div', { class: 'outline' });
    Object.assign(box.style, { left: `${(x / shot.width) * 100}%`, top: `${(y / shot.height) * 100}%`, width: `${(w / shot.width) * 100}%`, height: `${(h / shot.height) * 100}%` });
    frame.append(box);
  }
  return el('figure', { class: 'shot' }, frame, el('figcaption', null, caption));
}

/** The screenshots before and after call `seq` (the panel's only; the agent never gets them).
 * @param {number} seq */
async function shotsView(seq) {
  try {
    const pair = await ask('shots', { tab, seq });
    return el('div', { id: 'shots' }, el('h3', null, 'Before and after (the target outlined)'),
      el('div', { class: 'shots' }, shotFigure(pair.before, 'Before'), shotFigure(pair.after, 'After')));
  } catch (e) {
    return el('p', { class: 'muted' }, `No screenshots: ${/** @type {Error} */ (e).message}.`);
  }
}

/** @param {any} c */
async function showCall(c) {
  selected = c.seq;
  drawLanes();
  for (const li of document.querySelectorAll('.call')) li.setAttribute('aria-selected', String(Number(/** @type {HTMLElement} */ (li).dataset.seq) === c.seq));
  const detail = $('detail');
  const saved = c.full_page_tokens !== undefined ? Math.max(0, c.full_page_tokens - c.answer_tokens) : 0;
  const head = el('div', { class: 'detail-head' },
    el('h1', { class: 'mono' }, c.tool),
    el('span', { class: `pill ${c.is_error ? 'bad' : 'on'}` }, kindText(c) || 'answered'),
    el('span', { class: 'muted' }, `${clock(c.started_ms)} · ${duration(c.duration_ms)} · ${versionText(c)}`),
    el('span', { class: 'muted' }, `${c.answer_tokens} tokens` + (c.full_page_tokens !== undefined ? ` (full page ${tokens(c.full_page_tokens)}, ${tokens(saved)} saved)` : '')));
  const args = argsText(c.args);
  const parts = [head];
  if (args) parts.push(el('p', { class: 'mono muted' }, args));
  const changes = el('div', null, el('h3', null, 'What changed on the page'));
  const reported = trouble(c);
  if (reported && !c.is_error) changes.append(el('p', { class: 'card error' }, reported.replace('Since the last response: ', 'While the agent acted, the page reported ')));
  if (c.is_error) {
    changes.append(el('p', { class: 'card error' }, c.answer));
  } else if (c.version_before === undefined && c.version_after !== undefined) {
    changes.append(el('p', { class: 'card note' }, `The agent's first look at this page: it read the whole page as v${c.version_after}.`));
  } else if (c.version_before !== undefined && c.version_after !== undefined && c.version_before !== c.version_after) {
    const diff = await review(c.session, c.version_before, c.version_after);
    if (c.kind === 'full') {
      changes.append(el('p', { class: 'card note' }, `The agent was sent the full page (${c.reason ?? 'new page'}), not a delta.`));
      changes.append(el('details', null, el('summary', null, `Diff v${c.version_before} → v${c.version_after} anyway`), diff));
    } else {
      if (c.kind === 'overlay_opened' || c.kind === 'overlay_closed') changes.append(el('p', { class: 'card note' }, kindText(c)));
      changes.append(diff);
    }
  } else {
    changes.append(el('p', { class: 'muted' }, c.version_after !== undefined ? `No change to the page (still v${c.version_after}).` : 'This call does not read the page.'));
  }
  const read = el('div', null, el('h3', null, 'As the agent read it'), el('pre', { class: 'answer' }, withRefs(c.answer, c.session)));
  const views = el('div', { class: 'views' });
  if (c.cards) views.append(el('div', { id: 'report' }, el('h3', null, c.tool === 'browser_checkpoint' ? 'Checkpoints' : 'What the report found'), cardsView(c.cards)));
  if (shotSeqs.includes(c.seq)) views.append(await shotsView(c.seq));
  views.append(changes, el('div', { id: 'during' }, el('h3', null, 'While it ran'), duringView(events, c)), read);
  parts.push(views);
  if (selected === c.seq) detail.replaceChildren(...parts);
}

/** @param {any} c */
function callItem(c) {
  const item = el('li', { class: 'call', 'data-seq': c.seq, 'data-tool': c.tool, tabindex: 0, 'aria-selected': String(c.seq === selected) },
    el('span', { class: 'seq' }, `#${c.seq}`),
    el('span', { class: 'tool' }, c.tool),
    el('span', { class: 'when' }, `${clock(c.started_ms)} · ${duration(c.duration_ms)}`),
    el('span', { class: 'args', title: argsText(c.args) }, argsText(c.args) || ' '),
    el('span', { class: 'facts' },
      el('span', { class: `kind ${c.kind ?? ''}` }, kindText(c)),
      trouble(c) ? el('span', { class: 'kind error', title: trouble(c) }, 'page errors') : null,
      el('span', { class: 'muted' }, versionText(c)),
      el('span', { class: 'muted' }, `${tokens(c.answer_tokens)} tok` + (c.full_page_tokens !== undefined ? ` / page ${tokens(c.full_page_tokens)}` : ''))));
  item.addEventListener('click', () => showCall(c));
  item.addEventListener('keydown', (e) => { if (e.key === 'Enter') showCall(c); });
  return item;
}

/** @param {any} answer */
function drawStatus(answer) {
  const s = answer.status;
  const grant = $('grant');
  const clients = answer.clients ?? {};
  const name = (/** @type {string} */ id) => clients[id] ?? `session ${id.slice(0, 8)}`;
  if (s.grant === 'shared') { grant.textContent = 'Shared with the agent'; grant.className = 'pill on'; }
  else if (s.grant === 'opened') { grant.textContent = 'Opened by an agent'; grant.className = 'pill on'; }
  else { grant.textContent = 'Not shared'; grant.className = 'pill off'; }
  grant.title = s.held_by ? `Held by ${name(s.held_by)} (MCP session ${s.held_by})` : '';
  $('holder-box').hidden = s.grant === 'none' || Object.keys(clients).length === 0;
  fillAgents(/** @type {HTMLSelectElement} */ ($('holder')), Object.entries(clients), s.held_by);
  $('stop').hidden = s.grant === 'none';
  const problem = $('problem');
  problem.hidden = !(s.grant === 'none' && s.revoked);
  problem.textContent = s.revoked ? `The agent may no longer use this tab: ${s.revoked}` : '';
  document.body.dataset.picking = String(Boolean(answer.picking));
  const pointed = $('selection');
  pointed.hidden = !answer.selection;
  if (answer.selection) {
    const how = answer.selection.by === 'pick' ? 'picked' : 'selected in Elements';
    pointed.textContent = `For the agent: ${answer.selection.node}`;
    pointed.title = `${how} at ${clock(answer.selection.at_ms)}; the agent reads it with browser_user_selection`;
    pointed.dataset.by = answer.selection.by;
  }
  $('page').textContent = answer.page ? `${answer.page.title ?? ''} — ${answer.page.url ?? ''}` : `tab ${tab}`;
  const m = answer.model;
  const saved = Math.max(0, m.full_page_tokens - m.answer_tokens);
  $('savings').textContent = m.calls.length
    ? `${tokens(m.answer_tokens)} tokens read instead of ${tokens(m.full_page_tokens)} · ${tokens(saved)} saved`
    : '';
}

function drawLanes() {
  $('lanes').replaceChildren(lanesView(calls, events, selected, showCall));
}

/** Saves the session on this tab as a file, secrets masked as everywhere in the panel.
 * @param {'json' | 'markdown' | 'playwright' | 'replay'} format */
async function exportSession(format) {
  const file = await ask('export', { tab, format });
  const url = URL.createObjectURL(new Blob([file.text], { type: file.mime }));
  const link = el('a', { href: url, download: file.file_name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  document.body.dataset.exported = file.file_name;
}

function drawVersions() {
  const session = calls.at(-1)?.session ?? Object.keys(versions)[0];
  const held = (session && versions[session]) || [];
  const signature = `${session}:${held.join(',')}`;
  if (signature === lastVersions) return;
  lastVersions = signature;
  for (const [id, pick] of [['from', held.length - 2], ['to', held.length - 1]]) {
    const select = /** @type {HTMLSelectElement} */ ($(/** @type {string} */ (id)));
    select.replaceChildren(...held.map((/** @type {number} */ v) => el('option', { value: v }, `v${v}`)));
    select.selectedIndex = Math.max(0, /** @type {number} */ (pick));
  }
  /** @type {HTMLButtonElement} */ ($('compare')).disabled = held.length < 2;
}

async function refresh() {
  if (tab === undefined) return;
  let answer;
  try {
    answer = await ask('model', { tab });
  } catch (e) {
    const problem = $('problem');
    problem.hidden = false;
    problem.textContent = `Sightline's service worker did not answer: ${/** @type {Error} */ (e).message}`;
    return;
  }
  drawStatus(answer);
  versions = answer.versions ?? {};
  calls = answer.model.calls;
  events = answer.events ?? [];
  shotSeqs = answer.shots ?? [];
  const signature = calls.map((c) => c.seq).join(',');
  const eventSignature = `${signature}|${events.length}|${events.at(-1)?.time_ms ?? ''}`;
  if (eventSignature !== lastEvents) {
    lastEvents = eventSignature;
    drawLanes();
  }
  if (signature !== lastSignature) {
    const list = $('calls');
    const atBottom = list.parentElement ? list.parentElement.scrollTop + list.parentElement.clientHeight >= list.parentElement.scrollHeight - 8 : true;
    list.replaceChildren(...calls.map(callItem));
    $('no-calls').hidden = calls.length > 0;
    if (atBottom && list.parentElement) list.parentElement.scrollTop = list.parentElement.scrollHeight;
    const newest = calls.at(-1);
    if (newest && (selected === null || !calls.some((c) => c.seq === selected))) showCall(newest);
    lastSignature = signature;
  }
  const shotSignature = shotSeqs.join(',');
  if (shotSignature !== lastShots) {
    lastShots = shotSignature;
    const shown = calls.find((c) => c.seq === selected);
    if (shown && shotSeqs.includes(shown.seq) && !document.querySelector('#shots')) showCall(shown);
  }
  drawVersions();
}

$('holder').addEventListener('change', async () => {
  const to = /** @type {HTMLSelectElement} */ ($('holder')).value;
  if (!to) return;
  try { await ask('hand_over', { tab, to }); } catch (e) { $('problem').hidden = false; $('problem').textContent = `The tab was not handed over: ${/** @type {Error} */ (e).message}`; }
  /** @type {HTMLSelectElement} */ ($('holder')).blur();
  refresh();
});
$('stop').addEventListener('click', async () => {
  /** @type {HTMLButtonElement} */ ($('stop')).disabled = true;
  try { await ask('stop', { tab }); } finally { /** @type {HTMLButtonElement} */ ($('stop')).disabled = false; }
  refresh();
});

$('pick').addEventListener('click', async () => {
  const button = /** @type {HTMLButtonElement} */ ($('pick'));
  button.disabled = true;
  button.textContent = 'Click the element in the page…';
  try {
    await ask('pick', { tab });
  } catch (e) {
    const problem = $('problem');
    problem.hidden = false;
    problem.textContent = `Nothing was picked: ${/** @type {Error} */ (e).message}`;
  } finally {
    button.disabled = false;
    button.textContent = 'Pick for the agent';
  }
  refresh();
});

/** The page as the agent currently sees it: one foldable section per region, refs live. The
 * regions the agent's last full page wrote as unchanged start folded, with the one line the
 * agent read for them; opening one shows what it holds.
 * @param {any} answer */
function currentView(answer) {
  const v = answer.view;
  const sections = v.sections.map((/** @type {any} */ s) => {
    const name = s.region || '(outside every region)';
    const facts = `${s.lines.length} line${s.lines.length === 1 ? '' : 's'}${s.refs ? `, ${s.refs} ref${s.refs === 1 ? '' : 's'}` : ''}`;
    return el('details', { class: s.folded ? 'region folded' : 'region', open: !s.folded, 'data-region': s.region },
      el('summary', null, el('span', { class: 'mono' }, name),
        s.overlay ? el('span', { class: 'pill warn' }, 'overlay') : null,
        s.folded ? el('span', { class: 'pill off', title: 'The agent was shown this region as one line: unchanged since its previous page' }, 'folded for the agent') : null,
        el('span', { class: 'muted' }, facts),
        s.folded_as ? el('code', { class: 'folded-as', title: 'The line the agent read for this region' }, s.folded_as) : null),
      el('pre', { class: 'answer' }, withRefs(s.lines.join('\n'), answer.session)));
  });
  const fold = (/** @type {boolean} */ open) => () => { for (const d of document.querySelectorAll('#detail details.region')) /** @type {HTMLDetailsElement} */ (d).open = open; };
  const asSeen = () => { for (const d of document.querySelectorAll('#detail details.region')) /** @type {HTMLDetailsElement} */ (d).open = !d.classList.contains('folded'); };
  const folded = v.folded_lines ? `, ${v.folded_lines} folded for the agent` : '';
  return el('div', { id: 'current-view' },
    el('div', { class: 'detail-head' },
      el('h1', null, `The agent's view: v${v.version}`),
      el('span', { class: 'muted' }, `${v.lines} lines in ${v.sections.length} sections${folded}`),
      el('button', { onclick: asSeen }, 'As the agent sees it'),
      el('button', { onclick: fold(false) }, 'Fold all'),
      el('button', { onclick: fold(true) }, 'Open all')),
    ...sections);
}

$('agent-view').addEventListener('click', async () => {
  selected = null;
  for (const li of document.querySelectorAll('.call')) li.setAttribute('aria-selected', 'false');
  drawLanes();
  try {
    $('detail').replaceChildren(currentView(await ask('view', { tab, session: calls.at(-1)?.session })));
  } catch (e) {
    $('detail').replaceChildren(el('p', { class: 'card note' }, `No view to show: ${/** @type {Error} */ (e).message}.`));
  }
});

$('export-json').addEventListener('click', () => exportSession('json').catch(showProblem));
$('export-md').addEventListener('click', () => exportSession('markdown').catch(showProblem));
$('export-pw').addEventListener('click', () => exportSession('playwright').catch(showProblem));
$('export-replay').addEventListener('click', () => exportSession('replay').catch(showProblem));

/** @param {Error} e */
function showProblem(e) {
  const problem = $('problem');
  problem.hidden = false;
  problem.textContent = `The export failed: ${e.message}`;
}

$('compare').addEventListener('click', async () => {
  const session = calls.at(-1)?.session ?? Object.keys(versions)[0];
  const from = Number(/** @type {HTMLSelectElement} */ ($('from')).value);
  const to = Number(/** @type {HTMLSelectElement} */ ($('to')).value);
  selected = null;
  for (const li of document.querySelectorAll('.call')) li.setAttribute('aria-selected', 'false');
  $('detail').replaceChildren(el('div', { class: 'detail-head' }, el('h1', null, `v${from} → v${to}`), el('span', { class: 'muted' }, 'as the agent saw the page')), await review(session, from, to));
});

pageTab().then((t) => {
  tab = t;
  refresh();
  setInterval(refresh, POLL_MS);
});
