"""Pure renderers for the report verbs: status, tree (text, Mermaid), ledger, glossary lint."""

from __future__ import annotations

import re

from mdgrill.diagnostics import Diagnostic, warning
from mdgrill.formats.progress import Block, Node, Progress
from mdgrill.model.tree import (
    INVESTIGATING,
    OPEN,
    OUT_OF_SCOPE,
    RESOLVED,
    Frontier,
    Ledger,
    ledger_of,
    read_ledger,
    spec_frontier,
    split_decision,
)

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from mdgrill.model.tree import FrontierView

    class PendingQuestion(TypedDict):
        """A pending decision as `status` shows it, from its node in the tree (if any)."""

        id: str
        question: str | None
        options: list[str]
        recommended: str | None
        recommendation: str | None

    class Reopening(TypedDict):
        """A `Reopened` block of the log."""

        phase: str | None
        from_phase: str | None
        reason: str | None
        by: str | None
        line: int

    class StatusView(TypedDict):
        """What `status` reports (its `--json`), and what `status_text` renders."""

        spec: str
        goal: object
        phase: object
        mode: object
        interview: dict[str, object] | None
        pending: list[PendingQuestion]
        frontier: FrontierView
        context: dict[str, object]
        approval: dict[str, object]
        problems: list[str]
        artifact: dict[str, object] | None
        reopenings: list[Reopening]
        approved_changed: list[dict[str, object]]

STATUS_CLASS = {OPEN: "open", RESOLVED: "resolved", OUT_OF_SCOPE: "outofscope",
                INVESTIGATING: "investigating"}
MERMAID_STYLES = {
    "open": "fill:#fff3cd,stroke:#b58900,color:#333",
    "resolved": "fill:#d4edda,stroke:#2e7d32,color:#333",
    "outofscope": "fill:#eeeeee,stroke:#9e9e9e,color:#666,stroke-dasharray:4 3",
    "investigating": "fill:#dbe9f7,stroke:#1565c0,color:#333",
    "missing": "fill:#f8d7da,stroke:#c62828,color:#333,stroke-dasharray:4 3",
}
ANSI = {"bold": "\033[1m", "dim": "\033[2m", "red": "\033[31m", "green": "\033[32m",
        "yellow": "\033[33m", "blue": "\033[34m", "reset": "\033[0m"}
STATUS_COLOR = {OPEN: "yellow", RESOLVED: "green", OUT_OF_SCOPE: "dim", INVESTIGATING: "blue"}


def paint(text: str, style: str, color: bool) -> str:
    return f"{ANSI[style]}{text}{ANSI['reset']}" if color else text


def frontier_of(prog: Progress) -> tuple[Ledger, Frontier]:
    ledger = ledger_of(prog)
    return ledger, spec_frontier(prog, ledger=ledger)


def answer_text(node_id: str, value: str) -> str:
    """A ledger answer without the `ID -> ` / `ID: ` prefix a fact line carries."""
    pair = split_decision(value)
    if pair is not None and pair[0] == node_id:
        return pair[1]
    head, sep, rest = value.partition(":")
    if sep and head.strip() == node_id:
        return rest.strip()
    return value


# -- ledger -----------------------------------------------------------------------------------


class LedgerEntry:
    """One settled decision: `E<n> [section] question = answer`."""

    __slots__ = ("number", "id", "section", "question", "answer", "refines", "line", "was")

    def __init__(self, number: int, node_id: str, section: str | None, question: str,
                 answer: str, line: int) -> None:
        self.number = number
        self.id = node_id
        self.section = section
        self.question = question
        self.answer = answer
        self.refines: int | None = None
        self.line = line  # 0-based line of the answer
        self.was: str | None = None  # the wording before an amendment

    @property
    def label(self) -> str:
        return f"E{self.number}"

    def text(self) -> str:
        mark = " (amended)" if self.was is not None else ""
        return f"{self.label} [{self.section or '-'}] {self.question} = {self.answer}{mark}"

    def to_json(self) -> dict[str, object]:
        return {"entry": self.label, "id": self.id, "section": self.section,
                "question": self.question, "answer": self.answer,
                "refines": f"E{self.refines}" if self.refines else None, "line": self.line + 1,
                "amended_from": answer_text(self.id, self.was) if self.was is not None
                else None}


