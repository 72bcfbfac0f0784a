"""The ledger's fast reading of a round (`read_ledger`: `Decisions` tried first, a `none`
line skipped at once, the first arrow split by hand) settles what the contract's rules, read
line by line with the plain helpers, settle; and a log edited by hand (blank lines between
bullets, nested bullets, prose, a bullet with no key, CRLF or mixed line ends) settles what
the same log without those lines settles, by every reading of it."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Block, Progress, split_ids
from mdgrill.formats.schema import is_id
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import (
    DEFAULTED_ANSWER,
    Ledger,
    fact_id,
    ledger_of,
    log_settled,
    read_ledger,
    split_decision,
)


class Plain:
    """The rules of the log's rounds, Revised, Reset, Amended and Skipped blocks, one line at a
    time."""

    def __init__(self, blocks: list[Block]) -> None:
        self.answers: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.order: list[str] = []
        self.out_of_scope: set[str] = set()
        self.amended: dict[str, str] = {}
        for block in blocks:
            if block.kind in ("revised", "reset"):
                for entry in block.get("Reopened"):
                    for node_id in split_ids(entry.value):
                        self.answers.pop(node_id, None)
                        self.out_of_scope.discard(node_id)
            elif block.kind == "round":
                for entry in block.entries:
                    self.line(entry.key.lower(), entry.value, entry.line)
            elif block.kind == "amended":
                for entry in block.get("Amended"):
                    self.line("amended", entry.value, entry.line)
            elif block.kind == "skipped":
                for entry in block.get("Defaulted"):
                    for node_id in split_ids(entry.value):
                        if is_id(node_id):
                            self.settle(node_id, DEFAULTED_ANSWER, entry.line)

    def view(self) -> tuple[object, ...]:
        return self.answers, self.lines, self.out_of_scope, self.order, self.amended

    def settle(self, node_id: str, answer: str, line: int) -> None:
        if node_id not in self.answers and node_id not in self.lines:
            self.order.append(node_id)
        self.answers[node_id] = answer
        self.lines[node_id] = line
        self.out_of_scope.discard(node_id)

    def line(self, key: str, value: str, line: int) -> None:
        if key == "decisions":
            pair = split_decision(value)
            if pair is not None and is_id(pair[0]):
                self.settle(pair[0], pair[1], line)
        elif key == "facts resolved":
            found = fact_id(value)
            if found is not None:
                self.settle(found, value, line)
        elif key == "out of scope":
            for node_id in split_ids(value):
                if is_id(node_id):
                    self.out_of_scope.add(node_id)
                    self.answers.pop(node_id, None)
        elif key == "amended":
            pair = split_decision(value)
            if pair is not None and pair[0] in self.answers:
                old = self.answers[pair[0]]
                self.amended.setdefault(pair[0], old)
                self.answers[pair[0]] = value if old.startswith(f"{pair[0]} -> ") else pair[1]


VALUES = st.sampled_from([
    "none", "None", "NONE", " none", "none -> x", "none: x", "-", "n/a", "", "D1", "D2, D3",
    "D1 -> yes", "D1 → no", "D1->tight", "D2 -> a -> b", "D3: a fact", "D3 -> fact",
    "E1 -> ", "auth.users -> kept", "x-1 -> y", "D 4 -> spaced", "1D -> bad", "D1; D2",
    "D1 -> none", "D2 -> better words",
])
KEYS = st.sampled_from(["Decisions", "decisions", "**Decisions**", "Facts resolved",
                        "Out of scope", "OUT OF SCOPE", "Amended", "Asked", "By",
                        "Frontier after round", "Reopened", "Defaulted", "Default"])
# Bullets that settle or unsettle an ID under the right heading (drawn as often as the
# random pairs of KEYS and VALUES, which mostly settle nothing)
SETTLING = st.sampled_from([
    "- Decisions: D1 -> yes", "- Decisions: D2 -> no", "- Facts resolved: D3: a fact",
    "- Out of scope: D2", "- Amended: D1 -> better words", "- Reopened: D1, D2",
    "- Defaulted: D3", "- Default: D3 -> Option A", "- Decisions: D3 -> maybe",
])
HEADINGS = st.sampled_from(["### Requirements Grill - Round 1", "### Design Grill - Round 2",
                            "### Requirements Grill - Revised", "### Requirements Grill - Reset",
                            "### Requirements Grill - Skipped", "### Requirements Grill - Amended",
                            "### Notes"])


# The lines before the log: the log's first line is line 6.
PREFIX = "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"
FIRST_LOG_LINE = PREFIX.count("\n")

# Lines a hand edit leaves in a log that are no `- Key: value` bullet: blank lines, nested
# bullets and continuation lines (some with a key, which nesting makes no bullet), prose, a
# quote, bullets with no key or no blank after the dash, a sub-heading, a one-line comment.
# Left out, as they change which lines are blocks (a fence or an open comment hides the
# headings after it, a `###` line starts a block, a `##` line ends the log): not noise.
NOISE = ["", " ", "\t", "  ", "  - nested", "\t- tabbed nested", "  - Decisions: D7 -> nested",
         "    - Out of scope: D1", "  * Facts resolved: D2: nested", "  continuation",
         "Some prose.", "> quoted", "> - Decisions: D3 -> quoted", "- no key here",
         "- D1 -> yes", "- : empty key", "- 1D: digit first", "-", "- ", "* ", "+",
         "-Decisions: D1 -> no blank", "Decisions: D2 -> no dash", "**Decisions**: D3 -> x",
         "#### A sub-heading", "#no heading", "<!-- a note -->"]


@st.composite
def clean_log(draw: st.DrawFn) -> list[str]:
    """The log's lines: headings, each with its `- Key: value` bullets, nothing else."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        lines.append(draw(HEADINGS))
        for _ in range(draw(st.integers(0, 6))):
            lines.append(draw(st.one_of(SETTLING, st.builds("- {}: {}".format, KEYS, VALUES)
                                        .map(str.rstrip))))
    return lines


