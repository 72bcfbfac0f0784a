"""The interview state machine: old record + command -> new record + lines to append, or a refusal.

Pure: no files, no git. The semantics are smart-ralph's `phase_gate.py` (docs/contract.md) with the
state kept in `.progress.md`; each transition also says what the log gains.
"""

from __future__ import annotations

from mdgrill.core.gate import quick_authorized
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Block, Change, Progress, block_heading, single_line
from mdgrill.model.record import (
    CANONICAL_CONFIRMATION,
    PHASES,
    TERMINAL,
    check_record,
    is_id,
    new_interview,
)
from mdgrill.model.replies import (
    ACCEPT_RECOMMENDATION,
    BARE_SKIP,
    CONTROL_ONLY,
    NOT_AN_ANSWER,
    SKIP_DECISION,
    STOP,
    classify,
)
from mdgrill.model.tree import (
    INVESTIGATING,
    OUT_OF_SCOPE,
    RESOLVED,
    Frontier,
    prerequisites,
    spec_frontier,
)

ROUND_KEYS = ("Facts resolved", "Decisions", "Out of scope", "Domain language")
# The most decisions one interview may ask. Measured (docs/guarantees.md): at 100,000 the
# front matter lists are ~2.4 MB and a record-answer takes ~0.3 s; every call rewrites them.
MAX_DECISIONS = 100_000


def require_id(value: str, what: str = "decision ID") -> str:
    if not is_id(value):
        raise InputError("INVALID_ID", f"`{value}` is not a valid {what}: IDs start with a "
                         "letter and hold letters, digits, `.`, `_` or `-` (e.g. D1, auth.users)")
    return value


def require_phase(phase: str) -> str:
    if phase not in PHASES:
        raise InputError("INVALID_PHASE", f"`{phase}` is not a phase: use one of "
                         f"{', '.join(PHASES)}")
    return phase


def interview_of(data: dict[str, object]) -> dict[str, object]:
    iv = data.get("interview")
    if not isinstance(iv, dict):
        raise GateRefusal("INTERVIEW_MISSING", "no interview is open in this spec: run "
                          "`mdgrill begin-interview SPEC --phase P --interview-id ID` first")
    # the interview holds scalars and flat lists (context: a list of flat dicts)
    return {k: ([dict(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)
            for k, v in iv.items()}


def _ids(iv: dict[str, object], key: str) -> list[str]:
    value = iv[key]
    assert isinstance(value, list)
    return value


def _require_status(iv: dict[str, object], verb: str, *allowed: str) -> None:
    if iv["status"] not in allowed:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"{verb} needs an interview that is {' or '.join(allowed)}; "
                          f"interview {iv['id']} is {iv['status']}")


def _current_round_block(prog: Progress, iv: dict[str, object]) -> Block | None:
    last = prog.last_block()
    if last is not None and last.kind == "round" and last.phase == iv["phase"] and \
            last.round == iv["round"]:
        return last
    return None


def _require_open_round(prog: Progress, iv: dict[str, object], verb: str) -> Block:
    block = _current_round_block(prog, iv)
    if block is None:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"{verb} writes into the open round, and the log's last block is not "
                          f"round {iv['round']} of {iv['phase']}: run `mdgrill open-frontier "
                          f"SPEC --round {iv['round']} --decision-id ID` first")
    return block


def close_round_lines(prog: Progress, block: Block) -> list[str]:
    """The lines that close a round: the five keys it lacks (as `none`) and the frontier."""
    from mdgrill.model.tree import frontier_ids

    present = {e.key.lower() for e in block.entries}
    lines = [f"- {key}: none" for key in ROUND_KEYS if key.lower() not in present]
    lines.append(f"- Frontier after round: {', '.join(frontier_ids(prog)) or 'none'}")
    return lines


def _close_open_round(prog: Progress, iv: dict[str, object], change: Change) -> None:
    block = _current_round_block(prog, iv)
    if block is not None and not block.get("Frontier after round"):
        change.append_lines.extend(close_round_lines(prog, block))


def _reset(data: dict[str, object], change: Change, reason: str) -> bool:
    iv = data.get("interview")
    if not isinstance(iv, dict):
        return False
    change.updates["interview"] = None
    change.block(block_heading(str(iv["phase"]), "Grill - Reset"),
                 [f"- Interview: {iv['id']}", f"- Reason: {reason}"])
    return True


# -- verbs ---------------------------------------------------------------------------------


