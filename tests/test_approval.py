"""resolve-approval: a table of replies against real gates, pure and through the installed CLI."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import mdgrill_command

from mdgrill.core import approval
from mdgrill.formats.progress import read_progress

A, R, D, C = "approve-artifact", "apply-revision", "approve-and-delegate", "clarification"
V, X, G, Q = "revise", "cancel", "ask-again", "request-revision"

# (gate snapshot, reply, expected action)
ROWS: list[tuple[str, str, str]] = [
    # the requirements artifact awaits approval. The framework: "Keep the phase in artifact
    # approval until the user explicitly approves"; "Do not infer defaults or approval from a
    # control-only reply". Only the artifact question's own selection approves (issue 38.4).
    ("req_artifact", "Approve requirements.md and continue to design (Recommended)", A),
    ("req_artifact", "approve requirements.md and continue to design", A),
    ("req_artifact", "1", A), ("req_artifact", "continue to design", A),
    ("req_artifact", "Continue to design.", A), ("req_artifact", "approve requirements.md", A),
    ("req_artifact", "APPROVE  Requirements.md.", A),
    ("req_artifact", "Request changes", Q), ("req_artifact", "2", Q),
    ("req_artifact", "Cancel", X), ("req_artifact", "3", X),
    ("req_artifact", "yes", G), ("req_artifact", "Yes!", G), ("req_artifact", "y", G),
    ("req_artifact", "ok", G), ("req_artifact", "Okay.", G), ("req_artifact", "approved", G),
    ("req_artifact", "LGTM", G), ("req_artifact", "looks good", G),
    ("req_artifact", "looks good, continue", G), ("req_artifact", "sounds good, proceed", G),
    ("req_artifact", "go ahead", G), ("req_artifact", "do it", G), ("req_artifact", "ship it", G),
    ("req_artifact", "continue", G), ("req_artifact", "proceed", G),
    ("req_artifact", "please continue", G),
    ("req_artifact", "yes please", G), ("req_artifact", "Approved, thanks!", G),
    ("req_artifact", "approve the requirements", G),
    ("req_artifact", "the requirements look good", G), ("req_artifact", "yes, go ahead", G),
    ("req_artifact", "perfect, ship it", G), ("req_artifact", "all good - proceed", G),
    ("req_artifact", "yes, continue to design", G),
    ("req_artifact", "looks good?", C), ("req_artifact", "approve?", C),
    ("req_artifact", 'he said "approve"', C), ("req_artifact", "'approve'", C),
    ("req_artifact", "“approved”", C), ("req_artifact", "do not continue", C),
    ("req_artifact", "don't approve", C), ("req_artifact", "not yet", C),
    ("req_artifact", "No, do not approve this file", C),
    ("req_artifact", "no", C), ("req_artifact", "wait", C), ("req_artifact", "yes no", C),
    ("req_artifact", "looks good but add caching", C), ("req_artifact", "change the design", C),
    ("req_artifact", "approve after you fix X", C),
    ("req_artifact", "approve once the tests pass", C),
    ("req_artifact", "yes, but rename R2", C), ("req_artifact", "approve and add caching", C),
    ("req_artifact", "continue to requirements", C), ("req_artifact", "continue to tasks", C),
    ("req_artifact", "4", C), ("req_artifact", "approve design.md", C),
    ("req_artifact", "apply the changes", C), ("req_artifact", "", C),
    ("req_artifact", "   ", C), ("req_artifact", "👍", C), ("req_artifact", "maybe", C),
    ("req_artifact", "I think so", C), ("req_artifact", "ok\x07", C),
    ("req_artifact", "skip", C), ("req_artifact", "thanks", C), ("req_artifact", "and then", C),
    ("req_artifact", "yes " * 30, C),
    # a revision was requested for it
    ("req_revision", "apply the changes", R), ("req_revision", "Apply the changes, please", R),
    ("req_revision", "yes, apply the changes", R),
    ("req_revision", "go ahead and apply the changes", R),
    ("req_revision", "make the changes", R), ("req_revision", "yes", C),
    ("req_revision", "looks good", C), ("req_revision", "approved", C),
    ("req_revision", "apply the changes?", C), ("req_revision", "don't apply the changes", C),
    ("req_revision", "apply the changes and continue to design", C),
    # the design interview awaits confirmation. The framework: "Ask `Approve and delegate`,
    # `Revise decisions`, or `Cancel`. Only the explicit approval selection completes the
    # gate." "If control-only text: keep awaiting_confirmation; repeat the approval question."
    ("design_interview", "Approve and delegate", D),
    ("design_interview", "Approve and delegate (Recommended)", D),
    ("design_interview", "  approve AND delegate  ", D), ("design_interview", "1", D),
    ("design_interview", "approve and delegate.", D),
    ("design_interview", "Revise decisions", V), ("design_interview", "2", V),
    ("design_interview", "Cancel", X), ("design_interview", "cancel", X),
    ("design_interview", "yes", G), ("design_interview", "proceed", G),
    ("design_interview", "looks good", G), ("design_interview", "approved", G),
    ("design_interview", "sounds good, proceed", G), ("design_interview", "👍", G),
    ("design_interview", "lgtm", G), ("design_interview", "go ahead", G),
    ("design_interview", "continue to design", C),
    ("design_interview", "go ahead with the design", C),
    ("design_interview", "approve and delegate it to the agent", C),
    ("design_interview", "continue to tasks", C),
    ("design_interview", "approve the requirements", C),
    ("design_interview", "apply the changes", G), ("design_interview", "not yet", C),
    # the design artifact awaits approval
    ("design_artifact", "Approve design.md and continue to tasks (Recommended)", A),
    ("design_artifact", "continue to tasks", A),
    ("design_artifact", "the design looks good", G), ("design_artifact", "approve the design", G),
    ("design_artifact", "lgtm", G), ("design_artifact", "continue to design", C),
    ("design_artifact", "approve requirements.md", C),
    ("design_artifact", "approve the requirements", C),
    ("design_artifact", "change the design", C),
    # nothing awaits the user's word
    ("no_gate", "yes", C), ("no_gate", "approved", C), ("no_gate", "continue to design", C),
    # two gates are open at once
    ("two_gates", "yes", C), ("two_gates", "approve the design", C),
    ("two_gates", "apply the changes", C),
]

# Through the CLI (a process each): the first two replies of each (gate, action) pair, to
# prove that resolving writes no byte; the whole table goes through `resolve` in process.
CLI_ROWS = [row for i, row in enumerate(ROWS)
            if sum(1 for r in ROWS[:i] if r[0] == row[0] and r[2] == row[2]) < 2]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
                "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C.UTF-8"})
    return env


def _run(cwd: Path, env: dict[str, str], *args: str, code: int = 0) -> dict[str, object]:
    proc = subprocess.run([*mdgrill_command(), "--json", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == code, (args, proc.stdout, proc.stderr)
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def _interview(cwd: Path, env: dict[str, str], phase: str, iid: str, confirm: bool) -> None:
    spec = "specs/s"
    _run(cwd, env, "begin-interview", spec, "--phase", phase, "--interview-id", iid)
    _run(cwd, env, "open-frontier", spec, "--round", "1", "--decision-id", f"{iid}.D1")
    _run(cwd, env, "record-answer", spec, "--decision-id", f"{iid}.D1", "--answer", "Customers")
    _run(cwd, env, "await-confirmation", spec, "--decision-id", f"{iid}.C", "--approach", "A")
    if confirm:
        _run(cwd, env, "confirm", spec, "--decision-id", f"{iid}.C", "--source",
             "approve-and-delegate", "--no-commit")


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """`.progress.md` bytes at each gate, built by driving a spec through the CLI."""
    home = tmp_path_factory.mktemp("home")
    work = tmp_path_factory.mktemp("spec")
    env = _env(home)
    progress = work / "specs" / "s" / ".progress.md"
    shots: dict[str, bytes] = {}
    _run(work, env, "init", "specs/s", "--goal", "Passwordless login")
    _interview(work, env, "requirements", "req-1", confirm=True)
    (work / "specs/s/requirements.md").write_text("# Requirements\n")
    _run(work, env, "await-artifact-approval", "specs/s", "--artifact", "requirements.md")
    shots["req_artifact"] = progress.read_bytes()
    _run(work, env, "request-revision", "specs/s", "--feedback", "add caching")
    shots["req_revision"] = progress.read_bytes()
    (work / "specs/s/requirements.md").write_text("# Requirements\n\n- caching\n")
    _run(work, env, "await-artifact-approval", "specs/s", "--artifact", "requirements.md")
    _run(work, env, "approve-artifact", "specs/s", "--source", "approve-artifact", "--no-commit")
    _run(work, env, "begin-interview", "specs/s", "--phase", "design", "--interview-id", "des-1")
    shots["no_gate"] = progress.read_bytes()
    _run(work, env, "open-frontier", "specs/s", "--round", "1", "--decision-id", "des-1.D1")
    _run(work, env, "record-answer", "specs/s", "--decision-id", "des-1.D1", "--answer", "JWT")
    _run(work, env, "await-confirmation", "specs/s", "--decision-id", "des-1.C", "--approach",
         "B")
    shots["design_interview"] = progress.read_bytes()
    _run(work, env, "confirm", "specs/s", "--decision-id", "des-1.C", "--source",
         "approve-and-delegate", "--no-commit")
    (work / "specs/s/design.md").write_text("# Design\n")
    _run(work, env, "await-artifact-approval", "specs/s", "--artifact", "design.md")
    shots["design_artifact"] = progress.read_bytes()
    _interview(work, env, "design", "des-2", confirm=False)
    shots["two_gates"] = progress.read_bytes()
    return shots


def test_table_is_large_enough() -> None:
    assert len(ROWS) >= 40 and 10 <= len(CLI_ROWS) <= 40
    assert {(g, a) for g, _, a in CLI_ROWS} == {(g, a) for g, _, a in ROWS}
    assert len({(g, r) for g, r, _ in ROWS}) == len(ROWS)
    assert {a for _, _, a in ROWS} == {A, R, D, C, V, X, G, Q}


def test_snapshots_hold_the_gates_they_are_named_for(snapshots: dict[str, bytes]) -> None:
    gates = {name: [g.action for g in approval.live_gates(read_progress(raw, name).data)]
             for name, raw in snapshots.items()}
    assert gates == {"req_artifact": [A], "req_revision": [R], "no_gate": [],
                     "design_interview": [D], "design_artifact": [A], "two_gates": [D, A]}


@pytest.mark.parametrize(("gate", "reply", "expected"), ROWS)
def test_resolve_pure(snapshots: dict[str, bytes], gate: str, reply: str, expected: str) -> None:
    data = read_progress(snapshots[gate], gate).data
    resolution = approval.resolve(data, reply)
    assert resolution.action == expected, resolution.reason
    assert resolution.reason
    if expected in (G, C) and gate == "design_interview":
        assert resolution.to_json()["options"] == [
            "Approve and delegate (Recommended)", "Revise decisions", "Cancel"]
    if expected in (G, C) and gate in ("req_artifact", "design_artifact"):
        # the artifact question's own options, to ask again with
        approve = {"req_artifact": "Approve requirements.md and continue to design",
                   "design_artifact": "Approve design.md and continue to tasks"}[gate]
        assert resolution.to_json()["options"] == [f"{approve} (Recommended)",
                                                   "Request changes", "Cancel"]


def test_artifact_reasons_name_the_selection_and_the_way_on(snapshots: dict[str, bytes],
                                                             ) -> None:
    """What the agent reads back: the selection that approved, and for `apply the changes`
    before any feedback, the verb that records feedback."""
    data = read_progress(snapshots["req_artifact"], "req").data
    assert "`Approve requirements.md and continue to design (Recommended)`" in \
        approval.resolve(data, "1").reason
    assert "request-revision" in approval.resolve(data, "apply the changes").reason
    assert "says nothing" in approval.resolve(data, "and then").reason


def _cli_row(base: Path, env: dict[str, str], index: int, raw: bytes, reply: str,
             expected: str) -> str | None:
    folder = base / f"row{index}" / "specs" / "s"
    folder.mkdir(parents=True)
    progress = folder / ".progress.md"
    progress.write_bytes(raw)
    out = _run(base / f"row{index}", env, "resolve-approval", "specs/s", "--text", reply)
    after = progress.read_bytes()
    if out.get("ok") is not True or out.get("action") != expected:
        return f"{reply!r}: {out}"
    # "resolve-approval only resolves: at either gate a call writes nothing"
    return None if after == raw and out["written"] is False else f"{reply!r} wrote the file"


def test_resolve_through_the_cli(snapshots: dict[str, bytes], tmp_path: Path) -> None:
    env = _env(tmp_path)
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(_cli_row, tmp_path, env, i, snapshots[gate], reply, expected)
                   for i, (gate, reply, expected) in enumerate(CLI_ROWS)]
        failures = [f.result() for f in futures]
    assert [f for f in failures if f is not None] == []


def _awaiting(tmp_path: Path, snapshots: dict[str, bytes]) -> tuple[Path, dict[str, str]]:
    folder = tmp_path / "specs" / "s"
    folder.mkdir(parents=True)
    (folder / ".progress.md").write_bytes(snapshots["design_interview"])
    (folder / "requirements.md").write_text("# Requirements\n\n- caching\n")
    return folder / ".progress.md", _env(tmp_path)


@pytest.mark.parametrize("reply", ["yes", "proceed", "looks good", "approved", "Revise decisions",
                                   "Cancel", "ok go"])
def test_confirm_refuses_a_reply_that_is_not_the_explicit_selection(
        snapshots: dict[str, bytes], tmp_path: Path, reply: str) -> None:
    """The framework: "Accept only an explicit approval selection. Control-only replies do
    not approve."."""
    progress, env = _awaiting(tmp_path, snapshots)
    before = progress.read_bytes()
    out = _run(tmp_path, env, "confirm", "specs/s", "--decision-id", "des-1.C", "--source",
               "approve-and-delegate", "--reply", reply, "--no-commit", code=3)
    assert out["error"]["code"] == "APPROVAL_NOT_EXPLICIT"  # type: ignore[index]
    assert progress.read_bytes() == before


