"""CONTEXT-MAP.md: its contexts, and the paths they point at."""

from __future__ import annotations

import re

from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.formats.glossary.doc import TEXT_LINE, WORD_RE, Doc, Heading, assign_modes
from mdgrill.formats.glossary.model import ContextEntry, ContextMap
from mdgrill.formats.glossary.parse import indent_width
from mdgrill.formats.glossary.shapes import LIST_ITEM, fold
from mdgrill.formats.textfile import TextFile

# --------------------------------------------------------------------------- context map

_LINK = re.compile(r"(\*\*|__)?\[([^\]\n]+)\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _is_contexts_heading(text: str) -> bool:
    words = WORD_RE.findall(text.casefold())
    if any(w.startswith(("relation", "ambigu")) for w in words):
        return False
    return "contexts" in words or "context" in words or "上下文" in text


def parse_context_map(tf: TextFile, path: str) -> ContextMap:
    """Read the `- [Name](path): summary` bullets under a CONTEXT-MAP.md's Contexts heading."""
    doc = Doc(tf, path)
    cmap = ContextMap(path)
    cmap.diagnostics.extend(doc.diagnostics)
    assign_modes(doc)
    sections = [h for h in doc.headings if h.level >= 2 and _is_contexts_heading(h.text)]
    if not sections:
        cmap.diagnostics.append(warning(
            path, 1, "MAP_NO_CONTEXTS",
            "no `## Contexts` section: list each context as `- [Name](path/to/CONTEXT.md): "
            "what it covers` under a `## Contexts` heading"))
    for h in sections:
        _read_contexts(doc, h, cmap)
    return cmap


def _read_contexts(doc: Doc, h: Heading, cmap: ContextMap) -> None:
    top = -1
    for i in range(h.line + 1, h.end):
        text = doc.texts[i]
        m = LIST_ITEM.match(text)
        if doc.kinds[i] != TEXT_LINE or m is None:
            continue
        if top < 0:
            top = len(m.group(0))
        elif indent_width(text) >= top:
            continue    # a nested item belongs to the context above
        link = _LINK.match(text, m.end())
        if link is None:
            cmap.diagnostics.append(warning(
                doc.path, i + 1, "MAP_ITEM_NO_LINK",
                "this item under the contexts heading does not start with a link: write it as "
                "`- [Name](path/to/CONTEXT.md): what it covers`", m.end() + 1))
            continue
        target = link.group(3)
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        summary = text[link.end():].strip()
        if link.group(1) and summary.startswith(link.group(1)):
            summary = summary[len(link.group(1)):].strip()
        summary = summary.lstrip(":：—–- ").strip()
        cmap.contexts.append(ContextEntry(link.group(2).strip(), target, i + 1,
                                          link.start(2) + 1, summary))


def _escapes(target: str, base_depth: int) -> bool:
    if target.startswith(("/", "\\")) or _SCHEME.match(target):
        return True
    depth = base_depth
    for part in re.split(r"[/\\]", target.split("#")[0]):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part.casefold() == ".git":
            return True  # git's own files, not the work tree
        elif part not in ("", "."):
            depth += 1
    return False


def check_context_map(cmap: ContextMap, base_depth: int = 0) -> list[Diagnostic]:
    """Errors in a map: paths leaving the repository, duplicate context names.

    `base_depth` is how many folders below the repository root the map lives (0 at the root).
    """
    out: list[Diagnostic] = []
    names: dict[str, ContextEntry] = {}
    paths: dict[str, ContextEntry] = {}
    for ctx in cmap.contexts:
        target = ctx.path.split("#")[0]
        if not target:
            out.append(error(cmap.path, ctx.line, "MAP_PATH_EMPTY",
                             f'context "{ctx.name}" has no path: link it to its CONTEXT.md',
                             ctx.col))
        elif _escapes(target, base_depth):
            out.append(error(cmap.path, ctx.line, "MAP_PATH_ESCAPES",
                             f'context "{ctx.name}" points at {ctx.path!r}, outside the '
                             "repository: use a relative path to a CONTEXT.md inside it",
                             ctx.col))
        elif target.replace("\\", "/").rsplit("/", 1)[-1].casefold() != "context.md":
            out.append(warning(cmap.path, ctx.line, "MAP_PATH_NOT_CONTEXT",
                               f'context "{ctx.name}" points at {ctx.path!r}, not a CONTEXT.md: '
                               "terms written for this context would land in that file; link "
                               "the context's CONTEXT.md", ctx.col))
        key = fold(ctx.name)
        first = names.get(key)
        if first is not None:
            out.append(error(cmap.path, ctx.line, "DUPLICATE_CONTEXT",
                             f'context "{ctx.name}" is already listed at line {first.line}: '
                             "keep one entry per context", ctx.col))
        else:
            names[key] = ctx
        norm = re.sub(r"(^|/)\./", r"\1", target.replace("\\", "/"))
        same = paths.get(norm)
        if same is not None and first is None and norm:
            out.append(warning(cmap.path, ctx.line, "DUPLICATE_CONTEXT_PATH",
                               f'contexts "{same.name}" (line {same.line}) and "{ctx.name}" '
                               "share one file: give each context its own CONTEXT.md",
                               ctx.col))
        paths.setdefault(norm, ctx)
    return out
