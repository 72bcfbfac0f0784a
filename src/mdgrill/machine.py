"""The interview state machine: old record + command -> new record + lines to append, or a refusal.

Pure: no files, no git. The semantics are smart-ralph's `phase_gate.py` (DESIGN §5) with the
state kept in `.progress.md`; each transition also says what the log gains.
"""

from __future__ import annotations

from .errors import GateRefusal, InputError
from .progress import Block, Change, Progress, block_heading, single_line
from .record import CANONICAL_CONFIRMATION, PHASES, TERMINAL, check_record, is_id, new_interview
from .replies import BARE_SKIP, CONTROL_ONLY, classify_reply

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
    from .tree import frontier_ids

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


def set_mode(data: dict[str, object], quick: bool) -> tuple[Change, dict[str, object]]:
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
    return change, {"mode": mode, "interview_reset": reset}


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


def begin_interview(data: dict[str, object], phase: str, interview_id: str,
                    round_number: int | None, discovery_revision: str | None, digest: str,
                    context: list[dict[str, str]]) -> tuple[Change, dict[str, object]]:
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
    status = "bypassed_quick" if quick else "collecting"
    iv = new_interview(phase, interview_id, round_number or 1, status, digest, context)
    change.updates["interview"] = iv
    change.updates["phase"] = phase
    if discovery_revision is not None:
        change.updates["discovery_revision"] = (
            int(discovery_revision) if discovery_revision.isdigit() else discovery_revision)
    if quick:
        change.block(block_heading(phase, "Grill - Bypassed"),
                     [f"- Interview: {interview_id}", "- Reason: Explicit --quick authorization",
                      f"- Context digest: {digest}"])
    return change, {"status": status, "resumed": False, "round": iv["round"],
                    "context_digest": digest}


def open_frontier(data: dict[str, object], prog: Progress, round_number: int,
                  ids: list[str]) -> tuple[Change, dict[str, object]]:
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
    for node_id in new_ids:
        if node_id not in asked_set:
            asked.append(node_id)
            asked_set.add(node_id)
        pending.append(node_id)
    iv["round"] = round_number
    change = Change()
    change.updates["interview"] = iv
    block = _current_round_block(prog, iv) if round_number == current else None
    if block is not None:
        if new_ids:
            change.append_lines.append(f"- Asked: {', '.join(new_ids)}")
    else:
        old = dict(iv)
        old["round"] = current
        _close_open_round(prog, old, change)
        change.block(block_heading(str(iv["phase"]), f"Grill - Round {round_number}"),
                     [f"- Asked: {', '.join(ids)}"])
    if not change.touches_log and not new_ids:
        change.updates.pop("interview")
    return change, {"round": round_number, "pending": pending}


