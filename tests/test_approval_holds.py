"""Issue 22, "An approval holds for exactly what was approved": the four scenarios of the issue,
through the installed CLI, in the demo's real repository (an approved requirements artifact
and an approved design interview), each refused or recorded with what to do next."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import WatchLines
from test_reliability import MDGRILL, clean_env

SPEC = "specs/checkout-discounts"
PROGRESS = f"{SPEC}/.progress.md"
# a node the gate asks: "options[2..4], recommendation, rationale, tradeoffs" (the framework)
CURRENCY = ("node", "add", SPEC, "D9", "--title", "Which currency?", "--option", "One currency",
            "--option", "Several currencies", "--recommend", "1", "--rationale",
            "one currency is sold today", "--tradeoffs", "no UK shop yet")
REQUIREMENTS = f"{SPEC}/requirements.md"


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("demo")
    home = base / "home"
    home.mkdir()
    env = clean_env(home)
    proc = subprocess.run([*MDGRILL, "demo", str(base / "repo"), "--quiet"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return base / "repo", env


@pytest.fixture
def demo(demo_template: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh copy of the demo repository (phase design, requirements.md approved)."""
    template, env = demo_template
    repo = tmp_path / "repo"
    shutil.copytree(template, repo, symlinks=True)
    return repo, env


