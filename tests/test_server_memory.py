"""The long-lived servers hold their memory flat (issue 37, goal 1): `mdgrill mcp` over 1,000
tool calls and `mdgrill lsp` over 600 buffer changes grow by at most 20 MB of resident memory
after a warm-up, read from the server process's own `/proc/<pid>/status`.

A server that lived with the cycle collector off (as a short verb runs) grew by 300 MB and
700 MB over these runs; a parse that pointed back at itself was freed only by that collector.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import import_part
from test_reliability import MDGRILL, make_repo

import_part("mcp", "the MCP SDK is the `mcp` extra (pip install -e '.[dev]' installs it)")
import_part("pygls", "the LSP server is the `lsp` extra (pip install -e '.[dev]' installs it)")

BUDGET_MB = 20.0
SPEC = "specs/m"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)"),
]


def resident_mb(pid: int) -> float:
    """VmRSS of a process, in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def server_pid(started_after: set[int]) -> int:
    """The one child process of this test started since `started_after` was taken."""
    new = children() - started_after
    assert len(new) == 1, f"expected one server process, found {sorted(new)}"
    return new.pop()


def children() -> set[int]:
    me = os.getpid()
    found: set[int] = set()
    for task in os.listdir(f"/proc/{me}/task"):
        with open(f"/proc/{me}/task/{task}/children", encoding="ascii") as handle:
            found.update(int(pid) for pid in handle.read().split())
    return found


def _interview(tmp_path: Path, decisions: int) -> tuple[Path, dict[str, str]]:
    """A spec whose open round asks D1..D<decisions> (nothing answered yet)."""
    repo, env = make_repo(tmp_path)

    def run(*argv: str) -> None:
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    run("init", SPEC, "--goal", "Memory")
    run("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ids = [f"D{i}" for i in range(1, decisions + 1)]
    for start in range(0, len(ids), 200):
        run("open-frontier", SPEC, "--round", "1",
            *[arg for d in ids[start:start + 200] for arg in ("--decision-id", d)])
    return repo, env


async def _mcp_growth(repo: Path, env: dict[str, str], calls: int, warm_up: int) -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"], env=env,
                                   cwd=str(repo))
    before = children()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        pid = server_pid(before)
        warm = 0.0
        for i in range(calls):
            if i == warm_up:
                warm = resident_mb(pid)
            if i % 2:  # a read, then a write: the loop an agent runs
                reply = await session.call_tool("status", {"spec": SPEC})
            else:
                reply = await session.call_tool("record_answer", {
                    "spec": SPEC, "decision_id": f"D{i // 2 + 1}", "answer": f"answer {i}"})
            text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
            assert json.loads(text)["ok"] is True, text
        return resident_mb(pid) - warm


def test_the_mcp_server_holds_its_memory_over_1000_calls(tmp_path: Path) -> None:
    repo, env = _interview(tmp_path, 500)
    growth = asyncio.run(_mcp_growth(repo, env, calls=1000, warm_up=100))
    print(f"the MCP server grew {growth:.1f} MB over 900 calls")  # shown with -s
    assert growth <= BUDGET_MB, f"the MCP server grew {growth:.1f} MB over 900 calls"
    # every write landed: 500 answers recorded by the one server
    assert (repo / SPEC / ".progress.md").read_text(encoding="utf-8").count(
        "- Decisions: D") == 500


def _big_spec(repo: Path, nodes: int) -> Path:
    """The interview's spec with `nodes` design tree nodes written into its Design Tree."""
    path = repo / SPEC / ".progress.md"
    text = path.read_text(encoding="utf-8")
    tree = "".join(f"### D{i}: Question {i}\n- Section: s{i % 7}\n- Depends on: "
                   f"{'D' + str(i - 1) if i > 1 else 'none'}\n- Options:\n  - Yes (Recommended)"
                   f"\n  - No\n\n" for i in range(1, nodes + 1))
    head, sep, rest = text.partition("## Design Tree\n")
    assert sep, "the spec has a Design Tree section"
    path.write_text(head + sep + "\n" + tree + rest.lstrip("\n"), encoding="utf-8")
    return path


async def _lsp_growth(path: Path, changes: int, warm_up: int) -> tuple[float, int]:
    from lsprotocol import types
    from pygls.lsp.client import BaseLanguageClient

    client = BaseLanguageClient("mdgrill-tests", "1")
    published: list[int] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.append(params.version or 0)

    async def answered(count: int) -> None:
        end = time.monotonic() + 60
        while len(published) < count and time.monotonic() < end:
            await asyncio.sleep(0.002)
        assert len(published) >= count, f"no diagnostics for change {count - 1}"

    before = children()
    await client.start_io(MDGRILL[0], *MDGRILL[1:], "lsp", "--stdio")
    pid = server_pid(before)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=path.parent.as_uri()))
    client.initialized(types.InitializedParams())
    uri, text = path.as_uri(), path.read_text(encoding="utf-8")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1,
                                             text=text)))
    await answered(1)
    warm = 0.0
    for change in range(changes):
        if change == warm_up:
            warm = resident_mb(pid)
        # a keystroke in the tree: the buffer differs every time
        edited = text.replace("### D1: Question 1", f"### D1: Question 1 ({change})")
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=change + 2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
        await answered(change + 2)
    growth = resident_mb(pid) - warm
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return growth, len(published)


def test_the_language_server_holds_its_memory_over_600_changes(tmp_path: Path) -> None:
    repo, _ = _interview(tmp_path, 4)
    path = _big_spec(repo, 300)
    growth, published = asyncio.run(_lsp_growth(path, changes=600, warm_up=60))
    assert published == 601  # the open and every change answered with diagnostics
    print(f"the language server grew {growth:.1f} MB over 540 changes")  # shown with -s
    assert growth <= BUDGET_MB, f"the language server grew {growth:.1f} MB over 540 changes"
