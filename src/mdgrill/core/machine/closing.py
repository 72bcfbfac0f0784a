"""Closing an interview: the brief, the explicit approval, cancel, skip, revise, and whether
the agent may delegate."""

from __future__ import annotations

from mdgrill.core.hints import spec_arg
from mdgrill.core.machine.basics import (
    close_open_round,
    id_list,
    interview_of,
    require_discovery,
    require_id,
    require_phase,
    require_status,
)
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Change, Progress, Transition, block_heading, single_line
from mdgrill.formats.schema import CANONICAL_CONFIRMATION, TERMINAL
from mdgrill.model.interview import quick_authorized
from mdgrill.model.record import check_record, int_field
from mdgrill.model.tree import (
    prerequisites,
    spec_frontier,
)

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import (
        CancelReport,
        ConfirmReport,
        DelegationReport,
        PresentedReport,
        ReviseReport,
        SkipReport,
    )


def await_confirmation(data: dict[str, object], prog: Progress, confirmation_id: str,
                       approach: str, brief: list[str]) -> Transition[PresentedReport]:
    require_id(confirmation_id, "confirmation ID")
    text = single_line(approach, "--approach")
    iv = interview_of(data)
    require_status(iv, "await-confirmation", "collecting", spec=spec_arg(prog.path))
    pending, asked = id_list(iv, "pending"), id_list(iv, "asked")
    if pending:
        raise GateRefusal("DECISIONS_PENDING", f"decisions {', '.join(pending)} are still "
                          "pending: answer them (or mark them out of scope) first")
    if confirmation_id in asked:
        raise GateRefusal("DECISION_ALREADY_RECORDED",
                          f"{confirmation_id} was already used in this interview: pick a new "
                          "confirmation ID")
    shown = brief_confirmation_id(prog, str(iv["phase"]))
    if shown is not None and shown != confirmation_id:
        raise GateRefusal("CONFIRMATION_ID_MISMATCH",
                          f"interview {iv['id']} already put its brief to the user under "
                          f"confirmation ID {shown}: after a revise the brief returns to "
                          f"approval \"using the same confirmation ID\"; run "
                          f"`mdgrill await-confirmation {spec_arg(prog.path)} --decision-id "
                          f"{shown} --approach …`; nothing was written",
                          details={"confirmation_id": shown})
    from mdgrill.core.gate import require_clear

    require_clear(prog, iv, "await-confirmation")
    change = Change()
    close_open_round(prog, iv, change)
    asked.append(confirmation_id)
    pending.append(confirmation_id)
    iv["approach"] = text
    iv["status"] = "awaiting_confirmation"
    iv.pop("round_frontier", None)
    change.updates["interview"] = iv
    from mdgrill.model.scope import PARTS_KEY, SCOPE_KEY, approval_scope

    # what the user is asked to approve, bound here so nothing in it can change unseen
    scope = approval_scope(prog, prog.blocks, interview_id=str(iv["id"]),
                           confirmation_id=confirmation_id, approach=text,
                           context_digest=str(iv["context_digest"]))
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Approach: {text}",
             f"- {SCOPE_KEY}: {scope.digest}", f"- {PARTS_KEY}: {scope.parts_line()}"]
    if brief:
        lines.append("")
        lines.extend(("> " + line).rstrip() for line in brief)
    change.block(block_heading(str(iv["phase"]), "Grill - Awaiting Confirmation"), lines)
    return Transition(change, {"status": "awaiting_confirmation",
                               "confirmation_id": confirmation_id, "question": APPROVAL_OPTIONS,
                               "approval_scope": scope.digest})


def brief_confirmation_id(prog: Progress, phase: str) -> str | None:
    """The confirmation ID the open interview first put its brief up for approval under (its
    first Awaiting Confirmation or Skipped block), or None when it has not yet."""
    from mdgrill.model.interview import interview_blocks

    for block in interview_blocks(prog.blocks, phase):
        if block.kind in ("awaiting", "skipped"):
            found = block.first("Confirmation ID")
            if found:
                return found.strip()
    return None


