"""The merge driver's speed (issue 37 item 5): `mdgrill merge-file` of a 1,000-round file.

    .venv/bin/python bench/bench_merge.py [--runs 7]

The base is `genspec.progress_text(4000)` (1,000 closed rounds of four decisions, 4,000
design-tree nodes, ~1.3 MB) with an open round asking two questions; ours answers one, theirs
the other. Each run times `mdgrill merge-file BASE OURS THEIRS PATH` (a fresh copy of OURS)
against `git merge-file` of the same three files, interleaved in the same run. Children run as
on an installed machine (byte-compiled packages, see bench_git.py). Budget: median <= 0.15 s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genspec  # noqa: E402
from bench_git import CHILD_ENV, compile_packages, ms  # noqa: E402

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mdgrill", default=os.path.join(os.path.dirname(sys.executable),
                                                      "mdgrill"))
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-merge-")
    try:
        compile_packages(tmp)
        subprocess.run(["git", "init", "-q", tmp], check=True, env=CHILD_ENV)
        base, ours, theirs = _sides(tmp)
        work = os.path.join(tmp, "work.md")
        mine: list[float] = []
        gits: list[float] = []
        for _ in range(opts.runs):
            for argv, into in (([opts.mdgrill, "merge-file", base, work, theirs,
                                 "specs/b/.progress.md"], mine),
                               (["git", "merge-file", work, base, theirs], gits)):
                shutil.copyfile(ours, work)
                start = time.perf_counter()
                proc = subprocess.run(argv, cwd=tmp, capture_output=True, env=CHILD_ENV)
                into.append(time.perf_counter() - start)
                if argv[0] == opts.mdgrill and proc.returncode != 0:
                    raise SystemExit(f"merge-file failed: {proc.stderr.decode()[:500]}")
        size = os.path.getsize(ours)
        median = statistics.median(mine)
        print(f"merge-file of a 1,000-round file ({size:,} bytes), {opts.runs} runs")
        print(f"  mdgrill merge-file  median {ms(median)}  min {ms(min(mine))}")
        print(f"  git merge-file      median {ms(statistics.median(gits))}  (same files)")
        verdict = "ok" if median <= BUDGET else "OVER BUDGET"
        print(f"  budget {ms(BUDGET)}: {verdict}")
        return 0 if median <= BUDGET else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
