"""`services.rounds.open_round` in process: what `ask` and `questionnaire` open before they
ask, held to its exact answer (`opened`, `added`, `round`) and to the file's bytes.

`test_framework_rules.py` drives the same rules through the installed CLI (the partial
answer, the next layer as a new round); these were written for issue 32's mutation run of
`open_round`, each for a mutant that run left alive: what it returns when nothing opens (read
by `questionnaire` as its own fields), and a round that is not the log's last block.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mdgrill.api import Spec
from mdgrill.formats.progress import read_progress
from mdgrill.services import rounds
from mdgrill.shell import store


@pytest.fixture
def spec(tmp_path: Path) -> Spec:
    """users, compat, retention askable at once; purge waits on retention."""
    s = Spec.init(tmp_path / "specs/s", goal="Let customers apply one promo code.",
                  root=tmp_path)
    for node_id, after in (("users", None), ("compat", None), ("retention", None),
                           ("purge", "retention")):
        s.add_node(node_id, title=f"Question {node_id}?", section="scope",
                   depends_on=[after] if after else None,
                   options=["First way (why)", "Second way"], recommend=1,
                   rationale="the simpler way", tradeoffs="less room later")
    s.begin_interview(phase="requirements", interview_id="r1")
    return s


def _where(s: Spec) -> store.Spec:
    return store.Spec(s.folder, s.root)


def _bytes(s: Spec) -> bytes:
    return Path(s.progress).read_bytes()


def test_the_first_round_opens_for_the_whole_frontier(spec: Spec) -> None:
    assert rounds.open_round(_where(spec)) == {"opened": True, "round": 1}
    assert "### Requirements Grill - Round 1\n- Asked: users, compat, retention\n" in \
        Path(spec.progress).read_text(encoding="utf-8")


def test_asking_again_with_nothing_unblocked_adds_nothing(spec: Spec) -> None:
    """Pending decisions and none unblocked: no `added` (not even an empty one), no write."""
    rounds.open_round(_where(spec))
    spec.record_answer("users", "First way")
    before = _bytes(spec)
    assert rounds.open_round(_where(spec)) == {"opened": False}
    assert _bytes(spec) == before
    out = spec.questionnaire().data
    assert out["opened"] is False and "added" not in out and "round" not in out


def test_what_an_answer_unblocked_joins_the_open_round(spec: Spec) -> None:
    """The framework's partial answer: the round stays open (`opened` false), and what the
    answers unblocked is added to it under its own Asked line."""
    rounds.open_round(_where(spec))
    spec.record_answer("retention", "Second way")
    assert rounds.open_round(_where(spec)) == {"opened": False, "added": ["purge"], "round": 1}
    text = Path(spec.progress).read_text(encoding="utf-8")
    assert text.count("### Requirements Grill - Round") == 1
    assert "- Decisions: retention -> Second way\n" in text and text.endswith(
        "- Asked: purge\n")


def test_questionnaire_says_the_round_was_added_to_not_opened(spec: Spec) -> None:
    rounds.open_round(_where(spec))
    spec.record_answer("retention", "Second way")
    out = spec.questionnaire().data
    assert out["opened"] is False and out["added"] == ["purge"] and out["round"] == 1
    assert out["questions"] == ["users", "compat", "purge"]


def test_a_round_that_is_not_the_logs_last_block_takes_no_asked_line(spec: Spec) -> None:
    """A block written by hand after the open round (the log resealed, so it loads): what
    the answer unblocked is not added, no new round is opened, nothing is written."""
    rounds.open_round(_where(spec))
    spec.record_answer("retention", "Second way")
    path = Path(spec.progress)
    before = path.read_text(encoding="utf-8")
    text = before + "\n### Requirements Grill - Note\n- Text: written by hand\n"
    old_seal = read_progress(before.encode(), "p").data["log"]
    assert isinstance(old_seal, dict)
    text = text.replace(str(old_seal["sha256"]), read_progress(text.encode(), "p").log_sha256())
    path.write_text(text, encoding="utf-8")
    assert rounds.open_round(_where(spec)) == {"opened": False}
    assert path.read_text(encoding="utf-8") == text


def test_nothing_opens_once_every_decision_is_answered(spec: Spec) -> None:
    """Collecting, nothing pending, an empty frontier: nothing to open, and questionnaire
    reports the same `opened: false` beside the closing step."""
    rounds.open_round(_where(spec))
    for node_id in ("users", "compat", "retention"):
        spec.record_answer(node_id, "First way")
    assert rounds.open_round(_where(spec)) == {"opened": True, "round": 2}
    spec.record_answer("purge", "First way")
    before = _bytes(spec)
    assert rounds.open_round(_where(spec)) == {"opened": False}
    assert _bytes(spec) == before
    out = spec.questionnaire().data
    assert out["opened"] is False and out["written"] is False
    assert out["next"] == "await-confirmation" and "added" not in out


@pytest.mark.parametrize("closing", ["awaiting_confirmation", "complete"])
def test_nothing_opens_unless_the_interview_is_collecting(spec: Spec, closing: str) -> None:
    rounds.open_round(_where(spec))
    for node_id in ("users", "compat", "retention"):
        spec.record_answer(node_id, "First way")
    rounds.open_round(_where(spec))
    spec.record_answer("purge", "First way")
    spec.await_confirmation(decision_id="C1", approach="Apply the code at checkout")
    if closing == "complete":
        spec.confirm(decision_id="C1", reply="Approve and delegate", no_commit=True)
    assert spec.status().data["interview"]["status"] == closing  # type: ignore[index]
    before = _bytes(spec)
    assert rounds.open_round(_where(spec)) == {"opened": False}
    assert _bytes(spec) == before
    # the approval question (or what follows approval) is `ask`'s: questionnaire writes
    # nothing and says so (while awaiting it refused MISSING_REFERENCE: C1 is no node)
    out = spec.questionnaire().data
    command = str(out.pop("next_command"))
    assert out == {"written": False, "next": "ask", "opened": False}
    assert command.startswith("mdgrill ask ") and command.endswith("specs/s")
    assert _bytes(spec) == before
    assert not (Path(spec.folder) / "questions.md").exists()
