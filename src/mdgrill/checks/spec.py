"""What `validate` checks in a `.progress.md` and a glossary: parsed model -> diagnostics.

Pure: no files. Each check walks what `progress.Progress` already found (headings, blocks,
nodes) once, so the cost stays linear in the file's size. A file that cannot be read at all
(bad YAML, binary, too large) is one error diagnostic, never an exception.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mdgrill.diagnostics import Diagnostic, error, sort_diagnostics, warning
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.progress import GOAL, LOG, ROUND_EDITED_HINT, Block, Node, Progress, split_ids
from mdgrill.model.record import TERMINAL, check_record, is_id
from mdgrill.model.tree import prerequisites

if TYPE_CHECKING:
    from mdgrill.formats.glossary import ContextMap, Glossary

NODE_KEYS = ("Section", "Depends on", "Spawned by", "Evidence", "Investigating", "Options",
             "Recommendation", "Rationale", "Tradeoffs", "Consequences")
_NODE_KEYS = {k.lower() for k in NODE_KEYS}
MIN_OPTIONS = 2
MAX_OPTIONS = 4

CLOSING_KEYS = ("Facts resolved", "Decisions", "Out of scope", "Domain language",
                "Frontier after round")
ROUND_KEYS = ("Asked", *CLOSING_KEYS, "Assumptions", "Other", "Stop", "By", "Amended", "Was",
              "Reason")
BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "round": ROUND_KEYS,
    "awaiting": ("Confirmation ID", "Approach"),
    "confirmed": ("Interview", "Confirmation ID", "Source", "Status", "Context digest",
                  "Reply", "By"),
    "revised": ("Retired", "Reopened", "Dependents", "Next round"),
    "skipped": ("Confirmation ID", "Reason", "Retired", "Defaulted", "Assumption", "By"),
    "bypassed": ("Interview", "Reason", "Context digest"),
    "reset": ("Interview", "Reason"),
    "cancelled": ("Interview", "Confirmation ID", "Reply", "By"),
    "mode": ("Mode", "Authorization", "At"),
    "reopened": ("From phase", "Reason", "Superseded", "By"),
    "amended": ("Amended", "Was", "Reason", "By"),
}
_BLOCK_KEYS = {kind: {k.lower() for k in keys} for kind, keys in BLOCK_KEYS.items()}
# A block after a round that proves the round was closed (a Reset may abandon it open).
_CLOSES_ROUND = frozenset({"round", "awaiting", "confirmed", "skipped", "revised", "bypassed"})
_NEW_SEQUENCE = frozenset({"confirmed", "skipped", "bypassed", "reset", "reopened"})
_PREFIX = re.compile(r"(?:[^\n]*?):(\d+):(\d+): ")


# ---------------------------------------------------------------------------------------
# Entry points


def validate_progress_bytes(data: bytes, path: str) -> list[Diagnostic]:
    """Decode, parse and check a `.progress.md`; unreadable input is one error diagnostic."""
    from mdgrill.formats.progress import read_progress

    if not data or data.isspace():  # not data.strip(): no copy of a large file
        return [error(path, 1, "EMPTY_FILE", "the file is empty: create it with `mdgrill init "
                      "SPEC --goal TEXT`, or restore it from git")]
    try:
        prog = read_progress(data, path)
        return sort_diagnostics(check_progress(prog))
    except InputError as exc:
        return [from_input_error(exc, path)]
    except RecursionError:
        return [error(path, 1, "MALFORMED_FILE", "the file nests too deeply to read")]


def from_input_error(exc: MdgrillError, path: str) -> Diagnostic:
    """An InputError raised while reading a file, as an error diagnostic at its line."""
    message = exc.message
    line = exc.line or 1
    col = 1
    m = _PREFIX.match(message)
    if m is not None and message.startswith(path + ":"):
        line, col = int(m.group(1)), int(m.group(2))
        message = message[m.end():]
    return error(path, line, exc.code, message, col)


def check_progress(prog: Progress) -> list[Diagnostic]:
    """Every problem of a parsed `.progress.md`: record, log, blocks, tree, ledger."""
    out: list[Diagnostic] = []
    out.extend(check_front_matter(prog))
    out.extend(check_sections(prog))
    out.extend(check_log_digest(prog))
    out.extend(check_blocks(prog))
    out.extend(check_nodes(prog))
    out.extend(check_ledger(prog))
    out.extend(check_phase_approval(prog))
    out.extend(check_record_against_log(prog))
    return out


def check_record_against_log(prog: Progress) -> list[Diagnostic]:
    """The interview record agrees with the log: its round is the log's open round, a
    terminal status has the block that recorded it, quick mode has its authorization."""
    iv = prog.data.get("interview")
    out: list[Diagnostic] = []
    if prog.data.get("mode") == "quick":
        from mdgrill.model.interview import quick_authorized

        if not quick_authorized(prog):
            out.append(error(prog.path, key_line(prog, "mode"), "QUICK_NOT_AUTHORIZED",
                             "`mode: quick` without its authorization block: only `mdgrill "
                             "mode SPEC --quick` authorizes a bypass; set `mode: interactive`, "
                             "or run that command"))
    if not isinstance(iv, dict):
        return out
    phase, status, iid = iv.get("phase"), iv.get("status"), iv.get("id")
    from mdgrill.model.interview import interview_blocks

    line = key_line(prog, "interview")
    blocks = [b for b in prog.block_headings() if b.phase == phase]
    if status in TERMINAL:
        kind = "bypassed" if status == "bypassed_quick" else "confirmed"
        recorded = [prog.with_entries(b) for b in blocks if b.kind == kind]
        # smart-ralph's own Confirmed blocks name no interview: read as this one's
        if not any(b.first("Interview") in (iid, None) for b in recorded):
            word = "Bypassed" if kind == "bypassed" else "Confirmed"
            out.append(error(prog.path, line, "APPROVAL_NOT_RECORDED",
                             f"interview {iid} is {status}, but the log has no `{word}` block "
                             f"for it: a status typed by hand is not an approval; set it back "
                             "and run `mdgrill confirm` (or restore the file from git)"))
        return out
    # headings are enough here: a 10,000-round log is not parsed line by line
    rounds = [b for b in interview_blocks(blocks, str(phase)) if b.kind == "round"]
    if status == "collecting" and rounds and rounds[-1].round != iv.get("round"):
        out.append(error(prog.path, line, "ROUND_MISMATCH",
                         f"the record says round {iv.get('round')} but the log's last round of "
                         f"this interview is {rounds[-1].round}: the next verb would write a "
                         "round out of sequence; restore the front matter from git (`mdgrill "
                         "restore`) or set `round:` to the log's"))
    return out


def check_phase_approval(prog: Progress) -> list[Diagnostic]:
    """A spec past its artifact's phase has the `Approved` block of that artifact."""
    art = prog.data.get("artifact")
    phase = prog.data.get("phase")
    if not isinstance(art, dict) or phase == art.get("phase"):
        return []
    from mdgrill.model.artifact import next_phase

    if phase != next_phase(str(art.get("phase"))):
        return []
    if any(b.kind == "artifact_approved" and b.phase == art.get("phase")
           for b in prog.block_headings()):
        return []
    return [error(prog.path, key_line(prog, "phase"), "PHASE_NOT_APPROVED",
                  f"`phase: {phase}` is past the {art.get('phase')} artifact, but the log has "
                  f"no `{str(art.get('phase')).title()} Artifact - Approved` block: a phase "
                  "advances only by `mdgrill approve-artifact`; set the phase back")]


