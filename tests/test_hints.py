"""A refusal says what to do next, with the real spec and IDs (issue 35, point 5): a verb the
interview's status does not allow names the step that status does allow."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo
from test_rounds_cli import run

SPEC = "specs/codes"


def refused(repo: Path, env: dict[str, str], *args: str) -> str:
    code, payload = run(repo, env, *args)
    assert code == 3, payload
    error = payload["error"]
    assert isinstance(error, dict) and error["code"] == "ILLEGAL_TRANSITION"
    return str(error["message"])


@pytest.fixture
def asked(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, env = make_repo(tmp_path)
    for args in (["init", SPEC, "--goal", "Promo codes"],
                 ["node", "add", SPEC, "D1", "--title", "Who?", "--option", "All",
                  "--option", "Some", "--recommend", "1"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"],
                 ["ask", SPEC]):
        assert run(repo, env, *args)[0] == 0
    return repo, env


def test_revise_while_collecting_names_the_round_and_the_next_confirmation_id(
        asked: tuple[Path, dict[str, str]]) -> None:
    repo, env = asked
    message = refused(repo, env, "revise", SPEC, "--decision-id", "D1")
    assert message.startswith("revise needs an interview that is awaiting_confirmation; "
                              "interview r1 is collecting: its round is still open")
    assert f"`mdgrill ask {SPEC}`" in message
    assert f"`mdgrill answer {SPEC} --tool-result -`" in message
    assert f"`mdgrill await-confirmation {SPEC} --decision-id C1 --approach TEXT`" in message
    # the ID the hint names is one await-confirmation takes
    assert run(repo, env, "answer", SPEC, "--tool-result", "-", stdin="a")[0] == 0
    assert run(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
               "All")[0] == 0


def test_record_fact_on_a_complete_interview_names_reopen(
        asked: tuple[Path, dict[str, str]]) -> None:
    repo, env = asked
    for args in (["answer", SPEC, "--tool-result", "-"],
                 ["await-confirmation", SPEC, "--decision-id", "C1", "--approach", "All"],
                 ["confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
                  "--reply", "Approve and delegate"]):
        assert run(repo, env, *args, stdin="a")[0] == 0
    message = refused(repo, env, "record-fact", SPEC, "the code says so")
    assert message.endswith(f"it is over: to change what it recorded, go back with `mdgrill "
                            f"reopen {SPEC} --phase requirements --reason TEXT`; to go on, "
                            "begin the next phase's interview")


def test_confirm_while_collecting_says_the_round_is_open(
        asked: tuple[Path, dict[str, str]]) -> None:
    repo, env = asked
    message = refused(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source",
                      "approve-and-delegate", "--reply", "Approve and delegate")
    assert "its round is still open" in message and "SPEC" not in message


def test_review_of_an_empty_range_names_where_to_start(
        asked: tuple[Path, dict[str, str]]) -> None:
    """On the default branch the merge base is HEAD: the review names a range to give."""
    repo, env = asked
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "round 1"], cwd=repo, env=env, check=True)
    proc = subprocess.run([*MDGRILL, "review"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "holds no commit: on the default branch there is nothing to compare with. Name " \
        "where to start: `mdgrill review HEAD~5`" in " ".join(proc.stdout.split())
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "later"], cwd=repo, env=env,
                   check=True)
    proc = subprocess.run([*MDGRILL, "review", "HEAD~1"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "No rounds" in proc.stdout and "holds no commit" not in proc.stdout
