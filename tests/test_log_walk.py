"""The log walk behind `verify` (`core/history.py`), in process: which version of a
`.progress.md` edited, removed or inserted a recorded block, and which put them back.

Every rule runs twice: on files the byte-level fast path reads, and on files with a comment
before the log, which it leaves to the full parse (the two must agree). tests/test_history.py
and tests/test_tamper.py hold the same rules through `mdgrill verify` on real repositories.
"""

from __future__ import annotations

import pytest

from mdgrill.core.history import (
    PhaseWatch,
    added_blocks,
    log_version,
    merge_lost_block,
    verify_log_history,
)
from mdgrill.diagnostics import Diagnostic

HEAD = ("---\nmdgrill: 1\nspec: s\ngoal: g\nphase: requirements\n---\n# S\n\n## Design Tree\n\n"
        "### D1: one\n{note}\n## Interview Responses\n")
FAST, FULL = "", "<!-- a note -->\n"  # a comment opener: the fast path steps aside


def block(n: int, *lines: str) -> str:
    return f"\n### Requirements Grill - Round {n}\n- Asked: D{n}\n" + \
        "".join(f"{line}\n" for line in lines)


def version(note: str, *blocks: str) -> bytes:
    return (HEAD.format(note=note) + "".join(blocks)).encode()


def sha(i: int) -> str:
    return (str(i) * 40)[:40]


def walk(*versions: bytes, parents: dict[str, list[str]] | None = None,
         stats: dict[str, int] | None = None) -> list[Diagnostic]:
    return verify_log_history([(sha(i), v) for i, v in enumerate(versions, 1)], "p.md",
                              stats, parents)


def codes(found: list[Diagnostic]) -> list[tuple[str, bool, int | None]]:
    return [(d.code, d.is_error, d.line) for d in found]


def line_of(data: bytes, heading: str) -> int:
    return data.decode().split("\n").index(heading) + 1


B1, B2, B3 = block(1, "- Decisions: D1 -> yes"), block(2), block(3)
both = pytest.mark.parametrize("note", [FAST, FULL], ids=["fast", "full"])


@both
def test_appending_blocks_and_lines_to_the_last_block_is_clean(note: str) -> None:
    stats: dict[str, int] = {}
    found = walk(version(note, B1), version(note, B1, B2),
                 version(note, B1, B2 + "- Decisions: D2 -> no\n"),
                 version(note, B1, B2 + "- Decisions: D2 -> no\n", B3), stats=stats)
    assert found == []
    assert stats == ({"fast": 3, "full": 1} if note == FAST else {"fast": 0, "full": 4})


@both
def test_an_edited_block_is_named_with_both_commits(note: str) -> None:
    edited = version(note, B1.replace("yes", "no"), B2)
    [found] = walk(version(note, B1, B2), edited)
    assert codes([found]) == [("ROUND_EDITED", True, line_of(edited, B1.split("\n")[1]))]
    old_line = line_of(version(note, B1), B1.split("\n")[1])
    assert found.message == (
        f"commit {sha(2)[:10]} changed or removed the recorded block `Requirements Grill - "
        f"Round 1` (line {old_line} as of {sha(1)[:10]}): a recorded block is never rewritten; "
        f"put it back (`git revert {sha(2)[:10]}`, or check the file out of {sha(1)[:10]} and "
        "commit: verify then reports the edit as restored) and record the correction as a new "
        "round")


@both
def test_an_edit_is_reported_where_the_block_now_stands(note: str) -> None:
    old = version(note, B1, B2)
    moved = version(note, B1, B2.replace("D2", "D9")).replace(
        b"### D1: one\n", b"### D1: one\n\n### D5: five\n\n### D6: six\n")
    [found] = walk(old, moved)
    heading = B2.split("\n")[1]
    assert found.line == line_of(moved, heading) == line_of(old, heading) + 4
    assert f"(line {line_of(old, heading)} as of {sha(1)[:10]})" in found.message


