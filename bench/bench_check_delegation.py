"""Wall time of `check-delegation` (and the agent hook's check) on a long spec history.

    .venv/bin/python bench/bench_check_delegation.py [--commits 200] [--runs 9]
        [--src OTHER/src]    # time another checkout's code on the same history

Builds a repository whose `.progress.md` went through `--commits` commits (one recorded
answer each, through the library), approves it with `confirm`, then times `mdgrill
check-delegation` as a fresh process (median of `--runs`). Issue 30 point 8 made the check
hold the approval commit's whole ancestry to `verify`'s log rules: this is its cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

SPEC = "specs/long"


def _git(root: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def build(root: str, commits: int) -> None:
    """A repository whose spec records one answer per commit, then approved."""
    from mdgrill.services import interview
    from mdgrill.shell import store

    _git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com"),
                       ("commit.gpgsign", "false")):
        _git(root, "config", key, value)
    mdgrill = os.path.join(os.path.dirname(sys.executable), "mdgrill")
    subprocess.run([mdgrill, "init", SPEC, "--goal", "A long interview."], cwd=root,
                   check=True, capture_output=True)
    spec = store.Spec(os.path.join(root, SPEC), root)
    interview.begin_interview(spec, phase="requirements", interview_id="r1")
    for n in range(1, commits + 1):
        decision = f"D{n}"
        interview.open_frontier(spec, round=n, decision_ids=[decision])
        interview.record_answer(spec, decision_id=decision, answer=f"answer {n}")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"answer {n}")
    interview.await_confirmation(spec, decision_id="C1", approach="Build it.")
    interview.confirm(spec, decision_id="C1", reply="Approve and delegate")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--src", help="also time the mdgrill package under this folder "
                        "(e.g. a checkout of main: `git worktree add /tmp/main main`)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        build(root, args.commits)
        _time_history(root, args)
        status = _time(root, args, "this checkout", None)
        if args.src:
            status = status or _time(root, args, args.src, os.path.abspath(args.src))
    return status


def _time_history(root: str, args: argparse.Namespace) -> None:
    """The part point 8 added, in process: the approval's history held to verify's rules."""
    from mdgrill.git import vcs
    from mdgrill.services.approvals import require_verified_history
    from mdgrill.shell import store

    spec = store.Spec(os.path.join(root, SPEC), root)
    approval = vcs.approval_commits(root, SPEC)[-1].sha
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        require_verified_history(spec, approval)
        times.append(time.perf_counter() - start)
    print(f"the approval's history held to verify's rules ({args.commits} commits, in "
          f"process): median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms")


def _time(root: str, args: argparse.Namespace, label: str, src: str | None) -> int:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    argv = [sys.executable, "-m", "mdgrill", "check-delegation", SPEC, "--phase",
            "requirements", "--interview-id", "r1"]
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            print(proc.stdout, proc.stderr, file=sys.stderr)
            return 1
    print(f"{label}: check-delegation, {args.commits} commits: median "
          f"{statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms "
          f"({args.runs} runs)")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