def test_confirm_records_the_explicit_selection(snapshots: dict[str, bytes],
                                                tmp_path: Path) -> None:
    progress, env = _awaiting(tmp_path, snapshots)
    _run(tmp_path, env, "confirm", "specs/s", "--decision-id", "des-1.C", "--source",
         "approve-and-delegate", "--reply", "Approve and delegate (Recommended)", "--no-commit")
    block = read_progress(progress.read_bytes(), "x").blocks[-1]
    assert block.kind == "confirmed"
    assert block.first("Reply") == '"Approve and delegate (Recommended)"'


def test_cancel_keeps_the_interview_open_and_delegation_refused(
        snapshots: dict[str, bytes], tmp_path: Path) -> None:
    """The framework: "If Cancel: leave the interview nonterminal; stop without
    delegation"."""
    progress, env = _awaiting(tmp_path, snapshots)
    out = _run(tmp_path, env, "cancel", "specs/s", "--reply", "Cancel")
    assert out["status"] == "awaiting_confirmation"
    prog = read_progress(progress.read_bytes(), "x")
    assert prog.blocks[-1].kind == "cancelled"
    assert prog.blocks[-1].first("Reply") == '"Cancel"'
    refused = _run(tmp_path, env, "check-delegation", "specs/s", "--phase", "design",
                   "--interview-id", "des-1", code=3)
    assert refused["error"]["code"] == "INTERVIEW_INCOMPLETE"  # type: ignore[index]
    assert _run(tmp_path, env, "validate", "specs/s")["ok"] is True


