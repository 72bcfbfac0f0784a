"""The log's blocks: their headings and numbering, each round's structure, unknown keys."""

from __future__ import annotations

from operator import attrgetter, itemgetter

from mdgrill.checks.spec.keys import (
    BLOCK_KEYS,
    BLOCK_KEYS_LOWER,
    CLOSES_ROUND,
    CLOSING_KEYS,
    NEW_SEQUENCE,
)
from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.formats.progress import Block, Progress
from mdgrill.model.interview import first_round
from mdgrill.model.tree import split_decision

_ROUND_KEYS = BLOCK_KEYS_LOWER["round"]
_KEY_LOWER = attrgetter("key_lower")  # an entry's key, read in C: no frame a round
_ROW_KEY = itemgetter(0)  # a bullet row's key (`Progress.read_log_rows`), the same in C
_CLOSING_LOWER = frozenset(k.lower() for k in CLOSING_KEYS)

# ---------------------------------------------------------------------------------------
# Blocks of the log


def check_blocks(prog: Progress) -> list[Diagnostic]:
    """Structure of every block; a sealed log needs only its headings checked.

    mdgrill writes only well-formed blocks and seals the log with their digest, so while the
    digest matches, the bullets of 10,000 recorded rounds need no second reading (the
    numbering and kinds of their headings are still checked). In a log nobody sealed,
    every block is read.
    """
    path = prog.path
    blocks = prog.blocks
    out = _check_headings(path, blocks)
    if prog.log_seal() is True:  # as mdgrill wrote them
        return out
    # each block's bullets as read from the log's tokens (no entry made; read once, and
    # the ledger reads the same)
    rows = prog.read_log_rows()
    shapes = _SHAPES
    # the last round's keys and where its decisions are (_SHAPES' answer for them)
    last_keys: tuple[str, ...] | None = None
    last_decisions: tuple[int, ...] | None = None
    for index, block in enumerate(blocks):
        kind = block.kind
        if kind == "round":
            if block.phase is None:
                continue
            bullets, plain = rows[index]
            if plain:
                keys = tuple(map(_ROW_KEY, bullets))
                if keys != last_keys:  # a run of rounds of one shape: looked up once
                    decisions = shapes.get(keys, _UNSEEN)
                    if decisions is _UNSEEN:
                        decisions = _whole_round(keys)
                    last_keys, last_decisions = keys, decisions
                else:
                    decisions = last_decisions
                if decisions is not None:
                    # a round as mdgrill writes it (opened by its Asked line, the five
                    # closing keys, none unknown, no stray line): `_check_round` has only
                    # its decisions' arrows to look at
                    for at in decisions:
                        _, value, line = bullets[at]
                        if "->" not in value:  # as `_decision_format` tests first
                            _decision_format(path, value, line, out)
                    continue
            nxt = blocks[index + 1].kind if index + 1 < len(blocks) else None
            out.extend(_check_round(path, block, nxt))
        elif kind in BLOCK_KEYS and block.phase is not None:
            out.extend(_check_transition(path, block))
    return out


_WHOLE_ROUND = frozenset({"asked", *_CLOSING_LOWER})
# The keys of a round's bullets, in order (a few shapes in 10,000 rounds) -> where its
# `Decisions` bullets are when they make a whole round, else None: each shape is looked at
# once, not each round. Bounded, so a log of made-up keys cannot grow it.
_SHAPES: dict[tuple[str, ...], tuple[int, ...] | None] = {}
_UNSEEN: tuple[int, ...] = (-1,)  # a shape not looked at yet


def _whole_round(keys: tuple[str, ...]) -> tuple[int, ...] | None:
    """Where the `Decisions` bullets are among a round's keys (lowered, in order), when they
    are those of a round as mdgrill writes it: opened by its Asked line, the five closing
    keys present, none unknown; else None."""
    present = set(keys)
    found = tuple(at for at, key in enumerate(keys) if key == "decisions") \
        if keys and keys[0] == "asked" and present.issuperset(_WHOLE_ROUND) and \
        _ROUND_KEYS.issuperset(present) else None
    if len(_SHAPES) < 512:
        _SHAPES[keys] = found
    return found


