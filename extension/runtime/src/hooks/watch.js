// The page's watch: counts what changes a document — every DOM mutation, and every event that
// edits, scrolls or focuses something — and keeps the time of the last mutation. Added at
// document start to every frame, in its own isolated world, so no page script can see it, stop
// it or fake a count. Idempotent: a second copy does nothing.
//
// Read by `PROBE` below (is the page as the last capture saw it?) and by the settling script (a
// document quiet since before the call is settled at once).
(() => {
  if (globalThis.__sightlineWatch) return;
  // `mutated`: the time of the last DOM mutation (what settling waits out); events count as
  // changes for the probe but do not hold settling back (an image that finished loading is
  // no reason to wait).
  // `mutations`: the DOM mutation records alone (what settling watches; see settle.js).
  const watch = { changes: 0, mutations: 0, mutated: performance.now() };
  const bump = (n) => {
    watch.changes += n;
  };
  new MutationObserver((records) => {
    bump(records.length);
    watch.mutations += records.length;
    watch.mutated = performance.now();
  }).observe(document, {
    childList: true,
    subtree: true,
    attributes: true,
    characterData: true,
  });
  // Events of elements reach the document in their capture phase; `load` and `error` of images
  // and scripts never reach the window. Events the browser queues after a change that already
  // shows elsewhere (the page's own scrolling and resizing in the viewport metrics, toggles as
  // attribute mutations or restyles, URL changes in the URL) are not counted: arriving a moment
  // later, they would only make the next probe differ from a capture that already had them.
  const onDocument = ['input', 'change', 'focusin', 'focusout', 'load', 'error', 'transitionend', 'animationend',
    'reset', 'submit'];
  for (const type of onDocument) document.addEventListener(type, () => bump(1), { capture: true, passive: true });
  // A scrolled element (the page's own scrolling is in the viewport metrics).
  document.addEventListener('scroll', (event) => {
    if (event.target !== document) bump(1);
  }, { capture: true, passive: true });
  addEventListener('pageshow', () => bump(1), { capture: true, passive: true });
  // The fields the browser found invalid (`invalid` reaches the document only in its capture
  // phase): a form's submission stopped by its constraints, or the page's own checkValidity.
  // The action that caused it names them (see validity.rs); the last few are kept, each with
  // the wall-clock time it was flagged (the service worker's clock is not the page's
  // `performance.now()`, and a read that arrives late must not push the action's start away).
  watch.invalid = [];
  document.addEventListener('invalid', (event) => {
    watch.invalid.push({ field: event.target, at: Date.now() });
    if (watch.invalid.length > 20) watch.invalid.shift();
  }, { capture: true, passive: true });
  globalThis.__sightlineWatch = watch;
})();
