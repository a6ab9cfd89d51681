"""The MCP contract suite driven by the official Python SDK client: one JSON report on stdout for the TypeScript
test to judge byte for byte (the expected texts live in src/contract/, not here).

Usage: contract.py '<json config>' where the config is
  {"stdio": {"command": ..., "args": [...]}}  or  {"http": {"url": ..., "token": ..., "maxSseEventSize": n|null}}
with optional "mode" (the client's: "legacy" for the initialize handshake, "auto" to negotiate the newest revision
the server offers), "progressSeconds" and "only" (the steps to run).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE, streamable_http_client

# An approval is allowed when its prompt names this file, rejected otherwise.
ALLOWED_FILE = "allowed.txt"


def shown(result: types.CallToolResult) -> dict[str, Any]:
    text = "".join(part.text for part in result.content if isinstance(part, types.TextContent))
    return {"text": text, "isError": bool(result.is_error), "structured": result.structured_content}


async def answer(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    asked.append(params.message)
    if ALLOWED_FILE in params.message:
        return types.ElicitResult(action="accept", content={"decision": "allow-once"})
    return types.ElicitResult(action="decline")


asked: list[str] = []
# The config's `only`: the steps to run (default all).
only: list[str] | None = None


def server_of(config: dict[str, Any]) -> Any:
    if "stdio" in config:
        stdio = config["stdio"]
        return StdioServerParameters(command=stdio["command"], args=stdio["args"])
    http = config["http"]
    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {http['token']}"}, timeout=httpx2.Timeout(120.0))
    size = http.get("maxSseEventSize", DEFAULT_MAX_SSE_EVENT_SIZE)
    return streamable_http_client(http["url"], http_client=client, max_sse_event_size=size)


async def step(report: dict[str, Any], name: str, call: Any) -> Any:
    """Runs one step; an exception is reported as that step's error, and the suite goes on."""
    if only is not None and name not in only:
        return None
    # On stderr, so a run that hangs shows where.
    print(f"step {name}", file=sys.stderr, flush=True)
    try:
        result = await call()
        report[name] = shown(result) if isinstance(result, types.CallToolResult) else result
        return result
    except Exception as error:  # noqa: BLE001 - every failure is data for the judging test
        report[name] = {"exception": f"{type(error).__name__}: {error}"}
        return None


async def main() -> None:
    global only
    config = json.loads(sys.argv[1])
    only = config.get("only")
    report: dict[str, Any] = {}
    mode = config.get("mode", "auto")
    async with Client(server_of(config), mode=mode, elicitation_callback=answer, read_timeout_seconds=120) as client:
        report["protocolVersion"] = client.session.protocol_version
        tools = await client.list_tools()
        report["tools"] = [tool.name for tool in tools.tools]
        bash = next(tool for tool in tools.tools if tool.name == "bash")
        report["escalationListed"] = "sandbox_permissions" in (bash.input_schema.get("properties") or {})

        def call(name: str, arguments: dict[str, Any], **options: Any) -> Any:
            return lambda: client.call_tool(name, arguments, **options)

        await step(report, "bash", call("bash", {"command": "echo hello; echo oops >&2; exit 3", "description": "say hello"}))

        started = await step(report, "background", call("bash", {"command": "sleep 1; echo background done", "description": "finish later", "run_in_background": True}))
        job = (started.structured_content or {}).get("jobId") if started else None
        await step(report, "backgroundOutput", call("job_output", {"job_id": job, "wait": True}))

        sleeper = await step(report, "sleeper", call("bash", {"command": "echo up; sleep 300", "description": "sleep for long", "run_in_background": True}))
        sleeper_id = (sleeper.structured_content or {}).get("jobId") if sleeper else None
        # Killed once it runs (a kill while it is still being prepared reads "killed before exit").
        for _ in range(100):
            up = await step(report, "sleeperUp", call("job_output", {"job_id": sleeper_id}))
            if up is None or "up" in report["sleeperUp"].get("text", ""):
                break
            await anyio.sleep(0.1)
        await step(report, "kill", call("job_kill", {"job_id": sleeper_id}))
        await step(report, "killedOutput", call("job_output", {"job_id": sleeper_id, "wait": True}))

        # Five million bytes: the servers keep 8 MB of each stream, so the whole output is the result.
        big = await step(report, "big", call("bash", {"command": "head -c 5000000 /dev/zero | tr '\\0' a", "description": "print five megabytes"}))
        if big is not None:
            text = report["big"]["text"]
            stdout = (big.structured_content or {}).get("stdout") or {}
            report["big"] = {"isError": report["big"]["isError"], "length": len(text), "onlyA": text == "a" * len(text), "structuredLength": len(stdout.get("text", ""))}

        promoted = await step(report, "promoted", call("bash", {"command": "echo early; sleep 2; echo late", "description": "outlive the timeout", "timeoutMs": 300}))
        promoted_id = (promoted.structured_content or {}).get("jobId") if promoted else None
        await step(report, "promotedOutput", call("job_output", {"job_id": promoted_id, "wait": True}))

        seen: list[dict[str, Any]] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append({"progress": value, "total": total, "message": message})

        seconds = config.get("progressSeconds", 3)
        await step(report, "withProgress", call("bash", {"command": f"echo x; sleep {seconds}", "description": "run a while"}, progress_callback=progress))
        report["progress"] = seen

        for name, file in (("allowed", ALLOWED_FILE), ("rejected", "rejected.txt")):
            await step(
                report,
                name,
                call(
                    "bash",
                    {
                        "command": f"echo written > {file} && cat {file}",
                        "description": "write a file in the workspace",
                        "sandbox_permissions": "workspace-write",
                        "justification": "the task needs this file",
                    },
                ),
            )
        report["asked"] = asked
    print(json.dumps(report))


anyio.run(main)
