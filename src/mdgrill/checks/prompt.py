"""`validate --prompt DRAFT`: provenance comments and the 15-row checklist (docs/contract.md).

Pure: text in, diagnostics out. Every sentence line of a built prompt carries a preceding
`<!-- E<n>[.<m>] -->` comment naming the elicitation ledger entry it comes from (E1 is the
spec's first settled decision); a `checklist_results:` / `checklist:` block lists all rows.
A `[MDGRILL_PHASE_GATE]` block (docs/agent-hook.md) is read by the hook, not the sub-agent:
its lines are no sentences.
"""

from __future__ import annotations

import re

from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.errors import InputError

CHECKLIST_ROWS = (
    "structured_scoped_instructions", "sequential_steps_present", "positive_framing",
    "acceptance_criteria_defined", "safety_reversibility_language",
    "reversible_action_and_safety_check_guidance", "concrete_output_contract",
    "scope_boundary_present", "explicit_scope_anchors_present",
    "all_instructions_artifact_bound", "scope_terms_explicit_and_anchored",
    "completion_boundary_measurable", "citation_grounding_policy_present",
    "source_priority_rules_present", "artifact_language_confidence",
)
_ROWS = frozenset(CHECKLIST_ROWS)
GATE_OPEN = "[MDGRILL_PHASE_GATE]"
GATE_CLOSE = "[/MDGRILL_PHASE_GATE]"

_COMMENT = re.compile(r"[ \t]*<!--(.*?)-->[ \t]*")
_REF = re.compile(r"E([0-9]+)(?:\.([0-9]+))?\Z")
_LOOKS_PROVENANCE = re.compile(r"\s*E\s*[0-9.,]")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_CHECKLIST_KEY = re.compile(
    r"([ \t]*)(?:[-*][ \t]+|[{,][ \t]*)?[\"'`]?(checklist_results|checklist)[\"'`]?[ \t]*:(.*)\Z",
    re.IGNORECASE)
_CHECKLIST_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+checklist(?:[ _]results)?[ \t#]*\Z",
                                re.IGNORECASE)
_ROW_KEY = re.compile(r"[ \t]*(?:[-*|][ \t]*)?[\"'`]?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[\"'`]?"
                      r"[ \t]*[:|=]")
# A flow-style key: a whole word (the lookbehind keeps the search from restarting inside one,
# which made a long `a_a_a_...` line quadratic), then held to the key shape by _KEY_SHAPE
_FLOW_KEY = re.compile(r"(?<![a-z0-9_])_*([a-z][a-z0-9_]*)[\"'`]?[ \t]*:")
_KEY_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+\Z")
_THEMATIC = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
_TABLE_RULE = re.compile(r"[ \t:|-]+\Z")
_ALNUM = re.compile(r"\w")


def validate_prompt_bytes(data: bytes, path: str,
                          ledger: list[str] | None = None) -> list[Diagnostic]:
    """Decode and check a prompt draft; unreadable input is one error diagnostic."""
    from mdgrill.checks.spec import from_input_error
    from mdgrill.formats.textfile import decode

    try:
        tf = decode(data, path)
    except InputError as exc:
        return [from_input_error(exc, path)]
    return check_prompt(tf.text, path, ledger)


def _refs(body: str) -> list[str] | None:
    """The entry references of a provenance comment body, or None when malformed."""
    parts = [p for p in re.split(r"[\s,]+", body.strip()) if p]
    if not parts or not all(_REF.match(p) for p in parts):
        return None
    return parts


