"""`validate` of generated 1k/10k/100k-round files vs mistune's AST of the 10k file (issue 2).

    .venv/bin/python bench/bench_validate.py [--runs 5] [--sizes 1000,10000,100000]

Prints the sizes, the library and CLI figures, mistune's figure measured in the same run,
the ratio (target >= 20x on the 10k file, ~5 MB) and the cost per round (linearity).
Medians. The CLI figure is a fresh `mdgrill validate` process of this checkout installed
(not editable) into a temporary venv, start-up included.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genspec  # noqa: E402
from installed import CHILD_ENV, install_fresh  # noqa: E402


def median_time(fn: object, runs: int) -> float:
    return median_times([fn], runs)[0]


def median_times(fns: list[object], runs: int) -> list[float]:
    """Median seconds of each function, the functions taking turns run by run (a slow
    spell of the machine then falls on all of them alike)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()  # type: ignore[operator]
            times[i].append(time.perf_counter() - start)
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
    opts = ap.parse_args()
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
    size, lib, cli, mist_hand, scan = hand
    print(f"\nhand-written (no seal: every block read), 10,000 rounds and 10,000 nodes, "
          f"{size:,} bytes: library {lib * 1000:.0f} ms, CLI {cli * 1000:.0f} ms, mistune "
          f"{mist_hand * 1000:.0f} ms: mistune / mdgrill library {mist_hand / lib:.1f}x, CLI "
          f"{mist_hand / cli:.1f}x (issue 15's target >= 50x)")
    print(f"the least a line scanner does (decode, split, look at each line once): "
          f"{scan * 1000:.0f} ms; mdgrill's library costs {lib / scan:.1f} such passes, "
          f"mistune {mist_hand / scan:.0f}")
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


def hand_written(tmp: str, mdgrill: str, runs: int) -> tuple[int, float, float, float, float]:
    """A file mdgrill did not seal (written by hand or by another tool): the log's blocks
    are not trusted, so each is read; its size, library, CLI, mistune and line-scan times."""
    import re

    import mistune

    text = re.sub(r"\nlog:\n  blocks: \d+\n  sha256: [0-9a-f]+\n", "\n",
                  genspec.validate_text(10_000, 10_000))
    path = genspec.write_spec(os.path.join(tmp, "hand"), text)
    argv = [mdgrill, "validate", os.path.dirname(path)]
    md = mistune.create_markdown(renderer=None)
    lib, cli, mist, scan = median_times([
        library_validate(path),
        lambda: subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=CHILD_ENV),
        lambda: md(text), line_scan(path)], runs)
    return os.path.getsize(path), lib, cli, mist, scan


if __name__ == "__main__":
    sys.exit(main())
