"""A long-lived process reuses a spec's parse only for the very bytes it came from (issue 37,
goal 2: "the server keeps the parsed spec between calls … never a stale read").

Driven through the library API in one process, as `mdgrill mcp` drives it: a hand edit that
keeps the file's size and modification time is still seen by the next read, and a write
lands on top of it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from test_reliability import MDGRILL, make_repo

import mdgrill

SPEC = "specs/c"


def _spec(tmp_path: Path) -> tuple[Path, mdgrill.Spec]:
    repo, env = make_repo(tmp_path)
    for argv in (["init", SPEC, "--goal", "Cache"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
                  "--decision-id", "D2", "--decision-id", "D3"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    return repo / SPEC / ".progress.md", mdgrill.Spec.open(repo / SPEC)


def _same_size_same_time(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (as long) and put the modification time back: only the bytes
    tell the edit apart."""
    assert len(old) == len(new)
    before = os.stat(path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size


def test_a_read_after_a_hand_edit_sees_the_edit(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    assert spec.status()["goal"] == "Cache"  # parsed, and kept for these bytes
    assert spec.status()["goal"] == "Cache"  # the same bytes: the kept parse
    _same_size_same_time(path, "goal: Cache", "goal: Cachy")
    assert spec.status()["goal"] == "Cachy"


def test_a_write_lands_on_a_hand_edit_made_since_the_last_read(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    spec.record_answer("D1", "Everyone")
    assert spec.status()["pending"]  # D2 and D3 are still open: read from the kept parse
    _same_size_same_time(path, "# C\n", "# K\n")  # the title, outside the interview's context
    spec.record_answer("D2", "Members")
    text = path.read_text(encoding="utf-8")
    assert "\n# K\n" in text  # the hand edit is kept
    assert "- Decisions: D1 -> Everyone" in text and "- Decisions: D2 -> Members" in text
    assert spec.validate() == []


def test_what_a_write_leaves_reads_as_a_fresh_parse_reads_it(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    spec.record_answer("D1", "Everyone")
    kept = spec.ledger().to_json()  # from the parse the write made of what it wrote
    fresh = mdgrill.Spec.open(path.parent)
    from mdgrill.shell.session import PARSED

    PARSED.clear()  # nothing kept: the file is parsed again
    assert fresh.ledger().to_json() == kept
    kept_status = spec.status().to_json()
    PARSED.clear()
    assert fresh.status().to_json() == kept_status
