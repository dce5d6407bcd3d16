// Reads the page's watch (see watch.js) for a capture probe: the count of changes (and of DOM
// mutations alone), a digest of every form control's state (a password field by its length
// only, so nothing of it is hashed), and the URL. `null` when the watch is not running in this
// document.
(() => {
  const watch = globalThis.__sightlineWatch;
  if (!watch) return null;
  let digest = 2166136261;
  const mix = (text) => {
    for (let i = 0; i < text.length; i++) {
      digest ^= text.charCodeAt(i);
      digest = Math.imul(digest, 16777619);
    }
    digest ^= 0x1f;
    digest = Math.imul(digest, 16777619);
  };
  for (const control of document.querySelectorAll('input, textarea, select')) {
    const value = control.value ?? '';
    mix(control.type === 'password' ? String(value.length) : value);
    mix(control.checked ? '1' : '0');
    mix(String(control.selectedIndex ?? ''));
  }
  // Brings style and layout up to date, so the renderer's counters read next include any change
  // made just before.
  void document.documentElement?.offsetHeight;
  return { changes: watch.changes, mutations: watch.mutations, forms: digest >>> 0, url: location.href };
})()