# ---------------------------------------------------------------------------------------
# Front matter


def key_line(prog: Progress, key: str) -> int:
    """1-based line of a top-level front matter key (the opening `---` when it is absent)."""
    if prog.fm is None:
        return 1
    span = prog.fm.spans.get(key)
    return span[0] + 1 if span is not None else prog.fm.open + 1


def check_front_matter(prog: Progress) -> list[Diagnostic]:
    path = prog.path
    if prog.fm is None:
        return [error(path, 1, "NO_FRONT_MATTER",
                      "no front matter: this is not an mdgrill .progress.md (create one with "
                      "`mdgrill init`, or convert a smart-ralph spec with `mdgrill import-ralph`)")]
    data = prog.data
    if "mdgrill" not in data:
        return [error(path, prog.fm.open + 1, "NOT_MDGRILL",
                      "the front matter has no `mdgrill: 1`: this is not an mdgrill "
                      ".progress.md (convert a smart-ralph spec with `mdgrill import-ralph`)")]
    out = [error(path, key_line(prog, p.key), p.code,
                 f"{p.message}: fix the front matter, or restore it from git")
           for p in check_record(data)]
    goal = data.get("goal")
    if goal is None or (isinstance(goal, str) and not goal.strip()):
        out.append(warning(path, key_line(prog, "goal"), "MISSING_GOAL",
                           "the front matter has no `goal:`: add the spec's goal in one line "
                           "(the context digest and the interview read it)"))
    return out