@both
def test_lines_added_to_an_older_block_edit_it(note: str) -> None:
    grown = version(note, B1 + "- Decisions: D9 -> slipped in\n", B2)
    assert codes(walk(version(note, B1, B2), grown)) == [
        ("ROUND_EDITED", True, line_of(grown, B1.split("\n")[1]))]


@both
def test_a_removed_last_block_is_an_edit(note: str) -> None:
    found = walk(version(note, B1, B2), version(note, B1))
    assert [(d.code, "`Requirements Grill - Round 2`" in d.message) for d in found] == [
        ("ROUND_EDITED", True)]


@both
def test_a_block_inserted_before_an_older_one_is_named(note: str) -> None:
    inserted = version(note, B1, block(7), B2)
    [found] = walk(version(note, B1, B2), inserted)
    assert codes([found]) == [("ROUND_INSERTED", True, line_of(inserted,
                                                               block(7).split("\n")[1]))]
    assert f"commit {sha(2)[:10]} inserted the block `Requirements Grill - Round 7`" in \
        found.message and f"(as of {sha(1)[:10]})" in found.message


@both
def test_a_deleted_file_loses_its_blocks(note: str) -> None:
    [found] = walk(version(note, B1), b"")
    assert found.code == "ROUND_EDITED" and found.is_error
    assert found.message == (
        f"commit {sha(2)[:10]} deleted p.md, and with it the recorded block `Requirements "
        f"Grill - Round 1` (line {found.line} as of {sha(1)[:10]}): restore the file from "
        f"{sha(1)[:10]}")


@both
def test_an_edit_is_reported_once_and_as_restored_when_put_back(note: str) -> None:
    good, edited = version(note, B1, B2), version(note, B1.replace("yes", "no"), B2)
    carried = walk(good, edited, version(note, B1.replace("yes", "no"), B2, B3))
    assert [d.code for d in carried] == ["ROUND_EDITED"]  # the append after it is no new edit

    restored = walk(good, edited, version(note, B1, B2, B3), version(note, B1, B2, B3, B3))
    assert codes(restored)[0][:2] == ("ROUND_RESTORED", False) and len(restored) == 1
    assert restored[0].message.startswith(
        f"commit {sha(2)[:10]} edited a recorded block (as of {sha(1)[:10]}) and commit "
        f"{sha(3)[:10]} put the blocks back byte for byte")


@both
def test_an_edit_behind_an_unreadable_version_is_still_found(note: str) -> None:
    broken = b"---\nmdgrill: [1\n---\n# S\n"
    found = walk(version(note, B1, B2), broken, version(note, B1.replace("yes", "no"), B2))
    assert [(d.code, d.is_error) for d in found] == [("MALFORMED_VERSION", False),
                                                     ("ROUND_EDITED", True)]
    assert f"the version of commit {sha(2)[:10]} cannot be read" in found[0].message
    assert f"as of {sha(1)[:10]}" in found[1].message  # held to the last good one


@both
def test_each_version_is_held_to_its_own_parents(note: str) -> None:
    """Two branches append different blocks: neither edits the other; a merge holding both
    is clean, one that drops a side's block is named."""
    base, ours, theirs = version(note, B1), version(note, B1, B2), version(note, B1, B3)
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)], sha(4): [sha(2), sha(3)]}
    assert walk(base, ours, theirs, version(note, B1, B2, B3), parents=parents) == []
    # without the parents, the second branch would be held to the first
    assert [d.code for d in walk(base, ours, theirs)] == ["ROUND_EDITED"]
    [lost] = walk(base, ours, theirs, version(note, B1, B2), parents=parents)
    assert (lost.code, lost.is_error, lost.line) == ("ROUND_EDITED", True, 1)
    assert lost.message == (
        f"merge commit {sha(4)[:10]} lost or changed the recorded block `Requirements Grill - "
        f"Round 3` of its parent {sha(3)[:10]} (line {line_of(theirs, B3.split(chr(10))[1])} "
        "there): a merge keeps both sides' blocks; redo it with `mdgrill merge` or the merge "
        "driver (`mdgrill install-merge-driver`)")


