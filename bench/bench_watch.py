"""Watch latency: from the write of a file to the report line, per save style.

    .venv/bin/python bench/bench_watch.py [--saves 200] [--rounds 1000] [--debounce 40]

A spec of N rounds (text generated directly, log digest from mdgrill.progress.log_digest) is
saved 200 times in each style (in place, temp-file + rename, JetBrains backup-and-rename),
alternating a valid and an invalid front matter so that every save yields exactly one report
(`problem` or `fixed`). The latency runs from just before the first write of the save to the
moment the report line is written (coalescing and the debounce included). A bare watchdog
handler on the same folder, in the same run, timestamps the first raw inotify event of each
save. Budget: p50 <= 100 ms, p99 <= 300 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import queue
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from mdgrill.formats.progress import log_digest
from mdgrill.services.watch import Watcher, format_report

BUDGET_P50 = 100.0
BUDGET_P99 = 300.0


def make_progress(rounds: int, pending: str = "") -> str:
    blocks = [f"### Requirements Grill - Round {i}\n- Asked: D{i}\n"
              f"- Decisions: D{i} -> answer number {i}, with a few more words in it\n"
              f"- Facts resolved: none\n- Out of scope: none\n- Domain language: none\n"
              f"- Frontier after round: D{i + 1}\n" for i in range(1, rounds + 1)]
    log = "\n".join(blocks)
    return (f"---\nmdgrill: 1\nspec: big\ngoal: A big spec\nphase: requirements\n"
            f"mode: interactive\nrequired_sections: []\ninterview:\n  id: req-1\n"
            f"  phase: requirements\n  round: {rounds}\n  status: collecting\n"
            f"  context_digest: {'ab' * 32}\n  context: []\n  asked: [D1]\n"
            f"  pending: [{pending}]\n  approach: null\n  confirmation: null\n"
            f"  bypass_reason: null\n  assumptions: []\nskills: []\nlog:\n  blocks: {rounds}\n"
            f"  sha256: {log_digest(log)}\n---\n# Big\n\n## Goal\n\nA big spec\n\n"
            f"## Design Tree\n\n## Interview Responses\n\n{log}")


def save_in_place(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def save_rename(path: str, data: bytes) -> None:
    temp = path + ".tmp4913"
    with open(temp, "wb") as handle:
        handle.write(data)
    os.replace(temp, path)


def save_jetbrains(path: str, data: bytes) -> None:
    temp, old = path + "___jb_tmp___", path + "___jb_old___"
    with open(temp, "wb") as handle:
        handle.write(data)
    os.rename(path, old)
    os.rename(temp, path)
    os.unlink(old)


STYLES: dict[str, Callable[[str, bytes], None]] = {
    "in-place": save_in_place, "rename": save_rename, "jetbrains": save_jetbrains}


class RawHandler(FileSystemEventHandler):
    """A bare handler: the time of every event that names .progress.md."""

    def __init__(self) -> None:
        self.times: queue.Queue[float] = queue.Queue()

    def on_any_event(self, event: FileSystemEvent) -> None:
        now = time.perf_counter()
        names = (os.fsdecode(event.src_path), os.fsdecode(getattr(event, "dest_path", "") or ""))
        if any(".progress.md" in n for n in names):
            self.times.put(now)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def describe(name: str, values: list[float]) -> str:
    return (f"{name:<22} n={len(values):<4} min={min(values):6.1f}  p50={pct(values, 50):6.1f}  "
            f"p90={pct(values, 90):6.1f}  p99={pct(values, 99):6.1f}  max={max(values):6.1f} ms")


def histogram(values: list[float]) -> str:
    edges = [10, 20, 40, 60, 80, 100, 150, 200, 300, float("inf")]
    counts = [0] * len(edges)
    for v in values:
        counts[next(i for i, e in enumerate(edges) if v <= e)] += 1
    out = []
    low = 0.0
    for edge, count in zip(edges, counts, strict=True):
        label = f"{low:>4.0f}-{edge:<4.0f}" if edge != float("inf") else f"{low:>4.0f}+    "
        bar = "#" * round(count / max(len(values), 1) * 60)
        out.append(f"    {label} ms {bar} {count}")
        low = edge
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--debounce", type=int, default=40, help="ms")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="mdgrill-bench-watch-")
    try:
        subprocess.run(["git", "init", "-q", work], check=True)
        folder = os.path.join(work, "specs", "big")
        os.makedirs(folder)
        path = os.path.join(folder, ".progress.md")
        good = make_progress(args.rounds).encode()
        bad = make_progress(args.rounds, pending="Z9").encode()
        with open(path, "wb") as handle:
            handle.write(good)
        print(f"spec: {args.rounds} rounds, {len(good):,} bytes; debounce {args.debounce} ms; "
              f"{args.saves} saves per style")

        reports: queue.Queue[tuple[float, dict[str, object]]] = queue.Queue()
        sink_out = io.StringIO()

        def sink(report: dict[str, object]) -> None:
            line = json.dumps(report) + "\n" + format_report(report) + "\n"
            sink_out.write(line)  # the report line, as the CLI would write it
            reports.put((time.perf_counter(), report))

        watcher = Watcher(work, work, sink, debounce=args.debounce / 1000)
        raw = RawHandler()
        bare = Observer()
        bare.schedule(raw, folder, recursive=False)
        bare.start()
        watcher.start()
        while not reports.empty():
            reports.get()
        results: dict[str, tuple[list[float], list[float]]] = {}
        state = False  # the file on disk is valid
        for style, save in STYLES.items():
            lat: list[float] = []
            inotify: list[float] = []
            for _ in range(args.saves):
                state = not state
                data = bad if state else good
                want = "problem" if state else "fixed"
                while not raw.times.empty():
                    raw.times.get()
                t0 = time.perf_counter()
                save(path, data)
                while True:
                    at, report = reports.get(timeout=10)
                    if report["kind"] == want:
                        break
                lat.append((at - t0) * 1000)
                first = raw.times.get(timeout=5)
                inotify.append((first - t0) * 1000)
                time.sleep(0.005)  # let the snapshot write of a valid save finish
            results[style] = (lat, inotify)
        watcher.stop()
        bare.stop()
        bare.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ok = True
    print("\nwrite -> report line (coalescing + debounce + validation included):")
    for style, (lat, _) in results.items():
        print(describe(style, lat))
        print(histogram(lat))
        ok = ok and pct(lat, 50) <= BUDGET_P50 and pct(lat, 99) <= BUDGET_P99
    print("\nwrite -> first raw inotify event (bare watchdog handler, same run):")
    for style, (_, inotify) in results.items():
        print(describe(style, inotify))
    every = [v for lat, _ in results.values() for v in lat]
    print(f"\nall styles: p50={pct(every, 50):.1f} ms  p99={pct(every, 99):.1f} ms  "
          f"mean={statistics.mean(every):.1f} ms")
    print(f"budget p50 <= {BUDGET_P50:.0f} ms, p99 <= {BUDGET_P99:.0f} ms: "
          f"{'met' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
