"""Decisions bound to code: `bind`, `reaffirm` and `why`, with their whole rule set.

`bind` fingerprints each target as committed at HEAD and records it (a `Bound` block,
committed with trailers like an approval); `reaffirm` records the owner's selection after a
change (`services.bound_targets.drift` finds the changes); `why` lists the decisions bound to
a target. docs/bindings.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from mdgrill.core import bindings as rules
from mdgrill.core import fingerprints as fp
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Transition
from mdgrill.services.bound_targets import (
    MISSING,
    MOVED,
    Finding,
    all_specs,
    commit_binding,
    drift,
    fingerprint_at_head,
    is_dirty,
    require_git,
    resolve_target,
)
from mdgrill.services.result import Bound, Reaffirmed
from mdgrill.shell import store

if TYPE_CHECKING:
    from collections.abc import Callable

    from mdgrill.core.machine.reports import (
        BindReport,
        BoundDecision,
        BoundWrittenReport,
        ReaffirmReport,
    )
    from mdgrill.formats.progress import Change, Progress
    from mdgrill.shell.project import Owners

# -- the verbs, as every entry point calls them ------------------------------------------------

def bind_decision(spec: store.Spec, *, decision_id: str | None, targets: list[str],
                  by: str | None = None, no_commit: bool = False) -> Bound:
    """`bind`: the decision's targets fingerprinted at HEAD and committed; with no decision,
    every hand-written `- Binds:` target not bound yet. `by`: whom the account relays (git's
    identity otherwise), recorded as `- By:`."""
    from mdgrill.shell.people import who

    person = who(spec, by)
    if decision_id is None:
        if targets:
            raise InputError("USAGE", "name the decision the targets carry out: "
                             "`mdgrill bind SPEC --decision-id ID TARGET...`")
        return bind_written(spec, person, no_commit)
    return bind(spec, decision_id, targets, person, no_commit)


def reaffirm_decision(spec: store.Spec, *, decision_id: str, reply: str, by: str | None = None,
                      no_commit: bool = False) -> Reaffirmed:
    """`reaffirm`: the owner's selection for a drifted decision, committed (the owners rule
    holds the account that runs it, never `by`)."""
    from mdgrill.shell.people import who

    return reaffirm(spec, decision_id, reply, who(spec, by), no_commit)


# -- bind ------------------------------------------------------------------------------------


def bind(spec: store.Spec, decision: str, targets: list[str], person: str | None,
         no_commit: bool = False) -> Bound:
    """Record the decision's targets (and its hand-written `Binds:`) with their fingerprints."""
    from mdgrill.core.machine import require_id
    from mdgrill.shell.people import signed
    from mdgrill.shell.session import load, transaction

    require_id(decision)
    head = require_git(spec)
    prog = load(spec)
    standing = rules.read_bindings(prog.blocks)
    written = [t for d, t, _ in rules.written_bindings(prog) if d == decision]
    wanted = list(dict.fromkeys([*targets, *(t for t in written if not targets and
                                             (decision, t) not in standing)]))
    if not wanted:
        raise InputError("INVALID_INPUT", f"name what decision {decision} is bound to: a file, "
                         "a glob, `file.py::symbol` or `file.md#Heading` (or write `- Binds: "
                         "...` under its node)")
    resolved = [resolve_target(spec, t, head) for t in wanted]
    pairs = [(t.text, fingerprint_at_head(spec, t, head)) for t in resolved]
    warnings = [f"{t.path} has changes not committed: the binding is of the committed version"
                for t in resolved if not t.is_glob and is_dirty(spec.root, head, t)]

    def step(prog: Progress) -> Transition[BindReport]:
        rules.require_appendable(prog.data, "bind")
        answer, phase = rules.settled_answer(prog, decision)
        change = rules.bound_change(phase, decision, answer, head, pairs)
        return Transition(change, {
            "decision": decision, "answer": answer, "phase": phase, "at": head,
            "targets": [{"target": t, "fingerprint": f} for t, f in pairs],
            "warnings": warnings})

    result: dict[str, object] = dict(transaction(spec, signed(step, person)))
    result.update(commit_binding(spec, result, "bind", person, no_commit,
                          f"bind {decision} ({len(pairs)} target{'s' * (len(pairs) != 1)})"))
    return Bound("bind", result)


