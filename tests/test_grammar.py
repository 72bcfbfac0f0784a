"""One grammar for `.progress.md`: what `validate` says of a part of a hand-written file does
not depend on the file's size or on edits elsewhere in it.

`validate` once had a second reading: a text-pattern "shape" validator decided which rounds
and which design tree the exact checks could skip. The two disagreed (a node with five
options passed in silence unless the body had a comment). There is now one parser: the
headings give the parts, every part's bullets are read by one line grammar
(`formats.progress.read_bullets`), and the checks read what it found. The only part the
checks take on trust is a log that mdgrill sealed (`log: {blocks, sha256}` matching its
text): its blocks' bullets are not checked again, their headings are. So the property
below holds: for the same hand-written nodes and rounds, the diagnostics are the same
whatever the size of the file around them (a few lines, or hundreds of other nodes and
rounds), whether it has an unrelated comment, CRLF line ends or a BOM; a seal changes
only the round checks, and sealed files of every size agree among themselves.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import validate_progress_bytes
from mdgrill.formats.progress import log_digest

NODE_LINES = [
    "- Section: auth", "- Depends on: none", "- Depends on: D1, D3", "- Depends on: D2",
    "- Depends on: D9", "- Depends on: D 4", "- Spawned by: D1", "- Spawned by: D1, D2",
    "- Options:", "- Options: inline", "- Rationale: r", "- Unknown: u", "text", "> quote",
    "", "- Investigating: D2",
]
OPTION = ["  - A (Recommended): why", "  - B", "  - C (recommended)", "  - D", "  - E", "  - F"]
ROUND_LINES = [
    "- Facts resolved: D1 -> Redis", "- Facts resolved: none", "- Decisions: D1 -> yes",
    "- Decisions: D2 yes", "- Decisions: none", "- Out of scope: none",
    "- Domain language: none", "- Frontier after round: none", "- Assumptions: x",
    "- Asked: D1", "- Unknown: x", "stray text", "", "  - nested", "- Reason: r",
]
CLOSED = ["- Facts resolved: none", "- Decisions: D1 -> yes", "- Out of scope: none",
          "- Domain language: none", "- Frontier after round: none"]


@st.composite
def nodes(draw: st.DrawFn) -> list[str]:
    """Hand-written nodes D1.., each with a few lines and 0-6 options."""
    out: list[str] = []
    for index in range(1, draw(st.integers(1, 3)) + 1):
        out.append(f"### D{index}: Question {index}")
        out += draw(st.lists(st.sampled_from(NODE_LINES), max_size=4))
        count = draw(st.integers(0, 6))
        if count or draw(st.booleans()):
            out.append("- Options:")
            out += draw(st.permutations(OPTION))[:count]
    return out


@st.composite
def rounds(draw: st.DrawFn) -> list[str]:
    """Hand-written Requirements rounds 1.., the first one well-formed and closed."""
    out = ["### Requirements Grill - Round 1", "- Asked: D1", *CLOSED]
    for number in range(2, draw(st.integers(1, 3)) + 2):
        out.append(f"### Requirements Grill - Round {draw(st.sampled_from([number, 9]))}")
        out += draw(st.lists(st.sampled_from(ROUND_LINES), max_size=7))
    return out


def _filler_nodes(count: int) -> list[str]:
    return [line for i in range(1, count + 1) for line in
            (f"### F{i}: Filler {i}", "- Section: s", "- Depends on: none", "- Options:",
             "  - Yes (Recommended): because", "  - No", "")]


def _filler_rounds(count: int) -> list[str]:
    return [line for i in range(1, count + 1) for line in
            (f"### Design Grill - Round {i}", f"- Asked: F{i}", "- Facts resolved: none",
             f"- Decisions: F{i} -> yes", "- Out of scope: none", "- Domain language: none",
             "- Frontier after round: none", "")]


def _document(tree: list[str], log: list[str], filler: int, comment: bool,
              sealed: bool) -> tuple[str, int, int]:
    """The file, and the 0-based lines where the hand-written nodes and rounds start. The
    filler nodes follow the hand-written ones; the filler rounds (another phase) precede the
    hand-written rounds, which end the log (a round's last block stays the last)."""
    front = ["---", "mdgrill: 1", "spec: s", "goal: Sign in", "phase: requirements",
             "mode: interactive", "required_sections: []", "interview: null", "skills: []"]
    log_lines = [*_filler_rounds(filler), *log]
    log_text = "\n".join(log_lines)
    if sealed:
        blocks = sum(1 for line in log_lines if line.startswith("### "))
        front += ["log:", f"  blocks: {blocks}", f"  sha256: {log_digest(log_text)}"]
    front.append("---")
    body = ["# Spec", "", "## Goal", "", "Sign in", "", "## Design Tree", ""]
    if comment:  # above the first node: no node's line
        body += ["<!-- an unrelated note", "### D7: a heading in a comment is none", "-->", ""]
    tree_at = len(front) + len(body)
    body += [*tree, "", *_filler_nodes(filler), "## Interview Responses", ""]
    log_at = len(front) + len(body) + len(_filler_rounds(filler))
    return "\n".join([*front, *body, log_text]) + "\n", tree_at, log_at


def _said(data: bytes, tree_at: int, log_at: int) -> list[tuple[str, int, str, str, str]]:
    """The diagnostics, each line told from the start of its hand-written part."""
    out = []
    for d in validate_progress_bytes(data, "p.md"):
        part, start = ("log", log_at) if d.line - 1 >= log_at else ("tree", tree_at)
        assert d.line - 1 >= start, f"a diagnostic outside the hand-written parts: {d}"
        out.append((part, d.line - 1 - start, d.severity, d.code, d.message))
    return sorted(out)


def _variants(tree: list[str], log: list[str], sealed: bool,
              sizes: tuple[int, ...]) -> dict[str, list[tuple[str, int, str, str, str]]]:
    said = {}
    for filler in sizes:
        for comment in (False, True):
            text, tree_at, log_at = _document(tree, log, filler, comment, sealed)
            said[f"{filler} {comment}"] = _said(text.encode(), tree_at, log_at)
        said[f"{filler} crlf"] = _said(text.replace("\n", "\r\n").encode(), tree_at, log_at)
        said[f"{filler} bom"] = _said(b"\xef\xbb\xbf" + text.encode(), tree_at, log_at)
    return said


@settings(max_examples=30, deadline=None, derandomize=True)
@given(nodes(), rounds())
def test_what_validate_says_of_a_part_does_not_depend_on_the_file_around_it(
        tree: list[str], log: list[str]) -> None:
    unsealed = _variants(tree, log, sealed=False, sizes=(0, 200))
    sealed = _variants(tree, log, sealed=True, sizes=(0, 200))
    first = next(iter(unsealed.values()))
    assert all(said == first for said in unsealed.values()), unsealed
    first_sealed = next(iter(sealed.values()))
    assert all(said == first_sealed for said in sealed.values()), sealed
    # the seal vouches for the rounds' bullets only: the tree is checked the same
    assert [d for d in first_sealed if d[0] == "tree"] == [d for d in first if d[0] == "tree"]


def test_a_node_with_five_options_is_an_error_in_a_file_of_any_size() -> None:
    # The reported case: five (or six) options passed in a plain file, and failed as soon
    # as the file had a comment. Same node, 0 and 10,000 other nodes and rounds.
    five = ["### D1: Which store?", "- Depends on: none", "- Options:", *OPTION[:5]]
    six = ["### D1: Which store?", "- Depends on: none", "- Options:", *OPTION]
    log = ["### Requirements Grill - Round 1", "- Asked: D1", *CLOSED]
    for tree, count in ((five, 5), (six, 6)):
        for filler in (0, 10_000):
            for comment in (False, True):
                text, tree_at, log_at = _document(tree, log, filler, comment, sealed=False)
                said = _said(text.encode(), tree_at, log_at)
                assert ("tree", 2, "error", "NODE_OPTIONS",
                        f"D1 has {count} option(s): a node offers 2 to 4 options") in said, \
                    (filler, comment, said)


def test_a_round_that_lacks_a_closing_key_is_an_error_in_a_file_of_any_size() -> None:
    log = ["### Requirements Grill - Round 1", "- Asked: D1",
           *[line for line in CLOSED if not line.startswith("- Domain")],
           "### Requirements Grill - Round 2", "- Asked: D1"]
    tree = ["### D1: Which store?", "- Depends on: none"]
    for filler in (0, 2_000):
        text, tree_at, log_at = _document(tree, log, filler, False, sealed=False)
        said = _said(text.encode(), tree_at, log_at)
        assert [d[3] for d in said if d[2] == "error"] == ["ROUND_INCOMPLETE"], said
        assert re.search("lacks `Domain language:`", said[0][4]) is not None


# The bullet grammar in its plainest spelling: `**` optional, a key's words separated by
# spaces, an optional value. `formats.progress.lines` spells it for speed (a class with a
# lookbehind, branches); this holds that both read every line alike.
_PLAIN_KEY = (r"[-*+][ \t]+(?:\*\*)?([A-Za-z][A-Za-z0-9/_-]*(?: +[A-Za-z0-9/_-]+)*)(?:\*\*)?"
              r"[ \t]*:(?:\*\*)?")
PLAIN_BULLET_LINE = re.compile(rf"(?:{_PLAIN_KEY}(?:[ \t]+([^\n]*))?(?![^\n])|([^\n]*))\n?")
PLAIN_BULLET = re.compile(_PLAIN_KEY + r"(?:[ \t]+(.*))?\Z")
BLANKS = st.sampled_from(["", " ", "  ", "\t", " \t"])
STARS = st.sampled_from(["", "**", "*"])
KEY_TEXT = st.sampled_from(["Key", "Out of scope", "Out  of", "x-1/y_2", "9a", "a ", "A b ",
                            "é", "", "K:ey", "Ke y"])
VALUE_TEXT = st.sampled_from(["", "v", "D1 -> yes", " ", "**x", ":", "a: b", "\t"])


@st.composite
def bullet_lines(draw: st.DrawFn) -> str:
    """Lines near a `- Key: value` bullet (each slot of it drawn, some of them wrong), or
    any short text of the characters that matter."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(alphabet="-*+ \t:aK1/_", max_size=12))
    return "".join([draw(st.sampled_from(["-", "*", "+", " -", "x"])), draw(BLANKS),
                    draw(STARS), draw(KEY_TEXT), draw(STARS), draw(BLANKS),
                    draw(st.sampled_from([":", "", "::"])), draw(STARS), draw(BLANKS),
                    draw(VALUE_TEXT)])


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.lists(bullet_lines(), min_size=1, max_size=4),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_the_bullet_pattern_reads_as_its_plain_spelling(lines: list[str], nl: str,
                                                        last: bool) -> None:
    from mdgrill.formats.progress import BULLET, BULLET_LINE

    text = nl.join(lines) + (nl if last else "")
    assert BULLET_LINE.findall(text) == PLAIN_BULLET_LINE.findall(text)
    for line in text.split("\n"):
        got, plain = BULLET.match(line), PLAIN_BULLET.match(line)
        assert (got and got.groups()) == (plain and plain.groups())


def test_the_bullet_pattern_stays_linear_on_a_line_of_blanks() -> None:
    import time

    from mdgrill.formats.progress import BULLET, BULLET_LINE

    for line in ("- A" + " " * 100_000 + "x", "- A" + " x" * 50_000, "- A" + " " * 100_000):
        start = time.process_time()
        BULLET_LINE.findall(line)
        BULLET.match(line)
        assert time.process_time() - start < 0.5, line[:20]
