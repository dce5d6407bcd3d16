// Sightline's pick listener, evaluated in an isolated world the page cannot see: resolves with
// the element the person clicks first (the click, and the presses before it, never reach the
// page), or with null on Escape or when the runtime calls it off.
new Promise((resolve) => {
  const events = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
  const swallow = (event) => { event.preventDefault(); event.stopImmediatePropagation(); };
  const done = (value) => {
    for (const type of events) removeEventListener(type, onEvent, true);
    removeEventListener('keydown', onKey, true);
    delete globalThis.__sightlineCancelPick;
    resolve(value);
  };
  const onEvent = (event) => {
    if (!event.isTrusted) return;
    swallow(event);
    if (event.type === 'click') done(event.composedPath()[0] ?? event.target);
  };
  const onKey = (event) => {
    if (event.isTrusted && event.key === 'Escape') { swallow(event); done(null); }
  };
  globalThis.__sightlineCancelPick?.();
  globalThis.__sightlineCancelPick = () => done(null);
  for (const type of events) addEventListener(type, onEvent, true);
  addEventListener('keydown', onKey, true);
})
