"""Merging generated pairs of branches from one base (issue 17's property): whatever the two
sides did with the verbs, the merge keeps every block and node of both exactly once (or
says it cannot, or names the decision answered two ways), its seal matches, and `validate`
passes. The verbs run in this process (the MCP server's way) to keep the examples fast."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import validate_progress_bytes
from mdgrill.cli.main import main
from mdgrill.core.history import log_version, merge_lost_block
from mdgrill.core.merge import merge_progress


def mdgrill(root: Path, *argv: str) -> dict[str, object]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["--json", "--root", str(root), *argv])
    return json.loads(out.getvalue().strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("base")
    os.environ.setdefault("GIT_AUTHOR_NAME", "Ana")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "ana@example.com")
    spec = str(root / "specs" / "a")
    mdgrill(root, "init", spec, "--goal", "Promo codes")
    for i in (1, 2, 3):
        mdgrill(root, "node", "add", spec, f"D{i}", "--title", f"Question {i}?", "--option",
                "A", "--option", "B", "--recommend", "1")
    mdgrill(root, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    mdgrill(root, "ask", spec)  # round 1 asks D1, D2, D3
    return root


OPS = st.lists(st.one_of(
    st.tuples(st.just("answer"), st.sampled_from(["D1", "D2", "D3"]),
              st.sampled_from(["A", "B", "in our own words"])),
    st.tuples(st.just("node"), st.sampled_from(["Who?", "When?", "Where?"]), st.just("")),
    st.tuples(st.just("ask"), st.just(""), st.just(""))), max_size=5)


def _side(base: Path, to: Path, ops: list[tuple[str, str, str]]) -> str:
    shutil.copytree(base, to)
    spec = str(to / "specs" / "a")
    for op, a, b in ops:
        if op == "answer":
            mdgrill(to, "record-answer", spec, "--decision-id", a, "--answer", b)
        elif op == "node":
            mdgrill(to, "node", "add", spec, "--title", a, "--option", "A", "--option", "B")
        else:
            mdgrill(to, "ask", spec)
    return (to / "specs" / "a" / ".progress.md").read_text(encoding="utf-8")


# MDGRILL_MERGE_EXAMPLES=400 for a longer run (seen: 400 pass in ~6 s)
@settings(max_examples=int(os.environ.get("MDGRILL_MERGE_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ours_ops=OPS, theirs_ops=OPS)
def test_a_merge_keeps_both_sides_or_says_why(base: Path, tmp_path: Path,
                                              ours_ops: list[tuple[str, str, str]],
                                              theirs_ops: list[tuple[str, str, str]]) -> None:
    where = Path(tempfile.mkdtemp(dir=tmp_path))
    base_text = (base / "specs" / "a" / ".progress.md").read_text(encoding="utf-8")
    ours = _side(base, where / "ours", ours_ops)
    theirs = _side(base, where / "theirs", theirs_ops)
    merged = merge_progress(base_text, ours, theirs, "p.md")
    if merged.text is None:
        assert merged.reason  # it says why, and the caller leaves git's conflict
        return
    if merged.conflicts:
        assert merged.text.count("<<<<<<< ours") == len(merged.conflicts)
        for decision, mine, their in merged.conflicts:
            assert mine != their and f"-> {their}" in merged.text, decision
        return
    assert not [d for d in validate_progress_bytes(merged.text.encode(), "p.md")
                if d.severity == "error"]  # the seal matches, the record holds
    result = log_version(merged.text.encode(), "p.md")
    for side in (ours, theirs):
        assert merge_lost_block(log_version(side.encode(), "p.md"), result) is None
        for line in side.splitlines():
            if line.startswith("### D"):  # every node of both sides, exactly once
                assert merged.text.count(line + "\n") == 1, line
