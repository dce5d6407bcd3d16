// @ts-check
// The agent's calls and the tab's console, network, WebSocket and user events on one time axis,
// and the events that happened during one call. The core hands over the events already
// labelled and masked; this module only places them.

import { el } from '../ui/ask.js';

/** @type {[string, string][]} */
const LANES = [
  ['calls', 'Agent calls'],
  ['console', 'Console'],
  ['network', 'Network'],
  ['websocket', 'WebSocket'],
  ['user', 'You'],
];

/** @param {number} ms */
export function clockMs(ms) {
  const d = new Date(ms);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Events between a call's start and its answer.
 * @param {any[]} events @param {any} call */
export function during(events, call) {
  const end = call.started_ms + call.duration_ms;
  return events.filter((e) => e.time_ms >= call.started_ms && e.time_ms <= end);
}

/** The lanes for `calls` and `events`, the selected call's span marked; picking a call's bar
 * calls `pick` with it.
 * @param {any[]} calls @param {any[]} events @param {number | null} selected
 * @param {(call: any) => void} pick */
export function lanesView(calls, events, selected, pick) {
  const times = [
    ...calls.flatMap((c) => [c.started_ms, c.started_ms + c.duration_ms]),
    ...events.map((e) => e.time_ms),
  ];
  if (times.length === 0) return el('p', { class: 'muted' }, 'Nothing recorded on this tab yet.');
  const start = Math.min(...times);
  const span = Math.max(Math.max(...times) - start, 1);
  const at = (/** @type {number} */ t) => `${(((t - start) / span) * 100).toFixed(3)}%`;
  /** @type {Record<string, HTMLElement>} */
  const tracks = {};
  const rows = LANES.map(([lane, name]) => {
    tracks[lane] = el('div', { class: 'track', 'data-lane': lane });
    return el('div', { class: 'lane' }, el('span', { class: 'lane-name' }, name), tracks[lane]);
  });
  const chosen = calls.find((c) => c.seq === selected);
  if (chosen) {
    // The selected call's span, across every lane.
    for (const track of Object.values(tracks)) {
      const band = el('div', { class: 'band' });
      band.style.left = at(chosen.started_ms);
      band.style.width = `max(2px, ${(chosen.duration_ms / span) * 100}%)`;
      track.append(band);
    }
  }
  for (const c of calls) {
    const bar = el('button', {
      class: `bar${c.is_error ? ' error' : ''}${c.seq === selected ? ' selected' : ''}`,
      'data-seq': c.seq,
      title: `#${c.seq} ${c.tool} at ${clockMs(c.started_ms)}, ${Math.round(c.duration_ms)} ms`,
    });
    bar.style.left = at(c.started_ms);
    bar.style.width = `max(4px, ${(c.duration_ms / span) * 100}%)`;
    bar.addEventListener('click', () => pick(c));
    tracks.calls.append(bar);
  }
  for (const e of events) {
    const tick = el('span', { class: `tick ${e.level}`, title: `${clockMs(e.time_ms)} ${e.label}` });
    tick.style.left = at(e.time_ms);
    tracks[e.lane]?.append(tick);
  }
  const axis = el('div', { class: 'lane axis' }, el('span', { class: 'lane-name' }, ''),
    el('div', { class: 'track' },
      el('span', { class: 'from muted' }, clockMs(start)),
      el('span', { class: 'to muted' }, clockMs(start + span))));
  return el('div', { class: 'lanes-box' }, ...rows, axis);
}

/** The events of `call`'s span as a list.
 * @param {any[]} events @param {any} call */
export function duringView(events, call) {
  const seen = during(events, call);
  if (seen.length === 0) return el('p', { class: 'muted' }, 'No console, network or WebSocket event while it ran.');
  return el('ol', { class: 'during' }, ...seen.map((e) =>
    el('li', { class: `event ${e.level}`, 'data-lane': e.lane },
      el('span', { class: 'muted' }, clockMs(e.time_ms)),
      el('span', { class: 'lane-tag' }, e.lane),
      el('span', { class: 'mono' }, e.label))));
}
