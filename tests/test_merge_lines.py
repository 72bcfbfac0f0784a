"""The three-way line merge under every merge of mdgrill's files (`core/merge_lines.py`), in
process: which side's lines are taken, when two changes clash, and that nothing written on
either side is dropped."""

from __future__ import annotations

import pytest

from mdgrill.core.merge_lines import Clash, markers, merge_lines


def test_a_change_on_one_side_is_taken_even_on_the_first_line() -> None:
    assert merge_lines(["x", "a"], ["y", "a"], ["x", "a"]).lines() == ["y", "a"]
    assert merge_lines(["x", "a"], ["x", "a"], ["y", "a"]).lines() == ["y", "a"]


def test_the_same_change_on_both_sides_is_taken_once() -> None:
    merged = merge_lines(["a", "x", "b"], ["a", "y", "b"], ["a", "y", "b"])
    assert merged.clashes == []
    assert merged.lines() == ["a", "y", "b"]


def test_two_changes_of_one_line_clash_and_the_lines_are_refused() -> None:
    merged = merge_lines(["a", "x", "b"], ["a", "y", "b"], ["a", "z", "b"])
    assert merged.parts == ["a", Clash(["x"], ["y"], ["z"]), "b"]
    assert merged.clashes == [Clash(["x"], ["y"], ["z"])]
    with pytest.raises(ValueError, match="the merge has clashes"):
        merged.lines()
    assert markers(merged.clashes[0]) == ["<<<<<<< ours", "y", "=======", "z",
                                          ">>>>>>> theirs"]


def test_two_additions_at_one_place_are_both_kept_ours_first_unless_told_not() -> None:
    assert merge_lines(["a", "b"], ["a", "o", "b"], ["a", "t", "b"]).lines() == \
        ["a", "o", "t", "b"]
    refused = merge_lines(["a", "b"], ["a", "o", "b"], ["a", "t", "b"],
                          unite=lambda ours, theirs: False)
    assert refused.parts == ["a", Clash([], ["o"], ["t"]), "b"]


def test_a_long_file_of_repeated_lines_keeps_each_sides_edit() -> None:
    # 300 lines where a blank line is common: difflib's "autojunk" heuristic would treat the
    # blanks as noise and misplace the edits; the merge must not
    base = [line for i in range(150) for line in (f"line {i}", "")]
    ours = ["added at the top", *base]
    theirs = [*base[:-2], "line 149 changed", ""]
    assert merge_lines(base, ours, theirs).lines() == ["added at the top", *theirs]


def test_a_checklist_of_identical_items_keeps_edits_far_apart() -> None:
    """300 lines that are one item and a blank line over and over (every line repeated):
    a line added at the top and the last line changed merge cleanly, as git's merge does.
    difflib's "autojunk" would find no line to anchor on and make the whole file one clash."""
    base = [line for _ in range(150) for line in ("- [ ] check", "")]
    ours = ["added at the top", *base]
    theirs = [*base[:-1], "changed at the end"]
    assert merge_lines(base, ours, theirs).lines() == ["added at the top", *theirs]
