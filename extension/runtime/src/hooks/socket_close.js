// Added to every controlled tab, in the page's own world, before any page script runs.
// CDP reports a WebSocket's close without its code; this wraps the WebSocket constructor in a
// Proxy (same prototype, statics and instanceof) and reports each socket's close code and reason
// through a Runtime binding. The binding's name has a random part chosen for each attach, so no
// page can plant a setter on it beforehand. In a new document the binding is already on the
// global when this runs: the hook takes it off at once. In a live document (the hook added
// again after a service-worker restart) the hook runs first and the binding is added after it:
// the hook plants a setter under the binding's name that keeps the binding for itself, so the
// binding is never on the global for the page to find, and the setter cannot be removed
// (non-configurable). The hook keeps its own copies of the built-ins it uses, so a page patching
// addEventListener or JSON.stringify later can neither silence nor rewrite its reports. A second
// copy finds the mark and does nothing. __BINDING__ is replaced by the binding's name.
(() => {
  const name = '__BINDING__';
  const start = (report) => {
    const mark = Symbol.for('sightline.socket-hook');
    if (typeof report !== 'function' || typeof WebSocket !== 'function' || WebSocket[mark]) return;
    const { apply, construct, get } = Reflect;
    const listen = EventTarget.prototype.addEventListener;
    const stringify = JSON.stringify;
    const urlOf = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'url').get;
    const codeOf = Object.getOwnPropertyDescriptor(CloseEvent.prototype, 'code').get;
    const reasonOf = Object.getOwnPropertyDescriptor(CloseEvent.prototype, 'reason').get;
    globalThis.WebSocket = new Proxy(WebSocket, {
      construct(target, args, newTarget) {
        const socket = construct(target, args, newTarget);
        const url = apply(urlOf, socket, []);
        apply(listen, socket, ['close', (event) => {
          try { report(stringify({ url, code: apply(codeOf, event, []), reason: apply(reasonOf, event, []) })); } catch {}
        }]);
        return socket;
      },
      get(target, property, receiver) {
        return property === mark ? true : get(target, property, receiver);
      },
    });
  };
  const present = Object.getOwnPropertyDescriptor(globalThis, name);
  if (present && typeof present.value === 'function') {
    try { delete globalThis[name]; } catch {}
    start(present.value);
    return;
  }
  let taken = false;
  try {
    Object.defineProperty(globalThis, name, {
      configurable: false,
      enumerable: false,
      get() { return undefined; },
      set(value) { if (!taken) { taken = true; start(value); } },
    });
  } catch {}
})();