def ledger_entries(prog: Progress) -> list[LedgerEntry]:
    """The settled decisions, numbered in the order they were settled."""
    ledger = read_ledger(prog.blocks)
    nodes = {n.id: n for n in prog.nodes}
    entries: list[LedgerEntry] = []
    number_of: dict[str, int] = {}
    for i, node_id in enumerate(ledger.order, 1):
        if node_id not in ledger.answers:
            continue  # reopened by a revise and not answered again
        node = nodes.get(node_id)
        entry = LedgerEntry(i, node_id, node.section if node else None,
                            node.title if node and node.title else node_id,
                            answer_text(node_id, ledger.answers[node_id]),
                            ledger.answer_line.get(node_id, 0))
        entry.was = ledger.amended.get(node_id)
        entries.append(entry)
        number_of[node_id] = i
    for entry in entries:
        node = nodes.get(entry.id)
        parent = node.spawned_by if node else None
        if parent is not None and parent in number_of:
            entry.refines = number_of[parent]
    return entries


def last_round(blocks: list[Block]) -> Block | None:
    rounds = [b for b in blocks if b.kind == "round"]
    return rounds[-1] if rounds else None


def new_entries(prog: Progress, entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """The entries whose answer the last round recorded."""
    block = last_round(prog.blocks)
    if block is None:
        return []
    return [e for e in entries if block.line <= e.line < block.end]


def ledger_text(entries: list[LedgerEntry], outline: bool = True) -> str:
    lines = [e.text() for e in entries]
    if not entries:
        lines.append("no decisions settled yet")
    if outline and entries:
        lines.extend(["", *outline_lines(entries)])
    return "\n".join(lines)


def outline_lines(entries: list[LedgerEntry]) -> list[str]:
    """The entries grouped by section (sections in first-settled order)."""
    groups: dict[str, list[LedgerEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.section or "(no section)", []).append(entry)
    lines: list[str] = []
    for section, items in groups.items():
        lines.append(f"### {section}")
        for e in items:
            refines = f" (refines E{e.refines})" if e.refines else ""
            amended = " (amended)" if e.was is not None else ""
            lines.append(f"- {e.label} {e.question} = {e.answer}{amended}{refines}")
        lines.append("")
    return lines[:-1]


# -- tree -------------------------------------------------------------------------------------


def tree_text(prog: Progress, color: bool = False) -> str:
    """The design tree as an indented outline: children under the node that spawned them."""
    ledger, frontier = frontier_of(prog)
    statuses = frontier.statuses
    nodes = prog.nodes
    if not nodes:
        return "the design tree is empty"
    known = {n.id for n in nodes}
    children: dict[str, list[Node]] = {}
    roots: list[Node] = []
    for node in nodes:
        parent = node.spawned_by
        if parent is not None and parent in known and parent != node.id:
            children.setdefault(parent, []).append(node)
        else:
            roots.append(node)
    lines: list[str] = []
    seen: set[str] = set()

    def walk(node: Node, depth: int) -> None:
        if node.id in seen:
            return
        seen.add(node.id)
        status = statuses.get(node.id, OPEN)
        tag = paint(f"[{status}]", STATUS_COLOR.get(status, "dim"), color)
        text = f"{'  ' * depth}{node.id}: {node.title} {tag}"
        if node.section:
            text += f" §{node.section}"
        if node.depends_on:
            text += f" (depends on {', '.join(node.depends_on)})"
        if node.id in ledger.answers:
            text += f" = {answer_text(node.id, ledger.answers[node.id])}"
            if node.id in ledger.amended:
                text += " (amended)"
        if node.id in frontier.blocked:
            text += f" — blocked by {', '.join(frontier.blocked[node.id])}"
        lines.append(text)
        for child in children.get(node.id, []):
            walk(child, depth + 1)

    for node in roots:
        walk(node, 0)
    for node in nodes:  # spawn cycles: never drop a node
        walk(node, 0)
    return "\n".join(lines)


_MERMAID_ESCAPES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;",
                    "`": "#96;", "|": "#124;", "{": "#123;", "}": "#125;", "[": "#91;",
                    "]": "#93;", "\\": "#92;"}


def mermaid_label(text: str) -> str:
    """Text made safe inside a quoted Mermaid label (entity codes, one line)."""
    one_line = " ".join(text.split())
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in one_line)


