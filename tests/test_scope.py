"""The approval's scope (`model/scope.py`) in process: its digest computed independently, what is
inside it and what is not, and the words of the refusal.

A scope is recorded in the brief, the Confirmed block and the approval commit's trailer, and
recomputed by every later `confirm`, `check-delegation` and `validate`: a change in how a part
is framed or which nodes it takes would turn every recorded approval into
APPROVAL_SCOPE_CHANGED, or let a change inside it pass. The CLI's view of the same rules is
tests/test_approval_scope.py.
"""

from __future__ import annotations

from hashlib import sha256
from pathlib import Path

import pytest
from conftest import git_out

from mdgrill.api import Spec
from mdgrill.checks.spec import validate_progress_bytes
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model.scope import (
    Scope,
    approval_scope,
    changed_parts,
    confirmed_id,
    confirmed_scope,
    recorded_parts,
    scope_now,
)

GOAL = "Let customers apply a promo code."
DEFAULTED = "(defaulted by skip: see the Skipped block's assumptions)"


def framed(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode("ascii") + b":" + data


def short(*texts: str) -> str:
    return sha256(b"".join(framed(t) for t in texts)).hexdigest()[:12]


def whole(parts: dict[str, str]) -> str:
    return sha256(b"".join(framed(f"{name}={value}") for name, value in parts.items())).hexdigest()


# The three nodes as `add_node` writes them below, read the documented way: the title, then
# each `- Key: value` line as `key: value` and each nested option indented by two spaces.
D1_TEXT = ("Which customers?", "depends on: none", "options: ",
           "  Every customer (Recommended)", "  Members only")
D2_TEXT = ("How many codes per order?", "depends on: D1", "options: ",
           "  One (Recommended)", "  Several")
D3_TEXT = ("Gift cards too?", "depends on: none", "options: ", "  No (Recommended)", "  Yes")


def _nodes(spec: Spec) -> None:
    spec.add_node("D1", title="Which customers?", options=["Every customer", "Members only"],
                  recommend=1)
    spec.add_node("D2", title="How many codes per order?", depends_on=["D1"],
                  options=["One", "Several"], recommend=1)
    spec.add_node("D3", title="Gift cards too?", options=["Yes", "No"], recommend=2)


def brief_shown(repo: Path) -> Spec:
    """D1 answered and D3 out of scope in round 1, D2 (depends on D1) answered in round 2,
    the brief shown under C1."""
    spec = Spec.init(repo / "specs/a", goal=GOAL, root=repo)
    _nodes(spec)
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1", "D3"])
    spec.record_answer("D1", "Every customer")
    spec.out_of_scope("D3", reply="not in this release")
    spec.open_frontier(round=2, decision_ids=["D2"])
    spec.record_answer("D2", "One")
    spec.await_confirmation(decision_id="C1", approach="One promo code per order")
    return spec


def approved_spec(repo: Path) -> Spec:
    spec = brief_shown(repo)
    spec.confirm(decision_id="C1", reply="Approve and delegate")
    return spec


def _skipped(repo: Path) -> Spec:
    """D1 answered in round 1, D3 asked with it and D2 (depends on D1) open when the user
    skipped: both defaulted to their recommended option."""
    spec = Spec.init(repo / "specs/a", goal=GOAL, root=repo)
    _nodes(spec)
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1", "D3"])
    spec.record_answer("D1", "Every customer")
    spec.skip(reason="the user said skip", assumptions=["unit tests are enough"])
    return spec


def _read(spec: Spec) -> tuple[str, Progress]:
    text = Path(spec.progress).read_text(encoding="utf-8")
    return text, Progress(TextFile(text), spec.progress)


def _line(text: str, key: str, nth: int = 0) -> str:
    found = [line.split(": ", 1)[1] for line in text.split("\n") if line.startswith(f"- {key}: ")]
    return found[nth]


def _context(prog: Progress) -> str:
    iv = prog.data["interview"]
    assert isinstance(iv, dict)
    return str(iv["context_digest"])


def _scope_codes(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in validate_progress_bytes(text.encode("utf-8"), "p.md")
            if d.code == "APPROVAL_SCOPE_CHANGED"]


# ------------------------------------------------------------------ the digest, independently

def test_an_approvals_parts_are_computed_as_documented(repo: Path) -> None:
    spec = approved_spec(repo)
    text, prog = _read(spec)
    expected = {
        "the context": short(_context(prog)),
        "the interview": short("r1", "C1"),
        "the approach": short("One promo code per order"),
        "D1": short("answer: Every customer", *D1_TEXT),
        "D2": short("answer: One", *D2_TEXT),
        "D3": short("out of scope", *D3_TEXT),
    }
    recorded = _line(text, "Approval scope")

    assert recorded == whole(expected)
    assert _line(text, "Approval scope", 1) == recorded  # the Confirmed block's copy
    assert _line(text, "Scope parts") == ", ".join(f"{k} {v}" for k, v in expected.items())
    found = scope_now(prog, "requirements", "r1", "C1", _context(prog))
    assert found is not None
    assert found[0] == recorded and found[1] == Scope(recorded, expected)
    assert _scope_codes(text) == []


def test_a_skips_parts_are_computed_as_documented(repo: Path) -> None:
    spec = _skipped(repo)
    text, prog = _read(spec)
    # the Skipped block's lines in its order: the pending D3 retired first, then the frontier
    skip = ["reason: the user said skip", "defaulted: D3, D2", "default: D3 -> No",
            "default: D2 -> One", "assumption: unit tests are enough"]
    expected = {
        "the context": short(_context(prog)),
        "the interview": short("r1", "skip-confirmation"),
        "the approach": short("Skip remaining interview decisions"),
        "D1": short("answer: Every customer", *D1_TEXT),
        "D2": short("defaulted", *D2_TEXT),
        "D3": short("defaulted", *D3_TEXT),
        "the skip": short(*skip),
    }
    assert _line(text, "Approval scope") == whole(expected)
    # the Skipped block now in the log settles D2 and D3 as defaulted: their parts hold
    found = scope_now(prog, "requirements", "r1", "skip-confirmation", _context(prog))
    assert found is not None and found[1].parts == expected and found[0] == whole(expected)

    done = spec.confirm(decision_id="skip-confirmation", reply="Approve and delegate")
    assert done["approval_scope"] == whole(expected)


def test_a_prerequisite_is_inside_the_scope_though_nothing_settled_it() -> None:
    """The scope takes a decided node's prerequisites with it, settled or not: an open one
    reads `open` (a file the CLI would not write: D1 answered while D9 is open)."""
    text = ("---\nmdgrill: 1\nspec: s\ngoal: g\nphase: start\nmode: interactive\n"
            "required_sections: []\ninterview: null\nskills: []\n---\n# S\n\n"
            "## Design Tree\n\n### D1: First?\n- Depends on: D9\n\n### D9: Before it?\n\n"
            "## Interview Responses\n\n### Start Grill - Round 1\n- Asked: D1\n"
            "- Decisions: D1 -> yes\n")
    prog = Progress(TextFile(text), "p")
    scope = approval_scope(prog, prog.blocks, interview_id="i", confirmation_id="C",
                           approach="a", context_digest="x")
    assert scope.parts == {"the context": short("x"), "the interview": short("i", "C"),
                           "the approach": short("a"), "D1": short("answer: yes", "First?",
                                                                   "depends on: D9"),
                           "D9": short("open", "Before it?")}


# ------------------------------------------------------------------ inside and outside

def test_a_decision_settled_after_the_brief_is_outside_its_scope(repo: Path) -> None:
    _, prog = _read(approved_spec(repo))
    # as a brief shown after round 1 alone: D2, settled in round 2, is not part of it
    after_round_1 = approval_scope(prog, prog.blocks[:1], interview_id="r1",
                                   confirmation_id="C1", approach="x",
                                   context_digest=_context(prog))
    assert list(after_round_1.parts) == ["the context", "the interview", "the approach", "D1",
                                         "D3"]


def test_a_change_to_a_defaulted_decision_is_refused(repo: Path) -> None:
    spec = _skipped(repo)
    spec.confirm(decision_id="skip-confirmation", reply="Approve and delegate")
    text, _ = _read(spec)
    assert _scope_codes(text) == []
    changed = text.replace("  - One (Recommended)", "  - No limit (Recommended)", 1)

    [(_, message)] = _scope_codes(changed)
    assert "(D2 changed)" in message


def test_the_refusal_names_the_part_and_the_briefs_line(repo: Path) -> None:
    spec = approved_spec(repo)
    text, _ = _read(spec)
    changed = text.replace("### D1: Which customers?", "### D1: Delete the database?", 1)

    [(_, message)] = _scope_codes(changed)
    lines = text.split("\n")
    brief = lines.index("### Requirements Grill - Awaiting Confirmation") + 1
    assert f"after the brief at line {brief} was shown (D1 changed)" in message

    Path(spec.progress).write_text(changed, encoding="utf-8")
    with pytest.raises(GateRefusal) as info:
        spec.check_delegation(phase="requirements", interview_id="r1")
    assert info.value.code == "APPROVAL_SCOPE_CHANGED"
    assert "(D1 changed)" in info.value.message


def test_the_scope_is_read_from_the_latest_confirmed_block_whatever_follows(
        repo: Path) -> None:
    """The artifact gate writes its blocks in the same phase after the Confirmed block: the
    approval they follow is still the one checked."""
    spec = approved_spec(repo)
    text, _ = _read(spec)
    scope = _line(text, "Approval scope")
    (repo / "specs/a/requirements.md").write_text("# Requirements\n\nOne code.\n",
                                                  encoding="utf-8")
    spec.await_artifact_approval(artifact=str(repo / "specs/a/requirements.md"))
    text, prog = _read(spec)
    assert text.rstrip().split("\n### ")[-1].startswith("Requirements Artifact")

    assert confirmed_id(prog, "requirements") == "C1"
    assert confirmed_scope(prog, "requirements") == scope
    assert confirmed_id(prog, "design") is None and confirmed_scope(prog, "design") is None
    assert f"Mdgrill-Approval-Scope: {scope}" in git_out(repo, "log", "--format=%B")
    changed = text.replace("  - Several", "  - Unlimited", 1)
    [(_, message)] = _scope_codes(changed)
    assert "(D2 changed)" in message


# ------------------------------------------------------------------ reading the recorded parts

def test_the_parts_that_differ_are_named_in_words() -> None:
    recorded = {"the approach": "111", "D1": "aaa", "D2": "bbb"}
    now = Scope("d", {"the approach": "111", "D1": "abc", "D4": "ddd"})
    assert changed_parts(recorded, now) == ["D1 changed", "D2 is gone", "D4 is new"]
    assert changed_parts(now.parts, now) == []


def test_a_parts_line_is_read_back_and_a_damaged_item_left_out() -> None:
    line = Scope("d", {"the context": "6f7b9bed8381", "D1": "10d6ff703bac"}).parts_line()
    assert line == "the context 6f7b9bed8381, D1 10d6ff703bac"
    assert recorded_parts(line) == {"the context": "6f7b9bed8381", "D1": "10d6ff703bac"}
    assert recorded_parts(line + ", nonsense, , D2 ") == recorded_parts(line)
    assert recorded_parts(None) == {}
