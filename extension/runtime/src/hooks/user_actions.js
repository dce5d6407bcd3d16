// Added to tabs the user shared, in an isolated world the page cannot see, top frame only.
// Reports the user's own clicks, typing, option choices and form submissions through a Runtime
// binding: the kind of action, the role and a short label of what was acted on, and the page
// URL. It never reads a typed value (a button's caption is the only value it reads), and reports
// nothing at all about secret fields (passwords, one-time codes, PINs, payment and bank data,
// fields masked by -webkit-text-security, fields that were ever one of these) or forms holding
// one. Untrusted (script-made) events are ignored. __BINDING__ is replaced by the binding's name.
(() => {
  const report = globalThis.__BINDING__;
  if (typeof report !== 'function' || globalThis.__sightlineListening || window !== window.top) return;
  globalThis.__sightlineListening = true;
  // The same fields the engine masks (sightline_core::snapshot::secrets), judged more broadly.
  const SECRET = /pass|pwd|card|cc-|cvc|cvv|csc|cvn|iban|\bbic\b|\bssn\b|social.?security|account.?(number|no)\b|routing|sort.?code|expir|\bexp\b|\bexp[-_]?(date|month|year|mm|yy)|security.?code|verification.?code|one.?time.?(code|password|pin)|\b[th]?otp|2fa|\bmfa|\bpin\b|pin.?(code|number)|mm\s*\/\s*yy/i;
  // Fields once secret stay secret: a "show password" toggle does not make them reportable.
  const wasSecret = new WeakSet();
  const secret = (el) => {
    if (!(el instanceof Element)) return false;
    if (el.tagName === 'LABEL' && el.control) return secret(el.control);
    if (el.tagName === 'FORM') return Array.from(el.elements).some(secret);
    if (wasSecret.has(el)) return true;
    const hints = ['autocomplete', 'name', 'id', 'aria-label', 'placeholder'].map((a) => el.getAttribute(a) || '');
    const labels = el.labels ? Array.from(el.labels).map((l) => l.innerText) : [];
    const masked = (getComputedStyle(el).webkitTextSecurity || 'none') !== 'none';
    const judged = el.type === 'password' || masked || SECRET.test(hints.concat(labels).join(' '));
    if (judged) wasSecret.add(el);
    return judged;
  };
  // Remember password fields as soon as they are seen, before any toggle.
  const note = (event) => { const el = event.target; if (el instanceof Element && /^(INPUT|TEXTAREA)$/.test(el.tagName)) secret(el); };
  addEventListener('focusin', note, true);
  addEventListener('pointerdown', note, true);
  const INPUT_ROLES = { checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', range: 'slider' };
  const TAG_ROLES = { A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button', FORM: 'form', IMG: 'image', LABEL: 'label' };
  const role = (el) => el.getAttribute('role')
    || (el.tagName === 'INPUT' ? INPUT_ROLES[el.type] || 'textbox' : TAG_ROLES[el.tagName] || el.tagName.toLowerCase());
  const clean = (text) => String(text || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  const field = (el) => /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
  const typable = (el) => el.isContentEditable || el.tagName === 'TEXTAREA'
    || (el.tagName === 'INPUT' && /^(text|search|email|url|tel|number|)$/.test(el.type));
  const label = (el) => clean(el.getAttribute('aria-label')
    || (el.tagName === 'FORM' ? el.getAttribute('name') || el.id : '')
    || (el.labels && el.labels[0] && el.labels[0].innerText)
    || el.getAttribute('placeholder') || el.getAttribute('alt') || el.getAttribute('title')
    || (field(el) ? (el.type === 'submit' || el.type === 'button' ? el.value : '') : el.tagName === 'FORM' ? '' : el.innerText));
  const describe = (el) => { const name = label(el); return name ? `${role(el)} "${name}"` : role(el); };
  const ACTIONABLE = 'a,button,input,select,textarea,summary,label,[role],[onclick],[contenteditable],[tabindex]';
  const origin = (event) => {
    const node = event.composedPath ? event.composedPath()[0] : event.target;
    return node instanceof Element ? node : node && node.parentElement;
  };
  const send = (kind, description) => {
    try { report(JSON.stringify({ kind, description, url: location.href })); } catch {}
  };
  addEventListener('click', (event) => {
    const node = event.isTrusted && origin(event);
    if (!node) return;
    const el = node.closest(ACTIONABLE) || node;
    if (!secret(el)) send('click', `click ${describe(el)}`);
  }, true);
  let typingIn = null;
  addEventListener('input', (event) => {
    const el = event.isTrusted && origin(event);
    if (!el || el === typingIn || !typable(el) || secret(el)) return;
    typingIn = el;
    send('type', `type into ${describe(el)}`);
  }, true);
  addEventListener('focusout', () => { typingIn = null; }, true);
  addEventListener('change', (event) => {
    const el = event.isTrusted && origin(event);
    if (el && el.tagName === 'SELECT' && !secret(el)) send('select', `choose an option in ${describe(el)}`);
  }, true);
  addEventListener('submit', (event) => {
    const el = event.isTrusted && origin(event);
    if (el && !secret(el)) send('submit', `submit ${describe(el)}`);
  }, true);
})();
