// Added to every controlled tab, in the page's own world, before any page script runs.
// CDP reports a WebSocket's close without its code; this wraps the WebSocket constructor in a
// Proxy (same prototype, statics and instanceof) and reports each socket's close code and reason
// through a Runtime binding. The binding's name has a random part chosen for each attach, so no
// page can plant a setter on it beforehand; the hook takes it off the page's global at once, and
// keeps its own copies of the built-ins it uses, so a page patching addEventListener or
// JSON.stringify later can neither silence nor rewrite its reports. A second copy (added again
// after a service-worker restart) still takes its binding off the global, then finds the mark
// and does nothing. __BINDING__ is replaced by the binding's name.
(() => {
  const report = globalThis.__BINDING__;
  try { delete globalThis.__BINDING__; } catch {}
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
})();