def set_mode(data: dict[str, object], prog: Progress, quick: bool,
             now: str) -> tuple[Change, dict[str, object]]:
    """Set the mode; `--quick` (only that exact flag reaches here) is recorded as a block,
    and `--interactive` after it records the revocation."""
    change = Change()
    mode = "quick" if quick else "interactive"
    change.updates["mode"] = mode
    iv = data.get("interview")
    reset = False
    if isinstance(iv, dict):
        incompatible = (quick and iv.get("status") != "bypassed_quick") or \
            (not quick and iv.get("status") == "bypassed_quick")
        if incompatible:
            reset = _reset(data, change, f"mode changed to {mode}")
    authorized = quick_authorized(prog)
    if quick != authorized:
        phase = str(data.get("phase") or "start")
        change.block(block_heading(phase if phase in PHASES else "start", "Grill - Mode"),
                     [f"- Mode: {mode}", "- Authorization: "
                      + ("the exact `mdgrill mode --quick` flag" if quick else
                         "`mdgrill mode --interactive` (quick mode revoked)"), f"- At: {now}"])
    return change, {"mode": mode, "interview_reset": reset,
                    "authorization_recorded": quick != authorized}


def record_skill_load(data: dict[str, object], header: dict[str, object],
                      skills: list[dict[str, object]]) -> tuple[Change, dict[str, object]]:
    change = Change()
    old = {"header": data.get("skill_manifest"), "skills": data.get("skills") or []}
    change.updates["skill_manifest"] = header
    change.updates["skills"] = skills
    reset = False
    changed = (old["header"], old["skills"]) != (header, skills)
    if changed and (old["header"] is not None or old["skills"]):
        reset = _reset(data, change, "the skill manifest changed")
    failed_core = [s["name"] for s in skills if s.get("core") and s.get("status") == "failed"]
    warnings = [f"domain skill {s['name']} failed to load: {_errors_text(s.get('errors'))}"
                for s in skills if not s.get("core") and s.get("status") == "failed"]
    return change, {"recorded": "skills", "interview_reset": reset, "core_failed": failed_core,
                    "warnings": warnings}


def _errors_text(errors: object) -> str:
    return ", ".join(str(e) for e in errors) if isinstance(errors, list) else ""


def check_skills(data: dict[str, object], phase: str, interview_id: str,
                 discovery_revision: object, stale_files: list[str]) -> list[str]:
    """Refuse on a stale or failed manifest; return warnings for failed domain skills."""
    header = data.get("skill_manifest")
    skills = data.get("skills") or []
    assert isinstance(skills, list)
    if isinstance(header, dict):
        if header.get("phase") != phase or header.get("interview_id") != interview_id:
            raise GateRefusal("SKILL_LOAD_STALE",
                              f"the skill manifest was recorded for {header.get('phase')}/"
                              f"{header.get('interview_id')}, not {phase}/{interview_id}: "
                              "record the skills loaded for this interview")
        if discovery_revision is not None and header.get("discovery_revision") is not None \
                and str(header.get("discovery_revision")) != str(discovery_revision):
            raise GateRefusal("SKILL_LOAD_STALE",
                              f"the skill manifest is from discovery revision "
                              f"{header.get('discovery_revision')}, not {discovery_revision}")
    if stale_files:
        raise GateRefusal("SKILL_LOAD_STALE", "skill files changed since they were loaded: "
                          f"{', '.join(stale_files)}: load them again and record the manifest")
    failed = [str(s.get("name")) for s in skills
              if isinstance(s, dict) and s.get("core") and s.get("status") == "failed"]
    if failed:
        raise GateRefusal("SKILL_LOAD_FAILED", f"the core skill {', '.join(failed)} failed to "
                          "load: fix it and record the manifest again")
    return [f"domain skill {s.get('name')} failed to load" for s in skills
            if isinstance(s, dict) and not s.get("core") and s.get("status") == "failed"]


def _manifest_revision(data: dict[str, object]) -> str | None:
    header = data.get("skill_manifest")
    if isinstance(header, dict) and header.get("discovery_revision") is not None:
        return str(header.get("discovery_revision"))
    return None


