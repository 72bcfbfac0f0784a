"""smart-ralph import (pure): `.progress.md` + `.ralph-state.json` -> mdgrill's `.progress.md`.

The original text is kept line for line: mdgrill adds (or merges into) the front matter and
leaves the body as it was, so a smart-ralph `## Interview Responses` section becomes mdgrill's
log as it stands (its rounds, `Confirmed` blocks and legacy `Interview (from x.md)` blocks are
recorded blocks from then on) and every other section stays the user's.
"""

from __future__ import annotations

import json
import re

from mdgrill.errors import InputError
from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.markdown import sections
from mdgrill.formats.progress import LOG, Progress, parse_bullets, single_line
from mdgrill.formats.schema import PHASES, STATUSES
from mdgrill.formats.textfile import TextFile, content
from mdgrill.model.digest import RALPH_MARKER, context_digest
from mdgrill.model.record import check_interview

STATE_FILE = ".ralph-state.json"
# smart-ralph 5 keeps its durable state in a tracked `progress.md` (front matter `spec`,
# `phase`, `approved_through`, `updated`); `.progress.md` became read-only legacy input.
CANONICAL = "progress.md"
V5_KEYS = ("spec", "phase", "approved_through", "updated")
GOAL_HEADINGS = ("original goal", "goal")
# smart-ralph phases after `tasks` (execution) map to mdgrill's last phase.
LATE_PHASES = {"execution": "tasks", "executing": "tasks", "implement": "tasks",
               "implementation": "tasks", "done": "tasks", "complete": "tasks"}
INTERVIEW_FIELDS = {  # phaseInterview key -> mdgrill interview key
    "interviewId": "id", "phase": "phase", "round": "round", "status": "status",
    "askedDecisionIds": "asked", "pendingDecisionIds": "pending",
    "selectedApproach": "approach", "confirmationSource": "confirmation",
    "bypassReason": "bypass_reason", "assumptionsRecorded": "assumptions",
}
_SHA = re.compile(r"[0-9a-f]{64}\Z")


def read_state(raw: bytes, path: str) -> dict[str, object]:
    """`.ralph-state.json` as a dict; anything else is a clear InputError."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError("INVALID_JSON", f"{path} is not JSON ({exc}): fix or remove it and "
                         "import again", path=path) from None
    if not isinstance(value, dict):
        raise InputError("INVALID_JSON", f"{path} must hold a JSON object", path=path)
    return value


def already_imported(prog: Progress) -> bool:
    return prog.fm is not None and "mdgrill" in prog.data


def section_text(prog: Progress, names: tuple[str, ...]) -> tuple[str, int] | None:
    """The first paragraph under the first `## <name>` heading, joined to one line."""
    for sec in sections(prog.headings, 2, prog.total_lines, (prog.body_line, prog.total_lines)):
        if sec.title.strip().lower() not in names:
            continue
        para: list[str] = []
        for i in range(sec.start, min(sec.end, len(prog.lines))):
            text = content(prog.lines[i]).strip()
            if not text:
                if para:
                    break
                continue
            para.append(text)
        if para:
            return " ".join(para), sec.heading_line
    return None


def goal_of(state: dict[str, object], prog: Progress) -> tuple[str | None, str]:
    """The spec's goal and where it came from (state.goal, the skill-load snapshot, a section)."""
    candidates: list[tuple[object, str]] = [(state.get("goal"), "state goal")]
    load = state.get("phaseSkillLoad")
    if isinstance(load, dict) and isinstance(load.get("context"), dict):
        candidates.append((load["context"].get("goal"), "phaseSkillLoad.context.goal"))
    for value, source in candidates:
        if isinstance(value, str) and value.strip():
            return single_line(value, source), source
    found = section_text(prog, GOAL_HEADINGS)
    if found is not None:
        return single_line(found[0], "goal"), f"section at line {found[1] + 1}"
    return None, "none"


def map_phase(value: object) -> str | None:
    """A smart-ralph state phase as an mdgrill phase (None when it names none)."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower()
    if key in PHASES:
        return key
    return LATE_PHASES.get(key)


_TITLE = re.compile(r"(?:Progress|Epic|Spec)\s*:\s*(\S.*)\Z", re.IGNORECASE)


def spec_name(state: dict[str, object], prog: Progress, folder_name: str) -> str:
    """The state's name, else the `# Progress: <name>` title, else the folder's name."""
    for key in ("name", "specName", "spec"):
        value = state.get(key)
        if isinstance(value, str) and value.strip():
            return single_line(value, key)
    if prog.title is not None:
        m = _TITLE.match(prog.title.text)
        if m is not None:
            return single_line(m.group(1), "title")
    return folder_name


def ralph_context_digest(phase: str, goal: str, rows: list[tuple[str, bytes]]) -> str:
    """smart-ralph's `ralph-phase-context-v1` digest over (absolute source, bytes) rows."""
    return context_digest(phase, goal, rows, marker=RALPH_MARKER)


def interview_from_ralph(piv: dict[str, object], mode: str, digest: str,
                         context: list[dict[str, str]]) -> dict[str, object]:
    """phaseInterview as mdgrill's interview record; refuses one that breaks the contract."""
    missing = [k for k in INTERVIEW_FIELDS if k not in piv]
    if missing:
        raise InputError("INVALID_STATE", f"phaseInterview lacks {', '.join(missing)}: it is "
                         "not a smart-ralph interview record mdgrill can import")
    iv: dict[str, object] = {}
    for ralph_key in ("interviewId", "phase", "round", "status"):
        iv[INTERVIEW_FIELDS[ralph_key]] = piv[ralph_key]
    iv["context_digest"] = digest
    iv["context"] = context
    for ralph_key in ("askedDecisionIds", "pendingDecisionIds", "selectedApproach",
                      "confirmationSource", "bypassReason", "assumptionsRecorded"):
        iv[INTERVIEW_FIELDS[ralph_key]] = piv[ralph_key]
    if iv["status"] not in STATUSES:
        raise InputError("INVALID_STATE", f"phaseInterview status `{iv['status']}` is not one "
                         f"of {', '.join(STATUSES)}")
    problems = check_interview(iv, mode)
    if problems:
        raise InputError(problems[0].code, f"phaseInterview cannot be imported: "
                         f"{problems[0].message} (smart-ralph's own gate refuses it too)")
    return iv