def tree_mermaid(prog: Progress, fenced: bool = True) -> str:
    """A Mermaid flowchart: dependencies as arrows, `Spawned by` as dotted arrows."""
    _, frontier = frontier_of(prog)
    nodes = prog.nodes
    ids: dict[str, str] = {}
    lines = ["flowchart TD"]
    for node in nodes:
        if node.id in ids:
            continue
        ids[node.id] = f"n{len(ids) + 1}"
        cls = STATUS_CLASS.get(frontier.statuses.get(node.id, OPEN), "open")
        lines.append(f'  {ids[node.id]}["{mermaid_label(f"{node.id}: {node.title}")}"]:::{cls}')
    edges: list[str] = []
    missing: list[str] = []

    def ref(node_id: str) -> str:
        if node_id not in ids:
            ids[node_id] = f"n{len(ids) + 1}"
            missing.append(node_id)
        return ids[node_id]

    for node in nodes:
        for dep in node.depends_on:
            edges.append(f"  {ref(dep)} --> {ids[node.id]}")
        parent = node.spawned_by
        if parent is not None:
            edges.append(f"  {ref(parent)} -.->|spawned| {ids[node.id]}")
    for node_id in missing:
        lines.append(f'  {ids[node_id]}["{mermaid_label(node_id + " (missing)")}"]:::missing')
    lines.extend(edges)
    for cls, style in MERMAID_STYLES.items():
        lines.append(f"  classDef {cls} {style}")
    body = "\n".join(lines)
    return f"```mermaid\n{body}\n```" if fenced else body


# -- status -----------------------------------------------------------------------------------


def pending_questions(prog: Progress, pending: list[str]) -> list[PendingQuestion]:
    """Each pending ID with its question, options and recommendation from the tree."""
    out: list[PendingQuestion] = []
    for node_id in pending:
        node = prog.node(node_id)
        item: PendingQuestion = {"id": node_id, "question": node.title if node else None,
                                 "options": [], "recommended": None, "recommendation": None}
        if node is not None:
            item["options"] = [o.text for o in node.options]
            rec = next((o.text for o in node.options if o.recommended), None)
            item["recommended"] = rec
            item["recommendation"] = node.first("Recommendation")
        out.append(item)
    return out


def _pending_lines(pending: list[PendingQuestion], color: bool) -> list[str]:
    if not pending:
        return []
    lines = [paint("pending:", "bold", color)]
    for item in pending:
        lines.append(f"  {item['id']}: {item['question'] or '(no node in the tree)'}")
        for option in item["options"]:
            mark = "*" if option == item["recommended"] else "-"
            lines.append(f"    {mark} {option}")
        if item["recommendation"]:
            lines.append(f"    recommendation: {item['recommendation']}")
    return lines


def _artifact_line(art: dict[str, object], color: bool) -> str:
    status = str(art.get("status"))
    tone = {"approved": "green", "revision_requested": "red"}.get(status, "yellow")
    text = f"artifact: {art.get('path')} ({art.get('phase')}) {paint(status, tone, color)}"
    if art.get("feedback_round"):
        text += f", feedback round {art['feedback_round']}"
    if art.get("changed"):
        text += paint(" — changed since it was submitted", "red", color)
    return text


