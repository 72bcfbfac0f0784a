"""The three-way merge of `.progress.md` called in process (issue 32): the versions are made by
the library itself (`Spec`, as the CLI would write them), each side's steps applied to the
base's text, then `merge_progress(base, ours, theirs)`. Fast enough for mutation testing of
`core/merge.py`; `test_merge.py` runs the same rules through real git and the driver.

The rules, as docs/merging.md states them: "the base's blocks stay as they were, both sides'
lines added to the base's open round are united, our new rounds come first and theirs follow,
renumbered. The seal is recomputed." "pending is what neither side answered." "A decision
answered two ways" is a conflict whose "markers hold the two answers and nothing else".
"Some merges have no answer a tool should pick: a recorded block changed on one side, an
approval on one branch next to rounds on the other, two different interviews": those come
back as `Merged.cannot`, the file left to git."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import git_init

from mdgrill.api import Spec
from mdgrill.core.merge import Merged, merge_progress, resolution
from mdgrill.formats.progress import Change, Progress, apply_change, log_digest
from mdgrill.formats.textfile import TextFile

PATH = "specs/a/.progress.md"
Step = Callable[[Spec], object]


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Spec]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git_init(repo)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", os.fspath(tmp_path))
    # the identity the answers are recorded by, whatever another test module of the same
    # worker put in the environment (test_merge_property.py sets GIT_AUTHOR_NAME on import)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    s = Spec.init("specs/a", goal="Promo codes at checkout")
    s.add_node("D1", title="Who?", options=["All", "Members"], recommend=1)
    for i in (2, 3):
        s.add_node(f"D{i}", title=f"Question {i}?", depends_on=["D1"], options=["A", "B"],
                   recommend=1)
    s.begin_interview(phase="requirements", interview_id="r1")
    s.open_frontier(round=1, decision_ids=["D1"])
    s.record_answer("D1", "All")
    yield s


def versions(s: Spec, ours: Step, theirs: Step, base: Step | None = None,
             ) -> tuple[str, str, str]:
    """(base, ours, theirs): each side's steps applied to the base's text."""
    p = Path(s.progress)
    if base is not None:
        base(s)
    base_text = p.read_text(encoding="utf-8")
    out = [base_text]
    for step in (ours, theirs):
        p.write_text(base_text, encoding="utf-8")
        step(s)
        out.append(p.read_text(encoding="utf-8"))
    return out[0], out[1], out[2]


def merge(texts: tuple[str, str, str]) -> Merged:
    return merge_progress(*texts, PATH)


def log_of(text: str) -> str:
    return text[text.index("## Interview Responses"):]


def record(text: str) -> dict[str, object]:
    iv = Progress(TextFile(text), PATH).data["interview"]
    assert isinstance(iv, dict)
    return iv


def sealed(text: str) -> bool:
    prog = Progress(TextFile(text), PATH)
    seal = prog.data["log"]
    return seal == {"blocks": len(prog.blocks), "sha256": log_digest(prog.log_text())}


def resealed(text: str) -> str:
    """`text` with its log sealed as it stands: a hand edit of the log and a seal recomputed
    by hand after it (what only `verify`'s reading of the history tells from mdgrill's own);
    as typed, the edit breaks the side's seal and the merge refuses it as ROUND_EDITED."""
    prog = Progress(TextFile(text), PATH)
    change = Change()
    change.updates["log"] = {"blocks": len(prog.blocks), "sha256": prog.log_sha256()}
    return apply_change(prog, change)


def round2(*steps: tuple[str, str], node: str | None = None,
           frontier: tuple[str, ...] = ("D2", "D3")) -> Step:
    """A side that (adds `node` and) opens round 2 on `frontier`, then answers `steps`."""
    def run(s: Spec) -> None:
        ids = list(frontier)
        if node is not None:
            s.add_node(node, title=f"{node}'s question?", options=["A", "B"])
            ids.append(node)
        s.open_frontier(round=2, decision_ids=ids)
        for decision, answer in steps:
            s.record_answer(decision, answer)
    return run


