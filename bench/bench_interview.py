"""Wall time and memory of the hot interview verbs as fresh processes (issue 3, Speed).

    .venv/bin/python bench/bench_interview.py [--runs 15]

`record-answer` and `open-frontier` at 10 and at 10,000 recorded decisions, against
`python3 -c pass` (the one on PATH and this interpreter) and against `bench/json_baseline.py`
doing the same job on a JSON state file, all measured in this run (medians). The JSON state
holds what the `.progress.md` holds: interview, answers, rounds and the design tree, and its
`open-frontier` records the closed round's frontier as mdgrill does. "bare json" is the same
script on a state without the tree (no frontier to compute), shown beside it. Then one
`open-frontier` with 1,000 and 10,000 IDs (linearity) and the peak RSS of the child at
10,000 decisions. Budgets: <= 2x `python -c pass` at 10, <= 3x at 10,000, <= 1.5x the JSON
script at both; memory < 60 MB.
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

BASELINE = os.path.join(HERE, "json_baseline.py")


def run_once(argv: list[str], before: object = None) -> tuple[float, int, int]:
    """(seconds, peak RSS in KB, exit code) of one child process."""
    if callable(before):
        before()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=CHILD_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])}... failed ({proc.returncode}): "
                         f"{err.decode(errors='replace')[:500]}")
    return elapsed, usage.ru_maxrss, proc.returncode


def medians(cases: list[tuple[list[str], object]], runs: int) -> list[tuple[float, int]]:
    """(median seconds, peak RSS in KB) of each (argv, before) case, the cases taking turns
    run by run, so that a slow spell of the machine falls on all of them alike."""
    times: list[list[float]] = [[] for _ in cases]
    peaks = [0] * len(cases)
    for argv, before in cases:
        run_once(argv, before)  # warm the page cache
    for _ in range(runs):
        for i, (argv, before) in enumerate(cases):
            t, rss, _ = run_once(argv, before)
            times[i].append(t)
            peaks[i] = max(peaks[i], rss)
    return [(statistics.median(t), p) for t, p in zip(times, peaks, strict=True)]


def restorer(path: str):
    """Put back the file `path` from its pristine copy before each run."""
    def restore() -> None:
        shutil.copyfile(path + ".pristine", path)
    return restore


def generate(folder: str, size: int, pending: list[str]) -> None:
    """Write the spec and both JSON states of one case, each with a pristine copy.

    Run in a child process (`--generate`): the kernel counts the peak RSS of this process
    into every child it starts (ru_maxrss survives the exec), so this one stays small.
    """
    files = {genspec.write_spec(folder, genspec.progress_text(size, pending=pending)): None,
             os.path.join(folder, "state.json"): genspec.json_state(size, pending=pending),
             os.path.join(folder, "bare.json"): genspec.json_state(size, pending=pending,
                                                                  tree=False)}
    for path, text in files.items():
        if text is not None:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        shutil.copyfile(path, path + ".pristine")


def generated(folder: str, size: int, pending: list[str]) -> int:
    """generate() in a child process; the size in bytes of the spec it wrote."""
    subprocess.run([sys.executable, __file__, "--generate", folder, str(size), *pending],
                   check=True)
    return os.path.getsize(os.path.join(folder, ".progress.md"))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--generate", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--mdgrill", help="an installed mdgrill to measure (default: install this "
                    "checkout, not editable, into a temporary venv)")
    opts = ap.parse_args()
    if opts.generate:
        folder, size, *pending = opts.generate
        generate(folder, int(size), pending)
        return 0
    runs = opts.runs
    path_python = shutil.which("python3") or "python3"
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-")
    if opts.mdgrill:
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        mdgrill, python = opts.mdgrill, sys.executable
    else:
        mdgrill, python = install_fresh(tmp)
    print(f"mdgrill: {mdgrill}\nPATH python3: {path_python}\nvenv python: {python}\n"
          f"runs per figure: {runs} (median)\n")

    (base_path, _), (base_venv, _) = medians([([path_python, "-c", "pass"], None),
                                              ([python, "-c", "pass"], None)], runs)
    print(f"baseline `python3 -c pass` (PATH):    {ms(base_path)}")
    print(f"baseline `python -c pass` (venv exe): {ms(base_venv)}\n")

    failures: list[str] = []
    try:
        rows = []
        for size in (10, 10_000):
            for verb in ("record-answer", "open-frontier"):
                pending = ["X1"] if verb == "record-answer" else []
                folder = os.path.join(tmp, f"{verb}-{size}")
                nbytes = generated(folder, size, pending)
                spec = os.path.join(folder, ".progress.md")
                state = os.path.join(folder, "state.json")
                bare = os.path.join(folder, "bare.json")
                rnd = -(-size // genspec.PER_ROUND)
                if verb == "record-answer":
                    md_argv = [mdgrill, "--json", "record-answer", folder, "--decision-id",
                               "X1", "--answer", "Use the magic link, valid 15 minutes"]
                    js_argv = [python, BASELINE, "record-answer", state, "X1",
                               "Use the magic link, valid 15 minutes"]
                    bare_argv = [python, BASELINE, "record-answer", bare, "X1",
                                 "Use the magic link, valid 15 minutes"]
                else:
                    md_argv = [mdgrill, "--json", "open-frontier", folder, "--round",
                               str(rnd + 1), "--decision-id", "X1", "--decision-id", "X2"]
                    js_argv = [python, BASELINE, "open-frontier", state, str(rnd + 1),
                               "X1", "X2"]
                    bare_argv = [python, BASELINE, "open-frontier", bare, str(rnd + 1),
                                 "X1", "X2"]
                (t_md, rss_md), (t_js, _), (t_bare, _) = medians(
                    [(md_argv, restorer(spec)), (js_argv, restorer(state)),
                     (bare_argv, restorer(bare))], runs)
                rows.append((verb, size, nbytes, t_md, t_js, t_bare, rss_md))
        print(f"{'verb':14} {'decisions':>9} {'file':>10} {'mdgrill':>10} {'json':>10} "
              f"{'bare json':>10} {'x PATH py':>9} {'x venv py':>9} {'x json':>7} "
              f"{'x bare json':>11} {'peak RSS':>9}")
        for verb, size, nbytes, t_md, t_js, t_bare, rss in rows:
            r_path, r_venv, r_js = t_md / base_path, t_md / base_venv, t_md / t_js
            print(f"{verb:14} {size:>9,} {nbytes:>10,} {ms(t_md):>10} {ms(t_js):>10} "
                  f"{ms(t_bare):>10} {r_path:>9.2f} {r_venv:>9.2f} {r_js:>7.2f} "
                  f"{t_md / t_bare:>11.2f} {rss / 1024:>7.1f}MB")
            limit = 2.0 if size == 10 else 3.0
            for name, ratio in (("PATH python3", r_path), ("venv python", r_venv)):
                if ratio > limit:
                    failures.append(f"{verb}@{size}: {ratio:.2f}x {name} -c pass > {limit}x")
            if r_js > 1.5:
                failures.append(f"{verb}@{size}: {r_js:.2f}x json script > 1.5x")
            if size == 10_000 and rss > 60 * 1024:
                failures.append(f"{verb}@{size}: peak RSS {rss / 1024:.1f} MB > 60 MB")

        print("\none open-frontier call with many IDs (spec with 10 decisions, nothing pending):")
        many = []
        for count in (1_000, 10_000):
            folder = os.path.join(tmp, f"many-{count}")
            generated(folder, 10, [])
            spec = os.path.join(folder, ".progress.md")
            ids = [f"Y{i}" for i in range(1, count + 1)]
            argv = [mdgrill, "--json", "open-frontier", folder, "--round", "4"]
            for i in ids:
                argv += ["--decision-id", i]
            state = os.path.join(folder, "state.json")
            (t_md, rss), (t_js, _) = medians(
                [(argv, restorer(spec)),
                 ([python, BASELINE, "open-frontier", state, "4", *ids], restorer(state))],
                max(5, runs // 3))
            many.append((count, t_md, t_js, rss))
            print(f"  {count:>6,} IDs: mdgrill {ms(t_md)}  json script {ms(t_js)}  "
                  f"ratio {t_md / t_js:.2f}  peak RSS {rss / 1024:.1f} MB")
        (c1, t1, _, _), (c2, t2, _, _) = many
        marginal = (t2 - t1) / (c2 - c1) * 1e6
        print(f"  marginal cost {marginal:.1f} us per ID; 10k/1k time ratio {t2 / t1:.2f} "
              f"(linear work above start-up: {(t2 - base_venv) / max(t1 - base_venv, 1e-9):.1f}x "
              "for 10x IDs)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    if failures:
        print("BUDGET MISSED:\n  " + "\n  ".join(failures))
        return 1
    print("all budgets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
