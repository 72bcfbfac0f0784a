"""The pure state machine: transitions as data, without files."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mdgrill.core import machine
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Progress, Transition, apply_change
from mdgrill.formats.textfile import TextFile
from mdgrill.model.interview import quick_authorized
from mdgrill.model.record import (
    check_record,
    dict_list_field,
    int_field,
    mapping_field,
    str_list_field,
)

DIGEST = "a" * 64
TEXT = """---
mdgrill: 1
spec: s
goal: g
phase: start
mode: interactive
required_sections: []
interview: null
skills: []
---
# S

## Interview Responses
"""


def step(text: str, fn: object, *args: object) -> tuple[str, dict[str, object]]:
    prog = Progress(TextFile(text), "p")
    assert callable(fn)
    change, result = fn(prog.data, prog, *args) if fn not in (
        machine.begin_interview, machine.cancel) else \
        fn(prog.data, *args)
    new = apply_change(prog, change)
    after = Progress(TextFile(new), "p")
    assert check_record(after.data) == []
    return new, result


def begun() -> str:
    text, result = step(TEXT, machine.begin_interview, "start", "s-1", None, None, DIGEST, [])
    assert result == {"status": "collecting", "resumed": False, "round": 1,
                      "context_digest": DIGEST}
    return text


def test_round_trip_of_a_whole_interview() -> None:
    text = begun()
    text, r = step(text, machine.open_frontier, 1, ["D1", "D2"])
    assert r["pending"] == ["D1", "D2"]
    text, r = step(text, machine.record_answer, "D1", "Customers", None)
    text, r = step(text, machine.out_of_scope, "D2", "not in this release")
    assert r["pending"] == []
    text, r = step(text, machine.await_confirmation, "C1", "Plan", ["brief"])
    scope = r["approval_scope"]
    text, r = step(text, machine.confirm, "C1", "approve-and-delegate")
    assert r == {"status": "complete", "round": 1, "approval_scope": scope}
    prog = Progress(TextFile(text), "p")
    assert [b.kind for b in prog.blocks] == ["round", "awaiting", "confirmed"]
    result = machine.check_delegation(prog, "start", "s-1", None, DIGEST)
    assert result["decision"] == "allow"
    with pytest.raises(GateRefusal) as info:
        machine.check_delegation(prog, "start", "s-1", None, "b" * 64)
    assert info.value.code == "CONTEXT_STALE"


def test_a_transition_names_its_change_and_its_report() -> None:
    prog = Progress(TextFile(begun()), "p")
    done = machine.open_frontier(prog.data, prog, 1, ["D1"])
    assert type(done) is Transition
    assert done.report["pending"] == ["D1"] and done.report["round"] == 1
    assert done.change.touches_log and done.change.updates["interview"]["pending"] == ["D1"]


def test_a_malformed_record_a_step_reads_is_invalid_state() -> None:
    """A record handed to a step without a load's check: the machine's typed reads refuse it
    with the load's code, not an assert."""
    prog = Progress(TextFile(begun()), "p")
    data = dict(prog.data)
    iv = data["interview"]
    assert isinstance(iv, dict)
    data["interview"] = {**iv, "round": "1"}
    with pytest.raises(InputError) as info:
        machine.open_frontier(data, prog, 1, ["D1"])
    assert info.value.code == "INVALID_STATE"
    assert info.value.message == "interview round must be a whole number, not str"
    data["interview"] = {**iv, "asked": ["D1", 2]}
    with pytest.raises(InputError) as info:
        machine.next_confirmation_id(machine.interview_of(data))
    assert info.value.message == "interview asked must be a list of non-empty strings, not list"


def test_the_typed_reads_of_the_record() -> None:
    asked = ["D1", "D2"]
    assert str_list_field({"asked": asked}, "asked", "interview") is asked  # not a copy
    assert int_field({"round": 3}, "round", "interview") == 3
    assert dict_list_field({"skills": None}, "skills", "the record's") == []
    assert dict_list_field({}, "skills", "the record's") == []
    assert mapping_field({"interview": {"id": "x"}}, "interview", "the record's") == {"id": "x"}
    for read, record in ((int_field, {"round": True}), (int_field, {}),
                         (str_list_field, {"asked": ["D1", " "]}),
                         (dict_list_field, {"skills": [{"name": "a"}, "b"]}),
                         (mapping_field, {"interview": None})):
        key = next(iter(record), "round")
        with pytest.raises(InputError) as info:
            read(record, key, "x")
        assert info.value.code == "INVALID_STATE", (read, record)


def test_the_typed_reads_hold_under_python_dash_o() -> None:
    """`python -O` drops asserts; the reads are checks, so a malformed value is still refused."""
    code = ("from mdgrill.errors import InputError\n"
            "from mdgrill.model.record import int_field\n"
            "try:\n    int_field({'round': '1'}, 'round', 'interview')\n"
            "except InputError as e:\n    print(e.code)\n")
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout == "INVALID_STATE\n"


@pytest.mark.parametrize(("args", "code", "kind"), [
    ((2, ["D1"]), "DECISIONS_PENDING", GateRefusal),
    ((3, ["D1"]), "INVALID_ROUND_TRANSITION", GateRefusal),
    ((1, ["1x"]), "INVALID_ID", InputError),
    ((1, ["D1", "D1"]), "INVALID_INPUT", InputError),
])
def test_open_frontier_refusals(args: tuple[int, list[str]], code: str, kind: type) -> None:
    text, _ = step(begun(), machine.open_frontier, 1, ["D0"])
    text, _ = step(text, machine.record_answer, "D0", "Customers", None)
    if args[0] == 2:
        text, _ = step(text, machine.open_frontier, 1, ["D5"])
    with pytest.raises(kind) as info:
        step(text, machine.open_frontier, *args)
    assert info.value.code == code


def test_set_mode_resets_only_contradicting() -> None:
    text = begun()
    _, r = step(text, machine.set_mode, False, "2026-01-01T00:00:00Z")
    assert r == {"mode": "interactive", "interview_reset": False, "authorization_recorded": False}
    new, r = step(text, machine.set_mode, True, "2026-01-01T00:00:00Z")
    assert r["interview_reset"] is True and "### Goal Grill - Reset" in new
    # "Only exact `--quick` authorization may bypass the interview": it is recorded as a block
    assert r["authorization_recorded"] is True
    assert "### Goal Grill - Mode\n- Mode: quick\n" in new
    assert quick_authorized(Progress(TextFile(new), "p"))


def test_skip_requires_assumption() -> None:
    text = begun()
    with pytest.raises(InputError) as info:
        step(text, machine.skip, "busy", [" "], "SK")
    assert info.value.code == "ASSUMPTION_REQUIRED"
