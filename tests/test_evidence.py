"""Evidence bound to the question asked (issue 30 points 2, 3, 5 and 6): a captured reply
approves only the approval question it answers, while that brief (or that artifact) is shown;
and an approval's history is held to `verify`'s rules (point 8).

Every test runs the installed CLI in a real repository; the hooks are fed the events Claude
Code sends (UserPromptSubmit, PostToolUse of AskUserQuestion), as the plugin wires them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import Run, git_out, json_ok

SPEC = "specs/a"
PROGRESS = f"{SPEC}/.progress.md"
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")


def _confirm(cid: str = "C1") -> tuple[str, ...]:
    return ("confirm", SPEC, "--decision-id", cid, "--source", "approve-and-delegate")


def _collecting(repo: Path, mdgrill: Run, answer: str = "Every customer") -> None:
    for argv in (("init", SPEC, "--goal", "Let customers apply a promo code."),
                 ("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", SPEC, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", SPEC, "--decision-id", "D1", "--answer", answer)):
        json_ok(mdgrill, repo, *argv)


def _awaiting(repo: Path, mdgrill: Run, approach: str = "Do A", cid: str = "C1") -> None:
    _collecting(repo, mdgrill)
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", cid, "--approach",
            approach)


def _approval_question(repo: Path, mdgrill: Run) -> str:
    asked = json_ok(mdgrill, repo, "ask", SPEC)
    assert asked["kind"] == "approval"
    questions = asked["questions"]
    assert isinstance(questions, list)
    return str(questions[0]["question"])


def _tool_answers(mdgrill: Run, repo: Path, answers: dict[str, str]) -> None:
    """What the plugin's PostToolUse hook is given after one AskUserQuestion call."""
    event = {"hook_event_name": "PostToolUse", "tool_name": "AskUserQuestion",
             "cwd": str(repo), "tool_input": {"questions": [{"question": q} for q in answers]},
             "tool_response": {"answers": answers}}
    code, _, err = mdgrill("hook", "posttooluse", cwd=repo, input=json.dumps(event))
    assert code == 0, err


def _say(mdgrill: Run, repo: Path, words: str) -> None:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": words, "cwd": str(repo)}
    code, _, err = mdgrill("hook", "userpromptsubmit", cwd=repo, input=json.dumps(event))
    assert code == 0, err


def _refused(mdgrill: Run, repo: Path, *argv: str) -> dict[str, object]:
    code, out, _ = mdgrill("--json", *argv, cwd=repo)
    assert code == 3, out
    error = json.loads(out)["error"]
    assert isinstance(error, dict)
    return error


def _head(repo: Path) -> str:
    return git_out(repo, "rev-parse", "HEAD")


def _commit_all(repo: Path, message: str) -> None:
    git_out(repo, "add", "-A")
    git_out(repo, "commit", "-q", "-m", message)


# -- the approval question carries this approval -------------------------------------------


def test_the_approval_question_names_the_confirmation_and_the_approach(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill, approach="One code per order")
    question = _approval_question(repo, mdgrill)
    assert "The approach: One code per order" in question
    assert "(approval C1 of interview r1, specs/a)" in question


# -- point 2: the evidence of one approval never approves another -------------------------


