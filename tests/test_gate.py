"""The gate's checks in process (`core/gate.py`), each reason it refuses held to its exact
code, line and wording.

The end-to-end tests (tests/test_framework_rules.py, tests/test_interview_cli.py) show a
refusal through the CLI; these pin what a mutation of the checks would change without a
refusal going away: which decisions are named, once each, on which line.
"""

from __future__ import annotations

import pytest

from mdgrill.core import gate, machine
from mdgrill.core.machine.basics import interview_of
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Progress, apply_change
from mdgrill.formats.textfile import TextFile
from mdgrill.model.interview import interview_blocks
from mdgrill.model.tree import spec_frontier

DIGEST = "a" * 64
HEAD = """---
mdgrill: 1
spec: s
goal: g
phase: start
mode: interactive
required_sections: [{sections}]
interview: null
skills: []
---
# S

## Goal

g

## Design Tree
"""


def node(node_id: str, section: str = "s", depends: str = "none", extra: str = "") -> str:
    return (f"\n### {node_id}: Question {node_id}?\n- Section: {section}\n"
            f"- Depends on: {depends}\n{extra}- Options:\n  - Yes (Recommended)\n  - No\n")


def spec(*nodes: str, sections: str = "s") -> str:
    return HEAD.format(sections=sections) + "".join(nodes) + "\n## Interview Responses\n"


def step(text: str, fn: object, *args: object) -> str:
    prog = Progress(TextFile(text), "p")
    assert callable(fn)
    change, _ = fn(prog.data, *args) if fn is machine.begin_interview else \
        fn(prog.data, prog, *args)
    return apply_change(prog, change)


def begun(text: str) -> str:
    return step(text, machine.begin_interview, "start", "s-1", None, None, DIGEST, [])


def read(text: str) -> tuple[Progress, dict[str, object]]:
    prog = Progress(TextFile(text), "p")
    return prog, interview_of(prog.data)


def line_of(text: str, line: str, nth: int = 1) -> int:
    """1-based number of the nth line equal to `line`."""
    numbers = [i for i, ln in enumerate(text.splitlines(), 1) if ln == line]
    return numbers[nth - 1]


def codes(text: str) -> list[str]:
    prog, iv = read(text)
    return [p.code for p in gate.problems(prog, iv)]


# "Treat `Other` as input to a concrete next-layer decision"
def test_every_other_answer_without_a_follow_up_is_named_once_on_its_line() -> None:
    text = begun(spec(node("D1"), node("D2"), node("D3")))
    text = step(text, machine.open_frontier, 1, ["D1", "D2", "D3"])
    text = step(text, machine.record_answer, "D1", "my own way", None, True)
    text = step(text, machine.record_answer, "D2", "another way", None, True)
    text = step(text, machine.record_answer, "D3", "Yes", None)
    prog, _ = read(text)
    assert gate.others_without_followup(prog, "start") == [
        ("D1", line_of(text, "- Other: D1")), ("D2", line_of(text, "- Other: D2"))]
    # the same decision marked twice (a hand-repeated line) is still one problem, its first
    doubled = text.replace("- Other: D2\n", "- Other: D2\n- Other: D2\n", 1)
    prog, _ = read(doubled)
    assert gate.others_without_followup(prog, "start") == [
        ("D1", line_of(doubled, "- Other: D1")), ("D2", line_of(doubled, "- Other: D2"))]


def test_an_other_answer_with_its_follow_up_node_is_not_a_problem() -> None:
    text = begun(spec(node("D1"), node("D2"), node("D9", extra="- Spawned by: D1\n")))
    text = step(text, machine.open_frontier, 1, ["D1", "D2"])
    text = step(text, machine.record_answer, "D1", "my own way", None, True)
    text = step(text, machine.record_answer, "D2", "my way too", None, True)
    prog, _ = read(text)
    assert gate.others_without_followup(prog, "start") == [("D2", line_of(text, "- Other: D2"))]


# "Ask every currently unblocked user decision in the same round"
def test_the_round_names_what_it_did_not_ask_of_its_opening_frontier() -> None:
    text = begun(spec(node("D1"), node("D2"), node("D3")))
    text = step(text, machine.open_frontier, 1, ["D1"])
    prog, iv = read(text)
    iv["round_frontier"] = ["D1", "D2", "D3"]
    assert gate.unasked(prog, iv, spec_frontier(prog)) == ["D2", "D3"]
    # a round other than the open one asked nothing of this frontier
    iv["round"] = 2
    assert gate.unasked(prog, iv, spec_frontier(prog)) == ["D1", "D2", "D3"]
    iv["round_frontier"] = []
    assert gate.unasked(prog, iv, spec_frontier(prog)) == []