# ---------------------------------------------------------------------------------------
# Sections


def check_sections(prog: Progress) -> list[Diagnostic]:
    path = prog.path
    out: list[Diagnostic] = []
    for dup in prog.duplicate_sections:
        first = prog.section_of(dup.title)
        out.append(error(path, dup.heading_line + 1, "DUPLICATE_SECTION",
                         f"`## {dup.title}` appears again (first at line "
                         f"{first.heading_line + 1}): mdgrill reads only the first one; merge "
                         "the two sections"))
    if prog.fm is None or "mdgrill" not in prog.data:
        return out  # not an mdgrill file (said once, by check_front_matter)
    goal_section = prog.sections.get(GOAL)
    if goal_section is None:
        at = prog.title.line + 1 if prog.title is not None else prog.body_line + 1
        out.append(warning(path, at, "MISSING_GOAL",
                           "no `## Goal` section: add one holding the spec's goal, for people "
                           "reading the file"))
    else:
        start, end = prog.section_offsets(goal_section)
        text = " ".join(prog.tf.text[start:end].split())
        goal = prog.data.get("goal")
        if isinstance(goal, str) and goal.strip() and text and " ".join(goal.split()) != text:
            out.append(warning(path, goal_section.heading_line + 1, "GOAL_MISMATCH",
                               "the `## Goal` text differs from `goal:` in the front matter "
                               f"(line {key_line(prog, 'goal')}); the interview uses the front "
                               "matter's: make the two say the same"))
    if LOG not in prog.sections:
        at = prog.title.line + 1 if prog.title is not None else prog.body_line + 1
        out.append(warning(path, at, "MISSING_SECTION",
                           "no `## Interview Responses` section: mdgrill adds it with the first "
                           "round; if it held rounds, restore it from git"))
    return out


def check_log_digest(prog: Progress) -> list[Diagnostic]:
    """ROUND_EDITED when the recorded log digest no longer matches the log (session.check_log)."""
    if prog.log_seal() is not False:
        return []
    line = prog.log_edited_line() if LOG in prog.sections else key_line(prog, "log")
    return [error(prog.path, line, "ROUND_EDITED", ROUND_EDITED_HINT)]


# ---------------------------------------------------------------------------------------
# Blocks of the log


def check_blocks(prog: Progress) -> list[Diagnostic]:
    """Structure of every block; a sealed log needs only its headings checked.

    mdgrill writes only well-formed blocks and seals the log with their digest, so while the
    digest matches, the bullets of 10,000 recorded rounds need no second reading (the
    numbering and kinds of their headings are still checked, first without line numbers).
    """
    path = prog.path
    if prog.log_seal() is True:  # as mdgrill wrote them
        # The light look's last field is an offset, not a line: it only decides whether
        # the headings need a second look, with lines, to report something.
        light = prog.block_heads()
        if light is not None and not _check_headings(path, light):
            return []
        return _check_headings(path, [_head(b) for b in prog.block_headings()])
    blocks = prog.blocks
    out = _check_headings(path, [_head(b) for b in blocks])
    for index, block in enumerate(blocks):
        if block.kind not in BLOCK_KEYS or block.phase is None:
            continue
        if block.kind == "round":
            nxt = blocks[index + 1].kind if index + 1 < len(blocks) else None
            out.extend(_check_round(path, block, nxt))
        else:
            out.extend(_check_transition(path, block))
    return out


def _head(block: Block) -> tuple[str, str | None, int | None, str, int]:
    return block.kind, block.phase, block.round, block.title, block.line