@both
def test_a_later_version_on_one_branch_is_held_to_its_parent_not_the_other_tip(
        note: str) -> None:
    base, ours, theirs = version(note, B1), version(note, B1, B2), version(note, B1, B3)
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)], sha(4): [sha(2)],
               sha(5): [sha(3)]}
    found = walk(base, ours, theirs, version(note, B1, B2, B3),
                 version(note, B1.replace("yes", "no"), B3), parents=parents)
    assert [(d.code, f"as of {sha(3)[:10]}" in d.message) for d in found] == [
        ("ROUND_EDITED", True)]


def test_added_blocks_names_new_blocks_and_a_grown_last_block() -> None:
    old = log_version(version(FAST, B1, B2), "p.md")
    new = log_version(version(FAST, B1, B2 + "- Decisions: D2 -> no\n", B3), "p.md")
    assert [title for title, _ in added_blocks(old, new)] == [
        "Requirements Grill - Round 2 (continued)", "Requirements Grill - Round 3"]
    assert added_blocks(old, old) == []


@both
def test_a_recorded_last_line_extended_in_place_is_an_edit(note: str) -> None:
    """Lines may be appended to the last block; its last line is not reworded by appending
    to it (a defect mutation testing found: the walk took any longer text for an append)."""
    grown = B2 + "- Decisions: D2 -> no\n"
    extended = version(note, B1, grown.replace("-> no", "-> no, and delete the backups"))
    heading = line_of(extended, B2.split("\n")[1])
    for old in (version(note, B1, grown), version(note, B1, grown).rstrip(b"\n")):
        [found] = walk(old, extended)
        assert codes([found]) == [("ROUND_EDITED", True, heading)]
        assert "the recorded block `Requirements Grill - Round 2`" in found.message


def test_prose_edited_before_the_first_block_is_an_edit() -> None:
    old = HEAD.format(note=FAST) + "\nNotes kept by the team.\n"
    [found] = walk(old.encode(), old.replace("kept", "lost").encode())
    assert codes([found]) == [("ROUND_EDITED", True, 1)]  # no block to point at
    assert "the recorded block `Interview Responses` (line 1 as of" in found.message


@both
def test_of_two_blocks_inserted_the_first_is_named(note: str) -> None:
    inserted = version(note, B1, block(7), block(8), B2)
    [found] = walk(version(note, B1, B2), inserted)
    assert "inserted the block `Requirements Grill - Round 7`" in found.message


@both
def test_an_unreadable_version_is_reported_on_its_line_with_the_readers_words(
        note: str) -> None:
    broken = b"---\nmdgrill: 1\nspec: [s\n---\n# S\n"
    problem = log_version(broken, "p.md").problem
    assert problem is not None and problem.line not in (None, 1)
    [found] = walk(broken)
    assert (found.code, found.is_error, found.line) == ("MALFORMED_VERSION", False,
                                                         problem.line)
    assert f"cannot be read ({problem.message})" in found.message


@both
def test_an_unreadable_commit_on_a_branch_hands_its_parent_on(note: str) -> None:
    broken = b"---\nmdgrill: [1\n---\n# S\n"
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(2)]}
    found = walk(version(note, B1, B2), broken, version(note, B1.replace("yes", "no"), B2),
                 parents=parents)
    assert [(d.code, d.is_error) for d in found] == [("MALFORMED_VERSION", False),
                                                     ("ROUND_EDITED", True)]


@both
def test_the_second_branch_off_a_commit_is_held_to_it_too(note: str) -> None:
    """A version with two children is kept until both were held to it."""
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)]}
    found = walk(version(note, B1), version(note, B1, B2),
                 version(note, B1.replace("yes", "no"), B3), parents=parents)
    assert [(d.code, d.message.startswith(f"commit {sha(3)[:10]} changed")) for d in found] \
        == [("ROUND_EDITED", True)]


