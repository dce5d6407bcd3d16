// Waits (bounded) for the page's DOM to settle: resolves once no mutation has been seen for
// QUIET ms, or after CAP ms at the latest, with {stable, elapsed, mutations, hidden,
// domMutations} (`domMutations`: the watch's count since the document started, when it runs
// here). The document itself is observed, so a page without a body, or whose root element is
// replaced, is still watched.
//
// A page that hides its own root while it loads (anti-flicker snippets of A/B-testing tools put
// `opacity: 0` on <html> until a script or a timeout removes it) is not settled while it is
// hidden and holds content, however quiet its DOM: the wait goes on, still within CAP. `hidden`
// says the root was still hidden when the wait ended (the snapshot then says so itself);
// `stable` says whether the DOM had been quiet for QUIET ms by then.
// Used before every capture, by the extension and by the test recorder alike.
new Promise((resolve) => {
  const quiet = QUIET, cap = CAP, start = performance.now();
  // Beside the page's watch (the extension's isolated world), the quiet window counts from the
  // last mutation it saw, so a page already quiet is settled at once.
  const watch = globalThis.__sightlineWatch;
  let mutations = 0, quietTimer = 0, lastMutation = watch ? Math.min(watch.mutated, start) : start;
  // Styles first: reading the body's text is the costly part, and only a hidden page needs it.
  const hiddenRoot = () => {
    const body = document.body;
    const hidden = [document.documentElement, body].some((el) => {
      if (!el) return false;
      const style = getComputedStyle(el);
      return Number(style.opacity) === 0 || style.visibility === 'hidden';
    });
    return hidden && !!body && (body.textContent || '').trim().length >= 200;
  };
  const finish = (stable) => {
    clearTimeout(quietTimer); clearTimeout(hardTimer); observer.disconnect();
    const domMutations = watch ? watch.mutations : null;
    resolve({ stable, elapsed: performance.now() - start, mutations, hidden: hiddenRoot(), domMutations });
  };
  // Quiet for long enough: done, unless the page still hides itself (then look again later).
  const quietEnough = () => {
    if (hiddenRoot()) quietTimer = setTimeout(quietEnough, quiet);
    else finish(true);
  };
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    lastMutation = performance.now();
    clearTimeout(quietTimer);
    quietTimer = setTimeout(quietEnough, quiet);
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  const hardTimer = setTimeout(() => finish(performance.now() - lastMutation >= quiet), cap);
  quietTimer = setTimeout(quietEnough, Math.max(0, quiet - (start - lastMutation)));
})