def test_units_are_table_phrases_only() -> None:
    assert approval.units("yes continue to the design phase") == [("ack", ""),
                                                                  ("go_phase", "design")]
    assert approval.units("looks good but add caching") is None
    assert approval.units("the requirements look good") == [("approve_phase", "requirements")]


# Replies that look like the approval selection and are not it: each must leave the gate open.
NEAR_MISSES = ["Approve and delegate!", "Approve and delegate?", "approve and delegate please",
               "Approve and delegate (Recommended)?", "(Recommended)", "Approve", "delegate",
               "approve & delegate", "Approve and delegate, but add caching", "1)", "01", "0",
               "4", "1 2", "3", "2.", "Revise decisions (Recommended)", "Cancel.",
               "don't approve and delegate", "Approve and delegate Approve and delegate"]
DESIGN_ROWS = [(reply, expected) for gate, reply, expected in ROWS
               if gate == "design_interview"] + [(reply, "refused") for reply in NEAR_MISSES]


@pytest.mark.parametrize(("reply", "expected"), DESIGN_ROWS)
def test_confirm_takes_only_the_explicit_selection_pure(
        snapshots: dict[str, bytes], reply: str, expected: str) -> None:
    """The framework: "Only the explicit approval selection completes the gate." The state
    machine's own check, in process, over every reply the table knows for this gate."""
    from mdgrill.core import machine
    from mdgrill.errors import GateRefusal

    prog = read_progress(snapshots["design_interview"], "design_interview")
    if expected == D:
        change, result = machine.confirm(prog.data, prog, "des-1.C", "approve-and-delegate",
                                         reply)
        assert result["status"] == "complete"
        assert change.updates["interview"]["status"] == "complete"  # type: ignore[index]
        return
    with pytest.raises(GateRefusal) as refused:
        machine.confirm(prog.data, prog, "des-1.C", "approve-and-delegate", reply)
    assert refused.value.code == "APPROVAL_NOT_EXPLICIT", reply


