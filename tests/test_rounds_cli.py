"""`ask` and `answer` (issue 16, part 1): the round as AskUserQuestion's payload and back,
through the installed CLI in a real repository. The framework's words they keep: "2–4 viable
options", "the recommended option first, labelled `(Recommended)`", "at most four questions
per call", "number each question"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo

SPEC = "specs/codes"


def run(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None,
        ) -> tuple[int, dict[str, object]]:
    proc = subprocess.run([*MDGRILL, "--json", *args], cwd=repo, env=env, capture_output=True,
                          text=True, input=stdin, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def ok(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None,
       ) -> dict[str, object]:
    code, payload = run(repo, env, *args, stdin=stdin)
    assert code == 0, payload
    return payload


@pytest.fixture
def six(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A spec with six unblocked decisions, each with options, one recommended."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    for i in range(1, 7):
        ok(repo, env, "node", "add", SPEC, f"D{i}", "--title", f"Question {i}?", "--section",
           "scope", "--option", f"First {i}: the simple one", "--option", f"Second {i}",
           "--recommend", "2", "--rationale", "the team asked for it")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    return repo, env


def test_ask_opens_the_whole_frontier_in_calls_of_four(six: tuple[Path, dict[str, str]]) -> None:
    repo, env = six
    asked = ok(repo, env, "ask", SPEC)
    assert asked["written"] is True and asked["round"] == 1
    batches = asked["batches"]
    assert isinstance(batches, list) and [len(b["questions"]) for b in batches] == [4, 2]
    first = batches[0]["questions"][0]
    # "number each question"; "the recommended option first, labelled (Recommended)"
    assert first["question"] == "Q1 - D1: Question 1?"
    assert [o["label"] for o in first["options"]] == ["Second 1 (Recommended)", "First 1"]
    assert first["options"][0]["description"] == "the team asked for it"
    assert first["options"][1]["description"] == "the simple one"
    assert first["multiSelect"] is False and len(first["header"]) <= 12
    assert set(first) == {"question", "header", "options", "multiSelect"}  # the tool's keys
    text = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert "- Asked: D1, D2, D3, D4, D5, D6" in text
    # asking again re-asks the pending round and writes nothing
    again = ok(repo, env, "ask", SPEC)
    assert again["written"] is False and again["decisions"] == asked["decisions"]


def test_answer_records_options_own_words_and_leaves_the_rest_open(
        six: tuple[Path, dict[str, str]]) -> None:
    repo, env = six
    ok(repo, env, "ask", SPEC)
    result = {"tool_response": {"questions": [], "answers": {
        "Q1 - D1: Question 1?": "Second 1 (Recommended)",
        "Q2 - D2: Question 2?": "First 2",
        "Q3 - D3: Question 3?": "Only on weekends",  # typed into Other
    }}}
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-", "--by", "Dana",
              stdin=json.dumps(result))
    assert done["recorded"] == {"D1": "Second 1", "D2": "First 2", "D3": "Only on weekends"}
    assert done["open"] == ["D4", "D5", "D6"] and done["other"] == ["D3"]
    assert done["next"] == "node add"
    text = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D3 -> Only on weekends\n- Other: D3\n- By: D3 -> Dana\n" in text
    # the rest of the round, answered in the Markdown form: letters and the recommendation
    ok(repo, env, "node", "add", SPEC, "D7", "--title", "Which weekends?", "--spawned-by", "D3",
       "--option", "All", "--option", "Holidays only", "--recommend", "1")
    markdown = subprocess.run([*MDGRILL, "ask", SPEC, "--format", "markdown"], cwd=repo,
                              env=env, capture_output=True, text=True).stdout
    # the round keeps the numbers it was asked under (issue 31): D4 is still its Q4
    assert "**Q4 - D4: Question 4?**" in markdown and "  a) Second 4 (Recommended)" in markdown
    # the follow-up the `Other` answer unblocked joins the open round (issue 31.9)
    assert "D7: Which weekends?**" in markdown
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-",
              stdin="4. b\n5) go with your recommendation\nQ6: a\n")
    assert done["recorded"] == {
        "D4": "First 4", "D5": 'Second 5 (accepted recommendation: "go with your '
        'recommendation")', "D6": "Second 6"}
    # the round still asks the follow-up the `Other` led to
    asked = ok(repo, env, "ask", SPEC)
    assert asked["round"] == 1 and list(asked["decisions"].values()) == ["D7"]  # type: ignore[union-attr]


def test_a_control_only_reply_records_nothing(six: tuple[Path, dict[str, str]]) -> None:
    repo, env = six
    ok(repo, env, "ask", SPEC)
    before = (repo / SPEC / ".progress.md").read_bytes()
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="ok, sounds good")
    assert done["recorded"] == {} and done["next"] == "ask"
    assert done["classification"] == "control_only"
    assert (repo / SPEC / ".progress.md").read_bytes() == before
    # a control-only answer to one question is refused for that question alone
    code, done = run(repo, env, "answer", SPEC, "--tool-result", "-", stdin=json.dumps(
        {"answers": {"Q1 - D1: Question 1?": "continue", "Q2 - D2: Question 2?": "First 2"}}))
    assert code == 0 and done["recorded"] == {"D2": "First 2"}
    assert done["refused"]["D1"]["code"] == "CONTROL_ONLY_ANSWER"  # type: ignore[index]


def test_the_loop_ends_at_the_approval_question(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    ok(repo, env, "node", "add", SPEC, "D1", "--title", "Who?", "--option", "Everyone",
       "--option", "Members", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "ask", SPEC)
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Everyone")
    assert done["recorded"] == {"D1": "Everyone"} and done["next"] == "await-confirmation"
    assert ok(repo, env, "ask", SPEC)["next"] == "await-confirmation"
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Everyone")
    approval = ok(repo, env, "ask", SPEC)
    assert approval["kind"] == "approval"
    labels = [o["label"] for o in approval["questions"][0]["options"]]  # type: ignore[index]
    assert labels == ["Approve and delegate (Recommended)", "Revise decisions", "Cancel"]
    ok(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
       "--reply", "Approve and delegate")
    ok(repo, env, "check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")


def test_a_node_without_options_is_refused_with_the_fix(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    ok(repo, env, "node", "add", SPEC, "D1", "--title", "Anything else?")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    before = (repo / SPEC / ".progress.md").read_bytes()
    code, payload = run(repo, env, "ask", SPEC)
    assert code == 3 and payload["error"]["code"] == "NODE_OPTIONS_REQUIRED"  # type: ignore[index]
    assert (repo / SPEC / ".progress.md").read_bytes() == before  # refused: nothing written
    assert "--option" in payload["error"]["message"]  # type: ignore[index]


def test_the_whole_loop_with_a_partial_answer_an_other_a_control_reply_and_a_revise(
        six: tuple[Path, dict[str, str]]) -> None:
    # Issue 16's end-to-end loop: ask -> recorded tool result -> answer -> ... -> confirm ->
    # check-delegation, for a 6-node tree, only relayed (no step maps answers by hand).
    repo, env = six

    def answer(result: object) -> dict[str, object]:
        stdin = result if isinstance(result, str) else json.dumps(result)
        return ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin=stdin)
    ok(repo, env, "ask", SPEC)
    partial = answer({"answers": {"Q1 - D1: Question 1?": "Second 1 (Recommended)",
                                  "Q2 - D2: Question 2?": "Only for members"}})  # an Other
    assert partial["recorded"] == {"D1": "Second 1", "D2": "Only for members"}
    assert partial["other"] == ["D2"] and partial["open"] == ["D3", "D4", "D5", "D6"]
    # the gate holds the Other's follow-up: a sub-question spawned by D2
    ok(repo, env, "node", "add", SPEC, "D7", "--title", "Which members?", "--spawned-by", "D2",
       "--option", "Paying", "--option", "All", "--recommend", "1")
    assert answer("sure, go on")["classification"] == "control_only"  # nothing recorded
    rest = answer("3. a\n4. b\n5. a\n6. a\n")  # D3..D6 keep the round's numbers 3-6
    assert rest["recorded"] == {"D3": "Second 3", "D4": "First 4", "D5": "Second 5",
                                "D6": "Second 6"}
    asked = ok(repo, env, "ask", SPEC)
    assert list(asked["decisions"].values()) == ["D7"]  # type: ignore[union-attr]
    assert answer("Paying")["next"] == "await-confirmation"
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "v1")
    # the user picks Revise decisions: D4 is asked again in a new round
    ok(repo, env, "revise", SPEC, "--decision-id", "D4")
    again = ok(repo, env, "ask", SPEC)
    assert list(again["decisions"].values()) == ["D4"]  # type: ignore[union-attr]
    answer("Second 4 (Recommended)")
    # the brief comes back "using the same confirmation ID"
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "v2")
    code, early = run(repo, env, "check-delegation", SPEC, "--phase", "requirements",
                      "--interview-id", "r1")
    assert code == 3  # not yet approved: no delegation
    ok(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
       "--reply", "Approve and delegate")
    allowed = ok(repo, env, "check-delegation", SPEC, "--phase", "requirements",
                 "--interview-id", "r1")
    assert allowed["status"] == "complete"
    ledger = ok(repo, env, "ledger", SPEC)
    answers = {e["id"]: e["answer"] for e in ledger["entries"]}  # type: ignore[union-attr]
    assert answers["D4"] == "Second 4" and answers["D7"] == "Paying"