def _decision_format(path: str, value: str, line: int, out: list[Diagnostic]) -> None:
    """A `Decisions:` line with no arrow of split_decision's (a test in C)."""
    if "->" not in value and "→" not in value and value.strip().lower() != "none":
        out.append(warning(path, line + 1, "DECISION_FORMAT",
                           f"`Decisions: {value}` has no `->`: write one decision per "
                           "line as `<ID> -> <answer>`"))


def _check_headings(path: str, blocks: list[Block]) -> list[Diagnostic]:
    """What a block's heading alone can get wrong: its kind, and the numbering of rounds
    (1, 2, 3… per phase; a Confirmed, Skipped, Bypassed or Reopened block starts a new count;
    after a Reset the count goes on, or, in logs written before it did, starts again)."""
    out: list[Diagnostic] = []
    last_round: dict[str, int] = {}
    # after a Reset the next interview counts on (round numbers never repeat), or, as logs
    # written before it did, from 1
    carried: dict[str, int] = {}
    ours = False  # an mdgrill block came before: notes above the first are history
    # the block before, when it is a round of a phase with a number (else its phase is
    # None): after it, its phase's count is at its number and nothing is carried for that
    # phase, so the next round of that phase, numbered on, has nothing to say but its
    # number. Its count is written to last_round when a block not so comes, the first to
    # read it (a run of 10,000 rounds numbered on writes it once).
    after_phase: str | None = None
    after_number = 0
    for block in blocks:
        kind, phase, number = block.kind, block.phase, block.round
        if kind == "round" and phase == after_phase and number == after_number + 1 and \
                phase is not None:
            after_number = number
            continue
        if after_phase is not None:
            last_round[after_phase] = after_number
        if kind == "round" and phase is not None and number is not None:
            after_phase, after_number = phase, number
        else:
            after_phase = None
        if kind == "unknown" and not ours:
            continue  # an imported log's own notes (smart-ralph's `### Grill-Me Source`, …)
        ours = ours or kind in BLOCK_KEYS
        if kind == "unknown" or (kind in BLOCK_KEYS and phase is None):
            out.append(warning(path, block.line + 1, "UNKNOWN_BLOCK",
                               f"`### {block.title}` is not a block mdgrill knows: rounds are "
                               "`### <Phase> Grill - Round <N>`, transitions `### <Phase> Grill "
                               "- Awaiting Confirmation|Confirmed|Revised|Skipped|Bypassed`; "
                               "move other notes out of Interview Responses"))
        elif kind == "round":
            went_on = carried.pop(phase, None) if phase is not None and carried else None
            if phase is not None and number is not None and (
                    number == last_round.get(phase, 0) + 1 or number == (went_on or -1) + 1):
                last_round[phase] = number  # the next round, as nearly always: nothing to say
            else:
                out.extend(_check_round_number(path, phase, number, block.line, last_round))
        elif kind in NEW_SEQUENCE and phase is not None:
            before = last_round.pop(phase, None)
            # a Skipped block awaits approval, and a `revise` then goes on with the same
            # interview: its next round may count on, as after a Reset
            if kind not in ("reset", "skipped"):
                carried.pop(phase, None)
            elif before is not None:
                carried[phase] = before
    return out


def next_round(blocks: list[Block], phase: str) -> int:
    """The number a new round of `phase` takes, by the rule `_check_headings` holds rounds to:
    1, 2, 3… counted again from 1 after a block that starts a new count."""
    return first_round(blocks, phase, NEW_SEQUENCE)