def test_table_of_explicit_selections_is_large_enough() -> None:
    accepted = [r for r, e in DESIGN_ROWS if e == D]
    refused = [r for r, e in DESIGN_ROWS if e != D]
    assert len(accepted) >= 5 and len(refused) >= 30


def _design(snapshots: dict[str, bytes]) -> object:
    return read_progress(snapshots["design_interview"], "design_interview")


def test_confirm_refusals_name_what_is_expected(snapshots: dict[str, bytes]) -> None:
    from mdgrill.core import machine
    from mdgrill.errors import GateRefusal

    prog = _design(snapshots)
    with pytest.raises(GateRefusal) as wrong_id:
        machine.confirm(prog.data, prog, "des-1.X", "approve-and-delegate")  # type: ignore[attr-defined]
    assert wrong_id.value.code == "CONFIRMATION_ID_MISMATCH"
    assert "(des-1.C)" in wrong_id.value.message  # the pending confirmation, by its ID
    with pytest.raises(GateRefusal) as wrong_source:
        machine.confirm(prog.data, prog, "des-1.C", "looks-good")  # type: ignore[attr-defined]
    assert wrong_source.value.code == "INVALID_CONFIRMATION_SOURCE"


@pytest.mark.parametrize("reply", [None, "Approve and delegate (Recommended)"])
def test_confirm_writes_the_confirmed_block(snapshots: dict[str, bytes],
                                            reply: str | None) -> None:
    from mdgrill.core import machine

    prog = _design(snapshots)
    change, result = machine.confirm(prog.data, prog, "des-1.C",  # type: ignore[attr-defined]
                                     "approve-and-delegate", reply)
    heading, lines = change.new_blocks[-1]
    assert heading.endswith("Design Grill - Confirmed")
    assert lines[:4] == ["- Interview: des-1", "- Confirmation ID: des-1.C",
                         "- Source: approve-and-delegate", "- Status: complete"]
    assert (f'- Reply: "{reply}"' in lines) == (reply is not None)
    scope = result.pop("approval_scope")  # what the user approved (model/scope.py)
    assert isinstance(scope, str) and len(scope) == 64 and f"- Approval scope: {scope}" in lines
    assert result == {"status": "complete", "round": 1}


