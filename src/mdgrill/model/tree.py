"""The design tree's derived state: node status from the log, the frontier, batches, readiness."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mdgrill.formats.progress import Block, Entry, Node, NodeInfo, Progress, split_ids
from mdgrill.model.record import ID_PATTERN, is_id

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

OPEN = "OPEN"
RESOLVED = "RESOLVED"
OUT_OF_SCOPE = "OUT_OF_SCOPE"
INVESTIGATING = "INVESTIGATING"
BATCH_SIZE = 4


def prerequisites(node: Node | NodeInfo) -> list[str]:
    """What a node waits for: its `Depends on` IDs and the parent it was spawned by."""
    return [*node.depends_on, *([node.spawned_by] if node.spawned_by else [])]


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

    def status(self, node: Node | NodeInfo) -> str:
        if node.id in self.out_of_scope:
            return OUT_OF_SCOPE
        if node.id in self.answered:
            return RESOLVED
        if node.investigating:
            return INVESTIGATING
        return OPEN


class Ledger(Settled):
    """What the log says about each ID: its answer, out-of-scope marks, where it happened."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}
        super().__init__(self.answers, set())
        self.order: list[str] = []  # IDs in the order they were settled
        self.amended: dict[str, str] = {}  # ID -> the wording it had before its last amendment
        self._lines: dict[str, int] = {}
        self._line_source: Callable[[], dict[str, int]] | None = None  # set by the fast path

    @property
    def answer_line(self) -> dict[str, int]:
        """0-based line of the answer that settled each ID."""
        if self._line_source is not None:
            self._lines = self._line_source()
            self._line_source = None
        return self._lines


def read_ledger(blocks: list[Block]) -> Ledger:
    ledger = Ledger()
    for block in blocks:
        if block.kind == "round":
            _read_round(ledger, block)
        elif block.kind == "amended":
            _read_amended(ledger, block)
        elif block.kind == "revised":
            for entry in block.get("Reopened"):
                for node_id in split_ids(entry.value):
                    ledger.answers.pop(node_id, None)
                    ledger.out_of_scope.discard(node_id)
        elif block.kind == "skipped":
            _read_defaulted(ledger, block)
    return ledger


def _read_round(ledger: Ledger, block: Block) -> None:
    for entry in block.entries:
        key = entry.key.lower()
        if key == "decisions":
            pair = split_decision(entry.value)
            if pair is not None and is_id(pair[0]):
                _settle(ledger, pair[0], pair[1], entry.line)
        elif key == "facts resolved":
            node_id = fact_id(entry.value)
            if node_id is not None:
                _settle(ledger, node_id, entry.value, entry.line)
        elif key == "out of scope":
            for node_id in split_ids(entry.value):
                if is_id(node_id):
                    ledger.out_of_scope.add(node_id)
                    ledger.answers.pop(node_id, None)
        elif key == "amended":
            _amend(ledger, entry.value)


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


# What a node defaulted by a bare skip reads as: the skip's assumptions stand for it.
DEFAULTED_ANSWER = "(defaulted by skip: see the Skipped block's assumptions)"


def ledger_of(prog: Progress) -> Ledger:
    """The ledger of a spec: `read_ledger`'s rules, over the log's blocks.

    The rules are read_ledger's alone. What changes is where its blocks come from: parsed
    in full when the log has fences, comments or amendments, else built from one regex pass
    (`_ledger_blocks`) holding only the lines the rules read, which is what makes a
    10,000-round log cheap. The answer lines, wanted only by reports, are found again when
    asked for. A property test holds the two sources to the same ledger.
    """
    fast = prog.fast_log()
    if fast is None:
        return read_ledger(prog.blocks)
    text, start, end, _ = fast
    if _AMENDED_LINE.search(text, max(start - 1, 0), end):  # rare: the exact rules read them
        return read_ledger(prog.blocks)
    ledger = read_ledger(_ledger_blocks(text, max(start - 1, 0), end))
    ledger._line_source = lambda: read_ledger(prog.blocks)._lines
    return ledger


def _ledger_blocks(text: str, start: int, end: int) -> list[Block]:
    """The log's round, Revised and Skipped blocks with just their ledger lines (line numbers
    left out), from one `findall`."""
    blocks: list[Block] = []
    current: Block | None = None
    for d_id, d_answer, f_value, f_id, number, head, other in \
            _LEDGER_LINES.findall(text, start, end):
        if d_id or f_id:
            if current is not None:
                current.entries.append(
                    Entry("Decisions", f"{d_id} -> {d_answer.strip()}", 0) if d_id
                    else Entry("Facts resolved", f_value.strip(), 0))
            continue
        if number or head:
            if number:
                kind: str | None = "round"
            else:
                m = _LEDGER_HEAD.match(head)
                if m is None:
                    continue  # `###x` is no heading: the block goes on
                kind = "round" if m.group(1) is not None else \
                    "revised" if m.group(2) is not None else \
                    "skipped" if m.group(3) is not None else None
            current = Block(kind, None, None, "", 0, 0) if kind is not None else None
            if current is not None:
                blocks.append(current)
            continue
        if other and current is not None:
            m = _LEDGER_LINE.match(other)
            if m is not None:
                current.entries.append(Entry(m.group(1), (m.group(2) or "").strip(), 0))
    return blocks