@both
def test_an_unreadable_first_commit_on_a_branch_is_skipped(note: str) -> None:
    broken = b"---\nmdgrill: [1\n---\n# S\n"
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(2)]}
    found = walk(broken, version(note, B1), version(note, B1, B2), parents=parents)
    assert [d.code for d in found] == ["MALFORMED_VERSION"]


@both
def test_the_restored_warning_replaces_the_edit_not_an_earlier_warning(note: str) -> None:
    good, broken = version(note, B1, B2), b"---\nmdgrill: [1\n---\n# S\n"
    found = walk(good, broken, good, version(note, B1.replace("yes", "no"), B2), good)
    assert [d.code for d in found] == ["MALFORMED_VERSION", "ROUND_RESTORED"]


@both
def test_a_merge_that_resolved_a_conflict_loses_nothing(note: str) -> None:
    """Each side answered D2 its own way; the merge kept ours: theirs' answer is not a
    block lost (issue 33 point 3), for the first parent and the second alike."""
    base = version(note, B1)
    ours = version(note, B1, block(2, "- Decisions: D2 -> Yes", "- By: D2 -> Ana"))
    theirs = version(note, B1, block(2, "- Decisions: D2 -> No", "- By: D2 -> Bob"))
    for first, second in ((ours, theirs), (theirs, ours)):
        parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)], sha(4): [sha(2), sha(3)]}
        assert walk(base, first, second, ours, parents=parents) == []


@both
def test_a_round_both_sides_closed_keeps_one_sides_closing_lines(note: str) -> None:
    closed = "- Frontier after round: D{}", "- Facts resolved: none"
    base = version(note, B1)
    ours = version(note, B1, block(2, closed[0].format(5), closed[1]))
    theirs = version(note, B1, block(2, closed[0].format(6), closed[1]))
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)], sha(4): [sha(2), sha(3)]}
    assert walk(base, ours, theirs, ours, parents=parents) == []
    # a closing line of a key the merged block does not have is lost all the same
    lost = walk(base, ours, theirs, version(note, B1, block(2, closed[0].format(5))),
                parents=parents)
    assert [f"`Requirements Grill - Round 2` of its parent {p[:10]}" in d.message
            for d, p in zip(lost, (sha(2), sha(3)), strict=True)] == [True, True]


def test_with_no_other_parent_every_block_must_be_held() -> None:
    old = log_version(version(FAST, B1, B2), "p.md")
    assert merge_lost_block(old, log_version(version(FAST, B1, B2, B3), "p.md")) is None
    lost = merge_lost_block(old, log_version(version(FAST, B1), "p.md"))
    assert lost == ("Requirements Grill - Round 2", line_of(version(FAST, B1, B2),
                                                            B2.split("\n")[1]))


# ------------------------------------------------------------------ the phase, version by version

def phased(phase: str | None, artifact: bool = True) -> bytes:
    lines = ["---", "mdgrill: 1", "spec: s"]
    lines += [f"phase: {phase}"] if phase is not None else []
    lines += ["artifact: null"] if artifact else []
    return ("\n".join([*lines, "---", "# S", ""])).encode()


def watch(*versions: bytes, approvals: frozenset[int] = frozenset(),
          reopens: frozenset[int] = frozenset(),
          parents: dict[str, list[str]] | None = None) -> list[tuple[str, int | None, str]]:
    listed = [(sha(i), v) for i, v in enumerate(versions, 1)]
    watcher = PhaseWatch(listed, "specs/a/.progress.md", {sha(i) for i in approvals},
                         {sha(i) for i in reopens}, parents)
    assert list(watcher) == listed  # every version passes through, unchanged
    return [(d.code, d.line, d.message) for d in watcher.diagnostics]


def test_a_phase_moves_forward_only_by_an_artifact_approval() -> None:
    found = watch(phased("requirements"), phased("design"))
    assert [(code, line) for code, line, _ in found] == [("PHASE_NOT_APPROVED", 4)]
    assert found[0][2].startswith(f"commit {sha(2)[:10]} moved `phase:` from requirements to "
                                  "design without an approve-artifact commit")
    assert watch(phased("requirements"), phased("design"), approvals=frozenset({2})) == []
    # a spec that does not use the artifact gate moves as it likes
    assert watch(phased("requirements", False), phased("design", False)) == []
    assert watch(phased("research"), phased("research"), phased("tasks"))[0][:2] == (
        "PHASE_NOT_APPROVED", 4)