def check_prompt(text: str, path: str, ledger: list[str] | None = None) -> list[Diagnostic]:
    """Provenance of every sentence line; all 15 rows in each checklist block."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    out: list[Diagnostic] = []
    skip = _checklist_blocks(lines, path, out) | _gate_blocks(lines)
    i = _front_matter_end(lines)
    fence: str | None = None
    pending: int | None = None  # line of a provenance comment not yet used
    while i < len(lines):
        line = lines[i]
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            i += 1
            continue
        if i in skip:
            pending = None
            i += 1
            continue
        fm = _FENCE.match(line)
        if fm is not None:
            fence = fm.group(1)
            pending = None
            i += 1
            continue
        if not line.strip():
            i += 1
            continue
        stripped = line.lstrip()
        if stripped.startswith("<!--"):
            end, rest, is_prov = _comment(lines, i, path, ledger, out)
            if is_prov:
                if rest is None:
                    pending = i
                else:
                    _sentence(rest, i, path, True, out)
                    pending = None
            i = end + 1
            continue
        if _HEADING.match(line) or _THEMATIC.match(line) or _TABLE_RULE.match(line) \
                or not _ALNUM.search(line):
            pending = None
            i += 1
            continue
        _sentence(line, i, path, pending is not None, out)
        pending = None
        i += 1
    return out


def _sentence(line: str, i: int, path: str, has_provenance: bool,
              out: list[Diagnostic]) -> None:
    if not has_provenance:
        text = line.strip()
        shown = text if len(text) <= 40 else text[:39] + "…"
        out.append(error(path, i + 1, "PROVENANCE_MISSING",
                         f"`{shown}` has no provenance comment: put `<!-- E<n> -->` (the ledger "
                         "entry it comes from) on the line before it"))


def _comment(lines: list[str], i: int, path: str, ledger: list[str] | None,
             out: list[Diagnostic]) -> tuple[int, str | None, bool]:
    """(last line of the comment, text after it on the same line or None, is provenance)."""
    line = lines[i]
    m = _COMMENT.match(line)
    if m is None:  # a comment over several lines: never provenance
        j = i
        while j < len(lines) and "-->" not in lines[j]:
            j += 1
        return min(j, len(lines) - 1), None, False
    body = m.group(1)
    rest = line[m.end():]
    if not _LOOKS_PROVENANCE.match(body):
        return i, None, False
    refs = _refs(body)
    col = line.find("<!--") + 1
    if refs is None:
        out.append(error(path, i + 1, "PROVENANCE_MALFORMED",
                         f"`<!--{body}-->` is not a provenance comment: write `<!-- E<n> -->` or "
                         "`<!-- E<n>.<m> -->` (n counts the spec's settled decisions from 1)",
                         col))
    elif ledger is not None:
        for ref in refs:
            n = int(_REF.match(ref).group(1))  # type: ignore[union-attr]
            if not 1 <= n <= len(ledger):
                have = f"E1–E{len(ledger)}" if ledger else "no entries yet"
                out.append(error(path, i + 1, "PROVENANCE_UNKNOWN_ENTRY",
                                 f"{ref} names no ledger entry (the spec has {have}): cite an "
                                 "existing entry or record the decision first", col))
    return i, (rest if rest.strip() else None), True


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for j in range(1, len(lines)):
        if lines[j].strip() in ("---", "..."):
            return j + 1
    return 0


def _checklist_blocks(lines: list[str], path: str, out: list[Diagnostic]) -> set[int]:
    """Check every checklist block; return the lines they cover (not sentence lines)."""
    covered: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _CHECKLIST_HEADING.match(line)
        key = _CHECKLIST_KEY.match(line) if heading is None else None
        if heading is None and key is None:
            i += 1
            continue
        if heading is not None:
            end = _section_end(lines, i, len(heading.group(1)))
            names = _names(lines[i:end])
        else:
            assert key is not None
            end = _block_end(lines, i, len(key.group(1).expandtabs()))
            names = _names([key.group(3)] + lines[i + 1:end])
        covered.update(range(i, end))
        _report_rows(path, i, names, out)
        i = max(end, i + 1)
    return covered


def _gate_blocks(lines: list[str]) -> set[int]:
    """The lines of every gate block, its markers included."""
    covered: set[int] = set()
    start: int | None = None
    for i, line in enumerate(lines):
        if line.strip() == GATE_OPEN:
            start = i
        elif line.strip() == GATE_CLOSE and start is not None:
            covered.update(range(start, i + 1))
            start = None
    return covered


def _section_end(lines: list[str], i: int, level: int) -> int:
    for j in range(i + 1, len(lines)):
        m = re.match(r" {0,3}(#{1,6})(?:[ \t]|$)", lines[j])
        if m is not None and len(m.group(1)) <= level:
            return j
    return len(lines)


def _block_end(lines: list[str], i: int, indent: int) -> int:
    j = i + 1
    last = i + 1
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            j += 1
            continue
        ind = len(line) - len(line.lstrip())
        s = line.lstrip()
        if _FENCE.match(line) and ind <= indent:
            break
        if ind > indent or (ind == indent and s[0] in "-|}]"):
            j += 1
            last = j
            continue
        break
    return last


def _names(lines: list[str]) -> list[tuple[str, int]]:
    """Row-like keys in a block: (name, index into `lines`)."""
    found: list[tuple[str, int]] = []
    for k, line in enumerate(lines):
        m = _ROW_KEY.match(line)
        if m is not None:
            found.append((m.group(1), k))
            continue
        for word in _FLOW_KEY.findall(line):  # flow style: `{a_b: pass, c_d: pass}`
            if _KEY_SHAPE.match(word):
                found.append((word, k))
    return found


def _report_rows(path: str, at: int, names: list[tuple[str, int]],
                 out: list[Diagnostic]) -> None:
    present = {name for name, _ in names if name in _ROWS}
    missing = [row for row in CHECKLIST_ROWS if row not in present]
    if missing:
        out.append(error(path, at + 1, "CHECKLIST_INCOMPLETE",
                         f"the checklist lacks {len(missing)} of its {len(CHECKLIST_ROWS)} rows: "
                         f"{', '.join(missing)}: add a result for each"))
    seen: set[str] = set()
    for name, k in names:
        if name in _ROWS or name in seen or name.startswith("checklist"):
            continue
        seen.add(name)
        out.append(warning(path, at + 1 + k, "CHECKLIST_ROW_UNKNOWN",
                           f"`{name}` is not a checklist row (rows: "
                           f"{', '.join(CHECKLIST_ROWS)}): check the spelling"))
