"""CONTEXT.md glossaries and CONTEXT-MAP.md maps: model, parse, checks and surgical writes.

Pure core: no file I/O. Public API:

    parse_glossary(tf, path) -> Glossary          never raises; shape problems are diagnostics
    check_glossary(glossary) -> list[Diagnostic]  DUPLICATE_TERM, AVOID_IS_TERM
    set_term(tf, glossary, name, definition, avoid=None) -> TextFile
    new_glossary(context_name, name, definition, avoid=None, newline="\\n") -> str
    parse_context_map(tf, path) -> ContextMap
    check_context_map(cmap, base_depth=0) -> list[Diagnostic]

Which parts of a file hold terms. Every ATX heading is classified by its words:
- *other*: Relationships, Example dialogue, Flagged ambiguities, Resolved ambiguities,
  Decisions, Rulings, Known issues, Contexts, Instructions, Avoid, 避免... (and translations).
  Nothing under it is a term. Inside a glossary section only plural section words (or a
  heading that starts with Example/Dialogue/Avoid...) count, so `### Mid-match dialog surface`
  stays a term.
- *glossary*: Language, Glossary, Terms, Terminology, Vocabulary, Termos, 术语... in the heading's
  first three words before any `—`, `:` or `(` ("Language — chat", "Ubiquitous language"; other
  words win over glossary words). Every entry in its own body is a term; its sub-headings are groups
  (their body starts with an entry) or heading entries (`### Term` + body; when the glossary
  heading is the H1, only a sub-heading whose body holds an `_Avoid_` line).
- a heading with neither kind of word inherits *glossary* or *other* from its parent, else it
  is *neutral*: its body is a group only when the body's first block is a paragraph entry or a
  term table, and most of its entries define in words (not `**Entry points**:` + a bare list);
  otherwise the heading is a term itself only when its own body holds an `_Avoid_` line
  (git-green's `## Stoplight`).
- The top area (before any heading, and the body of a neutral H1) holds terms only when no
  heading in the file is a *glossary* heading.
List-item entries (`- **Term**: ...`) count only in glossary sections and the top area.
Outside glossary sections only `**Term**:` and `**Term** — ...` count (`**Label:**` and a bold
line alone are how prose writes labels). Paragraph entries must begin a paragraph; a bold run
that does not begin one, a bold sentence (ending in `.!?;。` or longer than 8 words) and
anything in fenced code, HTML comments or block quotes is never a term. Term tables need a
Term column and a Definition column.
"""

from __future__ import annotations

from mdgrill.formats.glossary.checks import (
    check_glossary,
)
from mdgrill.formats.glossary.contextmap import (
    check_context_map,
    parse_context_map,
)
from mdgrill.formats.glossary.language import (
    language_rules,
)
from mdgrill.formats.glossary.model import (
    ContextEntry,
    ContextMap,
    Glossary,
    Shape,
    Term,
)
from mdgrill.formats.glossary.parse import (
    parse_glossary,
)
from mdgrill.formats.glossary.write import (
    new_glossary,
    set_term,
)

__all__ = [
    "ContextEntry",
    "ContextMap",
    "Glossary",
    "Shape",
    "Term",
    "check_context_map",
    "check_glossary",
    "language_rules",
    "new_glossary",
    "parse_context_map",
    "parse_glossary",
    "set_term",
]
