"""Who gave an answer or an approval, and whether the project lets them.

Shell: the default person is git's identity (`git var GIT_AUTHOR_IDENT`), the owners come from
the project's `.mdgrill.yaml` (`project.owners`). The verbs record the person in the block they
append, as `- By: <who>` (a block's own line) or `- By: <ID> -> <who>` (the answer of one
decision), and an approval commit is authored by them.
"""

from __future__ import annotations

import re

from mdgrill.formats.progress import Progress, Transition, single_line
from mdgrill.shell import store

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    from mdgrill.core.machine.reports import Written
    from mdgrill.shell.project import Owners

    W = TypeVar("W", bound=Written)

_ADDRESS = re.compile(r"[^<>\s]*\Z")  # what `<...>` may hold


def who(spec: store.Spec, given: str | None) -> str | None:
    """`--by` as given (one line), else git's identity here, else None (nobody is named)."""
    if given is not None:
        return single_line(given, "--by")
    from mdgrill.git.identity import git_identity  # its config grammar: only when asked

    return git_identity(spec.root)


def author(person: str | None) -> str | None:
    """`person` as a commit author (`Name <email>`; git takes an empty email), or None."""
    if not person:
        return None
    return person if _has_address(person) else f"{person} <>"


def _has_address(person: str) -> bool:
    """Whether `person` ends in `<email>` (`(.*?)\\s*<([^<>\\s]*)>\\Z`, taken apart by hand: the
    lazy name before optional blanks was quadratic on a long run of them)."""
    opening = person.rfind("<")
    return person.endswith(">") and opening >= 0 and \
        _ADDRESS.match(person, opening + 1, len(person) - 1) is not None and \
        "\n" not in person[:opening].rstrip()


def signed(step: Callable[[Progress], Transition[W]], person: str | None,
           subject: str | None = None,
           check: Callable[[Progress], None] | None = None,
           ) -> Callable[[Progress], Transition[W]]:
    """`step`, with `- By:` added to what it appends (`ID -> who` when `subject` is an ID) and
    `check` (an owners rule) run on the file first."""
    def run(prog: Progress) -> Transition[W]:
        if check is not None:
            check(prog)
        change, result = step(prog)
        if person and change.touches_log:
            if subject:  # beside the answer, in the block it was appended to
                change.append_lines.append(f"- By: {subject} -> {person}")
            elif change.new_blocks:  # the block this verb opens (Confirmed, Reopened, ...)
                heading, lines = change.new_blocks[-1]
                change.new_blocks[-1] = (heading, [*lines, f"- By: {person}"])
            else:
                change.append_lines.append(f"- By: {person}")
            result["by"] = person
        return Transition(change, result)
    return run


def section_rule(owners: Owners, person: str | None, decision_id: str,
                 verb: str) -> Callable[[Progress], None]:
    """An owners rule for answering one decision: its section's owners, if any."""
    def check(prog: Progress) -> None:
        if not owners.sections:
            return  # no section has owners: no need to read the tree
        node = prog.node(decision_id)
        if node is None:
            return
        nodes = [node]
        if prog.node_ids().count(decision_id) > 1:
            # an ID of two nodes (DUPLICATE_ID, by hand): each one's section holds, so a copy
            # in an unowned section put above it does not stand in for the owned one
            nodes = [n for n in prog.nodes if n.id == decision_id]
        for section in dict.fromkeys(n.section for n in nodes):
            if section is None:
                continue
            names = next((v for k, v in owners.sections.items()
                          if k.strip().casefold() == section.strip().casefold()), [])
            owners.require(f"the section {section}", names, person, verb)
    return check


def each_section_rule(owners: Owners, person: str | None, decision_ids: Iterable[str],
                      verb: str) -> Callable[[Progress], None]:
    """`section_rule` for each of several decisions one step settles or takes back (a
    skip's defaults, what a revise or a reaffirm's `Revise the decision` reopens)."""
    def check(prog: Progress) -> None:
        for decision_id in decision_ids:
            section_rule(owners, person, decision_id, verb)(prog)
    return check


def phase_rule(owners: Owners, person: str | None, phase_of: Callable[[Progress], object],
               verb: str) -> Callable[[Progress], None]:
    """An owners rule for approving (or reopening) a phase: that phase's owners, if any."""
    def check(prog: Progress) -> None:
        phase = phase_of(prog)
        names = owners.phases.get(str(phase), []) if phase is not None else []
        owners.require(f"the {phase} phase", names, person, verb)
    return check