def run(repo: Path, env: dict[str, str], *args: str) -> tuple[int, dict[str, object]]:
    proc = subprocess.run([*MDGRILL, "--json", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def git(repo: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def codes(payload: dict[str, object], severity: str = "error") -> list[str]:
    diagnostics = payload["diagnostics"]
    assert isinstance(diagnostics, list)
    return [d["code"] for d in diagnostics if d["severity"] == severity]


def first_error(payload: dict[str, object]) -> str:
    diagnostics = payload["diagnostics"]
    assert isinstance(diagnostics, list)
    return str(next(d for d in diagnostics if d["severity"] == "error")["message"])


def error_of(payload: dict[str, object]) -> dict[str, object]:
    error = payload.get("error")
    assert isinstance(error, dict), payload
    return error


# -- 1. a changed approved artifact fails CI until it is approved again --------------------

def test_a_changed_approved_artifact_is_red_until_approved_again(
        demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    assert codes(run(repo, env, "validate")[1]) == []
    approval = git(repo, env, "log", "--format=%H", "--grep=approve artifact", "-1")
    with open(repo / REQUIREMENTS, "a", encoding="utf-8") as handle:
        handle.write("\nOne more line nobody approved.\n")
    git(repo, env, "commit", "-qam", "tweak the requirements")
    changed = git(repo, env, "rev-parse", "HEAD")

    code, payload = run(repo, env, "validate")
    assert code == 1 and codes(payload) == ["APPROVED_ARTIFACT_CHANGED"]
    message = first_error(payload)
    assert REQUIREMENTS in message and approval[:12] in message
    assert "await-artifact-approval" in message and "mdgrill reopen" in message
    # the design interview, approved on the old bytes, is stale, and says which source changed
    assert "INTERVIEW_STALE" in codes(payload, "warning")

    code, payload = run(repo, env, "verify")
    assert code == 1 and codes(payload) == ["APPROVED_ARTIFACT_CHANGED"]
    assert changed[:12] in first_error(payload)

    # submitted again: still red, since the user has not approved the new bytes yet
    assert run(repo, env, "await-artifact-approval", SPEC, "--artifact", REQUIREMENTS)[0] == 0
    code, payload = run(repo, env, "validate")
    assert code == 1 and codes(payload) == ["APPROVED_ARTIFACT_CHANGED"]
    assert "await the user's approval" in first_error(payload)

    assert run(repo, env, "approve-artifact", SPEC, "--source", "approve-artifact")[0] == 0
    assert run(repo, env, "validate")[0] == 0
    assert run(repo, env, "verify")[0] == 0


def test_a_deleted_approved_artifact_is_red(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    (repo / REQUIREMENTS).unlink()
    code, payload = run(repo, env, "validate")
    assert code == 1 and "APPROVED_ARTIFACT_CHANGED" in codes(payload)
    assert "is gone" in json.dumps(payload)


def test_watch_reports_the_change_when_it_is_saved(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    watcher = WatchLines(repo, env, "specs")
    try:
        watcher.wait_for('"started"')  # the first check of every target is done
        original = (repo / REQUIREMENTS).read_bytes()
        (repo / REQUIREMENTS).write_bytes(original + b"\nA change.\n")
        watcher.wait_for("APPROVED_ARTIFACT_CHANGED")
        (repo / REQUIREMENTS).write_bytes(original)
        watcher.wait_for('"fixed"')
    finally:
        out = watcher.stop()
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    seen = [e["kind"] for e in events if e.get("code") == "APPROVED_ARTIFACT_CHANGED"]
    assert seen == ["problem", "fixed"]


# -- 2. going back a phase is a recorded reopening ---------------------------------------------

def test_going_back_is_refused_without_reopen(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    before = (repo / PROGRESS).read_bytes()
    code, payload = run(repo, env, "begin-interview", SPEC, "--phase", "requirements",
                        "--interview-id", "r2")
    assert code == 3 and error_of(payload)["code"] == "PHASE_REGRESSION"
    assert "mdgrill reopen" in str(error_of(payload)["message"])
    assert (repo / PROGRESS).read_bytes() == before


def test_reopen_sets_aside_every_later_approval(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "requirements", "--reason",
                        "the promo rules changed", "--by", "Alice <alice@example.com>")
    assert code == 0, payload
    assert payload["superseded"] == [
        "requirements interview req-1", "design interview design-1",
        f"requirements artifact {REQUIREMENTS}@" + str(payload["superseded"][2])[-12:]]  # type: ignore[index]
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert "### Requirements Grill - Reopened\n- From phase: design\n" \
        "- Reason: the promo rules changed\n" in text
    assert text.rstrip().endswith("- By: Alice <alice@example.com>")
    assert "\nphase: requirements\n" in text and "\ninterview: null\n" in text
    # committed, authored by the person who reopened, with the trailers verify reads
    assert git(repo, env, "log", "-1", "--format=%an <%ae>|%s") == \
        "Alice <alice@example.com>|grill(requirements): reopen from design"
    trailers = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)")
    assert "Mdgrill-Transition: reopen" in trailers and "Mdgrill-By: Alice" in trailers
    # what was set aside is history: the gate refuses it, and its IDs are not begun again
    for phase, interview in (("design", "design-1"), ("requirements", "req-1")):
        code, payload = run(repo, env, "check-delegation", SPEC, "--phase", phase,
                            "--interview-id", interview)
        assert (code, error_of(payload)["code"]) == (3, "INTERVIEW_SUPERSEDED")
    code, payload = run(repo, env, "begin-interview", SPEC, "--phase", "requirements",
                        "--interview-id", "req-1")
    assert (code, error_of(payload)["code"]) == (3, "INTERVIEW_SUPERSEDED")
    # the gates run again from requirements
    assert run(repo, env, "begin-interview", SPEC, "--phase", "requirements",
               "--interview-id", "req-2")[0] == 0
    code, payload = run(repo, env, "begin-interview", SPEC, "--phase", "design",
                        "--interview-id", "design-2")
    assert code == 3
    # log and status show it; the history verifies
    log = run(repo, env, "log", SPEC)[1]["transitions"]
    assert isinstance(log, list) and log[-1]["transition"] == "reopen"
    assert log[-1]["reason"] == "the promo rules changed"
    status = run(repo, env, "status", SPEC)[1]
    assert status["reopenings"][0]["from_phase"] == "design"  # type: ignore[index]
    assert run(repo, env, "validate")[0] == 0 and run(repo, env, "verify")[0] == 0


def test_reopen_refuses_forward_and_nothing(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "tasks", "--reason", "x")
    assert (code, error_of(payload)["code"]) == (3, "REOPEN_FORWARD")
    assert run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "redo")[0] == 0
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "again")
    assert (code, error_of(payload)["code"]) == (3, "NOTHING_TO_REOPEN")


def test_a_hand_edited_phase_back_fails_verify(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    path = repo / PROGRESS
    path.write_text(path.read_text(encoding="utf-8").replace("\nphase: design\n",
                                                             "\nphase: requirements\n", 1),
                    encoding="utf-8")
    git(repo, env, "commit", "-qam", "go back quietly")
    code, payload = run(repo, env, "verify")
    assert code == 1 and "PHASE_REGRESSION" in codes(payload)


# -- 3. a correction is an amendment -------------------------------------------------------------

def test_amend_corrects_wording_before_approval_only(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    code, payload = run(repo, env, "amend", SPEC, "--decision-id", "D1", "--answer", "x",
                        "--reason", "typo")
    assert (code, error_of(payload)["code"]) == (3, "AMEND_AFTER_APPROVAL")
    assert "mdgrill reopen" in str(error_of(payload)["message"])
    assert run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "one more")[0] == 0
    assert run(repo, env, "begin-interview", SPEC, "--phase", "design", "--interview-id",
               "design-2")[0] == 0
    assert run(repo, env, *CURRENCY)[0] == 0
    assert run(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D9")[0] == 0
    assert run(repo, env, "record-answer", SPEC, "--decision-id", "D9", "--answer",
               "Euors only")[0] == 0
    for answer, wanted in (("ok", "CONTROL_ONLY_ANSWER"), ("Euors only", "NOTHING_TO_AMEND")):
        code, payload = run(repo, env, "amend", SPEC, "--decision-id", "D9", "--answer", answer,
                            "--reason", "typo")
        assert error_of(payload)["code"] == wanted
    code, payload = run(repo, env, "amend", SPEC, "--decision-id", "D10", "--answer", "y",
                        "--reason", "typo")
    assert error_of(payload)["code"] == "NOT_ANSWERED"
    code, payload = run(repo, env, "amend", SPEC, "--decision-id", "D9", "--answer",
                        "Euros only", "--reason", "typo", "--by", "Reviewer")
    assert code == 0 and payload["was"] == "Euors only"
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert "- Decisions: D9 -> Euors only\n" in text  # the log stays append-only
    assert "- Amended: D9 -> Euros only\n- Was: D9 -> Euors only\n- Reason: D9 -> typo\n" \
        "- By: D9 -> Reviewer\n" in text
    entries = run(repo, env, "ledger", SPEC)[1]["entries"]
    assert isinstance(entries, list)
    d9 = next(e for e in entries if e["id"] == "D9")
    assert (d9["answer"], d9["amended_from"]) == ("Euros only", "Euors only")
    assert "= Euros only (amended)" in subprocess.run(
        [*MDGRILL, "tree", SPEC], cwd=repo, env=env, capture_output=True, text=True).stdout
    assert run(repo, env, "validate", SPEC)[0] == 0
    # the round goes on after the amendment
    assert run(repo, env, "node", "add", SPEC, "D10", "--title", "Rounding?")[0] == 0


# -- 4. every answer says who gave it --------------------------------------------------------------

def test_answers_and_approvals_name_who_gave_them(demo: tuple[Path, dict[str, str]]) -> None:
    repo, env = demo
    assert run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "redo")[0] == 0
    assert run(repo, env, "begin-interview", SPEC, "--phase", "design", "--interview-id",
               "design-2")[0] == 0
    assert run(repo, env, *CURRENCY)[0] == 0
    assert run(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D9")[0] == 0
    identity = git(repo, env, "var", "GIT_AUTHOR_IDENT").rsplit(" ", 2)[0]
    assert run(repo, env, "record-answer", SPEC, "--decision-id", "D9", "--answer",
               "Euros only")[0] == 0
    assert f"- Decisions: D9 -> Euros only\n- By: D9 -> {identity}\n" in \
        (repo / PROGRESS).read_text(encoding="utf-8")
    assert run(repo, env, "await-confirmation", SPEC, "--decision-id", "C2", "--approach",
               "Euros only")[0] == 0
    code, payload = run(repo, env, "confirm", SPEC, "--decision-id", "C2", "--source",
                        "approve-and-delegate", "--reply", "Approve and delegate", "--by",
                        "Dana Lee <dana@example.com>")
    assert code == 0, payload
    # `--by` names whom the account relays (issue 30 point 9): the commit is the account's
    assert git(repo, env, "log", "-1", "--format=%an <%ae>") == identity
    assert "Mdgrill-By: Dana Lee <dana@example.com>" in git(repo, env, "log", "-1",
                                                             "--format=%B")
    assert (repo / PROGRESS).read_text(encoding="utf-8").rstrip().endswith(
        f"- By: Dana Lee <dana@example.com>\n- Relayed by: {identity}")


def _as_person(env: dict[str, str], name: str, email: str) -> dict[str, str]:
    """`env` with git's identity set to this person (the account the owners rule holds)."""
    return {**env, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}


def test_owners_in_the_project_config_refuse_anyone_else(
        demo: tuple[Path, dict[str, str]]) -> None:
    """Issue 30 point 9: `--by "<owner>"` run under anyone else's identity is not the owner."""
    repo, env = demo
    dana = _as_person(env, "Dana Lee", "dana@example.com")
    (repo / ".mdgrill.yaml").write_text(
        "owners:\n  phases:\n    design: ['@architects']\n"
        "  sections:\n    Money: [carol@example.com]\n"
        "teams:\n  architects: [dana@example.com]\n", encoding="utf-8")
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "redo")
    assert (code, error_of(payload)["code"]) == (3, "NOT_AN_OWNER")
    assert "dana@example.com" in json.dumps(error_of(payload))
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "redo",
                        "--by", "Dana Lee <dana@example.com>")
    assert (code, error_of(payload)["code"]) == (3, "NOT_AN_OWNER")
    assert run(repo, dana, "reopen", SPEC, "--phase", "design", "--reason", "redo")[0] == 0
    assert run(repo, env, "begin-interview", SPEC, "--phase", "design", "--interview-id",
               "design-2")[0] == 0
    assert run(repo, env, *CURRENCY, "--section", "Money")[0] == 0
    assert run(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D9")[0] == 0
    before = (repo / PROGRESS).read_bytes()
    code, payload = run(repo, env, "record-answer", SPEC, "--decision-id", "D9", "--answer",
                        "Euros only", "--by", "Carol <carol@example.com>")
    assert (code, error_of(payload)["code"]) == (3, "NOT_AN_OWNER")
    assert (repo / PROGRESS).read_bytes() == before
    carol = _as_person(env, "Carol", "CAROL@example.com")
    assert run(repo, carol, "record-answer", SPEC, "--decision-id", "D9", "--answer",
               "Euros only")[0] == 0
    assert run(repo, env, "await-confirmation", SPEC, "--decision-id", "C2", "--approach",
               "Euros only")[0] == 0
    code, payload = run(repo, env, "confirm", SPEC, "--decision-id", "C2", "--source",
                        "approve-and-delegate", "--reply", "Approve and delegate")
    assert (code, error_of(payload)["code"]) == (3, "NOT_AN_OWNER")
    code, payload = run(repo, env, "confirm", SPEC, "--decision-id", "C2", "--source",
                        "approve-and-delegate", "--reply", "Approve and delegate", "--by",
                        "dana@example.com")
    assert (code, error_of(payload)["code"]) == (3, "NOT_AN_OWNER")
    assert "--by` only names" in str(error_of(payload)["message"])
    assert run(repo, dana, "confirm", SPEC, "--decision-id", "C2", "--source",
               "approve-and-delegate", "--reply", "Approve and delegate")[0] == 0


@pytest.mark.parametrize("config", ["owners: [a, b]\n", "owners:\n  phases: {design: 3}\n",
                                    "owners: {phases: [\n"])
def test_a_malformed_owners_file_is_refused(demo: tuple[Path, dict[str, str]],
                                            config: str) -> None:
    repo, env = demo
    (repo / ".mdgrill.yaml").write_text(config, encoding="utf-8")
    before = (repo / PROGRESS).read_bytes()
    code, payload = run(repo, env, "reopen", SPEC, "--phase", "design", "--reason", "redo")
    assert (code, error_of(payload)["code"]) == (2, "INVALID_CONFIG")
    assert ".mdgrill.yaml" in str(error_of(payload)["message"])
    assert (repo / PROGRESS).read_bytes() == before
