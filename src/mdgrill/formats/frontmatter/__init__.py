"""Front matter: find it, load it, and splice new values in without touching other lines.

mdgrill writes its keys in a small, strict subset of YAML (block mappings, `- ` sequences,
one-line flow collections, plain or double-quoted scalars). A parser for just that subset
runs on every command in well under a millisecond; anything outside it (comments, anchors,
single quotes, block scalars, a plain word YAML 1.1 would turn into a date or a boolean...)
goes to PyYAML's safe C loader, which is exact but costs ~30 ms to import.
"""

from __future__ import annotations

from mdgrill.formats.frontmatter.block import (
    MISSING,
    FrontMatter,
    load,
    split,
    top_level_spans,
)
from mdgrill.formats.frontmatter.emit import (
    apply_head_edits,
    quote,
    render_entry,
    render_flow,
    render_scalar,
    splice,
)

__all__ = [
    "FrontMatter",
    "MISSING",
    "apply_head_edits",
    "load",
    "quote",
    "render_entry",
    "render_flow",
    "render_scalar",
    "splice",
    "split",
    "top_level_spans",
]
