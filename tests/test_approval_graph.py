"""Approval state from the commit graph (issue 30 point 7): a reopening committed after an
approval sets it aside for good; `git revert` of the reopening brings the old record back but
not the approval."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Run, git_out, json_ok

SPEC = "specs/a"
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")




def test_a_revert_of_a_reopening_does_not_bring_the_approval_back(repo: Path,
                                                                  mdgrill: Run) -> None:
    for argv in (("init", SPEC, "--goal", "Let customers apply a promo code."),
                 ("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", SPEC, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", SPEC, "--decision-id", "D1", "--answer", "Every customer"),
                 ("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "One code"),
                 ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
                  "--reply", "Approve and delegate")):
        json_ok(mdgrill, repo, *argv)
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"
    reopened = json_ok(mdgrill, repo, "reopen", SPEC, "--phase", "requirements", "--reason",
                   "the scope was wrong")
    assert reopened["commit"] == git_out(repo, "rev-parse", "HEAD")
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3 and json.loads(out)["error"]["code"] == "INTERVIEW_SUPERSEDED"

    git_out(repo, "revert", "--no-edit", "HEAD")  # the record reads `complete` again

    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3, out
    error = json.loads(out)["error"]
    assert error["code"] == "INTERVIEW_SUPERSEDED"
    assert error["reopen_commit"] == reopened["commit"]