def test_a_decision_resolved_since_the_round_opened_is_not_unasked() -> None:
    text = begun(spec(node("D1"), node("D2")))
    text = step(text, machine.open_frontier, 1, ["D1", "D2"])
    text = step(text, machine.record_answer, "D2", "Yes", None)
    prog, iv = read(text)
    iv["round_frontier"] = ["D1", "D2"]
    assert gate.unasked(prog, iv, spec_frontier(prog)) == []


@pytest.mark.parametrize(("ids", "wording"), [
    (["D2"], "round 1 has not asked D2, which was on the frontier when the round opened: a "
             "round asks every unblocked decision (split only at four per question call). Ask "
             "it now: `mdgrill open-frontier specs/x --round 1 --decision-id D2`"),
    (["D2", "D3"], "round 1 has not asked D2, D3, which were on the frontier when the round "
                   "opened: a round asks every unblocked decision (split only at four per "
                   "question call). Ask them now: `mdgrill open-frontier specs/x --round 1 "
                   "--decision-id D2 --decision-id D3`"),
])
def test_the_unasked_refusal_names_the_command_that_asks_them(ids: list[str],
                                                              wording: str) -> None:
    refusal = gate.unasked_refusal("specs/x", 1, ids)
    assert refusal.code == "FRONTIER_NOT_ASKED"
    assert str(refusal.message) == wording + "; nothing was written"
    assert refusal.details == {"unasked": ids}


def test_a_collecting_round_that_skipped_part_of_its_frontier_is_refused() -> None:
    text = begun(spec(node("D1"), node("D2")))
    text = step(text, machine.open_frontier, 1, ["D1"])
    prog, iv = read(text)
    iv["round_frontier"] = ["D1", "D2"]
    found = gate.problems(prog, iv)
    assert [(p.code, p.line) for p in found][0] == ("FRONTIER_NOT_ASKED", 0)
    assert found[0].message == ("round 1 has not asked D2: ask it in this round with "
                                "`mdgrill open-frontier`")
    iv["round_frontier"] = ["D2", "D1"]
    assert gate.problems(prog, iv)[0].message.startswith("round 1 has not asked D2: ask it")
    # once the interview waits for approval, the rule is the frontier's, not the round's
    iv["status"] = "awaiting_confirmation"
    assert "FRONTIER_NOT_ASKED" not in [p.code for p in gate.problems(prog, iv)]


# "Advance no phase with an open frontier"
def test_each_open_node_is_named_on_its_heading_line_with_why_it_is_open() -> None:
    text = begun(spec(node("D1"), node("D2", depends="D1"),
                      node("D3", extra="- Investigating: the retry limit\n")))
    prog, iv = read(text)
    found = [p for p in gate.problems(prog, iv) if p.code == "FRONTIER_OPEN"]
    assert [(p.line, p.message.split(":")[0]) for p in found] == [
        (line_of(text, "### D1: Question D1?"), "D1 is open"),
        (line_of(text, "### D2: Question D2?"), "D2 is blocked behind D1"),
        (line_of(text, "### D3: Question D3?"), "D3 is waiting on a fact lookup (`Investigating"),
    ]


def test_nothing_askable_is_frontier_blocked() -> None:
    text = begun(spec(node("D1", extra="- Investigating: which queue\n"),
                      node("D2", depends="D1"), sections=""))
    assert codes(text) == ["FRONTIER_OPEN", "FRONTIER_OPEN", "FRONTIER_BLOCKED"]
    # with one askable decision, the frontier is open but not blocked
    askable = begun(spec(node("D1"), node("D2", depends="D1"), sections=""))
    assert "FRONTIER_BLOCKED" not in codes(askable)


def test_a_required_section_without_a_resolved_node_is_named() -> None:
    text = begun(spec(node("D1"), sections="s, billing"))
    text = step(text, machine.open_frontier, 1, ["D1"])
    text = step(text, machine.record_answer, "D1", "Yes", None)
    prog, iv = read(text)
    found = gate.problems(prog, iv)
    assert [(p.code, p.line, p.message) for p in found] == [
        ("REQUIRED_SECTION_UNRESOLVED", 0, "required section `billing` has no resolved node: ask a "
                                        "decision in `billing` (a node with `Section: billing`)")]


def test_a_resolved_parent_with_an_open_sub_question_is_an_open_sub_thread() -> None:
    text = begun(spec(node("D1"), node("D2", extra="- Spawned by: D1\n")))
    text = step(text, machine.open_frontier, 1, ["D1"])
    text = step(text, machine.record_answer, "D1", "Yes", None)
    prog, iv = read(text)
    found = [p for p in gate.problems(prog, iv) if p.code == "OPEN_SUBTHREAD"]
    assert [(p.line, p.message) for p in found] == [
        (0, "D1 is resolved but its sub-question D2 is still open: ask D2")]