def _check_round(path: str, block: Block, next_kind: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    entries = block.entries
    present = set(map(_KEY_LOWER, entries))
    if "asked" not in present:
        # smart-ralph's rounds have no Asked line; read them, but say what mdgrill expects
        out.append(warning(path, block.line + 1, "ROUND_NO_ASKED",
                           f"round {block.round} has no `- Asked:` line: read as a smart-ralph "
                           "round; mdgrill's rounds open with `- Asked: <IDs>` "
                           "(`mdgrill open-frontier` writes it)"))
        return out
    if entries[0].key_lower != "asked":
        first = entries[0]
        out.append(error(path, first.line + 1, "ROUND_STRUCTURE",
                         f"round {block.round} must open with its `- Asked:` line, but its first "
                         f"line is `{first.key}:`: restore the round from git (`mdgrill "
                         "restore`); rounds are append-only"))
    closed = "frontier after round" in present or next_kind in CLOSES_ROUND
    if closed and not present.issuperset(_CLOSING_LOWER):
        missing = [k for k in CLOSING_KEYS if k.lower() not in present]
        out.append(error(path, block.line + 1, "ROUND_INCOMPLETE",
                         f"round {block.round} is closed but lacks "
                         f"{', '.join('`' + k + ':`' for k in missing)}: a closed round "
                         "records all five (`none` where there is nothing); record a "
                         "correction in a new round"))
    if not _ROUND_KEYS.issuperset(present):
        out.extend(_unknown_keys(path, block, "round"))
    if "decisions" in present:
        for entry in entries:
            if entry.key_lower == "decisions":
                _decision_format(path, entry.value, entry.line, out)
    if block._stray:  # read with the entries above
        out.extend(_stray(path, block))
    return out


def _decision_pair(value: str) -> tuple[str, str] | None:
    return split_decision(value)


def _check_round_number(path: str, phase: str | None, number: int | None, line: int,
                        last_round: dict[str, int]) -> list[Diagnostic]:
    if phase is None or number is None:
        return []
    prev = last_round.get(phase)
    last_round[phase] = number
    if prev is None:
        if number != 1:
            return [warning(path, line + 1, "ROUND_NUMBER",
                            f"the {phase} rounds start at round {number}, not 1 (an interview "
                            "begun with `--round`?): check that no round is missing")]
        return []
    if number == prev:
        return [error(path, line + 1, "ROUND_NUMBER",
                      f"round {number} of {phase} appears twice: number rounds 1, 2, 3… per "
                      "phase; record a correction as the next round")]
    if number != prev + 1:
        what = "skips" if number > prev else "goes back from"
        return [error(path, line + 1, "ROUND_NUMBER",
                      f"round {number} of {phase} {what} round {prev}: the next round is "
                      f"{prev + 1} (rounds go 1, 2, 3… per phase; a Confirmed, Skipped or "
                      "Bypassed block starts a new count, after a Reset it goes on)")]
    return []


def _check_transition(path: str, block: Block) -> list[Diagnostic]:
    known = BLOCK_KEYS_LOWER[block.kind]
    if block.entries and not any(e.key_lower in known for e in block.entries):
        return []  # smart-ralph's own form (`Shared understanding: confirmed` ...): accepted
    return _unknown_keys(path, block, block.kind) + _stray(path, block)


def _unknown_keys(path: str, block: Block, kind: str) -> list[Diagnostic]:
    known = BLOCK_KEYS_LOWER[kind]
    out: list[Diagnostic] = []
    for entry in block.entries:
        if entry.key_lower not in known:
            out.append(warning(path, entry.line + 1, "UNKNOWN_BLOCK_KEY",
                               f"`{entry.key}:` is not a key of a {_KIND_NAME[kind]} block "
                               f"(known: {', '.join(BLOCK_KEYS[kind])}): check the spelling"))
    return out


_KIND_NAME = {"cancelled": "Cancelled", "mode": "Mode",
              "round": "round", "awaiting": "Awaiting Confirmation", "confirmed": "Confirmed",
              "revised": "Revised", "skipped": "Skipped", "bypassed": "Bypassed",
              "reset": "Reset", "bound": "Bound", "reaffirmed": "Reaffirmed",
              "reopened": "Reopened", "amended": "Amended", "imported": "Imported"}
# every kind of block whose keys are checked has its name: an unknown key in one is a
# warning, never a KeyError (an Amended block's stray key crashed `validate` once)
assert _KIND_NAME.keys() >= BLOCK_KEYS.keys()


def _stray(path: str, block: Block) -> list[Diagnostic]:
    return [warning(path, line + 1, "STRAY_LINE",
                    f"`{_clip(text)}` is not a `- Key: value` line of this block: mdgrill "
                    "ignores it; write it as a bullet or move it out of Interview Responses")
            for line, text in block.stray]


def _clip(text: str, width: int = 40) -> str:
    text = text.strip()
    return text if len(text) <= width else text[:width - 1] + "…"
