// Chooses options of the element it is called on, by value or by label (`wanted`, an array).
// A native <select>: the options are set (the selection is replaced) and `input` and `change`
// fire, as when a person picks. A listbox or combobox made of role=option elements: nothing is
// changed here; the answer is the indexes of the options to click, which the runtime clicks
// like a person would. Anything else, or an option that is not there, is an error that lists
// what the element offers. A combobox whose options to click are not shown (its list is
// closed) says so (`closed`), for the runtime to open it first. Called again with `pick` (those
// indexes), it returns the option elements themselves, for the runtime to click.
function (wanted, pick) {
  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const offered = (labels) => labels.slice(0, 40).map(norm);
  if (this instanceof HTMLSelectElement) {
    if (this.disabled) return { error: 'disabled' };
    const options = Array.from(this.options);
    const picked = [];
    for (const w of wanted) {
      const o = options.find((o) => o.value === w) || options.find((o) => norm(o.label) === norm(w));
      if (!o) return { error: 'missing', missing: w, offered: offered(options.map((o) => o.label)) };
      if (o.disabled) return { error: 'option-disabled', missing: w };
      if (!picked.includes(o)) picked.push(o);
    }
    if (picked.length > 1 && !this.multiple) return { error: 'single' };
    for (const o of options) o.selected = picked.includes(o);
    this.dispatchEvent(new Event('input', { bubbles: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return {};
  }
  const role = (this.getAttribute('role') || '').toLowerCase();
  if (role !== 'listbox' && role !== 'combobox') return { error: 'not-a-list', what: role || this.localName };
  const owners = [this];
  for (const attr of ['aria-controls', 'aria-owns']) {
    for (const id of (this.getAttribute(attr) || '').split(/\s+/).filter(Boolean)) {
      const el = document.getElementById(id);
      if (el) owners.push(el);
    }
  }
  const options = [];
  for (const owner of owners) for (const o of owner.querySelectorAll('[role=option]')) if (!options.includes(o)) options.push(o);
  if (Array.isArray(pick)) return pick.map((i) => options[i]);
  const label = (o) => norm(o.getAttribute('aria-label') || o.textContent);
  if (!options.length) return { error: 'closed', what: role };
  const indexes = [];
  for (const w of wanted) {
    const i = options.findIndex((o) => norm(o.getAttribute('data-value')) === norm(w) || label(o) === norm(w));
    if (i < 0) return { error: 'missing', missing: w, offered: offered(options.map(label)) };
    if (options[i].getAttribute('aria-disabled') === 'true') return { error: 'option-disabled', missing: w };
    if (!indexes.includes(i)) indexes.push(i);
  }
  const closed = role === 'combobox' && indexes.some((i) => options[i].getClientRects().length === 0);
  return { click: indexes, closed };
}