def begin_interview(data: dict[str, object], phase: str, interview_id: str,
                    round_number: int | None, discovery_revision: str | None, digest: str,
                    context: list[dict[str, str]],
                    quick_ok: bool = False) -> tuple[Change, dict[str, object]]:
    require_phase(phase)
    require_id(interview_id, "interview ID")
    if round_number is not None and round_number < 1:
        raise InputError("INVALID_ROUND", "--round must be a positive whole number")
    change = Change()
    existing = data.get("interview")
    if isinstance(existing, dict):
        same = existing.get("phase") == phase and existing.get("id") == interview_id
        stale = existing.get("context_digest") != digest
        if same and not stale:
            if existing.get("status") in TERMINAL:
                raise GateRefusal("INTERVIEW_TERMINAL",
                                  f"interview {interview_id} is {existing.get('status')}: a "
                                  "finished interview is never reopened; begin a new one with "
                                  "another --interview-id")
            if round_number is not None and existing.get("round") != round_number:
                raise GateRefusal("ROUND_MISMATCH",
                                  f"interview {interview_id} is in round {existing.get('round')}, "
                                  f"not {round_number}")
            return change, {"status": existing["status"], "resumed": True,
                            "round": existing["round"], "context_digest": digest}
        if same and stale:
            _reset(data, change, "the context changed (digest "
                   f"{str(existing.get('context_digest'))[:12]}… -> {digest[:12]}…)")
        elif existing.get("status") not in TERMINAL:
            if not stale:
                raise GateRefusal("INTERVIEW_STALE",
                                  f"interview {existing.get('id')} ({existing.get('phase')}) is "
                                  f"still {existing.get('status')}: finish, skip or revise it "
                                  "before beginning another")
            _reset(data, change, "the context changed while it was open")
    quick = data.get("mode") == "quick"
    if quick and not quick_ok:
        raise GateRefusal("QUICK_NOT_AUTHORIZED",
                          "`mode: quick` is in the front matter, but the log holds no quick-mode "
                          "authorization: only the exact `mdgrill mode SPEC --quick` authorizes a "
                          "bypass (a hand-typed or imported quick flag never does). Run it, or "
                          "`mdgrill mode SPEC --interactive` to interview; nothing was written")
    status = "bypassed_quick" if quick else "collecting"
    iv = new_interview(phase, interview_id, round_number or 1, status, digest, context)
    revision = discovery_revision if discovery_revision is not None else \
        _manifest_revision(data)
    if revision is None and data.get("discovery_revision") is not None:
        revision = str(data.get("discovery_revision"))
    if revision is not None:
        value: object = int(revision) if revision.isdigit() else revision
        iv["discovery_revision"] = value
        change.updates["discovery_revision"] = value
    change.updates["interview"] = iv
    change.updates["phase"] = phase
    if quick:
        change.block(block_heading(phase, "Grill - Bypassed"),
                     [f"- Interview: {interview_id}", "- Reason: Explicit --quick authorization",
                      f"- Context digest: {digest}"])
    return change, {"status": status, "resumed": False, "round": iv["round"],
                    "context_digest": digest}


def stale_context(iv: dict[str, object], digest: str,
                  context: list[dict[str, str]]) -> str | None:
    """What changed since the interview recorded its context, or None when nothing did."""
    if iv.get("context_digest") == digest:
        return None
    recorded = iv.get("context")
    old = {str(c.get("path")): c.get("sha256") for c in recorded
           if isinstance(c, dict)} if isinstance(recorded, list) else {}
    new = {c["path"]: c["sha256"] for c in context}
    changes = []
    for path in sorted(set(old) | set(new)):
        if path not in new:
            changes.append(f"{path} was removed")
        elif path not in old:
            changes.append(f"{path} appeared")
        elif old[path] != new[path]:
            changes.append(f"{path} changed")
    return "; ".join(changes) or "the goal changed"


def require_fresh(data: dict[str, object], digest: str, context: list[dict[str, str]],
                  verb: str) -> None:
    """Refuse when the context changed: "the helper re-reads those sources and recomputes the
    digest at every gate"."""
    iv = data.get("interview")
    if not isinstance(iv, dict):
        return
    what = stale_context(iv, digest, context)
    if what is None:
        return
    raise GateRefusal(
        "CONTEXT_STALE",
        f"{verb} refused: the context of interview {iv.get('id')} changed since it began "
        f"({what}), so what the user would approve is not what the rounds were asked on; "
        f"nothing was written. Run `mdgrill begin-interview SPEC --phase {iv.get('phase')} "
        f"--interview-id {iv.get('id')}` again: it resets the interview to the new context "
        "and keeps every recorded round (answered decisions stay answered)",
        details={"recorded": iv.get("context_digest"), "current": digest, "changed": what})


def _askable(prog: Progress, ids: list[str]) -> tuple[Frontier, list[str]]:
    """The frontier now, and a warning for each ID the tree does not hold; refuses an ID
    whose node is resolved, out of scope, investigating or blocked."""
    frontier = spec_frontier(prog)
    warnings: list[str] = []
    for node_id in ids:
        if node_id not in frontier.statuses:
            warnings.append(f"{node_id} is not a node of the design tree: asked as a decision "
                            "kept elsewhere (add it with `mdgrill node add` to track it here)")
            continue
        _refuse_unaskable(node_id, frontier.statuses.get(node_id), frontier.blocked)
    return frontier, warnings


