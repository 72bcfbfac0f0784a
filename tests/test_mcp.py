"""`mdgrill mcp` driven by the MCP SDK's own client over stdio (issue 16, part 4): the loop's
tools answer what the CLI answers, with the same error codes, in one server process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo

mcp = pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (pip install -e "
                          "'.[dev]' installs it)")


async def _session(repo: Path, env: dict[str, str], steps: list[tuple[str, dict[str, object]]],
                   ) -> tuple[list[str], list[dict[str, object]]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"],
                                   env=env, cwd=str(repo))
    results: list[dict[str, object]] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        for name, arguments in steps:
            reply = await session.call_tool(name, arguments)
            text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
            results.append(json.loads(text))
    return tools, results


def test_the_interview_loop_through_the_mcp_server(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    spec = "specs/a"
    steps: list[tuple[str, dict[str, object]]] = [
        ("node_add", {"spec": spec, "node_id": "D1", "title": "Who?",
                      "option": ["Everyone", "Members"], "recommend": 1}),
        ("begin_interview", {"spec": spec, "phase": "requirements", "interview_id": "r1"}),
        ("ask", {"spec": spec}),
        ("answer", {"spec": spec, "tool_result": json.dumps(
            {"answers": {"Q1 - D1: Who?": "Everyone (Recommended)"}})}),
        ("confirm", {"spec": spec, "decision_id": "C1", "reply": "Approve and delegate"}),
        ("await_confirmation", {"spec": spec, "decision_id": "C1", "approach": "Everyone"}),
        ("confirm", {"spec": spec, "decision_id": "C1", "reply": "Approve and delegate"}),
        ("check_delegation", {"spec": spec, "phase": "requirements", "interview_id": "r1"}),
    ]
    import subprocess

    subprocess.run([*MDGRILL, "init", spec, "--goal", "A goal"], cwd=repo, env=env, check=True,
                   capture_output=True)
    tools, results = asyncio.run(_session(repo, env, steps))
    assert {"ask", "answer", "confirm", "check_delegation", "status"} <= set(tools)
    assert results[2]["batches"][0]["questions"][0]["question"] == "Q1 - D1: Who?"  # type: ignore[index]
    assert results[3]["recorded"] == {"D1": "Everyone"}
    # a refusal carries the CLI's code: confirm before the approach was presented
    assert results[4]["ok"] is False
    assert results[4]["error"]["code"] == "ILLEGAL_TRANSITION"  # type: ignore[index]
    assert results[6]["ok"] is True and results[6]["status"] == "complete"
    assert results[7]["ok"] is True and results[7]["status"] == "complete"
    text = (repo / spec / ".progress.md").read_text(encoding="utf-8")
    assert "### Requirements Grill - Confirmed" in text  # the server wrote the same file
