"""The interview loop through `mdgrill mcp` against the CLI, side by side in one run.

    .venv/bin/python bench/bench_mcp.py [--decisions 200]

One spec with N decisions opened in one round; half are answered by `record-answer` CLI
processes, the other half by the `record_answer` tool of one `mdgrill mcp` server (the SDK's
own stdio client). Same machine, same run, alternating. Prints the median per call of each
and the ratio: the server pays the start of a process once, the CLI every call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MDGRILL = os.path.join(os.path.dirname(sys.executable), "mdgrill")


def git(repo: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


async def loop(repo: str, ids: list[str]) -> tuple[list[float], list[float]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com"}
    params = StdioServerParameters(command=MDGRILL, args=["mcp"], env=env, cwd=repo)
    cli_times: list[float] = []
    mcp_times: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for i, decision in enumerate(ids):
            started = time.perf_counter()
            if i % 2:
                await session.call_tool("record_answer", {"spec": "specs/b",
                                                          "decision_id": decision,
                                                          "answer": f"answer {i}"})
                mcp_times.append(time.perf_counter() - started)
            else:
                subprocess.run([MDGRILL, "record-answer", "specs/b", "--decision-id", decision,
                                "--answer", f"answer {i}"], cwd=repo, env=env, check=True,
                               capture_output=True)
                cli_times.append(time.perf_counter() - started)
    return cli_times, mcp_times


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--decisions", type=int, default=200)
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-mcp-")
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        git(repo, "init", "-q")
        subprocess.run([MDGRILL, "init", "specs/b", "--goal", "Bench"], cwd=repo, check=True,
                       capture_output=True)
        subprocess.run([MDGRILL, "begin-interview", "specs/b", "--phase", "requirements",
                        "--interview-id", "r1"], cwd=repo, check=True, capture_output=True)
        ids = [f"D{i}" for i in range(1, opts.decisions + 1)]
        for start in range(0, len(ids), 200):
            flags = [a for d in ids[start:start + 200] for a in ("--decision-id", d)]
            subprocess.run([MDGRILL, "open-frontier", "specs/b", "--round", "1", *flags],
                           cwd=repo, check=True, capture_output=True)
        cli_times, mcp_times = asyncio.run(loop(repo, ids))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cli, mcp = statistics.median(cli_times), statistics.median(mcp_times)
    print(f"record-answer, {opts.decisions} decisions, alternating: CLI {cli * 1000:.1f} ms per "
          f"call ({len(cli_times)} calls), MCP tool {mcp * 1000:.1f} ms per call "
          f"({len(mcp_times)} calls): the server is {cli / mcp:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
