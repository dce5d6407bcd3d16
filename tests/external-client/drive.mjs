// Usage: node drive.mjs <sightline-host> <page-url>
// Runs navigate → snapshot → click → snapshot with the official MCP TypeScript SDK and prints
// one JSON line per step, for the Rust test to check.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [host, url] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: host, args: ['mcp'], env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'external-sdk-client', version: '1.0.0' });
await client.connect(transport);

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const step = (name, result) => console.log(JSON.stringify({ step: name, isError: result.isError ?? false, text: text(result), structured: result.structuredContent ?? null }));

const { tools } = await client.listTools();
console.log(JSON.stringify({ step: 'tools', names: tools.map((t) => t.name), snapshotHasOutputSchema: Boolean(tools.find((t) => t.name === 'browser_snapshot')?.outputSchema) }));

// The browser may still be starting: poll until a tool answers.
for (let i = 0; i < 150; i++) {
  const r = await client.callTool({ name: 'browser_tabs', arguments: {} });
  if (!r.isError) break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}

step('navigate', await client.callTool({ name: 'browser_navigate', arguments: { url } }));
const snapshot = await client.callTool({ name: 'browser_snapshot', arguments: {} });
step('snapshot', snapshot);
const button = snapshot.structuredContent.elements.find((e) => e.role === 'button' && e.name === 'Add to basket');
step('click', await client.callTool({ name: 'browser_click', arguments: { ref: button.ref } }));
step('snapshot-after', await client.callTool({ name: 'browser_snapshot', arguments: {} }));
await client.close();
