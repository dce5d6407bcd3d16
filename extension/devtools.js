// @ts-check
// Registers the Sightline panel in DevTools, for the tab DevTools inspects.
chrome.devtools.panels.create(
  'Sightline',
  '',
  `panel/panel.html?tab=${chrome.devtools.inspectedWindow.tabId}`,
);
