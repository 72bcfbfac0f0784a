"""`log_settled` reads a stretch of plain rounds by its decisions' IDs alone: rounds next to
each other whose settling bullets are `- Decisions: ID -> …` as mdgrill writes them and
`none` facts and out-of-scope lines settle exactly their decisions' IDs, whatever the order.
Any other spelling of a settling bullet (another marker, `**`, case, blanks, a value of
another shape, a fact or an out-of-scope ID), a CR, or a block of another kind between has
that stretch read from its lines' tokens, as before. Held here to the ledger's plain rules
(`read_ledger`) over generated logs mixing every one of them, and to being taken where it
applies (at 10,000 decisions it is half the time `open-frontier` spent settling the log).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model import tree as tree_model
from mdgrill.model.tree import log_settled, read_ledger

PREFIX = "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"
PLAIN = ["- Asked: {a}, {b}", "- Decisions: {a} -> yes, as in round {n}",
         "- Decisions: {b} -> no -> really", "- Facts resolved: none", "- Out of scope: none",
         "- Domain language: none", "- Frontier after round: none"]
# settling bullets written otherwise than mdgrill writes them: each has its stretch read
# from tokens
ODD = ["* Decisions: {a} -> x", "+ Decisions: {a} -> x", "-\tDecisions: {a} -> x",
       "- **Decisions:** {a} -> x", "- **Decisions**: {a} -> x", "- decisions: {a} -> x",
       "- DECISIONS: {a} -> x", "- Decisions:  {a} -> x", "- Decisions : {a} -> x",
       "- Decisions: {a}->x", "- Decisions: {a} \u2192 x", "- Decisions: none",
       "- Decisions: x-1 -> y", "- Decisions:", "- Decisions: {a} ->", "- Decisions: 1D -> z",
       "- Facts resolved: {a} -> from the docs", "- Facts resolved: none (none found)",
       "- Out of scope: {a}", "- out of scope: {b}", "- Out of scope: none\u00a0",
       "- Out of scope:", "- Out of scope:none"]
# lines a round's reading passes over (no settling bullet of a round): the stretch stays plain
IGNORED = ["- Reopened: {a}", "- Defaulted: {b}", "- Decisions made: {a} -> x",
           "  - Decisions: {a} -> nested", "Decisions: {a} -> x", "- Out of  scope: {a}"]
KINDS = ["### Requirements Grill - Revised", "### Requirements Grill - Reset",
         "### Requirements Grill - Skipped", "### Requirements Grill - Confirmed",
         "### Requirements Grill - Amended", "### Notes"]
OTHER_LINES = ["- Reopened: {a}", "- Reopened: {a}, {b}", "- Defaulted: {b}",
               "- Decisions: {a} -> in a block that settles nothing", "- Reason: why"]
IDS = st.sampled_from(["D1", "D2", "D3", "d4", "Z9"])


@st.composite
def logs(draw: st.DrawFn) -> str:
    parts = []
    for n in range(1, draw(st.integers(1, 7)) + 1):
        a, b = draw(IDS), draw(IDS)
        if draw(st.integers(0, 4)) == 0:  # a block of another kind between the rounds
            lines = [draw(st.sampled_from(KINDS))]
            lines += [draw(st.sampled_from(OTHER_LINES)).format(a=a, b=b)
                      for _ in range(draw(st.integers(0, 3)))]
        else:
            lines = [f"### Requirements Grill - Round {n}"]
            lines += [line.format(a=a, b=b, n=n) for line in PLAIN
                      if draw(st.integers(0, 5)) > 0]
            if draw(st.integers(0, 3)) == 0:
                lines.insert(draw(st.integers(1, len(lines))),
                             draw(st.sampled_from(ODD + IGNORED)).format(a=a, b=b))
        gap = "\n" if draw(st.integers(0, 5)) == 0 else ""  # a blank line between blocks
        parts.append("\n".join(lines) + "\n" + gap)
    text = PREFIX + "".join(parts)
    return text.replace("\n", "\r\n") if draw(st.integers(0, 9)) == 0 else text


@settings(max_examples=1500, deadline=None, derandomize=True)
@example(PREFIX + "### Requirements Grill - Round 1\n- Decisions: D1 -> a\n"
         "### Requirements Grill - Round 2\n- Out of scope: D1\n"
         "### Requirements Grill - Round 3\n- Decisions: D1 -> b\n")
@example(PREFIX + "### Requirements Grill - Round 1\n- Out of scope: D1\n"
         "### Requirements Grill - Round 2\n- Decisions: D1 -> a\n")
@given(logs())
def test_a_plain_stretch_settles_what_the_ledger_settles(text: str) -> None:
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    prog = Progress(TextFile(text), "p.md")
    settled = log_settled(prog)
    assert (set(settled.answered), settled.out_of_scope) == \
        (set(ledger.answers), ledger.out_of_scope)
    assert log_settled(prog) is settled  # read once a parse


def _stretches(text: str) -> list[tuple[int, bool]]:
    prog = Progress(TextFile(text), "p.md")
    settling = [b for b in prog.blocks if b.kind in tree_model._SETTLING]
    return [(len(blocks), plain) for blocks, plain in tree_model._stretches(settling, text)]


def _round(n: int, *lines: str) -> str:
    return "\n".join([f"### Requirements Grill - Round {n}", *lines]) + "\n"


def test_rounds_as_mdgrill_writes_them_are_one_plain_stretch() -> None:
    text = PREFIX + "".join(_round(n, f"- Asked: D{n}", f"- Decisions: D{n} -> yes",
                                   "- Facts resolved: none", "- Out of scope: none",
                                   "- Frontier after round: none") for n in range(1, 6))
    assert _stretches(text) == [(5, True)]
    assert log_settled(Progress(TextFile(text), "p.md")).answered == {f"D{n}" for n in
                                                                      range(1, 6)}


def test_each_odd_bullet_has_its_stretch_read_from_tokens() -> None:
    for odd, plain in [*((line, False) for line in ODD), *((line, True) for line in IGNORED)]:
        line = odd.format(a="D1", b="D2")
        text = PREFIX + _round(1, "- Decisions: D3 -> yes") + _round(2, line)
        assert _stretches(text) == [(2, plain)], line


def test_a_block_of_another_kind_or_a_gap_ends_a_stretch() -> None:
    rounds = _round(1, "- Decisions: D1 -> a") + _round(2, "- Decisions: D2 -> b")
    revised = "### Requirements Grill - Revised\n- Reopened: D1\n"
    assert _stretches(PREFIX + rounds + revised + _round(3, "- Decisions: D3 -> c")) == \
        [(2, True), (1, False), (1, True)]
    settled = log_settled(Progress(TextFile(PREFIX + rounds + revised), "p.md"))
    assert settled.answered == {"D2"}
    crlf = (PREFIX + rounds).replace("\n", "\r\n")
    assert _stretches(crlf) == [(2, False)]
