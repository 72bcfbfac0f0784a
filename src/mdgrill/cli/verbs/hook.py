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
from collections.abc import Iterator
from contextlib import contextmanager

from mdgrill.cli.verbs import Outcome, Verb
from mdgrill.errors import MdgrillError
from mdgrill.git.discovery import find_root
from mdgrill.integrations import hook
from mdgrill.shell import store

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.services.delegation import Claim

EVENTS = ("pretooluse", "sessionstart", "posttooluse", "userpromptsubmit")


BUDGET = 20.0  # seconds: well under the 30 s hooks.json gives a hook, start-up included


class HookTimeout(BaseException):
    """The hook's own time budget ran out (a BaseException, so no `except Exception` on the
    way can swallow it and let a gated call through)."""


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("event", choices=EVENTS, help="the hook event, its JSON on stdin: "
                   "pretooluse (gate Agent/Task calls), sessionstart (the open interviews "
                   "into the agent's context), posttooluse (Edit/Write: block an edit of a "
                   "recorded round; AskUserQuestion: journal the reply), userpromptsubmit "
                   "(journal the user's words)")
    p.add_argument("--budget", type=float, default=BUDGET, metavar="SECONDS",
                   help=f"give up after this many seconds (default {BUDGET:g}, under the host's "
                   "30 s hook timeout): a gated call is then denied, other events answer nothing")


def run(args: argparse.Namespace) -> Outcome:
    """Every hook answers in the host's JSON shape or not at all, and exits 0: a crash, a
    timeout or unreadable input never reaches the host as a traceback."""
    raw = b""
    try:
        with _budget(args.budget):
            raw = sys.stdin.buffer.read(hook.MAX_EVENT_BYTES + 1)
            if args.event == "pretooluse":
                return _pre_tool_use(decide(raw, args.root))
            if args.event == "sessionstart":
                return session_start(raw, args.root)
            if args.event == "posttooluse":
                return post_tool_use(raw, args.root)
            return user_prompt(raw, args.root)
    except (HookTimeout, Exception) as exc:  # noqa: BLE001 - a hook never fails the host
        if args.event != "pretooluse":
            return Outcome({"decision": "pass"}, "")
        if not raw:  # time ran out before the event was read: read it now to see if it is gated
            raw = _read_rest()
        return _pre_tool_use(_unchecked(raw, exc))


def _read_rest() -> bytes:
    try:
        return sys.stdin.buffer.read(hook.MAX_EVENT_BYTES + 1)
    except (OSError, ValueError):
        return b""


def _pre_tool_use(decision: tuple[str, str] | None) -> Outcome:
    if decision is None:
        return Outcome({"decision": "pass"}, "")
    kind, reason = decision
    out = hook.answer(kind, reason)
    return Outcome(out, json.dumps(out, ensure_ascii=False))


@contextmanager
def _budget(seconds: float) -> Iterator[None]:
    """Raise HookTimeout in the main thread after `seconds`; and should that never get to run
    (a C call that does not return), end the process outright a few seconds later, which the
    plugin's hook script answers with a deny for a gated call."""
    import faulthandler
    import signal

    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise HookTimeout(f"mdgrill could not finish within its {seconds:g} s budget")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    with open(os.devnull, "w") as sink:  # the last resort's traceback goes nowhere
        faulthandler.dump_traceback_later(seconds + 3, exit=True, file=sink)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            faulthandler.cancel_dump_traceback_later()


