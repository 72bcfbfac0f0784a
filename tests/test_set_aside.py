"""`artifact_gate.set_aside` (issue 37, goal 3): whether a `Reopened` block set an interview
aside, as `superseded_interviews` of the log's blocks says, with no heading read where the
log's text does not name the interview (begin-interview resuming a 10,000-round log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_scope import approved_spec

from mdgrill.core.artifact_gate import (
    check_phase_order,
    log_blocks,
    set_aside,
    superseded_interviews,
)
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Progress, read_progress


def _prog(path: str, text: str | None = None) -> Progress:
    data = Path(path).read_bytes() if text is None else text.encode("utf-8")
    return read_progress(data, path)


def test_an_interview_a_reopening_named_is_set_aside(repo: Path) -> None:
    spec = approved_spec(repo)
    spec.reopen(phase="requirements", reason="the user wants more")
    prog = _prog(spec.progress)
    found = superseded_interviews(log_blocks(prog, frozenset({"reopened"})))
    assert found == {"r1"}
    for interview_id in ("r1", "r2", "r", "r1 ", "C1", "Decisions"):
        assert set_aside(prog, interview_id) is (interview_id in found), interview_id
    with pytest.raises(GateRefusal) as info:
        check_phase_order(prog, "requirements", "r1")
    assert info.value.code == "INTERVIEW_SUPERSEDED"
    check_phase_order(prog, "requirements", "r2")  # a new ID begins


def test_an_id_named_in_the_log_outside_a_reopening_is_not_set_aside(repo: Path) -> None:
    spec = approved_spec(repo)
    prog = _prog(spec.progress)
    span = prog.log_span()
    assert span is not None
    log = prog.tf.text[span[0]:span[1]]
    assert "r1" in log  # the Confirmed block names the interview: the blocks are read
    assert set_aside(prog, "r1") is False
    check_phase_order(prog, "requirements", "r1")


def test_a_file_without_a_log_sets_nothing_aside(repo: Path) -> None:
    spec = approved_spec(repo)
    text = Path(spec.progress).read_text(encoding="utf-8")
    head = text[:text.index("## Interview Responses")]
    prog = _prog(spec.progress, head)
    assert prog.log_span() is None and prog.blocks == []
    assert set_aside(prog, "r1") is False
