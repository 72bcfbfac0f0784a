"""The agent's path through `mdgrill mcp` against the CLI and smart-ralph's `phase_gate.py`,
side by side in one run (issue 37, goal 2).

    nice -n 10 .venv/bin/python bench/bench_mcp.py [--calls 40] [--decisions 200]
        [--phase-gate PATH] [--mdgrill PATH] [--baseline-rev REV]

1. Writes: `record-answer` and `open-frontier`, each as a CLI process and as a tool call of
   one `mdgrill mcp` server (the SDK's own stdio client), taking turns call by call. Target:
   a tool call <= 1/10 of the CLI's median. With `--baseline-rev`, this checkout at that
   revision (`git archive`, installed the same way into a venv of its own) runs the same CLI
   calls and a server of its own in the same loop, each of its calls right after this
   checkout's: the before and the now, measured in one run.
2. Reads: `status`, `frontier`, `ledger` as tool calls. Target: <= 5 ms. With
   `--baseline-rev`, the baseline's server answers the same reads, in turns.
3. The loop an agent runs: for each of `--decisions` decisions, open it in the next round and
   record its answer, through one server session, and as two `phase_gate.py` processes on a
   JSON state file (the helper mdgrill replaces), taking turns decision by decision.
   Target: the session >= 12x faster.

4. The same reads and writes inside this process, through the SDK's tool manager
   (`MCPServer.call_tool`, this checkout's code): what the server itself spends on a call,
   without the stdio transport and the client. The difference to parts 1 and 2 is the
   round trip between two processes, which the machine's load sets.

`phase_gate.py` is not part of mdgrill: name it with `--phase-gate` or MDGRILL_PHASE_GATE
(smart-ralph's `plugins/ralph-specum/scripts/phase_gate.py`); without it, part 3 times the
session alone and says so. Its state file is seeded with the collecting interview its
`begin-interview` would write (that verb also wants a recorded skill load, which is not what
is timed here). Both run on the interpreter of the timed mdgrill's venv.

Wall-clock medians: a tool call's time is the round trip to another process, and the loop's
floor is two fsynced writes per decision. The machine is shared, so every figure is taken in
turns with its baseline and printed beside it, and beside each its CPU time, which the load
does not add to: a CLI call's and phase_gate.py's from getrusage (the waited-for children), a
tool call's as this process's (the client's) plus the server's (all its threads, to the
nanosecond, from Linux's /proc/<pid>/task/*/schedstat; NaN elsewhere), the thread that closes
the files writes replaced (`store.retire`) included; a thread that ended between two readings
is skipped (its time is lost), not taken for a failure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from installed import CHILD_ENV, install_fresh  # noqa: E402
from processes import children  # noqa: E402

SPEC = "specs/b"


def git(repo: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def new_repo(tmp: str, name: str, mdgrill: str, env: dict[str, str]) -> str:
    """A repository holding a spec whose requirements interview has begun."""
    repo = os.path.join(tmp, name)
    os.makedirs(repo)
    git(repo, "init", "-q")
    for argv in (["init", SPEC, "--goal", "Bench"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"]):
        subprocess.run([mdgrill, *argv], cwd=repo, check=True, capture_output=True, env=env)
    return repo


def open_ids(repo: str, mdgrill: str, env: dict[str, str], ids: list[str]) -> None:
    for start in range(0, len(ids), 200):
        flags = [a for d in ids[start:start + 200] for a in ("--decision-id", d)]
        subprocess.run([mdgrill, "open-frontier", SPEC, "--round", "1", *flags], cwd=repo,
                       check=True, capture_output=True, env=env)


def checked(reply: Any) -> dict[str, Any]:
    text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
    answer: dict[str, Any] = json.loads(text)
    if answer.get("ok") is not True:
        raise SystemExit(f"a tool call failed: {text[:300]}")
    return answer


def cpu_of(pid: int | None) -> float:
    """Seconds the server `pid`'s threads have run on a CPU (its live threads: one that ended
    meanwhile is skipped, not a failure); NaN where that cannot be read."""
    if pid is None:
        return math.nan
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return math.nan
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as handle:
                total += int(handle.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # the thread ended meanwhile
            continue
        except (OSError, ValueError, IndexError):
            return math.nan
    return total / 1e9


def children_cpu() -> float:
    """Seconds of CPU of the waited-for child processes (the CLI calls, phase_gate.py)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@contextlib.asynccontextmanager