def _refuse_unaskable(node_id: str, status: str | None, blocked: dict[str, list[str]]) -> None:
    if status == RESOLVED:
        raise GateRefusal("DECISION_ALREADY_RECORDED",
                          f"{node_id} is already resolved (answered, or by a recorded fact): to "
                          "ask it again, `mdgrill revise` it after await-confirmation")
    if status == OUT_OF_SCOPE:
        raise GateRefusal("DECISION_OUT_OF_SCOPE",
                          f"{node_id} was placed out of scope by the user: it is not asked "
                          "again unless a `revise` reopens it")
    if status == INVESTIGATING:
        raise GateRefusal("DECISION_INVESTIGATING",
                          f"{node_id} waits on a fact lookup (`Investigating:`): resolve the "
                          "fact first (`mdgrill record-fact`), or drop the line from the node")
    if node_id in blocked:
        raise GateRefusal("DECISION_BLOCKED",
                          f"{node_id} depends on {', '.join(blocked[node_id])}, still open: "
                          "ask that first; a round asks only unblocked decisions")


def open_frontier(data: dict[str, object], prog: Progress, round_number: int,
                  ids: list[str], spec_hint: str = "SPEC") -> tuple[Change, dict[str, object]]:
    for node_id in ids:
        require_id(node_id)
    if len(set(ids)) != len(ids):
        raise InputError("INVALID_INPUT", "--decision-id names the same ID twice")
    iv = interview_of(data)
    _require_status(iv, "open-frontier", "collecting")
    current = iv["round"]
    assert isinstance(current, int)
    if round_number not in (current, current + 1):
        raise GateRefusal("INVALID_ROUND_TRANSITION",
                          f"open-frontier may stay in round {current} or open round "
                          f"{current + 1}, not {round_number}")
    asked, pending = _ids(iv, "asked"), _ids(iv, "pending")
    if round_number == current + 1 and pending:
        raise GateRefusal("DECISIONS_PENDING",
                          f"round {current} still has pending decisions {', '.join(pending)}: "
                          "record their answers (or mark them out of scope) before the next round")
    pending_set, asked_set = set(pending), set(asked)
    answered = asked_set - pending_set
    for node_id in ids:
        if node_id in answered:
            raise GateRefusal("DECISION_ALREADY_RECORDED",
                              f"{node_id} was already answered in this interview: to change it, "
                              "use `mdgrill revise` after await-confirmation")
    new_ids = [i for i in ids if i not in pending_set]
    grows = sum(1 for i in new_ids if i not in asked_set)
    if len(asked) + grows > MAX_DECISIONS:
        raise InputError("TOO_MANY_DECISIONS",
                         f"interview {iv['id']} would ask {len(asked) + grows:,} decisions; "
                         f"mdgrill supports up to {MAX_DECISIONS:,} per interview: finish this "
                         "interview and begin another for the rest")
    frontier, warnings = _askable(prog, new_ids)
    statuses = frontier.statuses
    block = _current_round_block(prog, iv) if round_number == current else None
    if block is None and round_number == current + 1:
        from mdgrill.core.gate import unasked, unasked_refusal

        missing = unasked(prog, iv, frontier)
        if missing:
            raise unasked_refusal(spec_hint, current, missing)
    for node_id in new_ids:
        if node_id not in asked_set:
            asked.append(node_id)
            asked_set.add(node_id)
        pending.append(node_id)
    iv["round"] = round_number
    change = Change()
    change.updates["interview"] = iv
    if block is not None:
        if new_ids:
            change.append_lines.append(f"- Asked: {', '.join(new_ids)}")
    else:
        old = dict(iv)
        old["round"] = current
        _close_open_round(prog, old, change)
        # what this round must ask before it closes: the frontier as the round opens
        iv["round_frontier"] = list(frontier.frontier)
        change.block(block_heading(str(iv["phase"]), f"Grill - Round {round_number}"),
                     [f"- Asked: {', '.join(ids)}"])
    if not change.touches_log and not new_ids:
        change.updates.pop("interview")
    wanted = iv.get("round_frontier")
    still = [i for i in wanted if i not in asked_set and i in statuses and i not in answered] \
        if isinstance(wanted, list) else []
    return change, {"round": round_number, "pending": pending, "warnings": warnings,
                    "frontier_not_yet_asked": still}


