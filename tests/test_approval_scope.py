"""An approval binds exactly what the user approved (issue 30 point 1, `model/scope.py`).

The framework: "Only the explicit approval selection completes the gate", after the brief of
"resolved decisions, recommended approach, material tradeoffs, defaults, assumptions" was
presented. So the approval covers that brief: the tree's nodes it rests on, the answers, the
approach, the skip's defaults. A change inside it after the brief was shown is refused
(APPROVAL_SCOPE_CHANGED, naming the part); a change outside it is not.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import Run, git_out, json_ok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SPEC = "specs/a"
PROGRESS = f"{SPEC}/.progress.md"
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")
CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
           "--reply", "Approve and delegate")




def _refused(mdgrill: Run, repo: Path, *argv: str) -> dict[str, object]:
    code, out, _ = mdgrill("--json", *argv, cwd=repo)
    assert code == 3, out
    error = json.loads(out)["error"]
    assert isinstance(error, dict)
    return error


def _awaiting(repo: Path, mdgrill: Run) -> str:
    """D1 answered, D2 (depending on D1) answered, the brief shown; returns the scope."""
    json_ok(mdgrill, repo, "init", SPEC, "--goal", "Let customers apply a promo code.")
    json_ok(mdgrill, repo, "node", "add", SPEC, "D1", "--title", "Which customers?", "--option",
        "Every customer", "--option", "Members only", "--recommend", "1")
    json_ok(mdgrill, repo, "node", "add", SPEC, "D2", "--title", "How many codes per order?",
        "--depends-on", "D1", "--option", "One", "--option", "Several", "--recommend", "1")
    json_ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements", "--interview-id",
        "r1")
    json_ok(mdgrill, repo, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    json_ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D1", "--answer",
        "Every customer")
    json_ok(mdgrill, repo, "open-frontier", SPEC, "--round", "2", "--decision-id", "D2")
    json_ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D2", "--answer", "One")
    result = json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1",
                 "--approach", "One promo code per order for every customer")
    return str(result["approval_scope"])


def _approved(repo: Path, mdgrill: Run) -> str:
    scope = _awaiting(repo, mdgrill)
    done = json_ok(mdgrill, repo, *CONFIRM)
    assert done["approval_scope"] == scope
    return scope


def _edit(repo: Path, old: str, new: str) -> None:
    path = repo / PROGRESS
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_approval_commit_carries_the_scope(repo: Path, mdgrill: Run) -> None:
    scope = _approved(repo, mdgrill)
    message = git_out(repo, "log", "-1", "--format=%B")
    assert f"Mdgrill-Approval-Scope: {scope}" in message
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert text.count(f"- Approval scope: {scope}") == 2  # the brief and the Confirmed block
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"


def test_a_question_rewritten_after_approval_is_refused(repo: Path, mdgrill: Run) -> None:
    """Issue 30 point 1, as an agent would do it: the question and the option rewritten and
    committed after the approval; the old answer now reads as consent to something else."""
    _approved(repo, mdgrill)
    _edit(repo, "### D1: Which customers?",
          "### D1: Should the agent delete the production database?")
    _edit(repo, "  - Every customer (Recommended)", "  - yes, drop every table (Recommended)")
    git_out(repo, "commit", "-qam", "reword")

    error = _refused(mdgrill, repo, *CHECK)

    assert error["code"] == "APPROVAL_SCOPE_CHANGED"
    assert "(D1 changed)" in str(error["message"])
    code, out, _ = mdgrill("validate", SPEC, cwd=repo)
    assert code == 1 and "APPROVAL_SCOPE_CHANGED" in out and "D1 changed" in out
    # and `verify`, which the issue names with them: the rewrite is no edit of a recorded
    # block, so the history walk alone passed it
    code, out, _ = mdgrill("verify", SPEC, cwd=repo)
    assert code == 1 and "APPROVAL_SCOPE_CHANGED" in out and "D1 changed" in out


def test_a_dependency_changed_after_approval_is_named(repo: Path, mdgrill: Run) -> None:
    _approved(repo, mdgrill)
    _edit(repo, "  - Several", "  - Unlimited")

    error = _refused(mdgrill, repo, *CHECK)

    assert error["code"] == "APPROVAL_SCOPE_CHANGED"
    assert "D2 changed" in str(error["message"]) and "D1" not in str(error["message"])


def test_a_change_between_the_brief_and_confirm_is_refused(repo: Path,
                                                          mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    _edit(repo, "  - Members only", "  - Members only, and delete prod")
    before = (repo / PROGRESS).read_bytes()

    error = _refused(mdgrill, repo, *CONFIRM)

    assert error["code"] == "APPROVAL_SCOPE_CHANGED"
    assert (repo / PROGRESS).read_bytes() == before


def test_changes_outside_the_scope_keep_the_approval(repo: Path, mdgrill: Run) -> None:
    _approved(repo, mdgrill)
    path = repo / PROGRESS
    path.write_text(path.read_text(encoding="utf-8") + "\n## Notes\n\nOur own notes.\n",
                    encoding="utf-8")
    git_out(repo, "commit", "-qam", "notes")

    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"
    code, out, _ = mdgrill("validate", SPEC, cwd=repo)
    assert code == 0, out


def test_revise_is_the_way_to_change_it(repo: Path, mdgrill: Run) -> None:
    first = _awaiting(repo, mdgrill)
    json_ok(mdgrill, repo, "revise", SPEC, "--decision-id", "D2")
    json_ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D2", "--answer", "Several")
    second = json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1",
                 "--approach", "Several codes per order")["approval_scope"]

    assert second != first
    assert json_ok(mdgrill, repo, *CONFIRM)["approval_scope"] == second
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"


def test_a_skip_binds_its_defaults(repo: Path, mdgrill: Run) -> None:
    json_ok(mdgrill, repo, "init", SPEC, "--goal", "Let customers apply a promo code.")
    json_ok(mdgrill, repo, "node", "add", SPEC, "D1", "--title", "Test depth?", "--option",
        "Unit tests", "--option", "End to end", "--recommend", "1")
    json_ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements", "--interview-id",
        "r1")
    json_ok(mdgrill, repo, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    skipped = json_ok(mdgrill, repo, "skip", SPEC, "--reason", "the user said skip",
                  "--assumption", "unit tests are enough")
    assert skipped["status"] == "awaiting_confirmation"
    json_ok(mdgrill, repo, "confirm", SPEC, "--decision-id", "skip-confirmation", "--source",
        "approve-and-delegate", "--reply", "Approve and delegate")
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"
    _edit(repo, "  - Unit tests (Recommended)", "  - No tests (Recommended)")

    assert _refused(mdgrill, repo, *CHECK)["code"] == "APPROVAL_SCOPE_CHANGED"


# --------------------------------------------------------------------------- the property

@pytest.fixture(scope="module")
def approved_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One approved file, built once through the CLI (no git: the scope is in the file)."""
    import os

    from conftest import mdgrill_command

    top = tmp_path_factory.mktemp("scope")
    env = {**os.environ, "HOME": str(top), "GIT_CONFIG_GLOBAL": str(top / ".gitconfig"),
           "GIT_AUTHOR_NAME": "Sam", "GIT_AUTHOR_EMAIL": "sam@example.com"}

    def run(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
        proc = subprocess.run([*mdgrill_command(), *argv], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr

    _approved(top, run)
    return (top / PROGRESS).read_text(encoding="utf-8")


def _diagnostics(text: str) -> list[str]:
    from mdgrill.checks.spec import validate_progress_bytes

    return [d.code for d in validate_progress_bytes(text.encode("utf-8"), "p.md")]


def _scope_lines(text: str) -> list[int]:
    """Lines inside the scope: D1's and D2's nodes (heading and bullets)."""
    lines = text.split("\n")
    inside: list[int] = []
    current = None
    for index, line in enumerate(lines):
        if line.startswith("### "):
            current = line[4:6] if line[4:6] in ("D1", "D2") and line[6:7] == ":" else None
            if current is not None:
                inside.append(index)
            continue
        if line.startswith("## "):
            current = None
            continue
        if current is not None and line.strip().startswith("- ") and ":" in line \
                or current is not None and line.startswith("  - "):
            inside.append(index)
    return inside


@settings(derandomize=True, max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(min_value=0, max_value=10_000), letter=st.sampled_from("QZxq9"))
def test_any_change_inside_the_scope_is_refused(approved_text: str, pick: int,
                                                letter: str) -> None:
    text = approved_text
    assert "APPROVAL_SCOPE_CHANGED" not in _diagnostics(text)
    lines = text.split("\n")
    inside = _scope_lines(text)
    assert len(inside) >= 8  # two headings, their keys and options
    index = inside[pick % len(inside)]
    line = lines[index]
    lines[index] = line + letter  # a byte added at the end of a line inside the scope
    assert "APPROVAL_SCOPE_CHANGED" in _diagnostics("\n".join(lines)), line


@settings(derandomize=True, max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.text(alphabet="abc XYZ.,!", min_size=1, max_size=40))
def test_a_change_outside_the_scope_is_not(approved_text: str, words: str) -> None:
    text = approved_text
    head, sep, rest = text.partition("## Design Tree")
    assert sep
    changed = head + f"## Our notes\n\n{words}\n\n" + sep + rest
    assert "APPROVAL_SCOPE_CHANGED" not in _diagnostics(changed)
