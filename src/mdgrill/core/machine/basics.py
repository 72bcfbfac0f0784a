"""The interview record's basics: IDs and phases, the open round and how it closes, a reset."""

from __future__ import annotations

from mdgrill.core.hints import spec_arg
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Block, Change, Progress, block_heading
from mdgrill.formats.schema import PHASES, is_id
from mdgrill.model.record import str_list_field

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
    return {k: (_list_copy(v) if isinstance(v, list) else v) for k, v in iv.items()}


def _list_copy(items: list[object]) -> list[object]:
    """A copy of one of the interview's lists, each mapping in it copied too: a list with no
    mapping (the 10,000 IDs of `asked`) is copied at C speed, its items' types read once."""
    if not any(issubclass(kind, dict) for kind in set(map(type, items))):
        return items.copy()
    return [dict(x) if isinstance(x, dict) else x for x in items]


def id_list(iv: dict[str, object], key: str) -> list[str]:
    """One of the interview's ID lists (`asked`, `pending`, `assumptions`), itself."""
    return str_list_field(iv, key, "interview")


def next_confirmation_id(iv: dict[str, object]) -> str:
    """An ID the next `await-confirmation` takes: C1, or one past the highest C<n> the
    interview's `asked` list holds (await-confirmation refuses an ID already there)."""
    used = [int(i[1:]) for i in id_list(iv, "asked") if i[:1] == "C" and i[1:].isdigit()]
    return f"C{max(used, default=0) + 1}"


def _next_step(iv: dict[str, object], spec: str) -> str:
    """What the interview's status lets the user do next, as commands to run."""
    status, phase = iv["status"], iv["phase"]
    if status == "collecting":
        return (f"its round is still open: ask it (`mdgrill ask {spec}`) and record the reply "
                f"(`mdgrill answer {spec} --tool-result -`); once nothing is open, present the "
                f"approach (`mdgrill await-confirmation {spec} --decision-id "
                f"{next_confirmation_id(iv)} --approach TEXT`)")
    if status == "awaiting_confirmation":
        return (f"its approach awaits the user's approval: ask the approval question "
                f"(`mdgrill ask {spec}`) and record the selection with `mdgrill confirm`, "
                "`mdgrill revise` or `mdgrill cancel`")
    return (f"it is over: to change what it recorded, go back with `mdgrill reopen {spec} "
            f"--phase {phase} --reason TEXT`; to go on, begin the next phase's interview")


def require_status(iv: dict[str, object], verb: str, *allowed: str, spec: str = "SPEC") -> None:
    if iv["status"] not in allowed:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"{verb} needs an interview that is {' or '.join(allowed)}; "
                          f"interview {iv['id']} is {iv['status']}: "
                          f"{_next_step(iv, spec)}")


def current_round_block(prog: Progress, iv: dict[str, object]) -> Block | None:
    last = prog.last_block()
    if last is not None and last.kind == "round" and last.phase == iv["phase"] and \
            last.round == iv["round"]:
        return last
    return None


def require_open_round(prog: Progress, iv: dict[str, object], verb: str) -> Block:
    block = current_round_block(prog, iv)
    if block is None:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"{verb} writes into the open round, and the log's last block is not "
                          f"round {iv['round']} of {iv['phase']}: run `mdgrill open-frontier "
                          f"{spec_arg(prog.path)} --round {iv['round']} --decision-id ID` first")
    return block


def close_round_lines(prog: Progress, block: Block) -> list[str]:
    """The lines that close a round: the five keys it lacks (as `none`) and the frontier."""
    from mdgrill.model.tree import frontier_ids

    present = {e.key.lower() for e in block.entries}
    lines = [f"- {key}: none" for key in ROUND_KEYS if key.lower() not in present]
    lines.append(f"- Frontier after round: {', '.join(frontier_ids(prog)) or 'none'}")
    return lines


def close_open_round(prog: Progress, iv: dict[str, object], change: Change) -> None:
    block = current_round_block(prog, iv)
    if block is not None and not block.get("Frontier after round"):
        change.append_lines.extend(close_round_lines(prog, block))


def reset_interview(data: dict[str, object], change: Change, reason: str,
                    reopened: list[str] | None = None) -> bool:
    """End the open interview with a Reset block; `reopened`: the decisions it settled that
    are open again (the ledger drops their answers, as after a Revised block)."""
    iv = data.get("interview")
    if not isinstance(iv, dict):
        return False
    change.updates["interview"] = None
    lines = [f"- Interview: {iv['id']}", f"- Reason: {reason}"]
    if reopened:
        lines.append(f"- Reopened: {', '.join(reopened)}")
    change.block(block_heading(str(iv["phase"]), "Grill - Reset"), lines)
    return True


def next_interview_id(interview_id: str) -> str:
    """An ID for the interview after `interview_id`: its trailing number plus one (`r1` ->
    `r2`, `req-1` -> `req-2`), else `-2` added."""
    stem = interview_id.rstrip("0123456789")
    digits = interview_id[len(stem):]
    return f"{stem}{int(digits) + 1}" if digits and stem else f"{interview_id}-2"


# -- verbs ---------------------------------------------------------------------------------


def require_discovery(iv: dict[str, object], interview_id: str, given: str | None,
                      then: str) -> None:
    """"Begin or resume the interview with the matching … discovery revision": a revision
    given must be the one the interview began at (one begun without a revision was not begun
    at this one either); DISCOVERY_STALE, with `then`, what to do instead."""
    recorded = iv.get("discovery_revision")
    if given is None or str(recorded) == str(given):
        return
    began = "without a discovery revision" if recorded is None else \
        f"at discovery revision {recorded}"
    raise GateRefusal("DISCOVERY_STALE",
                      f"interview {interview_id} was begun {began}, not {given}: {then}",
                      details={"recorded": recorded, "given": given})


# -- a context that must still be the one the interview began on (every gate verb checks it,
# so it sits here, not with begin-interview: a verb loads what it uses)


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
        "nothing was written. An interview keeps the context it began with: begin a new "
        f"one for the new context, `mdgrill begin-interview SPEC --phase {iv.get('phase')} "
        f"--interview-id {next_interview_id(str(iv.get('id')))}` (the decisions "
        f"{iv.get('id')} settled are reopened, their old answers shown, and asked again; "
        "its rounds stay in the log)",
        details={"recorded": iv.get("context_digest"), "current": digest, "changed": what})
