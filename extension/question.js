// @ts-check
// The question window: shows what the agent wants to do and sends the person's answer. Only a
// click the browser marks as the person's (`isTrusted`) sends one; the service worker takes it
// only from this window, for this question.

const id = new URLSearchParams(location.search).get('id') ?? '';
/** @param {string} name */
const $ = (name) => /** @type {HTMLElement} */ (document.getElementById(name));

/** @param {object} message */
function send(message) {
  return chrome.runtime.sendMessage({ ...message, id });
}

async function show() {
  const q = await send({ question: 'details' });
  if (!q || q.error) {
    $('status').textContent = q?.error ?? 'This question has expired.';
    for (const b of document.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = true;
    return;
  }
  $('agent').textContent = q.agent;
  $('action').textContent = q.action;
  $('tab').textContent = `${q.title || 'untitled'} (tab ${q.tab})`;
  $('site').textContent = q.site || 'a page of no site';
  $('class-name').textContent = q.class;
  let left = q.wait_seconds;
  const tick = () => {
    $('countdown').textContent = `${left} s, then denied`;
    left = Math.max(0, left - 1);
  };
  tick();
  setInterval(tick, 1000);
}

/**
 * @param {string} choice
 * @param {MouseEvent} event
 */
async function answer(choice, event) {
  if (!event.isTrusted) return;
  const reply = await send({ question: 'answer', choice, trusted: event.isTrusted });
  $('status').textContent = reply?.answered ? 'Answered.' : (reply?.error ?? 'Not answered.');
  if (reply?.answered) for (const b of document.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = true;
}

$('allow-once').addEventListener('click', (e) => answer('allow_once', e));
$('allow-session').addEventListener('click', (e) => answer('allow_session', e));
$('deny').addEventListener('click', (e) => answer('deny', e));
show();
