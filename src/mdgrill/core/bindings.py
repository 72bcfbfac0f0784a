"""Decisions bound to the code and docs that carry them out: the `Bound` and `Reaffirmed`
blocks of the log read as the bindings that stand, and the changes that record new ones.

Pure: the fingerprints come in computed (`services.bindings` and `services.bound_targets`
read the files and git). A binding is recorded in the append-only log, so its history (who
bound what, who reaffirmed it after which change) is sealed with the rest of the interview:

    ### Requirements Grill - Bound
    - Decision: D1 -> Ten percent off
    - At: <the commit whose files were fingerprinted>
    - Target: src/pricing.py::discount -> python-ast-1:<sha256>
    - By: Alice <alice@example.com>

A `Reaffirmed` block records the owner's selection after a change: `Still holds` binds the
targets again (`Moved: old -> new` first when one moved), `The change was wrong` leaves the
binding as it was (so `drift` stays red until the code is put back), and `Revise the
decision` releases the decision's bindings as the decision is reopened.
"""

from __future__ import annotations

from typing import NamedTuple

from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Block, Change, Progress, block_heading, single_line
from mdgrill.model.tree import split_decision

STILL_HOLDS = "Still holds"
REVISE = "Revise the decision"
WRONG = "The change was wrong"
SELECTIONS = (STILL_HOLDS, REVISE, WRONG)
OPTIONS = (f"{STILL_HOLDS}: the change keeps the decision; bind the new version",
           f"{REVISE}: the decision no longer fits; reopen it (and what depends on it)",
           f"{WRONG}: the decision stands; the code or document must go back")


class Binding(NamedTuple):
    """One decision bound to one target, as the log leaves it."""

    decision: str
    answer: str
    target: str
    fingerprint: str
    at: str  # the commit whose version of the target was fingerprinted
    by: str | None
    line: int  # 1-based line of the block that recorded it
    ruling: str | None = None  # `The change was wrong`, when the owner said so since

    def to_json(self) -> dict[str, object]:
        return {"decision": self.decision, "answer": self.answer, "target": self.target,
                "fingerprint": self.fingerprint, "at": self.at, "by": self.by,
                "line": self.line, "ruling": self.ruling}


def _pair(value: str) -> tuple[str, str] | None:
    """`target -> fingerprint` (the fingerprint has no spaces, the target may have any)."""
    head, sep, tail = value.rpartition(" -> ")
    return (head.strip(), tail.strip()) if sep and head.strip() and tail.strip() else None


def read_bindings(blocks: list[Block]) -> dict[tuple[str, str], Binding]:
    """The bindings that stand after every Bound and Reaffirmed block, in order recorded."""
    state: dict[tuple[str, str], Binding] = {}
    for block in blocks:
        if block.kind not in ("bound", "reaffirmed"):
            continue
        decided = split_decision(block.first("Decision") or "")
        if decided is None:
            continue
        decision, answer = decided
        at = block.first("At") or ""
        by = block.first("By")
        selection = block.first("Selection") if block.kind == "reaffirmed" else STILL_HOLDS
        if selection == REVISE:
            for key in [k for k in state if k[0] == decision]:
                del state[key]
            continue
        if selection == WRONG:
            for key, old in list(state.items()):
                if key[0] == decision:
                    state[key] = old._replace(ruling=WRONG)
            continue
        for entry in block.get("Moved"):
            moved = _pair(entry.value)
            if moved is not None and (decision, moved[0]) in state:
                old = state.pop((decision, moved[0]))
                state[(decision, moved[1])] = old._replace(target=moved[1])
        for entry in block.get("Target"):
            pair = _pair(entry.value)
            if pair is not None:
                state[(decision, pair[0])] = Binding(decision, answer, pair[0], pair[1], at, by,
                                                     block.line + 1)
    return state


def written_bindings(prog: Progress) -> list[tuple[str, str, int]]:
    """(decision, target, 1-based line) of every `- Binds:` key written in the design tree."""
    found: list[tuple[str, str, int]] = []
    for node in prog.nodes:
        for entry in node.entries:
            if entry.key.lower() != "binds":
                continue
            for part in entry.value.split(","):
                if part.strip() and part.strip().lower() not in ("none", "-", "n/a"):
                    found.append((node.id, part.strip(), entry.line + 1))
    return found