def summarize(prog: Progress) -> dict[str, object]:
    """What of smart-ralph's forms the file holds (rounds, decisions, confirmations...)."""
    found: dict[str, object] = {}
    for key, names in (("interview_format", ("interview format",)),
                       ("intent", ("intent classification",))):
        for sec in sections(prog.headings, 2, prog.total_lines,
                            (prog.body_line, prog.total_lines)):
            if sec.title.strip().lower() in names:
                entries, _ = parse_bullets(prog.lines, sec.start, sec.end)
                found[key] = {e.key: e.value for e in entries}
                break
    rounds: list[str] = []
    confirmed: dict[str, str | None] = {}
    legacy: list[str] = []
    topic_decisions = id_decisions = 0
    from mdgrill.formats.schema import is_id
    from mdgrill.model.tree import split_decision

    for block in prog.blocks:
        if block.kind == "round":
            rounds.append(block.title)
            for entry in block.get("Decisions"):
                pair = split_decision(entry.value)
                if pair is not None and is_id(pair[0]):
                    id_decisions += 1
                else:
                    topic_decisions += 1
        elif block.kind == "confirmed":
            confirmed[block.title] = block.first("Chosen approach") or block.first("Approach")
        elif block.kind == "legacy":
            legacy.append(block.title)
    found["rounds"] = rounds
    found["decisions"] = {"by_id": id_decisions, "by_topic": topic_decisions}
    found["confirmed"] = confirmed
    found["legacy_blocks"] = legacy
    found["interview_responses"] = LOG in prog.sections
    return found


def first_missing_line(original: str, result: str) -> int | None:
    """0-based index of the first non-empty original line absent (in order) from `result`."""
    lines = [ln.rstrip("\r") for ln in result.split("\n")]
    pos = 0
    for index, line in enumerate(original.split("\n")):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        while pos < len(lines) and lines[pos] != line:
            pos += 1
        if pos == len(lines):
            return index
        pos += 1
    return None


def body_text(tf: TextFile, path: str) -> str:
    """The text after the front matter (the whole text when there is none)."""
    fm = frontmatter_io.split(tf, path)
    return tf.text if fm is None else tf.text[fm.end_offset:]


def v5_record(prog: Progress) -> dict[str, object]:
    """What smart-ralph 5's front matter says, the four keys as written (absent: None): a
    bare `updated: 2026-11-28T16:05:00Z` stays that text, not YAML's timestamp of it."""
    if prog.fm is None:
        return {}
    out: dict[str, object] = {}
    for key in V5_KEYS:
        value = prog.data.get(key)
        span = prog.fm.spans.get(key)
        if key == "updated" and value is not None and span is not None \
                and span[1] - span[0] == 1:
            value = content(prog.lines[span[0]]).partition(":")[2].strip().strip("'\"")
        out[key] = value
    return out


def v5_phase(record: dict[str, object]) -> str | None:
    """The mdgrill phase of a smart-ralph 5 record: its `phase` (implementation and complete
    are past mdgrill's last phase), else the phase after the last approved one (`blocked`
    says where work stopped, not which phase it is in)."""
    phase = map_phase(record.get("phase"))
    if phase is not None:
        return phase
    approved = map_phase(record.get("approved_through"))
    if approved is None:
        return None
    from mdgrill.model.artifact import next_phase

    return next_phase(approved) or approved


IMPORTED_NOTE = ("smart-ralph recorded these approvals; mdgrill did not see them and vouches for "
                 "none: the phase's interview runs through mdgrill's gate")


def imported_block(heading_word: str, source: str, record: dict[str, object]) -> list[str]:
    """The log block that records smart-ralph 5's approvals as history, clearly labelled."""
    lines = [f"### {heading_word} Grill - Imported", f"- Source: {source} (smart-ralph 5)"]
    for key, label in (("phase", "Phase"), ("approved_through", "Approved through"),
                       ("updated", "Updated")):
        value = record.get(key)
        if value is not None and str(value).strip():
            lines.append(f"- {label}: {single_line(str(value), key)}")
    lines.append(f"- Note: {IMPORTED_NOTE}")
    return lines


def append_to_log(prog: Progress, block: list[str]) -> str:
    """prog's text with `block` at the end of the log section (or in a new
    `## Interview Responses` at the end of the file): lines are added, none is changed."""
    nl = prog.tf.newline
    text = prog.tf.text
    section = prog.sections.get(LOG)
    if section is None:
        lead = nl if text and not text.endswith("\n") else ""
        return text + lead + (nl if text else "") + nl.join(
            ["## Interview Responses", "", *block]) + nl
    end_line = section.end
    while end_line > section.start and not content(prog.lines[end_line - 1]).strip():
        end_line -= 1  # after the log's last line, before the blank lines that close it
    at = sum(len(line) for line in prog.lines[:end_line])
    lead = nl if at and text[at - 1] != "\n" else ""
    tail = nl if end_line < len(prog.lines) and end_line == section.end else ""
    return text[:at] + lead + nl + nl.join(block) + nl + tail + text[at:]


def valid_sha(value: object) -> bool:
    return isinstance(value, str) and _SHA.match(value) is not None

