"""The design tree's derived state: node status from the log, the frontier, batches, readiness."""

from __future__ import annotations

import re
from functools import cache
from itertools import chain, filterfalse

from mdgrill.formats.progress import LOG, Block, BulletRow, Node, Progress, split_ids
from mdgrill.formats.schema import ID_RE, is_id

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
    from typing import TypedDict
    from weakref import WeakKeyDictionary

    class FrontierView(TypedDict):
        """`Frontier` as `frontier` and `status` report it."""

        frontier: list[str]
        batches: list[list[str]]
        blocked: dict[str, list[str]]
        investigating: list[str]
        ready: bool
        open: list[str]
        stop_question: bool
        unresolved_sections: list[str]
        open_subthreads: dict[str, list[str]]

OPEN = "OPEN"
RESOLVED = "RESOLVED"
OUT_OF_SCOPE = "OUT_OF_SCOPE"
INVESTIGATING = "INVESTIGATING"
BATCH_SIZE = 4


def prerequisites(node: Node) -> list[str]:
    """What a node waits for: its `Depends on` IDs and the parent it was spawned by."""
    parent = node.spawned_by
    return [*node.depends_on, parent] if parent else node.depends_on


# "State the recommendation rationale and the material tradeoff in the question or option
# description." (the interview-framework skill): what a node asked as a choice should carry
STATE_WHY = ("\"State the recommendation rationale and the material tradeoff in the question "
             "or option description\"")


def unexplained(node: Node) -> list[tuple[str, str]]:
    """(code, message) for what a node asked as a choice does not say: no rationale (a
    `Rationale:`, or the older `Recommendation:` that carried it) and no tradeoff
    (`Tradeoffs:`). An option's own description may carry them, which cannot be told from
    its text: so the gate asks such a node and says so, and `validate` warns."""
    out: list[tuple[str, str]] = []
    if not (node.first("Rationale") or node.first("Recommendation")):
        out.append(("NODE_RATIONALE_MISSING",
                    f"{node.id} is asked with no rationale: add `- Rationale: why the "
                    f"recommended option` under its heading ({STATE_WHY})"))
    if not node.first("Tradeoffs"):
        out.append(("NODE_TRADEOFF_MISSING",
                    f"{node.id} is asked with no tradeoff: add `- Tradeoffs: what choosing "
                    f"it costs` under its heading ({STATE_WHY})"))
    return out


def split_decision(value: str) -> tuple[str, str] | None:
    """`D1 -> answer` -> (D1, answer); None when the line has no arrow."""
    for arrow in (" -> ", " → ", "->", "→"):
        left, sep, right = value.partition(arrow)
        if sep:
            return left.strip(), right.strip()
    return None


def fact_id(value: str) -> str | None:
    """The node a `Facts resolved:` line names (`D2 -> ...` or `D2: ...`), if any."""
    pair = split_decision(value)
    if pair is not None and is_id(pair[0]):
        return pair[0]
    head, sep, _ = value.partition(":")
    if sep and is_id(head.strip()):
        return head.strip()
    return None


class Settled:
    """Which IDs the log has settled: answered, or out of scope (all the frontier reads)."""

    def __init__(self, answered: Collection[str], out_of_scope: set[str]) -> None:
        self.answered = answered
        self.out_of_scope = out_of_scope

    def status(self, node: Node) -> str:
        return self.settled_status(node.id) or (INVESTIGATING if node.investigating else OPEN)

    def settled_status(self, node_id: str) -> str | None:
        """RESOLVED or OUT_OF_SCOPE, as the log settled this ID; None while it is open (its
        node's bullets tell whether it is being investigated)."""
        if node_id in self.out_of_scope:
            return OUT_OF_SCOPE
        if node_id in self.answered:
            return RESOLVED
        return None


