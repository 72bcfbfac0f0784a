"""Run one test many times in a row and count its failures (is it flaky under load?).

    nice -n 10 .venv/bin/python bench/repeat.py 50 \
        tests/test_reliability.py::test_crash_safety_confirm

Each run is its own `pytest -n 0` process (a fresh interpreter, fresh temp folders); the
output of every failing run is kept in `.ci/artifacts/repeat/` for a look afterwards. Stops
early after `--budget` seconds, saying how many runs it did.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="how many runs")
    parser.add_argument("test", help="a pytest node ID")
    parser.add_argument("--budget", type=float, default=3600.0,
                        help="stop starting runs after this many seconds (default 3600)")
    args = parser.parse_args(argv)
    keep = Path(".ci/artifacts/repeat")
    keep.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    passed = failed = 0
    durations: list[float] = []
    for i in range(args.count):
        if time.monotonic() - started > args.budget:
            break
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                               "no:cacheprovider", args.test], capture_output=True, text=True)
        durations.append(time.monotonic() - t0)
        if proc.returncode == 0:
            passed += 1
        else:
            failed += 1
            name = args.test.rsplit("::", 1)[-1]
            (keep / f"{name}-{i}.log").write_text(proc.stdout + proc.stderr)
        print(f"run {i + 1}: {'pass' if proc.returncode == 0 else 'FAIL'} "
              f"({durations[-1]:.1f} s)", flush=True)
    runs = passed + failed
    print(f"{args.test}: {runs} runs, {passed} passed, {failed} failed; "
          f"median {sorted(durations)[len(durations) // 2]:.1f} s, "
          f"max {max(durations):.1f} s" if durations else "no run")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
