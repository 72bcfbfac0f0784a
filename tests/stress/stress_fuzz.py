"""The fuzz tests at 10,000 examples per test (>= 20,000 inputs per file kind). Not collected
by `pytest -q`; run with `MDGRILL_STRESS=1 pytest -n 0 -s tests/stress/stress_fuzz.py`."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("MDGRILL_STRESS") != "1",
                                reason="stress run: set MDGRILL_STRESS=1")

FUZZ = Path(__file__).resolve().parents[1] / "test_fuzz.py"


def test_fuzz_10000_per_test(tmp_path: Path) -> None:
    env = {**os.environ, "MDGRILL_FUZZ_EXAMPLES": os.environ.get("MDGRILL_FUZZ_EXAMPLES",
                                                                 "10000")}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--basetemp", str(tmp_path / "t"), str(FUZZ)], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    print(proc.stdout[-2000:])
    print(f"\nSTRESS fuzz: examples/test={env['MDGRILL_FUZZ_EXAMPLES']}, "
          f"seconds={time.perf_counter() - started:.1f}")
    assert proc.returncode == 0, proc.stdout[-5000:]
