"""What the log says about the interview now open: its blocks, and whether quick mode was
authorized (the gate and `validate` both ask)."""

from __future__ import annotations

from mdgrill.formats.progress import Block, Progress, split_ids
from mdgrill.formats.schema import TERMINAL, is_id

# A block after which a phase's next round starts a new interview (after `imported`, the
# history another tool recorded: mdgrill's own interview of the phase starts there).
NEW_INTERVIEW = frozenset({"confirmed", "bypassed", "reset", "reopened", "imported"})


def quick_authorized(prog: Progress) -> bool:
    """Whether the log's last Mode block is the exact `--quick` authorization."""
    for block in reversed(prog.blocks):
        if block.kind == "mode":
            return (block.first("Mode") or "").strip() == "quick"
    return False


def interview_blocks(blocks: list[Block], phase: str) -> list[Block]:
    """Of the log's `blocks`, those of the interview now open for `phase` (since its last
    Confirmed, Bypassed or Reset block)."""
    start = 0
    for index, block in enumerate(blocks):
        if block.phase == phase and block.kind in NEW_INTERVIEW:
            start = index + 1
    return [b for b in blocks[start:] if b.phase == phase]


def record_blocks(blocks: list[Block], phase: str, terminal: bool) -> list[Block]:
    """The blocks of the interview the record holds: the open one's (`interview_blocks`), or,
    once it is terminal, those up to the Confirmed or Bypassed block that closed it."""
    end = len(blocks)
    if terminal:
        end = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i].phase == phase
                    and blocks[i].kind in ("confirmed", "bypassed")), -1)
        if end < 0:
            return []
    return interview_blocks(blocks[:end], phase)


# The key a round writes for an asked ID that is no node of the design tree (a decision kept
# elsewhere): the one way an asked ID may lack a node.
KEPT_ELSEWHERE = "Kept elsewhere"


class AskedGap:
    """An ID a round asked that now has no outcome, or no node, and where it was asked.
    (A plain class, not a NamedTuple: typing's import would cost every verb 3 ms.)"""

    __slots__ = ("code", "node_id", "round", "line")

    def __init__(self, code: str, node_id: str, round: int | None, line: int) -> None:
        self.code = code  # ASKED_WITHOUT_OUTCOME or ASKED_NODE_MISSING
        self.node_id = node_id
        self.round = round
        self.line = line  # 0-based line of the `- Asked:` entry that asked it


def asked_gaps(prog: Progress, iv: dict[str, object]) -> list[AskedGap]:
    """Every ID the interview's rounds asked that has neither an outcome in the log (an
    answer, a fact, out of scope, a skip's default: the ledger's) nor a place in `pending:`,
    and every asked ID whose node left the design tree (issue 31.5: an asked decision cannot
    vanish). One pass over the `Asked` lines; the ledger is the one the frontier read."""
    phase = iv.get("phase")
    if not isinstance(phase, str):
        return []
    blocks = record_blocks(prog.blocks, phase, iv.get("status") in TERMINAL)
    asked, rounds = _asked_ids(blocks)
    if not asked:
        return []
    from mdgrill.model.tree import ledger_of  # the gate's checks; begin reads no ledger

    ledger = ledger_of(prog)
    pending = iv.get("pending")
    waiting = set(pending) if isinstance(pending, list) else set()
    missing = set(asked).difference(ledger.answers, ledger.out_of_scope, waiting)
    nodes = prog.node_ids()
    # a spec whose tree holds no node keeps all its decisions elsewhere (logs written by
    # hand or by other tools); in a tree, an asked ID without a node must say so
    loose = set(asked).difference(nodes) if nodes else set()
    if loose:  # a decision kept elsewhere says so on its round's line
        for block in rounds:
            for entry in block.get(KEPT_ELSEWHERE):
                loose.difference_update(split_ids(entry.value))
    gaps: list[AskedGap] = []
    for node_id, (number, line) in asked.items():
        if node_id in missing:
            gaps.append(AskedGap("ASKED_WITHOUT_OUTCOME", node_id, number, line))
        if node_id in loose and is_id(node_id):
            gaps.append(AskedGap("ASKED_NODE_MISSING", node_id, number, line))
    return gaps


def _asked_ids(blocks: list[Block]) -> tuple[dict[str, tuple[int | None, int]], list[Block]]:
    """ID -> (round, 0-based line) of the `Asked` line that first asked it (since any
    reopening), and the rounds."""
    asked: dict[str, tuple[int | None, int]] = {}
    rounds: list[Block] = []
    for block in blocks:
        kind = block.kind
        if kind == "round":
            rounds.append(block)
            for entry in block.entries:
                key = entry.key  # "Asked" as written; any case as typed (no lower() per line)
                if key == "Asked" or (key[:1] in "aA" and key.lower() == "asked"):
                    for node_id in split_ids(entry.value):
                        if node_id not in asked:
                            asked[node_id] = (block.round, entry.line)
        elif kind == "revised":  # reopened: asked anew (a later Asked line) or open again
            for entry in block.get("Reopened"):
                for node_id in split_ids(entry.value):
                    asked.pop(node_id, None)
    return asked, rounds


# Blocks after which a phase's next interview counts its rounds from 1 again. A Reset is not
# one: the interview after it goes on counting, so no round number of the phase repeats.
_NEW_COUNT = frozenset({"confirmed", "skipped", "bypassed", "reopened", "imported"})


def first_round(blocks: list[Block], phase: str,
                restart: frozenset[str] = _NEW_COUNT) -> int:
    """The round a new interview of `phase` begins at: one past the phase's last round, or 1
    after an approval, a reopening or an import (`restart`: the blocks after which counting
    starts again; a Reset is not one of them, so round numbers never repeat)."""
    number = 0
    for block in blocks:
        if block.phase != phase:
            continue
        if block.kind == "round" and block.round is not None:
            number = block.round
        elif block.kind in restart:
            number = 0
    return number + 1


def settled_in(blocks: list[Block], phase: str) -> dict[str, str]:
    """What the open interview of `phase` settled: ID -> its answer, in the order the log
    settled them, then the IDs placed out of scope (`(out of scope)`)."""
    from mdgrill.model.tree import read_ledger

    ledger = read_ledger(interview_blocks(blocks, phase))
    found = {i: ledger.answers[i] for i in ledger.order if i in ledger.answers}
    for node_id in sorted(ledger.out_of_scope):
        found.setdefault(node_id, "(out of scope)")
    return found