def answers(*steps: tuple[str, str]) -> Step:
    def run(s: Spec) -> None:
        for decision, answer in steps:
            s.record_answer(decision, answer)
    return run


def open_round2(s: Spec) -> None:
    s.open_frontier(round=2, decision_ids=["D2", "D3"])


# -- both sides kept ------------------------------------------------------------------------


def test_new_rounds_on_both_sides_keep_ours_then_theirs_renumbered(spec: Spec) -> None:
    texts = versions(spec, round2(("D2", "B"), node="D4"), round2(("D3", "A"), node="D5"))
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    assert log.count("### Requirements Grill - Round 1") == 1
    assert log.count("### Requirements Grill - Round 2") == 1
    assert log.index("### Requirements Grill - Round 2") < log.index("- Decisions: D2 -> B") \
        < log.index("### Requirements Grill - Round 3") < log.index("- Decisions: D3 -> A")
    assert "Round 4" not in log
    assert log.index("- Asked: D2, D3, D4") < log.index("- Asked: D2, D3, D5")
    # the base's block, with our closing lines, stands once
    assert log.count("- Frontier after round: D2, D3, D4") == 1
    assert "- Frontier after round: D2, D3, D5" not in log
    iv = record(m.text)
    assert iv["round"] == 3
    assert iv["asked"] == ["D1", "D2", "D3", "D4", "D5"]
    assert iv["pending"] == ["D4", "D5"]  # each side's unanswered question (issue 31.5)
    assert iv["round_frontier"] == ["D2", "D3", "D5"]
    assert iv["status"] == "collecting"
    assert sealed(m.text)
    assert record(m.text)is not None and Progress(TextFile(m.text), PATH).data["log"] == {
        "blocks": 3, "sha256": log_digest(Progress(TextFile(m.text), PATH).log_text())}
    tree = m.text[m.text.index("## Design Tree"):m.text.index("## Interview Responses")]
    assert tree.index("### D3:") < tree.index("### D4:") < tree.index("### D5:")
    assert "their 1 new round(s) follow ours, renumbered" in m.notes
    assert "their closing lines of the shared round: ours stand" in m.notes
    assert "design tree: 5 nodes after the merge" in m.notes


def test_answers_to_one_open_round_are_united_ours_first(spec: Spec) -> None:
    texts = versions(spec, answers(("D2", "B")), answers(("D3", "A")), base=open_round2)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    assert log.count("### Requirements Grill - Round 2") == 1
    assert "Round 3" not in log
    assert log.index("- Asked: D2, D3") < log.index("- Decisions: D2 -> B") \
        < log.index("- Decisions: D3 -> A")
    assert log.count("- Decisions:") == 3
    iv = record(m.text)
    assert iv["round"] == 2
    assert iv["pending"] == []
    assert iv["asked"] == ["D1", "D2", "D3"]
    prog = Progress(TextFile(m.text), PATH)
    assert prog.data["log"] == {"blocks": 2, "sha256": log_digest(prog.log_text())}
    assert not any("renumbered" in n for n in m.notes)


def test_one_answer_in_an_open_round_leaves_the_other_pending(spec: Spec) -> None:
    texts = versions(spec, answers(("D2", "B")), lambda s: s.record_fact("Codes expire"),
                     base=open_round2)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    iv = record(m.text)
    assert iv["pending"] == ["D3"]
    log = log_of(m.text)
    assert log.index("- Decisions: D2 -> B") < log.index("Codes expire")
    assert sealed(m.text)


def test_only_their_side_recorded_theirs_is_taken(spec: Spec) -> None:
    texts = versions(spec, lambda s: None, round2(("D2", "B"), node="D5"))
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    assert m.text == texts[2]


