"""The context digest (docs/contract.md): which sources a phase reads, and their framed sha256."""

from __future__ import annotations

from hashlib import sha256

MARKER = b"mdgrill-context-v1"
RALPH_MARKER = b"ralph-phase-context-v1"
REQUIRED = {"design": ("requirements.md",), "tasks": ("requirements.md", "design.md")}
OPTIONAL = {"requirements": ("research.md",), "design": ("research.md",),
            "tasks": ("research.md",)}


def frame(value: bytes) -> bytes:
    return str(len(value)).encode("ascii") + b":" + value


def source_names(phase: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) artifact file names for a phase."""
    return REQUIRED.get(phase, ()), OPTIONAL.get(phase, ())


def context_digest(phase: str, goal: str, sources: list[tuple[str, bytes]],
                   marker: bytes = MARKER) -> str:
    """sha256 over the marker, phase, goal and each (path, bytes) sorted by path."""
    h = sha256()
    h.update(frame(marker))
    h.update(frame(phase.encode("utf-8")))
    h.update(frame(goal.encode("utf-8")))
    for path, data in sorted(sources, key=lambda s: s[0]):
        h.update(frame(path.encode("utf-8")))
        h.update(frame(data))
    return h.hexdigest()


def file_sha256(data: bytes) -> str:
    return sha256(data).hexdigest()
