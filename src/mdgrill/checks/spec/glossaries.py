"""Glossaries and context maps, checked from their bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mdgrill.diagnostics import Diagnostic, sort_diagnostics
from mdgrill.errors import InputError

if TYPE_CHECKING:
    from mdgrill.formats.glossary import ContextMap, Glossary
from mdgrill.checks.spec.entry import from_input_error

# ---------------------------------------------------------------------------------------
# Glossaries


def check_glossary_model(glossary: Glossary) -> list[Diagnostic]:
    """A CONTEXT.md's shape warnings plus its errors (duplicate term, avoided word is a term)."""
    from mdgrill.formats.glossary import check_glossary

    return list(glossary.diagnostics) + check_glossary(glossary)


def check_context_map_model(cmap: ContextMap, base_depth: int) -> list[Diagnostic]:
    """A CONTEXT-MAP.md's shape warnings plus its errors (paths leaving the repository...)."""
    from mdgrill.formats.glossary import check_context_map

    return list(cmap.diagnostics) + check_context_map(cmap, base_depth)


def validate_glossary_bytes(data: bytes, path: str, is_map: bool = False,
                            base_depth: int = 0) -> list[Diagnostic]:
    """Decode, parse and check a CONTEXT.md (or CONTEXT-MAP.md); never raises."""
    from mdgrill.formats.glossary import parse_context_map, parse_glossary
    from mdgrill.formats.markdown import refuse_conflict
    from mdgrill.formats.textfile import decode

    try:
        tf = decode(data, path)
        refuse_conflict(tf.text, path)
    except InputError as exc:
        return [from_input_error(exc, path)]
    if is_map:
        return sort_diagnostics(check_context_map_model(parse_context_map(tf, path), base_depth))
    return sort_diagnostics(check_glossary_model(parse_glossary(tf, path)))