def test_only_our_side_recorded_ours_is_kept(spec: Spec) -> None:
    texts = versions(spec, round2(("D2", "B"), node="D4"), lambda s: None)
    m = merge(texts)
    assert m.text == texts[1]
    assert not m.in_conflict and m.reason == ""


def test_their_tree_change_and_our_rounds_both_stand(spec: Spec) -> None:
    def add(s: Spec) -> None:
        s.add_node("D9", title="Theirs?", options=["A", "B"])
    texts = versions(spec, round2(("D2", "B")), add)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    assert "### D9: Theirs?" in m.text
    assert "- Decisions: D2 -> B" in m.text
    assert record(m.text) == record(texts[1])
    assert sealed(m.text)


def test_new_rounds_on_one_side_and_answers_on_the_other(spec: Spec) -> None:
    # ours closes round 2 and opens round 3; theirs answers in round 2 after it: theirs
    # would rewrite a closed block
    def ours(s: Spec) -> None:
        s.record_answer("D2", "B")
        s.record_answer("D3", "A")
        s.add_node("D4", title="Next?", options=["A", "B"])
        s.open_frontier(round=3, decision_ids=["D4"])
    texts = versions(spec, ours, lambda s: s.record_fact("Codes expire"), base=open_round2)
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("their lines `") and "Codes expire" in m.reason
    assert m.reason.endswith("` belong in the round we had already closed: merge by hand")
    # their answer to a decision ours answered the same way in that round: it stands once
    texts = versions(spec, ours, answers(("D3", "A")), base=open_round2)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    assert log_of(m.text).count("- Decisions: D3 -> A") == 1
    assert record(m.text) == record(texts[1])


def test_the_same_answer_on_both_sides_stands_once(spec: Spec) -> None:
    texts = versions(spec, answers(("D2", "B")), answers(("D2", "B")), base=open_round2)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    assert log_of(m.text).count("- Decisions: D2 -> B") == 1
    assert record(m.text)["pending"] == ["D3"]


# -- conflicts -------------------------------------------------------------------------------


@pytest.mark.parametrize("same_round", [True, False])
def test_a_decision_answered_two_ways_is_marked_around_the_two_answers(
        spec: Spec, same_round: bool) -> None:
    if same_round:
        texts = versions(spec, answers(("D2", "B")), answers(("D2", "A"), ("D3", "A")),
                         base=open_round2)
    else:
        texts = versions(spec, round2(("D2", "B")), round2(("D2", "A"), ("D3", "A")))
    m = merge(texts)
    assert m.text is not None and m.in_conflict
    assert m.conflicts == [("D2", "B", "A")]
    by = "- By: D2 -> Test <test@example.com>"
    block = (f"<<<<<<< ours\n- Decisions: D2 -> B\n{by}\n=======\n- Decisions: D2 -> A\n{by}\n"
             ">>>>>>> theirs\n")
    assert m.text.count(block) == 1
    assert m.text.count("- Decisions: D2 ->") == 2  # only inside the markers
    assert "- Decisions: D3 -> A" in m.text
    assert "mdgrill-conflict" not in m.text
    for keep in ("B", "A"):
        resolved = m.text.replace(block, f"- Decisions: D2 -> {keep}\n{by}\n")
        text = resolution(m, resolved, PATH)
        assert text is not None and sealed(text)
    assert resolution(m, m.text.replace(block, "- Decisions: D2 -> C\n"), PATH) is None
    assert resolution(m, m.text, PATH) is None
    assert re.fullmatch(m.pattern, m.text) is None


def test_the_goal_changed_two_ways_is_marked_in_the_front_matter(spec: Spec) -> None:
    def goal(word: str) -> Step:
        def run(s: Spec) -> None:
            p = Path(s.progress)
            p.write_text(p.read_text(encoding="utf-8").replace(
                "goal: Promo codes at checkout", f"goal: Promo codes {word}"), encoding="utf-8")
        return run
    texts = versions(spec, goal("online"), goal("in store"))
    m = merge(texts)
    assert m.text is not None and m.in_conflict and m.conflicts == []
    assert [where for where, _ in m.clashes] == ["the front matter"]
    assert ("<<<<<<< ours\ngoal: Promo codes online\n=======\ngoal: Promo codes in store\n"
            ">>>>>>> theirs\n") in m.text