async def session_of(mdgrill: str, env: dict[str, str], repo: str,
                     ) -> AsyncIterator[tuple[Any, int | None]]:
    """A new server session and the server's process id (None when it cannot be told)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=mdgrill, args=["mcp"], env=env, cwd=repo)
    before = children()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        new = children() - before
        yield session, new.pop() if len(new) == 1 else None


async def session_run(mdgrill: str, env: dict[str, str], repo: str, job: Any) -> Any:
    """`job(session, pid)` on a new server session (`pid`: the server process, or None)."""
    async with session_of(mdgrill, env, repo) as (session, pid):
        return await job(session, pid)


WRITES = ("record-answer", "open-frontier")
READS = ("status", "frontier", "ledger")


def writes_and_reads(tmp: str, sides: dict[str, tuple[str, dict[str, str]]], calls: int,
                     ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Parts 1 and 2: per-call times of the CLI and of the tools, taking turns; and the CPU
    seconds of each call (the CLI process's; the client's and the server's). `sides`: each
    mdgrill timed and its environment, by its label ("" for this checkout); each has its own
    repository and server, and the sides take turns call by call."""
    times: dict[str, list[float]] = {f"{side}{kind} {name}": [] for side in sides
                                     for kind, names in (("cli", WRITES), ("mcp", WRITES + READS))
                                     for name in names}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    repos = {}
    for n, (side, (mdgrill, env)) in enumerate(sides.items()):
        repos[side] = new_repo(tmp, f"calls{n}", mdgrill, env)
        open_ids(repos[side], mdgrill, env, [f"D{i}" for i in range(1, 2 * calls + 1)])

    def cli(side: str, *argv: str) -> None:
        mdgrill, env = sides[side]
        started, used = time.perf_counter(), children_cpu()
        subprocess.run([mdgrill, *argv], cwd=repos[side], env=env, check=True,
                       capture_output=True)
        cpu[f"{side}cli {argv[0]}"].append(children_cpu() - used)
        times[f"{side}cli {argv[0]}"].append(time.perf_counter() - started)

    async def tool(side: str, session: Any, pid: int | None, name: str,
                   arguments: dict[str, object]) -> None:
        started, mine, theirs = time.perf_counter(), time.process_time(), cpu_of(pid)
        checked(await session.call_tool(name, arguments))
        times[f"{side}mcp {name.replace('_', '-')}"].append(time.perf_counter() - started)
        cpu[f"{side}mcp {name.replace('_', '-')}"].append(
            time.process_time() - mine + cpu_of(pid) - theirs)

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            servers = {}
            for side, (mdgrill, env) in sides.items():
                servers[side] = await stack.enter_async_context(
                    session_of(mdgrill, env, repos[side]))
                # the server's first call imports what it uses
                checked(await servers[side][0].call_tool("status", {"spec": SPEC}))
            for i in range(calls):
                for side, (session, pid) in servers.items():
                    cli(side, "record-answer", SPEC, "--decision-id", f"D{2 * i + 1}",
                        "--answer", f"a {i}")
                    await tool(side, session, pid, "record_answer", {
                        "spec": SPEC, "decision_id": f"D{2 * i + 2}", "answer": f"b {i}"})
                    cli(side, "open-frontier", SPEC, "--round", "1", "--decision-id",
                        f"X{2 * i + 1}")
                    await tool(side, session, pid, "open_frontier", {
                        "spec": SPEC, "round": 1, "decision_id": [f"X{2 * i + 2}"]})
                    for read in READS:
                        await tool(side, session, pid, read, {"spec": SPEC})
    asyncio.run(run())
    return times, cpu


def in_process(tmp: str, mdgrill: str, env: dict[str, str],
               calls: int) -> dict[str, list[float]]:
    """Part 4: per-call times of the tools inside this process, through the SDK's tool
    manager (no transport)."""
    from mdgrill.integrations.mcp import server

    repo = new_repo(tmp, "inproc", mdgrill, env)
    open_ids(repo, mdgrill, env, [f"D{i}" for i in range(1, calls + 1)])
    times: dict[str, list[float]] = {k: [] for k in (
        "record_answer", "open_frontier", "status", "frontier", "ledger")}
    saved, here = dict(os.environ), os.getcwd()
    os.environ.update({k: v for k, v in env.items() if k.startswith("GIT_")})
    os.chdir(repo)
    try:
        app = server(repo)

        async def job() -> None:
            async def tool(name: str, arguments: dict[str, object]) -> None:
                started = time.perf_counter()
                checked(await app.call_tool(name, arguments))
                times[name].append(time.perf_counter() - started)
            await app.call_tool("status", {"spec": SPEC})
            for i in range(calls):
                await tool("record_answer", {"spec": SPEC, "decision_id": f"D{i + 1}",
                                             "answer": f"c {i}"})
                await tool("open_frontier", {"spec": SPEC, "round": 1,
                                             "decision_id": [f"Y{i + 1}"]})
                for read in ("status", "frontier", "ledger"):
                    await tool(read, {"spec": SPEC})
        asyncio.run(job())
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)
    return times


