"""The merge driver's speed (issue 37 item 5): `mdgrill merge-file` of a 1,000-round file.

    .venv/bin/python bench/bench_merge.py [--runs 7] [--baseline-rev REV] [--dev-venv]

The base is `genspec.progress_text(4000)` (1,000 closed rounds of four decisions, 4,000
design-tree nodes, ~1.3 MB) with an open round asking two questions; ours answers one, theirs
the other. Each run times `mdgrill merge-file BASE OURS THEIRS PATH` (a fresh copy of OURS)
against `git merge-file` of the same three files, interleaved in the same run: wall and the
child's CPU (user + system). Children run as on an installed machine: this checkout installed
(not editable) into a temporary venv with byte-compiled packages (`installed.py`, as
bench_mcp.py and bench_peer.py do), where git's merge driver runs an installed `mdgrill`; the
dev venv's editable install makes every start of its Python ~12 ms slower (its path finder,
imported by `site`), which `--dev-venv` times instead, as this bench did before. For scale, the
same run times that venv's `python -c pass` and, in this process, the validation of the merged
result that merge-file must do (its CPU). With `--baseline-rev`, mdgrill's `src/` at that
revision (see bench_git.py) runs the same merge on the same Python, interleaved, as the
before. With `--instructions`, each is also run once under valgrind's cachegrind, which
counts the instructions it executes: a figure the load of a shared machine does not move.
Budget: median <= 0.15 s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genspec  # noqa: E402
import installed  # noqa: E402
from bench_git import CHILD_ENV, baseline_source, compile_packages, ms, timed_cpu  # noqa: E402

BUDGET = 0.15
OPEN = ("### X{n}: Open question {n}\n- Depends on: none\n- Options:\n  - A\n  - B\n\n")


def _sides(tmp: str) -> tuple[str, str, str]:
    """BASE, OURS and THEIRS as files: each side answered one of the two open questions."""
    from mdgrill.cli.main import main

    text = genspec.progress_text(4000, pending=["X1", "X2"]).replace(
        "## Interview Responses", OPEN.format(n=1) + OPEN.format(n=2) + "## Interview Responses")
    paths = []
    for name, answer in (("base", None), ("ours", "X1"), ("theirs", "X2")):
        spec = os.path.join(tmp, name, "specs", "b")
        genspec.write_spec(spec, text)
        if answer is not None:
            with contextlib.redirect_stdout(io.StringIO()):
                main(["--root", os.path.join(tmp, name), "record-answer", spec,
                      "--decision-id", answer, "--answer", "A"])
        paths.append(os.path.join(spec, ".progress.md"))
    return paths[0], paths[1], paths[2]


def _validation_cpu(merged: bytes, runs: int) -> float:
    """Median CPU seconds of `validate_progress_bytes` on the merged file, in this process."""
    from mdgrill.checks.spec import validate_progress_bytes

    times = []
    for _ in range(runs):
        start = time.process_time()
        validate_progress_bytes(merged, "specs/b/.progress.md")
        times.append(time.process_time() - start)
    return statistics.median(times)


def _instructions(argv: list[str], cwd: str, env: dict[str, str]) -> int:
    """The instructions one run of `argv` executes, as valgrind's cachegrind counts them."""
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([0-9,]+)", proc.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind: {proc.stderr[-500:]}")
    return int(found.group(1).replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--baseline-rev", default=None,
                    help="time also mdgrill's src/ at this revision, as the before")
    ap.add_argument("--instructions", action="store_true",
                    help="count the instructions of one run of each (needs valgrind)")
    ap.add_argument("--dev-venv", action="store_true",
                    help="time this venv's (editable) mdgrill, not an installed copy")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-merge-")
    try:
        if opts.dev_venv:
            compile_packages(tmp)
            python, child_env = sys.executable, CHILD_ENV
        else:
            python = installed.install_fresh(tmp)[1]
            child_env = installed.CHILD_ENV
        subprocess.run(["git", "init", "-q", tmp], check=True, env=child_env)
        base, ours, theirs = _sides(tmp)
        work = os.path.join(tmp, "work.md")
        mine: list[float] = []
        cpus: list[float] = []
        gits: list[float] = []
        before: list[tuple[float, float]] = []
        # both as `python -m mdgrill`, so the before and the now start up the same way
        merge = [python, "-m", "mdgrill", "merge-file", base, work, theirs,
                 "specs/b/.progress.md"]
        old_env = dict(child_env)
        if opts.baseline_rev is not None:
            old_env["PYTHONPATH"] = baseline_source(tmp, opts.baseline_rev)
        for env in ([child_env, old_env] if opts.baseline_rev is not None else [child_env]):
            shutil.copyfile(ours, work)  # a first run of each writes its bytecode
            timed_cpu(merge, tmp, env)
        for _ in range(opts.runs):
            if opts.baseline_rev is not None:
                shutil.copyfile(ours, work)
                before.append(timed_cpu(merge, tmp, old_env))
                with open(work, "rb") as handle:
                    old_merged = handle.read()
            shutil.copyfile(ours, work)
            wall, cpu = timed_cpu(merge, tmp, child_env)
            mine.append(wall)
            cpus.append(cpu)
            with open(work, "rb") as handle:
                merged = handle.read()
            if opts.baseline_rev is not None and merged != old_merged:
                raise SystemExit(f"the merge at {opts.baseline_rev} wrote other bytes")
            shutil.copyfile(ours, work)
            start = time.perf_counter()
            subprocess.run(["git", "merge-file", work, base, theirs], cwd=tmp,
                           capture_output=True, env=child_env)
            gits.append(time.perf_counter() - start)
        floor = statistics.median(timed_cpu([python, "-c", "pass"], tmp, child_env)[1]
                                  for _ in range(opts.runs))
        size = os.path.getsize(ours)
        median = statistics.median(mine)
        print(f"merge-file of a 1,000-round file ({size:,} bytes), {opts.runs} runs; load "
              f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
              f"{'this (editable) venv' if opts.dev_venv else 'an installed copy'}")
        print(f"  mdgrill merge-file  median {ms(median)}  min {ms(min(mine))}   CPU median "
              f"{ms(statistics.median(cpus))}  min {ms(min(cpus))}")
        if before:
            old_wall = statistics.median(w for w, _ in before)
            print(f"  at {opts.baseline_rev:>10}       median {ms(old_wall)}  min "
                  f"{ms(min(w for w, _ in before))}   CPU median "
                  f"{ms(statistics.median(c for _, c in before))}  min "
                  f"{ms(min(c for _, c in before))}  (same bytes written)")
        print(f"  of which at least: `python -c pass` CPU {ms(floor)}, validating the merged "
              f"result (in process) CPU {ms(_validation_cpu(merged, opts.runs))}")
        print(f"  git merge-file      median {ms(statistics.median(gits))}  (same files)")
        if opts.instructions:
            runs = [("mdgrill merge-file", child_env), ("python -c pass", child_env)]
            if opts.baseline_rev is not None:
                runs.insert(1, (f"at {opts.baseline_rev}", old_env))
            for label, env in runs:
                shutil.copyfile(ours, work)
                argv = [python, "-c", "pass"] if label.startswith("python") else merge
                print(f"  {label:<19} {_instructions(argv, tmp, env) / 1e6:,.1f} M instructions "
                      "(cachegrind)")
        verdict = "ok" if median <= BUDGET else "OVER BUDGET"
        print(f"  budget {ms(BUDGET)}: {verdict}")
        return 0 if median <= BUDGET else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