def test_a_selection_for_one_approach_does_not_approve_a_revised_one(
        repo: Path, mdgrill: Run) -> None:
    """The framework: "return to final approval using the same confirmation ID, and keep the
    same interview record until the brief is approved again". The user approved "Do A"; the
    agent revises, records another answer and presents "Do B, and delete prod" under the same
    ID: the earlier selection is not an approval of that brief."""
    _awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {_approval_question(repo, mdgrill):
                                  "Approve and delegate (Recommended)"})
    json_ok(mdgrill, repo, "revise", SPEC, "--decision-id", "D1")
    json_ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D1", "--answer",
            "Drop every table")
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do B, and delete prod")
    before = (repo / PROGRESS).read_bytes()

    error = _refused(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate")

    assert error["code"] == "APPROVAL_NOT_EVIDENCED"
    assert _refused(mdgrill, repo, *_confirm())["code"] == "APPROVAL_NOT_EVIDENCED"
    assert (repo / PROGRESS).read_bytes() == before
    # the user's own answer to the brief now shown approves it
    _tool_answers(mdgrill, repo, {_approval_question(repo, mdgrill):
                                  "Approve and delegate (Recommended)"})
    assert json_ok(mdgrill, repo, *_confirm())["status"] == "complete"


def test_a_selection_for_one_confirmation_id_does_not_approve_the_next(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {_approval_question(repo, mdgrill): "Approve and delegate"})
    json_ok(mdgrill, repo, "revise", SPEC, "--decision-id", "D1")
    json_ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D1", "--answer", "Staff")
    # the brief comes back "using the same confirmation ID": a new one is refused outright
    assert _refused(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C2",
                    "--approach", "Do B, and delete prod")["code"] == "CONFIRMATION_ID_MISMATCH"
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do B, and delete prod")

    assert _refused(mdgrill, repo, *_confirm("C1"))["code"] == "APPROVAL_NOT_EVIDENCED"


def test_a_reply_typed_before_the_brief_was_shown_is_no_evidence(
        repo: Path, mdgrill: Run) -> None:
    _collecting(repo, mdgrill)
    _say(mdgrill, repo, "Approve and delegate")  # while the interview was still collecting
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do A")

    assert _refused(mdgrill, repo, *_confirm())["code"] == "APPROVAL_NOT_EVIDENCED"


def test_a_typed_selection_while_the_brief_is_shown_approves(repo: Path, mdgrill: Run) -> None:
    """A host without the question tool shows `ask --format markdown`; the user types the
    selection, and the one gate awaiting a reply is what it answers."""
    _awaiting(repo, mdgrill)
    _say(mdgrill, repo, "Approve and delegate")

    done = json_ok(mdgrill, repo, *_confirm())

    journal = (repo / ".git" / "mdgrill" / "replies.jsonl").read_text(encoding="utf-8")
    assert done["reply_sha256"] in journal
    assert f"Mdgrill-Reply-Sha256: {done['reply_sha256']}" in \
        git_out(repo, "log", "-1", "--format=%B")


def test_a_skip_brief_is_approved_by_the_answer_to_its_own_question(
        repo: Path, mdgrill: Run) -> None:
    """The framework: after a bare `skip`, "Continue to final approval and confirm decision
    ID `skip-confirmation`"."""
    json_ok(mdgrill, repo, "init", SPEC, "--goal", "Let customers apply a promo code.")
    json_ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements",
            "--interview-id", "r1")
    json_ok(mdgrill, repo, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    json_ok(mdgrill, repo, "skip", SPEC, "--reason", "the user said skip", "--assumption",
            "every customer")
    question = _approval_question(repo, mdgrill)
    assert "(approval skip-confirmation of interview r1, specs/a)" in question
    _tool_answers(mdgrill, repo, {question: "Approve and delegate (Recommended)"})

    done = json_ok(mdgrill, repo, *_confirm("skip-confirmation"))

    assert done["status"] == "skipped"


# -- point 3: the selection is taken from the approval question only -----------------------


def test_cancel_to_the_approval_question_is_not_outvoted_by_another_question(
        repo: Path, mdgrill: Run) -> None:
    """The framework: "Only the explicit approval selection completes the gate." One
    AskUserQuestion call, two questions: the approval question answered `Cancel`, another one
    answered `Approve and delegate`. The last line used to win."""
    _awaiting(repo, mdgrill)
    question = _approval_question(repo, mdgrill)
    _tool_answers(mdgrill, repo, {question: "Cancel",
                                  "Which launch date?": "Approve and delegate"})
    before = (repo / PROGRESS).read_bytes()

    error = _refused(mdgrill, repo, *_confirm())

    assert error["code"] == "APPROVAL_NOT_EXPLICIT"  # the user's answer to it is `Cancel`
    assert _refused(mdgrill, repo, *_confirm(), "--reply",
                    "Approve and delegate")["code"] == "APPROVAL_NOT_EVIDENCED"
    assert (repo / PROGRESS).read_bytes() == before


def test_the_approval_answer_counts_beside_other_questions(repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    question = _approval_question(repo, mdgrill)
    _tool_answers(mdgrill, repo, {question: "Approve and delegate (Recommended)",
                                  "Anything else?": "Cancel"})

    assert json_ok(mdgrill, repo, *_confirm())["status"] == "complete"


def test_an_approval_question_of_the_agents_own_wording_is_no_evidence(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {"Approve and delegate?": "Approve and delegate"})
    assert _refused(mdgrill, repo, *_confirm())["code"] == "APPROVAL_NOT_EVIDENCED"
    # the tag alone, beside another approach, is not this brief's question either
    tagged = _approval_question(repo, mdgrill).replace("The approach: Do A",
                                                       "The approach: Do nothing")
    _tool_answers(mdgrill, repo, {tagged: "Approve and delegate"})
    assert _refused(mdgrill, repo, *_confirm())["code"] == "APPROVAL_NOT_EVIDENCED"


# -- point 5: the retried commit re-checks the evidence -------------------------------------


def test_a_retried_commit_rechecks_the_evidence(repo: Path, mdgrill: Run) -> None:
    """An approval recorded without evidence (no journal yet, `--no-commit`) is not committed
    by the next plain `confirm` once the repository keeps a journal."""
    _awaiting(repo, mdgrill)
    json_ok(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate", "--no-commit")
    _say(mdgrill, repo, "thanks")  # the hooks now keep a journal

    error = _refused(mdgrill, repo, *_confirm())

    assert error["code"] == "APPROVAL_NOT_EVIDENCED"
    assert "names no captured reply" in str(error["message"])
    assert git_out(repo, "rev-list", "--all", "--count") == "0"  # nothing committed
    assert _refused(mdgrill, repo, *CHECK)["code"] == "APPROVAL_NOT_RECORDED"


@pytest.mark.parametrize("config", ["", "approval: evidence\n", "approval: [hook]\n"])
def test_a_retried_commit_with_its_evidence_commits_it(repo: Path, mdgrill: Run,
                                                      config: str) -> None:
    """Also where the project refuses the agent's word: the retry is no new approval, and
    its block names the captured reply (it was once chosen as the `agent` channel there)."""
    if config:
        (repo / ".mdgrill.yaml").write_text(config, encoding="utf-8")
    _awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {_approval_question(repo, mdgrill): "Approve and delegate"})
    first = json_ok(mdgrill, repo, *_confirm(), "--no-commit")

    again = json_ok(mdgrill, repo, *_confirm())

    assert again["retried_commit"] is True
    assert f"Mdgrill-Reply-Sha256: {first['reply_sha256']}" in \
        git_out(repo, "log", "-1", "--format=%B")
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"


# -- point 8: the approval's history is held to verify's rules ------------------------------


def _reseal(path: Path) -> None:
    """Recompute `log.sha256` as mdgrill would: a forger who knows the format."""
    from mdgrill.formats.progress import read_progress
    from mdgrill.formats.progress.blocks import log_digest

    text = path.read_text(encoding="utf-8")
    digest = log_digest(read_progress(text.encode(), path.name).log_text())
    path.write_text(re.sub(r"sha256: [0-9a-f]{64}\n---", f"sha256: {digest}\n---", text,
                           count=1), encoding="utf-8")


def _edit_recorded_answer(repo: Path) -> None:
    path = repo / PROGRESS
    text = path.read_text(encoding="utf-8")
    assert "D1 -> Every customer" in text
    path.write_text(text.replace("D1 -> Every customer", "D1 -> Drop every table"),
                    encoding="utf-8")
    _reseal(path)


def test_confirm_refuses_a_record_edited_and_resealed_since_its_commit(
        repo: Path, mdgrill: Run) -> None:
    _collecting(repo, mdgrill)
    _commit_all(repo, "answers")
    _edit_recorded_answer(repo)
    code, _, _ = mdgrill("validate", SPEC, cwd=repo)
    assert code == 0  # resealed: the file alone looks whole
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do A")
    before = (repo / PROGRESS).read_bytes()
    head = _head(repo)

    error = _refused(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate")

    assert error["code"] == "ROUND_EDITED"
    assert (repo / PROGRESS).read_bytes() == before and _head(repo) == head


def test_confirm_refuses_an_edit_committed_before_it(repo: Path, mdgrill: Run) -> None:
    _collecting(repo, mdgrill)
    _commit_all(repo, "answers")
    _edit_recorded_answer(repo)
    _commit_all(repo, "reword D1")
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do A")

    error = _refused(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate")

    assert error["code"] == "ROUND_EDITED"
    code, out, _ = mdgrill("verify", SPEC, cwd=repo)
    assert code == 1 and "ROUND_EDITED" in out


def test_check_delegation_refuses_an_approval_over_an_edited_history(
        repo: Path, mdgrill: Run) -> None:
    """Issue 30 point 8: `verify` reported ROUND_EDITED while `check-delegation` allowed. The
    approval is made where the edit cannot be seen (a branch whose history starts at the
    edited file) and carried onto the branch that holds the edit (a cherry-pick), as a
    confirm in another clone would be."""
    _collecting(repo, mdgrill)
    _commit_all(repo, "answers")
    _edit_recorded_answer(repo)
    _commit_all(repo, "reword D1")
    git_out(repo, "checkout", "-q", "--orphan", "clean")
    _commit_all(repo, "the edited record, with no history")
    json_ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
            "Do A")
    _commit_all(repo, "brief")
    approval = json_ok(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate")
    assert json_ok(mdgrill, repo, *CHECK)["decision"] == "allow"  # its own history is clean
    git_out(repo, "checkout", "-q", "main")
    git_out(repo, "cherry-pick", f"{approval['commit']}~1")
    git_out(repo, "cherry-pick", str(approval["commit"]))

    error = _refused(mdgrill, repo, *CHECK)

    assert error["code"] == "ROUND_EDITED"  # the code `verify` gives for that history
    code, out, _ = mdgrill("verify", SPEC, cwd=repo)
    assert code == 1 and "ROUND_EDITED" in out
    # and the agent hook, which runs the same check, denies the delegation
    prompt = (f"[MDGRILL_PHASE_GATE]\nspec: {SPEC}\nphase: requirements\ninterview: r1\n"
              "[/MDGRILL_PHASE_GATE]")
    event = {"hook_event_name": "PreToolUse", "tool_name": "Agent", "cwd": str(repo),
             "tool_input": {"prompt": prompt}}
    code, out, _ = mdgrill("hook", "pretooluse", cwd=repo, input=json.dumps(event))
    decision = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny"
    assert decision["permissionDecisionReason"].startswith("ROUND_EDITED")


# -- point 6: the artifact's approval needs its own evidence --------------------------------


def _artifact_awaiting(repo: Path, mdgrill: Run, text: str = "# Requirements\n") -> str:
    """An approved interview (its own evidence captured) and its artifact presented; the
    artifact's gate ID."""
    _awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {_approval_question(repo, mdgrill): "Approve and delegate"})
    json_ok(mdgrill, repo, *_confirm())
    return _present(repo, mdgrill, text)


def _present(repo: Path, mdgrill: Run, text: str) -> str:
    (repo / SPEC / "requirements.md").write_text(text, encoding="utf-8")
    submitted = json_ok(mdgrill, repo, "await-artifact-approval", SPEC, "--artifact",
                        f"{SPEC}/requirements.md")
    return str(submitted["gate"])


def _artifact_question(gate: str) -> str:
    """The artifact's approval question as `ask` is to give it: it names the artifact's gate
    (`core.evidence.artifact_tag`)."""
    sha12 = gate.rsplit("@", 1)[1]
    return (f"Approve {SPEC}/requirements.md and continue to design? The requirements artifact "
            f"of spec {SPEC}, sha256 {sha12} (approval of {gate}, {SPEC})")


APPROVE_ARTIFACT = ("approve-artifact", SPEC, "--source", "approve-artifact")
APPROVE_FILE = "Approve requirements.md and continue to design"  # the question's first option


def test_no_do_not_approve_this_file_never_approves_it(repo: Path, mdgrill: Run) -> None:
    """The framework: "Keep the phase in artifact approval until the user explicitly
    approves." With a journal, `approve-artifact` approved after the user wrote this."""
    _artifact_awaiting(repo, mdgrill)
    _say(mdgrill, repo, "No, do not approve this file")
    before = (repo / PROGRESS).read_bytes()
    head = _head(repo)

    error = _refused(mdgrill, repo, *APPROVE_ARTIFACT)

    assert error["code"] == "APPROVAL_NOT_EVIDENCED"
    assert "No, do not approve this file" in str(error["message"])
    assert (repo / PROGRESS).read_bytes() == before and _head(repo) == head


def test_a_control_only_reply_never_approves_an_artifact(repo: Path, mdgrill: Run) -> None:
    """The framework: "Do not infer defaults or approval from a control-only reply"."""
    gate = _artifact_awaiting(repo, mdgrill)
    for words in ("ok", "continue", "lgtm", "go ahead"):
        _say(mdgrill, repo, words)
        assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"
        _tool_answers(mdgrill, repo, {_artifact_question(gate): words})
        assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"


def test_the_answer_to_the_artifact_question_approves_it(repo: Path, mdgrill: Run) -> None:
    gate = _artifact_awaiting(repo, mdgrill)
    # the interview's approval, and an answer to another question, are not this approval
    assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"
    _tool_answers(mdgrill, repo, {"Approve the design next?": APPROVE_FILE,
                                  _artifact_question(gate): "No"})
    assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"

    _tool_answers(mdgrill, repo, {_artifact_question(gate): APPROVE_FILE})
    done = json_ok(mdgrill, repo, *APPROVE_ARTIFACT)

    assert done["phase"] == "design"
    assert f"- Reply sha256: {done['reply_sha256']}" in (repo / PROGRESS).read_text()
    assert f"Mdgrill-Reply-Sha256: {done['reply_sha256']}" in \
        git_out(repo, "log", "-1", "--format=%B")
    code, out, _ = mdgrill("verify", SPEC, cwd=repo)
    assert code == 0, out


def test_an_answer_about_an_earlier_version_does_not_approve_the_revised_one(
        repo: Path, mdgrill: Run) -> None:
    first = _artifact_awaiting(repo, mdgrill)
    _tool_answers(mdgrill, repo, {_artifact_question(first): APPROVE_FILE})
    json_ok(mdgrill, repo, "request-revision", SPEC, "--feedback", "add caching")
    second = _present(repo, mdgrill, "# Requirements\n\nCache the codes.\n")
    assert second != first

    assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"
    # nor is the earlier question's tag answered again after the new version was presented
    _tool_answers(mdgrill, repo, {_artifact_question(first): APPROVE_FILE})
    assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"
    _tool_answers(mdgrill, repo, {_artifact_question(second): APPROVE_FILE})
    assert json_ok(mdgrill, repo, *APPROVE_ARTIFACT)["phase"] == "design"


def test_approval_evidence_without_a_journal_refuses_an_artifact(
        repo: Path, mdgrill: Run) -> None:
    """`approval: evidence` in `.mdgrill.yaml`: no journal, no approval of the file."""
    _awaiting(repo, mdgrill)
    json_ok(mdgrill, repo, *_confirm(), "--reply", "Approve and delegate")
    _present(repo, mdgrill, "# Requirements\n")
    (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")

    assert _refused(mdgrill, repo, *APPROVE_ARTIFACT)["code"] == "APPROVAL_NOT_EVIDENCED"