def require_scope(prog: Progress, iv: dict[str, object], confirmation_id: str) -> str | None:
    """The recorded scope of the brief this confirmation answers, refused when what the user
    approved changed since it was shown; None for a brief written before scopes existed."""
    from mdgrill.model.scope import scope_now, scope_refusal

    found = scope_now(prog, str(iv["phase"]), str(iv["id"]), confirmation_id,
                      str(iv["context_digest"]))
    if found is None:
        return None
    recorded, now, block = found
    why = scope_refusal(prog, recorded, now, block)
    if why is not None:
        raise GateRefusal("APPROVAL_SCOPE_CHANGED", why,
                          details={"recorded": recorded, "current": now.digest})
    return recorded


# The final approval question, as the framework words it; only the first completes the gate.
APPROVE_LABEL = "Approve and delegate"
APPROVAL_OPTIONS = [f"{APPROVE_LABEL} (Recommended)", "Revise decisions", "Cancel"]


def confirm(data: dict[str, object], prog: Progress, confirmation_id: str,
            source: str, reply: str | None = None) -> Transition[ConfirmReport]:
    iv = interview_of(data)
    require_status(iv, "confirm", "awaiting_confirmation", spec=spec_arg(prog.path))
    if source != CANONICAL_CONFIRMATION:
        raise GateRefusal("INVALID_CONFIRMATION_SOURCE",
                          f"confirm takes --source {CANONICAL_CONFIRMATION} (the user's explicit "
                          f"approval), not `{source}`")
    pending = id_list(iv, "pending")
    if confirmation_id not in pending:
        raise GateRefusal("CONFIRMATION_ID_MISMATCH",
                          f"{confirmation_id} is not the pending confirmation "
                          f"({', '.join(pending) or 'none'})")
    words = None
    if reply is not None:
        from mdgrill.core.approval import APPROVE_AND_DELEGATE, approval_choice

        words = single_line(reply, "--reply")
        if approval_choice(words) != APPROVE_AND_DELEGATE:
            raise GateRefusal("APPROVAL_NOT_EXPLICIT",
                              f"`{words}` is not the explicit selection `{APPROVE_LABEL}`: "
                              "only that choice approves (a `yes` or `proceed` does not). "
                              "Ask the approval question again; nothing was written",
                              details={"question": APPROVAL_OPTIONS})
    from mdgrill.core.gate import require_clear

    require_clear(prog, iv, "confirm")
    scope = require_scope(prog, iv, confirmation_id)
    pending.remove(confirmation_id)
    iv["confirmation"] = source
    iv["status"] = "skipped" if iv["bypass_reason"] is not None else "complete"
    change = Change()
    change.updates["interview"] = iv
    lines = [f"- Interview: {iv['id']}", f"- Confirmation ID: {confirmation_id}",
             f"- Source: {source}", f"- Status: {iv['status']}",
             f"- Context digest: {iv['context_digest']}"]
    if scope is not None:
        from mdgrill.model.scope import SCOPE_KEY

        lines.append(f"- {SCOPE_KEY}: {scope}")
    if words is not None:
        lines.append(_reply_line(words))
    change.block(block_heading(str(iv["phase"]), "Grill - Confirmed"), lines)
    return Transition(change, {"status": str(iv["status"]),
                               "round": int_field(iv, "round", "interview"),
                               "approval_scope": scope})


def _reply_line(words: str) -> str:
    """The user's verbatim reply as a block line: a JSON string, so quotes cannot end it."""
    import json

    return f"- Reply: {json.dumps(words, ensure_ascii=False)}"


def cancel(data: dict[str, object], reply: str | None) -> Transition[CancelReport]:
    """The user chose Cancel: "leave the interview nonterminal; stop without delegation"."""
    iv = interview_of(data)
    # Cancel answers the approval question; while collecting, the round stays open instead.
    require_status(iv, "cancel", "awaiting_confirmation")
    pending = id_list(iv, "pending")
    lines = [f"- Interview: {iv['id']}"]
    if pending:
        lines.append(f"- Confirmation ID: {pending[0]}")
    if reply is not None:
        lines.append(_reply_line(single_line(reply, "--reply")))
    change = Change()
    change.block(block_heading(str(iv["phase"]), "Grill - Cancelled"), lines)
    return Transition(change, {
        "status": str(iv["status"]), "cancelled": True,
        "next": "stop without delegating; the interview stays open for later"})


