"""`mdgrill drift` speed (issue 36): 300 bindings in a 3,000-file repository, budget <= 2 s.

    .venv/bin/python bench/bench_drift.py [--files 3000] [--bindings 300] [--runs 5]
    .venv/bin/python bench/bench_drift.py --big      # 30,000 files

A repository of `--files` Python modules (three functions and `--functions` more, ~170
lines each) is committed; one approved
spec binds 30 decisions to 10 symbols each (30 `bind` commits, so 30 binding commits). Then a
commit touches 10% of the files: in a third of the bound files a neighbour function changes
(quiet), in a third the bound function is reformatted (quiet), and five bound functions change
(red). Measured, median of `--runs`:

- `mdgrill drift --json` as a user runs it (a whole process), which fingerprints again only
  the targets in files git says changed since their binding;
- the baseline, in one process: read every bound file and fingerprint every target each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def mdgrill_command() -> list[str]:
    """The mdgrill beside this interpreter (the venv's), else the module."""
    beside = os.path.join(os.path.dirname(sys.executable), "mdgrill")
    return [beside] if os.path.exists(beside) else [sys.executable, "-m", "mdgrill"]

CHILD_ENV = dict(os.environ)
for _name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "PYTHONDONTWRITEBYTECODE"):
    CHILD_ENV.pop(_name, None)
CHILD_ENV.update({"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
                  "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"})
SPEC = "specs/pricing"
DECISIONS = 30


EXTRA = 40  # more functions per module (--functions): a bound file of ~170 lines


def module(index: int, variant: str = "") -> str:
    body = {"": "    return price * 0.9\n", "reformat": "    return price*0.9  # same\n",
            "red": "    return price * 0.8\n"}
    neighbour = "0.25" if variant == "neighbour" else "0.2"
    return (f'"""Module {index}."""\n\n\ndef f0(price):\n{body.get(variant, body[""])}\n\n'
            f"def f1(price):\n    return price * {neighbour}\n\n\n"
            f"def f2(price):\n    return price + {index}\n"
            + "".join(f"\n\ndef g{n}(items):\n    total = 0\n    for item in items:\n"
                      f"        total += item * {n}\n    return total\n"
                      for n in range(EXTRA)))


def run(repo: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), cwd=repo, env=CHILD_ENV, capture_output=True, text=True,
                          timeout=600)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stdout}{proc.stderr}")
    return proc


def build(repo: str, files: int, bindings: int) -> list[str]:
    """The repository, the spec and its bindings; returns the bound targets."""
    mdgrill = mdgrill_command()
    run(repo, "git", "init", "-q", "-b", "main")
    for index in range(files):
        folder = os.path.join(repo, "pkg", f"d{index // 500:03d}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"m{index:05d}.py"), "w") as handle:
            handle.write(module(index))
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "code")
    ids = [f"D{i}" for i in range(1, DECISIONS + 1)]
    run(repo, *mdgrill, "init", SPEC, "--goal", "Prices.")
    run(repo, *mdgrill, "begin-interview", SPEC, "--phase", "requirements",
        "--interview-id", "r1")
    for start in range(0, len(ids), 4):
        batch = ids[start:start + 4]
        flags = [x for i in batch for x in ("--decision-id", i)]
        run(repo, *mdgrill, "open-frontier", SPEC, "--round", str(start // 4 + 1), *flags)
        for node_id in batch:
            run(repo, *mdgrill, "record-answer", SPEC, "--decision-id", node_id, "--answer",
                f"Answer {node_id}")
    run(repo, *mdgrill, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "x")
    run(repo, *mdgrill, "confirm", SPEC, "--decision-id", "C1", "--source",
        "approve-and-delegate")
    targets = [f"pkg/d{i // 500:03d}/m{i:05d}.py::f0" for i in range(bindings)]
    per = max(1, bindings // DECISIONS)
    for n, node_id in enumerate(ids):
        chunk = targets[n * per:(n + 1) * per]
        if chunk:
            run(repo, *mdgrill, "bind", SPEC, "--decision-id", node_id, *chunk)
    # the change: 10% of the files, a third of the bound ones quiet-neighbour, a third
    # reformatted, five red
    for index in range(0, files, 10):
        variant = "neighbour"
        if index < bindings:
            variant = ("neighbour", "reformat", "neighbour")[index % 3]
            if index in (0, 10, 20, 30, 40):
                variant = "red"
        path = os.path.join(repo, "pkg", f"d{index // 500:03d}", f"m{index:05d}.py")
        with open(path, "w") as handle:
            handle.write(module(index, variant))
    run(repo, "git", "commit", "-q", "-am", "change 10% of the files")
    return targets


def baseline(repo: str) -> int:
    """Every bound file read and every target fingerprinted again; returns the red count."""
    from mdgrill.core import bindings, fingerprints
    from mdgrill.formats.progress import read_progress

    with open(os.path.join(repo, SPEC, ".progress.md"), "rb") as handle:
        prog = read_progress(handle.read(), SPEC)
    red = 0
    for binding in bindings.read_bindings(prog.blocks).values():
        target = fingerprints.parse_target(binding.target)
        with open(os.path.join(repo, target.path), "rb") as handle:
            found = fingerprints.fingerprint(target, handle.read())
        red += found != binding.fingerprint
    return red


def main() -> int:
    global EXTRA
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--bindings", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big", action="store_true", help="30,000 files")
    parser.add_argument("--functions", type=int, default=40,
                        help="extra functions per module (default 40: ~170 lines)")
    args = parser.parse_args()
    EXTRA = args.functions
    files = 30000 if args.big else args.files
    folder = tempfile.mkdtemp(prefix="bench-drift-")
    try:
        start = time.perf_counter()
        build(folder, files, args.bindings)
        print(f"built {files:,} files, {args.bindings} bindings in "
              f"{time.perf_counter() - start:.1f} s")
        times = []
        for _ in range(max(1, args.runs)):
            start = time.perf_counter()
            proc = run(folder, *mdgrill_command(), "--json", "drift", check=False)
            times.append(time.perf_counter() - start)
        result = json.loads(proc.stdout)
        assert proc.returncode == 1 and result["drifted"] == 5, proc.stdout[:500]
        inside = []
        from mdgrill.services.bound_targets import all_specs, drift

        for _ in range(max(1, args.runs)):
            start = time.perf_counter()
            found = drift(all_specs(folder), folder)
            inside.append(time.perf_counter() - start)
        assert sum(f.red for f in found) == 5
        base = []
        for _ in range(max(1, args.runs)):
            start = time.perf_counter()
            red = baseline(folder)
            base.append(time.perf_counter() - start)
        assert red == 5, red
        print(f"mdgrill drift (process): median {statistics.median(times):.3f} s over "
              f"{len(times)} runs (budget 2 s), {result['drifted']} drifted of "
              f"{result['bindings']}")
        print(f"drift (in-process): median {statistics.median(inside):.3f} s")
        print(f"baseline (in-process, every bound file fingerprinted): median "
              f"{statistics.median(base):.3f} s")
        return 0 if statistics.median(times) <= 2.0 else 1
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(folder)


if __name__ == "__main__":
    sys.exit(main())