def _answer_text(prog: Progress, decision_id: str, answer: str) -> str:
    """What a reply records: the option it names, or the recommended option it accepts (the
    user's words beside it), or the user's own words; refused if it answers nothing."""
    # node_ids() reads only headings: a decision kept outside the tree costs no node parse
    node = prog.node(decision_id) if decision_id in prog.node_ids() else None
    options, recommended = node.choices() if node is not None else ([], None)
    reply = classify(answer, options, recommended)
    words = single_line(answer, "--answer")
    if reply.kind in (CONTROL_ONLY, BARE_SKIP):
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{words}` is a {reply.kind.replace('_', ' ')} reply, not an answer "
                          f"to {decision_id}: nothing was recorded; ask the same question again"
                          + (", or `mdgrill skip` to default the rest with assumptions"
                             if reply.kind == BARE_SKIP else ""))
    if reply.kind == STOP:
        raise GateRefusal("STOP_REQUESTED",
                          f"`{words}` says the user is done, it answers nothing: nothing was "
                          "recorded. Show what remains (`mdgrill frontier SPEC`); when it is "
                          "due, ask Ready to build? (Ship / Keep asking / Refine a section) and "
                          "record the choice with `mdgrill record-stop`")
    if reply.kind == SKIP_DECISION:
        raise GateRefusal("SKIP_DECISION_REQUESTED",
                          f"`{words}` asks to leave {decision_id} without an answer: nothing "
                          "was recorded. Ask the user which way: place it out of scope "
                          f"(`mdgrill out-of-scope SPEC --decision-id {decision_id} --reply "
                          "…`) or take a default (`mdgrill record-answer … --answer DEFAULT "
                          "--assumption …`)")
    if reply.kind == ACCEPT_RECOMMENDATION:
        if reply.option is None:
            raise GateRefusal("NO_RECOMMENDATION",
                              f"`{words}` accepts the recommendation, but {decision_id} has "
                              "none (no `(Recommended)` option): ask the user to choose")
        return f"{reply.option} (accepted recommendation: \"{words}\")"
    if reply.option is not None:
        return reply.option if reply.how == "label" else \
            f"{reply.option} (option {reply.index}: \"{words}\")"
    return words


def record_answer(data: dict[str, object], prog: Progress, decision_id: str, answer: str,
                  assumption: str | None, other: bool = False) -> tuple[Change, dict[str, object]]:
    require_id(decision_id)
    iv = interview_of(data)
    _require_status(iv, "record-answer", "collecting")
    text = _answer_text(prog, decision_id, answer)
    pending = _ids(iv, "pending")
    if decision_id not in pending:
        raise GateRefusal("DECISION_NOT_PENDING",
                          f"{decision_id} is not pending (pending: {', '.join(pending) or 'none'})"
                          ": open it with `mdgrill open-frontier` first")
    _require_open_round(prog, iv, "record-answer")
    pending.remove(decision_id)
    change = Change()
    change.append_lines.append(f"- Decisions: {decision_id} -> {text}")
    if other:
        change.append_lines.append(f"- Other: {decision_id}")
    if assumption:
        note = single_line(assumption, "--assumption")
        assumptions = _ids(iv, "assumptions")
        if note not in assumptions:
            assumptions.append(note)
        change.append_lines.append(f"- Assumptions: {note}")
    change.updates["interview"] = iv
    result: dict[str, object] = {"status": "collecting", "pending": pending, "recorded": text}
    if other:
        result["next"] = (f"add the decision this `Other` answer leads to: `mdgrill node add "
                          f"SPEC ID --title T --spawned-by {decision_id}`")
    return change, result


def record_fact(data: dict[str, object], prog: Progress, text: str,
                decision_id: str | None) -> tuple[Change, dict[str, object]]:
    iv = interview_of(data)
    _require_status(iv, "record-fact", "collecting")
    fact = single_line(text, "the fact")
    _require_open_round(prog, iv, "record-fact")
    change = Change()
    pending = _ids(iv, "pending")
    if decision_id is not None:
        require_id(decision_id)
        status = spec_frontier(prog).statuses.get(decision_id)
        if status in (RESOLVED, OUT_OF_SCOPE):
            raise GateRefusal("DECISION_ALREADY_RECORDED",
                              f"{decision_id} is already {status.lower().replace('_', ' ')}: a "
                              "fact resolves an open decision, it never replaces the user's "
                              "answer; record it without --decision-id to keep it beside")
        fact = f"{decision_id} -> {fact}"
        if decision_id in pending:
            pending.remove(decision_id)
            change.updates["interview"] = iv
    change.append_lines.append(f"- Facts resolved: {fact}")
    return change, {"pending": pending}