def status_text(view: StatusView, color: bool = False) -> str:
    """One screen from the `status` view dict."""
    iv = view["interview"]
    lines = [paint(f"{view['spec']}", "bold", color) + f" — phase {view['phase'] or 'none'}"
             f", mode {view['mode']}"]
    if view["goal"]:
        lines.append(f"goal: {view['goal']}")
    if iv is not None:
        status = str(iv.get("status"))
        tone = "green" if status in ("complete", "skipped", "bypassed_quick") else "yellow"
        lines.append(f"interview {iv.get('id')} ({iv.get('phase')}): "
                     f"{paint(status, tone, color)}, round {iv.get('round')}")
        if iv.get("approach"):
            lines.append(f"approach: {iv['approach']}")
    else:
        lines.append("interview: none (run `mdgrill begin-interview`)")
    lines.extend(_pending_lines(view["pending"], color))
    frontier = view["frontier"]
    lines.append("frontier: " + ("; ".join(", ".join(b) for b in frontier["batches"]) or "empty")
                 + f" (ready: {'yes' if frontier['ready'] else 'no'})")
    for node_id, blockers in frontier["blocked"].items():
        lines.append(f"  blocked: {node_id} waits for {', '.join(blockers)}")
    context = view["context"]
    if context:
        state = str(context.get("state"))
        tone = {"current": "green", "stale": "red"}.get(state, "yellow")
        text = f"context: {paint(state, tone, color)}"
        if context.get("reason"):
            text += f" ({context['reason']})"
        lines.append(text)
    art = view["artifact"]
    if art is not None:
        lines.append(_artifact_line(art, color))
    for changed in view["approved_changed"]:
        lines.append(paint(f"approved artifact changed: {changed['path']} ({changed['phase']}): "
                           "submit it again or reopen the phase", "red", color))
    reopenings = view["reopenings"]
    if reopenings:
        last = reopenings[-1]
        by = f" by {last['by']}" if last["by"] else ""
        lines.append(f"reopened: {last['phase']} from {last['from_phase']} ({last['reason']})"
                     f"{by}" + (f"; {len(reopenings)} reopenings in all"
                                if len(reopenings) > 1 else ""))
    approval = view["approval"]
    if approval:
        if approval.get("sha"):
            lines.append(f"last approval: {str(approval['sha'])[:12]} {approval.get('subject')}"
                         f" ({approval.get('date')})")
        elif approval.get("reason"):
            lines.append(f"last approval: {approval['reason']}")
    return "\n".join(lines)


# -- glossary lint ----------------------------------------------------------------------------

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_TICKS = re.compile(r"`+")


def _blank_code_spans(text: str) -> str:
    """Each line with its code spans blanked: a run of backticks up to the next run of the
    same length on the line (CommonMark's rule; paired by hand in linear time, where the
    pattern `(`+)(.+?)\\1` was cubic on a line of backticks)."""
    return "\n".join(map(_blank_line_spans, text.split("\n")))


def _blank_line_spans(line: str) -> str:
    if "`" not in line:
        return line
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    later: dict[int, list[int]] = {}  # run length -> indexes of the runs, last first
    for index in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[index][1] - runs[index][0], []).append(index)
    out, done, index = [], 0, 0
    while index < len(runs):
        start, end = runs[index]
        same = later[end - start]
        while same and same[-1] <= index:
            same.pop()
        if same:
            close = runs[same[-1]][1]
            out += [line[done:start], " " * (close - start)]
            done, index = close, same[-1] + 1
        else:
            index += 1
    return "".join(out) + line[done:]


class AvoidRule:
    """An avoided word and the canonical term to say instead."""

    __slots__ = ("word", "term", "pattern")

    def __init__(self, word: str, term: str) -> None:
        self.word = word
        self.term = term
        self.pattern = re.compile(r"(?<![\w-])" + re.escape(word).replace(r"\ ", r"\s+")
                                  + r"(?![\w-])", re.IGNORECASE)


def lint_lines(path: str, lines: list[str], rules: list[AvoidRule],
               ranges: list[tuple[int, int]] | None = None) -> list[Diagnostic]:
    """AVOID_WORD warnings for lines [start, end) of each range (0-based), code skipped."""
    out: list[Diagnostic] = []
    spans = ranges if ranges is not None else [(0, len(lines))]
    fence: str | None = None
    wanted: set[int] = set()
    for start, end in spans:
        wanted.update(range(start, min(end, len(lines))))
    for i, raw in enumerate(lines):
        text = raw.rstrip("\r\n")
        m = _FENCE.match(text)
        if fence is not None:
            if m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not text[m.end():].strip():
                fence = None
            continue
        if m is not None:
            fence = m.group(1)
            continue
        if i not in wanted:
            continue
        visible = _blank_code_spans(text)
        for rule in rules:
            for hit in rule.pattern.finditer(visible):
                out.append(warning(path, i + 1, "AVOID_WORD",
                                   f'"{text[hit.start():hit.end()]}" is an avoided word for '
                                   f'**{rule.term}**: say "{rule.term}"', col=hit.start() + 1))
    return out
