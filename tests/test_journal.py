"""The reply journal (`shell/journal.py`) is the repository's, not one checkout's (issue 30
points 4 and 10): every worktree reads and writes one journal under git's common dir, and it
serves every spec of the repository, not the first twenty."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Run, git_out

SPEC = "specs/a"
CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")



def _awaiting(repo: Path, mdgrill: Run, spec: str = SPEC) -> None:
    for argv in (("init", spec, "--goal", "Let customers apply a promo code."),
                 ("begin-interview", spec, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", spec, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", spec, "--decision-id", "D1", "--answer", "Every customer"),
                 ("await-confirmation", spec, "--decision-id", "C1", "--approach", "One code")):
        code, out, err = mdgrill(*argv, cwd=repo)
        assert code == 0, (argv, out, err)


def _say(mdgrill: Run, cwd: Path, words: str) -> None:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": words, "cwd": str(cwd)}
    code, _, err = mdgrill("hook", "userpromptsubmit", cwd=cwd, input=json.dumps(event))
    assert code == 0, err


def test_a_cancel_in_the_main_checkout_holds_in_a_linked_worktree(
        repo: Path, tmp_path: Path, mdgrill: Run) -> None:
    """The framework: "if "Cancel": leave the interview nonterminal, stop without delegation".
    A `git worktree add` checkout used to keep its own (empty) journal and approve."""
    _awaiting(repo, mdgrill)
    git_out(repo, "add", "-A")
    git_out(repo, "commit", "-q", "-m", "awaiting")
    linked = tmp_path / "linked"
    git_out(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    _say(mdgrill, repo, "Cancel")
    before = (linked / SPEC / ".progress.md").read_bytes()

    code, out, _ = mdgrill("--json", *CONFIRM, "--reply", "Approve and delegate", cwd=linked)

    assert code == 3, out
    assert json.loads(out)["error"]["code"] == "APPROVAL_NOT_EVIDENCED"
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=linked)
    assert code == 3, out
    assert json.loads(out)["error"]["code"] == "APPROVAL_NOT_EXPLICIT"
    assert (linked / SPEC / ".progress.md").read_bytes() == before
    assert not (Path(git_out(linked, "rev-parse", "--absolute-git-dir")) / "mdgrill").exists()
    assert (repo / ".git" / "mdgrill" / "replies.jsonl").is_file()


def test_an_approval_in_a_linked_worktree_is_captured_in_the_one_journal(
        repo: Path, tmp_path: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    git_out(repo, "add", "-A")
    git_out(repo, "commit", "-q", "-m", "awaiting")
    linked = tmp_path / "linked"
    git_out(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    _say(mdgrill, linked, "Approve and delegate")

    code, out, _ = mdgrill("--json", *CONFIRM, cwd=linked)

    assert code == 0, out
    journal = (repo / ".git" / "mdgrill" / "replies.jsonl").read_text(encoding="utf-8")
    assert json.loads(out)["reply_sha256"] in journal


def test_the_twenty_first_spec_can_be_approved(repo: Path, mdgrill: Run) -> None:
    """The journal listed the interviews under way for the first 20 specs only: a reply to
    the 21st could never be evidence, so its real approval could never be recorded."""
    for n in range(21):
        (repo / "specs" / f"s{n:02d}").mkdir(parents=True)
        code, _, err = mdgrill("init", f"specs/s{n:02d}", "--goal", "A goal", cwd=repo)
        assert code == 0, err
    last = "specs/s20"
    for argv in (("begin-interview", last, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", last, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", last, "--decision-id", "D1", "--answer", "Every customer"),
                 ("await-confirmation", last, "--decision-id", "C1", "--approach", "One code")):
        code, out, err = mdgrill(*argv, cwd=repo)
        assert code == 0, (argv, out, err)
    _say(mdgrill, repo, "Approve and delegate")

    code, out, _ = mdgrill("--json", "confirm", last, "--decision-id", "C1", "--source",
                           "approve-and-delegate", cwd=repo)

    assert code == 0, out
    assert json.loads(out)["status"] == "complete"
