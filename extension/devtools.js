// @ts-check
// Registers the Sightline panel in DevTools, for the tab DevTools inspects, and hands the node
// selected in the Elements panel to the runtime when the agent may use this tab: the node is
// put under a one-time global name in the page, which the runtime reads and deletes at once
// (`browser_user_selection` then answers with its ref).

const tab = chrome.devtools.inspectedWindow.tabId;

chrome.devtools.panels.create('Sightline', '', `panel/panel.html?tab=${tab}`);

/** A one-time global name, as the runtime accepts it. */
function selectionKey() {
  return `__sightline_selection_${crypto.randomUUID().replaceAll('-', '')}`;
}

chrome.devtools.panels.elements.onSelectionChanged.addListener(async () => {
  const status = await chrome.runtime.sendMessage({ panel: 'status', tab }).catch(() => null);
  if (!status?.tab || status.tab.grant === 'none') return;
  const key = selectionKey();
  const put = `(() => { if (!$0) return false; Object.defineProperty(globalThis, ${JSON.stringify(key)}, `
    + '{ value: $0, configurable: true }); return true; })()';
  chrome.devtools.inspectedWindow.eval(put, (done, error) => {
    if (!done || error) return;
    chrome.runtime.sendMessage({ panel: 'selected', tab, key }).catch(() => {});
  });
});
