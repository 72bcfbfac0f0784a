"""`mdgrill hook pretooluse`: gate Claude Code Task/Agent calls on check-delegation.

Reads the PreToolUse event on stdin and always exits 0. A call that is not a Task/Agent call,
or whose prompt has no `[MDGRILL_PHASE_GATE]` marker, passes with no output (Claude Code's
normal permission flow goes on). A gated call gets `permissionDecision` `allow` or `deny`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from mdgrill.cli.verbs import Outcome
from mdgrill.errors import MdgrillError
from mdgrill.integrations import hook
from mdgrill.shell import store

EVENTS = ("pretooluse", "sessionstart")


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("event", choices=EVENTS, help="the hook event, its JSON on stdin: "
                   "pretooluse (gate Agent/Task calls) or sessionstart (the open interviews "
                   "into the agent's context)")


def run(args: argparse.Namespace) -> Outcome:
    raw = sys.stdin.buffer.read(hook.MAX_EVENT_BYTES + 1)
    if args.event == "sessionstart":
        return session_start(raw, args.root)
    decision = decide(raw, args.root)
    if decision is None:
        return Outcome({"decision": "pass"}, "")
    kind, reason = decision
    out = hook.answer(kind, reason)
    return Outcome(out, json.dumps(out, ensure_ascii=False))


def decide(raw: bytes, root: str | None = None) -> tuple[str, str] | None:
    """(allow|deny, reason) for a gated call; None when the call is not ours to gate."""
    marked = hook.MARKER_OPEN.encode() in raw
    try:
        if len(raw) > hook.MAX_EVENT_BYTES:
            raise MdgrillError("MALFORMED_EVENT", "the hook input is larger than 8 MB")
        event = hook.parse_event(raw)
        prompt = hook.gated_prompt(event)
        if prompt is None or not hook.has_marker(prompt):
            if marked and event.get("tool_name") in hook.GATED_TOOLS and \
                    not isinstance(prompt, str):
                raise MdgrillError("MALFORMED_EVENT", "the Task call carries the gate marker but "
                                   "its tool_input.prompt is not text")
            return None
        gates = hook.parse_gates(prompt)
        cwd = event.get("cwd")
        if cwd is None:
            cwd = os.getcwd()
        if not isinstance(cwd, str) or not os.path.isdir(cwd):
            raise MdgrillError("MALFORMED_EVENT", f"the event's cwd `{cwd}` is not a folder")
        texts = [_check(gate, cwd, root) for gate in gates]
    except MdgrillError as exc:
        return ("deny", f"{exc.code}: {exc.message}") if marked else None
    except Exception as exc:  # noqa: BLE001 - a hook must answer, never print a traceback
        if not marked:
            return None
        return "deny", f"INTERNAL_ERROR: mdgrill could not check the gate ({exc!r})"
    return "allow", "; ".join(texts)


def _check(gate: hook.Gate, cwd: str, root: str | None) -> str:
    """Run check-delegation for one gate block in-process; raise its refusal."""
    from mdgrill.core.machine import require_id, require_phase
    from mdgrill.services.delegation import check_delegation
    from mdgrill.shell import store

    require_phase(gate.phase)
    require_id(gate.interview, "interview ID")
    path = gate.spec if os.path.isabs(gate.spec) else os.path.join(cwd, gate.spec)
    spec = store.resolve_spec(path, root)
    _, text = check_delegation(spec, gate.phase, gate.interview, gate.digest, gate.revision)
    return f"mdgrill: {text}"


def session_start(raw: bytes, root: str | None = None) -> Outcome:
    """SessionStart: every spec of the repository whose interview is under way, with its
    phase, round, pending questions and frontier, as context for a started, resumed or
    compacted session (so it picks the interview up where it was). Never fails the session."""
    try:
        event = json.loads(raw.decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        event = {}
    cwd = event.get("cwd") if isinstance(event, dict) else None
    top = root or store.find_root(cwd if isinstance(cwd, str) and os.path.isdir(cwd)
                                  else os.getcwd())
    lines: list[str] = []
    for folder in store.find_specs(top)[:20]:
        try:
            lines.extend(_spec_lines(store.Spec(folder, top)))
        except MdgrillError as exc:
            lines.append(f"- {store.relpath_posix(folder, top)}: {exc.code}: {exc.message}")
    text = ("mdgrill: interviews under way (run `mdgrill status SPEC` for one):\n"
            + "\n".join(lines)) if lines else ""
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                    "additionalContext": text}}
    return Outcome(out, json.dumps(out, ensure_ascii=False) if text else "")


def _spec_lines(spec: store.Spec) -> list[str]:
    from mdgrill.model.record import TERMINAL
    from mdgrill.model.tree import spec_frontier
    from mdgrill.shell.session import load

    prog = load(spec, check=False)
    iv = prog.data.get("interview")
    if not isinstance(iv, dict) or iv.get("status") in TERMINAL:
        return []
    pending = iv.get("pending") or []
    frontier = spec_frontier(prog).frontier
    return [f"- {spec.rel_folder}: phase {prog.data.get('phase')}, interview {iv.get('id')} "
            f"{iv.get('status')}, round {iv.get('round')}; pending: "
            f"{', '.join(map(str, pending)) or 'none'}; frontier: {', '.join(frontier) or 'none'}"
            f"; next: `mdgrill {'answer' if pending else 'ask'} {spec.rel_folder}`"]
