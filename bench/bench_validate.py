"""`validate` of generated 1k/10k/100k-round files vs mistune's AST of the 10k file (issue 2),
and of hand-written (unsealed) files of 1,000 and 10,000 rounds and nodes (issue 29).

    .venv/bin/python bench/bench_validate.py [--runs 5] [--sizes 1000,10000,100000]
        [--clock wall|cpu] [--mdgrill PATH]

Prints the sizes, the library and CLI figures, mistune's figure measured in the same run,
the ratio (target >= 20x on the 10k file, ~5 MB) and the cost per round (linearity).
Medians. The CLI figure is a fresh `mdgrill validate` process of this checkout installed
(not editable) into a temporary venv, start-up included.

The hand-written rows have no seal, so every block and node is read by the one parser
(there is no second, faster reading to skip them): the target is >= 20x mistune's AST of
the 10,000-round file, and 10,000 rounds costing about ten times 1,000 (linear).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genspec  # noqa: E402
from installed import CHILD_ENV, install_fresh  # noqa: E402


def median_time(fn: object, runs: int) -> float:
    return median_times([fn], runs)[0]


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (`--clock cpu`)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


CLOCK = {"wall": time.perf_counter, "cpu": cpu_seconds}
clock = time.perf_counter


def median_times(fns: list[object], runs: int) -> list[float]:
    """Median seconds of each function, the functions taking turns run by run (a slow
    spell of the machine then falls on all of them alike)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            start = clock()
            fn()  # type: ignore[operator]
            times[i].append(clock() - start)
    return [statistics.median(t) for t in times]


def library_validate(path: str) -> object:
    """`mdgrill validate`'s own work on one file: read, parse, every check."""
    from mdgrill.checks.spec import validate_progress_bytes

    def run() -> None:
        with open(path, "rb") as handle:
            diagnostics = validate_progress_bytes(handle.read(), path)
        assert not [d for d in diagnostics if d.severity == "error"], diagnostics[:3]
    return run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--nodes", type=int, default=1000, help="design tree size (default 1,000)")
    ap.add_argument("--mdgrill", help="an installed mdgrill to time (default: install this "
                    "checkout, not editable, into a temporary venv)")
    ap.add_argument("--clock", choices=sorted(CLOCK), default="wall",
                    help="wall time (default), or CPU time of the process and its children: "
                    "steadier on a machine that other jobs load")
    opts = ap.parse_args()
    global clock
    clock = CLOCK[opts.clock]
    print(f"clock: {opts.clock}")
    sizes = [int(s) for s in opts.sizes.split(",")]
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-validate-")
    rows = []
    try:
        if opts.mdgrill:
            CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
            mdgrill, python = opts.mdgrill, sys.executable
        else:
            mdgrill, python = install_fresh(tmp)
        start_up = median_time(lambda: subprocess.run([python, "-c", "pass"], env=CHILD_ENV),
                               opts.runs)
        print(f"mdgrill: {mdgrill}\n`python -c pass` of its venv: {start_up * 1000:.1f} ms")
        paths = {}
        for rounds in sizes:
            text = genspec.validate_text(rounds, opts.nodes)
            paths[rounds] = genspec.write_spec(os.path.join(tmp, f"r{rounds}"), text)
            print(f"generated {rounds:,} rounds, {opts.nodes:,} nodes: "
                  f"{len(text.encode()):,} bytes")
        mist = float("nan")
        for rounds in sizes:
            path = paths[rounds]
            cli_argv = [mdgrill, "validate", os.path.dirname(path)]

            def run_cli(argv: list[str] = cli_argv) -> None:
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=CHILD_ENV)
            probe = subprocess.run(cli_argv, capture_output=True, text=True, env=CHILD_ENV)
            if probe.returncode != 0:
                raise SystemExit(f"mdgrill validate failed: {probe.stdout}{probe.stderr}")
            fns = [library_validate(path), run_cli]
            if rounds == 10_000:  # mistune's figure comes from the same turns
                import mistune

                md = mistune.create_markdown(renderer=None)
                with open(path, encoding="utf-8") as handle:
                    text10k = handle.read()
                fns.append(lambda md=md, text=text10k: md(text))
            lib, cli, *rest = median_times(fns, opts.runs)
            mist = rest[0] if rest else mist
            rows.append((rounds, os.path.getsize(path), lib, cli, probe.returncode))
        hand = hand_written(tmp, mdgrill, opts.runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{'rounds':>8} {'bytes':>12} {'library':>10} {'CLI':>10} {'exit':>4} "
          f"{'us/round (lib)':>15}")
    for rounds, size, lib, cli, code in rows:
        print(f"{rounds:>8,} {size:>12,} {lib * 1000:>8.1f}ms {cli * 1000:>8.1f}ms {code:>4} "
              f"{lib / rounds * 1e6:>15.2f}")
    print(f"\nmistune.create_markdown(renderer=None) on the 10k file: {mist * 1000:.0f} ms")
    for rounds, _, lib, cli, _ in rows:
        if rounds == 10_000:
            print(f"ratio mistune / mdgrill (10k): library {mist / lib:.1f}x, CLI "
                  f"{mist / cli:.1f}x (target >= 20x)")
    print("\nhand-written (no seal: every block and node read), rounds = nodes:")
    print(f"{'rounds':>8} {'bytes':>12} {'library':>10} {'CLI':>10} {'us/round (lib)':>15}")
    for rounds, size, lib, cli in hand.rows:
        print(f"{rounds:>8,} {size:>12,} {lib * 1000:>8.0f}ms {cli * 1000:>8.0f}ms "
              f"{lib / rounds * 1e6:>15.2f}")
    big = hand.rows[-1]
    print(f"mistune on the {big[0]:,}-round hand-written file: {hand.mistune * 1000:.0f} ms: "
          f"mistune / mdgrill library {hand.mistune / big[2]:.1f}x, CLI "
          f"{hand.mistune / big[3]:.1f}x (target >= 20x)")
    if len(hand.rows) > 1:
        small = hand.rows[0]
        print(f"linearity: {big[0]:,} rounds cost {big[2] / small[2]:.1f}x {small[0]:,} "
              f"rounds (x{big[0] / small[0]:.0f} the size)")
    print(f"the least a line scanner does (decode, split, look at each line once): "
          f"{hand.scan * 1000:.0f} ms; mdgrill's library costs {big[2] / hand.scan:.1f} such "
          f"passes, mistune {hand.mistune / hand.scan:.0f}")
    return 0


