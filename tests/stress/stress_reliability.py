"""Full-size crash and concurrency runs (issue 6). Not collected by `pytest -q`; run with
`MDGRILL_STRESS=1 pytest -n 0 -s tests/stress/stress_reliability.py` (figures are printed)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import test_reliability as reliability  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("MDGRILL_STRESS") != "1",
                                reason="stress run: set MDGRILL_STRESS=1")


def _report(name: str, started: float, **figures: object) -> None:
    shown = ", ".join(f"{k}={v}" for k, v in figures.items())
    print(f"\nSTRESS {name}: {shown}, seconds={time.perf_counter() - started:.1f}")


def test_crash_record_answer_and_term_add_1000(tmp_path: Path) -> None:
    started = time.perf_counter()
    stats = reliability.crash_loop(tmp_path, kills=1000, seed=1000)
    _report("crash record-answer+term add", started, runs=stats.runs, killed=stats.killed,
            completed=stats.completed, killed_after_write=stats.killed_but_written,
            temp_file_left_by_kill=stats.temps_seen)


def test_crash_confirm(tmp_path: Path) -> None:
    started = time.perf_counter()
    stats = reliability.confirm_crash_loop(tmp_path, kills=150, seed=150)
    _report("crash confirm", started, runs=stats.runs, killed=stats.killed,
            completed=stats.completed, killed_after_write=stats.killed_but_written,
            commit_retried=stats.commits_retried)


def test_concurrency_8_by_50(tmp_path: Path) -> None:
    started = time.perf_counter()
    result = reliability.concurrent_answers(tmp_path, workers=8, calls=50)
    _report("concurrency 8x50 record-answer", started, **result)


def test_concurrent_term_add_pairs(tmp_path: Path) -> None:
    started = time.perf_counter()
    reliability.concurrent_terms(tmp_path, rounds=25)
    _report("concurrent term add pairs", started, pairs=25)


def test_editor_race_20_runs(tmp_path: Path) -> None:
    """20 runs of 10 editor saves during 8x5 record-answer: how many saves or answers the
    remaining instant at the rename loses, and how many of those watch reported."""
    started = time.perf_counter()
    totals = {"answers_lost": 0, "edits_lost": 0, "reported": 0}
    for run in range(20):
        result = reliability.editor_race(tmp_path / f"r{run}", workers=8, calls=5, edits=10,
                                         seed=run)
        for key in totals:
            totals[key] += result[key]
    _report("editor race 20x(10 saves, 40 answers)", started, saves=200, answers=800, **totals)