def test_the_goal_changed_on_one_side_is_taken(spec: Spec) -> None:
    def goal(s: Spec) -> None:
        p = Path(s.progress)
        p.write_text(p.read_text(encoding="utf-8").replace(
            "goal: Promo codes at checkout", "goal: Promo codes online"), encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), goal)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict
    assert "goal: Promo codes online\n" in m.text and "at checkout\n" not in m.text.split(
        "---")[1]
    assert "- Decisions: D2 -> B" in m.text


# -- what is left to git ---------------------------------------------------------------------


def approve(s: Spec) -> None:
    open_round2(s)
    s.record_answer("D2", "A")
    s.record_answer("D3", "A")
    s.await_confirmation(decision_id="confirm-1", approach="Codes for all")
    s.confirm(decision_id="confirm-1", no_commit=True)


def test_an_approval_on_one_side_and_rounds_on_the_other_cannot_merge(spec: Spec) -> None:
    texts = versions(spec, approve, round2(("D2", "B")))
    assert "Confirmed" in texts[1]
    for pair in (texts, (texts[0], texts[2], texts[1])):
        m = merge(pair)
        assert m.text is None
        assert "was recorded on one side while the other side recorded rounds" in m.reason
        assert m.reason.startswith("`Requirements Grill - ")


def test_a_changed_recorded_block_cannot_merge(spec: Spec) -> None:
    def edit(s: Spec) -> None:
        open_round2(s)
        p = Path(s.progress)
        p.write_text(p.read_text(encoding="utf-8").replace("- Decisions: D1 -> All",
                                                           "- Decisions: D1 -> Members"),
                     encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), edit)
    # as typed, their log breaks its own seal: refused as `validate` and `restore` say it
    for pair, who in ((texts, "their"), ((texts[0], texts[2], texts[1]), "our")):
        m = merge(pair)
        assert m.text is None
        assert m.reason.startswith(f"ROUND_EDITED: {who} log does not match its own seal")
    texts = texts[0], texts[1], resealed(texts[2])  # sealed again by hand: still refused
    m = merge(texts)
    assert m.text is None
    assert m.reason == "their version changed the recorded block `Requirements Grill - Round 1`"
    m = merge((texts[0], texts[2], texts[1]))
    assert m.reason == "our version changed the recorded block `Requirements Grill - Round 1`"


def test_a_changed_line_of_the_open_round_cannot_merge(spec: Spec) -> None:
    def edit(s: Spec) -> None:
        p = Path(s.progress)
        p.write_text(resealed(p.read_text(encoding="utf-8").replace("- Asked: D2, D3",
                                                                    "- Asked: D3")),
                     encoding="utf-8")
    texts = versions(spec, answers(("D2", "B")), edit, base=open_round2)
    m = merge(texts)
    assert m.reason == "their version changed the recorded block `Requirements Grill - Round 2`"


def test_a_lost_block_cannot_merge(spec: Spec) -> None:
    def drop(s: Spec) -> None:
        p = Path(s.progress)
        text = p.read_text(encoding="utf-8")
        p.write_text(resealed(text[:text.index("### Requirements Grill - Round 2")].rstrip()
                              + "\n"), encoding="utf-8")
    texts = versions(spec, answers(("D2", "B")), drop, base=open_round2)
    m = merge(texts)
    assert m.text is None and m.reason == "their log lost a recorded block"


def test_two_different_interviews_cannot_merge(spec: Spec) -> None:
    def other(s: Spec) -> None:
        p = Path(s.progress)
        text = p.read_text(encoding="utf-8")
        s.open_frontier(round=2, decision_ids=["D2"])
        p.write_text(p.read_text(encoding="utf-8").replace("  id: r1", "  id: r2"),
                     encoding="utf-8")
        assert text != p.read_text(encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), other)
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("the two sides' interviews differ (r1 collecting, r2 collecting)")