def require_appendable(data: dict[str, object], verb: str) -> None:
    """A round's lines are appended to the log's last block: while an interview collects, a
    block of ours would land between them, so the verbs that append one wait."""
    iv = data.get("interview")
    if isinstance(iv, dict) and iv.get("status") == "collecting":
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"`{verb}` appends a block to the log, and interview {iv.get('id')} "
                          f"({iv.get('phase')}) is collecting answers, whose rounds must stay "
                          "the log's last blocks: run it once the interview awaits "
                          "confirmation or is approved; nothing was written")


def settled_answer(prog: Progress, decision: str) -> tuple[str, str]:
    """(the decision's recorded answer, the phase of the round that settled it), or a refusal
    when it is not answered."""
    from mdgrill.model.tree import ledger_of

    ledger = ledger_of(prog)
    answer = ledger.answers.get(decision)
    if answer is None:
        why = "is out of scope" if decision in ledger.out_of_scope else "has no recorded answer"
        raise GateRefusal("NOT_ANSWERED", f"decision {decision} {why}: only a settled decision "
                          "can be bound (answer it first); nothing was written")
    line = ledger.answer_line.get(decision)
    phase = next((b.phase for b in prog.blocks
                  if line is not None and b.line <= line < b.end and b.phase), None)
    if phase is None:
        phase = str(prog.data.get("phase") or "requirements")
    return answer, phase


def _decision_line(decision: str, answer: str) -> str:
    return f"- Decision: {decision} -> {single_line(answer, 'the answer')}"


def bound_change(phase: str, decision: str, answer: str, at: str,
                 targets: list[tuple[str, str]]) -> Change:
    """The `Bound` block recording `targets` [(target, fingerprint)] at commit `at`."""
    change = Change()
    lines = [_decision_line(decision, answer), f"- At: {at}"]
    lines.extend(f"- Target: {single_line(t, 'a target')} -> {fp}" for t, fp in targets)
    change.block(block_heading(phase, "Grill - Bound"), lines)
    return change


def reaffirmed_change(phase: str, decision: str, answer: str, selection: str, reply: str,
                      at: str, targets: list[tuple[str, str]],
                      moved: list[tuple[str, str]]) -> Change:
    """The `Reaffirmed` block recording the owner's selection (and, for Still holds, the
    targets fingerprinted again)."""
    change = Change()
    lines = [_decision_line(decision, answer), f"- Selection: {selection}",
             f"- Reply: {single_line(reply, '--reply')}", f"- At: {at}"]
    if selection == STILL_HOLDS:
        lines.extend(f"- Moved: {old} -> {new}" for old, new in moved)
        lines.extend(f"- Target: {t} -> {fp}" for t, fp in targets)
    change.block(block_heading(phase, "Grill - Reaffirmed"), lines)
    return change


def selection_of(reply: str) -> str:
    """The one of the three selections the owner's reply names, or a refusal: a reply that
    only acknowledges (`ok`, `yes`) or names none of them reaffirms nothing."""
    from mdgrill.model.replies import CONTROL_ONLY, classify

    found = classify(reply, OPTIONS)
    if found.option is not None and found.option in SELECTIONS:
        return found.option
    if found.kind == CONTROL_ONLY:
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{reply}` only acknowledges: a reaffirmation is the owner's explicit "
                          f"choice of {', '.join(SELECTIONS)}; nothing was written")
    raise GateRefusal("APPROVAL_NOT_EXPLICIT",
                      f"`{reply}` names none of {', '.join(SELECTIONS)} (or 1-3): record the "
                      "owner's own selection; nothing was written")


__all__ = ["Binding", "OPTIONS", "REVISE", "SELECTIONS", "STILL_HOLDS", "WRONG", "bound_change",
           "read_bindings", "reaffirmed_change", "require_appendable", "selection_of",
           "settled_answer", "written_bindings"]