@st.composite
def noised(draw: st.DrawFn, lines: list[str]) -> tuple[list[str], list[int]]:
    """`lines` with lines of NOISE put between them (before the first heading and after the
    last line too), and where each of `lines` went (its index in the result)."""
    put: dict[int, list[str]] = {}
    for at, pick in draw(st.lists(st.tuples(st.integers(0, len(lines)),
                                            st.sampled_from(NOISE)), max_size=10)):
        put.setdefault(at, []).append(pick)
    out: list[str] = []
    where: list[int] = []
    for i, line in enumerate(lines):
        out.extend(put.get(i, []))
        where.append(len(out))
        out.append(line)
    out.extend(put.get(len(lines), []))
    return out, where


@st.composite
def line_ends(draw: st.DrawFn, lines: list[str]) -> str:
    """PREFIX and `lines` as a file: every line ended by LF, or by CRLF, or each by either
    (a file edited on two systems)."""
    lines = PREFIX.split("\n")[:-1] + lines
    style = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    if style != "mixed":
        return "".join(line + style for line in lines)
    bits = draw(st.integers(0, 2**32 - 1))  # line i ends in CRLF where bit i % 32 is set
    return "".join(line + ("\r\n" if bits >> (i % 32) & 1 else "\n")
                   for i, line in enumerate(lines))


@st.composite
def log(draw: st.DrawFn, hand_edited: bool = True) -> str:
    """A log file; `hand_edited`: with lines of NOISE among its bullets and any line ends."""
    lines = draw(clean_log())
    if not hand_edited:
        return PREFIX + "\n".join(lines) + "\n"
    return draw(line_ends(draw(noised(lines))[0]))


@st.composite
def log_and_hand_edit(draw: st.DrawFn) -> tuple[str, str, list[int]]:
    """A log as clean lines (LF), the same log edited by hand, and where each line of the
    first is in the second."""
    lines = draw(clean_log())
    edited, where = draw(noised(lines))
    return (PREFIX + "\n".join(lines) + "\n", draw(line_ends(edited)),
            [FIRST_LOG_LINE + at for at in where])


def _view(text: str) -> tuple[object, ...]:
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    return ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order, ledger.amended


def _full(ledger: Ledger) -> tuple[object, ...]:
    return (ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order,
            ledger.amended, ledger.defaults)