def skip(data: dict[str, object], prog: Progress, reason: str, assumptions: list[str],
         confirmation_id: str) -> Transition[SkipReport]:
    require_id(confirmation_id, "confirmation ID")
    why = single_line(reason, "--reason")
    notes = [single_line(a, "--assumption") for a in assumptions if a.strip()]
    if not notes:
        raise InputError("ASSUMPTION_REQUIRED", "skip needs at least one --assumption: say "
                         "what you will assume in place of the skipped decisions")
    iv = interview_of(data)
    require_status(iv, "skip", "collecting", "awaiting_confirmation", spec=spec_arg(prog.path))
    if not id_list(iv, "asked"):
        raise GateRefusal("NOTHING_ASKED",
                          f"interview {iv['id']} has asked nothing yet: a bare `skip` defaults "
                          "\"the remaining phase interview\" after the user has seen a question. "
                          "Ask the frontier first (`mdgrill open-frontier`); to bypass an "
                          "interview entirely, the user authorizes `mdgrill mode "
                          f"{spec_arg(prog.path)} --quick`")
    change = Change()
    if iv["status"] == "collecting":
        close_open_round(prog, iv, change)
    pending = id_list(iv, "pending")
    answered_before = set(id_list(iv, "asked")) - set(pending)
    retired = list(pending)
    # while the brief awaits approval, what is pending is its confirmation ID: no decision
    waiting = retired if iv["status"] == "collecting" else []
    defaulted = list(dict.fromkeys(waiting + spec_frontier(prog).open))
    iv["asked"] = [i for i in id_list(iv, "asked") if i not in retired or i in answered_before]
    asked = id_list(iv, "asked")
    if confirmation_id not in asked:
        asked.append(confirmation_id)
    iv["pending"] = [confirmation_id]
    iv["status"] = "awaiting_confirmation"
    iv.pop("round_frontier", None)
    if iv["approach"] is None:
        iv["approach"] = "Skip remaining interview decisions"
    iv["bypass_reason"] = why
    recorded = id_list(iv, "assumptions")
    for note in notes:
        if note not in recorded:
            recorded.append(note)
    change.updates["interview"] = iv
    defaults = default_values(prog, defaulted)
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Reason: {why}",
             f"- Retired: {', '.join(retired) or 'none'}",
             f"- Defaulted: {', '.join(defaulted) or 'none'}"]
    lines.extend(f"- Default: {node_id} -> {value}" for node_id, value in defaults.items())
    lines.extend(f"- Assumption: {note}" for note in notes)
    from mdgrill.model.scope import PARTS_KEY, SCOPE_KEY, approval_scope

    # the scope reads these back from the block in its order (`scope.skip_lines`)
    skip_part = [f"reason: {why}", f"defaulted: {', '.join(defaulted) or 'none'}",
                 *(f"default: {node_id} -> {value}" for node_id, value in defaults.items()),
                 *(f"assumption: {note}" for note in notes)]
    scope = approval_scope(prog, prog.blocks, interview_id=str(iv["id"]),
                           confirmation_id=confirmation_id, approach=str(iv["approach"]),
                           context_digest=str(iv["context_digest"]), skip=skip_part)
    lines += [f"- Approach: {iv['approach']}", f"- {SCOPE_KEY}: {scope.digest}",
              f"- {PARTS_KEY}: {scope.parts_line()}"]
    change.block(block_heading(str(iv["phase"]), "Grill - Skipped"), lines)
    return Transition(change, {"status": "awaiting_confirmation",
                               "confirmation_id": confirmation_id, "defaulted": defaulted,
                               "defaults": defaults, "question": APPROVAL_OPTIONS})