def seed_phase_gate(folder: str) -> str:
    """A phase_gate state file with the collecting interview its begin-interview writes."""
    os.makedirs(folder)
    state = os.path.join(folder, ".ralph-state.json")
    interview = {"phase": "requirements", "interviewId": "r1", "round": 1,
                 "status": "collecting", "askedDecisionIds": [], "pendingDecisionIds": [],
                 "answeredDecisionIds": [], "selectedApproach": None,
                 "confirmationSource": None, "bypassReason": None, "assumptionsRecorded": []}
    with open(state, "w", encoding="utf-8") as handle:
        json.dump({"goal": "Bench", "phaseInterview": interview}, handle, indent=2)
    return state


def the_loop(tmp: str, mdgrill: str, python: str, env: dict[str, str], decisions: int,
             phase_gate: str | None) -> tuple[dict[str, float], dict[str, float]]:
    """Part 3: seconds for the whole loop through one session, and through phase_gate; and
    the CPU seconds each took (the client's and the server's; the processes')."""
    repo = new_repo(tmp, "loop", mdgrill, env)
    state = seed_phase_gate(os.path.join(tmp, "ralph")) if phase_gate else None
    spent = {"mcp": 0.0, "phase_gate": 0.0}
    cpu = {"mcp": 0.0, "phase_gate": 0.0}

    def gate(*argv: str) -> None:
        assert phase_gate is not None and state is not None
        proc = subprocess.run([python, phase_gate, argv[0], state, *argv[1:]], env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"phase_gate.py {argv[0]} failed: {proc.stderr.strip()}")

    async def job(session: Any, pid: int | None) -> None:
        # the server's CPU over the whole loop: what it does after an answer has gone (while
        # phase_gate.py runs) is its work too, and it is idle otherwise
        server_before = cpu_of(pid)
        for n in range(1, decisions + 1):
            decision = f"D{n}"
            started, mine = time.perf_counter(), time.process_time()
            checked(await session.call_tool("open_frontier", {
                "spec": SPEC, "round": n, "decision_id": [decision]}))
            checked(await session.call_tool("record_answer", {
                "spec": SPEC, "decision_id": decision, "answer": f"answer {n}"}))
            spent["mcp"] += time.perf_counter() - started
            cpu["mcp"] += time.process_time() - mine
            if phase_gate:
                started, used = time.perf_counter(), children_cpu()
                gate("open-frontier", "--round", str(n), "--decision-id", decision)
                gate("record-answer", "--decision-id", decision, "--answer", f"answer {n}")
                spent["phase_gate"] += time.perf_counter() - started
                cpu["phase_gate"] += children_cpu() - used
        cpu["mcp"] += cpu_of(pid) - server_before
    asyncio.run(session_run(mdgrill, env, repo, job))
    return spent, cpu


def lend_the_sdk(python: str) -> None:
    """Let the fresh venv import the MCP SDK from this one (installed without dependencies,
    it has mdgrill alone): a path file listing this venv's packages, after its own."""
    import sysconfig

    theirs = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                             "['purelib'])"], check=True, capture_output=True, text=True)
    with open(os.path.join(theirs.stdout.strip(), "bench-sdk.pth"), "w",
              encoding="utf-8") as handle:
        handle.write(sysconfig.get_paths()["purelib"] + "\n")