def test_a_phase_moves_back_only_by_a_reopen() -> None:
    found = watch(phased("design"), phased("requirements"))
    assert [(code, line) for code, line, _ in found] == [("PHASE_REGRESSION", 4)]
    assert found[0][2].startswith(f"commit {sha(2)[:10]} moved `phase:` back from design to "
                                  "requirements without a reopen commit: going back is "
                                  "`mdgrill reopen specs/a --phase requirements --reason TEXT`")
    assert watch(phased("design"), phased("requirements"), reopens=frozenset({2})) == []
    assert watch(phased("design", False), phased("start", False))[0][0] == "PHASE_REGRESSION"


def test_a_version_without_a_phase_keeps_the_last_one() -> None:
    found = watch(phased("requirements"), phased(None), phased("design"))
    assert [(code, "from requirements to design" in m) for code, _, m in found] == [
        ("PHASE_NOT_APPROVED", True)]
    assert watch(phased("requirements"), b"not a spec", phased("requirements")) == []


def test_each_branch_is_held_to_its_own_parent_and_a_merge_keeps_a_phase() -> None:
    parents = {sha(1): [], sha(2): [sha(1)], sha(3): [sha(1)], sha(4): [sha(2), sha(3)],
               sha(5): [sha(4)]}
    # one branch approved its way to design; the other stayed; the merge kept design
    assert watch(phased("requirements"), phased("design"), phased("requirements"),
                 phased("design"), phased("design"), approvals=frozenset({2}),
                 parents=parents) == []
    # without the parents the third version would read as a move back
    assert [c for c, _, _ in watch(phased("requirements"), phased("design"),
                                   phased("requirements"), approvals=frozenset({2}))] == [
        "PHASE_REGRESSION"]
    # a merge that moves past both parents' phases is a move all the same
    found = watch(phased("requirements"), phased("design"), phased("requirements"),
                  phased("tasks"), approvals=frozenset({2}), parents=parents)
    assert [(c, "from design to tasks" in m) for c, _, m in found] == [
        ("PHASE_NOT_APPROVED", True)]
    # a root commit has nothing before it
    assert watch(phased("tasks"), parents={sha(1): []}) == []


# ------------------------------------------------------------------ the fast path steps aside

@pytest.mark.parametrize("opener", ["```\n", "~~~\n", "<!--\n", "## Interview Responses\n",
                                    "## interview responses\n"])
def test_an_opener_anywhere_before_the_log_sends_a_version_to_the_full_parse(
        opener: str) -> None:
    """A fence, a comment or a second log heading before the log can hide the heading the
    fast path found: wherever it is inserted, the version is parsed in full (the fast path
    searches only the bytes that differ, so each place is tried)."""
    from mdgrill.core.history import _fast_append, _parsed, _snapshot_of

    old = version(FAST, B1, B2).decode()
    parsed, prog = _parsed(old.encode(), "p.md")
    snapshot = _snapshot_of(old.encode(), prog, parsed)
    assert snapshot.head is not None
    assert _fast_append(snapshot, version(FAST, B1, B2, B3)) is not None
    body_end = old.index("## Interview Responses")
    starts = [i + 1 for i, c in enumerate(old[:body_end]) if c == "\n"]
    assert len(starts) >= 8
    title = old.index("# S\n")
    for at in starts:
        new = old[:at] + opener + old[at:] + B3
        assert _fast_append(snapshot, new.encode()) is None, (at, new)
        if at > title + 4:  # and with the title changed too: the bytes shared at each end
            retitled = new[:title] + "# T" + new[title + 3:]
            assert _fast_append(snapshot, retitled.encode()) is None, (at, retitled)
