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

EVENTS = ("pretooluse",)


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("event", choices=EVENTS, help="the hook event: pretooluse (reads the event "
                   "JSON on stdin)")


def run(args: argparse.Namespace) -> Outcome:
    raw = sys.stdin.buffer.read(hook.MAX_EVENT_BYTES + 1)
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
