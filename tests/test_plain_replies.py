"""`answer` reads plain replies (issue 31, point 2), through the installed CLI: answers split
by question number or decision ID on one line as on several, a round's numbering that a
partial answer does not change, every piece that answers recorded and every other one named,
and an exit code that says when part of the reply was not recorded. The framework's words:
"Number each question (`Q1`, `Q2`, and so on)", "Map each clear answer to its stable decision
ID", "Persist the mapped answers before asking again", "Keep unanswered questions active"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_reply_feedback
from hypothesis import given, settings
from hypothesis import strategies as st
from test_rounds_cli import ok, run

from mdgrill.core.plain_reply import split_reply

SPEC = "specs/codes"
# the rounds of test_reply_feedback: D1..D3 (`one`: D1 alone), each `All` (recommended) or
# `Some`, the first round asked
three = test_reply_feedback.three
one = test_reply_feedback.one


def reply(repo: Path, env: dict[str, str], text: str) -> tuple[int, dict[str, object]]:
    return run(repo, env, "answer", SPEC, "--tool-result", "-", stdin=text)


def log(repo: Path) -> str:
    return (repo / SPEC / ".progress.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("text", [
    "Q1: a, Q2: b, Q3: 1 year",
    "1) a  2) b  3) 1 year",
    "D1: a; D2: b; D3: 1 year",
    "Q1: a\nQ2: b\nQ3: 1 year\n",
    "d1: All, q2 - Some\n3. 1 year",
])
def test_answers_split_by_number_or_id_on_one_line_as_on_several(
        three: tuple[Path, dict[str, str]], text: str) -> None:
    """"Map each clear answer to its stable decision ID.": one line holding three answers is
    three answers, not one `Other` answer to D1."""
    repo, env = three
    code, done = reply(repo, env, text)
    assert code == 0, done
    assert done["recorded"] == {"D1": "All", "D2": "Some", "D3": "1 year"}
    assert done["other"] == ["D3"] and done["unread"] == []
    assert "- Decisions: D1 -> All\n- By: D1 -> " in log(repo)


def test_own_words_keep_their_commas(three: tuple[Path, dict[str, str]]) -> None:
    """Only a clear marker cuts a reply: commas, times, ranges and decimals inside the user's
    own words stay in the answer they belong to."""
    repo, env = three
    code, done = reply(repo, env, "Q1: at checkout, but only for EU cards, Q2: 10:30 or "
                       "2-3 weeks, maybe 1.5 years; Q3: step 2: verify")
    assert code == 0, done
    assert done["recorded"] == {"D1": "at checkout, but only for EU cards",
                                "D2": "10:30 or 2-3 weeks, maybe 1.5 years",
                                "D3": "step 2: verify"}


def test_a_one_question_round_takes_the_bare_reply_whole(
        one: tuple[Path, dict[str, str]]) -> None:
    repo, env = one
    code, done = reply(repo, env, "at checkout, but only for EU cards")
    assert code == 0 and done["recorded"] == {"D1": "at checkout, but only for EU cards"}


def test_the_round_keeps_its_numbers_after_a_partial_answer(
        three: tuple[Path, dict[str, str]]) -> None:
    """"Number each question (`Q1`, `Q2`, and so on)." and, after a partial answer, "Do not
    discard the two saved answers or restart the round.": the questions left keep the
    numbers the user saw, so `Q3` still means D3."""
    repo, env = three
    first = ok(repo, env, "ask", SPEC)
    code, done = reply(repo, env, "Q2: b")
    assert code == 0 and done["recorded"] == {"D2": "Some"}
    again = ok(repo, env, "ask", SPEC)
    assert again["written"] is False
    assert again["decisions"] == {"Q1 - D1: Question 1?": "D1", "Q3 - D3: Question 3?": "D3"}
    code, done = reply(repo, env, "Q3: a")
    assert code == 0 and done["recorded"] == {"D3": "All"}
    # the first ask's tool result still lands on the decision each question names
    old_key = next(k for k, v in first["decisions"].items()  # type: ignore[union-attr]
                   if v == "D1")
    code, done = reply(repo, env, json.dumps({"answers": {old_key: "Some"}}))
    assert code == 0 and done["recorded"] == {"D1": "Some"}


def test_a_thanks_line_answers_nothing_and_sinks_nothing(
        three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    code, done = reply(repo, env, "Q1: a\nQ2: b\nthanks!")
    assert code == 0, done
    assert done["recorded"] == {"D1": "All", "D2": "Some"} and done["open"] == ["D3"]
    assert done["unread"] == ["thanks!"]
    assert "it reads as control only: it answers nothing" in \
        done["unread_messages"][0]  # type: ignore[index]


def test_a_piece_with_content_not_recorded_is_reply_unread(
        three: tuple[Path, dict[str, str]]) -> None:
    """Every piece that answers is recorded; one holding more than thanks that names no
    question is named with the shapes accepted, and the result is not `ok`."""
    repo, env = three
    code, done = reply(repo, env, "Q1: a\nand the rest as you think best\nQ2: b")
    assert code == 2 and done["ok"] is False
    assert done["error"]["code"] == "REPLY_UNREAD"  # type: ignore[index]
    assert done["recorded"] == {"D1": "All", "D2": "Some"} and done["written"] is True
    assert done["unread"] == ["and the rest as you think best"]
    assert "`Q1: a` (the letter or number shown)" in \
        done["unread_messages"][0]  # type: ignore[index]
    assert "- Decisions: D2 -> Some\n" in log(repo)
    # a question answered already is named, and so is a second answer to one question
    code, done = reply(repo, env, "Q1: b\nQ3: a, Q3: b")
    assert code == 2 and done["recorded"] == {"D3": "All"}
    notes = done["unread_messages"]
    assert isinstance(notes, list)
    assert notes[0].startswith("`Q1: b` names Q1 (D1), answered already (`All`)")
    assert notes[1].startswith("`Q3: b` answers Q3 (D3) a second time")
    code, _ = reply(repo, env, "Q9: a")
    assert code == 3  # nothing is pending now: NOTHING_ASKED


def test_a_reply_that_answers_nothing_says_so(three: tuple[Path, dict[str, str]]) -> None:
    repo, env = three
    before = log(repo)
    code, done = reply(repo, env, "ok, sounds good")
    assert code == 0 and done["recorded"] == {} and "error" not in done
    code, done = reply(repo, env, "All of it\nQ7: b")
    assert code == 2 and done["error"]["code"] == "REPLY_UNREAD"  # type: ignore[index]
    assert done["written"] is False and log(repo) == before


# -- the property: any reply built of clear markers and marker-free answers splits back -----

_WORDS = st.sampled_from(["a", "b", "All", "Some", "at checkout", "but only for EU cards",
                          "1 year", "2-3 weeks", "10:30", "1.5 years", "see the docs", "step 2",
                          "up to 3 items", "über", "日本", "ok then", "Q", "D", "x.y"])
_ANSWER = st.lists(_WORDS, min_size=1, max_size=4).map(", ".join)
_STYLES = st.sampled_from([("Q{n}: {t}", ", "), ("Q{n}: {t}", "; "), ("Q{n}) {t}", " "),
                           ("{n}) {t}", "  "), ("{n}. {t}", "\n"), ("{id}: {t}", "; "),
                           ("{id}: {t}", "\n"), ("q{n} - {t}", "\n"), ("{id}) {t}", ", ")])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(ids=st.lists(st.sampled_from(["D1", "D2", "D3", "compat", "auth.users", "r-2", "D10"]),
                    min_size=1, max_size=6, unique=True),
       picks=st.data(), style=_STYLES)
def test_generated_multi_answer_replies_split_back(ids: list[str], picks: st.DataObject,
                                                   style: tuple[str, str]) -> None:
    """A reply naming several questions of the round, each by one clear marker, gives back
    exactly each question's answer, whatever commas, numbers and words the answers hold."""
    shape, glue = style
    chosen = picks.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids),
                                 unique=True))
    answers = {d: picks.draw(_ANSWER) for d in chosen}
    text = glue.join(shape.format(n=ids.index(d) + 1, id=d, t=answers[d]) for d in chosen)
    parts = split_reply(text, ids, ids)
    if len(ids) == 1 and len(chosen) == 1:
        assert [(p.decision, p.text) for p in parts] in (
            [(ids[0], answers[ids[0]])], [(ids[0], text)])
        return
    assert [(p.decision, p.text) for p in parts] == list(answers.items()), text


def test_a_long_reply_of_markers_splits_in_linear_time() -> None:
    """A 400 KB reply of markers: looking back over the whole line for each one took time
    quadratic in its length (~1 s at 120 KB); read to the last blank only, it is linear."""
    import time

    ids = ["D1", "D2", "D3"]
    for text in ("1) a  " * 70000, "D1: a; " * 60000, "Q1: " + "a, " * 140000):
        started = time.perf_counter()
        parts = split_reply(text, ids, ids)
        assert time.perf_counter() - started < 5, text[:20]
        assert parts[0].decision == "D1"
