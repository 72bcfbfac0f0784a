"""The round and the approval question as the user sees them (issue 35, points 5 and 6):
option descriptions that add something, the approval question that carries what is approved,
and next-step hints that name the real spec instead of a `SPEC` placeholder."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability import MDGRILL, make_repo
from test_rounds_cli import ok, run

from mdgrill.core import askround
from mdgrill.core.hints import spec_arg
from mdgrill.formats.progress import read_progress

SPEC = "my specs/checkout"  # a space: the hints must quote it for a shell
QUOTED = "'my specs/checkout'"


@pytest.fixture
def spec(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Two decisions: D1 with a rationale and a tradeoff, D2 with bare options."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    ok(repo, env, "node", "add", SPEC, "D1", "--title", "Who can use a code?", "--option",
       "Every customer", "--option", "Signed-in customers: fewer abusers", "--recommend", "1",
       "--rationale", "guests are half the orders", "--tradeoff", "more codes shared online")
    ok(repo, env, "node", "add", SPEC, "D2", "--title", "Which time zone for expiry?",
       "--option", "UTC", "--option", "The shop's zone", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    return repo, env


def test_an_option_never_repeats_its_label_and_the_tradeoff_is_the_recommendations(
        spec: tuple[Path, dict[str, str]]) -> None:
    repo, env = spec
    asked = ok(repo, env, "ask", SPEC)
    d1, d2 = asked["questions"]  # type: ignore[misc]
    assert d1["options"] == [
        {"label": "Every customer (Recommended)",
         "description": "guests are half the orders; tradeoff: more codes shared online"},
        {"label": "Signed-in customers", "description": "fewer abusers"}]
    # "UTC — UTC" said nothing: an option with nothing to add has no description
    assert d2["options"] == [{"label": "UTC (Recommended)", "description": ""},
                             {"label": "The shop's zone", "description": ""}]
    proc = subprocess.run([*MDGRILL, "ask", SPEC, "--format", "markdown"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert "  a) UTC (Recommended)\n  b) The shop's zone\n" in proc.stdout


def test_the_approval_question_carries_the_approach_and_its_decisions(
        spec: tuple[Path, dict[str, str]]) -> None:
    """Framework: present the recommended approach before the approval question; the user
    approves what the question shows, so it shows the approach and every decision."""
    repo, env = spec
    ok(repo, env, "ask", SPEC)
    ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Q1: a\nQ2: b\n")
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
       "Codes for every customer, expiring in the shop's zone")
    prog = read_progress((repo / SPEC / ".progress.md").read_bytes(), "x/.progress.md")
    brief = askround.approval_brief(prog)
    assert brief == askround.Brief(
        "C1", "Codes for every customer, expiring in the shop's zone",
        [("D1", "Who can use a code?", "Every customer"),
         ("D2", "Which time zone for expiry?", "The shop's zone")])
    question = askround.approval_question(brief)
    assert question["question"] == (
        "Approve and delegate? The approach: Codes for every customer, expiring in the shop's "
        "zone — resting on: D1 Who can use a code? → Every customer; D2 Which time zone for "
        "expiry? → The shop's zone")
    labels = [o["label"] for o in question["options"]]  # type: ignore[attr-defined]
    assert labels == ["Approve and delegate (Recommended)", "Revise decisions", "Cancel"]
    for option in question["options"]:  # type: ignore[attr-defined]
        assert option["description"] and option["label"].split(" (")[0].casefold() \
            not in option["description"].casefold()
    text = askround.approval_markdown(brief)
    assert "The approach: Codes for every customer" in text
    assert "- D2 Which time zone for expiry? → The shop's zone\n" in text
    assert "  a) Approve and delegate (Recommended) — approve this approach" in text


def test_a_long_brief_names_twelve_decisions_and_counts_the_rest() -> None:
    brief = askround.Brief("C1", "Ship it", [(f"D{i}", f"Q{i}?", "yes") for i in range(1, 16)])
    text = str(askround.approval_question(brief)["question"])
    assert "D12 Q12? → yes; and 3 more (see the brief)" in text and "D13" not in text


@pytest.mark.parametrize("path, arg", [
    ("specs/a/.progress.md", "specs/a"), (".progress.md", "."),
    ("specs/checkout codes/.progress.md", "'specs/checkout codes'"),
    ("specs/it's/.progress.md", "'specs/it'\"'\"'s'"),
    ("C:\\work\\specs\\a\\.progress.md", "C:\\work\\specs\\a"),
])
def test_spec_arg_is_the_folder_as_a_shell_takes_it(path: str, arg: str) -> None:
    assert spec_arg(path) == arg


# the pattern spec_arg's plain test replaced (issue 37's start-up work): quoted exactly when
# it did not fullmatch
_PLAIN = re.compile(r"[\w@%+=:,./\\-]+")


@given(st.text(alphabet=st.sampled_from("_@%+=:,./\\-' \t\u00e9\u0663\u00b2\u2003aZ9#~*"),
               max_size=10) | st.text(max_size=16))
def test_spec_arg_quotes_exactly_what_the_shell_pattern_did_not_take(folder: str) -> None:
    seen = folder or "."  # `/.progress.md` alone is the current folder's
    plain = _PLAIN.fullmatch(seen) is not None
    assert (spec_arg(folder + "/.progress.md") == seen) is plain  # else quoted, so longer


def test_next_step_hints_name_the_real_spec(spec: tuple[Path, dict[str, str]]) -> None:
    repo, env = spec
    ok(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
       "--decision-id", "D2")
    code, stop = run(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                     "that's enough")
    assert code == 3
    assert f"`mdgrill frontier {QUOTED}`" in stop["error"]["message"]  # type: ignore[index]
    code, skip = run(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                     "skip this")
    assert f"`mdgrill out-of-scope {QUOTED} --decision-id D1 --reply" in \
        skip["error"]["message"]  # type: ignore[index]
    other = ok(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
               "Only staff", "--other")
    assert other["next"] == ("add the decision this `Other` answer leads to: `mdgrill node add "
                             f"{QUOTED} ID --title T --spawned-by D1`")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D2", "--answer", "UTC")
    code, refused = run(repo, env, "await-confirmation", SPEC, "--decision-id", "C1",
                        "--approach", "x")
    assert code == 3
    assert f"`mdgrill node add {QUOTED} ID --title T --spawned-by D1`" in \
        json.dumps(refused, ensure_ascii=False)
    assert "SPEC" not in json.dumps(refused)


def test_a_number_is_the_option_shown_at_that_place_not_the_users_own_words(
        spec: tuple[Path, dict[str, str]]) -> None:
    """The Markdown round lists the recommended option first as a) / 1: `Q1: 2` picks the
    second option shown, recorded as that option, never as an `Other` owing a follow-up."""
    repo, env = spec
    ok(repo, env, "ask", SPEC)
    done = ok(repo, env, "answer", SPEC, "--tool-result", "-", stdin="Q1: 2\nQ2: 1\n")
    assert done["recorded"] == {"D1": "Signed-in customers", "D2": "UTC"}
    assert done["other"] == [] and done["next"] == "await-confirmation"


def test_a_reply_it_cannot_place_is_named_line_by_line() -> None:
    """What `answer` says when it records nothing: the lines it could not read, and the
    shapes it reads (for the CLI's message; cli/verbs/rounds.py wires it)."""
    asked = [{"question": "Q1 - D1: Who?", "decision_id": "D1"},
             {"question": "Q2 - D2: When?", "decision_id": "D2"}]
    assert askround.unread_lines(asked, "Q1: a\nQ2: b") == []
    assert askround.unread_lines(asked, "Q1: a\nQ3: b\nQ2:") == ["Q3: b", "Q2:"]
    assert askround.unread_lines(asked, "sounds good\nQ1: a") == ["sounds good"]
    assert askround.unread_lines(asked[:1], "anything at all") == []
    assert askround.match(asked, "Q1: a\nQ3: b") == {"D1": "a"}  # the readable part stands
    # a line that is not numbered no longer sinks the numbered ones: they record, it is named
    assert askround.match(asked, "sounds good\nQ2: b") == {"D2": "b"}
    # the tool's answers keyed by a bare `Q2` (or `2`) name that question; others are named
    reply = {"Q2": "b", "2 ": "c", "Which colour?": "Blue", "Q - D1: Who?": "a"}
    assert askround.match(asked, reply) == {"D2": "c"}
    assert askround.unread_lines(asked, reply) == ["Which colour?", "Q - D1: Who?"]
    assert "`Q1: a`" in askround.REPLY_SHAPES and "JSON" in askround.REPLY_SHAPES