# One tuple per log line the ledger may read, found from the newline before it (a literal
# first character keeps `findall` at C speed): (decision ID, its answer, fact line, fact ID,
# round number, other heading, other ledger line). The first five are the exact lines
# mdgrill writes, already split; the last two are read by _LEDGER_HEAD and _LEDGER_LINE.
_LEDGER_LINES = re.compile(
    rf"\n(?:- Decisions: ({ID_PATTERN}) -> ([^\n]*)"
    rf"|- Facts resolved: (({ID_PATTERN}) -> [^\n]*)"
    r"|- Out of scope: none\r?(?=\n|\Z)"
    r"|### [A-Za-z]+ Grill - Round ([0-9]+)\r?(?=\n|\Z)"
    r"|( {0,3}###[^\n]*)"
    r"|([-*+][ \t]+(?:\*\*)?(?i:decisions|facts resolved|out of scope|reopened|defaulted)"
    r"[^\n]*))")
_NONE_LINE = r"none\r?(?:\n|\Z)"
# A ledger line (as _LEDGER_LINE reads one) in any form but the four the bulk read accepts
_ODD_LEDGER_LINE = re.compile(
    rf"\n(?!- (?:(?:Decisions|Facts resolved): {ID_PATTERN} -> "
    rf"|(?:Decisions|Facts resolved|Out of scope): {_NONE_LINE}))"
    r"[-*+][ \t]+(?:\*\*)?(?i:decisions|facts resolved|out of scope|reopened|defaulted)")
_SETTLING = re.compile(rf"\n- (?:Decisions|Facts resolved): ({ID_PATTERN}) -> ")
# A line that amends an answer (read by the exact rules only)
_AMENDED_LINE = re.compile(r"\n[-*+][ \t]+(?:\*\*)?(?i:amended)")
# A line that _LEDGER_LINE might read as `Reopened`
_REOPENED_LINE = re.compile(r"\n[-*+][ \t]+(?:\*\*)?(?i:reopened)")
# A heading is a round or a Revised block only in the exact form classify_block reads.
_LEDGER_HEAD = re.compile(
    r" {0,3}###(?:[ \t\r]+[A-Za-z]+ Grill - (?:Round ([0-9]+)|((?i:revised))|((?i:skipped)))"
    r"(?:[ \t]+#+)?[ \t\r]*|(?:[ \t\r][^\n]*)?)\Z")
_LEDGER_LINE = re.compile(
    r"[-*+][ \t]+(?:\*\*)?((?i:decisions|facts resolved|out of scope|reopened|defaulted))"
    r"(?:\*\*)?"
    r"[ \t]*:(?:\*\*)?(?:[ \t]+([^\n]*))?\r?\Z")


def _settle(ledger: Ledger, node_id: str, answer: str, line: int) -> None:
    if node_id not in ledger.answers and node_id not in ledger._lines:
        ledger.order.append(node_id)
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
        self.statuses: dict[str, str] = {}

    def to_json(self) -> dict[str, object]:
        return {"frontier": self.frontier, "batches": self.batches, "blocked": self.blocked,
                "investigating": self.investigating, "ready": self.ready,
                "open": self.open, "stop_question": self.stop_question,
                "unresolved_sections": self.unresolved_sections,
                "open_subthreads": self.open_subthreads}