def _require_user_words(reply: str, what: str) -> str:
    words = single_line(reply, "--reply")
    kind = classify(words).kind
    if kind in NOT_AN_ANSWER:
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{words}` is a {kind.replace('_', ' ')} reply: it does not {what}; "
                          "nothing was written. Ask the user")
    return words


def amend(data: dict[str, object], prog: Progress, decision_id: str, answer: str,
          reason: str) -> tuple[Change, dict[str, object]]:
    """`amend`: correct the wording of a recorded answer without reopening anything.

    The log stays append-only: an `- Amended: ID -> words` line (in the open round, or in an
    `Amended` block when no round is open) says how the answer reads from now on, with what it
    said before and why. Only before approval: once the interview is terminal, its record was
    approved as it stands, and changing it is a reopening.
    """
    require_id(decision_id)
    iv = interview_of(data)
    phase = str(iv["phase"])
    if iv["status"] in TERMINAL:
        raise GateRefusal("AMEND_AFTER_APPROVAL",
                          f"the {phase} interview {iv['id']} is {iv['status']}: its answers were "
                          f"approved as they read. To change what {decision_id} says, go back "
                          f"with `mdgrill reopen SPEC --phase {phase} --reason TEXT` and ask "
                          "again (before approval, `amend` corrects wording and `revise` "
                          "reopens a decision whose substance changes)")
    from mdgrill.model.tree import DEFAULTED_ANSWER, ledger_of

    ledger = ledger_of(prog)
    was = ledger.answers.get(decision_id)
    if was is None or was == DEFAULTED_ANSWER:
        raise GateRefusal("NOT_ANSWERED",
                          f"{decision_id} has no recorded answer to amend: record one with "
                          "`record-answer`")
    if classify(answer).kind in (CONTROL_ONLY, BARE_SKIP):
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{answer.strip()}` is not a wording of {decision_id}'s answer: give "
                          "the corrected text itself")
    text = single_line(answer, "--answer")
    why = single_line(reason, "--reason")
    old = was[len(decision_id) + 4:] if was.startswith(f"{decision_id} -> ") else was
    if text == old:
        raise InputError("NOTHING_TO_AMEND", f"{decision_id} already reads `{text}`")
    lines = [f"- Amended: {decision_id} -> {text}", f"- Was: {decision_id} -> {old}",
             f"- Reason: {decision_id} -> {why}"]
    change = Change()
    if _current_round_block(prog, iv) is not None and iv["status"] == "collecting":
        change.append_lines.extend(lines)
    else:
        change.block(block_heading(phase, "Grill - Amended"), lines)
    return change, {"decision": decision_id, "answer": text, "was": old, "reason": why,
                    "status": iv["status"]}


def out_of_scope(data: dict[str, object], prog: Progress, decision_id: str,
                 reply: str) -> tuple[Change, dict[str, object]]:
    """The user's words place an asked decision out of scope ("every branch is resolved or
    the user has explicitly placed it out of scope")."""
    require_id(decision_id)
    iv = interview_of(data)
    _require_status(iv, "out-of-scope", "collecting")
    words = _require_user_words(reply, f"place {decision_id} out of scope")
    if decision_id not in _ids(iv, "asked"):
        raise GateRefusal("DECISION_NOT_ASKED",
                          f"{decision_id} has not been asked in this interview: out of scope "
                          "is the user's call on a question they saw; ask it first "
                          "(`mdgrill open-frontier`)")
    _require_open_round(prog, iv, "out-of-scope")
    change = Change()
    pending = _ids(iv, "pending")
    if decision_id in pending:
        pending.remove(decision_id)
        change.updates["interview"] = iv
    change.append_lines.append(f"- Out of scope: {decision_id} -> {words}")
    return change, {"pending": pending}


def record_stop(data: dict[str, object], prog: Progress, choice: str,
                section: str | None) -> tuple[Change, dict[str, object]]:
    """The user's answer to "Ready to build?": ship, keep asking, or refine a section."""
    iv = interview_of(data)
    _require_status(iv, "record-stop", "collecting")
    _require_open_round(prog, iv, "record-stop")
    if choice == "refine" and not section:
        raise InputError("USAGE", "--choice refine names the section to refine: add --section S")
    line = f"- Stop: {choice}" + (f" (section: {single_line(section, '--section')})"
                                  if section else "")
    change = Change()
    change.append_lines.append(line)
    frontier = spec_frontier(prog)
    if choice == "ship":
        nxt = ("`mdgrill await-confirmation`" if not frontier.open else
               f"decisions {', '.join(frontier.open)} are still open: the user places each out "
               "of scope (`out-of-scope --reply`), or `skip` with assumptions, before "
               "await-confirmation")
    elif choice == "refine":
        nxt = f"ask the open decisions of section {section} (`mdgrill frontier SPEC`)"
    else:
        nxt = "ask the next frontier (`mdgrill frontier SPEC`)"
    return change, {"choice": choice, "open": frontier.open, "next": nxt}


def domain_language(data: dict[str, object], prog: Progress, term: str,
                    definition: str) -> Change:
    """The `Domain language:` line a `term add --spec` adds to the open round, if one is open."""
    change = Change()
    iv = data.get("interview")
    if isinstance(iv, dict) and iv.get("status") == "collecting" and \
            _current_round_block(prog, iv) is not None:
        change.append_lines.append(f"- Domain language: {single_line(term, 'term')} -> "
                                   f"{single_line(definition, '--definition')}")
    return change


