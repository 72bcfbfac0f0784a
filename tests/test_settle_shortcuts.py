"""The shortcuts of `open-frontier`'s reading of the log and of its frontier, each held to
the general path over generated input:

- `log_settled` reads a `Decisions` value's ID from the value as its token holds it, not
  stripped, and skips a `none` without a call: it settles what the ledger settles (the
  plain rules, `read_ledger`) for values with blanks of every kind at either end and around
  the arrow.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import log_settled, read_ledger

PREFIX = "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"

# blanks the token keeps (after the pattern's own spaces and tabs) and `strip` drops
BLANKS = st.sampled_from(["", " ", "\t", "  ", "\u00a0", "\u2003", "\x0b", "\x0c", " \t "])
IDS = st.sampled_from(["D1", "D2", "d3", "Z9", "x-1", "1D", "D\u0661", "Dé", "", "D1 D2",
                       "auth.users"])
ARROWS = st.sampled_from([" -> ", "->", " → ", "→", "  ->  ", " -> -> ", " ->", "-> ", ""])
ANSWERS = st.sampled_from(["yes", "", " ", "\t", "\u00a0", "a -> b", "none"])
KEYS = st.sampled_from(["Decisions", "decisions", "Facts resolved", "Out of scope"])
VALUES = st.sampled_from(["none", "none ", "D1", "D2, D3", "D1 -> fact", "x"])


@st.composite
def logs(draw: st.DrawFn) -> str:
    rounds = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        lines = [f"### Requirements Grill - Round {number}"]
        for _ in range(draw(st.integers(0, 6))):
            key = draw(KEYS)
            if key.lower() == "decisions":
                value = (draw(BLANKS) + draw(IDS) + draw(ARROWS) + draw(ANSWERS)
                         + draw(BLANKS))
            else:
                value = draw(VALUES) + draw(BLANKS)
            lines.append(f"- {key}: {value}")
        rounds.append("\n".join(lines) + "\n")
    return PREFIX + "".join(rounds)


@settings(max_examples=1500, deadline=None, derandomize=True)
@example(PREFIX + "### Requirements Grill - Round 1\n- Decisions: D1 -> \n"
         "- Decisions: D2 ->\u2003\n- Decisions: \u00a0D3 -> x\n- Decisions: D4 -> \t\n"
         "- Out of scope: none \n- Facts resolved: none\n")
@given(logs())
def test_decisions_read_unstripped_settle_what_the_ledger_settles(text: str) -> None:
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    settled = log_settled(Progress(TextFile(text), "p.md"))
    assert (set(settled.answered), settled.out_of_scope) == \
        (set(ledger.answers), ledger.out_of_scope)
