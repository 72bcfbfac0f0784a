"""Which captured reply is the user's answer to an approval question (`core/evidence.py`),
in process: the journal entries are written by hand, the `.progress.md` states are built
through the library in a temporary folder. `tests/test_evidence.py` drives the same rules
through the hooks and the installed CLI; these pin each rule on its own (issue 32: the
mutation run of this module asks for them)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mdgrill.api import Spec
from mdgrill.core import evidence
from mdgrill.formats.progress import Progress, read_progress

SPEC = "specs/a"
TAG = evidence.approval_tag(SPEC, "r1", "C1")
SHOWN = evidence.approach_shown("Do A", TAG)
QUESTION = f"The approach: Do A {TAG}"


def _read(spec: Spec) -> Progress:
    return read_progress(Path(spec.progress).read_bytes(), "x")


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Progress]:
    """The spec collecting, awaiting confirmation of C1, and with its artifact awaiting."""
    root = tmp_path_factory.mktemp("evidence")
    spec = Spec.init(root / SPEC, goal="Let customers apply a promo code.", root=root)
    shots: dict[str, Progress] = {"fresh": _read(spec)}
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1"])
    spec.record_answer("D1", "Every customer")
    shots["collecting"] = _read(spec)
    spec.await_confirmation(decision_id="C1", approach="Do A")
    shots["awaiting"] = _read(spec)
    spec.confirm(decision_id="C1", reply="Approve and delegate", no_commit=True)
    (root / SPEC / "requirements.md").write_text("# Requirements\n", encoding="utf-8")
    spec.await_artifact_approval(artifact="requirements.md")
    shots["artifact"] = _read(spec)
    return shots


def _prog(data: dict[str, object], blocks: list[Any] | None = None) -> Progress:
    """A stand-in with only what the evidence rules read (`data`, `blocks`)."""
    return SimpleNamespace(data=data, blocks=blocks or [])  # type: ignore[return-value]


def _brief_index(prog: Progress) -> int:
    return next(i for i, b in enumerate(prog.blocks) if b.kind == "awaiting")


# -- what awaits the user's word ---------------------------------------------------------


def test_the_tags_name_the_approval_they_belong_to() -> None:
    assert evidence.approval_tag("specs/a", "r1", "C1") == \
        "(approval C1 of interview r1, specs/a)"
    assert evidence.artifact_tag("specs/a", "artifact:specs/a/x.md@0123456789ab") == \
        "(approval of artifact:specs/a/x.md@0123456789ab, specs/a)"
    assert evidence.approach_shown("Do A", "(t)") == \
        ("The approach: Do A — resting on: ", "The approach: Do A (t)")


def test_the_record_of_a_brief_names_its_place_in_the_log_and_its_scope(
        states: dict[str, Progress]) -> None:
    prog = states["awaiting"]
    brief = prog.blocks[_brief_index(prog)]
    record = evidence.interview_record(SPEC, prog, "C1")
    assert record == {"spec": SPEC, "interview": "r1", "status": "awaiting_confirmation",
                      "confirmation": "C1", "brief": _brief_index(prog),
                      "scope": brief.first("Approval scope")}
    assert record["scope"]
    assert evidence.interview_record(SPEC, prog, "C2") is None  # no brief of that ID
    assert evidence.interview_record(SPEC, states["fresh"], "C1") is None  # no interview
    assert evidence.interview_record(SPEC, _prog({"interview": "r1"}), "C1") is None


def test_the_record_of_an_artifact_names_the_block_that_presented_it(
        states: dict[str, Progress]) -> None:
    prog = states["artifact"]
    presented = max(i for i, b in enumerate(prog.blocks) if b.kind == "artifact_awaiting")
    art = prog.data["artifact"]
    assert isinstance(art, dict)
    record = evidence.artifact_record(SPEC, prog)
    assert record == {"spec": SPEC, "artifact": f"artifact:{art['path']}@{art['sha256'][:12]}",
                      "status": "awaiting_approval", "presented": presented}
    # no artifact, one that does not await approval, one whose block is not in the log
    assert evidence.artifact_record(SPEC, states["awaiting"]) is None
    assert evidence.artifact_record(SPEC, _prog({"artifact": "x.md"})) is None
    assert evidence.artifact_record(SPEC, _prog({"artifact": {**art, "status": "approved"}})) \
        is None
    assert evidence.artifact_record(SPEC, _prog({"artifact": art})) == \
        {**record, "presented": -1}


def test_pending_records_say_what_awaits_the_users_word(states: dict[str, Progress]) -> None:
    assert evidence.pending_records(SPEC, states["fresh"]) == []
    assert evidence.pending_records(SPEC, states["collecting"]) == \
        [{"spec": SPEC, "interview": "r1", "status": "collecting"}]
    awaiting = states["awaiting"]
    assert evidence.pending_records(SPEC, awaiting) == \
        [evidence.interview_record(SPEC, awaiting, "C1")]
    assert evidence.pending_records(SPEC, states["artifact"]) == \
        [evidence.artifact_record(SPEC, states["artifact"])]


@pytest.mark.parametrize("pending", [[], ["C9"], "C1"])
def test_an_awaited_brief_not_in_the_log_is_still_pending(
        states: dict[str, Progress], pending: object) -> None:
    """No pending ID, or one no brief carries: the record says only that a brief awaits (so a
    typed reply still counts the gate), never a brief it cannot name."""
    awaiting = states["awaiting"]
    iv = awaiting.data["interview"]
    assert isinstance(iv, dict)
    prog = _prog({"interview": {**iv, "pending": pending}}, awaiting.blocks)
    assert evidence.pending_records(SPEC, prog) == \
        [{"spec": SPEC, "interview": "r1", "status": "awaiting_confirmation"}]


# -- which reply answers which approval ---------------------------------------------------


def _want(states: dict[str, Progress]) -> dict[str, object]:
    want = evidence.interview_record(SPEC, states["awaiting"], "C1")
    assert want is not None
    return want


def _entry(want: dict[str, object], text: str = "Approve and delegate",
           answers: list[list[object]] | None = None, sha: str = "s1",
           pending: object = None, source: str = "UserPromptSubmit") -> dict[str, object]:
    entry: dict[str, object] = {"source": source, "text": text, "sha256": sha,
                                "pending": [want] if pending is None else pending}
    if answers is not None:
        entry["answers"] = answers
    return entry


def test_a_typed_reply_answers_the_one_gate_that_awaited_a_reply(
        states: dict[str, Progress]) -> None:
    want = _want(states)
    collecting = {"spec": "specs/b", "interview": "r9", "status": "collecting"}
    assert evidence.answer_to(_entry(want), TAG) == "Approve and delegate"
    # beside an interview still collecting, the one gate is still this one
    assert evidence.answer_to(_entry(want, pending=[collecting, want]), TAG) == \
        "Approve and delegate"
    # two gates awaited a reply: a typed one cannot say which it answers
    artifact = evidence.artifact_record(SPEC, states["artifact"])
    assert evidence.answer_to(_entry(want, pending=[want, artifact]), TAG) is None
    # no gate awaited (or the journal kept no list): it answers none
    assert evidence.answer_to(_entry(want, pending=[collecting]), TAG) is None
    assert evidence.answer_to(_entry(want, pending="x"), TAG) is None
    # a reply from another source than the prompt is no typed answer
    assert evidence.answer_to(_entry(want, source="PostToolUse"), TAG) is None


def test_a_question_tools_answer_counts_only_for_the_approval_question(
        states: dict[str, Progress]) -> None:
    want = _want(states)

    def answer(pairs: list[list[object]], shown: tuple[str, ...] = SHOWN) -> str | None:
        return evidence.answer_to(_entry(want, text="(the tool's)", answers=pairs), TAG, shown)

    assert answer([[QUESTION, "Approve and delegate"]]) == "Approve and delegate"
    # the other question of the same call does not outvote a Cancel to this one
    assert answer([[QUESTION, "Cancel"], ["Which cards?", "Approve and delegate"]]) == "Cancel"
    assert answer([["Which cards?", "Approve and delegate"]]) is None
    assert answer([]) is None  # and never the entry's text, as a typed reply would
    # the last answer to this question, when it was asked twice in one call
    assert answer([[QUESTION, "Cancel"], [QUESTION, "Approve and delegate"]]) == \
        "Approve and delegate"
    # the same tag over another approach is the question about another brief
    assert answer([[f"The approach: Do B {TAG}", "Approve and delegate"]]) is None
    assert answer([[f"The approach: Do B {TAG}", "Approve"]], ()) == "Approve"
    assert answer([[f"The approach: Do A — resting on: D1 {TAG}", "Yes"]]) == "Yes"
    # pairs the journal could not have written are ignored
    assert answer([[QUESTION], [QUESTION, "a", "b"], [1, "c"], "x"]) is None


def test_an_entry_binds_only_to_the_approval_it_recorded_as_pending(
        states: dict[str, Progress]) -> None:
    want = _want(states)
    keys = evidence.INTERVIEW_KEYS

    def found(*entries: dict[str, object]) -> evidence.Evidence | str:
        return evidence.find_evidence(list(entries), want, keys, TAG, None, SHOWN)

    assert found(_entry(want)) == evidence.Evidence("Approve and delegate", "s1")
    # an earlier brief (another place in the log) or no pending list: no evidence
    earlier = {**want, "brief": 3}
    for pending in ([earlier], [], "x", ["x", earlier]):
        assert isinstance(found(_entry(want, pending=pending)), str), pending
    assert isinstance(found({"source": "UserPromptSubmit", "text": "Approve"}), str)
    # a non-record beside this one does not stop it binding
    assert found(_entry(want, pending=["x", want])) == \
        evidence.Evidence("Approve and delegate", "s1")


def test_the_last_answer_decides_and_a_later_unrelated_reply_does_not(
        states: dict[str, Progress]) -> None:
    want = _want(states)
    approves = (lambda words: words.startswith("Approve"))  # noqa: E731
    entries = [_entry(want, "Cancel", sha="s1"), _entry(want, "Approve and delegate", sha="s2"),
               _entry(want, "a question", answers=[["Which cards?", "EU"]], sha="s3")]
    last = evidence.find_evidence(entries, want, evidence.INTERVIEW_KEYS, TAG, approves)
    assert last == evidence.Evidence("Approve and delegate", "s2")
    refused = evidence.find_evidence(entries[1::-1], want, evidence.INTERVIEW_KEYS, TAG,
                                     approves)
    assert refused == "the user's last answer to this approval question was `Cancel`, " \
        "which does not approve"
    # without a judge the words are the caller's to judge
    assert evidence.find_evidence(entries[1::-1], want, evidence.INTERVIEW_KEYS, TAG, None) \
        == evidence.Evidence("Cancel", "s1")
    none = evidence.find_evidence(entries[2:], want, evidence.INTERVIEW_KEYS, TAG, approves)
    assert isinstance(none, str) and none.startswith("no answer of the user")
