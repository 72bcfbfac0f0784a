"""Approvals as commits (docs/contract.md, issue 4): what `confirm`, a quick `begin-interview` and
`check-delegation` do in real repositories, through the installed CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command

SPEC = "specs/demo"
CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "req-1")


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def awaiting(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A `.progress.md` at awaiting_confirmation (C1), built once with the CLI (no git)."""
    top = tmp_path_factory.mktemp("template")
    env = {**os.environ, "HOME": str(top), "GIT_CONFIG_GLOBAL": str(top / ".gitconfig")}
    for argv in (["init", SPEC, "--goal", "Let customers apply a promo code."],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1"],
                 ["record-answer", SPEC, "--decision-id", "D1", "--answer", "Every customer"],
                 ["await-confirmation", SPEC, "--decision-id", "C1", "--approach",
                  "One code per order"]):
        subprocess.run([*mdgrill_command(), *argv], cwd=top, env=env, check=True,
                       capture_output=True)
    return (top / SPEC / ".progress.md").read_bytes()


def _place(root: Path, data: bytes, spec: str = SPEC) -> Path:
    path = root / spec / ".progress.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def spec_repo(repo: Path, awaiting: bytes) -> Path:
    """`repo` with the awaiting spec and a README committed on main."""
    _place(repo, awaiting)
    (repo / "README.md").write_text("readme\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    return repo


def _json(out: str) -> dict[str, object]:
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def _trailers(repo: Path, rev: str = "HEAD") -> dict[str, str]:
    text = _git(repo, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return dict(line.split(": ", 1) for line in text.splitlines() if line)


def _head(repo: Path) -> str:
    return _git(repo, "rev-parse", "HEAD")


# --------------------------------------------------------------------------- commits

def test_confirm_commits_only_the_spec_and_leaves_the_index_alone(
        spec_repo: Path, mdgrill: Run) -> None:
    repo = spec_repo
    (repo / "staged.txt").write_text("staged by the user\n")
    _git(repo, "add", "staged.txt")
    (repo / "README.md").write_text("edited, not staged\n")
    (repo / "scratch.txt").write_text("untracked\n")
    before = _head(repo)

    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)

    assert code == 0, out
    result = _json(out)
    assert result["status"] == "complete" and result["transition"] == "approve"
    assert result["commit"] == _head(repo) and _git(repo, "rev-parse", "HEAD~1") == before
    assert _git(repo, "show", "--name-only", "--format=", "HEAD") == f"{SPEC}/.progress.md"
    assert _git(repo, "log", "-1", "--format=%s") == "grill(requirements): approve req-1 (round 1)"
    trailers = _trailers(repo)
    digest = _json(mdgrill("--json", "digest", SPEC, cwd=repo)[1])["context_digest"]
    assert trailers == {"Mdgrill-Spec": SPEC, "Mdgrill-Phase": "requirements",
                        "Mdgrill-Interview": "req-1", "Mdgrill-Transition": "approve",
                        "Mdgrill-Context-Digest": digest,
                        "Mdgrill-Approval-Scope": result["approval_scope"],
                        "Mdgrill-Channel": "agent",
                        "Mdgrill-By": "Test User <test@example.com>"}
    assert _git(repo, "diff", "--cached", "--name-only") == "staged.txt"
    assert _git(repo, "diff", "--name-only") == "README.md"
    assert "?? scratch.txt" in _git(repo, "status", "--porcelain")
    assert _git(repo, "status", "--porcelain", "--", SPEC) == ""


def test_confirm_commits_the_glossary_the_interview_touched(repo: Path, mdgrill: Run) -> None:
    (repo / "README.md").write_text("readme\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    for argv in (["init", SPEC, "--goal", "Promo codes."],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1"],
                 ["record-answer", SPEC, "--decision-id", "D1", "--answer", "Every customer"],
                 ["term", "add", "Promo Code", "--definition", "A code a customer enters.",
                  "--spec", SPEC],
                 ["await-confirmation", SPEC, "--decision-id", "C1", "--approach", "one code"]):
        code, out, err = mdgrill(*argv, cwd=repo)
        assert code == 0, (argv, out, err)
    (repo / "other.md").write_text("not part of it\n")

    code, out, err = mdgrill("--json", *CONFIRM, cwd=repo)

    assert code == 0, (out, err)
    names = _git(repo, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert sorted(names) == ["CONTEXT.md", f"{SPEC}/.progress.md"]
    assert _json(out)["committed_paths"] == [f"{SPEC}/.progress.md", "CONTEXT.md"]
    assert "?? other.md" in _git(repo, "status", "--porcelain")


def test_a_hostile_spec_folder_name_cannot_forge_a_trailer(
        repo: Path, awaiting: bytes, mdgrill: Run) -> None:
    spec = "specs/x\nMdgrill-Phase: design"
    _place(repo, awaiting, spec)

    code, out, err = mdgrill("--json", "confirm", spec, "--decision-id", "C1", "--source",
                             "approve-and-delegate", cwd=repo)

    assert code == 0, (out, err)
    raw = _git(repo, "log", "-1", "--format=%B")
    assert "Mdgrill-Spec: specs/x%0AMdgrill-Phase: design" in raw
    assert _trailers(repo)["Mdgrill-Phase"] == "requirements"
    logged = _json(mdgrill("--json", "log", cwd=repo)[1])["transitions"]
    assert isinstance(logged, list) and logged[0]["spec"] == spec
    assert logged[0]["phase"] == "requirements"


def test_no_commit_flag_and_git_false_key_turn_commits_off(
        spec_repo: Path, awaiting: bytes, mdgrill: Run) -> None:
    before = _head(spec_repo)
    code, out, _ = mdgrill("--json", *CONFIRM, "--no-commit", cwd=spec_repo)
    assert code == 0 and _json(out)["status"] == "complete"
    assert _head(spec_repo) == before

    text = awaiting.decode().replace("skills: []\n", "skills: []\ngit: false\n", 1)
    _place(spec_repo, text.encode())
    code, out, err = mdgrill("--json", *CONFIRM, cwd=spec_repo)
    assert code == 0, (out, err)
    assert _json(out)["commit"] is None
    assert "git: false" in str(_json(out)["commit_skipped"])
    assert _head(spec_repo) == before
    # `git: false` turns off commits, never the check: inside a repository the approval
    # commit is still required (the spec is a file an agent can edit)
    code, out, _ = mdgrill("--json", *CHECK, cwd=spec_repo)
    assert code == 3 and _json(out)["error"]["code"] == "APPROVAL_NOT_RECORDED"  # type: ignore[index]


def test_outside_a_repository_no_commit_and_digest_only_check(
        tmp_path: Path, home: Path, awaiting: bytes, mdgrill: Run) -> None:
    top = tmp_path / "plain"
    _place(top, awaiting)

    code, out, _ = mdgrill("--json", *CONFIRM, cwd=top)

    assert code == 0
    assert _json(out)["commit"] is None and _json(out)["commit_skipped"] == "not a git repository"
    assert _json(out)["status"] == "complete"
    code, out, _ = mdgrill(*CHECK, cwd=top)
    assert code == 0 and "checked the digest alone" in out
    assert _json(mdgrill("--json", *CHECK, cwd=top)[1])["checked"] == "digest-only"


def test_spec_outside_the_repository_is_refused_before_anything_is_written(
        spec_repo: Path, tmp_path: Path, awaiting: bytes, mdgrill: Run) -> None:
    outside = _place(tmp_path / "elsewhere", awaiting)

    code, out, _ = mdgrill("--json", "--root", str(spec_repo), "confirm",
                           str(outside.parent), "--decision-id", "C1", "--source",
                           "approve-and-delegate", cwd=spec_repo)

    assert code == 2
    assert _json(out)["error"]["code"] == "PATH_OUTSIDE_REPOSITORY"  # type: ignore[index]
    assert outside.read_bytes() == awaiting


# --------------------------------------------------------------------------- failures + retry

def _assert_failed_then_retry(repo: Path, mdgrill: Run, code_word: str, fix: object) -> None:
    before = _head(repo)
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)
    error = _json(out)["error"]
    assert isinstance(error, dict)
    assert code == 3 and error["code"] == code_word, out
    assert "run the same command again" in error["message"]
    assert error["written"] is True and error["status"] == "complete"
    assert error["retry"] == " ".join(CONFIRM).replace("confirm", "mdgrill confirm", 1)
    assert _head(repo) == before
    assert "status: complete" in (repo / SPEC / ".progress.md").read_text()
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3 and _json(out)["error"]["code"] == "APPROVAL_NOT_RECORDED"  # type: ignore[index]

    assert callable(fix)
    fix()
    code, out, err = mdgrill("--json", *CONFIRM, cwd=repo)
    assert code == 0, (out, err)
    assert _json(out)["retried_commit"] is True and _json(out)["written"] is False
    assert _git(repo, "log", "--format=%s", f"{before}..HEAD") == \
        "grill(requirements): approve req-1 (round 1)"
    assert _json(mdgrill("--json", *CHECK, cwd=repo)[1])["approval_commit"] == _head(repo)
    # once committed, the retry is over: a third confirm is refused as before
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)
    assert code == 3 and _json(out)["error"]["code"] == "ILLEGAL_TRANSITION"  # type: ignore[index]


