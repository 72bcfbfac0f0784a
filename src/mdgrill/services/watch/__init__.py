"""Watch mode: revalidate specs and glossaries on every save and report what changed.

One watchdog observer (recursive) feeds paths to `Watcher.notify`; one worker thread keeps a
heap of due times, one entry per target (a spec folder or a glossary file), and checks a
target once it has been quiet for `debounce` seconds (at most `max_wait` after its first
event). So a save that makes 3-24 file-system events is checked once, and the check reads
the file as the last event left it. Reports are plain dicts handed to a sink (the CLI prints
them); the engine never prints.
"""

from __future__ import annotations

from mdgrill.services.watch.checking import (
    BlockCache,
    validate_progress,
)
from mdgrill.services.watch.engine import (
    TargetState,
    Watcher,
)
from mdgrill.services.watch.output import (
    format_report,
)
from mdgrill.services.watch.targets import (
    ARTIFACTS,
    CONTEXT_MAP,
    DIR,
    GLOSS,
    GLOSSARY,
    JB_SUFFIXES,
    MAP,
    MAX_BLOCK_CACHES,
    MISSING_GRACE,
    SPEC,
    display,
    find_targets,
    target_of,
)

__all__ = [
    "ARTIFACTS",
    "BlockCache",
    "CONTEXT_MAP",
    "DIR",
    "GLOSS",
    "GLOSSARY",
    "JB_SUFFIXES",
    "MAP",
    "MAX_BLOCK_CACHES",
    "MISSING_GRACE",
    "SPEC",
    "TargetState",
    "Watcher",
    "display",
    "find_targets",
    "format_report",
    "target_of",
    "validate_progress",
]