def install_revision(tmp: str, rev: str) -> str:
    """The mdgrill of this checkout at `rev`, installed (not editable) into a venv of its own
    under `tmp`, with the SDK lent as to the now's."""
    tree = os.path.join(tmp, "baseline")
    os.makedirs(tree)
    archive = subprocess.run(["git", "-C", os.path.dirname(HERE), "archive", rev],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    venv = os.path.join(tmp, "venv-baseline")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", tree], check=True,
                   env=CHILD_ENV)
    lend_the_sdk(python)
    return os.path.join(venv, "bin", "mdgrill")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40, help="calls of each kind (parts 1, 2)")
    ap.add_argument("--decisions", type=int, default=200, help="decisions in the loop (part 3)")
    ap.add_argument("--phase-gate", default=os.environ.get("MDGRILL_PHASE_GATE"),
                    help="smart-ralph's phase_gate.py (default: $MDGRILL_PHASE_GATE)")
    ap.add_argument("--mdgrill", help="an installed mdgrill to time (default: install this "
                    "checkout, not editable, into a temporary venv)")
    ap.add_argument("--baseline-rev", help="time also mdgrill's src/ at this revision of this "
                    "checkout in part 1, in turns with the now, as the before")
    opts = ap.parse_args()
    phase_gate = opts.phase_gate
    if phase_gate and not os.path.isfile(phase_gate):
        raise SystemExit(f"--phase-gate {phase_gate}: no such file")
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-mcp-")
    try:
        if opts.mdgrill:
            mdgrill, python = os.path.abspath(opts.mdgrill), sys.executable
        else:
            mdgrill, python = install_fresh(tmp)
            lend_the_sdk(python)
        env = {**CHILD_ENV, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
               "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
        print(f"mdgrill: {mdgrill}\nwall-clock medians, taking turns with each baseline; "
              f"load average {os.getloadavg()[0]:.1f} at the start")
        sides = {"": (mdgrill, env)}
        if opts.baseline_rev:
            sides[f"at {opts.baseline_rev} "] = (install_revision(tmp, opts.baseline_rev), env)
        times, cpu = writes_and_reads(tmp, sides, opts.calls)
        loop, loop_cpu = the_loop(tmp, mdgrill, python, env, opts.decisions, phase_gate)
        inside = in_process(tmp, mdgrill, env, opts.calls)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    # CPU a call: the median of each call's CPU seconds (the client's and the server's for a
    # tool, the process's for the CLI): what the machine's load does not add to
    cpu_med = {k: statistics.median(v) * 1000 if v else math.nan for k, v in cpu.items()}
    print(f"\n1. writes ({opts.calls} calls each; target: a tool call <= 1/10 of the CLI's)")
    for side in sides:
        for verb in WRITES:
            cli, mcp = med[f"{side}cli {verb}"], med[f"{side}mcp {verb}"]
            cli_cpu, mcp_cpu = cpu_med[f"{side}cli {verb}"], cpu_med[f"{side}mcp {verb}"]
            p95 = sorted(times[f"{side}mcp {verb}"])[int(0.95 * opts.calls)] * 1000
            print(f"   {side}{verb}: CLI {cli:.1f} ms, MCP tool {mcp:.1f} ms (p95 {p95:.1f}): "
                  f"{mcp / cli:.3f} of the CLI ({'met' if mcp <= cli / 10 else 'NOT met'}); "
                  f"CPU {mcp_cpu:.1f} ms (client and server) against the CLI's {cli_cpu:.1f}: "
                  f"{mcp_cpu / cli_cpu:.3f}")
    print(f"2. reads ({opts.calls} calls each; target <= 5 ms)")
    for side in sides:
        for read in READS:
            value = med[f"{side}mcp {read}"]
            print(f"   {side}{read}: {value:.1f} ms ({'met' if value <= 5 else 'NOT met'}); CPU "
                  f"{cpu_med[f'{side}mcp {read}']:.1f} ms (client and server)")
    print(f"3. the loop, {opts.decisions} decisions (open it in the next round, record its "
          f"answer): one MCP session {loop['mcp']:.2f} s ({loop['mcp'] / opts.decisions * 1000:.1f}"
          f" ms a decision; CPU {loop_cpu['mcp']:.2f} s, client and server)")
    if not phase_gate:
        print("   phase_gate.py: not timed (name it with --phase-gate or MDGRILL_PHASE_GATE)")
    else:
        ratio = loop["phase_gate"] / loop["mcp"]
        print(f"   phase_gate.py processes {loop['phase_gate']:.2f} s: the session is "
              f"{ratio:.1f}x faster (target >= 12x: {'met' if ratio >= 12 else 'NOT met'}); "
              f"CPU {loop_cpu['phase_gate']:.2f} s: "
              f"{loop_cpu['phase_gate'] / loop_cpu['mcp']:.1f}x less in the session")
    print("4. inside one process, through the SDK's tool manager (no transport, no client): "
          + ", ".join(f"{name} {statistics.median(v) * 1000:.2f} ms"
                      for name, v in inside.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