def decide(raw: bytes, root: str | None = None) -> tuple[str, str] | None:
    """(allow|deny, reason) for a gated call; None when the call is not ours to gate.

    Gated means the decoded prompt carries the marker (an escaped `\\u005b...` marker counts:
    the bytes are never the test), the sub-agent type writes a phase's artifact
    (`.mdgrill.yaml` `delegation.agents`), or the prompt names a spec of the repository. An
    event too broken to decode is denied when the marker can be in it at all."""
    try:
        event = hook.parse_event(raw)
    except MdgrillError as exc:
        return _unchecked(raw, exc)
    prompt = hook.gated_prompt(event)
    if prompt is None:
        if hook.marked_event(event):
            return "deny", ("MALFORMED_EVENT: the Task call carries the gate marker but its "
                            "tool_input.prompt is not text")
        if not hook.sub_agent_call(event) or hook.subagent_type(event) is None:
            return None
        prompt = ""  # an agent call without a prompt: its type may still be an artifact agent
    marked = hook.has_marker(prompt)
    try:
        from mdgrill.services.delegation import check_call

        claims = [_claim(gate) for gate in hook.parse_gates(prompt)] if marked else []
        texts = check_call(event.get("cwd"), prompt, hook.subagent_type(event), claims, root)
    except MdgrillError as exc:
        return "deny", f"{exc.code}: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - a hook must answer, never print a traceback
        return "deny", f"INTERNAL_ERROR: mdgrill could not check the gate ({exc!r})"
    # an unmarked call that passed is left to Claude Code's normal permission flow
    return ("allow", "; ".join(texts)) if marked else None


def _claim(gate: hook.Gate) -> Claim:
    from mdgrill.services.delegation import Claim

    return Claim(gate.spec, gate.phase, gate.interview, gate.digest, gate.revision)


def _unchecked(raw: bytes, exc: BaseException) -> tuple[str, str] | None:
    """The answer for an event mdgrill could not check: a deny when it may be gated (the
    event was too large, too broken to decode, or time ran out before it was read), else
    None."""
    if isinstance(exc, MdgrillError):
        reason = f"{exc.code}: {exc.message}"
    elif isinstance(exc, HookTimeout):
        reason = f"HOOK_TIMEOUT: {exc}; the gated delegation is denied"
    else:
        reason = f"INTERNAL_ERROR: mdgrill could not check the gate ({exc!r})"
    if len(raw) > hook.MAX_EVENT_BYTES or hook.marked_unreadable(raw):
        return "deny", reason
    try:
        event = hook.parse_event(raw)
    except MdgrillError:
        return None  # not JSON, and no marker in it in any spelling
    return ("deny", reason) if hook.marked_event(event) else None


def session_start(raw: bytes, root: str | None = None) -> Outcome:
    """SessionStart: every spec of the repository whose interview is under way, with its
    phase, round, pending questions and frontier, as context for a started, resumed or
    compacted session (so it picks the interview up where it was). Never fails the session."""
    top = _top(_event(raw), root)
    lines: list[str] = []
    declared = _declared_skills(top)
    for folder in store.find_specs(top)[:20]:
        try:
            lines.extend(_spec_lines(store.Spec(folder, top), declared))
        except MdgrillError as exc:
            lines.append(f"- {store.relpath_posix(folder, top)}: {exc.code}: {exc.message}")
    text = ("mdgrill: interviews under way (run `mdgrill status SPEC` for one):\n"
            + "\n".join(lines)) if lines else ""
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                    "additionalContext": text}}
    return Outcome(out, json.dumps(out, ensure_ascii=False) if text else "")


def _declared_skills(top: str) -> list[str]:
    from mdgrill.shell.project import declared_skills

    try:
        return declared_skills(top)
    except MdgrillError:
        return []  # a broken .mdgrill.yaml is the gate's to report, not the session start's


