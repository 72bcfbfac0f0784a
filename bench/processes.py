"""The child processes of this bench process and their CPU time, for the benches that time a
server they start (bench_mcp.py, bench_lsp.py): the server's pid is the child that appeared."""

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


def cpu_seconds(pid: int | None) -> float | None:
    """Seconds the process `pid` has run on a CPU, all its threads, to the nanosecond the
    scheduler counts (Linux's `/proc/PID/task/*/schedstat`); None where that cannot be read."""
    if pid is None:
        return None
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as handle:
                total += int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9
