"""The interview gate's checks, run before every transition that leads to delegation.

Pure: a parsed spec in, a list of problems out. `await-confirmation`, `confirm` and
`check-delegation` refuse while any problem stands, and report all of them at once:

- "Advance no phase with an open frontier": every node of the tree resolved or placed out of
  scope by the user (`FRONTIER_OPEN`), unless the user skipped with assumptions.
- "Ask every currently unblocked user decision in the same round": the open round asked its
  whole frontier (`FRONTIER_NOT_ASKED`).
- "Treat `Other` as input to a concrete next-layer decision" (`OTHER_WITHOUT_FOLLOWUP`).
- The elicitation skill's Phase 3 checks "before every transition": required sections, no
  reference to a missing ID, no duplicate IDs, no open sub-thread, structure of every block.
"""

from __future__ import annotations

from mdgrill.core.hints import spec_arg
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Progress, split_ids
from mdgrill.model.interview import interview_blocks
from mdgrill.model.tree import Frontier, spec_frontier

# Blocks after which a phase's rounds belong to a new interview


class GateProblem:
    """One reason the gate refuses: a stable code, a line (1-based, 0 = none), what to do."""

    __slots__ = ("code", "line", "message")

    def __init__(self, code: str, line: int, message: str) -> None:
        self.code = code
        self.line = line
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "line": self.line, "message": self.message}


def others_without_followup(prog: Progress, phase: str) -> list[tuple[str, int]]:
    """Decisions answered through `Other` in this interview with no node spawned by them."""
    parents = {n.spawned_by for n in prog.nodes if n.spawned_by}
    missing: list[tuple[str, int]] = []
    for block in interview_blocks(prog.blocks, phase):
        if block.kind != "round":
            continue
        for entry in block.get("Other"):
            for node_id in split_ids(entry.value):
                if node_id not in parents and all(m[0] != node_id for m in missing):
                    missing.append((node_id, entry.line + 1))
    return missing


def unasked(prog: Progress, iv: dict[str, object], frontier: Frontier) -> list[str]:
    """Nodes on the frontier when the open round began that the round has not asked and that
    are still open."""
    wanted = iv.get("round_frontier")
    if not isinstance(wanted, list) or not wanted:
        return []
    last = prog.last_block()
    asked: set[str] = set()
    if last is not None and last.kind == "round" and last.round == iv.get("round"):
        for entry in last.get("Asked"):
            asked.update(split_ids(entry.value))
    still_open = set(frontier.open)
    return [str(i) for i in wanted if i not in asked and i in still_open]


def unasked_refusal(spec_hint: str, round_number: object, ids: list[str]) -> GateRefusal:
    flags = " ".join(f"--decision-id {i}" for i in ids)
    return GateRefusal(
        "FRONTIER_NOT_ASKED",
        f"round {round_number} has not asked {', '.join(ids)}, which "
        f"{'was' if len(ids) == 1 else 'were'} on the frontier when the round opened: a round "
        "asks every unblocked decision (split only at four per question call). Ask "
        f"{'it' if len(ids) == 1 else 'them'} now: `mdgrill open-frontier {spec_hint} --round "
        f"{round_number} {flags}`; nothing was written",
        details={"unasked": ids})


def problems(prog: Progress, iv: dict[str, object]) -> list[GateProblem]:
    """Every reason the interview may not move on to approval or delegation now."""
    skipping = iv.get("bypass_reason") is not None
    frontier = spec_frontier(prog)
    found: list[GateProblem] = []
    if iv.get("status") == "collecting":
        missing = unasked(prog, iv, frontier)
        if missing:
            found.append(GateProblem("FRONTIER_NOT_ASKED", 0,
                                 f"round {iv.get('round')} has not asked {', '.join(missing)}: "
                                 f"ask {'it' if len(missing) == 1 else 'them'} in this round "
                                 "with `mdgrill open-frontier`"))
    if not skipping:  # a skip defaults what is left, with recorded assumptions
        found.extend(_open_nodes(prog, frontier))
        for node_id, line in others_without_followup(prog, str(iv.get("phase"))):
            found.append(GateProblem("OTHER_WITHOUT_FOLLOWUP", line,
                                 f"{node_id} was answered with `Other`: add the specific "
                                 f"decision it leads to (`mdgrill node add {spec_arg(prog.path)} "
                                 f"ID --title T --spawned-by {node_id}`) and ask it"))
    found.extend(_phase3(prog, frontier, skipping))
    return found


def _open_nodes(prog: Progress, frontier: Frontier) -> list[GateProblem]:
    """Each node neither resolved nor out of scope ("advance no phase with an open
    frontier")."""
    line_of = {n.id: n.line + 1 for n in reversed(prog.nodes)}
    found: list[GateProblem] = []
    for node_id in frontier.open:
        if node_id in frontier.blocked:
            how = f"blocked behind {', '.join(frontier.blocked[node_id])}"
        elif node_id in frontier.investigating:
            how = "waiting on a fact lookup (`Investigating:`)"
        else:
            how = "open"
        found.append(GateProblem("FRONTIER_OPEN", line_of.get(node_id, 0),
                             f"{node_id} is {how}: ask it (`mdgrill open-frontier`) and record "
                             "the answer, let the user place it out of scope (`mdgrill "
                             "out-of-scope --reply`), or `mdgrill skip` with assumptions"))
    if frontier.open and not frontier.frontier:
        found.append(GateProblem("FRONTIER_BLOCKED", 0,
                             "no open decision can be asked now: every one waits on a "
                             "dependency, a conflict or a fact lookup; report what blocks them "
                             "and stop without delegating"))
    return found


def _phase3(prog: Progress, frontier: Frontier, skipping: bool) -> list[GateProblem]:
    """The elicitation skill's five checks: `validate`'s errors (references, duplicates,
    structure) and, unless skipped, required sections and sub-threads."""
    from mdgrill.checks.spec import check_progress
    from mdgrill.diagnostics import ERROR

    found: list[GateProblem] = []
    ledger_codes = ("REQUIRED_SECTION_UNRESOLVED", "OPEN_SUBTHREAD")
    for diag in check_progress(prog):
        if diag.severity != ERROR or diag.code == "ROUND_EDITED" or diag.code in ledger_codes:
            continue  # the ledger's two are worded for the gate below
        found.append(GateProblem(diag.code, diag.line, diag.message))
    if skipping:
        return found
    for section in frontier.unresolved_sections:
        found.append(GateProblem("REQUIRED_SECTION_UNRESOLVED", 0,
                             f"required section `{section}` has no resolved node: ask a "
                             f"decision in `{section}` (a node with `Section: {section}`)"))
    for parent, children in frontier.open_subthreads.items():
        for child in children:
            found.append(GateProblem("OPEN_SUBTHREAD", 0, f"{parent} is resolved but its "
                                 f"sub-question {child} is still open: ask {child}"))
    return found


def require_clear(prog: Progress, iv: dict[str, object], verb: str) -> None:
    """Refuse (exit 3, nothing written) with every problem at once, or return."""
    found = problems(prog, iv)
    if not found:
        return
    lines = [f"{prog.path}:{p.line}: {p.code}: {p.message}" if p.line else
             f"{p.code}: {p.message}" for p in found]
    raise GateRefusal(found[0].code, f"{verb} refused ({len(found)} problem"
                      f"{'s' if len(found) != 1 else ''}; nothing was written):\n  "
                      + "\n  ".join(lines),
                      details={"problems": [p.to_json() for p in found]})
