"""Drives sightline-host mcp with the official MCP Python SDK.

Usage: python drive.py <sightline-host> <shop-url> <slow-url>

Runs ping, tools/list, navigate, snapshot, click and snapshot again on the shop page, then a
navigation to a page that takes seconds to load while listening for progress notifications.
Prints one JSON line per step for the Rust test to check.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def step(name, result, **extra):
    line = {"step": name, "isError": bool(result.isError), "text": text(result)}
    line.update(extra)
    print(json.dumps(line), flush=True)


async def main(host, shop_url, slow_url):
    params = StdioServerParameters(command=host, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print(json.dumps({"step": "initialize", "protocolVersion": init.protocolVersion,
                              "server": init.serverInfo.name}), flush=True)
            await session.send_ping()
            listed = await session.list_tools()
            print(json.dumps({
                "step": "tools",
                "names": [t.name for t in listed.tools],
                "annotated": all(t.annotations is not None and t.annotations.readOnlyHint is not None
                                 for t in listed.tools),
            }), flush=True)

            # The browser may still be starting: poll until a tool answers.
            for _ in range(150):
                if not (await session.call_tool("browser_tabs", {})).isError:
                    break
                await asyncio.sleep(0.2)

            step("navigate", await session.call_tool("browser_navigate", {"url": shop_url}))
            snapshot = await session.call_tool("browser_snapshot", {})
            step("snapshot", snapshot)
            button = next(e for e in snapshot.structuredContent["elements"]
                          if e["role"] == "button" and e["name"] == "Add to basket")
            step("click", await session.call_tool("browser_click", {"ref": button["ref"]}))
            step("snapshot-after", await session.call_tool("browser_snapshot", {}))

            notes = []

            async def on_progress(progress, total, message):
                notes.append({"progress": progress, "total": total, "message": message})

            slow = await session.call_tool("browser_navigate", {"url": slow_url}, progress_callback=on_progress)
            step("slow-navigate", slow, progress=notes)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