def _check_headings(path: str,
                    heads: list[tuple[str, str | None, int | None, str, int]]) -> list[Diagnostic]:
    """What a block's heading alone can get wrong: its kind, and the numbering of rounds
    (1, 2, 3… per phase; a Confirmed, Skipped, Bypassed or Reset block starts a new count)."""
    out: list[Diagnostic] = []
    last_round: dict[str, int] = {}
    ours = False  # an mdgrill block came before: notes above the first are history
    for kind, phase, number, title, line in heads:
        if kind == "unknown" and not ours:
            continue  # an imported log's own notes (smart-ralph's `### Grill-Me Source`, …)
        ours = ours or kind in BLOCK_KEYS
        if kind == "unknown" or (kind in BLOCK_KEYS and phase is None):
            out.append(warning(path, line + 1, "UNKNOWN_BLOCK",
                               f"`### {title}` is not a block mdgrill knows: rounds are "
                               "`### <Phase> Grill - Round <N>`, transitions `### <Phase> Grill "
                               "- Awaiting Confirmation|Confirmed|Revised|Skipped|Bypassed`; "
                               "move other notes out of Interview Responses"))
        elif kind == "round":
            if phase is not None and number is not None and \
                    number == last_round.get(phase, 0) + 1:
                last_round[phase] = number  # the next round, as nearly always: nothing to say
            else:
                out.extend(_check_round_number(path, phase, number, line, last_round))
        elif kind in _NEW_SEQUENCE and phase is not None:
            last_round.pop(phase, None)
    return out