def test_confirm_after_a_skip_records_skipped(snapshots: dict[str, bytes]) -> None:
    """The framework: a skip ends `skipped`, with its assumptions, once the user approves."""
    from mdgrill.core import machine

    prog = _design(snapshots)
    prog.data["interview"]["bypass_reason"] = "the user skipped"  # type: ignore[attr-defined, index]
    change, result = machine.confirm(prog.data, prog, "des-1.C",  # type: ignore[attr-defined]
                                     "approve-and-delegate")
    assert result["status"] == "skipped"
    assert "- Status: skipped" in change.new_blocks[-1][1]


def test_check_delegation_needs_this_interview_approved_and_unchanged(
        snapshots: dict[str, bytes]) -> None:
    """The gate itself, in process: only the named, approved interview with the digest it
    recorded is delegated; each other case has its own refusal."""
    from mdgrill.core import machine
    from mdgrill.errors import GateRefusal
    from mdgrill.formats.progress import apply_change

    prog = _design(snapshots)
    digest = str(prog.data["interview"]["context_digest"])  # type: ignore[attr-defined, index]
    for phase, iid, code in (("design", "des-1", "INTERVIEW_INCOMPLETE"),
                             ("requirements", "des-1", "INTERVIEW_STALE"),
                             ("design", "des-9", "INTERVIEW_STALE")):
        with pytest.raises(GateRefusal) as refused:
            machine.check_delegation(prog, phase, iid, None, digest)  # type: ignore[arg-type]
        assert refused.value.code == code, (phase, iid)
    change, _ = machine.confirm(prog.data, prog, "des-1.C",  # type: ignore[attr-defined]
                                "approve-and-delegate")
    approved = read_progress(apply_change(prog, change).encode(), "approved")  # type: ignore[arg-type]
    allowed = machine.check_delegation(approved, "design", "des-1", None, digest)
    assert allowed == {"decision": "allow", "path": "interview", "status": "complete",
                       "context_digest": digest}
    assert machine.check_delegation(approved, "design", "des-1", digest, digest)["decision"] \
        == "allow"
    words = {("f" * 64, digest): f"the digest you hold ({'f' * 12}…) is not the one the "
             f"interview recorded ({digest[:12]}…)",
             (digest, "f" * 64): f"recorded {digest[:12]}…, now {'f' * 12}…:"}
    for (given, current), message in words.items():
        with pytest.raises(GateRefusal) as stale:
            machine.check_delegation(approved, "design", "des-1", given, current)
        assert stale.value.code == "CONTEXT_STALE" and message in stale.value.message
    # a decision added to the tree after the approval: the gate runs again and refuses
    grown = read_progress(apply_change(prog, change).replace(  # type: ignore[arg-type]
        "## Design Tree\n", "## Design Tree\n\n### des-1.D9: Added after the approval\n"
        "- Depends on: none\n", 1).encode(), "grown")
    with pytest.raises(GateRefusal) as open_frontier:
        machine.check_delegation(grown, "design", "des-1", None, digest)
    assert open_frontier.value.code == "FRONTIER_OPEN"