def compute_frontier(nodes: Sequence[Node | NodeInfo], ledger: Settled,
                     required_sections: list[str], group_by_section: bool = False) -> Frontier:
    result = Frontier()
    statuses = {n.id: ledger.status(n) for n in nodes}
    result.statuses = statuses
    settled = {RESOLVED, OUT_OF_SCOPE}

    def is_settled(node_id: str) -> bool:
        return statuses.get(node_id) in settled or node_id in ledger.answered \
            or node_id in ledger.out_of_scope

    spawned_of = {n.id: n.spawned_by for n in nodes if n.spawned_by is not None}
    if len(statuses) != len(nodes):  # a duplicated ID (an error of its own) is listed once
        nodes = list({n.id: n for n in reversed(nodes)}.values())[::-1]
    for node in nodes:
        status = statuses[node.id]
        if status == INVESTIGATING:
            result.investigating.append(node.id)
            continue
        if status != OPEN:
            continue
        blockers = [d for d in node.depends_on if not is_settled(d)]
        parent = node.spawned_by
        if parent is not None and not is_settled(parent) and parent not in blockers:
            blockers.append(parent)
        if blockers:
            result.blocked[node.id] = blockers
        else:
            result.frontier.append(node.id)
    # "If the answer spawns sub-questions, prepend them to the question queue": a sub-question
    # on the frontier has a resolved parent, so it comes from an answer not yet followed up.
    spawned = [i for i in result.frontier if spawned_of.get(i)]
    if spawned:
        result.frontier = spawned + [i for i in result.frontier if not spawned_of.get(i)]
    if group_by_section:
        groups: dict[str, list[str]] = {}
        section_of = {n.id: (n.section or "") for n in nodes}
        for node_id in result.frontier:
            groups.setdefault(section_of[node_id], []).append(node_id)
        for ids in groups.values():
            result.batches.extend(_chunks(ids))
    else:
        result.batches = _chunks(result.frontier)
    for node in nodes:
        parent = node.spawned_by
        if parent is not None and statuses.get(parent) == RESOLVED and \
                statuses[node.id] not in settled:
            result.open_subthreads.setdefault(parent, []).append(node.id)
    resolved_sections = {(n.section or "").strip().lower() for n in nodes
                         if statuses[n.id] == RESOLVED}
    result.unresolved_sections = [s for s in required_sections
                                  if s.strip().lower() not in resolved_sections]
    # The elicitation skill's "Ready to build?" question is due once every required section
    # has an entry and no sub-thread is open; approval also needs no node left open.
    result.stop_question = not result.unresolved_sections and not result.open_subthreads
    result.open = [n.id for n in nodes if statuses[n.id] not in settled]
    result.ready = result.stop_question and not result.open
    return result


def required_sections(data: dict[str, object]) -> list[str]:
    required = data.get("required_sections") or []
    return [str(s) for s in required] if isinstance(required, list) else []


def spec_frontier(prog: Progress, group_by_section: bool = False,
                  ledger: Settled | None = None) -> Frontier:
    """A spec's frontier: its tree's nodes, its log's ledger, its required sections."""
    return compute_frontier(prog.node_index(), ledger if ledger is not None else settled_of(prog),
                            required_sections(prog.data), group_by_section)


def frontier_ids(prog: Progress) -> list[str]:
    """`spec_frontier(prog).frontier`, without reading the tree when every node is settled
    (then none is open): what closing a round writes as `Frontier after round:`.

    A node answered by a line in mdgrill's form stays settled whatever follows, unless a
    Revised block reopens it: so when the log holds no reopening and every node heading's ID
    has such a line, nothing is open, and the log's other lines need not be read.
    """
    ids = set(prog.node_ids())
    canonical = _canonical_answered(prog, reopening_allowed=False)
    if canonical is not None and not ids.difference(canonical):
        return []
    settled = settled_of(prog)
    if not ids.difference(settled.answered, settled.out_of_scope):
        return []
    return spec_frontier(prog, ledger=settled).frontier


def settled_of(prog: Progress) -> Settled:
    """Which IDs the log settled. Read in bulk when every line the ledger would read is one
    of the forms mdgrill writes; otherwise (any other form, an out-of-scope ID, a reopened
    one) the full ledger decides, in order."""
    span = prog.log_span()
    if span is None or not prog.plain or \
            _ODD_LEDGER_LINE.search(prog.tf.text, span[0] - 1, span[1]) is not None:
        return ledger_of(prog)
    answered = _canonical_answered(prog, reopening_allowed=True)
    return ledger_of(prog) if answered is None else Settled(answered, set())


def _canonical_answered(prog: Progress, reopening_allowed: bool) -> set[str] | None:
    """The IDs of the `- Decisions|Facts resolved: <ID> -> ...` lines inside round blocks of
    a plain log (None when the body is not plain). Unless `reopening_allowed`, also None
    when a Revised block holds a `Reopened:` line."""
    span = prog.log_span()
    if span is None or not prog.plain:
        return None
    heads = [(b.kind, b.offset) for b in prog.blocks]
    text = prog.tf.text
    start, end = span
    answered: set[str] = set()
    if start >= end:
        return answered
    # A line settles only inside a round block: read the runs of rounds, not the text before
    # the first heading nor the blocks that are not rounds (few: each phase's transitions).
    run_from = -1
    for index, (kind, at) in enumerate(heads):
        if kind == "round":
            if run_from < 0:
                run_from = at
            continue
        if run_from >= 0:
            answered.update(_SETTLING.findall(text, run_from - 1, at))
            run_from = -1
        if kind == "revised" and not reopening_allowed:
            block_end = heads[index + 1][1] if index + 1 < len(heads) else end
            if _REOPENED_LINE.search(text, at, block_end) is not None:
                return None
    if run_from >= 0:
        answered.update(_SETTLING.findall(text, run_from - 1, end))
    return answered


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