def test_missing_identity_is_refused_and_the_same_confirm_retries(
        spec_repo: Path, mdgrill: Run) -> None:
    _git(spec_repo, "config", "--unset", "user.name")
    _git(spec_repo, "config", "--unset", "user.email")

    def fix() -> None:
        _git(spec_repo, "config", "user.name", "Fixed User")
        _git(spec_repo, "config", "user.email", "fixed@example.com")

    _assert_failed_then_retry(spec_repo, mdgrill, "GIT_IDENTITY_MISSING", fix)
    assert _git(spec_repo, "log", "-1", "--format=%an <%ae>") == "Fixed User <fixed@example.com>"


def test_detached_head_is_refused_and_the_same_confirm_retries(
        spec_repo: Path, mdgrill: Run) -> None:
    _git(spec_repo, "checkout", "-q", "--detach")
    _assert_failed_then_retry(spec_repo, mdgrill, "GIT_DETACHED_HEAD",
                              lambda: _git(spec_repo, "switch", "-q", "main"))
    assert _git(spec_repo, "rev-parse", "main") == _head(spec_repo)


def test_failing_hook_output_is_shown_and_the_index_kept(spec_repo: Path, mdgrill: Run) -> None:
    hook = spec_repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint: trailing space in line 3' >&2\nexit 1\n")
    hook.chmod(0o755)
    (spec_repo / "staged.txt").write_text("mine\n")
    _git(spec_repo, "add", "staged.txt")

    code, out, _ = mdgrill(*CONFIRM, cwd=spec_repo)
    assert code == 3
    code, out, err = mdgrill("--json", "check-delegation", SPEC, "--phase", "requirements",
                             "--interview-id", "req-1", cwd=spec_repo)
    assert code == 3
    code, out, err = mdgrill(*CONFIRM, cwd=spec_repo)  # already complete: retried, fails again
    assert code == 3 and "GIT_HOOK_FAILED" in err
    assert "lint: trailing space in line 3" in err and "run the same command again" in err
    assert _git(spec_repo, "diff", "--cached", "--name-only") == "staged.txt"
    hook.unlink()
    code, out, err = mdgrill("--json", *CONFIRM, cwd=spec_repo)
    assert code == 0, (out, err)
    assert _git(spec_repo, "show", "--name-only", "--format=", "HEAD") == f"{SPEC}/.progress.md"
    assert _git(spec_repo, "diff", "--cached", "--name-only") == "staged.txt"


