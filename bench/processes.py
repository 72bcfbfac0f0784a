"""The child processes of this bench process, for the benches that time a server they start
(bench_mcp.py, bench_lsp.py): the server's pid is the child that appeared."""

from __future__ import annotations

import os


def children() -> set[int]:
    """This process's child processes (Linux; empty elsewhere)."""
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{task}/children", encoding="ascii") as handle:
                found.update(int(pid) for pid in handle.read().split())
    except OSError:
        pass
    return found
