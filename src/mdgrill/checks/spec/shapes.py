"""The shapes the exact checks pass in silence, as patterns over the file's text.

`validate` of a log mdgrill sealed reads only its headings; a file nobody sealed (typed by
hand, written by another tool) has every block read. Reading 10,000 rounds line by line in
Python costs about as much as all the rest of `validate`, so the rounds and the design tree
are first matched as text: a run of rounds, or the tree, in which no line is out of shape
has nothing the exact checks could report, and only what is out of shape is read line by
line. Each pattern admits a subset of what the exact checks accept without a word (never
more: a line it does not know sends its part down the exact path), and
tests/test_shapes.py holds the two readings to the same diagnostics.

A shape reads only a plain body without CR (no fence, comment or indented `#`): those change
what a line is, and the exact path reads them.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import repeat
from operator import contains

from mdgrill.checks.spec.keys import CLOSING_KEYS, MAX_OPTIONS, MIN_OPTIONS, NODE_KEYS, ROUND_KEYS
from mdgrill.formats.schema import ID_PATTERN

# A line parse_bullets skips (only whitespace), and one it reads as a nested bullet or a
# continuation of the entry above (it starts with a space, a tab or `>` and is not blank).
_BLANK = r"[^\S\n]*"
_CHILD = r"[ \t>](?=[^\n]*?\S)[^\n]*"
# `- Key:` exactly as mdgrill writes it: the key in its own case, then a space or the end
_VALUE = r"(?:[ \t][^\n]*)?"


def _keys(keys: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(k) for k in keys)


@cache
def _round_line_out_of_shape() -> re.Pattern[str]:
    """The newline before a line no round may hold without the exact checks saying so."""
    plain = _keys([k for k in ROUND_KEYS if k != "Decisions"])
    # one blank, not `[ \t]+`: both branches take more blanks themselves, and a run of them
    # split two ways made a long line of blanks quadratic
    decision = r"- Decisions:[ \t](?:[^\n]*?(?:->|→)[^\n]*|[^\S\n]*(?i:none)[^\S\n]*)"
    # a heading only with its `- Asked:` line right after it: a round opens with it
    heading = rf"###(?:[ \t][^\n]*)?\n- Asked:{_VALUE}"
    line = rf"- (?:{plain}):{_VALUE}|{decision}|{_CHILD}|{heading}|{_BLANK}"
    return re.compile(rf"\n(?!(?:{line})(?:\n|\Z))")


def rounds_in_shape(text: str, start: int, end: int, closed_at_end: bool) -> bool:
    """Whether the run of round blocks in text[start:end] (`start` is the first heading's
    offset) is silent under the exact checks: known keys only, `Asked:` first, decisions
    with their `->`, no stray line, and every closed round with its five closing keys. The
    last round counts as closed when it has its frontier or `closed_at_end`."""
    if _round_line_out_of_shape().search(text, start - 1, end) is not None:
        return False
    rounds = text[start:end].split("\n###")
    if not closed_at_end and "\n- Frontier after round:" not in rounds[-1]:
        rounds.pop()  # still open: nothing says it must have the closing keys yet
    return all(all(map(contains, rounds, repeat(f"\n- {key}:"))) for key in CLOSING_KEYS)


@cache
def _tree_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a line out of shape, an Options entry without 2-4 options)."""
    ids = rf"{ID_PATTERN}(?:[ \t]*,[ \t]*{ID_PATTERN})*"
    refs = rf"- Depends on:[ \t]+(?:{ids}|(?i:none|n/a|-))[^\S\n]*" \
           rf"|- Spawned by:[ \t]+(?:{ID_PATTERN}|(?i:none|n/a|-))[^\S\n]*"
    plain = _keys([k for k in NODE_KEYS if k not in ("Depends on", "Spawned by")])
    line = rf"###[ \t]+{ID_PATTERN}[ \t]*:[^\n]*|{refs}|- (?:{plain}):{_VALUE}|{_CHILD}|{_BLANK}"
    option = rf"\n(?:{_BLANK}\n)*{_CHILD}"
    return (re.compile(rf"\n(?!(?:{line})(?:\n|\Z))"),
            re.compile(rf"\n- Options:[^\n]*(?=\n|\Z)"
                       rf"(?!(?:{option}){{{MIN_OPTIONS},{MAX_OPTIONS}}}(?!{option}))"))


_RECOMMENDED_LINE = re.compile(r"\n[ \t>][^\n]*?(?i:\(recommended\))")
_RECOMMENDED_FIRST = re.compile(
    rf"\n- Options:[^\n]*\n(?:{_BLANK}\n)*[ \t>][^\n]*?(?i:\(recommended\))")
# The value of each `Depends on`/`Spawned by` line that names IDs (not `none`, `n/a`, `-`)
_REFERENCES = re.compile(r"\n- (?:Depends on|Spawned by):[ \t]+"
                         r"(?!(?i:none|n/a|-)[^\S\n]*(?:\n|\Z))([^\n]*)")
# Keys read once per node: the checks read every one, the frontier the first
_ONCE = ("\n- Depends on:", "\n- Spawned by:", "\n- Options:")


def tree_in_shape(text: str, start: int, end: int, ids: set[str]) -> bool:
    """Whether the design tree's nodes in text[start:end] (`start` is the first node
    heading's offset) are silent under the exact per-node checks, `ids` being the tree's
    node IDs: every `###` a node, known keys only, each of `Depends on`, `Spawned by` and
    `Options` at most once per node, 2-4 options with `(Recommended)` only on the first,
    and every reference an ID of the tree. Duplicate IDs and loops are checked apart."""
    line, options = _tree_patterns()
    if line.search(text, start - 1, end) is not None or \
            options.search(text, start - 1, end) is not None:
        return False
    nodes = text[start:end].split("\n###")
    if any(max(map(str.count, nodes, repeat(key))) > 1 for key in _ONCE):
        return False
    if len(_RECOMMENDED_LINE.findall(text, start - 1, end)) != \
            len(_RECOMMENDED_FIRST.findall(text, start - 1, end)):
        return False
    named = [name.strip() for name in ",".join(_REFERENCES.findall(text, start - 1, end))
             .rstrip().split(",")]
    return set(named) <= ids if named != [""] else True
