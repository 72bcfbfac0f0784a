"""`check-delegation` and `confirm` refusals that only one route reaches, in process.

The services load a spec with its record checked (a broken record is INVALID_STATE, exit 2,
before any gate runs), and for an interview that is not quick-bypassed the gate's own checks
refuse a broken record again. So the state machine's own record check is the last word for
a quick bypass handed to it, and the scope check inside `confirm` for a change between the
brief and the approval: each is held here (tests/test_approval.py holds the rest).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_scope import approved_spec, brief_shown

from mdgrill.api import Spec
from mdgrill.core import machine
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import read_progress


def test_confirm_refuses_a_scope_changed_since_the_brief(repo: Path) -> None:
    spec = brief_shown(repo)
    path = Path(spec.progress)
    changed = path.read_text(encoding="utf-8").replace("  - Members only",
                                                       "  - Members only, and delete prod", 1)
    path.write_text(changed, encoding="utf-8")

    with pytest.raises(GateRefusal) as info:
        spec.confirm(decision_id="C1", reply="Approve and delegate")

    assert info.value.code == "APPROVAL_SCOPE_CHANGED"
    assert "(D1 changed)" in info.value.message
    assert path.read_text(encoding="utf-8") == changed  # nothing written


def test_an_interview_set_aside_by_a_reopening_is_superseded(repo: Path) -> None:
    spec = approved_spec(repo)
    artifact = repo / "specs/a/requirements.md"
    artifact.write_text("# Requirements\n", encoding="utf-8")
    spec.await_artifact_approval(artifact=str(artifact))
    spec.approve_artifact(source="approve-artifact")
    spec.reopen(phase="requirements", reason="the user wants more")

    with pytest.raises(GateRefusal) as info:
        spec.check_delegation(phase="requirements", interview_id="r1")

    assert info.value.code == "INTERVIEW_SUPERSEDED"  # not merely stale: set aside


@pytest.mark.parametrize(("key", "value"), [("pending", "[X9]"), ("status", "skipped")])
def test_a_quick_bypass_with_a_broken_record_is_refused_by_the_machine(
        repo: Path, key: str, value: str) -> None:
    spec = Spec.init(repo / "specs/a", goal="Let customers apply a promo code.", root=repo)
    spec.mode(quick=True)
    spec.begin_interview(phase="requirements", interview_id="q1")
    text = Path(spec.progress).read_text(encoding="utf-8")
    prog = read_progress(text.encode("utf-8"), "p.md")
    iv = prog.data["interview"]
    assert isinstance(iv, dict) and iv["status"] == "bypassed_quick"
    digest = str(iv["context_digest"])
    assert machine.check_delegation(prog, "requirements", "q1", None, digest)["path"] == "quick"

    broken = read_progress(text.replace(f"  {key}: ", f"  {key}: {value} #", 1).encode(), "p.md")
    broken_iv = broken.data["interview"]
    assert isinstance(broken_iv, dict) and str(broken_iv[key]) != str(iv[key])
    with pytest.raises(GateRefusal) as info:
        machine.check_delegation(broken, "requirements", "q1", None, digest)
    assert info.value.code == "INVALID_STATE"


def test_a_quick_bypass_without_its_authorization_in_the_log_is_refused(repo: Path) -> None:
    """The record says bypassed_quick but the log's Mode block is gone (typed by hand, or
    imported): the machine refuses, whatever the record claims."""
    spec = Spec.init(repo / "specs/a", goal="Let customers apply a promo code.", root=repo)
    spec.mode(quick=True)
    spec.begin_interview(phase="requirements", interview_id="q1")
    text = Path(spec.progress).read_text(encoding="utf-8")
    mode = text[text.index("### Goal Grill - Mode"):text.index("### Requirements Grill")]
    assert "- Mode: quick" in mode
    for without in (text.replace(mode, ""), text.replace("- Mode: quick", "- Mode: interactive")):
        prog = read_progress(without.encode(), "p.md")
        iv = prog.data["interview"]
        assert isinstance(iv, dict) and iv["status"] == "bypassed_quick"
        with pytest.raises(GateRefusal) as info:
            machine.check_delegation(prog, "requirements", "q1", None, str(iv["context_digest"]))
        assert info.value.code == "QUICK_NOT_AUTHORIZED"


def test_the_machine_checks_the_approved_scope_itself(repo: Path) -> None:
    """The services' validation refuses a tree changed after approval before the machine
    runs; the machine refuses it too (its gate checks include the scope's), so a caller
    that skips the validation gets no approval the user did not give."""
    spec = approved_spec(repo)
    text = Path(spec.progress).read_text(encoding="utf-8")
    prog = read_progress(text.encode(), "p.md")
    iv = prog.data["interview"]
    assert isinstance(iv, dict)
    digest = str(iv["context_digest"])
    assert machine.check_delegation(prog, "requirements", "r1", None, digest)["decision"] == \
        "allow"
    changed = read_progress(text.replace("  - Several", "  - Unlimited", 1).encode(), "p.md")

    with pytest.raises(GateRefusal) as info:
        machine.check_delegation(changed, "requirements", "r1", None, digest)

    assert info.value.code == "APPROVAL_SCOPE_CHANGED" and "(D2 changed)" in info.value.message
