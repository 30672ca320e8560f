"""Drives `beaker serve --mcp` over stdio with the official MCP Python SDK (`mcp`), as an MCP host would.
Usage: python mcp_client.py BEAKER [SERVE_ARGS...]   (the server needs --test-tools for `_block`)
Prints one line per check and exits 1 on the first failure."""

import asyncio
import base64
import json
import subprocess
import sys
import time

import anyio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

BEAKER = sys.argv[1]
ARGS = sys.argv[2:]
SERVER = StdioServerParameters(command=BEAKER, args=["serve", "--mcp", *ARGS])
# Long enough that a call still running at the end of a check can only be one that was not cancelled.
TEN_MINUTES = {"beaker/limits": {"timeout_ms": 600000}}


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"), flush=True)
    if not cond:
        sys.exit(1)


def catalog():
    """Every tool's spec and examples, from the binary itself (`beaker tools`)."""
    out = subprocess.run([BEAKER, "tools", "--format", "json", *[a for a in ARGS if a == "--no-python"]],
                         check=True, capture_output=True)
    return json.loads(out.stdout)


async def lifecycles():
    async with Client(SERVER) as c:
        check("auto mode settles on the current revision through server/discover",
              c.protocol_version == "2026-07-28", c.protocol_version)
        r = await c.call_tool("calculator", {"expression": "7 * 8"})
        check("a call on the current revision", r.structured_content["value"] == "56", r)
    async with Client(SERVER, mode="legacy") as c:
        check("legacy mode uses initialize (2025-11-25)", c.protocol_version == "2025-11-25", c.protocol_version)
        check("the server names itself", c.server_info.name == "beaker", c.server_info)
        r = await c.call_tool("calculator", {"expression": "7 * 8"})
        check("a call after initialize", r.structured_content["value"] == "56", r)


async def every_tool(specs):
    async with Client(SERVER, read_timeout_seconds=600) as c:
        listed = {t.name: t for t in (await c.list_tools()).tools if not t.name.startswith("_")}
        check("tools/list has every tool", set(listed) == {s["name"] for s in specs},
              sorted(set(listed) ^ {s["name"] for s in specs}))
        for s in specs:
            t = listed[s["name"]]
            check(f"{s['name']}: schemas listed", t.input_schema == s["params_schema"]
                  and t.output_schema == s["result_schema"], t)
        calls = 0
        for s in specs:
            for i, ex in enumerate(s.get("examples", [])):
                # The session is one trajectory: the files an example starts from are written first, in it.
                for path, content in ex.get("workspace", {}).items():
                    args = ({"path": path, "content": content} if isinstance(content, str)
                            else {"path": path, "content": content["base64"], "encoding": "base64"})
                    w = await c.call_tool("write_file", args)
                    check(f"{s['name']} example {i}: {path} written", not w.is_error, w)
                # The client checks structuredContent against the tool's outputSchema on every success. An
                # example that reads a dataset names it in _meta (the server's --data folder holds `example`).
                extra = {"meta": {"beaker/dataset": ex["dataset"]}} if "dataset" in ex else {}
                r = await c.call_tool(s["name"], ex["params"], **extra)
                shown = {k: v for k, v in r.structured_content.items() if k not in ex.get("elided", [])}
                check(f"{s['name']} example {i}", not r.is_error and shown == ex["result"],
                      (r.structured_content, ex["result"]))
                calls += 1
        print(f"     ({calls} example calls)")
        r = await c.call_tool("plotter", {"plot_type": "function", "data": {"functions": ["x**2"], "x_range": [0, 1]}})
        images = [b for b in r.content if b.type == "image"]
        check("a plot comes as an image block", len(images) == 1 and images[0].mime_type == "image/png"
              and base64.b64decode(images[0].data)[:8] == b"\x89PNG\r\n\x1a\n", r.content)
        check("the text block leaves the picture out", len(r.content[0].text) < 2000, r.content[0].text[:200])


async def failures():
    async with Client(SERVER) as c:
        r = await c.call_tool("calculator", {"expression": "1/0"})
        check("a failing call is an error result", r.is_error and r.meta["beaker/error_kind"] == "domain_error", r)
        check("its text says why", "error" in r.content[0].text, r.content)
        r = await c.call_tool("calculator", {"expresion": "1"})
        check("bad params are an error result too", r.is_error
              and r.meta["beaker/error_kind"] == "invalid_params", r)
        try:
            await c.call_tool("calculater", {"expression": "1"})
            check("an unknown tool is a protocol error", False, "no error")
        except MCPError as e:
            check("an unknown tool is a protocol error", e.error.code == -32602 and "calculator" in e.error.message, e)
        r = await c.call_tool("calculator", {"expression": "2**10"})
        check("the session goes on after errors", r.structured_content["value"] == "1024", r)
        r = await c.call_tool("calculator", {"expression": "2**300000"})
        check("a 90,309-digit result is whole in structuredContent",
              len(r.structured_content["value"]) == 90309, len(r.structured_content["value"]))
        check("and cut to head and tail in the text block", len(r.content[0].text) < 33000
              and "not shown here" in r.content[0].text, len(r.content[0].text))
        tools = {t.name: t for t in (await c.list_tools()).tools}
        check("stateful tools are not idempotent", tools["execute_python"].annotations.idempotent_hint is False
              and tools["calculator"].annotations.idempotent_hint is True, tools["execute_python"].annotations)


async def cancellation_and_progress():
    # One native worker: a cancelled call that kept running would hold it, and the next call would wait.
    async with Client(SERVER, read_timeout_seconds=120) as c:
        started = time.monotonic()
        with anyio.move_on_after(0.5):
            await c.call_tool("_block", {}, meta=TEN_MINUTES)
        r = await c.call_tool("calculator", {"expression": "3 * 3"})
        check("a cancelled call frees its worker", r.structured_content["value"] == "9"
              and time.monotonic() - started < 60, time.monotonic() - started)
        seen = []

        async def progress(p, total, message):
            seen.append((p, message))

        r = await c.call_tool("_block", {}, progress_callback=progress,
                              meta={"beaker/limits": {"timeout_ms": 2500}})
        check("a long call ends at its limit", r.is_error and r.meta["beaker/error_kind"] == "timeout", r)
        check("and reports progress while it runs", len(seen) >= 2 and seen[0][0] < seen[-1][0], seen)


async def concurrency():
    async with Client(SERVER) as c:
        results = await asyncio.gather(*[c.call_tool("calculator", {"expression": f"{i} * 1000 + 7"})
                                         for i in range(100)])
        check("100 concurrent calls each get their own answer",
              [r.structured_content["value"] for r in results] == [str(i * 1000 + 7) for i in range(100)],
              [r.structured_content for r in results[:3]])


async def main():
    specs = [s for s in catalog() if not s["name"].startswith("_")]
    await lifecycles()
    await failures()
    await concurrency()
    await cancellation_and_progress()
    await every_tool(specs)


asyncio.run(main())
