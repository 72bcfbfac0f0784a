"""`lint`'s language rules for definitions (the skill's own advice)."""

from __future__ import annotations

import re

from mdgrill.diagnostics import Diagnostic, warning
from mdgrill.formats.glossary.model import Glossary

# --------------------------------------------------------------------------- language rules

_LANG_SENTENCES = re.compile(r"[.!?。！？](?=\s|$)")
# A path starts where a run of path characters starts (not at every `\b` inside one, which
# made a long `a-a-a-...` definition quadratic)
_LANG_CODE = re.compile(r"`|https?://|(?<![\w./-])[\w.-]+/[\w./-]*\.[A-Za-z0-9]{1,5}\b|\(\)")


def language_rules(glossary: Glossary) -> list[Diagnostic]:
    """The domain-modeling rules a glossary can be read for: "Keep definitions to one or two
    sentences", "Define what the concept is, not how code implements it", and a context
    described under its `# <Context Name>` in one or two sentences. Warnings: a person
    decides."""
    out: list[Diagnostic] = []
    if glossary.title is not None and not glossary.description.strip():
        out.append(warning(glossary.path, glossary.title_line or 1, "CONTEXT_DESCRIPTION_MISSING",
                           f"`# {glossary.title}` has no description: say in one or two "
                           "sentences what this context covers, under its heading"))
    for term in glossary.terms:
        text = " ".join(term.definition.split())
        sentences = len(_LANG_SENTENCES.findall(text)) or (1 if text else 0)
        if sentences > 2:
            out.append(warning(glossary.path, term.line, "DEFINITION_TOO_LONG",
                               f"the definition of {term.name} has {sentences} sentences: keep "
                               "it to one or two (what the concept is); move the rest out of "
                               "the glossary"))
        if _LANG_CODE.search(text):
            out.append(warning(glossary.path, term.line, "DEFINITION_IMPLEMENTATION",
                               f"the definition of {term.name} names code (a code span, a path, "
                               "a URL or a call): define what the concept is, not how code "
                               "implements it"))
    return out