def bind_written(spec: store.Spec, person: str | None,
                 no_commit: bool = False) -> Bound:
    """`bind SPEC` alone: fingerprint every hand-written `- Binds:` target not bound yet, one
    Bound block per decision, in one commit."""
    from mdgrill.shell.session import load, transaction

    head = require_git(spec)
    prog = load(spec)
    standing = rules.read_bindings(prog.blocks)
    wanted: dict[str, list[str]] = {}
    for decision, target, _ in rules.written_bindings(prog):
        if (decision, target) not in standing and target not in wanted.get(decision, []):
            wanted.setdefault(decision, []).append(target)
    if not wanted:
        raise InputError("INVALID_INPUT", f"no `- Binds:` target in {spec.rel_progress} waits to "
                         "be fingerprinted: name the decision and its targets (`mdgrill bind "
                         "SPEC --decision-id ID TARGET...`)")
    pairs = {d: [(t.text, fingerprint_at_head(spec, t, head))
                 for t in (resolve_target(spec, x, head) for x in targets)]
             for d, targets in wanted.items()}

    def step(prog: Progress) -> Transition[BoundWrittenReport]:
        rules.require_appendable(prog.data, "bind")
        change: Change | None = None
        bound: list[BoundDecision] = []
        phase = ""
        for decision, found in pairs.items():
            answer, phase = rules.settled_answer(prog, decision)
            one = rules.bound_change(phase, decision, answer, head, found)
            if person:
                heading, lines = one.new_blocks[0]
                one.new_blocks[0] = (heading, [*lines, f"- By: {person}"])
            if change is None:
                change = one
            else:
                change.new_blocks.extend(one.new_blocks)
            bound.append({"decision": decision, "answer": answer, "phase": phase,
                          "targets": [{"target": t, "fingerprint": f} for t, f in found]})
        assert change is not None
        return Transition(change, {"decision": ", ".join(pairs), "phase": phase, "at": head,
                                   "bound": bound, "by": person})

    result: dict[str, object] = dict(transaction(spec, step))
    count = sum(len(found) for found in pairs.values())
    result.update(commit_binding(spec, result, "bind", person, no_commit,
                          f"bind {', '.join(pairs)} ({count} written target"
                          f"{'s' * (count != 1)})"))
    return Bound("bind", result)



# -- reaffirm --------------------------------------------------------------------------------


def reaffirm(spec: store.Spec, decision: str, reply: str, person: str | None,
             no_commit: bool = False) -> Reaffirmed:
    """Record the owner's selection for a drifted decision (docs/bindings.md)."""
    from mdgrill.core.machine import require_id
    from mdgrill.formats.progress import single_line
    from mdgrill.shell.session import transaction

    require_id(decision)
    words = single_line(reply, "--reply")
    selection = rules.selection_of(words)
    _require_evidence(spec, words)
    head = require_git(spec)
    drifted = [f for f in drift([spec], spec.root) if f.binding.decision == decision and f.red]
    if not drifted:
        raise GateRefusal("NOTHING_TO_REAFFIRM",
                          f"no binding of decision {decision} in {spec.rel_folder} has drifted "
                          "(`mdgrill drift` is green for it): there is nothing to reaffirm; "
                          "nothing was written")
    pairs: list[tuple[str, str]] = []
    moved: list[tuple[str, str]] = []
    if selection == rules.STILL_HOLDS:
        for finding in drifted:
            if finding.status == MISSING or finding.now is None:
                raise GateRefusal("NOT_FOUND", f"`{finding.binding.target}` is gone: bind "
                                  f"{decision} to what carries it out now (`mdgrill bind`), or "
                                  f"select `{rules.REVISE}`; nothing was written")
            if finding.uncommitted:
                raise InputError("INVALID_INPUT", f"`{finding.now}` has changes not committed: "
                                 "commit them first (a reaffirmation binds the committed "
                                 "version); nothing was written", path=finding.path)
            if finding.status == MOVED:
                moved.append((finding.binding.target, finding.now))
            pairs.append((finding.now, fingerprint_at_head(spec, fp.parse_target(finding.now),
                                                           head)))
    from mdgrill.shell.people import each_section_rule, who
    from mdgrill.shell.project import owners

    account, own = who(spec, None), owners(spec.root)  # the account, not --by
    owners_check = _owners_rule(own, account, decision)

    def step(prog: Progress) -> Transition[ReaffirmReport]:
        owners_check(prog)
        rules.require_appendable(prog.data, "reaffirm")
        answer, phase = rules.settled_answer(prog, decision)
        change = rules.reaffirmed_change(phase, decision, answer, selection, words, head,
                                         pairs, moved)
        result: ReaffirmReport = {
            "decision": decision, "answer": answer, "phase": phase, "selection": selection,
            "at": head, "targets": [{"target": t, "fingerprint": f} for t, f in pairs],
            "moved": [{"from": a, "to": b} for a, b in moved],
            "drifted": [f.to_json() for f in drifted]}
        if selection == rules.REVISE:
            _reopen_decision(prog, decision, phase, drifted, change, result)
            # each decision it reopens, a dependent too, is taken back from its section's
            # owners, as `revise` holds it (services.interview.revise): checked before the write
            each_section_rule(own, account, result.get("reopened", []), "reaffirm")(prog)
        if person:
            heading, lines = change.new_blocks[0]
            change.new_blocks[0] = (heading, [*lines, f"- By: {person}"])
            result["by"] = person
        return Transition(change, result)

    result: dict[str, object] = dict(transaction(spec, step))
    extra = [("Mdgrill-Selection", selection)]
    transition = "reaffirm"
    if result.get("reopened_phase"):
        transition = "reopen"  # the phase went back: `verify` looks for a reopen commit
        extra.append(("Mdgrill-Reason", str(result["reason"])))
    result.update(commit_binding(spec, result, transition, person, no_commit,
                          f"reaffirm {decision}: {selection}", extra))
    return Reaffirmed("reaffirm", result)


