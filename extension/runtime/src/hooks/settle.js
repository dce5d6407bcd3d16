// Waits (bounded) for the page's DOM to settle: resolves once no mutation has been seen for
// QUIET ms, or after CAP ms at the latest, with {stable, elapsed, mutations}. The document itself
// is observed, so a page without a body, or whose root element is replaced, is still watched.
// Used before every capture, by the extension and by the test recorder alike.
new Promise((resolve) => {
  const quiet = QUIET, cap = CAP, start = performance.now();
  let mutations = 0, quietTimer = 0;
  const finish = (stable) => {
    clearTimeout(quietTimer); clearTimeout(hardTimer); observer.disconnect();
    resolve({ stable, elapsed: performance.now() - start, mutations });
  };
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => finish(true), quiet);
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  const hardTimer = setTimeout(() => finish(false), cap);
  quietTimer = setTimeout(() => finish(true), quiet);
})