def test_check_delegation_refuses_a_broken_record_and_a_stale_discovery(
        snapshots: dict[str, bytes]) -> None:
    from mdgrill.core import machine
    from mdgrill.errors import GateRefusal
    from mdgrill.formats.progress import apply_change

    prog = _design(snapshots)
    digest = str(prog.data["interview"]["context_digest"])  # type: ignore[attr-defined, index]
    change, _ = machine.confirm(prog.data, prog, "des-1.C",  # type: ignore[attr-defined]
                                "approve-and-delegate")
    text = apply_change(prog, change)  # type: ignore[arg-type]

    def approved() -> object:
        return read_progress(text.encode(), "approved")
    pending = approved()
    pending.data["interview"]["pending"] = ["X9"]  # type: ignore[attr-defined, index]
    bad_phase = approved()
    bad_phase.data["phase"] = "bogus"  # type: ignore[attr-defined]
    for broken, code in ((pending, "INVALID_STATE"), (bad_phase, "INVALID_PHASE")):
        with pytest.raises(GateRefusal) as refused:
            machine.check_delegation(broken, "design", "des-1", None, digest)  # type: ignore[arg-type]
        assert refused.value.code == code
    seen = approved()
    seen.data["interview"]["discovery_revision"] = 3  # type: ignore[attr-defined, index]
    assert machine.check_delegation(seen, "design", "des-1", None, digest,  # type: ignore[arg-type]
                                    "3")["decision"] == "allow"
    with pytest.raises(GateRefusal) as stale:
        machine.check_delegation(seen, "design", "des-1", None, digest, "4")  # type: ignore[arg-type]
    assert stale.value.code == "DISCOVERY_STALE"
