"""Claude Code PreToolUse hook (pure): find `[MDGRILL_PHASE_GATE]` blocks, shape the answer.

A delegation prompt carries one block per gated phase, each line `key: value` (or `key=value`):

    [MDGRILL_PHASE_GATE]
    spec: specs/passwordless-login
    phase: requirements
    interview: req-1
    digest: 3f9c...(64 lowercase hex)
    [/MDGRILL_PHASE_GATE]

`spec`, `phase` and `interview` are required; `digest` (the context digest the coordinator
holds) and `revision` (the discovery revision) are optional. The gate fails closed: once the
marker text appears in a Task/Agent prompt, anything it cannot read is a deny.
"""

from __future__ import annotations

import json
import re

from mdgrill.checks.prompt import GATE_CLOSE, GATE_OPEN
from mdgrill.errors import InputError

MARKER_OPEN = GATE_OPEN
MARKER_CLOSE = GATE_CLOSE
GATED_TOOLS = frozenset({"Task", "Agent"})
EVENT = "PreToolUse"
KEYS = {"spec": "spec", "phase": "phase", "interview": "interview", "interview_id": "interview",
        "interviewid": "interview", "digest": "digest", "context_digest": "digest",
        "contextdigest": "digest", "revision": "revision", "discovery_revision": "revision",
        "discoveryrevision": "revision"}
REQUIRED = ("spec", "phase", "interview")
# One gate line: the key and the rest; the value's surrounding blanks go by str.strip, since
# a lazy value before an optional blank tail (`(.*?)\s*\Z`) backtracks quadratically.
_LINE = re.compile(r"([A-Za-z_]+)\s*[:=](.*)")
_SHA = re.compile(r"[0-9a-f]{64}\Z")
MAX_EVENT_BYTES = 8 * 1024 * 1024
MAX_VALUE = 1024  # characters of one gate value: a path longer than this is no spec of ours
MAX_REASON = 1500  # characters of a deny reason: its code, its start and its advice survive


class Gate:
    """One gate block: which spec, phase and interview a delegation depends on."""

    __slots__ = ("spec", "phase", "interview", "digest", "revision", "line")

    def __init__(self, values: dict[str, str], line: int) -> None:
        self.spec = values["spec"]
        self.phase = values["phase"]
        self.interview = values["interview"]
        self.digest = values.get("digest")
        self.revision = values.get("revision")
        self.line = line  # 1-based line of the opening marker in the prompt

    def __repr__(self) -> str:
        return f"Gate({self.spec!r}, {self.phase!r}, {self.interview!r})"


def render_gate(spec: str, phase: str, interview: str, digest: str | None = None) -> str:
    """The block a coordinator puts into a delegation prompt."""
    lines = [MARKER_OPEN, f"spec: {spec}", f"phase: {phase}", f"interview: {interview}"]
    if digest:
        lines.append(f"digest: {digest}")
    lines.append(MARKER_CLOSE)
    return "\n".join(lines)


def parse_event(raw: bytes) -> dict[str, object]:
    """The hook event object; InputError when stdin is not one JSON object."""
    if len(raw) > MAX_EVENT_BYTES:
        raise InputError("MALFORMED_EVENT", "the hook input is larger than 8 MB")
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError("MALFORMED_EVENT", f"the hook input is not JSON ({exc})") from None
    except RecursionError:
        raise InputError("MALFORMED_EVENT", "the hook input is nested too deeply to read "
                         "as JSON") from None
    if not isinstance(value, dict):
        raise InputError("MALFORMED_EVENT", "the hook input must be a JSON object")
    return value


def has_marker(text: str) -> bool:
    return MARKER_OPEN in text


_JSON_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")


def marked_unreadable(raw: bytes) -> bool:
    """Whether an event that is not readable JSON may carry the marker: its text with every
    `\\uXXXX` escape decoded, as the JSON parser would have (the marker has no other escape)."""
    text = raw[:MAX_EVENT_BYTES].decode("utf-8", "replace")
    return MARKER_OPEN in _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def gated_tool(event: dict[str, object]) -> bool:
    """Whether the event names a Task/Agent call (a `tool_name` that is no string, a list or
    an object, names none: it must not stop the hook)."""
    name = event.get("tool_name")
    return isinstance(name, str) and name in GATED_TOOLS


