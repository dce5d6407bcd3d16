// Ground truth for fidelity checks, evaluated in the page independently of Sightline's engine:
// which elements a user can see and act on, and the page's innerText.
//
// Interactive: a[href], button, select, textarea, summary, input (not type=hidden), the topmost
// contenteditable, an interactive ARIA role, an onclick attribute, or tabindex >= 0.
// Visible: a non-empty box, visibility "visible", no ancestor with opacity 0, not inside an
// aria-hidden="true" subtree (such elements are removed from the accessibility tree, which is
// how assistive technology and agents perceive the page), not inert, and the topmost element at
// its centre (after scrolling it into the viewport) is the element itself, a descendant, or a
// label of it.
(() => {
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'textbox', 'searchbox', 'combobox', 'listbox',
    'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem']);
  const interactive = (el) => {
    const tag = el.localName;
    if (tag === 'a' && el.hasAttribute('href')) return true;
    if (tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'summary') return true;
    if (tag === 'input') return el.type !== 'hidden';
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (ROLES.has(role)) return true;
    if (el.hasAttribute('onclick')) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && tabindex.trim() !== '' && Number(tabindex) >= 0;
  };
  const hiddenByAncestors = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
      if (n.getAttribute && n.getAttribute('aria-hidden') === 'true') return true;
      if (n.inert) return true;
      const style = n.ownerDocument.defaultView.getComputedStyle(n);
      if (Number(style.opacity) === 0) return true;
    }
    return false;
  };
  const topmostIsOwn = (el) => {
    const doc = el.ownerDocument;
    const win = doc.defaultView;
    let rect = el.getBoundingClientRect();
    const cx = rect.left + rect.width / 2;
    let cy = rect.top + rect.height / 2;
    if (cy < 0 || cy >= win.innerHeight || cx < 0 || cx >= win.innerWidth) {
      win.scrollTo(win.scrollX + (cx < 0 || cx >= win.innerWidth ? cx - win.innerWidth / 2 : 0), win.scrollY + cy - win.innerHeight / 2);
      rect = el.getBoundingClientRect();
    }
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    if (!hit) return false;
    if (hit === el || el.contains(hit)) return true;
    if (el.getRootNode() instanceof ShadowRoot && el.getRootNode().host.contains(hit)) return hit === el.getRootNode().host || el.contains(hit);
    if (el.labels && Array.from(el.labels).some((l) => l === hit || l.contains(hit))) return true;
    return false;
  };
  const found = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.localName === 'iframe') {
        try { if (el.contentDocument) walk(el.contentDocument); } catch (e) { /* cross-origin: measured in its own target */ }
      }
      if (!interactive(el)) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width <= 0 || rect.height <= 0) continue;
      const style = el.ownerDocument.defaultView.getComputedStyle(el);
      if (style.visibility !== 'visible') continue;
      if (hiddenByAncestors(el)) continue;
      found.push(el);
    }
  };
  walk(document);
  // Occlusion checks scroll; measure them last and put the scroll back.
  const x0 = window.scrollX, y0 = window.scrollY;
  const visible = found.filter(topmostIsOwn);
  window.scrollTo(x0, y0);
  // innerText lists every option of a closed <select>; record them so a report can tell them
  // apart from text shown on the page.
  const selectOptions = Array.from(document.querySelectorAll('select'))
    .filter((s) => s.getClientRects().length > 0)
    .map((s) => Array.from(s.options).map((o) => o.text).join('\n'))
    .join('\n');
  return { elements: visible, innerText: document.body ? document.body.innerText : '', selectOptions };
})()