def default_values(prog: Progress, ids: list[str]) -> dict[str, str]:
    """What a skip defaults each decision to: its recommended option's label ("the
    recommended test depth and rollback policy listed as defaults"); a decision with no
    recommendation (or no node) has none, and the assumptions stand for it."""
    from mdgrill.model.replies import option_label

    known = set(prog.node_ids())
    out: dict[str, str] = {}
    for node_id in ids:
        node = prog.node(node_id) if node_id in known else None
        if node is None:
            continue
        options, recommended = node.choices()
        if recommended is not None and 1 <= recommended <= len(options):
            out[node_id] = single_line(option_label(options[recommended - 1]), "a default")
    return out


def answered_dependents(prog: Progress, ids: list[str], answered: set[str],
                        keep: frozenset[str] = frozenset()) -> list[str]:
    """Answered decisions that depend on `ids`, directly or through each other; a decision in
    `keep` is neither one of them nor a way through to others."""
    children: dict[str, list[str]] = {}
    for node in prog.nodes:
        for parent in prerequisites(node):
            children.setdefault(parent, []).append(node.id)
    found: list[str] = []
    queue = list(ids)
    seen = set(ids)
    while queue:
        for child in children.get(queue.pop(0), []):
            if child not in seen and child not in keep:
                seen.add(child)
                queue.append(child)
                if child in answered:
                    found.append(child)
    return found


def revise(data: dict[str, object], prog: Progress, ids: list[str],
           keep: list[str] | None = None) -> Transition[ReviseReport]:
    """Reopen decisions and every answered decision that depends on them ("invalidate
    dependent answers when necessary"): `keep` names dependents whose answers the change
    does not touch, which stay answered (and recorded as kept); ask in the next round those
    whose prerequisites still stand."""
    for node_id in [*ids, *(keep or [])]:
        require_id(node_id)
    iv = interview_of(data)
    require_status(iv, "revise", "awaiting_confirmation", spec=spec_arg(prog.path))
    from mdgrill.model.tree import ledger_of

    ledger = ledger_of(prog)
    named = list(dict.fromkeys(ids))
    index = {n.id: n for n in prog.nodes}
    # an ID neither in the tree nor settled in the log (a typo, the confirmation's own ID)
    # reopens nothing: asking it would leave an asked decision with no node
    known = set(index) | set(ledger.answers) | ledger.out_of_scope
    unknown = [d for d in named if d not in known]
    if unknown:
        raise GateRefusal("MISSING_REFERENCE",
                          f"--decision-id {', '.join(unknown)}: no node of the design tree and "
                          "no decision the log settled; revise reopens what was decided "
                          "(check the ID); nothing was written")
    kept = list(dict.fromkeys(keep or []))
    could = [d for d in answered_dependents(prog, named, set(ledger.answered))
             if d not in named]
    stray = [k for k in kept if k not in could]
    if stray:
        raise InputError("INVALID_INPUT",
                         f"--keep {', '.join(stray)}: only an answered decision that depends on "
                         f"what is revised can be kept (here: {', '.join(could) or 'none'}); "
                         "nothing was written")
    dependents = [d for d in answered_dependents(prog, named, set(ledger.answered),
                                                 frozenset(kept)) if d not in named]
    reopened = named + dependents
    reopened_set = set(reopened)
    ask_now: list[str] = []
    for node_id in named:
        node = index.get(node_id)
        if node is None or not any(p in reopened_set for p in prerequisites(node)):
            ask_now.append(node_id)
    asked, pending = id_list(iv, "asked"), id_list(iv, "pending")
    answered = [i for i in asked if i not in pending]
    retired = list(pending)
    # a reopened decision is unanswered again: asked anew when the frontier reaches it
    iv["asked"] = [i for i in asked if (i not in retired or i in answered)
                   and i not in reopened_set]
    asked = id_list(iv, "asked")
    for node_id in ask_now:
        if node_id not in asked:
            asked.append(node_id)
    iv["pending"] = list(ask_now)
    rnd = int_field(iv, "round", "interview")
    iv["round"] = rnd + 1
    iv["status"] = "collecting"
    iv["approach"] = None
    iv["confirmation"] = None
    iv["bypass_reason"] = None
    iv["round_frontier"] = list(ask_now)
    change = Change()
    change.updates["interview"] = iv
    phase = str(iv["phase"])
    lines = [f"- Retired: {', '.join(retired) or 'none'}", f"- Reopened: {', '.join(reopened)}"]
    if dependents:
        lines.append(f"- Dependents: {', '.join(dependents)} (answered on what is reopened: "
                     "asked again once it is answered)")
    if kept:
        lines.append(f"- Kept: {', '.join(kept)} (depends on what is reopened; the user kept "
                     "its answer, which the change does not touch)")
    lines.append(f"- Next round: {rnd + 1}")
    change.block(block_heading(phase, "Grill - Revised"), lines)
    change.block(block_heading(phase, f"Grill - Round {rnd + 1}"),
                 [f"- Asked: {', '.join(ask_now)}"])
    previous = {i: ledger.answers[i] for i in reopened if i in ledger.answers}
    return Transition(change, {"status": "collecting", "round": rnd + 1, "pending": list(ask_now),
                               "reopened": reopened, "dependents": dependents, "kept": kept,
                               "previous_answers": previous})