def marked_event(event: dict[str, object]) -> bool:
    """Whether a Task/Agent call carries the marker anywhere in its decoded tool input."""
    if not gated_tool(event):
        return False
    tool_input = event.get("tool_input")
    if isinstance(tool_input, str):
        return MARKER_OPEN in tool_input
    try:
        return MARKER_OPEN in json.dumps(tool_input, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return True  # an input mdgrill cannot even write back out: not one to let through


def parse_gates(text: str) -> list[Gate]:
    """Every gate block of a prompt; a block that is not exactly right raises InputError."""
    lines = text.replace("\r\n", "\n").split("\n")
    gates: list[Gate] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped != MARKER_OPEN:
            if MARKER_OPEN in stripped:
                raise InputError("MALFORMED_GATE", f"line {i + 1}: {MARKER_OPEN} must stand on "
                                 "its own line")
            i += 1
            continue
        start = i
        values: dict[str, str] = {}
        i += 1
        while i < len(lines) and lines[i].strip() != MARKER_CLOSE:
            line = lines[i]
            i += 1
            if not line.strip():
                continue
            m = _LINE.match(line.strip())
            key = KEYS.get(m.group(1).lower()) if m else None
            if m is None or key is None:
                raise InputError("MALFORMED_GATE", f"line {i}: `{line.strip()[:60]}` is not a "
                                 f"gate line (spec, phase, interview, digest, revision)")
            if key in values:
                raise InputError("MALFORMED_GATE", f"line {i}: `{key}` is given twice")
            value = m.group(2).strip()
            if len(value) > MAX_VALUE:
                raise InputError("MALFORMED_GATE", f"line {i}: `{key}` is {len(value):,} "
                                 f"characters long (at most {MAX_VALUE:,}): give the spec's "
                                 "folder as a path inside the repository")
            values[key] = value
        if i >= len(lines):
            raise InputError("MALFORMED_GATE", f"line {start + 1}: the gate block is never "
                             f"closed by {MARKER_CLOSE}")
        missing = [k for k in REQUIRED if not values.get(k)]
        if missing:
            raise InputError("MALFORMED_GATE", f"line {start + 1}: the gate block lacks "
                             f"{', '.join(missing)}")
        digest = values.get("digest")
        if digest is not None and not _SHA.match(digest):
            raise InputError("MALFORMED_GATE", f"line {start + 1}: digest must be 64 lowercase "
                             "hex characters (from `mdgrill digest SPEC`)")
        gates.append(Gate(values, start + 1))
        i += 1
    if not gates:
        raise InputError("MALFORMED_GATE", f"{MARKER_OPEN} appears but no gate block was read")
    return gates


def sub_agent_call(event: dict[str, object]) -> bool:
    """Whether the event is a PreToolUse of a Task/Agent call (the only calls gated)."""
    name = event.get("hook_event_name")
    return (name is None or name == EVENT) and gated_tool(event)


def gated_prompt(event: dict[str, object]) -> str | None:
    """The prompt of a Task/Agent call in a PreToolUse event, else None (not ours to gate)."""
    if not sub_agent_call(event):
        return None
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    prompt = tool_input.get("prompt")
    return prompt if isinstance(prompt, str) else None


def subagent_type(event: dict[str, object]) -> str | None:
    """The sub-agent type a Task/Agent call asks for (`tool_input.subagent_type`), if any."""
    tool_input = event.get("tool_input")
    value = tool_input.get("subagent_type") if isinstance(tool_input, dict) else None
    return value if isinstance(value, str) else None


def shorten(text: str, limit: int = MAX_REASON) -> str:
    """`text` cut in its middle to `limit` characters: the code and the first words stay, and
    so does the end, where a reason says what to do next (a 100 KB path is never echoed)."""
    if len(text) <= limit:
        return text
    keep = limit - 48  # room for the notice of the cut
    head = keep * 2 // 3
    tail = keep - head
    cut = f" … ({len(text) - head - tail:,} characters left out) … "
    return text[:head] + cut + text[len(text) - tail:]


def answer(decision: str, reason: str) -> dict[str, object]:
    """Claude Code's PreToolUse hook output (the reason cut to a readable length)."""
    return {"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": decision,
                                   "permissionDecisionReason": shorten(reason)}}