def line_scan(path: str) -> object:
    """The floor of any line-by-line reader in Python: decode, split, one test per line."""
    def run() -> None:
        with open(path, "rb") as handle:
            lines = handle.read().decode("utf-8").split("\n")
        headings = 0
        for line in lines:
            if line.startswith("###"):
                headings += 1
        assert headings > 0
    return run


class Hand(NamedTuple):
    rows: list[tuple[int, int, float, float]]  # rounds, bytes, library, CLI
    mistune: float  # on the largest file
    scan: float  # the line-scan floor on the largest file


def hand_written(tmp: str, mdgrill: str, runs: int,
                 sizes: tuple[int, ...] = (1_000, 10_000)) -> Hand:
    """Files mdgrill did not seal (written by hand or by another tool): every block and node
    is read. Library, CLI, and (largest file) mistune and the line scan, taking turns."""
    import re

    import mistune

    md = mistune.create_markdown(renderer=None)
    rows = []
    mist = scan = float("nan")
    for rounds in sizes:
        text = re.sub(r"\nlog:\n  blocks: \d+\n  sha256: [0-9a-f]+\n", "\n",
                      genspec.validate_text(rounds, rounds))
        path = genspec.write_spec(os.path.join(tmp, f"hand{rounds}"), text)
        argv = [mdgrill, "validate", os.path.dirname(path)]
        fns = [library_validate(path),
               lambda argv=argv: subprocess.run(argv, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL, env=CHILD_ENV)]
        if rounds == sizes[-1]:
            fns += [lambda text=text: md(text), line_scan(path)]
        lib, cli, *rest = median_times(fns, runs)
        if rest:
            mist, scan = rest
        rows.append((rounds, os.path.getsize(path), lib, cli))
    return Hand(rows, mist, scan)


if __name__ == "__main__":
    sys.exit(main())
