// @ts-check
// The question window: shows what the agent wants to do and sends the person's answer. Only a
// click the browser marks as the person's (`isTrusted`) sends one; the service worker takes it
// only from this window, for this question.

const id = new URLSearchParams(location.search).get('id') ?? '';
/** @param {string} name */
const $ = (name) => /** @type {HTMLElement} */ (document.getElementById(name));
const buttons = /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('footer button')]);

// A press in the window's first moments is not an answer. The window opens wherever the person
// is looking, maybe under a click they meant for the page, and its buttons move once as it takes
// its final size, so a press aimed at one can land on its neighbour. As with the browser's own
// permission prompts, the buttons come alive only once the window has shown its question and
// stayed still, in front, for ARM_MS; a resize, a return to the window or a hidden window starts
// the wait again.
const ARM_MS = 600;
/** Whether the question is still open (shown, not answered, not expired). */
let questionOpen = false;
let armTimer = 0;

function disarm() {
  for (const b of buttons) b.disabled = true;
  clearTimeout(armTimer);
  if (questionOpen && document.visibilityState === 'visible') {
    armTimer = setTimeout(() => {
      if (questionOpen) for (const b of buttons) b.disabled = false;
    }, ARM_MS);
  }
}

/** Closes the question for good: no button answers any more. */
function endQuestion() {
  questionOpen = false;
  disarm();
}

addEventListener('resize', disarm);
addEventListener('focus', disarm);
document.addEventListener('visibilitychange', disarm);

/** @param {object} message */
function send(message) {
  return chrome.runtime.sendMessage({ ...message, id });
}

async function show() {
  const q = await send({ question: 'details' });
  if (!q || q.error) {
    $('status').textContent = q?.error ?? 'This question has expired.';
    return endQuestion();
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
  questionOpen = true;
  disarm();
}

/**
 * @param {string} choice
 * @param {MouseEvent} event
 */
async function answer(choice, event) {
  if (!event.isTrusted || !questionOpen || /** @type {HTMLButtonElement} */ (event.currentTarget).disabled) return;
  const reply = await send({ question: 'answer', choice, trusted: event.isTrusted });
  $('status').textContent = reply?.answered ? 'Answered.' : (reply?.error ?? 'Not answered.');
  if (reply?.answered) endQuestion();
}

$('allow-once').addEventListener('click', (e) => answer('allow_once', e));
$('allow-session').addEventListener('click', (e) => answer('allow_session', e));
$('deny').addEventListener('click', (e) => answer('deny', e));
show();