def _spec_lines(spec: store.Spec, declared: list[str]) -> list[str]:
    from mdgrill.formats.schema import TERMINAL
    from mdgrill.model.tree import spec_frontier
    from mdgrill.shell.session import load

    prog = load(spec, check=False)
    iv = prog.data.get("interview")
    header = prog.data.get("skill_manifest")
    lines: list[str] = []
    if declared and (not isinstance(iv, dict) or iv.get("status") not in TERMINAL) and \
            (not isinstance(header, dict) or (isinstance(iv, dict)
                                              and header.get("interview_id") != iv.get("id"))):
        # "Record the load manifest with `phase_gate.py record-skill-load`" (mdgrill's verb
        # of that name), before beginning or resuming
        lines.append(f"- {spec.rel_folder}: no load manifest for its interview: load the "
                     f"skills this project declares ({', '.join(declared)}) and record it "
                     f"with `mdgrill record-skill-load {spec.rel_folder} --input "
                     "MANIFEST.json` before `begin-interview`")
    if not isinstance(iv, dict) or iv.get("status") in TERMINAL:
        return lines
    pending = iv.get("pending") or []
    frontier = spec_frontier(prog).frontier
    lines.append(f"- {spec.rel_folder}: phase {prog.data.get('phase')}, interview {iv.get('id')} "
            f"{iv.get('status')}, round {iv.get('round')}; pending: "
            f"{', '.join(map(str, pending)) or 'none'}; frontier: {', '.join(frontier) or 'none'}"
            f"; next: `mdgrill {'answer' if pending else 'ask'} {spec.rel_folder}`")
    return lines


def _event(raw: bytes) -> dict[str, object]:
    try:
        event = json.loads(raw.decode("utf-8", "replace") or "{}")
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser follows
        return {}
    return event if isinstance(event, dict) else {}


def _top(event: dict[str, object], root: str | None) -> str:
    cwd = event.get("cwd")
    return root or find_root(cwd if isinstance(cwd, str) and os.path.isdir(cwd)
                                   else os.getcwd())


def post_tool_use(raw: bytes, root: str | None = None) -> Outcome:
    """After Edit/Write of a `.progress.md`: block (tell the agent) only when a recorded round
    was edited; other problems are `validate`'s to report. After AskUserQuestion: journal the
    user's answers."""
    event = _event(raw)
    tool = event.get("tool_name")
    if tool == "AskUserQuestion":
        response = event.get("tool_response")
        answers = response.get("answers") if isinstance(response, dict) else None
        if isinstance(answers, dict):
            pairs = [(str(q), str(a)) for q, a in answers.items()]
            text = "\n".join(f"{q}: {a}" for q, a in pairs)
            # each answer with its question: evidence is the answer to the approval question
            _journal(event, root, "AskUserQuestion", text, pairs)
        return Outcome({"decision": "pass"}, "")
    tool_input = event.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if tool not in ("Edit", "Write", "MultiEdit") or not isinstance(path, str) or \
            os.path.basename(path) != store.PROGRESS:
        return Outcome({"decision": "pass"}, "")
    from mdgrill.checks.spec import validate_progress_bytes

    cwd = event.get("cwd")
    full = path if os.path.isabs(path) or not isinstance(cwd, str) else os.path.join(cwd, path)
    try:
        data = store.read_file(full, path)
    except MdgrillError:
        return Outcome({"decision": "pass"}, "")
    edited = [d for d in validate_progress_bytes(data, path) if d.code == "ROUND_EDITED"]
    if not edited:
        return Outcome({"decision": "pass"}, "")
    out: dict[str, object] = {
        "decision": "block",
        "reason": f"{path}:{edited[0].line}: a recorded round was edited ({edited[0].message}). "
                  "Recorded rounds are append-only: put them back with `mdgrill restore "
                  f"{os.path.dirname(path) or '.'}`, and change answers only through mdgrill "
                  "(`amend`, `revise`, `reopen`)"}
    return Outcome(out, json.dumps(out, ensure_ascii=False))


def user_prompt(raw: bytes, root: str | None = None) -> Outcome:
    """UserPromptSubmit: journal the user's words (never blocks the prompt)."""
    event = _event(raw)
    prompt = event.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        _journal(event, root, "UserPromptSubmit", prompt)
    return Outcome({"decision": "pass"}, "")


def _journal(event: dict[str, object], root: str | None, source: str, text: str,
             answers: list[tuple[str, str]] | None = None) -> None:
    from mdgrill.shell import journal

    session = event.get("session_id")
    journal.append(_top(event, root), source, text,
                   session if isinstance(session, str) else None, answers)


VERBS = (
    Verb("hook", "Agent hooks: `hook pretooluse` gates Task calls on check-delegation.",
         _arguments, run),
)