def test_a_record_changed_on_both_sides_but_logged_on_ours_only(spec: Spec) -> None:
    def edit(s: Spec) -> None:
        p = Path(s.progress)
        p.write_text(p.read_text(encoding="utf-8").replace("  assumptions: []",
                                                           "  assumptions: [x]"),
                     encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), edit)
    m = merge(texts)
    assert m.text is None
    assert m.reason == ("the interview record was changed on both sides, but only ours "
                        "recorded anything")


def test_a_version_without_its_parts_does_not_merge(spec: Spec) -> None:
    base, ours, theirs = versions(spec, answers(("D2", "B")), answers(("D3", "A")),
                                  base=open_round2)
    body = ours[ours.index("# A"):]
    assert merge((base, body, theirs)).reason == "our version has no front matter"
    no_tree = theirs.replace("## Design Tree", "## Tree")
    assert merge((base, ours, no_tree)).reason == "their version has no `## Design Tree`"
    no_log = base.replace("## Interview Responses", "## Responses")
    assert merge((no_log, ours, theirs)).reason == \
        "the base version has no `## Interview Responses`"
    bad = ours.replace("interview:\n", "interview: [\n", 1)
    assert merge((base, bad, theirs)).reason.endswith(" version does not read (MALFORMED_FILE)")
    head = resealed(theirs.replace("## Interview Responses\n",
                                   "## Interview Responses\n\nA note\n"))
    assert merge((base, ours, head)).reason == \
        "their log has text before its first block: merge by hand"


def test_one_id_taken_on_both_sides_is_renamed_on_theirs(spec: Spec) -> None:
    def add(title: str) -> Step:
        def run(s: Spec) -> None:
            s.add_node("D7", title=title, options=["A", "B"])
        return run
    texts = versions(spec, add("Ours?"), add("Theirs?"))
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    assert "### D7: Ours?" in m.text
    assert "### D7: Theirs?" not in m.text and "Theirs?" in m.text
    assert any(n.startswith("both sides added D7 for different questions: theirs is ")
               for n in m.notes)
    # the same node added on both sides stands once, not renamed
    m = merge((texts[0], texts[1], texts[1]))
    assert m.text is not None and m.text.count("Ours?") == 1 and m.notes == []


# -- cases the first mutation run asked for ---------------------------------------------------


def edit(old: str, new: str, count: int = 1, *, seal: bool = False) -> Step:
    """A hand edit of the file: `old` replaced by `new` (it must be there); with `seal`, the
    log sealed again after it (`resealed`)."""
    def run(s: Spec) -> None:
        p = Path(s.progress)
        text = p.read_text(encoding="utf-8")
        assert old in text
        text = text.replace(old, new, count)
        p.write_text(resealed(text) if seal else text, encoding="utf-8")
    return run


def both(*steps: Step) -> Step:
    def run(s: Spec) -> None:
        for step in steps:
            step(s)
    return run


def test_a_line_under_a_heading_changed_two_ways_is_marked_there(spec: Spec) -> None:
    texts = versions(spec, both(round2(("D2", "B")), edit("# A\n", "# A\n\nOurs: online\n")),
                     edit("# A\n", "# A\n\nTheirs: in store\n"))
    m = merge(texts)
    assert m.text is not None and m.conflicts == []
    # two additions at one place stand one after the other
    assert m.clashes == [] and "# A\n\nOurs: online\n\nTheirs: in store\n\n## Goal" in m.text
    goal = "\n## Goal\n\nPromo codes at checkout\n"
    texts = versions(spec, both(round2(("D2", "B")), edit(goal, goal.replace("at", "online at"))),
                     edit(goal, goal.replace("at", "in store at")))
    m = merge(texts)
    assert m.text is not None and m.in_conflict
    assert [where for where, _ in m.clashes] == ["the text under `## Goal`"]
    body = m.text[m.text.index("## Goal"):]
    assert body.startswith("## Goal\n\n<<<<<<< ours\nPromo codes online at checkout\n=======\n"
                           "Promo codes in store at checkout\n>>>>>>> theirs\n")
    assert "- Decisions: D2 -> B" in m.text and "<!--" not in m.text


