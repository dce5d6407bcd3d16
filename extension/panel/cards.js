// @ts-check
// A change report or checkpoint reply as cards: the core made each card from the same value the
// agent's text was written from (new errors with their counts, endpoints that started failing
// with their status before and after, WebSocket closes, the person's and the agent's actions);
// this module only draws them.

import { el } from '../ui/ask.js';

/** @type {Record<string, string>} */
const KIND = {
  console_error: 'Console error',
  console_warning: 'Console warning',
  endpoint_failing: 'Started failing',
  endpoint_still_failing: 'Still failing',
  endpoint_slow: 'Slower than usual',
  socket_closed: 'WebSocket closed',
  socket_error: 'WebSocket error',
  user_action: 'Your action',
  agent_action: "Agent's action",
  checkpoint: 'Checkpoint',
  note: 'Not shown',
};

/** @param {any} card */
function cardNode(card) {
  return el('li', { class: `change-card ${card.kind} ${card.severity}`, 'data-kind': card.kind },
    el('div', { class: 'card-head' },
      el('span', { class: 'card-kind' }, KIND[card.kind] ?? card.kind),
      card.count > 1 ? el('span', { class: 'count', title: `${card.count} times` }, `×${card.count}`) : null),
    el('div', { class: 'card-title mono' }, card.title),
    card.after !== undefined
      ? el('div', { class: 'card-change' },
        card.before !== undefined ? el('span', { class: 'before' }, card.before) : el('span', { class: 'muted' }, 'new'),
        el('span', { class: 'muted' }, ' → '),
        el('span', { class: 'after' }, card.after))
      : null,
    card.detail ? el('div', { class: 'card-detail muted' }, card.detail) : null);
}

/** The cards of one report, under its summary.
 * @param {any} report */
export function cardsView(report) {
  const pill = report.severity === 'error' ? 'bad' : report.severity === 'warning' ? 'warn' : 'on';
  const head = el('div', { class: 'cards-head' },
    el('span', { class: `pill ${pill}` }, report.severity),
    el('span', null, report.summary));
  if (report.from) head.append(el('span', { class: 'muted' }, `${report.from} → ${report.to}`));
  const list = el('ul', { class: 'cards' }, ...report.cards.map(cardNode));
  return el('div', { class: 'report-cards' }, head, report.cards.length ? list : null);
}