def test_a_skip_keeps_the_structural_checks_and_drops_the_frontier_ones() -> None:
    text = begun(spec(node("D1"), node("D1"), node("D2", extra="- Spawned by: D3\n"),
                      sections="s, billing"))
    prog, iv = read(text)
    asked = codes(text)
    assert {"FRONTIER_OPEN", "REQUIRED_SECTION_UNRESOLVED", "DUPLICATE_ID"} <= set(asked)
    iv["bypass_reason"] = "the user skipped"
    skipped = [p.code for p in gate.problems(prog, iv)]
    assert "DUPLICATE_ID" in skipped
    assert not {"FRONTIER_OPEN", "REQUIRED_SECTION_UNRESOLVED", "OPEN_SUBTHREAD",
                "OTHER_WITHOUT_FOLLOWUP"} & set(skipped)


def test_require_clear_reports_every_problem_at_once_with_its_line() -> None:
    text = begun(spec(node("D1"), node("D2"), sections=""))
    prog, iv = read(text)
    with pytest.raises(GateRefusal) as info:
        gate.require_clear(prog, iv, "confirm")
    message = str(info.value.message)
    assert info.value.code == "FRONTIER_OPEN"
    assert message.startswith("confirm refused (2 problems; nothing was written):\n  p:")
    assert f"\n  p:{line_of(text, '### D2: Question D2?')}: FRONTIER_OPEN: D2 is open" in message
    assert info.value.details == {"problems": [p.to_json() for p in gate.problems(prog, iv)]}
    one = begun(spec(node("D1"), sections=""))
    prog, iv = read(one)
    with pytest.raises(GateRefusal) as info:
        gate.require_clear(prog, iv, "await-confirmation")
    assert str(info.value.message).startswith(
        "await-confirmation refused (1 problem; nothing was written):\n  p:")
    # a problem without a line is printed without one
    blocked = begun(spec(node("D1", extra="- Investigating: which queue\n"), sections=""))
    prog, iv = read(blocked)
    with pytest.raises(GateRefusal) as info:
        gate.require_clear(prog, iv, "confirm")
    assert "\n  FRONTIER_BLOCKED: no open decision can be asked now" in str(info.value.message)


def test_require_clear_passes_a_clear_interview() -> None:
    text = begun(spec(node("D1")))
    text = step(text, machine.open_frontier, 1, ["D1"])
    text = step(text, machine.record_answer, "D1", "Yes", None)
    prog, iv = read(text)
    assert gate.problems(prog, iv) == []
    assert gate.require_clear(prog, iv, "confirm") is None


def test_a_round_frontier_that_is_not_a_list_is_not_read_letter_by_letter() -> None:
    # a hand-typed `round_frontier: AB` is the record check's to report (INVALID_STATE); the
    # gate must not read it as the decisions A and B
    text = begun(spec(node("A"), node("B"), sections=""))
    text = step(text, machine.open_frontier, 1, ["A"])
    prog, iv = read(text)
    iv["round_frontier"] = "AB"
    assert gate.unasked(prog, iv, spec_frontier(prog)) == []
    iv["round_frontier"] = ["A", "B"]
    assert gate.unasked(prog, iv, spec_frontier(prog)) == ["B"]


LOG = """---
mdgrill: 1
spec: s
goal: g
phase: design
mode: interactive
required_sections: []
interview: null
skills: []
---
# S

## Interview Responses

### Design Grill - Round 1
- Asked: D1

### Requirements Grill - Reset
- Interview: r1
- Reason: the context changed

### Design Grill - Round 2
- Asked: D2

### Design Grill - Confirmed
- Interview: d1

### Design Grill - Round 3
- Asked: D3
"""


def test_the_open_interview_starts_after_its_own_phases_last_boundary() -> None:
    blocks = Progress(TextFile(LOG), "p").blocks
    assert [(b.phase, b.kind) for b in blocks] == [
        ("design", "round"), ("requirements", "reset"), ("design", "round"),
        ("design", "confirmed"), ("design", "round")]
    # design's interview now is what follows its Confirmed block, and nothing before it
    assert [b.line for b in interview_blocks(blocks, "design")] == [blocks[4].line]
    # another phase's boundary does not cut this phase's interview
    assert [b.line for b in interview_blocks(blocks[:3], "design")] == \
        [blocks[0].line, blocks[2].line]
    assert interview_blocks(blocks, "requirements") == []