def test_one_key_added_two_ways_at_two_places_does_not_read(spec: Spec) -> None:
    texts = versions(spec, edit("spec: a\n", "spec: a\nowner: Ana\n"),
                     edit("skills: []\n", "skills: []\nowner: Bob\n"))
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("the merged file does not read (")


def test_a_merge_that_would_not_validate_is_left_to_git(spec: Spec) -> None:
    node = "### D3: Question 3?\n- Depends on: D1\n- Options:\n  - A (Recommended)\n  - B\n\n"
    def add(s: Spec) -> None:
        s.add_node("D6", title="After 3?", depends_on=["D3"], options=["A", "B"])
    texts = versions(spec, edit(node, ""), add)
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("the merged file would not validate (")
    assert "D3" in m.reason


def test_their_tree_without_a_blank_line_after_its_heading_is_taken_whole(spec: Spec) -> None:
    texts = versions(spec, round2(("D2", "B")),
                     both(lambda s: s.add_node("D8", title="Eight?", options=["A", "B"]),
                          edit("## Design Tree\n\n", "## Design Tree\n")))
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    tree = m.text[m.text.index("## Design Tree"):m.text.index("## Interview Responses")]
    assert tree.count("### D") == 4 and "### D1: Who?" in tree and "### D8: Eight?" in tree


def test_an_earlier_recorded_block_changed_cannot_merge(spec: Spec) -> None:
    start = Path(spec.progress).read_text(encoding="utf-8")
    for old, new in (("- Decisions: D1 -> All", "- Decisions: D1 -> Members"),
                     ("### Requirements Grill - Round 1", "### Requirements Grill - Round 1 ")):
        Path(spec.progress).write_text(start, encoding="utf-8")
        texts = versions(spec, answers(("D2", "B")), edit(old, new, seal=True),
                         base=open_round2)
        m = merge(texts)
        assert m.text is None
        assert m.reason == \
            "their version changed the recorded block `Requirements Grill - Round 1`", old


