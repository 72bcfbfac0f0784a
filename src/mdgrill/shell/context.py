"""A phase's context around `.progress.md` (docs/contract.md): the artifacts it reads, their
digest, and whether the loaded skill files are still the ones recorded."""

from __future__ import annotations

import os

from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Progress
from mdgrill.model.digest import RALPH_MARKER, context_digest, file_sha256, source_names
from mdgrill.shell import store

# (real absolute path, repo-relative POSIX path, bytes) of one context source
Source = tuple[str, str, bytes]


def read_sources(spec: store.Spec, phase: str) -> tuple[list[Source], list[str]]:
    """The sources of `phase` that exist, and the names of required ones that do not."""
    required, optional = source_names(phase)
    sources: list[Source] = []
    missing: list[str] = []
    for name in (*required, *optional):
        path = os.path.join(spec.folder, name)
        if not os.path.isfile(path):
            if name in required:
                missing.append(name)
            continue
        rel = store.relpath_posix(path, spec.root)
        sources.append((os.path.realpath(path), rel, store.read_file(path, rel, spec.root)))
    return sources, missing


def require_sources(spec: store.Spec, phase: str) -> list[Source]:
    """The sources of `phase`; a missing required one is a refusal."""
    sources, missing = read_sources(spec, phase)
    if missing:
        # the folder as the user can type it: outside a repository the spec folder is its own
        # root, and its path relative to that root would be "."
        from mdgrill.shell.session import display

        raise GateRefusal("CONTEXT_ARTIFACT_REQUIRED",
                          f"the {phase} phase reads {', '.join(missing)}, which "
                          f"{'does' if len(missing) == 1 else 'do'} not exist in "
                          f"{display(spec.folder)}: finish the previous phase first")
    return sources


def goal_of(prog: Progress) -> str:
    goal = prog.data.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise InputError("INVALID_STATE", f"{prog.path}: the front matter has no `goal:`; add "
                         "the spec's goal (one line)", path=prog.path)
    return goal


def require_exact_goal(prog: Progress, spec: store.Spec, phase: str) -> None:
    """Refuse while the goal a person reads (`## Goal`) is not the goal the digest holds
    (`goal:`): "the length-framed phase, exact goal snapshot" (issue 31.4)."""
    from mdgrill.checks.spec.front import goal_body_differs

    if not goal_body_differs(prog):
        return
    iv = prog.data.get("interview")
    new = ""
    if isinstance(iv, dict):
        from mdgrill.core.machine import next_interview_id

        new = (f"; if the goal changed, change `goal:` too and begin a new interview for it "
               f"(`mdgrill begin-interview {spec.rel_folder} --phase {iv.get('phase') or phase} "
               f"--interview-id {next_interview_id(str(iv.get('id')))}`)")
    raise GateRefusal("CONTEXT_STALE",
                      f"the `## Goal` text of {spec.rel_folder} differs from `goal:` in the "
                      "front matter: the interview is held to an exact goal snapshot, and the "
                      f"two now say different things; nothing was written. Make `## Goal` "
                      f"say `{goal_of(prog)}` again{new}",
                      details={"changed": "the `## Goal` text"})


def source_list(sources: list[Source], absolute: bool = False) -> list[dict[str, str]]:
    """The `context:` entries of an interview: each source's path and sha256."""
    return [{"path": real if absolute else rel, "sha256": file_sha256(data)}
            for real, rel, data in sources]


def context_sources(prog: Progress, spec: store.Spec, phase: str,
                    exact_goal: bool = True) -> tuple[str, list[dict[str, str]]]:
    """The context digest of `phase` now, and its sources with their sha256; refused while
    the `## Goal` text says another goal than `goal:` ("exact goal snapshot"), unless
    `exact_goal` is off (the `digest` verb shows the digest whatever the body says)."""
    if exact_goal:
        require_exact_goal(prog, spec, phase)
    sources = require_sources(spec, phase)
    digest = context_digest(phase, goal_of(prog), [(rel, data) for _, rel, data in sources])
    return digest, source_list(sources)


def ralph_digest(prog: Progress, spec: store.Spec,
                 phase: str) -> tuple[str, list[dict[str, str]]]:
    """smart-ralph's `ralph-phase-context-v1` digest (absolute source paths)."""
    sources = require_sources(spec, phase)
    digest = context_digest(phase, goal_of(prog), [(real, data) for real, _, data in sources],
                            marker=RALPH_MARKER)
    return digest, source_list(sources, absolute=True)


def skills_stale(data: dict[str, object], spec: store.Spec) -> list[str]:
    """Loaded skill files whose bytes no longer match the recorded sha256 (or are gone)."""
    skills = data.get("skills") or []
    stale: list[str] = []
    for skill in skills if isinstance(skills, list) else []:
        if not isinstance(skill, dict) or skill.get("status") != "loaded":
            continue
        rel = str(skill.get("path", ""))
        try:
            actual = file_sha256(store.read_file(os.path.join(spec.root, rel), rel, spec.root))
        except InputError:
            actual = None
        if actual != skill.get("sha256"):
            stale.append(rel)
    return stale