def test_shallow_clone_commits_and_log_says_history_is_incomplete(
        spec_repo: Path, tmp_path: Path, mdgrill: Run) -> None:
    (spec_repo / "README.md").write_text("second\n")
    _git(spec_repo, "commit", "-qam", "second")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--depth", "1", spec_repo.as_uri(), str(clone))
    _git(clone, "config", "user.name", "Clone User")
    _git(clone, "config", "user.email", "clone@example.com")

    code, out, err = mdgrill("--json", *CONFIRM, cwd=clone)
    assert code == 0, (out, err)
    code, out, _ = mdgrill("log", SPEC, cwd=clone)
    assert code == 0 and "approve" in out and "history is incomplete" in out
    assert _json(mdgrill("--json", "log", cwd=clone)[1])["shallow"] is True
    assert mdgrill(*CHECK, cwd=clone)[0] == 0
    code, out, _ = mdgrill("verify", cwd=clone)
    assert code == 0 and "shallow clone" in out


def test_crlf_spec_is_committed_byte_for_byte(
        repo: Path, awaiting: bytes, mdgrill: Run) -> None:
    crlf = awaiting.replace(b"\n", b"\r\n")
    path = _place(repo, crlf)

    code, out, err = mdgrill("--json", *CONFIRM, cwd=repo)

    assert code == 0, (out, err)
    data = path.read_bytes()
    assert b"status: complete\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    blob = subprocess.run(["git", "cat-file", "blob", f"HEAD:{SPEC}/.progress.md"], cwd=repo,
                          capture_output=True, check=True).stdout
    assert blob == data
    assert mdgrill(*CHECK, cwd=repo)[0] == 0
    assert mdgrill("verify", cwd=repo)[0] == 0


# --------------------------------------------------------------------------- check-delegation

def test_check_delegation_binds_to_the_approval_commit(spec_repo: Path, mdgrill: Run) -> None:
    assert mdgrill(*CONFIRM, cwd=spec_repo)[0] == 0
    code, out, _ = mdgrill("--json", *CHECK, cwd=spec_repo)
    assert code == 0
    assert _json(out)["checked"] == "history" and _json(out)["approval_commit"] == _head(spec_repo)


