"""The shapes `validate` matches as text (checks/spec/shapes.py) admit nothing the exact,
line-by-line checks would say a word about: both readings give the same diagnostics, on
files that are mostly in shape with a near miss here and there."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import validate_progress_bytes
from mdgrill.checks.spec.shapes import rounds_in_shape, tree_in_shape

ROUND_LINES = [
    "- Facts resolved: D1 -> Redis", "- Facts resolved: none", "- Decisions: D1 -> yes",
    "- Decisions: D2 → no", "- Decisions: none", "- Decisions: None ", "- Decisions: D1 yes",
    "- Decisions:", "- Decisions:  ", "- Decisions:x -> y", "- Out of scope: none",
    "- Domain language: none", "- Frontier after round: D3", "- Frontier after round: none",
    "- Assumptions: x", "- Other: D1 -> something else", "- Stop: yes", "- By: D1 -> ana",
    "- Asked: D1", "- asked: D1", "* Decisions: D1 -> a", "-  Decisions: D1 -> a",
    "- **Decisions**: D1 -> a", "- Confirmation ID: c1", "- Unknown: x", "text", "",
    "   ", "\t", "  - nested", "> quote", "\tindented", "#### deeper", "###x", "- Asked:D1",
    "\u00a0", "  \u00a0", "- Reason: because",
]
HEADINGS = [
    "### Requirements Grill - Confirmed", "### Requirements Grill - Reset",
    "### Requirements Grill - Awaiting Confirmation", "### Requirements Grill - Revised",
    "### Notes", "### Requirements Grill - Mode",
]
NODE_LINES = [
    "- Section: auth", "- Depends on: none", "- Depends on: D1", "- Depends on: D1, D2",
    "- Depends on: D9", "- Depends on: D1, none", "- Depends on: D 4", "- Depends on: n/a",
    "- Depends on: D1;D2", "- Depends on:", "- Spawned by: D1", "- Spawned by: D1, D2",
    "- Spawned by: none", "- Options:", "- Options: inline", "  - A (Recommended): why",
    "  - B", "  - C", "  - D (recommended)", "  - E", "", "  ", "- Rationale: r",
    "- Evidence: e", "- Recommendation: x", "- Unknown: u", "- options:", "text",
    "> quote", "\t- tab option", "- Investigating: D2",
]
NODE_HEADINGS = ["### {id}: Question", "### {id} : spaced", "### {id}:", "### Not a node",
                 "###{id}: no space", "### {id}: closing ###"]


@st.composite
def rounds(draw: st.DrawFn) -> list[str]:
    out: list[str] = []
    number = 0
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 5)) == 0:
            out += [draw(st.sampled_from(HEADINGS)),
                    *draw(st.lists(st.sampled_from(["- Interview: i1", "- Reason: r", "x",
                                                    "- Confirmation ID: c"]), max_size=2))]
            number = 0 if "Confirmed" in out[-1] or "Reset" in out[-1] else number
            continue
        number += 1
        out.append(f"### Requirements Grill - Round {number}")
        if draw(st.integers(0, 6)) != 0:
            out.append("- Asked: D1, D2")
        canonical = ["- Facts resolved: none", "- Decisions: D1 -> a", "- Out of scope: none",
                     "- Domain language: none", "- Frontier after round: none"]
        if draw(st.booleans()):
            out += canonical
        else:
            out += draw(st.lists(st.sampled_from(ROUND_LINES), max_size=6))
    return out


@st.composite
def tree(draw: st.DrawFn) -> list[str]:
    out: list[str] = []
    for index in range(1, draw(st.integers(1, 5)) + 1):
        node_id = draw(st.sampled_from([f"D{index}", "D1", f"D{index}"]))
        out.append(draw(st.sampled_from(NODE_HEADINGS)).format(id=node_id))
        if draw(st.booleans()):
            parent = f"D{index - 1}" if index > 1 else "none"
            out += ["- Section: s", f"- Depends on: {parent}", "- Options:",
                    "  - A (Recommended): why", "  - B"]
        else:
            out += draw(st.lists(st.sampled_from(NODE_LINES), max_size=7))
    return out


@st.composite
def document(draw: st.DrawFn) -> str:
    body = ["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", "", *draw(tree()), "",
            "## Interview Responses", "", *draw(rounds())]
    return "\n".join(body) + draw(st.sampled_from(["", "\n"]))


def _diagnostics(text: str) -> list[tuple[object, ...]]:
    found = validate_progress_bytes(text.encode("utf-8"), "p.md")
    return sorted((d.line, d.code, d.severity, d.message) for d in found)


def _exact(text: str) -> list[tuple[object, ...]]:
    with mock.patch("mdgrill.checks.spec.blocks.rounds_in_shape", lambda *a: False), \
            mock.patch("mdgrill.checks.spec.tree.tree_in_shape", lambda *a: False):
        return _diagnostics(text)


@settings(max_examples=600, deadline=None)
@given(document())
def test_the_shapes_and_the_exact_checks_say_the_same(text: str) -> None:
    assert _diagnostics(text) == _exact(text)


CANONICAL = """---
mdgrill: 1
goal: Sign in by email link
---
# T

## Goal

Sign in by email link

## Design Tree

### D1: Who signs in?
- Section: auth
- Depends on: none
- Options:
  - Customers (Recommended): the goal says so
  - Everyone

### D2: How long does a link last?
- Depends on: D1
- Options:
  - 15 minutes (Recommended): the security team's figure
  - A day

## Interview Responses

### Requirements Grill - Round 1
- Asked: D1, D2
- Decisions: D1 -> customers
- Facts resolved: none
- Decisions: D2 -> 15 minutes
- Out of scope: none
- Domain language: none
- Frontier after round: none
"""


def _spans(text: str) -> tuple[int, int, int]:
    tree_at = text.index("### D1")
    log_at = text.index("### Requirements")
    return tree_at, text.index("## Interview Responses"), log_at


def test_a_canonical_file_is_read_as_text() -> None:
    # The test above would pass with shapes that never match; these hold that they do.
    tree_at, tree_end, log_at = _spans(CANONICAL)
    assert tree_in_shape(CANONICAL, tree_at, tree_end, {"D1", "D2"})
    assert rounds_in_shape(CANONICAL, log_at, len(CANONICAL), False)
    assert _diagnostics(CANONICAL) == _exact(CANONICAL) == []


def test_each_kind_of_near_miss_sends_its_part_to_the_exact_checks() -> None:
    tree_at, tree_end, log_at = _spans(CANONICAL)
    for before, after in [("- Facts resolved: none\n", ""),  # a closed round lacks a key
                          ("- Asked: D1, D2\n", ""),  # Asked is not first
                          ("D1 -> customers", "D1 customers"),  # a decision without `->`
                          ("- Out of scope: none", "- Out of Scope: none"),  # not our case
                          ("- Domain language: none", "a stray line")]:
        text = CANONICAL.replace(before, after, 1)
        assert not rounds_in_shape(text, log_at, len(text), False), before
    for before, after in [("  - Everyone\n", ""),  # one option
                          ("  - Everyone", "  - Everyone (Recommended)"),  # two marks
                          ("- Depends on: D1", "- Depends on: D3"),  # a missing node
                          ("- Section: auth", "- Depends on: none\n- Section: auth"),  # twice
                          ("- Section: auth", "- Sections: auth")]:  # an unknown key
        text = CANONICAL.replace(before, after, 1)
        end = text.index("## Interview Responses")
        assert not tree_in_shape(text, tree_at, end, {"D1", "D2"}), before
