"""What `watch` looks at: spec folders (their `.progress.md` and artifacts), glossaries and
maps, found by path."""

from __future__ import annotations

import os

from mdgrill.shell import store
from mdgrill.shell.walk import skipped_folder, walk

ARTIFACTS = frozenset({"research.md", "requirements.md", "design.md", "tasks.md"})
GLOSSARY = "CONTEXT.md"
CONTEXT_MAP = "CONTEXT-MAP.md"
JB_SUFFIXES = ("___jb_tmp___", "___jb_old___")
SPEC, GLOSS, MAP, DIR, QUESTIONS = "spec", "glossary", "map", "dir", "questions"
BOUND = "bound"  # a file a settled decision is bound to (its key: the repository path)
QUESTIONNAIRE = "questions.md"  # core/questionnaire.FILE: a spec's round, answered in a file
MAX_BLOCK_CACHES = 8  # parsed logs kept for the specs checked most recently
MISSING_GRACE = 0.15  # a rename-save leaves the name absent for a moment: look again once


def target_of(path: str, top: str) -> tuple[str, str] | None:
    """The (kind, path) an event on `path` under `top` makes due, or None when it concerns
    no target."""
    folder, name = os.path.split(path)
    for suffix in JB_SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    if not name.endswith(".md"):
        return None
    if skipped_folder(folder, top):
        return None
    if name == store.PROGRESS or name in ARTIFACTS:
        return SPEC, folder
    if name == QUESTIONNAIRE:
        return QUESTIONS, folder
    if name == GLOSSARY:
        return GLOSS, os.path.join(folder, name)
    if name == CONTEXT_MAP:
        return MAP, os.path.join(folder, name)
    return None


def find_targets(top: str) -> list[tuple[str, str]]:
    """Every spec folder, CONTEXT.md and CONTEXT-MAP.md under `top`."""
    found: list[tuple[str, str]] = []
    for dirpath, _, filenames in walk(top):
        names = set(filenames)
        if store.PROGRESS in names:
            found.append((SPEC, dirpath))
        for name, kind in ((GLOSSARY, GLOSS), (CONTEXT_MAP, MAP)):
            if name in names:
                found.append((kind, os.path.join(dirpath, name)))
    return found


def display(path: str) -> str:
    from mdgrill.shell.session import display as shown

    return shown(path)