def _check_round(path: str, block: Block, next_kind: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    keys = [e.key.lower() for e in block.entries]
    if "asked" not in keys:
        # smart-ralph's rounds have no Asked line; read them, but say what mdgrill expects
        out.append(warning(path, block.line + 1, "ROUND_NO_ASKED",
                           f"round {block.round} has no `- Asked:` line: read as a smart-ralph "
                           "round; mdgrill's rounds open with `- Asked: <IDs>` "
                           "(`mdgrill open-frontier` writes it)"))
        return out
    if keys[0] != "asked":
        first = block.entries[0]
        out.append(error(path, first.line + 1, "ROUND_STRUCTURE",
                         f"round {block.round} must open with its `- Asked:` line, but its first "
                         f"line is `{first.key}:`: restore the round from git (`mdgrill "
                         "restore`); rounds are append-only"))
    closed = "frontier after round" in keys or next_kind in _CLOSES_ROUND
    if closed:
        missing = [k for k in CLOSING_KEYS if k.lower() not in keys]
        if missing:
            out.append(error(path, block.line + 1, "ROUND_INCOMPLETE",
                             f"round {block.round} is closed but lacks "
                             f"{', '.join('`' + k + ':`' for k in missing)}: a closed round "
                             "records all five (`none` where there is nothing); record a "
                             "correction in a new round"))
    out.extend(_unknown_keys(path, block, "round"))
    for entry in block.get("Decisions"):
        if _decision_pair(entry.value) is None and entry.value.strip().lower() != "none":
            out.append(warning(path, entry.line + 1, "DECISION_FORMAT",
                               f"`Decisions: {entry.value}` has no `->`: write one decision per "
                               "line as `<ID> -> <answer>`"))
    out.extend(_stray(path, block))
    return out


def _decision_pair(value: str) -> tuple[str, str] | None:
    from mdgrill.model.tree import split_decision

    return split_decision(value)


def _check_round_number(path: str, phase: str | None, number: int | None, line: int,
                        last_round: dict[str, int]) -> list[Diagnostic]:
    if phase is None or number is None:
        return []
    prev = last_round.get(phase)
    last_round[phase] = number
    if prev is None:
        if number != 1:
            return [warning(path, line + 1, "ROUND_NUMBER",
                            f"the {phase} rounds start at round {number}, not 1 (an interview "
                            "begun with `--round`?): check that no round is missing")]
        return []
    if number == prev:
        return [error(path, line + 1, "ROUND_NUMBER",
                      f"round {number} of {phase} appears twice: number rounds 1, 2, 3… per "
                      "phase; record a correction as the next round")]
    if number != prev + 1:
        what = "skips" if number > prev else "goes back from"
        return [error(path, line + 1, "ROUND_NUMBER",
                      f"round {number} of {phase} {what} round {prev}: the next round is "
                      f"{prev + 1} (rounds go 1, 2, 3… per phase; a Confirmed, Skipped, "
                      "Bypassed or Reset block starts a new count)")]
    return []


def _check_transition(path: str, block: Block) -> list[Diagnostic]:
    known = _BLOCK_KEYS[block.kind]
    if block.entries and not any(e.key.lower() in known for e in block.entries):
        return []  # smart-ralph's own form (`Shared understanding: confirmed` ...): accepted
    return _unknown_keys(path, block, block.kind) + _stray(path, block)


def _unknown_keys(path: str, block: Block, kind: str) -> list[Diagnostic]:
    known = _BLOCK_KEYS[kind]
    out: list[Diagnostic] = []
    for entry in block.entries:
        if entry.key.lower() not in known:
            out.append(warning(path, entry.line + 1, "UNKNOWN_BLOCK_KEY",
                               f"`{entry.key}:` is not a key of a {_KIND_NAME[kind]} block "
                               f"(known: {', '.join(BLOCK_KEYS[kind])}): check the spelling"))
    return out


_KIND_NAME = {"cancelled": "Cancelled", "mode": "Mode",
              "round": "round", "awaiting": "Awaiting Confirmation", "confirmed": "Confirmed",
              "revised": "Revised", "skipped": "Skipped", "bypassed": "Bypassed",
              "reset": "Reset"}


def _stray(path: str, block: Block) -> list[Diagnostic]:
    return [warning(path, line + 1, "STRAY_LINE",
                    f"`{_clip(text)}` is not a `- Key: value` line of this block: mdgrill "
                    "ignores it; write it as a bullet or move it out of Interview Responses")
            for line, text in block.stray]


def _clip(text: str, width: int = 40) -> str:
    text = text.strip()
    return text if len(text) <= width else text[:width - 1] + "…"


# ---------------------------------------------------------------------------------------
# Design tree nodes


def check_nodes(prog: Progress) -> list[Diagnostic]:
    path = prog.path
    out: list[Diagnostic] = []
    nodes = prog.nodes
    first_of: dict[str, Node] = {}
    for node in nodes:
        first = first_of.get(node.id)
        if first is not None:
            out.append(error(path, node.line + 1, "DUPLICATE_ID",
                             f"{node.id} is already a node at line {first.line + 1}: IDs are "
                             "unique and stable; give this node a new ID"))
        else:
            first_of[node.id] = node
    for sec in prog.node_headings_without_id():
        out.append(warning(path, sec.heading_line + 1, "NODE_HEADING",
                           f"`### {sec.title}` under Design Tree is not a node heading: write "
                           "`### <ID>: <question>` (IDs like D1 or auth.users)"))
    for node in nodes:
        out.extend(_check_node(path, node, first_of))
    out.extend(_cycles(path, nodes, first_of))
    return out


def _check_node(path: str, node: Node, known: dict[str, Node]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for entry in node.entries:
        key = entry.key.lower()
        if key not in _NODE_KEYS:
            out.append(warning(path, entry.line + 1, "UNKNOWN_NODE_KEY",
                               f"`{entry.key}:` is not a node key (known: "
                               f"{', '.join(NODE_KEYS)}): check the spelling"))
        elif key in ("depends on", "spawned by"):
            verb = "depends on" if key == "depends on" else "was spawned by"
            ids = split_ids(entry.value)
            if key == "spawned by" and len(ids) > 1:
                out.append(error(path, entry.line + 1, "INVALID_REFERENCE",
                                 f"{node.id} names {len(ids)} parents in `Spawned by:`: a "
                                 "sub-question has one parent"))
            for ref in ids:
                if not is_id(ref):
                    out.append(error(path, entry.line + 1, "INVALID_REFERENCE",
                                     f"{node.id} {verb} `{ref}`, which is not an ID: list IDs "
                                     "separated by commas, or `none`"))
                elif ref not in known:
                    out.append(error(path, entry.line + 1, "MISSING_REFERENCE",
                                     f"{node.id} {verb} {ref}, which does not exist: add a node "
                                     f"for {ref} or fix the reference"))
        elif key == "options":
            out.extend(_check_options(path, node, entry.line, entry.value))
    return out


def _check_options(path: str, node: Node, line: int, inline: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    options = node.options
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        how = " (write them as nested `  - ` bullets)" if inline and not options else ""
        out.append(error(path, line + 1, "NODE_OPTIONS",
                         f"{node.id} has {len(options)} option(s){how}: a node offers "
                         f"{MIN_OPTIONS} to {MAX_OPTIONS} options"))
    recommended = [o for o in options if o.recommended]
    if len(recommended) > 1:
        out.append(error(path, recommended[1].line + 1, "NODE_RECOMMENDED",
                         f"{node.id} marks {len(recommended)} options `(Recommended)`: keep the "
                         "mark on one option only"))
    elif recommended and recommended[0] is not options[0]:
        out.append(error(path, recommended[0].line + 1, "NODE_RECOMMENDED",
                         f"{node.id}'s `(Recommended)` option is not listed first: move it to "
                         "the top of the options"))
    return out


def _cycles(path: str, nodes: list[Node], known: dict[str, Node]) -> list[Diagnostic]:
    """Nodes that wait on each other forever (Depends on / Spawned by forming a loop)."""
    edges: dict[str, list[str]] = {}
    for node_id, node in known.items():
        refs = prerequisites(node)
        edges[node_id] = [r for r in refs if r in known]
    indegree = dict.fromkeys(edges, 0)
    for refs in edges.values():
        for ref in refs:
            indegree[ref] += 1
    queue = [n for n, d in indegree.items() if d == 0]
    while queue:
        current = queue.pop()
        for ref in edges[current]:
            indegree[ref] -= 1
            if indegree[ref] == 0:
                queue.append(ref)
    looped = [n.id for n in nodes if indegree.get(n.id, 0) > 0 and known[n.id] is n]
    if not looped:
        return []
    first = known[looped[0]]
    return [error(path, first.line + 1, "DEPENDENCY_CYCLE",
                  f"{', '.join(looped)} depend on each other in a loop, so none of them can "
                  "ever be asked: remove one `Depends on`/`Spawned by` reference")]


# ---------------------------------------------------------------------------------------
# The elicitation ledger


def check_ledger(prog: Progress) -> list[Diagnostic]:
    """Required sections resolved and no open sub-thread: errors once the interview asks
    for approval, warnings while it is still collecting."""
    from mdgrill.model.tree import spec_frontier

    nodes = prog.nodes
    frontier = spec_frontier(prog)
    iv = prog.data.get("interview")
    status = iv.get("status") if isinstance(iv, dict) else None
    bypass = iv.get("bypass_reason") if isinstance(iv, dict) else None
    # A skip or a quick bypass leaves decisions open on purpose (with recorded assumptions).
    strict = status in ("awaiting_confirmation", "complete") and bypass is None
    make = error if strict else warning
    if strict:
        when = f"the interview is {status}: "
    elif status in TERMINAL:
        when = f"the interview was {status} with assumptions; "
    else:
        when = "the interview is still collecting; before approval, "
    out: list[Diagnostic] = []
    path = prog.path
    at = key_line(prog, "required_sections")
    for section in frontier.unresolved_sections:
        out.append(make(path, at, "REQUIRED_SECTION_UNRESOLVED",
                        f"required section `{section}` has no resolved node: {when}ask a "
                        f"decision in `{section}` (a node with `Section: {section}`)"))
    line_of = {n.id: n.line for n in reversed(nodes)}
    for parent, children in frontier.open_subthreads.items():
        for child in children:
            out.append(make(path, line_of.get(child, 0) + 1, "OPEN_SUBTHREAD",
                            f"{parent} is resolved but its sub-question {child} is still open: "
                            f"{when}ask {child} (or mark it out of scope)"))
    return out


# ---------------------------------------------------------------------------------------
# Glossaries


def check_glossary_model(glossary: Glossary) -> list[Diagnostic]:
    """A CONTEXT.md's shape warnings plus its errors (duplicate term, avoided word is a term)."""
    from mdgrill.formats.glossary import check_glossary

    return list(glossary.diagnostics) + check_glossary(glossary)


def check_context_map_model(cmap: ContextMap, base_depth: int) -> list[Diagnostic]:
    """A CONTEXT-MAP.md's shape warnings plus its errors (paths leaving the repository...)."""
    from mdgrill.formats.glossary import check_context_map

    return list(cmap.diagnostics) + check_context_map(cmap, base_depth)


def validate_glossary_bytes(data: bytes, path: str, is_map: bool = False,
                            base_depth: int = 0) -> list[Diagnostic]:
    """Decode, parse and check a CONTEXT.md (or CONTEXT-MAP.md); never raises."""
    from mdgrill.formats.glossary import parse_context_map, parse_glossary
    from mdgrill.formats.markdown import refuse_conflict
    from mdgrill.formats.textfile import decode

    try:
        tf = decode(data, path)
        refuse_conflict(tf.text, path)
    except InputError as exc:
        return [from_input_error(exc, path)]
    if is_map:
        return sort_diagnostics(check_context_map_model(parse_context_map(tf, path), base_depth))
    return sort_diagnostics(check_glossary_model(parse_glossary(tf, path)))


def ledger_ids(prog: Progress) -> list[str]:
    """The decisions in the order they were settled: E1 is the first, E2 the second…"""
    from mdgrill.model.tree import ledger_of

    return ledger_of(prog).order


__all__ = ["check_progress", "validate_progress_bytes", "validate_glossary_bytes",
           "from_input_error", "ledger_ids"]