def _require_evidence(spec: store.Spec, words: str) -> None:
    """With `approval: evidence`, the reply must be the user's last captured one."""
    from mdgrill.formats.progress import single_line
    from mdgrill.shell import journal
    from mdgrill.shell.project import requires_evidence

    if not requires_evidence(spec.root):
        return
    found = journal.entries(spec.root) or []
    last = single_line(journal.reply_words(found[-1]), "the captured reply") if found else None
    if last != words:
        raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                          f"--reply `{words}` is not the user's last captured reply "
                          f"({'none captured' if last is None else repr(last)}): the project "
                          "wants the owner's own words (`approval: evidence`); nothing was "
                          "written")


def _owners_rule(own: Owners, person: str | None,
                 decision: str) -> Callable[[Progress], None]:
    """The owners of the decision's section and of its phase, as for an approval."""
    from mdgrill.shell.people import phase_rule, section_rule

    by_section = section_rule(own, person, decision, "reaffirm")

    def phase_of(prog: Progress) -> object:
        return rules.settled_answer(prog, decision)[1]

    by_phase = phase_rule(own, person, phase_of, "reaffirm")

    def check(prog: Progress) -> None:
        by_section(prog)
        by_phase(prog)
    return check


def _reopen_decision(prog: Progress, decision: str, phase: str, drifted: list[Finding],
                     change: Change, result: ReaffirmReport) -> None:
    """`Revise the decision`: through `revise` while the phase awaits confirmation, else
    through `reopen` of the decision's phase followed by a `Revised` block, so the decision
    and its answered dependents are asked again in that phase's next interview."""
    from mdgrill.core import machine

    iv = prog.data.get("interview")
    what = ", ".join(f"{f.binding.target} ({f.status})" for f in drifted[:3])
    reason = f"{decision} revised after {what} changed"
    if isinstance(iv, dict) and iv.get("status") == "awaiting_confirmation" and \
            iv.get("phase") == phase:
        revised, info = machine.revise(prog.data, prog, [decision])
        change.updates.update(revised.updates)
        change.new_blocks.extend(revised.new_blocks)
        result.update({"reopened": info["reopened"], "round": info["round"]})
        return
    from mdgrill.core.artifact_gate import reopen
    from mdgrill.formats.progress import block_heading

    try:
        back, gone = reopen(prog.data, prog.blocks, phase, reason)
    except GateRefusal as exc:
        if exc.code != "NOTHING_TO_REOPEN":
            raise
    else:
        change.updates.update(back.updates)
        change.new_blocks.extend(back.new_blocks)
        result.update({"reopened_phase": phase, "reason": reason,
                       "superseded": gone["superseded"]})
    from mdgrill.core.machine import answered_dependents
    from mdgrill.model.tree import ledger_of

    reopened = [decision, *answered_dependents(prog, [decision],
                                               set(ledger_of(prog).answers))]
    change.block(block_heading(phase, "Grill - Revised"),
                 ["- Retired: none", f"- Reopened: {', '.join(reopened)}", "- Next round: 1"])
    result["reopened"] = reopened


# -- why -------------------------------------------------------------------------------------


class Reason(NamedTuple):
    """A decision bound to (part of) a target: its answer and who approved it."""

    spec: str
    binding: rules.Binding
    approved_by: str | None

    def to_json(self) -> dict[str, object]:
        return {"spec": self.spec, **self.binding.to_json(), "approved_by": self.approved_by}


def why(root: str, text: str) -> list[Reason]:
    """The standing bindings of every spec that cover `text` (a file, symbol or section)."""
    from mdgrill.shell.session import load

    asked = fp.parse_target(text)
    found: list[Reason] = []
    for spec in all_specs(root):
        prog = load(spec, check=False)
        for binding in rules.read_bindings(prog.blocks).values():
            try:
                bound = fp.parse_target(binding.target)
            except InputError:
                continue
            if _covers(bound, asked):
                found.append(Reason(spec.rel_folder, binding, _approver(prog, binding)))
    return found


def _covers(bound: fp.Target, asked: fp.Target) -> bool:
    if bound.is_glob:
        return fp.glob_pattern(bound.path).match(asked.path) is not None
    if bound.path != asked.path:
        return False
    if asked.symbol is None and asked.section is None:
        return True  # the whole file: every binding in it
    if bound.symbol is None and bound.section is None:
        return True  # the whole file is bound, so is every part of it
    if asked.section is not None and bound.section is not None:
        return fp.same_section(bound.section, asked.section)
    return bound.symbol == asked.symbol


def _approver(prog: Progress, binding: rules.Binding) -> str | None:
    """Who approved the interview that settled the decision: the first Confirmed block after
    its answer."""
    from mdgrill.model.tree import ledger_of

    line = ledger_of(prog).answer_line.get(binding.decision)
    if line is None:
        return None
    for block in prog.blocks:
        if block.kind == "confirmed" and block.line > line:
            return block.first("By") or "(not named)"
    return None



__all__ = ["Reason", "bind", "bind_written", "reaffirm", "why"]
