// Added to every controlled tab, in the page's own world, before any page script runs.
// CDP reports a WebSocket's close without its code; this wraps the WebSocket constructor in a
// Proxy (same prototype, statics and instanceof) and reports each socket's close code and reason
// through a Runtime binding, which it first takes off the page's global so pages never see it.
// A second copy (added again after a service-worker restart) finds the mark and does nothing.
// __BINDING__ is replaced by the binding's name.
(() => {
  const report = globalThis.__BINDING__;
  try { delete globalThis.__BINDING__; } catch {}
  const mark = Symbol.for('sightline.socket-hook');
  if (typeof report !== 'function' || typeof WebSocket !== 'function' || WebSocket[mark]) return;
  globalThis.WebSocket = new Proxy(WebSocket, {
    construct(target, args, newTarget) {
      const socket = Reflect.construct(target, args, newTarget);
      socket.addEventListener('close', (event) => {
        try { report(JSON.stringify({ url: socket.url, code: event.code, reason: event.reason })); } catch {}
      });
      return socket;
    },
    get(target, property, receiver) {
      return property === mark ? true : Reflect.get(target, property, receiver);
    },
  });
})();
