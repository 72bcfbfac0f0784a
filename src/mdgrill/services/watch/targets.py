"""What `watch` looks at: spec folders (their `.progress.md` and artifacts), glossaries and
maps, found by path."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mdgrill.shell import store

if TYPE_CHECKING:


    pass


ARTIFACTS = frozenset({"research.md", "requirements.md", "design.md", "tasks.md"})
GLOSSARY = "CONTEXT.md"
CONTEXT_MAP = "CONTEXT-MAP.md"
JB_SUFFIXES = ("___jb_tmp___", "___jb_old___")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv"})
SPEC, GLOSS, MAP, DIR, QUESTIONS = "spec", "glossary", "map", "dir", "questions"
QUESTIONNAIRE = "questions.md"  # core/questionnaire.FILE: a spec's round, answered in a file
MAX_BLOCK_CACHES = 8  # parsed logs kept for the specs checked most recently
MISSING_GRACE = 0.15  # a rename-save leaves the name absent for a moment: look again once


def target_of(path: str) -> tuple[str, str] | None:
    """The (kind, path) an event on `path` makes due, or None when it concerns no target."""
    folder, name = os.path.split(path)
    for suffix in JB_SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    if not name.endswith(".md"):
        return None
    if any(part in SKIP_DIRS for part in folder.split(os.sep)):
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
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
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