def check_delegation(prog: Progress, phase: str, interview_id: str,
                     given_digest: str | None, current_digest: str,
                     discovery_revision: str | None = None) -> DelegationReport:
    require_phase(phase)
    from mdgrill.core.artifact_gate import set_aside

    if set_aside(prog, interview_id):
        raise GateRefusal("INTERVIEW_SUPERSEDED",
                          f"interview {interview_id} was set aside by a reopening (see the "
                          "`Reopened` block): its approval is history; the gates run again "
                          "from the reopened phase")
    data = prog.data
    iv = interview_of(data)
    if iv.get("phase") != phase or iv.get("id") != interview_id:
        raise GateRefusal("INTERVIEW_STALE",
                          f"the spec's interview is {iv.get('phase')}/{iv.get('id')}, not "
                          f"{phase}/{interview_id}")
    status = iv.get("status")
    if status not in TERMINAL:
        raise GateRefusal("INTERVIEW_INCOMPLETE", f"interview {interview_id} is {status}: it "
                          "must be approved (confirm), skipped or quick-bypassed first")
    problems = [p for p in check_record(data) if p.key == "interview" or p.code != "INVALID_STATE"]
    if problems:
        raise GateRefusal(problems[0].code, problems[0].message)
    if status == "bypassed_quick" and not quick_authorized(prog):
        raise GateRefusal("QUICK_NOT_AUTHORIZED",
                          "the interview is bypassed_quick, but the log holds no quick-mode "
                          f"authorization (`mdgrill mode {spec_arg(prog.path)} --quick`): a "
                          "hand-typed or imported quick flag never bypasses the gate")
    require_discovery(iv, interview_id, discovery_revision,
                      "run skill discovery's interview again")
    if status != "bypassed_quick":
        from mdgrill.core.gate import require_clear
        from mdgrill.model.scope import confirmed_id

        require_clear(prog, iv, "check-delegation")
        approved = confirmed_id(prog, phase)
        if approved is not None:
            require_scope(prog, iv, approved)
    recorded = iv.get("context_digest")
    if given_digest is not None and given_digest != recorded:
        raise GateRefusal("CONTEXT_STALE", f"the digest you hold ({given_digest[:12]}…) is not "
                          f"the one the interview recorded ({str(recorded)[:12]}…)")
    if current_digest != recorded:
        raise GateRefusal("CONTEXT_STALE",
                          f"the context changed since the interview: recorded "
                          f"{str(recorded)[:12]}…, now {current_digest[:12]}…: begin a new "
                          "interview for the new context", details={"recorded": recorded,
                                                                   "current": current_digest})
    return {"decision": "allow", "path": "quick" if status == "bypassed_quick" else "interview",
            "status": str(status), "context_digest": current_digest}