class Ledger(Settled):
    """What the log says about each ID: its answer, out-of-scope marks, where it happened."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}
        super().__init__(self.answers, set())
        self.amended: dict[str, str] = {}  # ID -> the wording it had before its last amendment
        # ID -> the value a skip defaulted it to (its recommended option's label); a Skipped
        # block written before defaults were recorded names the IDs alone
        self.defaults: dict[str, str] = {}
        self._lines: dict[str, int] = {}

    @property
    def order(self) -> list[str]:
        """The IDs in the order they were first settled: `_lines`' keys, in the order they
        were put there (an ID's line is set whenever it is settled, added the first time,
        never dropped: a reopened ID keeps its place), so no list is kept beside it."""
        return list(self._lines)

    @property
    def answer_line(self) -> dict[str, int]:
        """0-based line of the answer that settled each ID."""
        return self._lines


def read_ledger(blocks: list[Block],
                rows: Sequence[tuple[list[BulletRow], bool]] | None = None) -> Ledger:
    """`rows`: the blocks' bullets as `Progress.read_log_rows` read them from the log's
    tokens, one item a block (a round's answers are read from these, no entry made)."""
    ledger = Ledger()
    # the rounds' bullets since the last block of another kind that the ledger reads, read
    # in one call when that block comes (or the log ends): in order, as block by block,
    # without a call a round
    rounds: list[list[BulletRow]] = []
    for index, block in enumerate(blocks):
        kind = block.kind
        if kind == "round":
            rounds.append(rows[index][0] if rows is not None else
                          [(e.key_lower, e.value, e.line) for e in block.entries])
            continue
        if kind not in _READ_KINDS:
            continue
        if rounds:
            _read_round(ledger, chain.from_iterable(rounds))
            rounds = []
        if kind == "amended":
            _read_amended(ledger, block)
        elif kind == "revised" or kind == "reset":
            # a revise, or a reset for a new context, reopens what it names
            for entry in block.get("Reopened"):
                for node_id in split_ids(entry.value):
                    ledger.answers.pop(node_id, None)
                    ledger.defaults.pop(node_id, None)
                    ledger.out_of_scope.discard(node_id)
        elif kind == "skipped":
            _read_defaulted(ledger, block)
    if rounds:
        _read_round(ledger, chain.from_iterable(rounds))
    return ledger


# The kinds of block besides rounds that `read_ledger` reads
_READ_KINDS = frozenset({"amended", "revised", "reset", "skipped"})


# The keys of a round the ledger reads besides `Decisions`, which is tried first (a round's
# other lines say nothing about answers).
_LEDGER_KEYS = frozenset({"facts resolved", "out of scope", "amended"})


def _read_round(ledger: Ledger, bullets: Iterable[BulletRow]) -> None:
    """The answers of rounds' bullets (one round's, or several in a row)."""
    # `_settle`'s steps written out, and `split_decision`'s first arrow tried here: this
    # runs once per answer of the log (10,000 of them at 10,000 decisions). An ID of ASCII
    # letters and digits that starts with a letter (`isalnum`, `isascii`, and `>= "A"`,
    # which a string starting with a digit is not) is one ID_RE matches and `strip` leaves
    # as it is: such an ID, as nearly every ID is written, is taken without either (a
    # regex match cost twice those three tests); any other is read as before.
    answers, lines = ledger.answers, ledger._lines
    out_of_scope = ledger.out_of_scope
    id_match = ID_RE.match
    others = _LEDGER_KEYS
    for key, value, line in bullets:
        if key == "decisions":
            node_id, sep, answer = value.partition(" -> ")
            if sep and node_id.isalnum() and node_id.isascii() and node_id >= "A":
                answer = answer.strip()
            else:
                pair = (node_id.strip(), answer.strip()) if sep else split_decision(value)
                if pair is None or id_match(pair[0]) is None:
                    continue
                node_id, answer = pair
        elif key not in others:
            continue
        elif key == "facts resolved":
            # `ID -> text`, as fact_id reads it first (its other forms asked of it)
            node_id, sep, _ = value.partition(" -> ")
            if not (sep and node_id.isalnum() and node_id.isascii() and node_id >= "A"):
                node_id = node_id.strip()
                if not sep or id_match(node_id) is None:
                    found = fact_id(value)
                    if found is None:
                        continue
                    node_id = found
            answer = value
        elif key == "out of scope":
            if value != "none":  # as mdgrill writes a round that put nothing out of scope
                _put_out_of_scope(ledger, value)
            continue
        else:
            _amend(ledger, value)
            continue
        # node_id is an ID here (each way above tested it); its line, set, puts it in the
        # ledger's order the first time (an ID answered before keeps its place)
        answers[node_id] = answer
        lines[node_id] = line
        if out_of_scope:  # most logs put nothing out of scope: no call to discard nothing
            out_of_scope.discard(node_id)


def _put_out_of_scope(ledger: Ledger, value: str) -> None:
    """What an `Out of scope:` line of a round settles: the IDs it lists, their answers
    dropped."""
    for node_id in split_ids(value):
        if ID_RE.match(node_id) is not None:
            ledger.out_of_scope.add(node_id)
            ledger.answers.pop(node_id, None)


def _read_amended(ledger: Ledger, block: Block) -> None:
    for entry in block.get("Amended"):
        _amend(ledger, entry.value)


def _amend(ledger: Ledger, value: str) -> None:
    """`ID -> corrected wording`: the answer reads so from here on; the ID stays settled
    where it was (an amendment corrects words, it answers nothing)."""
    pair = split_decision(value)
    if pair is None or pair[0] not in ledger.answers:
        return
    node_id, text = pair
    old = ledger.answers[node_id]
    ledger.amended.setdefault(node_id, old)
    # a fact keeps its `ID -> ` form, as `Facts resolved: ID -> text` is stored whole
    ledger.answers[node_id] = value if old.startswith(f"{node_id} -> ") else text


def _read_defaulted(ledger: Ledger, block: Block) -> None:
    for entry in block.get("Defaulted"):
        for node_id in split_ids(entry.value):
            if is_id(node_id):
                _settle(ledger, node_id, DEFAULTED_ANSWER, entry.line)
    for entry in block.get("Default"):  # `Default: ID -> value`, one per defaulted decision
        pair = split_decision(entry.value)
        if pair is not None and ledger.answers.get(pair[0]) == DEFAULTED_ANSWER:
            ledger.defaults[pair[0]] = pair[1]


# What a node defaulted by a bare skip reads as: the skip's assumptions stand for it.
DEFAULTED_ANSWER = "(defaulted by skip: see the Skipped block's assumptions)"


def ledger_of(prog: Progress) -> Ledger:
    """The ledger of a spec: `read_ledger`'s rules over the log's blocks, read once per
    parsed file (a verb asks for it more than once: the frontier, then the round's close)."""
    ledgers = _ledgers()
    ledger = ledgers.get(prog)
    if ledger is None:
        # from the rows `validate` read from the log's tokens, when it did (no entries made)
        rows = prog.log_rows()
        if rows is None:
            prog.read_log_bullets()  # every block is read: in one pass, not a call per block
        ledger = ledgers[prog] = read_ledger(prog.blocks, rows)
    return ledger


@cache
def _ledgers() -> WeakKeyDictionary[Progress, Ledger]:
    """The ledger read for each parsed file still in use. A parsed file is never edited in
    place (a write makes a new one), so its ledger holds. Made on first use: weakref's import
    is 1% of a verb that reads no ledger (record-answer, begin-interview)."""
    from weakref import WeakKeyDictionary

    return WeakKeyDictionary()


def carry_ledger(prog: Progress, earlier: Progress) -> bool:
    """Give `prog` the ledger read for `earlier` (an earlier version of the same file) when
    its log is the same text on the same lines: the ledger is a function of the log's blocks
    and their lines (the language server's revalidation, typing in the tree)."""
    ledger = _ledgers().get(earlier)
    moved = prog.section_moved(earlier, LOG)
    if ledger is None or moved is None or moved[0] != 0:
        return False
    _ledgers()[prog] = ledger
    return True


def _settle(ledger: Ledger, node_id: str, answer: str, line: int) -> None:
    ledger.answers[node_id] = answer
    ledger._lines[node_id] = line
    ledger.out_of_scope.discard(node_id)


class Frontier:
    """Unblocked open nodes, their batches, blocked nodes with their blockers, readiness."""

    def __init__(self) -> None:
        self.frontier: list[str] = []
        self.batches: list[list[str]] = []
        self.blocked: dict[str, list[str]] = {}
        self.investigating: list[str] = []
        self.ready = False
        self.stop_question = False
        self.open: list[str] = []  # every node neither resolved nor out of scope
        self.unresolved_sections: list[str] = []
        self.open_subthreads: dict[str, list[str]] = {}
        self._statuses: dict[str, str] | None = {}
        # while the statuses are not made: the node IDs, every one of them answered (none out
        # of scope, so each is RESOLVED), and the answered IDs (see `status_of`)
        self._resolved: tuple[Sequence[str], Collection[str]] = ((), ())
        self._looked_for = 0

    @property
    def statuses(self) -> dict[str, str]:
        """Each node ID's status (an ID of two nodes: its last node's)."""
        if self._statuses is None:
            self._statuses = dict.fromkeys(self._resolved[0], RESOLVED)
        return self._statuses

    @statuses.setter
    def statuses(self, statuses: dict[str, str]) -> None:
        self._statuses = statuses

    def all_resolved(self, ids: Sequence[str], answered: Collection[str]) -> None:
        """Every node of these IDs is answered and none is out of scope: each is RESOLVED,
        its status made when asked for (a verb asking about two IDs of a finished
        10,000-node tree makes no 10,000 statuses)."""
        self._statuses = None
        self._resolved = (ids, answered)

    def status_of(self, node_id: str) -> str | None:
        """`statuses.get(node_id)`: None for an ID no node has. While the statuses are not
        made, an ID the settled set did not answer is no node's (each node's is answered),
        and one it answered is looked for among the IDs, a few times (each a pass over
        them), then the statuses are made."""
        if self._statuses is not None:
            return self._statuses.get(node_id)
        ids, answered = self._resolved
        if node_id not in answered:
            return None
        self._looked_for += 1
        if self._looked_for > _LOOKS:
            return self.statuses.get(node_id)
        return RESOLVED if node_id in ids else None

    def to_json(self) -> FrontierView:
        return {"frontier": self.frontier, "batches": self.batches, "blocked": self.blocked,
                "investigating": self.investigating, "ready": self.ready,
                "open": self.open, "stop_question": self.stop_question,
                "unresolved_sections": self.unresolved_sections,
                "open_subthreads": self.open_subthreads}


def compute_frontier(nodes: Sequence[Node], ledger: Settled,
                     required_sections: list[str], group_by_section: bool = False) -> Frontier:
    """The frontier of a tree. A settled node's bullets are read only for its section, and
    only when sections are required: with 10,000 nodes answered, the few open ones are read."""
    return _frontier([n.id for n in nodes], nodes.__getitem__, ledger, required_sections,
                     group_by_section)


def _frontier(ids: Sequence[str], node_at: Callable[[int], Node], ledger: Settled,
              required_sections: list[str], group_by_section: bool) -> Frontier:
    """`compute_frontier` of the nodes with these IDs, `node_at(i)` the `i`th: a settled
    node is not asked for unless sections are required (then for its section)."""
    result = Frontier()
    answered, out_of_scope = ledger.answered, ledger.out_of_scope
    if not out_of_scope and not required_sections and _holds_all(answered, ids):
        # every node answered, none out of scope, no section required (a finished
        # interview): what the steps below make of it, no node open, told at once
        result.all_resolved(ids, answered)
        result.stop_question = result.ready = True
        return result
    statuses, any_open = _statuses(ids, node_at, answered, out_of_scope)
    result.statuses = statuses
    settled = {RESOLVED, OUT_OF_SCOPE}

    def is_settled(node_id: str) -> bool:
        return statuses.get(node_id) in settled or node_id in ledger.answered \
            or node_id in ledger.out_of_scope

    # a duplicated ID (an error of its own) is listed once: its first node, where its last is
    places: Sequence[int] = range(len(ids)) if len(statuses) == len(ids) else \
        list({ids[i]: i for i in reversed(range(len(ids)))}.values())[::-1]
    # an ID's status is its own, whichever of its nodes: with none open, no node is
    unsettled = [node_at(i) for i in places if statuses[ids[i]] not in settled] \
        if any_open else []
    ready: list[Node] = []
    for node in unsettled:
        status = statuses[node.id]
        if status == INVESTIGATING:
            result.investigating.append(node.id)
            continue
        blockers = [d for d in node.depends_on if not is_settled(d)]
        parent = node.spawned_by
        if parent is not None and not is_settled(parent) and parent not in blockers:
            blockers.append(parent)
        if blockers:
            result.blocked[node.id] = blockers
        else:
            ready.append(node)
    # "If the answer spawns sub-questions, prepend them to the question queue": a sub-question
    # on the frontier has a resolved parent, so it comes from an answer not yet followed up.
    ready = [n for n in ready if n.spawned_by] + [n for n in ready if not n.spawned_by]
    result.frontier = [n.id for n in ready]
    if group_by_section:
        groups: dict[str, list[str]] = {}
        for node in ready:
            groups.setdefault(node.section or "", []).append(node.id)
        for group in groups.values():
            result.batches.extend(_chunks(group))
    else:
        result.batches = _chunks(result.frontier)
    for node in unsettled:
        parent = node.spawned_by
        if parent is not None and statuses.get(parent) == RESOLVED:
            result.open_subthreads.setdefault(parent, []).append(node.id)
    if required_sections:
        resolved_sections = {(node_at(i).section or "").strip().lower() for i in places
                             if statuses[ids[i]] == RESOLVED}
        result.unresolved_sections = [s for s in required_sections
                                      if s.strip().lower() not in resolved_sections]
    # The elicitation skill's "Ready to build?" question is due once every required section
    # has an entry and no sub-thread is open; approval also needs no node left open.
    result.stop_question = not result.unresolved_sections and not result.open_subthreads
    result.open = [n.id for n in unsettled]
    result.ready = result.stop_question and not result.open
    return result


def _statuses(ids: Sequence[str], node_at: Callable[[int], Node], answered: Collection[str],
              out_of_scope: Collection[str]) -> tuple[dict[str, str], bool]:
    """Each ID's status (an ID of two nodes: its last one's), as `Settled.status` says, and
    whether any is open (neither answered nor out of scope). Settled.settled_status written
    out (a call a node: 10,000 of them)."""
    if not out_of_scope and _holds_all(answered, ids):
        # every node answered and none out of scope (a finished interview): each is
        # RESOLVED, what the loop below says of each one, told in C
        return dict.fromkeys(ids, RESOLVED), False
    statuses: dict[str, str] = {}
    any_open = False
    for index, node_id in enumerate(ids):
        if node_id in out_of_scope:
            statuses[node_id] = OUT_OF_SCOPE
        elif node_id in answered:
            statuses[node_id] = RESOLVED
        else:
            statuses[node_id] = INVESTIGATING if node_at(index).investigating else OPEN
            any_open = True
    return statuses, any_open


# How many IDs `Frontier.status_of` looks for among a finished tree's IDs before it makes
# their statuses (a pass over 10,000 IDs is a fifteenth of making their dict)
_LOOKS = 8


def _holds_all(answered: Collection[str], ids: Iterable[str]) -> bool:
    """Whether every one of `ids` is in `answered`: a set (the settled set open-frontier
    reads) tells it in one call, with no call an ID (a ledger's answers are a dict)."""
    if isinstance(answered, (set, frozenset)):
        return answered.issuperset(ids)
    return all(map(answered.__contains__, ids))


def required_sections(data: dict[str, object]) -> list[str]:
    required = data.get("required_sections") or []
    return [str(s) for s in required] if isinstance(required, list) else []


def spec_frontier(prog: Progress, group_by_section: bool = False,
                  ledger: Settled | None = None) -> Frontier:
    """A spec's frontier: its tree's nodes, its log's ledger, its required sections."""
    settled = ledger if ledger is not None else settled_of(prog)
    result = _frontier(prog.node_ids(), prog.node_at, settled, required_sections(prog.data),
                       group_by_section)
    # kept for `frontier_ids` (open-frontier asks for it again as it closes the round): the
    # frontier's IDs are a function of the nodes and the settled set alone (neither the
    # required sections nor the grouping changes them), and neither changes: a parsed file
    # is never edited in place, and a ledger is not changed once read
    _frontiers()[prog] = (settled, tuple(result.frontier))
    return result


@cache
def _frontiers() -> WeakKeyDictionary[Progress, tuple[Settled, tuple[str, ...]]]:
    """The frontier's IDs last worked out for each parsed file still in use, with the
    settled set they were worked out from."""
    from weakref import WeakKeyDictionary

    return WeakKeyDictionary()


def frontier_ids(prog: Progress) -> list[str]:
    """`spec_frontier(prog).frontier`: what closing a round writes as `Frontier after
    round:`. The frontier worked out already from the same settled set, when it was; else
    none without reading the tree's bullets when the ledger settled every node."""
    ledger = _ledgers().get(prog) or _settled().get(prog) or ledger_of(prog)
    known = _frontiers().get(prog)
    if known is not None and known[0] is ledger:
        return list(known[1])
    answered, out_of_scope = ledger.answered, ledger.out_of_scope
    ids: Iterable[str] = prog.node_ids()
    if out_of_scope:
        ids = filterfalse(out_of_scope.__contains__, ids)
    if _holds_all(answered, ids):  # no node open: told in C, no set made
        return []
    return spec_frontier(prog, ledger=ledger).frontier


def settled_of(prog: Progress) -> Settled:
    """Which IDs the log settled (its ledger)."""
    return ledger_of(prog)


@cache
def _settled() -> WeakKeyDictionary[Progress, Settled]:
    """`log_settled`'s reading of each parsed file still in use."""
    from weakref import WeakKeyDictionary

    return WeakKeyDictionary()


# What each kind of block says about which IDs are settled, by the lowered keys of its bullets
# (`read_ledger`'s rules; an amendment changes an answer's words, never whether it is one).
_SETTLING = {"round": frozenset({"decisions", "facts resolved", "out of scope"}),
             "revised": frozenset({"reopened"}), "reset": frozenset({"reopened"}),
             "skipped": frozenset({"defaulted"})}


def log_settled(prog: Progress) -> Settled:
    """Which IDs the log settled, as `settled_of` says, for a verb that needs no more of the
    ledger (open-frontier: the frontier and the round's `Frontier after round`). Read from the
    line tokens of the blocks that settle, a run of blocks at a time (`Progress.read_runs`),
    a bullet being what `read_parts` makes an entry of (a token with a key: the key lowered,
    its value stripped, on the lines under its block's heading), without an Entry per bullet
    or an answer's text: at 10,000 decisions, a third of the ledger's reading. The ledger,
    when read already, answers instead."""
    known = _ledgers().get(prog) or _settled().get(prog)
    if known is not None:
        return known
    answered: set[str] = set()
    out_of_scope: set[str] = set()
    if prog.sections.get(LOG) is not None:
        # the settling blocks in order (a later block's bullet overrides an earlier's): a
        # stretch of plain rounds by its decisions' IDs alone, the rest from their lines'
        # tokens, a run of blocks at a time (each run's tokens let go before the next)
        lowered: dict[str, str] = {}
        text = prog.tf.text
        for blocks, plain in _stretches([b for b in prog.blocks if b.kind in _SETTLING], text):
            if plain:
                ids = _PLAIN_DECISION.findall(text, blocks[0].offset, blocks[-1].stop)
                answered.update(ids)
                out_of_scope.difference_update(ids)
                continue
            prog.read_runs(blocks, lambda tokens, base, run:
                           _settle_tokens(run, tokens, base, answered, out_of_scope, lowered))
    settled = _settled()[prog] = Settled(answered, out_of_scope)
    return settled


# A round's bullet as mdgrill writes a decision (`- Decisions: D1 -> answer`): its ID is what
# the token's value gives before its first ` -> ` (an ID of ASCII letters and digits that
# starts with a letter, as `_settle_tokens` takes it)
_PLAIN_DECISION = re.compile(r"\n- Decisions: ([A-Za-z][A-Za-z0-9]*) -> ")
# What a plain stretch of rounds holds none of: a decisions bullet written any other way (a
# key BULLET_LINE reads as `decisions` after another marker, `**`, case or blanks, or a value
# of another shape), and a `Facts resolved` or `Out of scope` bullet that is not `none`.
# Either one found (or something these patterns take for one: matched case-insensitively
# beyond ASCII, a `none` followed by other blanks) has the stretch read from its tokens. Two
# searches: as one alternation, the engine tried both at every line, a quarter slower.
_UNPLAIN_DECISION = re.compile(
    r"\n(?!- Decisions: [A-Za-z][A-Za-z0-9]* -> )[-*+][ \t]+(?:\*\*|)(?i:decisions)(?:\*\*|)"
    r"[ \t]*:(?:\*\*|)(?:[ \t]|\n|\Z)")
_UNPLAIN_SETTLED = re.compile(
    r"\n[-*+][ \t]+(?:\*\*|)(?i:facts resolved|out of scope)(?:\*\*|)[ \t]*:(?:\*\*|)"
    r"(?![ \t]+none[ \t]*(?:\n|\Z))")


def _stretches(blocks: list[Block], text: str) -> Iterator[tuple[list[Block], bool]]:
    """The settling blocks in order, in stretches: each one either rounds next to each other
    whose lines hold only plain decisions among their settling bullets (True: what they
    settle is their decisions' IDs, added in any order), or blocks to read from their tokens
    (False). A stretch of rounds with a CR in it is read from its tokens (a line's end is
    CRLF there)."""
    start = 0
    while start < len(blocks):
        stop = start
        while stop < len(blocks) and blocks[stop].kind == "round" and \
                (stop == start or blocks[stop - 1].stop == blocks[stop].offset):
            stop += 1
        if stop > start:
            lo, hi = blocks[start].offset, blocks[stop - 1].stop
            plain = text.find("\r", lo, hi) < 0 and \
                _UNPLAIN_DECISION.search(text, lo, hi) is None and \
                _UNPLAIN_SETTLED.search(text, lo, hi) is None
            yield blocks[start:stop], plain
            start = stop
            continue
        while stop < len(blocks) and blocks[stop].kind != "round":
            stop += 1
        yield blocks[start:stop], False
        start = stop


def _settle_tokens(blocks: Sequence[Block], tokens: list[tuple[str, str, str]], base: int,
                   answered: set[str], out_of_scope: set[str],
                   lowered: dict[str, str]) -> None:
    """`log_settled`'s pass over a run of blocks: `tokens` are the log's lines from line
    `base` on. `lowered`: each distinct key of the log lowered once (the bullets' keys are a
    few words), kept from run to run."""
    add = answered.add
    for block in blocks:
        keys = _SETTLING.get(block.kind)
        if keys is None:
            continue
        # a block's bullets are its lines [line + 1, end), as read_parts reads them; a line
        # with no key (blank, nested, prose) is no bullet
        # (no max() call: its keyword parsing cost as much as a block's keyless lines)
        first, stop = block.line + 1 - base, block.end - base
        for key, raw, _ in tokens[first if first > 0 else 0:stop if stop > 0 else 0]:
            low = lowered.get(key)
            if low is None:
                low = lowered[key] = key.lower()
            if low not in keys:
                continue
            if low == "decisions":
                # an ID of ASCII letters and digits, starting with a letter, taken as written,
                # as `_read_round` takes it (what ID_RE matches and strip leaves). Read from
                # the value as the token holds it, not stripped: such an ID before its first
                # ` -> ` means no blank starts the value, and stripping its end moves no
                # ` -> ` unless only blanks follow it, when `split_decision` finds the same
                # ID before the `->` (tests/test_ledger_ids.py holds it to the plain rules)
                node_id, sep, _ = raw.partition(" -> ")
                if not (sep and node_id.isalnum() and node_id.isascii() and node_id >= "A"):
                    found = _decision_id(raw.strip())
                    if found is None:
                        continue
                    node_id = found
                add(node_id)
                if out_of_scope:
                    out_of_scope.discard(node_id)
                continue
            value = raw.strip()
            if value != "none":  # a round closed with nothing says so: no ID
                _settle_listed(low, value, answered, out_of_scope)


def _decision_id(value: str) -> str | None:
    """The ID a `Decisions` value (stripped) settles, as `_read_round` reads it; None for
    none."""
    node_id, sep, _ = value.partition(" -> ")
    if sep and node_id.isalnum() and node_id.isascii() and node_id >= "A":
        return node_id
    if sep:
        node_id = node_id.strip()
    else:
        pair = split_decision(value)
        if pair is None:
            return None
        node_id = pair[0]
    return node_id if ID_RE.match(node_id) is not None else None


def _settle_listed(key: str, value: str, answered: set[str], out_of_scope: set[str]) -> None:
    """What a `Facts resolved`, `Out of scope`, `Reopened` or `Defaulted` bullet settles."""
    if value == "none":  # a round closed with nothing: no ID
        return
    if key == "facts resolved":
        found = fact_id(value)
        if found is not None:
            answered.add(found)
            out_of_scope.discard(found)
        return
    for node_id in split_ids(value):
        if key == "reopened":
            answered.discard(node_id)
            out_of_scope.discard(node_id)
        elif not is_id(node_id):
            continue
        elif key == "out of scope":
            out_of_scope.add(node_id)
            answered.discard(node_id)
        else:  # defaulted by a skip
            answered.add(node_id)
            out_of_scope.discard(node_id)


def _chunks(ids: list[str]) -> list[list[str]]:
    return [ids[i:i + BATCH_SIZE] for i in range(0, len(ids), BATCH_SIZE)]


def render_node(node_id: str, title: str, section: str | None, depends_on: list[str],
                spawned_by: str | None, options: list[str], recommend: int | None,
                extra: list[tuple[str, str]]) -> list[str]:
    """The lines of a new design tree node; the recommended option goes first."""
    lines = [f"### {node_id}: {title}"]
    if section:
        lines.append(f"- Section: {section}")
    lines.append(f"- Depends on: {', '.join(depends_on) or 'none'}")
    if spawned_by:
        lines.append(f"- Spawned by: {spawned_by}")
    for key, value in extra:
        lines.append(f"- {key}: {value}")
    if options:
        ordered = list(options)
        if recommend is not None:
            chosen = ordered.pop(recommend - 1)
            label, sep, reason = chosen.partition(": ")
            ordered.insert(0, f"{label} (Recommended){sep}{reason}")
        lines.append("- Options:")
        lines.extend(f"  - {option}" for option in ordered)
    return lines


def new_node_id(title: str, salt: str, known: Collection[str]) -> str:
    """An ID for a new node that two branches will not both take: `D` and the first hex
    digits of a hash of its question and `salt` (who added it, when), four unless that is
    taken. Short enough to say and type, and stable once written, like every ID."""
    from hashlib import sha256

    digest = sha256(f"{title}\0{salt}".encode("utf-8", "surrogatepass")).hexdigest()
    for length in range(4, len(digest)):
        candidate = "D" + digest[:length]
        if candidate not in known:
            return candidate
    return "D" + digest  # pragma: no cover - 2**256 nodes