def record_answer(data: dict[str, object], prog: Progress, decision_id: str, answer: str,
                  assumption: str | None) -> tuple[Change, dict[str, object]]:
    require_id(decision_id)
    iv = interview_of(data)
    _require_status(iv, "record-answer", "collecting")
    kind = classify_reply(answer)
    if kind in (CONTROL_ONLY, BARE_SKIP):
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{answer.strip()}` is a {kind.replace('_', ' ')} reply, not an answer "
                          f"to {decision_id}: ask again, or use `mdgrill skip` to skip with "
                          "assumptions")
    text = single_line(answer, "--answer")
    pending = _ids(iv, "pending")
    if decision_id not in pending:
        raise GateRefusal("DECISION_NOT_PENDING",
                          f"{decision_id} is not pending (pending: {', '.join(pending) or 'none'})"
                          ": open it with `mdgrill open-frontier` first")
    _require_open_round(prog, iv, "record-answer")
    pending.remove(decision_id)
    change = Change()
    change.append_lines.append(f"- Decisions: {decision_id} -> {text}")
    if assumption:
        note = single_line(assumption, "--assumption")
        assumptions = _ids(iv, "assumptions")
        if note not in assumptions:
            assumptions.append(note)
        change.append_lines.append(f"- Assumptions: {note}")
    change.updates["interview"] = iv
    return change, {"status": "collecting", "pending": pending}


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
        fact = f"{decision_id} -> {fact}"
        if decision_id in pending:
            pending.remove(decision_id)
            change.updates["interview"] = iv
    change.append_lines.append(f"- Facts resolved: {fact}")
    return change, {"pending": pending}


def out_of_scope(data: dict[str, object], prog: Progress,
                 decision_id: str) -> tuple[Change, dict[str, object]]:
    require_id(decision_id)
    iv = interview_of(data)
    _require_status(iv, "out-of-scope", "collecting")
    _require_open_round(prog, iv, "out-of-scope")
    change = Change()
    pending = _ids(iv, "pending")
    if decision_id in pending:
        pending.remove(decision_id)
        change.updates["interview"] = iv
    change.append_lines.append(f"- Out of scope: {decision_id}")
    return change, {"pending": pending}


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
    from .tree import spec_frontier

    frontier = spec_frontier(prog)
    if frontier.open_subthreads:
        parent, children = next(iter(frontier.open_subthreads.items()))
        raise GateRefusal("OPEN_SUBTHREAD", f"{parent} is resolved but its sub-question(s) "
                          f"{', '.join(children)} are still open: ask them first")
    if frontier.unresolved_sections:
        raise GateRefusal("REQUIRED_SECTION_EMPTY", "required section(s) "
                          f"{', '.join(frontier.unresolved_sections)} have no resolved node: "
                          "ask a decision there first")
    change = Change()
    _close_open_round(prog, iv, change)
    asked.append(confirmation_id)
    pending.append(confirmation_id)
    iv["approach"] = text
    iv["status"] = "awaiting_confirmation"
    change.updates["interview"] = iv
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Approach: {text}"]
    if brief:
        lines.append("")
        lines.extend(("> " + line).rstrip() for line in brief)
    change.block(block_heading(str(iv["phase"]), "Grill - Awaiting Confirmation"), lines)
    return change, {"status": "awaiting_confirmation", "confirmation_id": confirmation_id}


def confirm(data: dict[str, object], confirmation_id: str,
            source: str) -> tuple[Change, dict[str, object]]:
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
    pending.remove(confirmation_id)
    iv["confirmation"] = source
    iv["status"] = "skipped" if iv["bypass_reason"] is not None else "complete"
    change = Change()
    change.updates["interview"] = iv
    change.block(block_heading(str(iv["phase"]), "Grill - Confirmed"),
                 [f"- Interview: {iv['id']}", f"- Confirmation ID: {confirmation_id}",
                  f"- Source: {source}", f"- Status: {iv['status']}",
                  f"- Context digest: {iv['context_digest']}"])
    return change, {"status": iv["status"], "round": iv["round"]}


def skip(data: dict[str, object], prog: Progress, reason: str, assumptions: list[str],
         confirmation_id: str) -> tuple[Change, dict[str, object]]:
    require_id(confirmation_id, "confirmation ID")
    why = single_line(reason, "--reason")
    notes = [single_line(a, "--assumption") for a in assumptions if a.strip()]
    if not notes:
        raise GateRefusal("ASSUMPTION_REQUIRED", "skip needs at least one --assumption: say "
                          "what you will assume in place of the skipped decisions")
    iv = interview_of(data)
    _require_status(iv, "skip", "collecting", "awaiting_confirmation")
    change = Change()
    if iv["status"] == "collecting":
        _close_open_round(prog, iv, change)
    pending = _ids(iv, "pending")
    answered_before = set(_ids(iv, "asked")) - set(pending)
    retired = list(pending)
    iv["asked"] = [i for i in _ids(iv, "asked") if i not in retired or i in answered_before]
    asked = _ids(iv, "asked")
    if confirmation_id not in asked:
        asked.append(confirmation_id)
    iv["pending"] = [confirmation_id]
    iv["status"] = "awaiting_confirmation"
    if iv["approach"] is None:
        iv["approach"] = "Skip remaining interview decisions"
    iv["bypass_reason"] = why
    recorded = _ids(iv, "assumptions")
    for note in notes:
        if note not in recorded:
            recorded.append(note)
    change.updates["interview"] = iv
    lines = [f"- Confirmation ID: {confirmation_id}", f"- Reason: {why}",
             f"- Retired: {', '.join(retired) or 'none'}"]
    lines.extend(f"- Assumption: {note}" for note in notes)
    change.block(block_heading(str(iv["phase"]), "Grill - Skipped"), lines)
    return change, {"status": "awaiting_confirmation", "confirmation_id": confirmation_id}


def revise(data: dict[str, object], ids: list[str]) -> tuple[Change, dict[str, object]]:
    for node_id in ids:
        require_id(node_id)
    iv = interview_of(data)
    _require_status(iv, "revise", "awaiting_confirmation")
    asked, pending = _ids(iv, "asked"), _ids(iv, "pending")
    answered = [i for i in asked if i not in pending]
    retired = list(pending)
    iv["asked"] = [i for i in asked if i not in retired or i in answered]
    asked = _ids(iv, "asked")
    new_pending: list[str] = []
    for node_id in ids:
        if node_id not in asked:
            asked.append(node_id)
        if node_id not in new_pending:
            new_pending.append(node_id)
    iv["pending"] = new_pending
    rnd = iv["round"]
    assert isinstance(rnd, int)
    iv["round"] = rnd + 1
    iv["status"] = "collecting"
    iv["approach"] = None
    iv["confirmation"] = None
    iv["bypass_reason"] = None
    change = Change()
    change.updates["interview"] = iv
    phase = str(iv["phase"])
    change.block(block_heading(phase, "Grill - Revised"),
                 [f"- Retired: {', '.join(retired) or 'none'}",
                  f"- Reopened: {', '.join(new_pending)}", f"- Next round: {rnd + 1}"])
    change.block(block_heading(phase, f"Grill - Round {rnd + 1}"),
                 [f"- Asked: {', '.join(new_pending)}"])
    return change, {"status": "collecting", "round": rnd + 1, "pending": new_pending}


def check_delegation(data: dict[str, object], phase: str, interview_id: str,
                     given_digest: str | None, current_digest: str) -> dict[str, object]:
    require_phase(phase)
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
