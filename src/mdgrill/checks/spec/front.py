"""The front matter and the sections: the record's invariants at their lines, the goal, the
log's seal."""

from __future__ import annotations

from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.formats.progress import GOAL, LOG, ROUND_EDITED_HINT, Progress
from mdgrill.model.record import check_record

# ---------------------------------------------------------------------------------------
# Front matter


def goal_body_differs(prog: Progress) -> bool:
    """Whether the `## Goal` text says something else than `goal:` (spacing aside: a reflowed
    paragraph says the same); False when either is missing or empty."""
    section = prog.sections.get(GOAL)
    goal = prog.data.get("goal")
    if section is None or not isinstance(goal, str) or not goal.strip():
        return False
    start, end = prog.section_offsets(section)
    text = " ".join(prog.tf.text[start:end].split())
    return bool(text) and " ".join(goal.split()) != text


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
    elif goal_body_differs(prog):
        out.append(warning(path, goal_section.heading_line + 1, "GOAL_MISMATCH",
                           "the `## Goal` text differs from `goal:` in the front matter "
                           f"(line {key_line(prog, 'goal')}): the interview's goal snapshot is "
                           "exact, so every gate refuses (CONTEXT_STALE) until the two say the "
                           "same"))
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
