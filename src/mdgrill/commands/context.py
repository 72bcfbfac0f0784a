"""What the interview verbs read around `.progress.md`: the spec, its context, its skills."""

from __future__ import annotations

import argparse
import os

from .. import store
from ..digest import RALPH_MARKER, context_digest, file_sha256, source_names
from ..errors import GateRefusal, InputError
from ..progress import Progress


def spec_of(args: argparse.Namespace, must_exist: bool = True) -> store.Spec:
    return store.resolve_spec(args.spec, args.root, must_exist=must_exist)


def _goal(prog: Progress) -> str:
    goal = prog.data.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise InputError("INVALID_STATE", f"{prog.path}: the front matter has no `goal:`; add "
                         "the spec's goal (one line)", path=prog.path)
    return goal


def _read_sources(spec: store.Spec, phase: str) -> list[tuple[str, str, bytes]]:
    """(absolute path, repo-relative path, bytes) of each context source of `phase`."""
    required, optional = source_names(phase)
    missing = [n for n in required if not os.path.isfile(os.path.join(spec.folder, n))]
    if missing:
        raise GateRefusal("CONTEXT_ARTIFACT_REQUIRED",
                          f"the {phase} phase reads {', '.join(missing)}, which "
                          f"{'does' if len(missing) == 1 else 'do'} not exist in "
                          f"{spec.rel_folder}: finish the previous phase first")
    sources = []
    for name in required + tuple(n for n in optional
                                 if os.path.isfile(os.path.join(spec.folder, n))):
        path = os.path.join(spec.folder, name)
        rel = store.relpath_posix(path, spec.root)
        sources.append((path, rel, store.read_file(path, rel, spec.root)))
    return sources


def context_sources(prog: Progress, spec: store.Spec,
                    phase: str) -> tuple[str, list[dict[str, str]]]:
    """The context digest of `phase` now, and its sources with their sha256."""
    goal = _goal(prog)
    sources = _read_sources(spec, phase)
    digest = context_digest(phase, goal, [(rel, data) for _, rel, data in sources])
    return digest, [{"path": rel, "sha256": file_sha256(data)} for _, rel, data in sources]


def ralph_digest(prog: Progress, spec: store.Spec,
                 phase: str) -> tuple[str, list[dict[str, str]]]:
    """smart-ralph's `ralph-phase-context-v1` digest (absolute source paths)."""
    goal = _goal(prog)
    sources = _read_sources(spec, phase)
    rows = [(os.path.realpath(path), data) for path, _, data in sources]
    digest = context_digest(phase, goal, rows, marker=RALPH_MARKER)
    return digest, [{"path": path, "sha256": file_sha256(data)} for path, data in rows]


def skills_stale(data: dict[str, object], spec: store.Spec) -> list[str]:
    """Loaded skill files whose bytes no longer match the recorded sha256."""
    skills = data.get("skills") or []
    stale: list[str] = []
    if not isinstance(skills, list):
        return stale
    for skill in skills:
        if not isinstance(skill, dict) or skill.get("status") != "loaded":
            continue
        rel = str(skill.get("path", ""))
        path = os.path.join(spec.root, rel)
        try:
            actual = file_sha256(store.read_file(path, rel, spec.root))
        except InputError:
            stale.append(rel)
            continue
        if actual != skill.get("sha256"):
            stale.append(rel)
    return stale
