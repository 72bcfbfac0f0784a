"""The artifact approval gate: pure transitions, and whole phases through the installed CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import mdgrill_command

from mdgrill.core import artifact_gate
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import read_progress
from mdgrill.model.artifact import check_artifact

SHA_A = "a" * 64
SHA_B = "b" * 64
DIGEST = "c" * 64


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
                "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C.UTF-8"})
    return env


class Cli:
    """Runs the installed mdgrill in one folder with HOME and git config kept in tmp_path."""

    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd = cwd
        self.env = _env(home)

    def __call__(self, *args: str, code: int = 0) -> dict[str, object]:
        proc = subprocess.run([*mdgrill_command(), "--json", *args], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.cwd, env=self.env, check=True,
                              capture_output=True, text=True).stdout


def _repo(tmp_path: Path, identity: bool = True) -> Cli:
    work = tmp_path / "repo"
    work.mkdir()
    cli = Cli(work, tmp_path)
    cli.git("init", "-q", "-b", "main")
    if identity:
        cli.git("config", "user.name", "Tess Ter")
        cli.git("config", "user.email", "tess@example.com")
        cli.git("commit", "-q", "--allow-empty", "-m", "root")
    return cli


def _interview(cli: Cli, spec: str, phase: str, iid: str, *, no_commit: bool = False) -> None:
    """begin -> one round -> await-confirmation -> confirm."""
    cli("begin-interview", spec, "--phase", phase, "--interview-id", iid)
    cli("open-frontier", spec, "--round", "1", "--decision-id", f"{iid}.D1")
    cli("record-answer", spec, "--decision-id", f"{iid}.D1", "--answer", "External customers")
    cli("await-confirmation", spec, "--decision-id", f"{iid}.C", "--approach", "Email links")
    extra = ["--no-commit"] if no_commit else []
    cli("confirm", spec, "--decision-id", f"{iid}.C", "--source", "approve-and-delegate",
        *extra)


def _plain_spec(tmp_path: Path) -> tuple[Cli, str, Path]:
    """A new spec `specs/s` in a folder that is not a git repository."""
    work = tmp_path / "plain"
    work.mkdir()
    cli = Cli(work, tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    return cli, spec, work / spec


def _front(path: Path) -> dict[str, object]:
    return read_progress(path.read_bytes(), str(path)).data


def _kinds(path: Path) -> list[str]:
    return [b.kind for b in read_progress(path.read_bytes(), str(path)).blocks]


# -- the whole flow ------------------------------------------------------------------------


def test_two_phases_end_to_end_in_git(tmp_path: Path) -> None:
    cli = _repo(tmp_path)
    spec = "specs/login"
    progress = cli.cwd / spec / ".progress.md"
    req = cli.cwd / spec / "requirements.md"
    cli("init", spec, "--goal", "Passwordless login")
    _interview(cli, spec, "requirements", "req-1")
    allowed = cli("check-delegation", spec, "--phase", "requirements", "--interview-id", "req-1")
    assert allowed["decision"] == "allow" and allowed["checked"] == "history"

    req.write_text("# Requirements\n\n- R1 email link\n")
    sub = cli("await-artifact-approval", spec, "--artifact", f"{spec}/requirements.md")
    assert sub["status"] == "awaiting_approval" and sub["warnings"] == []
    revision = cli("request-revision", spec, "--feedback", "add a\nlink lifetime requirement")
    assert revision["feedback_round"] == 1
    assert "- Feedback: add a link lifetime requirement" in progress.read_text()
    # the gate stays open: the design interview may not begin
    refused = cli("begin-interview", spec, "--phase", "design", "--interview-id", "des-1", code=3)
    assert refused["error"]["code"] == "ARTIFACT_NOT_APPROVED"  # type: ignore[index]

    req.write_text("# Requirements\n\n- R1 email link\n- R2 links last 15 minutes\n")
    again = cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    assert again["resubmitted"] is True and again["changed"] is True
    head_before = cli.git("rev-parse", "HEAD").strip()
    approved = cli("approve-artifact", spec, "--source", "approve-artifact")
    assert approved["phase"] == "design" and approved["advanced"] is True
    assert _front(progress)["phase"] == "design"

    message = cli.git("log", "-1", "--format=%B")
    assert message.startswith("grill(requirements): approve artifact specs/login/requirements.md")
    assert "Mdgrill-Transition: approve-artifact\n" in message
    assert f"Mdgrill-Artifact: {spec}/requirements.md\n" in message
    assert f"Mdgrill-Artifact-Sha256: {approved['sha256']}\n" in message
    assert cli.git("rev-parse", "HEAD^").strip() == head_before
    committed = set(cli.git("show", "--name-only", "--format=", "HEAD").split())
    assert committed == {f"{spec}/.progress.md", f"{spec}/requirements.md"}
    assert cli.git("status", "--porcelain", "--", spec) == ""

    began = cli("begin-interview", spec, "--phase", "design", "--interview-id", "des-1")
    assert began["status"] == "collecting"
    context = _front(progress)["interview"]["context"]  # type: ignore[index]
    assert context == [{"path": f"{spec}/requirements.md", "sha256": approved["sha256"]}]
    kinds = [k for k in _kinds(progress) if k.startswith("artifact_")]
    assert kinds == ["artifact_awaiting", "artifact_revision", "artifact_awaiting",
                     "artifact_approved"]


def test_artifact_changed_between_await_and_approve(tmp_path: Path) -> None:
    cli = _repo(tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    _interview(cli, spec, "requirements", "req-1")
    art = cli.cwd / spec / "requirements.md"
    art.write_text("v1\n")
    cli("await-artifact-approval", spec, "--artifact", str(art))
    before = (cli.cwd / spec / ".progress.md").read_bytes()
    head = cli.git("rev-parse", "HEAD")
    art.write_text("v2\n")
    out = cli("approve-artifact", spec, "--source", "approve-artifact", code=3)
    error = out["error"]
    assert isinstance(error, dict) and error["code"] == "ARTIFACT_CHANGED"
    assert (cli.cwd / spec / ".progress.md").read_bytes() == before
    assert cli.git("rev-parse", "HEAD") == head


def test_wrong_source_and_interview_gates(tmp_path: Path) -> None:
    cli = _repo(tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    (cli.cwd / spec / "requirements.md").write_text("r\n")
    out = cli("await-artifact-approval", spec, "--artifact", "requirements.md", code=3)
    assert out["error"]["code"] == "INTERVIEW_MISSING"  # type: ignore[index]
    cli("begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1")
    out = cli("await-artifact-approval", spec, "--artifact", "requirements.md", code=3)
    assert out["error"]["code"] == "INTERVIEW_INCOMPLETE"  # type: ignore[index]
    cli("open-frontier", spec, "--round", "1", "--decision-id", "D1")
    cli("record-answer", spec, "--decision-id", "D1", "--answer", "Customers")
    cli("await-confirmation", spec, "--decision-id", "C1", "--approach", "A")
    cli("confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate")
    out = cli("approve-artifact", spec, "--source", "approve-artifact", code=3)
    assert out["error"]["code"] == "ARTIFACT_NOT_SUBMITTED"  # type: ignore[index]
    out = cli("await-artifact-approval", spec, "--artifact", ".progress.md", code=2)
    assert out["error"]["code"] == "INVALID_ARTIFACT"  # type: ignore[index]
    outside = cli.cwd.parent / "outside.md"
    outside.write_text("x\n")
    out = cli("await-artifact-approval", spec, "--artifact", str(outside), code=2)
    assert out["error"]["code"] == "PATH_OUTSIDE_REPOSITORY"  # type: ignore[index]
    cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    before = (cli.cwd / spec / ".progress.md").read_bytes()
    for source in ("approve-and-delegate", "yes", "approve"):
        out = cli("approve-artifact", spec, "--source", source, code=3)
        assert out["error"]["code"] == "INVALID_CONFIRMATION_SOURCE"  # type: ignore[index]
    out = cli("request-revision", spec, "--feedback", "apply the changes", code=3)
    assert out["error"]["code"] == "CONTROL_ONLY_ANSWER"  # type: ignore[index]
    assert (cli.cwd / spec / ".progress.md").read_bytes() == before


def test_identity_missing_writes_the_file_and_refuses_the_commit(tmp_path: Path) -> None:
    cli = _repo(tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    _interview(cli, spec, "requirements", "req-1")
    (cli.cwd / spec / "requirements.md").write_text("r\n")
    cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    cli.git("config", "--unset", "user.name")
    cli.git("config", "--unset", "user.email")
    out = cli("approve-artifact", spec, "--source", "approve-artifact", code=3)
    assert out["error"]["code"] == "GIT_IDENTITY_MISSING"  # type: ignore[index]
    data = _front(cli.cwd / spec / ".progress.md")
    assert data["phase"] == "design"
    assert data["artifact"]["status"] == "approved"  # type: ignore[index]


def test_outside_git_with_no_commit_and_tasks_is_last(tmp_path: Path) -> None:
    cli, spec, folder = _plain_spec(tmp_path)
    for phase, name, nxt in (("requirements", "requirements.md", "design"),
                             ("design", "design.md", "tasks"), ("tasks", "tasks.md", "tasks")):
        _interview(cli, spec, phase, f"{phase[:3]}-1", no_commit=True)
        (folder / name).write_text(f"# {phase}\n")
        cli("await-artifact-approval", spec, "--artifact", name)
        out = cli("approve-artifact", spec, "--source", "approve-artifact")
        assert out["phase"] == nxt and out["commit"] is None
        assert out["commit_skipped"] == "not a git repository"
    text = (folder / ".progress.md").read_text()
    assert "- Next phase: none (tasks is the last phase)" in text
    assert _front(folder / ".progress.md")["artifact"]["status"] == "approved"  # type: ignore[index]


def test_specs_that_never_used_the_gate_keep_working(tmp_path: Path) -> None:
    work = tmp_path / "plain"
    work.mkdir()
    cli = Cli(work, tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    _interview(cli, spec, "requirements", "req-1", no_commit=True)
    (work / spec / "requirements.md").write_text("r\n")
    out = cli("begin-interview", spec, "--phase", "design", "--interview-id", "des-1")
    assert out["status"] == "collecting"


def test_approved_artifact_changed_before_next_phase_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "plain"
    work.mkdir()
    cli = Cli(work, tmp_path)
    spec = "specs/s"
    cli("init", spec, "--goal", "G")
    _interview(cli, spec, "requirements", "req-1", no_commit=True)
    req = work / spec / "requirements.md"
    req.write_text("r1\n")
    cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    cli("approve-artifact", spec, "--source", "approve-artifact", "--no-commit")
    req.write_text("r1 edited\n")
    out = cli("begin-interview", spec, "--phase", "design", "--interview-id", "des-1", code=3)
    assert out["error"]["code"] == "ARTIFACT_CHANGED"  # type: ignore[index]
    # re-submitting re-opens the gate; phase stays design until approved again
    again = cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    assert again["status"] == "awaiting_approval" and again["phase"] == "requirements"
    cli("approve-artifact", spec, "--source", "approve-artifact", "--no-commit")
    assert cli("begin-interview", spec, "--phase", "design",
               "--interview-id", "des-1")["status"] == "collecting"


# -- pure transitions --------------------------------------------------------------------


def _data(**art: object) -> dict[str, object]:
    iv = {"id": "req-1", "phase": "requirements", "round": 1, "status": "complete",
          "context_digest": DIGEST, "context": [], "asked": ["C"], "pending": [],
          "approach": "A", "confirmation": "approve-and-delegate", "bypass_reason": None,
          "assumptions": []}
    data: dict[str, object] = {"mdgrill": 1, "phase": "requirements", "interview": iv}
    if art:
        record = {"phase": "requirements", "path": "specs/s/requirements.md", "sha256": SHA_A,
                  "status": "awaiting_approval", "feedback_round": 0, "interview": "req-1"}
        record.update(art)
        data["artifact"] = record
    return data


def test_submit_records_sha_and_block() -> None:
    change, result = artifact_gate.submit(_data(), "specs/s/requirements.md", SHA_A, "specs/s",
                                          DIGEST)
    assert change.updates["artifact"] == {
        "phase": "requirements", "path": "specs/s/requirements.md", "sha256": SHA_A,
        "status": "awaiting_approval", "feedback_round": 0, "interview": "req-1"}
    heading, lines = change.new_blocks[0]
    assert heading == "### Requirements Artifact - Awaiting Approval"
    assert lines == ["- Artifact: specs/s/requirements.md", f"- Sha256: {SHA_A}",
                     "- Interview: req-1"]
    assert result["gate"] == f"artifact:specs/s/requirements.md@{SHA_A[:12]}"


def test_submit_warns_for_an_unusual_name_and_refuses_stale_context() -> None:
    _, result = artifact_gate.submit(_data(), "docs/reqs.md", SHA_A, "specs/s", DIGEST)
    assert result["warnings"] == ["the requirements artifact is normally "
                                  "specs/s/requirements.md, not docs/reqs.md"]
    with pytest.raises(GateRefusal) as info:
        artifact_gate.submit(_data(), "specs/s/requirements.md", SHA_A, "specs/s", "d" * 64)
    assert info.value.code == "CONTEXT_STALE"


def test_submit_same_bytes_again_is_a_no_op() -> None:
    change, result = artifact_gate.submit(_data(sha256=SHA_A), "specs/s/requirements.md", SHA_A,
                                          "specs/s", DIGEST)
    assert not change.updates and not change.new_blocks
    assert result["resubmitted"] is False


def test_submit_unchanged_after_revision_warns() -> None:
    change, result = artifact_gate.submit(
        _data(status="revision_requested", feedback_round=1), "specs/s/requirements.md", SHA_A,
        "specs/s", DIGEST)
    assert change.updates["artifact"]["status"] == "awaiting_approval"  # type: ignore[index]
    assert "the feedback was not applied" in str(result["warnings"])


def test_approve_refusals_in_order() -> None:
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(), "approve-artifact", SHA_A, DIGEST)
    assert info.value.code == "ARTIFACT_NOT_SUBMITTED"
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(sha256=SHA_A), "approve-and-delegate", SHA_A, DIGEST)
    assert info.value.code == "INVALID_CONFIRMATION_SOURCE"
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(status="revision_requested", feedback_round=1),
                              "approve-artifact", SHA_A, DIGEST)
    assert info.value.code == "ARTIFACT_REVISION_REQUESTED"
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(sha256=SHA_A), "approve-artifact", SHA_B, DIGEST)
    assert info.value.code == "ARTIFACT_CHANGED" and info.value.exit_code == 3
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(sha256=SHA_A), "approve-artifact", None, DIGEST)
    assert info.value.code == "ARTIFACT_CHANGED"
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(sha256=SHA_A, interview="req-0"), "approve-artifact", SHA_A,
                              DIGEST)
    assert info.value.code == "INTERVIEW_STALE"
    with pytest.raises(GateRefusal) as info:
        artifact_gate.approve(_data(status="approved"), "approve-artifact", SHA_A, DIGEST)
    assert info.value.code == "ILLEGAL_TRANSITION"


@pytest.mark.parametrize(("phase", "expected"), [
    ("start", "research"), ("research", "requirements"), ("requirements", "design"),
    ("design", "tasks"), ("tasks", "tasks"), ("triage", "triage")])
def test_approve_advances_the_phase(phase: str, expected: str) -> None:
    data = _data(phase=phase)
    data["phase"] = phase
    data["interview"]["phase"] = phase  # type: ignore[index]
    change, result = artifact_gate.approve(data, "approve-artifact", SHA_A, DIGEST)
    assert result["phase"] == expected
    assert change.updates.get("phase", phase) == expected
    assert change.updates["artifact"]["status"] == "approved"  # type: ignore[index]


def test_check_artifact_invariants() -> None:
    assert check_artifact({}) == []
    assert check_artifact(_data(sha256=SHA_A)) == []
    bad: list[tuple[dict[str, object], str]] = [
           ({"path": "../x.md"}, "path"), ({"path": "/abs.md"}, "path"),
           ({"sha256": "xyz"}, "sha256"), ({"status": "done"}, "status"),
           ({"feedback_round": -1}, "feedback_round"), ({"feedback_round": True}, "feedback"),
           ({"status": "revision_requested", "feedback_round": 0}, "revision_requested"),
           ({"interview": "1bad"}, "interview"), ({"phase": "coding"}, "phase")]
    for fields, word in bad:
        problems = check_artifact(_data(**fields))
        assert len(problems) == 1 and word in problems[0].message, fields
        assert problems[0].key == "artifact" and problems[0].code == "INVALID_STATE"
    data = _data(sha256=SHA_A)
    del data["artifact"]["interview"]  # type: ignore[attr-defined]
    assert "lacks interview" in check_artifact(data)[0].message
    assert check_artifact({"artifact": "x"})[0].key == "artifact"


def test_check_begin_rules() -> None:
    # never used: anything goes
    artifact_gate.check_begin(_data(), [], "design", None)
    # open gate: a later phase is refused, the same phase and an earlier one are not
    open_gate = _data(sha256=SHA_A)
    for phase in ("requirements", "research"):
        artifact_gate.check_begin(open_gate, [], phase, None)
    with pytest.raises(GateRefusal) as info:
        artifact_gate.check_begin(open_gate, [], "design", None)
    assert info.value.code == "ARTIFACT_NOT_APPROVED"
    # used for an earlier phase, requirements interview done, no requirements artifact yet
    earlier = _data(phase="research", status="approved", path="specs/s/research.md")
    with pytest.raises(GateRefusal) as info:
        artifact_gate.check_begin(earlier, [], "design", SHA_A)
    assert info.value.code == "ARTIFACT_NOT_APPROVED"
    approved = _data(sha256=SHA_A, status="approved")
    artifact_gate.check_begin(approved, [], "design", SHA_A)
    with pytest.raises(GateRefusal) as info:
        artifact_gate.check_begin(approved, [], "design", SHA_B)
    assert info.value.code == "ARTIFACT_CHANGED"


def test_corpus_requirements_file_as_an_artifact(tmp_path: Path) -> None:
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ralph"
    source = corpus / "tzachbon__smart-ralph__adopt-grill-me-interview" / "requirements.md"
    if not source.is_file():
        pytest.skip("corpus not present")
    work = tmp_path / "plain"
    work.mkdir()
    cli = Cli(work, tmp_path)
    cli("init", "specs/s", "--goal", "G")
    _interview(cli, "specs/s", "requirements", "req-1", no_commit=True)
    shutil.copyfile(source, work / "specs/s/requirements.md")
    out = cli("await-artifact-approval", "specs/s", "--artifact", "requirements.md")
    import hashlib

    assert out["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()


def test_a_phase_advanced_by_hand_is_caught(tmp_path: Path) -> None:
    cli, spec, folder = _plain_spec(tmp_path)
    _interview(cli, spec, "requirements", "req-1", no_commit=True)
    (folder / "requirements.md").write_text("# requirements\n")
    cli("await-artifact-approval", spec, "--artifact", "requirements.md")
    progress = folder / ".progress.md"
    awaiting = progress.read_text()
    # one phase ahead without the artifact's approval: the log has no Approved block
    progress.write_text(awaiting.replace("phase: requirements\nmode:", "phase: design\nmode:"))
    out = cli("validate", spec, code=1)
    codes = [d["code"] for d in out["diagnostics"]]  # type: ignore[union-attr,index]
    assert codes == ["PHASE_NOT_APPROVED"]
    # two phases ahead: no verb reads the record any more
    progress.write_text(awaiting.replace("phase: requirements\nmode:", "phase: tasks\nmode:"))
    refused = cli("status", spec, code=0)["problems"]
    assert refused and "a phase advances only by `mdgrill approve-artifact`" in str(refused)
    before = progress.read_bytes()
    cli("approve-artifact", spec, "--source", "approve-artifact", code=2)
    assert progress.read_bytes() == before
