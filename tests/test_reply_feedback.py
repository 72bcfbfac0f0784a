"""Replies explain themselves (issue 35, point 5), through the installed CLI: `answer` names
each line it could not place and the shapes it reads, records the lines that do answer,
turns the approval selection towards `confirm`, and every next step names the real spec and
a free confirmation ID."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo

from mdgrill.core.askround import REPLY_SHAPES

SPEC = "specs/codes"


def run(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None,
        json_out: bool = True) -> tuple[int, str, str]:
    proc = subprocess.run([*MDGRILL, *(["--json"] if json_out else []), *args], cwd=repo,
                          env=env, capture_output=True, text=True, input=stdin, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def ok(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None,
       ) -> dict[str, object]:
    code, out, _ = run(repo, env, *args, stdin=stdin)
    assert code == 0, out
    payload: dict[str, object] = json.loads(out)
    return payload


def text(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None,
         code: int = 0) -> str:
    got, out, err = run(repo, env, *args, stdin=stdin, json_out=False)
    assert got == code, (out, err)
    return out + err


@pytest.fixture
def three(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A spec whose first round asks three decisions, each with two options."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    for i in (1, 2, 3):
        ok(repo, env, "node", "add", SPEC, f"D{i}", "--title", f"Question {i}?", "--option",
           "All", "--option", "Some", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "ask", SPEC)
    return repo, env


@pytest.fixture
def one(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A spec whose first round asks one decision."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    ok(repo, env, "node", "add", SPEC, "D1", "--title", "Who?", "--option", "All", "--option",
       "Some", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "ask", SPEC)
    return repo, env


def unread(line: str, questions: str = "Q1–Q3") -> str:
    return f"`{line}` names no question of round 1 ({questions}): {REPLY_SHAPES}"


def test_a_reply_that_records_nothing_names_each_line_and_the_shapes(
        three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()
    again = f"nothing was recorded; ask the same round again (`mdgrill ask {SPEC}`)"
    # words that answer nothing pending are REPLY_UNREAD (exit 2): issue 31, point 2
    out = text(repo, env, "answer", SPEC, "--tool-result", "-", stdin="All of it\nQ7: b\n",
               code=2)
    assert out.splitlines() == [unread("All of it"), unread("Q7: b"), again]
    out = text(repo, env, "answer", SPEC, "--tool-result", "-", stdin="ok, sounds good")
    assert out.splitlines() == [
        unread("ok, sounds good") + " (it reads as control only: it answers nothing)", again]
    assert progress.read_bytes() == before
    code, raw, _ = run(repo, env, "answer", SPEC, "--tool-result", "-",
                       stdin="ok, sounds good\nQ7: b")
    done = json.loads(raw)
    assert code == 2 and done["error"]["code"] == "REPLY_UNREAD"
    assert done["recorded"] == {} and done["unread"] == ["ok, sounds good", "Q7: b"]
    assert (done["round"], done["asked"], done["next"]) == (1, 3, "ask")
    assert done["next_command"] == f"mdgrill ask {SPEC}"
    assert done["classification"] == "substantive"  # the key it always had, of the whole reply


def test_the_lines_that_answer_are_recorded_and_the_others_named(
        three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    out = text(repo, env, "answer", SPEC, "--tool-result", "-",
               stdin="Q1: b\nand for the rest, whatever\nQ3: a\nQ9: a\n", code=2)
    assert out.splitlines() == [
        "recorded D1 -> Some", "recorded D3 -> All",
        unread("and for the rest, whatever"), unread("Q9: a"),
        "still open: D2", f"next: mdgrill ask {SPEC}",
        "not all of the reply was recorded (REPLY_UNREAD)"]
    text_now = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D1 -> Some\n" in text_now and "- Decisions: D3 -> All\n" in text_now


def test_the_tools_answers_that_name_no_question_are_named(
        three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    result = {"answers": {"Q1 - D1: Question 1?": "All (Recommended)", "Q2": "Some",
                          "Which colour?": "Blue"}}
    code, raw, _ = run(repo, env, "answer", SPEC, "--tool-result", "-",
                       stdin=json.dumps(result))
    done = json.loads(raw)
    # `Q2` alone names the second question, as `Q2: …` does in a plain reply
    assert code == 2 and done["error"]["code"] == "REPLY_UNREAD"  # `Blue` was not recorded
    assert done["recorded"] == {"D1": "All", "D2": "Some"}
    assert done["unread"] == ["Which colour?"] and done["open"] == ["D3"]


def test_a_long_line_is_quoted_back_cut(three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    out = text(repo, env, "answer", SPEC, "--tool-result", "-", stdin="x" * 5000, code=2)
    assert f"`{'x' * 79}…` names no question of round 1 (Q1–Q3)" in out
    assert len(out.splitlines()[0]) < 400


def test_the_next_step_names_the_spec_and_a_free_confirmation_id(
        one: tuple[Path, dict[str, str]]) -> None:
    repo, env = one
    out = text(repo, env, "answer", SPEC, "--tool-result", "-", stdin="a")
    wanted = f"mdgrill await-confirmation {SPEC} --decision-id C1 --approach TEXT"
    assert out.splitlines()[-1] == f"next: {wanted}"
    assert text(repo, env, "ask", SPEC).strip() == f"nothing is open: present the approach " \
        f"with `{wanted}`"
    assert ok(repo, env, "ask", SPEC)["next_command"] == wanted
    # the ID it names is one await-confirmation takes
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "All")


def test_an_owed_other_follow_up_is_the_next_step_of_collect_and_ask(
        three: tuple[Path, dict[str, str]]) -> None:
    """"When the user picks `Other`, ask a specific follow-up": the step after any reply,
    and after `collect`, names that follow-up while it is owed, not the next round."""
    repo, env = three
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Q1: a\nQ2: only members\n")
    ok(repo, env, "questionnaire", SPEC)
    sheet = repo / SPEC / "questions.md"
    filled = sheet.read_text(encoding="utf-8").replace("- [ ] All", "- [x] All", 1)
    assert filled != sheet.read_text(encoding="utf-8")
    sheet.write_text(filled, encoding="utf-8")
    out = text(repo, env, "collect", SPEC)
    follow_up = f"mdgrill node add {SPEC} ID --title T --spawned-by D2"
    assert out.splitlines() == [
        "recorded D3 -> All",
        f"D2 was answered in the user's own words (in an earlier reply): add the decision it "
        f"leads to (`{follow_up}`)",
        "every question of the round has its answer", f"next: {follow_up}"]
    assert text(repo, env, "ask", SPEC).strip() == (
        "nothing is open: an answer in the user's own words still owes its follow-up: add the "
        f"decision it leads to (`{follow_up}`) and ask it")
    asked = ok(repo, env, "ask", SPEC)
    assert (asked["next"], asked["next_command"]) == ("node add", follow_up)


def test_the_approval_selection_given_to_answer_names_confirm(
        one: tuple[Path, dict[str, str]]) -> None:
    repo, env = one
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="a")
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "All")
    approval = ok(repo, env, "ask", SPEC)
    assert approval["next_command"] == (f"mdgrill confirm {SPEC} --decision-id C1 --source "
                                        "approve-and-delegate --reply <the user's selection>")
    question = approval["questions"][0]["question"]  # type: ignore[index]
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()
    selection = {"answers": {question: "Approve and delegate (Recommended)"}}
    code, out, _ = run(repo, env, "answer", SPEC, "--tool-result", "-",
                       stdin=json.dumps(selection))
    assert code == 3
    error = json.loads(out)["error"]
    command = (f"mdgrill confirm {SPEC} --decision-id C1 --source approve-and-delegate "
               "--reply 'Approve and delegate (Recommended)'")
    assert error["code"] == "ILLEGAL_TRANSITION"  # no longer MISSING_REFERENCE
    assert error["message"] == ("interview r1 awaits the user's approval of its approach, not "
                                "answers to questions; nothing was recorded: this is the "
                                f"approval: run `{command}`")
    assert progress.read_bytes() == before
    code, out, _ = run(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Cancel")
    assert code == 3 and f"this cancels: run `mdgrill cancel {SPEC} --reply Cancel`" in \
        json.loads(out)["error"]["message"]
    code, out, _ = run(repo, env, "answer", SPEC, "--tool-result", "-", stdin="yes")
    assert code == 3 and "record the user's selection with `mdgrill confirm " \
        f"{SPEC} --decision-id C1 --source approve-and-delegate --reply …`" in \
        json.loads(out)["error"]["message"]
    # the command it names, run as given, approves
    argv = command.split(" ", 1)[1].split(" --reply ")[0].split()
    assert ok(repo, env, *argv, "--reply", "Approve and delegate (Recommended)")["status"] == \
        "complete"


def test_answer_with_nothing_pending_names_the_spec(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    code, out, _ = run(repo, env, "answer", SPEC, "--tool-result", "-", stdin="a")
    assert code == 3
    assert json.loads(out)["error"]["message"] == (
        f"no decision is pending: run `mdgrill ask {SPEC}` and pass its questions to the user "
        "first")


def test_status_on_a_conflicted_spec_names_merge(three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("add", "-A")
    git("commit", "-qm", "round 1 asked")
    git("checkout", "-qb", "other")
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Q3: a")
    git("commit", "-qam", "other")
    git("checkout", "-q", "main")
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Q3: b")
    git("commit", "-qam", "main")
    assert subprocess.run(["git", "merge", "-q", "other"], cwd=repo, env=env,
                          capture_output=True).returncode != 0
    code, out, _ = run(repo, env, "status", SPEC)
    assert code == 2
    error = json.loads(out)["error"]
    assert error["code"] == "MERGE_CONFLICT"
    # the first markers hold the log's seal, not an answer: merge again, keep what is left
    assert f"git conflict markers: run `mdgrill merge {SPEC}/.progress.md`: it merges the " \
        "two sides again and leaves between markers only what you must choose" in \
        error["message"]
    # and the command it names does that
    code, _, err = run(repo, env, "merge", f"{SPEC}/.progress.md", json_out=False)
    assert code == 1 and "conflict on D3: ours `Some`, theirs `All`" in err + _


def test_an_approval_with_no_captured_reply_names_the_spec_to_ask(
        one: tuple[Path, dict[str, str]]) -> None:
    repo, env = one
    (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="a")
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "All")
    code, out, _ = run(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source",
                       "approve-and-delegate", "--reply", "Approve and delegate")
    assert code == 3
    error = json.loads(out)["error"]
    assert error["code"] == "APPROVAL_NOT_EVIDENCED"
    assert f"Ask the approval question of `mdgrill ask {SPEC}` as it is (it names this " \
        "approval) and let the user answer" in error["message"]
    assert error["message"].endswith("Nothing was written")


def test_the_tools_result_lands_on_the_decision_its_question_names(tmp_path: Path) -> None:
    """Once part of a round is answered the rest keeps its numbers (issue 31); a tool result
    from the first `ask` names its decision in each question's text: `Q2 - D2` was once
    recorded against D4. An answered question given another answer is named, not recorded."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    for i in (1, 2, 3, 4):
        ok(repo, env, "node", "add", SPEC, f"D{i}", "--title", f"Question {i}?", "--option",
           "All", "--option", "Some", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    first = ok(repo, env, "ask", SPEC)["decisions"]
    assert isinstance(first, dict)
    by_id = {v: k for k, v in first.items()}
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin=json.dumps(
        {"answers": {by_id["D1"]: "All", by_id["D3"]: "All"}}))
    # the same first call's answers again, and the one left: D1 names no pending question
    code, raw, _ = run(repo, env, "answer", SPEC, "--tool-result", "-", stdin=json.dumps(
        {"answers": {by_id["D1"]: "Some", by_id["D2"]: "Some (Recommended)"}}))
    done = json.loads(raw)
    assert code == 2 and done["recorded"] == {"D2": "Some"} and done["open"] == ["D4"]
    assert done["unread"] == ["Q1 - D1: Question 1?"]
    assert done["unread_messages"][0].startswith(
        "`Q1 - D1: Question 1?` names Q1 (D1), answered already (`All`)")
    text_now = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D2 -> Some\n" in text_now and "D4 -> Some" not in text_now
    # the first call's answer again, as it was recorded, holds no news: nothing is unread
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin=json.dumps(
        {"answers": {by_id["D1"]: "All", by_id["D4"]: "Some"}}))
    assert done["recorded"] == {"D4": "Some"} and "error" not in done
