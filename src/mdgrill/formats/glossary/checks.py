"""`check_glossary`: duplicate terms, and avoided words that are other terms."""

from __future__ import annotations

from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.formats.glossary.model import Glossary, Term
from mdgrill.formats.glossary.shapes import fold

# --------------------------------------------------------------------------- checks

def check_glossary(glossary: Glossary) -> list[Diagnostic]:
    """Errors in a glossary's content: duplicate terms, avoided words that are terms."""
    out: list[Diagnostic] = []
    path = glossary.path
    seen: dict[str, Term] = {}
    for term in glossary.terms:
        for name in term.names:
            key = fold(name)
            first = seen.get(key)
            if first is None:
                seen[key] = term
                continue
            where = "earlier in this entry" if first is term else f"at line {first.line}"
            out.append(error(path, term.line, "DUPLICATE_TERM",
                             f'"{name}" is already defined {where}: merge the two entries into '
                             "one, or rename one of them", term.col))
    for term in glossary.terms:
        for word in term.avoid:
            owner = seen.get(fold(bare_word(word)))
            if owner is None:
                continue
            if owner is term:
                out.append(error(path, term.avoid_line, "AVOID_IS_TERM",
                                 f'"{term.name}" lists its own name "{word}" under _Avoid_: '
                                 "remove it from the list"))
                continue
            # Real glossaries do this on purpose ("say Skill, not Tool, for this"): worth a
            # look, but it breaks no gate, so it is a warning naming both places.
            out.append(warning(path, term.avoid_line, "AVOID_IS_TERM",
                               f'"{word}" is listed under _Avoid_ for "{term.name}" (line '
                               f"{term.avoid_line}) but is itself a term (line {owner.line}): "
                               "if both meanings are meant, say how they differ; else drop it "
                               "from this _Avoid_ list, or rename that term"))
    return out


def bare_word(word: str) -> str:
    """An avoided word without surrounding quotes or emphasis, for comparing with names."""
    w = word.strip()
    for left, right in (("“", "”"), ('"', '"'), ("‘", "’"), ("'", "'"), ("`", "`"),
                        ("**", "**"), ("_", "_"), ("*", "*")):
        if len(w) > len(left) + len(right) and w.startswith(left) and w.endswith(right):
            w = w[len(left):-len(right)].strip()
    return w
