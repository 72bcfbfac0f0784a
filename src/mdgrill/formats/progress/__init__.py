"""`.progress.md`: read its layout (front matter, sections, design tree, log blocks) and write it.

Reading is in two depths. `read_progress` scans headings only (cheap: what every command
needs); nodes and block entries are parsed when asked for. Writing appends blocks and lines
at the end of `## Interview Responses` and splices front matter values, so every other byte
of the file stays as it was.
"""

from __future__ import annotations

from mdgrill.formats.progress.blocks import (
    ROUND_EDITED_HINT,
    BulletRow,
    block_heading,
    classify_block,
    lf_line_ends,
    log_digest,
    normalize_log,
    parse_bullets,
    read_bullets,
)
from mdgrill.formats.progress.lines import (
    ARTIFACT_WORDS,
    BLOCK_HEADING,
    BULLET,
    BULLET_LINE,
    GOAL,
    KNOWN_SECTIONS,
    LEGACY_HEADING,
    LOG,
    NODE_HEADING,
    SECTION_ALIASES,
    SUB_BULLET,
    TRANSITION_WORDS,
    TREE,
    Block,
    Entry,
    Node,
    Option,
    section_key,
    split_ids,
)
from mdgrill.formats.progress.reader import (
    Progress,
    read_progress,
    reread_progress,
)
from mdgrill.formats.progress.writer import (
    Change,
    Transition,
    apply_change,
    change_splices,
    single_line,
    with_record,
)

__all__ = [
    "ARTIFACT_WORDS",
    "BLOCK_HEADING",
    "BULLET",
    "BULLET_LINE",
    "Block",
    "BulletRow",
    "Change",
    "Entry",
    "GOAL",
    "KNOWN_SECTIONS",
    "LEGACY_HEADING",
    "LOG",
    "NODE_HEADING",
    "Node",
    "Option",
    "Progress",
    "ROUND_EDITED_HINT",
    "SECTION_ALIASES",
    "SUB_BULLET",
    "TRANSITION_WORDS",
    "TREE",
    "Transition",
    "apply_change",
    "change_splices",
    "block_heading",
    "classify_block",
    "lf_line_ends",
    "log_digest",
    "normalize_log",
    "parse_bullets",
    "read_bullets",
    "read_progress",
    "reread_progress",
    "section_key",
    "single_line",
    "with_record",
    "split_ids",
]