def test_rounds_both_sides_ran_from_an_empty_log(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Test"],
                 ["config", "user.email", "test@example.com"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    monkeypatch.chdir(tmp_path)
    s = Spec.init("specs/a", goal="Promo codes at checkout")
    s.add_node("D1", title="Who?", options=["All", "Members"], recommend=1)
    s.add_node("D2", title="When?", options=["Now", "Later"], recommend=1)
    s.begin_interview(phase="requirements", interview_id="r1")

    def first(decision: str, answer: str) -> Step:
        def run(s: Spec) -> None:
            s.open_frontier(round=1, decision_ids=[decision])
            s.record_answer(decision, answer)
        return run
    texts = versions(s, first("D1", "All"), first("D2", "Now"))
    assert "### Requirements Grill" not in texts[0]
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    assert log.index("### Requirements Grill - Round 1") < log.index("- Decisions: D1 -> All") \
        < log.index("### Requirements Grill - Round 2") < log.index("- Decisions: D2 -> Now")
    assert log.count("Round 1") == 1
    assert record(m.text)["round"] == 2
    assert sealed(m.text)


def test_rounds_after_a_reopen_are_numbered_from_the_reopen(spec: Spec) -> None:
    # the phase confirmed then reopened: its rounds count from 1 again, and theirs follow ours
    def reopened(s: Spec) -> None:
        approve(s)
        s.reopen(phase="requirements", reason="Missed a case", no_commit=True)
        s.begin_interview(phase="requirements", interview_id="r2")

    def ask(node: str) -> Step:
        def run(s: Spec) -> None:
            s.add_node(node, title=f"{node}?", options=["A", "B"])
            s.open_frontier(round=1, decision_ids=[node])
            s.record_answer(node, "A")
        return run
    texts = versions(spec, ask("D4"), ask("D5"), base=reopened)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    after = log[log.index("Reopened"):]
    assert after.index("Round 1\n") < after.index("- Decisions: D4 -> A") \
        < after.index("Round 2\n") < after.index("- Decisions: D5 -> A")
    assert "Round 3" not in after and "Round 4" not in log
    assert record(m.text)["round"] == 2


def test_bindings_on_both_sides_are_kept_ours_first(spec: Spec) -> None:
    from mdgrill.services.bindings import bind
    from mdgrill.shell import store

    for name in ("app.py", "docs.md"):
        Path(name).write_text(f"# {name}\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "base"], check=True, capture_output=True)
    where = store.resolve_spec("specs/a", None)

    def bound(target: str) -> Step:
        return lambda s: bind(where, "D1", [target], None, no_commit=True)
    texts = versions(spec, bound("app.py"), bound("docs.md"), base=approve)
    m = merge(texts)
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    assert log.count("Grill - Bound") == 2
    assert log.index("- Target: app.py") < log.index("- Target: docs.md")
    assert "bindings recorded on both sides: their 1 block(s) follow ours" in m.notes
    assert record(m.text) == record(texts[1])
    assert sealed(m.text)
    # the same binding on both sides stands once
    m = merge((texts[0], texts[1], texts[1]))
    assert m.text is not None and log_of(m.text).count("Grill - Bound") == 1


def test_rounds_on_a_side_without_an_interview_record_cannot_merge(spec: Spec) -> None:
    def unrecorded(s: Spec) -> None:
        p = Path(s.progress)
        text = p.read_text(encoding="utf-8")
        p.write_text(re.sub(r"interview:\n(?:  .*\n)+", "interview: null\n", text, count=1),
                     encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), both(round2(("D3", "A")), unrecorded))
    assert "interview: null\n" in texts[2]
    for pair in (texts, (texts[0], texts[2], texts[1])):
        m = merge(pair)
        assert m.text is None
        assert m.reason == "a side recorded rounds without an interview record"


def test_a_block_after_the_base_s_last_round_starts_no_new_count(spec: Spec) -> None:
    # only Confirmed, Skipped, Bypassed, Reset and Reopened start a phase's count again: an
    # Amended block after round 1 (written here by hand into all three, each sealed again)
    # does not
    texts = versions(spec, round2(("D2", "B")), round2(("D3", "A")))
    amended = "### Requirements Grill - Amended\n- Amended: D1 -> All\n- Was: D1 -> All\n\n"
    ours, theirs = (t.replace("### Requirements Grill - Round 2", amended
                              + "### Requirements Grill - Round 2") for t in texts[1:])
    base = ours[:ours.index("### Requirements Grill - Round 2")].rstrip() + "\n"
    base, ours, theirs = resealed(base), resealed(ours), resealed(theirs)
    m = merge((base, ours, theirs))
    assert m.text is not None and not m.in_conflict, m.reason
    log = log_of(m.text)
    assert log.index("Amended") < log.index("Round 2\n") < log.index("- Decisions: D2 -> B") \
        < log.index("Round 3\n") < log.index("- Decisions: D3 -> A")
    assert "Round 4" not in log


# -- the shortcuts a 1,000-round merge takes give what reading everything gives (issue 37.5) --


def crlf(texts: tuple[str, str, str]) -> tuple[str, str, str]:
    return texts[0].replace("\n", "\r\n"), texts[1].replace("\n", "\r\n"), \
        texts[2].replace("\n", "\r\n")


def test_a_merge_of_crlf_versions_is_the_lf_merge_with_crlf(spec: Spec) -> None:
    """The skeleton keeps a CRLF file's tree and log as lines (an LF file's as text): the
    same merge either way, every line ending as the file's do, the seal the same."""
    texts = versions(spec, both(round2(("D2", "B")), edit("# A\n", "# A\n\nOurs: online\n")),
                     both(round2(("D3", "A")), edit("## Goal\n", "## Goal\n\nTheirs\n")))
    lf, crlf_merge = merge(texts), merge(crlf(texts))
    assert lf.text is not None and not lf.in_conflict
    assert crlf_merge.text == lf.text.replace("\n", "\r\n")
    assert "Ours: online" in lf.text and "Theirs" in lf.text and sealed(lf.text)
    assert crlf_merge.notes == lf.notes


def test_a_fence_one_side_left_open_hides_the_round_the_other_added(spec: Spec) -> None:
    """Our side appended an unclosed code fence to the open round, theirs opened round 2: in
    the merged file the fence hides round 2's heading, so the seal the merge would write
    from its own count of blocks does not hold; the merge seals what a reader of the merged
    file reads (one block) and is then refused as any merge `validate` rejects."""
    texts = versions(spec, edit("- Decisions: D1 -> All\n", "- Decisions: D1 -> All\n```\n",
                                seal=True), round2(("D2", "B")))
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("the merged file would not validate (")


def test_a_side_whose_log_keeps_the_base_s_blocks_but_not_its_last_heading(spec: Spec) -> None:
    """A side's log is read from the base's last block on only when that block's heading is
    still there: a side that changed it is read whole, and refused as a changed block."""
    heading = "### Requirements Grill - Round 1"
    start = Path(spec.progress).read_text(encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), edit(heading, heading + " (edited)", seal=True))
    m = merge(texts)
    assert m.text is None
    assert m.reason.startswith("their version changed the recorded block `Requirements Grill")
    Path(spec.progress).write_text(start, encoding="utf-8")
    texts = versions(spec, round2(("D2", "B")), edit("\n" + heading, "\n\n\n" + heading))
    m = merge(texts)  # blank lines before a block are not its text: the same merge
    assert m.text is not None and "- Decisions: D2 -> B" in m.text and sealed(m.text)
    assert "\n\n\n" + heading in m.text


TYPED = "- Decisions: D3 -> typed by hand"


def test_a_line_typed_into_the_open_round_is_refused_unless_the_file_has_no_seal(
        spec: Spec) -> None:
    """A line typed by hand into the open round on one side breaks that side's own seal: the
    merge refuses it (ROUND_EDITED) on either side, and does not seal it in. A file with no
    seal at all (an older or hand-started spec) merges as before: the typed line is kept
    (here in conflict with our answer to the same decision)."""
    def typed(s: Spec) -> None:
        s.record_answer("D2", "A")
        p = Path(s.progress)
        text = p.read_text(encoding="utf-8")
        p.write_text(text.replace("- Asked: D2, D3\n", f"- Asked: D2, D3\n{TYPED}\n", 1),
                     encoding="utf-8")
    base, ours, theirs = versions(spec, answers(("D3", "A")), typed, base=open_round2)
    assert TYPED in theirs
    for pair, who in (((base, ours, theirs), "their"), ((base, theirs, ours), "our")):
        m = merge(pair)
        assert m.text is None
        assert m.reason.startswith(f"ROUND_EDITED: {who} log does not match its own seal")
    unsealed = [re.sub(r"\nlog:\n  blocks: [0-9]+\n  sha256: [0-9a-f]{64}\n", "\n", t)
                for t in (base, ours, theirs)]
    assert all("\nlog:" not in t for t in unsealed)
    m = merge((unsealed[0], unsealed[1], unsealed[2]))
    assert m.text is not None, m.reason  # merged as before: their typed D3 against our D3
    assert m.conflicts == [("D3", "A", "typed by hand")]
    log = log_of(m.text)
    assert log.count(TYPED) == 1 and "- Decisions: D3 -> A" in log and \
        "- Decisions: D2 -> A" in log