def test_hand_forged_complete_is_refused(spec_repo: Path, mdgrill: Run) -> None:
    path = spec_repo / SPEC / ".progress.md"
    text = path.read_text()
    forged = (text.replace("status: awaiting_confirmation", "status: complete")
              .replace("pending: [C1]", "pending: []")
              .replace("confirmation: null", "confirmation: approve-and-delegate"))
    path.write_text(forged)
    _git(spec_repo, "commit", "-qam", "approve (by hand)")

    code, out, _ = mdgrill("--json", *CHECK, cwd=spec_repo)

    assert code == 3
    error = _json(out)["error"]
    assert isinstance(error, dict) and error["code"] == "APPROVAL_NOT_RECORDED"
    assert "typed by hand is not an approval" in error["message"]
    # nor does confirm's retry accept it: no `Confirmed` block records C1
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=spec_repo)
    assert code == 3 and _json(out)["error"]["code"] == "ILLEGAL_TRANSITION"  # type: ignore[index]


def test_approval_on_an_unmerged_branch_does_not_count(spec_repo: Path, mdgrill: Run) -> None:
    _git(spec_repo, "switch", "-qc", "feature")
    assert mdgrill(*CONFIRM, cwd=spec_repo)[0] == 0
    approved = (spec_repo / SPEC / ".progress.md").read_bytes()
    _git(spec_repo, "switch", "-q", "main")
    (spec_repo / SPEC / ".progress.md").write_bytes(approved)

    code, out, _ = mdgrill("--json", *CHECK, cwd=spec_repo)

    assert code == 3 and _json(out)["error"]["code"] == "APPROVAL_NOT_RECORDED"  # type: ignore[index]
    _git(spec_repo, "checkout", "-q", "--", ".")
    _git(spec_repo, "merge", "-q", "--ff-only", "feature")
    assert mdgrill(*CHECK, cwd=spec_repo)[0] == 0


def test_record_changed_after_the_approval_is_refused(spec_repo: Path, mdgrill: Run) -> None:
    assert mdgrill(*CONFIRM, cwd=spec_repo)[0] == 0
    path = spec_repo / SPEC / ".progress.md"
    path.write_text(path.read_text().replace("assumptions: []", "assumptions: [added later]"))

    code, out, _ = mdgrill("--json", *CHECK, cwd=spec_repo)

    assert code == 3
    error = _json(out)["error"]
    assert isinstance(error, dict) and error["code"] == "APPROVAL_NOT_RECORDED"
    assert "changed after its approval commit" in error["message"]


# --------------------------------------------------------------------------- quick mode

def test_quick_begin_commits_a_bypass_and_retries_after_a_failure(
        repo: Path, mdgrill: Run) -> None:
    (repo / "README.md").write_text("readme\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    assert mdgrill("init", SPEC, "--goal", "Quick one.", cwd=repo)[0] == 0
    assert mdgrill("mode", SPEC, "--quick", cwd=repo)[0] == 0
    begin = ("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text("#!/bin/sh\necho 'message rejected' >&2\nexit 1\n")
    hook.chmod(0o755)

    code, out, _ = mdgrill("--json", *begin, cwd=repo)
    assert code == 3 and _json(out)["error"]["code"] == "GIT_HOOK_FAILED"  # type: ignore[index]
    assert "message rejected" in _json(out)["error"]["message"]  # type: ignore[index]
    assert "begin-interview" in _json(out)["error"]["retry"]  # type: ignore[index]
    hook.unlink()
    code, out, err = mdgrill("--json", *begin, cwd=repo)
    assert code == 0, (out, err)
    assert _json(out)["transition"] == "bypass" and _json(out)["retried_commit"] is True
    assert _trailers(repo)["Mdgrill-Transition"] == "bypass"
    assert _git(repo, "log", "-1", "--format=%s") == \
        "grill(requirements): approve req-1 (round 1)"
    head = _head(repo)
    code, out, _ = mdgrill("--json", *begin, cwd=repo)  # committed: a finished interview
    assert code == 3 and _json(out)["error"]["code"] == "INTERVIEW_TERMINAL"  # type: ignore[index]
    assert _head(repo) == head
    assert mdgrill(*CHECK, cwd=repo)[0] == 0


def test_cli_is_installed() -> None:
    """The suite runs the `mdgrill` script installed beside this interpreter (not a fallback
    to `python -m mdgrill`), and that script runs this checkout's code."""
    import sys

    import mdgrill

    command = mdgrill_command()
    assert command == [str(Path(sys.executable).with_name("mdgrill"))], command
    shebang = Path(command[0]).read_text(encoding="utf-8").splitlines()[0]
    assert shebang.startswith("#!"), shebang
    where = subprocess.run([shebang[2:].strip(), "-c", "import mdgrill; print(mdgrill.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).resolve() == Path(mdgrill.__file__).resolve()
    proc = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip(), proc