def await_confirmation(data: dict[str, object], prog: Progress, confirmation_id: str,
                       approach: str, brief: list[str]) -> tuple[Change, dict[str, object]]:
    require_id(confirmation_id, "confirmation ID")
    text = single_line(approach, "--approach")
    iv = interview_of(data)
    _require_status(iv, "await-confirmation", "collecting")
    pending, asked = _ids(iv, "pending"), _ids(iv, "asked")
    if pending:
        raise GateRefusal("DECISIONS_PENDING", f"decisions {', '.join(pending)} are still "
                          "pending: answer them (or mark them out of scope) first")
    if confirmation_id in asked:
        raise GateRefusal("DECISION_ALREADY_RECORDED",
                          f"{confirmation_id} was already used in this interview: pick a new "
                          "confirmation ID")
    from mdgrill.core.gate import require_clear

    require_clear(prog, iv, "await-confirmation")
    change = Change()
    _close_open_round(prog, iv, change)
    asked.append(confirmation_id)
    pending.append(confirmation_id)
    iv["approach"] = text
    iv["status"] = "awaiting_confirmation"
    iv.pop("round_frontier", None)
    change.updates["interview"] = iv
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Approach: {text}"]
    if brief:
        lines.append("")
        lines.extend(("> " + line).rstrip() for line in brief)
    change.block(block_heading(str(iv["phase"]), "Grill - Awaiting Confirmation"), lines)
    return change, {"status": "awaiting_confirmation", "confirmation_id": confirmation_id,
                    "question": APPROVAL_OPTIONS}


# The final approval question, as the framework words it; only the first completes the gate.
APPROVE_LABEL = "Approve and delegate"
APPROVAL_OPTIONS = [f"{APPROVE_LABEL} (Recommended)", "Revise decisions", "Cancel"]


def confirm(data: dict[str, object], prog: Progress, confirmation_id: str,
            source: str, reply: str | None = None) -> tuple[Change, dict[str, object]]:
    iv = interview_of(data)
    _require_status(iv, "confirm", "awaiting_confirmation")
    if source != CANONICAL_CONFIRMATION:
        raise GateRefusal("INVALID_CONFIRMATION_SOURCE",
                          f"confirm takes --source {CANONICAL_CONFIRMATION} (the user's explicit "
                          f"approval), not `{source}`")
    pending = _ids(iv, "pending")
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
    pending.remove(confirmation_id)
    iv["confirmation"] = source
    iv["status"] = "skipped" if iv["bypass_reason"] is not None else "complete"
    change = Change()
    change.updates["interview"] = iv
    lines = [f"- Interview: {iv['id']}", f"- Confirmation ID: {confirmation_id}",
             f"- Source: {source}", f"- Status: {iv['status']}",
             f"- Context digest: {iv['context_digest']}"]
    if words is not None:
        lines.append(_reply_line(words))
    change.block(block_heading(str(iv["phase"]), "Grill - Confirmed"), lines)
    return change, {"status": iv["status"], "round": iv["round"]}


def _reply_line(words: str) -> str:
    """The user's verbatim reply as a block line: a JSON string, so quotes cannot end it."""
    import json

    return f"- Reply: {json.dumps(words, ensure_ascii=False)}"


def cancel(data: dict[str, object], reply: str | None) -> tuple[Change, dict[str, object]]:
    """The user chose Cancel: "leave the interview nonterminal; stop without delegation"."""
    iv = interview_of(data)
    # Cancel answers the approval question; while collecting, the round stays open instead.
    _require_status(iv, "cancel", "awaiting_confirmation")
    pending = _ids(iv, "pending")
    lines = [f"- Interview: {iv['id']}"]
    if pending:
        lines.append(f"- Confirmation ID: {pending[0]}")
    if reply is not None:
        lines.append(_reply_line(single_line(reply, "--reply")))
    change = Change()
    change.block(block_heading(str(iv["phase"]), "Grill - Cancelled"), lines)
    return change, {"status": iv["status"], "cancelled": True,
                    "next": "stop without delegating; the interview stays open for later"}


def skip(data: dict[str, object], prog: Progress, reason: str, assumptions: list[str],
         confirmation_id: str) -> tuple[Change, dict[str, object]]:
    require_id(confirmation_id, "confirmation ID")
    why = single_line(reason, "--reason")
    notes = [single_line(a, "--assumption") for a in assumptions if a.strip()]
    if not notes:
        raise InputError("ASSUMPTION_REQUIRED", "skip needs at least one --assumption: say "
                         "what you will assume in place of the skipped decisions")
    iv = interview_of(data)
    _require_status(iv, "skip", "collecting", "awaiting_confirmation")
    if not _ids(iv, "asked"):
        raise GateRefusal("NOTHING_ASKED",
                          f"interview {iv['id']} has asked nothing yet: a bare `skip` defaults "
                          "\"the remaining phase interview\" after the user has seen a question. "
                          "Ask the frontier first (`mdgrill open-frontier`); to bypass an "
                          "interview entirely, the user authorizes `mdgrill mode SPEC --quick`")
    change = Change()
    if iv["status"] == "collecting":
        _close_open_round(prog, iv, change)
    pending = _ids(iv, "pending")
    answered_before = set(_ids(iv, "asked")) - set(pending)
    retired = list(pending)
    defaulted = list(dict.fromkeys(retired + spec_frontier(prog).open))
    iv["asked"] = [i for i in _ids(iv, "asked") if i not in retired or i in answered_before]
    asked = _ids(iv, "asked")
    if confirmation_id not in asked:
        asked.append(confirmation_id)
    iv["pending"] = [confirmation_id]
    iv["status"] = "awaiting_confirmation"
    iv.pop("round_frontier", None)
    if iv["approach"] is None:
        iv["approach"] = "Skip remaining interview decisions"
    iv["bypass_reason"] = why
    recorded = _ids(iv, "assumptions")
    for note in notes:
        if note not in recorded:
            recorded.append(note)
    change.updates["interview"] = iv
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Reason: {why}",
             f"- Retired: {', '.join(retired) or 'none'}",
             f"- Defaulted: {', '.join(defaulted) or 'none'}"]
    lines.extend(f"- Assumption: {note}" for note in notes)
    change.block(block_heading(str(iv["phase"]), "Grill - Skipped"), lines)
    return change, {"status": "awaiting_confirmation", "confirmation_id": confirmation_id,
                    "defaulted": defaulted, "question": APPROVAL_OPTIONS}