def _readings(text: str) -> dict[str, tuple[object, ...]]:
    """The ledger of `text` by each way mdgrill reads it: block by block as each block's
    bullets are first asked for, the whole log's bullets in one pass (`ledger_of`), and from
    the rows `validate` reads from the log's tokens (`read_log_rows`)."""
    rows = Progress(TextFile(text), "p.md")
    rows.read_log_rows()
    return {"block by block": _full(read_ledger(Progress(TextFile(text), "p.md").blocks)),
            "one pass": _full(ledger_of(Progress(TextFile(text), "p.md"))),
            "rows": _full(ledger_of(rows))}


def _settled(text: str) -> tuple[set[str], set[str]]:
    """The settled set read from the log's tokens alone (`log_settled`): the answered IDs,
    and those out of scope."""
    settled = log_settled(Progress(TextFile(text), "p.md"))
    return set(settled.answered), settled.out_of_scope


# A round edited by hand: a blank line (CRLF) under its heading, a nested bullet with a key
# and a blank line after its first answer, prose and a bullet with no key before its second.
HAND_EDITED = (PREFIX + "### Requirements Grill - Round 1\r\n\r\n- Decisions: D1 -> yes\n"
               "  - Decisions: D7 -> nested\n\nSome prose.\n- no key here\r\n"
               "- Decisions: D2 -> no\n")


@settings(max_examples=500, deadline=None, derandomize=True)
@example(HAND_EDITED)
@given(log())
def test_the_fast_round_reading_settles_what_the_plain_rules_settle(text: str) -> None:
    assert _view(text) == Plain(Progress(TextFile(text), "p.md").blocks).view()
    readings = _readings(text)
    for way, reading in readings.items():
        assert reading == readings["block by block"], way
    answers, _, out_of_scope = readings["block by block"][:3]
    assert _settled(text) == (set(answers), out_of_scope)  # type: ignore[arg-type]


def test_a_round_closed_with_none_settles_nothing() -> None:
    text = ("---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"
            "### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> yes\n"
            "- Facts resolved: none\n- Out of scope: none\n- Domain language: none\n"
            "- Frontier after round: none\n")
    answers, lines, out_of_scope, order, amended = _view(text)
    assert answers == {"D1": "yes"}
    assert lines == {"D1": 8}
    assert out_of_scope == set()
    assert order == ["D1"]
    assert amended == {}


@settings(max_examples=500, deadline=None, derandomize=True)
@given(log(hand_edited=False), st.sampled_from(["\n", "\r\n"]),
       st.sampled_from(["", "- Asked: D9\n\n"]))
def test_the_settled_set_read_from_tokens_is_the_ledgers(text: str, nl: str, lead: str) -> None:
    text = text.replace("## Interview Responses\n", "## Interview Responses\n" + lead)
    text = text.replace("\n", nl)
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    settled = log_settled(Progress(TextFile(text), "p.md"))
    assert (set(settled.answered), settled.out_of_scope) == \
        (set(ledger.answers), ledger.out_of_scope)


@settings(max_examples=400, deadline=None, derandomize=True)
@example((PREFIX + "### Requirements Grill - Round 1\n- Decisions: D1 -> yes\n"
          "- Decisions: D2 -> no\n", HAND_EDITED, [6, 8, 13]))
@example((PREFIX + "### Requirements Grill - Round 1\n",  # a mutant read it as D7's answer
          PREFIX + "### Requirements Grill - Round 1\n  - Decisions: D7 -> nested\n", [6]))
@given(log_and_hand_edit())
def test_lines_that_are_no_bullet_settle_nothing(edit: tuple[str, str, list[int]]) -> None:
    """The oracle: the clean log's ledger (its bullets alone, LF line ends). The edited log,
    read every way, settles the same IDs with the same answers, in the same order, each
    answer's line being where that bullet went."""
    clean, edited, where = edit
    ledger = read_ledger(Progress(TextFile(clean), "p.md").blocks)
    # the clean log's lines moved to where they are in the edited one
    expected = (ledger.answers, {i: where[n - FIRST_LOG_LINE]
                                 for i, n in ledger.answer_line.items()},
                ledger.out_of_scope, ledger.order, ledger.amended, ledger.defaults)
    for way, reading in _readings(edited).items():
        assert reading == expected, way
    assert _settled(edited) == (set(ledger.answers), ledger.out_of_scope)