def _dependents(prog: Progress, ids: list[str], answered: set[str]) -> list[str]:
    """Answered decisions that depend on `ids`, directly or through each other."""
    children: dict[str, list[str]] = {}
    for node in prog.node_index():
        for parent in prerequisites(node):
            children.setdefault(parent, []).append(node.id)
    found: list[str] = []
    queue = list(ids)
    seen = set(ids)
    while queue:
        for child in children.get(queue.pop(0), []):
            if child not in seen:
                seen.add(child)
                queue.append(child)
                if child in answered:
                    found.append(child)
    return found


def revise(data: dict[str, object], prog: Progress,
           ids: list[str]) -> tuple[Change, dict[str, object]]:
    """Reopen decisions and every answered decision that depends on them ("invalidate
    dependent answers"); ask in the next round those whose prerequisites still stand."""
    for node_id in ids:
        require_id(node_id)
    iv = interview_of(data)
    _require_status(iv, "revise", "awaiting_confirmation")
    from mdgrill.model.tree import ledger_of

    ledger = ledger_of(prog)
    named = list(dict.fromkeys(ids))
    dependents = [d for d in _dependents(prog, named, set(ledger.answered)) if d not in named]
    reopened = named + dependents
    reopened_set = set(reopened)
    index = {n.id: n for n in prog.node_index()}
    ask_now: list[str] = []
    for node_id in named:
        node = index.get(node_id)
        if node is None or not any(p in reopened_set for p in prerequisites(node)):
            ask_now.append(node_id)
    asked, pending = _ids(iv, "asked"), _ids(iv, "pending")
    answered = [i for i in asked if i not in pending]
    retired = list(pending)
    # a reopened decision is unanswered again: asked anew when the frontier reaches it
    iv["asked"] = [i for i in asked if (i not in retired or i in answered)
                   and i not in reopened_set]
    asked = _ids(iv, "asked")
    for node_id in ask_now:
        if node_id not in asked:
            asked.append(node_id)
    iv["pending"] = list(ask_now)
    rnd = iv["round"]
    assert isinstance(rnd, int)
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
    lines.append(f"- Next round: {rnd + 1}")
    change.block(block_heading(phase, "Grill - Revised"), lines)
    change.block(block_heading(phase, f"Grill - Round {rnd + 1}"),
                 [f"- Asked: {', '.join(ask_now)}"])
    previous = {i: ledger.answers[i] for i in reopened if i in ledger.answers}
    return change, {"status": "collecting", "round": rnd + 1, "pending": list(ask_now),
                    "reopened": reopened, "dependents": dependents,
                    "previous_answers": previous}


def check_delegation(prog: Progress, phase: str, interview_id: str,
                     given_digest: str | None, current_digest: str,
                     discovery_revision: str | None = None) -> dict[str, object]:
    require_phase(phase)
    from mdgrill.core.artifact_gate import superseded_interviews

    if interview_id in superseded_interviews(prog.blocks):
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
                          "authorization (`mdgrill mode SPEC --quick`): a hand-typed or imported "
                          "quick flag never bypasses the gate")
    recorded_revision = iv.get("discovery_revision")
    if discovery_revision is not None and recorded_revision is not None and \
            str(recorded_revision) != str(discovery_revision):
        raise GateRefusal("DISCOVERY_STALE",
                          f"the interview was begun at discovery revision {recorded_revision}, "
                          f"not {discovery_revision}: run skill discovery's interview again")
    if status != "bypassed_quick":
        from mdgrill.core.gate import require_clear

        require_clear(prog, iv, "check-delegation")
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
            "status": status, "context_digest": current_digest}
