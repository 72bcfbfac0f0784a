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

import re

from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.errors import InputError
from mdgrill.formats.textfile import Edit, TextFile, apply_edits, content

__all__ = [
    "ContextEntry", "ContextMap", "Glossary", "Shape", "Term", "check_context_map",
    "check_glossary", "new_glossary", "parse_context_map", "parse_glossary", "set_term",
]

# --------------------------------------------------------------------------- line classes

_BLANK, _TEXT, _HEADING_LINE, _CODE, _COMMENT = range(5)

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_fence_close_cache: dict[tuple[str, int], re.Pattern[str]] = {}


def _fence_close(char: str, size: int) -> re.Pattern[str]:
    pattern = _fence_close_cache.get((char, size))
    if pattern is None:
        pattern = re.compile(" {0,3}" + re.escape(char) + "{" + str(size) + r",}[ \t]*$")
        _fence_close_cache[(char, size)] = pattern
    return pattern


class _Heading:
    __slots__ = ("line", "level", "text", "end", "parent", "mode", "gloss_level")

    def __init__(self, line: int, level: int, text: str) -> None:
        self.line = line
        self.level = level
        self.text = text
        self.end = line + 1
        self.parent: _Heading | None = None
        self.mode = _NEUTRAL
        self.gloss_level = 0


class _Doc:
    """The lines of one file, each classified once; headings with their direct bodies."""

    __slots__ = ("texts", "kinds", "headings", "path", "diagnostics")

    def __init__(self, tf: TextFile, path: str) -> None:
        self.texts = [content(line) for line in tf.lines]
        self.kinds = [_TEXT] * len(self.texts)
        self.headings: list[_Heading] = []
        self.path = path
        self.diagnostics: list[Diagnostic] = []
        self._classify()

    def _classify(self) -> None:
        texts, kinds, n = self.texts, self.kinds, len(self.texts)
        i = 0
        while i < n:
            t = texts[i]
            if not t.strip():
                kinds[i] = _BLANK
                i += 1
                continue
            fence = _FENCE_OPEN.match(t)
            if fence is not None and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
                i = self._mark_fence(i, fence.group(1))
                continue
            heading = _HEADING.match(t)
            if heading is not None:
                kinds[i] = _HEADING_LINE
                self.headings.append(_Heading(i, len(heading.group(1)),
                                              (heading.group(2) or "").strip()))
                i += 1
                continue
            stripped = t.lstrip(" ")
            if stripped.startswith("<!--") and len(t) - len(stripped) <= 3:
                i = self._mark_comment(i, t.find("<!--") + 4, block=True)
                continue
            i = self._inline_comment(i)

    def _mark_fence(self, i: int, fence: str) -> int:
        closer = _fence_close(fence[0], len(fence))
        j = i + 1
        while j < len(self.texts) and closer.match(self.texts[j]) is None:
            j += 1
        if j >= len(self.texts):
            self.diagnostics.append(warning(
                self.path, i + 1, "UNCLOSED_FENCE",
                f"the code fence {fence} opened here is never closed, so the rest of the file "
                f"is read as code: add a closing {fence} line"))
            j = len(self.texts) - 1
        for k in range(i, j + 1):
            self.kinds[k] = _CODE
        return j + 1

    def _mark_comment(self, i: int, after: int, block: bool) -> int:
        """Mark lines from i through the line closing an HTML comment opened at `after`."""
        texts = self.texts
        if block:
            self.kinds[i] = _COMMENT
        if "-->" in texts[i][after:]:
            return i + 1
        j = i + 1
        while j < len(texts):
            if not block and not texts[j].strip():
                return j  # an inline comment cannot run past the end of its paragraph
            self.kinds[j] = _COMMENT
            if "-->" in texts[j]:
                return j + 1
            j += 1
        if block:
            self.diagnostics.append(warning(
                self.path, i + 1, "UNCLOSED_COMMENT",
                "the HTML comment opened here is never closed, so the rest of the file is "
                "hidden: add a closing -->"))
        return j

    def _inline_comment(self, i: int) -> int:
        t = self.texts[i]
        pos = t.find("<!--")
        if pos < 0 or t[:pos].count("`") % 2 or "-->" in t[pos + 4:]:
            return i + 1
        return self._mark_comment(i, pos + 4, block=False)


# --------------------------------------------------------------------------- section modes

_GLOSS, _CHILD, _NEUTRAL, _OTHER, _TOP, _NONE = ("glossary", "child", "neutral", "other",
                                                 "top", "none")

_GLOSS_WORDS = frozenset((
    "language", "languages", "glossary", "glossaire", "glosario", "glossário", "glossar",
    "glossarium", "terms", "terminology", "terminologie", "terminología", "terminologia",
    "termos", "términos", "termini", "terminos", "vocabulary", "vocabulaire", "vocabulario",
    "vocabulário", "wortschatz", "lexicon", "lexique", "léxico", "begriffe", "definitions",
))
_GLOSS_CJK = ("术语", "術語", "词汇", "詞彙", "用语", "用語", "語彙", "语言", "言語", "용어")
# Section names that are never terms. Strong words end a section wherever they stand; weak
# words only outside a glossary or as a heading's first word (a glossary may well define a
# "Mid-match dialog surface").
_OTHER_STRONG = frozenset((
    "relationships", "relações", "relaciones", "beziehungen", "flagged", "rulings",
    "decisions", "decisões", "decisiones", "entscheidungen", "instructions", "contexts",
    "examples", "exemplos", "ejemplos", "beispiele", "dialogues", "conversations",
))
_OTHER_WEAK = frozenset((
    "relationship", "relations", "relação", "example", "exemplo", "ejemplo", "beispiel",
    "dialogue", "dialog", "diálogo", "conversation", "avoid", "avoided", "evitar", "vermeiden",
))
_OTHER_CJK = ("避免", "关系", "關係", "对话", "對話", "示例", "歧义", "歧義", "决策", "決策",
              "禁用")
_WORD = re.compile(r"\w+")
_HEADING_CORE = re.compile(r"\s[-–—]\s|[–—:：(（|]")


def _heading_kind(text: str, in_glossary: bool) -> str:
    folded = text.casefold()
    words = _WORD.findall(folded)
    strong = (any(w in _OTHER_STRONG or w.startswith("ambigu") for w in words)
              or "known issues" in folded or any(k in text for k in _OTHER_CJK))
    weak = bool(words) and (words[0] in _OTHER_WEAK if in_glossary
                            else any(w in _OTHER_WEAK for w in words))
    if strong or weak:
        return _OTHER
    # "Language — work", "Ubiquitous language", "Key terms", "术语表"; not "Research: Language
    # filtering" nor "Python language detection libraries"
    core = _HEADING_CORE.split(text, 1)[0]
    core_words = _WORD.findall(core.casefold())
    if len(core_words) <= 3 and any(w in _GLOSS_WORDS for w in core_words):
        return _GLOSS
    if len(core) <= 12 and any(k in core for k in _GLOSS_CJK):
        return _GLOSS
    return _NEUTRAL


def _assign_modes(doc: _Doc) -> None:
    stack: list[_Heading] = []
    heads = doc.headings
    for index, h in enumerate(heads):
        h.end = heads[index + 1].line if index + 1 < len(heads) else len(doc.texts)
        while stack and stack[-1].level >= h.level:
            stack.pop()
        h.parent = stack[-1] if stack else None
        parent = h.parent
        kind = _heading_kind(h.text, parent is not None and parent.mode in (_GLOSS, _CHILD))
        if kind == _GLOSS:
            h.mode, h.gloss_level = _GLOSS, h.level
        elif kind == _OTHER:
            h.mode = _OTHER
        elif parent is not None and parent.mode in (_GLOSS, _CHILD):
            h.mode, h.gloss_level = _CHILD, parent.gloss_level
        elif parent is not None and parent.mode == _OTHER:
            h.mode = _OTHER
        else:
            h.mode = _NEUTRAL
        stack.append(h)


# --------------------------------------------------------------------------- model

class Shape:
    """How an entry is written, so that a rewrite can keep the author's style (writer hints)."""

    __slots__ = ("kind", "head", "inline", "sep", "ws", "colon_inside", "indent", "marker",
                 "level", "avoid_label", "avoid_gap", "avoid_sep", "avoid_period", "avoid_place",
                 "avoid_marker", "table", "cells", "bold")

    def __init__(self, kind: str) -> None:
        self.kind = kind            # "paragraph" | "list" | "heading" | "table"
        self.head = ""              # the term line up to where the definition starts, verbatim
        self.inline = False         # the definition starts on the term line
        self.sep = ":"              # between the bold name (or gloss) and the definition
        self.ws = ""                # white space after sep on the term line
        self.colon_inside = ""      # ":" or "：" when written `**Term:**`
        self.indent = ""            # prefix of the entry's continuation lines
        self.marker = ""            # list: indent + marker + spaces of the first line
        self.level = 0              # heading entries: heading level
        self.avoid_label: str | None = None   # e.g. "_Avoid_:" as written
        self.avoid_gap = " "        # white space between the label and the first word
        self.avoid_sep = ", "
        self.avoid_period = ""
        self.avoid_place = "line"   # "line" | "inline" | "para"
        self.avoid_marker = ""      # "- " when the avoid words are a bullet list
        self.table: _Table | None = None
        self.cells: list[str] = []  # table: the row's cells as written
        self.bold = True            # table: the term cell is bold


class Term:
    """One glossary entry; may name several terms at once (`**A**, **B**:`)."""

    __slots__ = ("names", "gloss", "definition", "avoid", "start_line", "end_line", "line",
                 "col", "group", "avoid_line", "shape", "in_glossary")

    def __init__(self, names: list[str], gloss: str | None, definition: str, avoid: list[str],
                 start_line: int, end_line: int, line: int, col: int, group: str | None,
                 shape: Shape) -> None:
        self.names = names
        self.gloss = gloss                  # text in parentheses after the bold, if any
        self.definition = definition
        self.avoid = avoid
        self.start_line = start_line        # 0-based, the entry's lines are [start, end)
        self.end_line = end_line
        self.line = line                    # 1-based position of the (first) name
        self.col = col
        self.group = group                  # heading the entry sits under (level >= 2)
        self.avoid_line = line              # 1-based line of the _Avoid_ label
        self.shape = shape
        self.in_glossary = False            # under a Language/Glossary heading

    @property
    def name(self) -> str:
        return self.names[0]

    def aliases(self) -> set[str]:
        """Every spelling that refers to this entry, case-folded."""
        out: set[str] = set()
        for n in self.names:
            out.add(_fold(n))
            m = _TRAILING_PAREN.search(n)
            if m is not None and m.start() > 0:
                out.add(_fold(n[:m.start()]))
                out.add(_fold(m.group(1) or m.group(2) or ""))
        if self.gloss:
            out.add(_fold(self.gloss))
            out.add(_fold(f"{self.names[0]} ({self.gloss})"))
        out.discard("")
        return out

    def __repr__(self) -> str:
        return f"Term({self.names!r}, line={self.line})"


class Glossary:
    """A parsed CONTEXT.md (or the glossary part of a CONTEXT-MAP.md)."""

    __slots__ = ("path", "title", "title_line", "description", "terms", "diagnostics",
                 "_sections")

    def __init__(self, path: str) -> None:
        self.path = path
        self.title: str | None = None
        self.title_line: int | None = None      # 1-based
        self.description = ""
        self.terms: list[Term] = []
        self.diagnostics: list[Diagnostic] = []
        self._sections: list[tuple[int, int]] = []   # glossary headings: (line, body end)

    def find(self, name: str) -> list[Term]:
        """Entries named `name` (case-insensitive): by full name first, else by alias."""
        key = _fold(name)
        exact = [t for t in self.terms if key in (_fold(n) for n in t.names)]
        return exact or [t for t in self.terms if key in t.aliases()]


class ContextEntry:
    """One context of a CONTEXT-MAP.md: `- [Name](path): summary`."""

    __slots__ = ("name", "path", "line", "col", "summary")

    def __init__(self, name: str, path: str, line: int, col: int, summary: str) -> None:
        self.name = name
        self.path = path        # as written in the link
        self.line = line        # 1-based
        self.col = col
        self.summary = summary

    def __repr__(self) -> str:
        return f"ContextEntry({self.name!r}, {self.path!r}, line={self.line})"


class ContextMap:
    """A parsed CONTEXT-MAP.md: the contexts listed under its Contexts heading(s)."""

    __slots__ = ("path", "contexts", "diagnostics")

    def __init__(self, path: str) -> None:
        self.path = path
        self.contexts: list[ContextEntry] = []
        self.diagnostics: list[Diagnostic] = []


# --------------------------------------------------------------------------- entry shapes

_BOLD = re.compile(r"\*\*([^*\n]+?)\*\*")
_TERM_HEAD = re.compile(
    r"(?P<names>\*\*[^*\n]+?\*\*(?:[ \t]*[,，、/][ \t]*\*\*[^*\n]+?\*\*)*)"
    r"(?:[ \t]*(?P<gloss>\([^()\n]*\)|（[^（）\n]*）))?"
    r"(?P<sep>[ \t]*[:：]|[ \t]*[—–]|[ \t]+--?(?=[ \t]|$)|)"
    r"(?P<ws>[ \t]*)")
_LIST_ITEM = re.compile(r"( {0,3})([-*+]|\d{1,9}[.)])([ \t]+)(?=\S)")
_AVOID = re.compile(r"(?:_|\*{1,2})avoid(?:[ \t]*[:：])?(?:_|\*{1,2})(?:[ \t]*[:：])?",
                    re.IGNORECASE)
_BULLET = re.compile(r"[ \t]*[-*+][ \t]+(?=\S)")
_TABLE_DELIM = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_TRAILING_PAREN = re.compile(r"\s*(?:\(([^()]*)\)|（([^（）]*)）)\s*$")
_PAREN = re.compile(r"\([^()]*\)|（[^（）]*）")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SENTENCE_END = ".!?;。！？；"
# "(A) Full-stack setup", "1. Configuration", "Phase 1: Setup": option and step labels
_LABEL_NAME = re.compile(r"\(?(?:\d{1,3}|[A-Za-z])[.)]\s|[^:：]*\S[:：]\s")
_MAX_NAME_WORDS = 8
_MAX_NAME_CHARS = 80


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _name_ok(name: str) -> bool:
    """Could this bold text be a term name, rather than a bold sentence or a label?"""
    if not name or name != name.strip() or len(name) > _MAX_NAME_CHARS:
        return False
    if name[-1] in _SENTENCE_END or _CONTROL.search(name) or _LABEL_NAME.match(name):
        return False
    return 0 < len(_PAREN.sub(" ", name).split()) <= _MAX_NAME_WORDS or name.startswith("(")


class _Head:
    __slots__ = ("names", "cols", "gloss", "sep", "ws", "colon_inside", "rest", "def_col")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.cols: list[int] = []
        self.gloss: str | None = None
        self.sep = ""
        self.ws = ""
        self.colon_inside = ""
        self.rest = ""
        self.def_col = 0


def _match_head(text: str, offset: int) -> _Head | None:
    """Parse a term line (`**Term**:`, `**A**, **B**:`, `**T:**`, `**T** — d`) at `offset`."""
    m = _TERM_HEAD.match(text, offset)
    if m is None:
        return None
    head = _Head()
    sep = m.group("sep")
    for bold in _BOLD.finditer(m.group("names")):
        head.names.append(bold.group(1))
        head.cols.append(m.start("names") + bold.start(1))
    last = head.names[-1]
    if last[-1:] in (":", "："):
        if sep or m.group("gloss"):
            return None
        head.colon_inside = last[-1]
        head.names[-1] = last[:-1].rstrip()
    if any(n[-1:] in (":", "：") for n in head.names[:-1]):
        return None
    if not all(_name_ok(n) for n in head.names):
        return None
    gloss = m.group("gloss")
    head.gloss = gloss[1:-1].strip() if gloss else None
    head.sep = sep
    head.ws = m.group("ws")
    head.rest = text[m.end():]
    head.def_col = m.end()
    if not sep and not head.colon_inside and head.rest.strip():
        return None  # `**Bold** and more prose` begins a paragraph, it is no entry
    return head


def _strip_bold(cell: str) -> tuple[str, bool]:
    if len(cell) > 4 and cell.startswith("**") and cell.endswith("**"):
        return cell[2:-2].strip(), True
    return cell, False


# --------------------------------------------------------------------------- avoid lists

_OPENERS = "([{“‘«「『（【"
_CLOSERS = ")]}”’»」』）】"
_ITEM_SEPS = {",": ", ", "，": "，", "、": "、", ";": "; ", "；": "；"}


def _split_items(text: str) -> tuple[list[str], str, str]:
    """Split an avoid list on `,` `、` `;` outside brackets, quotes and code: items, sep, period."""
    text = text.strip()
    period = ""
    if text[-1:] in (".", "。") and not text.endswith(".."):
        period, text = text[-1], text[:-1].rstrip()
    items: list[str] = []
    buf: list[str] = []
    depth, code, quoted = 0, False, False
    sep = ""
    for ch in text:
        if ch == "`":
            code = not code
        elif code:
            pass
        elif ch == '"':
            quoted = not quoted
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
        elif ch in _ITEM_SEPS and depth == 0 and not quoted:
            items.append("".join(buf).strip())
            buf = []
            sep = sep or _ITEM_SEPS[ch]
            continue
        buf.append(ch)
    items.append("".join(buf).strip())
    return [item for item in items if item], sep or ", ", period


def _join_items(items: list[str], sep: str, period: str) -> str:
    return sep.join(items) + (period if items else "")


# --------------------------------------------------------------------------- tables

_TERM_HEADERS = frozenset((
    "term", "terms", "termo", "termos", "término", "términos", "terme", "termes", "begriff",
    "name", "names", "concept", "concepts", "word", "words", "palavra", "术语", "名词", "名称",
    "用语", "用語", "概念", "용어",
))
_DEF_HEADERS = frozenset((
    "definition", "definitions", "meaning", "description", "definição", "definições",
    "definición", "definiciones", "significado", "définition", "bedeutung", "beschreibung",
    "定义", "含义", "释义", "说明", "定義", "정의",
))


class _Table:
    __slots__ = ("ncols", "term", "definition", "avoid")

    def __init__(self, ncols: int, term: int, definition: int, avoid: int) -> None:
        self.ncols = ncols
        self.term = term
        self.definition = definition
        self.avoid = avoid      # -1 without an avoid column


def _cells(text: str) -> list[str]:
    s = text.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", s)]


def _term_table(header: str) -> _Table | None:
    cells = [_fold(_strip_bold(c)[0]) for c in _cells(header)]
    term = next((i for i, c in enumerate(cells) if c in _TERM_HEADERS), -1)
    definition = next((i for i, c in enumerate(cells) if c in _DEF_HEADERS), -1)
    if term < 0 or definition < 0 or term == definition:
        return None
    avoid = next((i for i, c in enumerate(cells)
                  if "avoid" in c or "alias" in c or "避免" in c or "evitar" in c), -1)
    return _Table(len(cells), term, definition, avoid)


def _is_table_start(doc: _Doc, i: int, end: int) -> bool:
    texts = doc.texts
    return ("|" in texts[i] and i + 1 < end and doc.kinds[i + 1] == _TEXT
            and "-" in texts[i + 1] and _TABLE_DELIM.match(texts[i + 1]) is not None
            and ("|" in texts[i + 1] or texts[i].lstrip().startswith("|")))


def _unescape(cell: str) -> str:
    return cell.replace("\\|", "|")


# --------------------------------------------------------------------------- region scanning

def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _is_structural(text: str) -> bool:
    s = text.lstrip()
    return (s.startswith(("|", ">")) or _LIST_ITEM.match(text) is not None
            or _BULLET.match(text) is not None)


def _join_block(lines: list[tuple[int, str]]) -> str:
    """Definition text: paragraphs of hard-wrapped lines joined by spaces, others kept."""
    paragraphs: list[str] = []
    current: list[tuple[int, str]] = []
    for item in lines + [(_BLANK, "")]:
        kind, text = item
        if kind == _COMMENT:
            continue
        if kind == _BLANK or (kind != _CODE and not text.strip()):
            if current:
                keep = any(k == _CODE or _is_structural(t) for k, t in current)
                joiner = "\n" if keep else " "
                paragraphs.append(joiner.join(t.rstrip() if keep else t.strip()
                                              for _, t in current))
                current = []
            continue
        current.append(item)
    return "\n\n".join(p.strip("\n") for p in paragraphs).strip()


class _Raw:
    """An entry found by the scanner, before its text is read."""

    __slots__ = ("kind", "start", "end", "head", "marker", "cont", "table", "group")

    def __init__(self, kind: str, start: int, head: _Head | None, group: str | None) -> None:
        self.kind = kind
        self.start = start
        self.end = start + 1
        self.head = head
        self.marker = ""
        self.cont = 0           # list items: content indent of continuation lines
        self.table: _Table | None = None
        self.group = group


class _Parser:
    __slots__ = ("doc", "glossary", "strict")

    def __init__(self, doc: _Doc, glossary: Glossary) -> None:
        self.doc = doc
        self.glossary = glossary
        # Outside a glossary-named section only `**Term**:` / `**Term** —` count: `**Label:**`
        # and a bold line alone are how prose documents write labels and pseudo-headings.
        self.strict = False

    def loose_ok(self, head: _Head) -> bool:
        return not self.strict or (bool(head.sep) and not head.colon_inside)

    def warn(self, line: int, code: str, message: str, col: int = 1) -> None:
        self.glossary.diagnostics.append(warning(self.doc.path, line + 1, code, message, col))

    # -- where entries start

    def para_head(self, i: int) -> _Head | None:
        doc = self.doc
        text = doc.texts[i]
        if doc.kinds[i] != _TEXT or _indent(text) > 3:
            return None
        head = _match_head(text, _indent(text))
        if head is None or not self.loose_ok(head):
            return None
        # `**Term**` alone on its line is an entry only when its definition follows at once
        alone = not head.sep and not head.colon_inside
        if alone and (i + 1 >= len(doc.texts) or doc.kinds[i + 1] != _TEXT):
            return None
        return head

    def list_head(self, i: int) -> tuple[_Head, str] | None:
        text = self.doc.texts[i]
        m = _LIST_ITEM.match(text)
        if m is None or self.doc.kinds[i] != _TEXT:
            return None
        head = _match_head(text, m.end())
        if head is None or (not head.sep and not head.colon_inside) or not self.loose_ok(head):
            return None
        return head, m.group(0)

    def block_start(self, i: int, a: int) -> bool:
        return i == a or self.doc.kinds[i - 1] != _TEXT

    def first_block_is_entry(self, a: int, b: int, lists: bool) -> bool:
        doc = self.doc
        i = a
        while i < b and doc.kinds[i] in (_BLANK, _COMMENT):
            i += 1
        if i >= b or doc.kinds[i] != _TEXT:
            return False
        if _is_table_start(doc, i, b):
            return _term_table(doc.texts[i]) is not None
        if _LIST_ITEM.match(doc.texts[i]):
            return lists and self.list_head(i) is not None
        return self.para_head(i) is not None

    # -- scanning a body

    def scan(self, a: int, b: int, lists: bool, group: str | None) -> list[_Raw]:
        """Entries in lines [a, b): paragraph entries, list-item entries (if `lists`), tables."""
        doc = self.doc
        raws: list[_Raw] = []
        bounds: list[int] = []
        item_cont = -1          # content indent of the top-level list item we are in, if any
        after_avoid = False
        i = a
        while i < b:
            kind, text = doc.kinds[i], doc.texts[i]
            if kind != _TEXT:
                if kind == _BLANK and item_cont >= 0 and not self.list_goes_on(i, b, item_cont):
                    item_cont = -1
                after_avoid = False
                i += 1
                continue
            start = self.block_start(i, a)
            item = _LIST_ITEM.match(text)
            inside = item_cont >= 0 and (_indent(text) >= item_cont or not start)
            if inside and (item is None or _indent(text) >= item_cont):
                i += 1          # inside the current list item (continuation or lazy line)
                continue
            if item is not None:
                item_cont = len(item.group(0))
                found = self.list_head(i) if lists else None
                if found is not None:
                    raw = _Raw("list", i, found[0], group)
                    raw.marker, raw.cont = found[1], item_cont
                    raw.end = self.item_end(i, b, item_cont)
                    raws.append(raw)
                    bounds.append(i)
                i += 1
                continue
            item_cont = -1
            if start and _is_table_start(doc, i, b):
                i = self.scan_table(i, b, group, raws, bounds)
                continue
            head = self.para_head(i) if start or after_avoid else None
            if head is not None:
                raws.append(_Raw("paragraph", i, head, group))
                bounds.append(i)
            after_avoid = self.is_avoid_line(text)
            i += 1
        self.close_paragraphs(raws, bounds, b)
        return raws

    def is_avoid_line(self, text: str) -> bool:
        m = _AVOID.match(text.lstrip())
        return m is not None and (":" in m.group(0) or "：" in m.group(0)) and bool(
            text.lstrip()[m.end():].strip())

    def list_goes_on(self, i: int, b: int, cont: int) -> bool:
        """After a blank line at i: does the list item (content indent `cont`) continue?"""
        doc = self.doc
        j = i
        while j < b and doc.kinds[j] == _BLANK:
            j += 1
        if j >= b:
            return False
        return _indent(doc.texts[j]) >= cont or (doc.kinds[j] == _TEXT and _LIST_ITEM.match(
            doc.texts[j]) is not None)

    def item_end(self, i: int, b: int, cont: int) -> int:
        doc = self.doc
        j = i + 1
        last = i
        while j < b:
            kind, text = doc.kinds[j], doc.texts[j]
            if kind == _BLANK:
                j += 1
                continue
            blank_before = doc.kinds[j - 1] == _BLANK
            if _indent(text) < cont and (blank_before or kind != _TEXT
                                         or _LIST_ITEM.match(text) or _is_structural(text)):
                break
            last = j
            j += 1
        return last + 1

    def scan_table(self, i: int, b: int, group: str | None, raws: list[_Raw],
                   bounds: list[int]) -> int:
        doc = self.doc
        table = _term_table(doc.texts[i])
        j = i + 2
        while j < b and doc.kinds[j] == _TEXT and "|" in doc.texts[j]:
            j += 1
        if table is None:
            return j
        bounds.append(i)
        for row in range(i + 2, j):
            raw = _Raw("table", row, None, group)
            raw.table = table
            raws.append(raw)
        return j

    def close_paragraphs(self, raws: list[_Raw], bounds: list[int], b: int) -> None:
        doc = self.doc
        for raw in raws:
            if raw.kind != "paragraph":
                continue
            end = min((x for x in bounds if x > raw.start), default=b)
            while end > raw.start + 1 and doc.kinds[end - 1] in (_BLANK, _COMMENT):
                end -= 1
            raw.end = end

    # -- reading an entry

    def build(self, raw: _Raw) -> Term | None:
        if raw.kind == "table":
            return self.build_row(raw)
        head = raw.head
        assert head is not None
        doc = self.doc
        shape = Shape(raw.kind)
        first = doc.texts[raw.start]
        shape.inline = bool(head.rest.strip())
        shape.head = first[:head.def_col] if shape.inline else first.rstrip()
        shape.sep, shape.ws, shape.colon_inside = head.sep.strip(" \t"), head.ws, head.colon_inside
        if head.sep and head.sep[0] in " \t":
            shape.sep = " " + shape.sep
        lead = _indent(first)
        if raw.kind == "list":
            shape.marker, shape.indent = raw.marker, " " * raw.cont
        else:
            shape.indent = " " * lead
        lines = [(_TEXT, head.rest)] + [
            (doc.kinds[k], self.dedent(doc.texts[k], raw.cont if raw.kind == "list" else lead))
            for k in range(raw.start + 1, raw.end)]
        definition, avoid, avoid_line = self.read_body(lines, raw.start, shape)
        term = Term(head.names, head.gloss, definition, avoid, raw.start, raw.end,
                    raw.start + 1, head.cols[0] + 1, raw.group, shape)
        term.avoid_line = avoid_line
        if not head.sep and not head.colon_inside:
            self.warn(raw.start, "TERM_NO_COLON",
                      f"**{head.names[0]}** has no colon after it: write `**{head.names[0]}**:` "
                      "so every reader takes it for a glossary entry", head.cols[0] + 1)
        return term

    def dedent(self, text: str, width: int) -> str:
        return text[min(width, _indent(text)):]

    def read_body(self, lines: list[tuple[int, str]], start: int,
                  shape: Shape) -> tuple[str, list[str], int]:
        """Split an entry's lines (first = text after the head) into definition and avoid."""
        found = self.find_avoid(lines)
        if found is None:
            return _join_block(lines), [], start + 1
        index, pos, label = found
        kind, text = lines[index]
        before = text[:pos].rstrip()
        after = text[pos + len(label):].strip()
        used = index + 1
        shape.avoid_label = label.strip()
        gap = text[pos + len(label):]
        shape.avoid_gap = gap[:len(gap) - len(gap.lstrip())] if after else " "
        if before:
            shape.avoid_place = "inline"
        elif index > 0 and lines[index - 1][0] == _BLANK:
            shape.avoid_place = "para"
        else:
            shape.avoid_place = "line"
        if not after:
            words, used = self.avoid_bullets(lines, index + 1, shape)
        else:
            while used < len(lines) and lines[used][0] == _TEXT and lines[used][1].strip() and (
                    not _is_structural(lines[used][1])
                    and _AVOID.match(lines[used][1].lstrip()) is None):
                after += " " + lines[used][1].strip()
                used += 1
            words, shape.avoid_sep, shape.avoid_period = _split_items(after)
        if not words:
            self.warn(start + index, "AVOID_EMPTY",
                      "this _Avoid_ label lists no words: add the words to avoid after it, "
                      "or remove the label")
        rest = lines[:index] + ([(kind, before)] if before else []) + lines[used:]
        again = self.find_avoid(lines[used:])
        if again is not None:
            self.warn(start + used + again[0], "AVOID_REPEATED",
                      "this entry has a second _Avoid_ label, which is read as definition text: "
                      "merge the two lists into one")
        return _join_block(rest), words, start + index + 1

    def find_avoid(self, lines: list[tuple[int, str]]) -> tuple[int, int, str] | None:
        for index, (kind, text) in enumerate(lines):
            if kind != _TEXT:
                continue
            for m in _AVOID.finditer(text):
                label = m.group(0)
                if ":" not in label and "：" not in label:
                    continue
                if m.start() == _indent(text) or text[m.start() - 1] in " \t":
                    return index, m.start(), label
        return None

    def avoid_bullets(self, lines: list[tuple[int, str]], index: int,
                      shape: Shape) -> tuple[list[str], int]:
        words: list[str] = []
        while index < len(lines):
            kind, text = lines[index]
            m = _BULLET.match(text)
            if kind != _TEXT or m is None:
                break
            if not shape.avoid_marker:
                shape.avoid_marker = text[:m.end()]
            words.append(text[m.end():].strip())
            index += 1
        return words, index

    def build_heading(self, h: _Heading, b: int, group: str | None) -> Term | None:
        doc = self.doc
        name, _ = _strip_bold(h.text)
        if not _name_ok(name):
            return None
        end = b
        while end > h.line + 1 and doc.kinds[end - 1] in (_BLANK, _COMMENT):
            end -= 1
        shape = Shape("heading")
        shape.level, shape.head, shape.avoid_place = h.level, doc.texts[h.line].rstrip(), "para"
        lines = [(doc.kinds[k], doc.texts[k]) for k in range(h.line + 1, end)]
        definition, avoid, avoid_line = self.read_body(lines, h.line + 1, shape)
        col = doc.texts[h.line].find(name) + 1
        term = Term([name], None, definition, avoid, h.line, end, h.line + 1, max(col, 1),
                    group, shape)
        term.avoid_line = avoid_line if avoid else h.line + 1
        return term

    def build_row(self, raw: _Raw) -> Term | None:
        table = raw.table
        assert table is not None
        text = self.doc.texts[raw.start]
        cells = _cells(text) + [""] * table.ncols
        cell, bold = _strip_bold(cells[table.term])
        head = _match_head(cells[table.term], 0)
        if head is not None and not head.rest.strip() and not head.sep:
            names, gloss, bold = head.names, head.gloss, True
        else:
            names, gloss = [_unescape(cell)], None
        if not all(_name_ok(n) for n in names):
            self.warn(raw.start, "TABLE_ROW_NO_TERM",
                      "this glossary table row has no term name in its Term column: "
                      "write the term there, in bold")
            return None
        shape = Shape("table")
        shape.table, shape.cells, shape.bold = table, cells[:table.ncols], bold
        avoid: list[str] = []
        if table.avoid >= 0 and cells[table.avoid]:
            avoid, shape.avoid_sep, shape.avoid_period = _split_items(
                _unescape(cells[table.avoid]))
        col = text.find(names[0]) + 1
        term = Term(names, gloss, _unescape(cells[table.definition]), avoid, raw.start,
                    raw.start + 1, raw.start + 1, max(col, 1), raw.group, shape)
        return term


# --------------------------------------------------------------------------- parse_glossary

def parse_glossary(tf: TextFile, path: str) -> Glossary:
    """Read a CONTEXT.md into a Glossary; never raises, problems become diagnostics."""
    doc = _Doc(tf, path)
    glossary = Glossary(path)
    glossary.diagnostics.extend(doc.diagnostics)
    _assign_modes(doc)
    parser = _Parser(doc, glossary)
    heads = doc.headings
    has_glossary = any(h.mode == _GLOSS for h in heads)
    top_mode = _NONE if has_glossary else _TOP
    title = next((h for h in heads if h.level == 1), None)
    if title is not None:
        glossary.title, glossary.title_line = title.text, title.line + 1
    first = heads[0].line if heads else len(doc.texts)
    _read_region(parser, 0, first, top_mode, None)
    for h in heads:
        mode = h.mode
        if mode == _NEUTRAL and h.level == 1:
            mode = top_mode
        if mode == _GLOSS:
            glossary._sections.append((h.line, h.end))
        if mode in (_TOP, _GLOSS, _CHILD, _NEUTRAL):
            _read_heading(parser, h, mode)
    desc_start = title.line + 1 if title is not None else 0
    desc_end = title.end if title is not None else first
    if glossary.terms and desc_start <= glossary.terms[0].start_line < desc_end:
        desc_end = glossary.terms[0].start_line
    lines = [(doc.kinds[k], doc.texts[k]) for k in range(desc_start, desc_end)]
    glossary.description = _join_block(lines)
    _empty_sections(doc, glossary)
    return glossary


def _group(h: _Heading | None) -> str | None:
    return h.text if h is not None and h.level >= 2 else None


def _read_region(parser: _Parser, a: int, b: int, mode: str, h: _Heading | None) -> None:
    if mode not in (_TOP, _GLOSS) or a >= b:
        return
    parser.strict = mode == _TOP
    _add(parser, parser.scan(a, b, True, _group(h)), mode == _GLOSS)


def _read_heading(parser: _Parser, h: _Heading, mode: str) -> None:
    a, b = h.line + 1, h.end
    parser.strict = mode in (_TOP, _NEUTRAL)
    if mode in (_TOP, _GLOSS):
        _read_region(parser, a, b, mode, h)
        return
    lists = mode == _CHILD
    if parser.first_block_is_entry(a, b, lists):
        mark = len(parser.glossary.diagnostics)
        terms = _build(parser, parser.scan(a, b, lists, _group(h)))
        if mode == _CHILD or _mostly_prose(terms):
            _keep(parser, terms, mode == _CHILD)
            return
        # `**Entry points**:` + a list, `**Project type**: x` ... fields of a form, not terms
        del parser.glossary.diagnostics[mark:]
    if h.level >= 2 and _heading_entry(parser, h, mode):
        term = parser.build_heading(h, b, _group(h.parent))
        if term is not None:
            term.in_glossary = mode == _CHILD
            parser.glossary.terms.append(term)
            return
    # not a group, not a term: a term table further down still counts
    _add(parser, [r for r in parser.scan(a, b, False, _group(h)) if r.kind == "table"],
         mode == _CHILD)


def _heading_entry(parser: _Parser, h: _Heading, mode: str) -> bool:
    doc = parser.doc
    body = range(h.line + 1, h.end)
    if not any(doc.kinds[k] in (_TEXT, _CODE) for k in body):
        return False
    if mode == _CHILD and h.gloss_level >= 2:
        return True
    return any(doc.kinds[k] == _TEXT and parser.is_avoid_line(doc.texts[k])
               and _indent(doc.texts[k]) <= 3 for k in body)


def _build(parser: _Parser, raws: list[_Raw]) -> list[Term]:
    return [t for t in (parser.build(raw) for raw in raws) if t is not None]


def _mostly_prose(terms: list[Term]) -> bool:
    """Do most entries define in words (not only a list, table or code block)?"""
    prose = sum(1 for t in terms if t.definition and not _is_structural(t.definition)
                and not t.definition.startswith(("```", "~~~")))
    return prose * 2 > len(terms)


def _keep(parser: _Parser, terms: list[Term], in_glossary: bool) -> None:
    for term in terms:
        term.in_glossary = in_glossary
        if not term.definition:
            parser.warn(term.start_line, "EMPTY_DEFINITION",
                        f'"{term.name}" has no definition: add a sentence saying what it means',
                        term.col)
        parser.glossary.terms.append(term)


def _add(parser: _Parser, raws: list[_Raw], in_glossary: bool) -> None:
    _keep(parser, _build(parser, raws), in_glossary)


def _empty_sections(doc: _Doc, glossary: Glossary) -> None:
    for line, _ in glossary._sections:
        h = next(x for x in doc.headings if x.line == line)
        inside = [h] + [x for x in doc.headings if _descends(x, h)]
        end = max(x.end for x in inside)
        if not any(line <= t.start_line < end for t in glossary.terms):
            glossary.diagnostics.append(warning(
                doc.path, line + 1, "EMPTY_GLOSSARY_SECTION",
                f'the "{h.text}" section holds no term: write entries as `**Term**:` followed by '
                "a one-line definition"))


def _descends(h: _Heading, ancestor: _Heading) -> bool:
    p = h.parent
    while p is not None:
        if p is ancestor:
            return True
        p = p.parent
    return False


# --------------------------------------------------------------------------- checks

def check_glossary(glossary: Glossary) -> list[Diagnostic]:
    """Errors in a glossary's content: duplicate terms, avoided words that are terms."""
    out: list[Diagnostic] = []
    path = glossary.path
    seen: dict[str, Term] = {}
    for term in glossary.terms:
        for name in term.names:
            key = _fold(name)
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
            owner = seen.get(_fold(_bare(word)))
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


def _bare(word: str) -> str:
    """An avoided word without surrounding quotes or emphasis, for comparing with names."""
    w = word.strip()
    for left, right in (("“", "”"), ('"', '"'), ("‘", "’"), ("'", "'"), ("`", "`"),
                        ("**", "**"), ("_", "_"), ("*", "*")):
        if len(w) > len(left) + len(right) and w.startswith(left) and w.endswith(right):
            w = w[len(left):-len(right)].strip()
    return w


# --------------------------------------------------------------------------- writer

def _refuse(message: str) -> InputError:
    return InputError("INVALID_TERM", message)


def _clean_name(name: str) -> str:
    clean = name.strip()
    if not clean:
        raise _refuse("the term name is empty: give the term a name")
    if "\n" in clean or "\r" in clean or _CONTROL.search(clean):
        raise _refuse(f"the term name {clean!r} holds a line break or a control character: "
                      "write the name on one line")
    if "*" in clean:
        raise _refuse(f"the term name {clean!r} holds a '*', which would break the bold "
                      "**Term** markup: leave the '*' out")
    if clean[-1] in ":：":
        raise _refuse(f"the term name {clean!r} ends with a colon: leave the colon out, "
                      "mdgrill writes it")
    if not _name_ok(clean):
        raise _refuse(f"the term name {clean!r} reads as a sentence (it ends with sentence "
                      f"punctuation or has more than {_MAX_NAME_WORDS} words or "
                      f"{_MAX_NAME_CHARS} characters): use a short noun phrase")
    return clean


_LINE_BREAKS = re.compile(r"[ \t]*(?:\r\n|[\r\n\t\v\f\x85\u2028\u2029])[ \t]*")


def _clean_definition(definition: str) -> str:
    clean = _LINE_BREAKS.sub(" ", definition).strip()
    if _CONTROL.search(clean):
        raise _refuse("the definition holds a control character: remove it")
    if not clean:
        raise _refuse("the definition is empty: write one or two sentences saying what the "
                      "term means")
    return clean


def _clean_avoid(avoid: list[str], sep: str, period: str) -> list[str]:
    words: list[str] = []
    for word in avoid:
        w = word.strip()
        if not w:
            continue
        if "\n" in w or "\r" in w or _CONTROL.search(w) or "*" in w:
            raise _refuse(f"the word to avoid {w!r} holds a line break, a control character or "
                          "a '*': write each avoided word plainly on one line")
        words.append(w)
    for w in words:
        if _split_items(_join_items([w], sep, period))[0] != [w]:
            raise _refuse(f"the word to avoid {w!r} would not read back as one word (it holds a "
                          "list separator such as ',' '、' ';', an unbalanced bracket or quote, "
                          "or ends with '.'): give one word or phrase per list item")
    if words and _split_items(_join_items(words, sep, period))[0] != words:
        raise _refuse("the words to avoid would not read back as the same list: check their "
                      "brackets and quotes")
    return words


def _avoid_style(glossary: Glossary, term: Term | None) -> Shape:
    """The avoid-list style: the entry's own, else the first of its kind, else canonical."""
    if term is not None and term.shape.avoid_label:
        return term.shape
    kind = term.shape.kind if term is not None else "paragraph"
    styled = [t.shape for t in glossary.terms if t.shape.avoid_label]
    same = [shape for shape in styled if shape.kind == kind]
    return (same or styled or [Shape("paragraph")])[0]


def _bold_head(shape: Shape, name: str) -> str:
    if shape.colon_inside:
        return f"**{name}{shape.colon_inside}**"
    sep = shape.sep
    if not sep.strip():
        sep = ":"   # never copy the colon-less style into a new entry
    return f"**{name}**{sep}"


def _render(shape: Shape, head: str | None, name: str, definition: str, avoid: list[str],
            style: Shape) -> list[str]:
    """The lines of one entry in `shape`; `head` is a verbatim term line prefix to keep."""
    if shape.kind == "table":
        return [_render_row(shape, head, name, definition, avoid)]
    label = style.avoid_label or "_Avoid_:"
    gap = style.avoid_gap if style.avoid_label else " "
    # where the avoid line goes is borrowed only from an entry of the same kind
    place = style.avoid_place if style.kind == shape.kind else (
        "para" if shape.kind == "heading" else "line")
    joined = _join_items(avoid, style.avoid_sep, style.avoid_period)
    if shape.kind == "heading":
        lines = [head or "#" * max(shape.level, 2) + " " + name, "", definition]
        if avoid:
            lines += ([""] if place != "line" else []) + [label + gap + joined]
        return lines
    indent = shape.indent
    if head is None:
        head = (shape.marker if shape.kind == "list" else shape.indent) + _bold_head(shape, name)
        if shape.inline:
            head += shape.ws
    lines = [head + definition] if shape.inline else [head.rstrip(), indent + definition]
    if not avoid:
        return lines
    if place == "inline" and not style.avoid_marker:
        lines[-1] += " " + label + gap + joined
    elif style.avoid_marker:
        lines += ([""] if place == "para" else []) + [indent + label]
        lines += [indent + style.avoid_marker.lstrip(" ") + w for w in avoid]
    else:
        lines += ([""] if place == "para" else []) + [indent + label + gap + joined]
    return lines


def _render_row(shape: Shape, head: str | None, name: str, definition: str,
                avoid: list[str]) -> str:
    table = shape.table
    assert table is not None
    cells = list(shape.cells) + [""] * table.ncols
    cells = cells[:table.ncols]

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    if head is None:
        cells[table.term] = f"**{esc(name)}**" if shape.bold else esc(name)
    cells[table.definition] = esc(definition)
    if table.avoid >= 0:
        cells[table.avoid] = esc(_join_items(avoid, shape.avoid_sep, shape.avoid_period))
    elif avoid:
        raise _refuse(f'the glossary table that holds "{name}" has no column for words to '
                      "avoid: add an `Aliases to avoid` column, or write the term without them")
    return "| " + " | ".join(cells) + " |"


def _signature(term: Term) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    return (tuple(term.names), term.definition, tuple(term.avoid))


def _apply(tf: TextFile, edit: Edit) -> TextFile:
    out = apply_edits(tf, [edit])
    # keep a file that had no final line end without one when the edit reached its end
    if tf.text and not tf.text.endswith("\n") and edit.end >= len(tf.lines):
        text = out.text
        if text.endswith(tf.newline):
            out = out.with_text(text[:-len(tf.newline)])
    return out


def _reads_back(tf: TextFile, path: str, before: list[Term], replaced: Term | None,
                name: str, definition: str, avoid: list[str]) -> bool:
    after = parse_glossary(tf, path)
    mine = [t for t in after.terms if _fold(name) in (_fold(n) for n in t.names)]
    if len(mine) != 1:
        return False
    term = mine[0]
    if term.definition != definition or term.avoid != avoid:
        return False
    others = [_signature(t) for t in after.terms if t is not term]
    return others == [_signature(t) for t in before if t is not replaced]


def set_term(tf: TextFile, glossary: Glossary | None, name: str, definition: str,
             avoid: list[str] | None = None) -> TextFile:
    """Add or update one term, changing only that entry's lines; avoid=None keeps the old list."""
    path = glossary.path if glossary is not None else "CONTEXT.md"
    if glossary is None:
        glossary = parse_glossary(tf, path)
    name = _clean_name(name)
    definition = _clean_definition(definition)
    found = glossary.find(name)
    if len(found) > 1:
        lines = " and ".join(str(t.line) for t in found)
        raise InputError("DUPLICATE_TERM",
                         f'"{name}" is defined more than once (lines {lines}): merge the '
                         "entries into one before updating it", path=glossary.path,
                         line=found[1].line)
    term = found[0] if found else None
    style = _avoid_style(glossary, term if term is not None else _anchor(glossary))
    if avoid is None:
        words = list(term.avoid) if term is not None else []
    else:
        words = _clean_avoid(avoid, style.avoid_sep, style.avoid_period)
    _check_conflicts(glossary, term, name, words)
    if term is not None:
        return _update(tf, glossary, term, definition, words, style)
    return _insert(tf, glossary, name, definition, words, style)


def _check_conflicts(glossary: Glossary, term: Term | None, name: str,
                     words: list[str]) -> None:
    """Refuse a write that would add an AVOID_IS_TERM error; ones already there stay."""
    names = {_fold(n) for n in (term.names if term is not None else [name])} | {_fold(name)}
    old = {_fold(_bare(w)) for w in term.avoid} if term is not None else set()
    for other in glossary.terms:
        if term is not None:
            break   # the entry exists: whoever avoids its name did so before this write
        hit = next((w for w in other.avoid if _fold(_bare(w)) in names), None)
        if hit is not None:
            raise InputError("AVOID_IS_TERM",
                             f'"{name}" is listed under _Avoid_ for "{other.name}" (line '
                             f"{other.avoid_line}): remove it from that list first, or pick "
                             "another name", path=glossary.path, line=other.avoid_line)
    for w in words:
        key = _fold(_bare(w))
        if key in old:
            continue
        owner = next((t for t in glossary.terms if t is not term
                      and key in (_fold(n) for n in t.names)), None)
        if owner is not None or key in names:
            where = f"a term (line {owner.line})" if owner is not None else "this term's name"
            raise InputError("AVOID_IS_TERM",
                             f'"{w}" cannot be a word to avoid for "{name}": it is {where}; '
                             "drop it from the list", path=glossary.path)


def _update(tf: TextFile, glossary: Glossary, term: Term, definition: str, words: list[str],
            style: Shape) -> TextFile:
    """Rewrite one entry in its own shape, keeping its term line (names, gloss) as written."""
    shape = term.shape
    head = shape.cells[shape.table.term] if shape.table is not None else shape.head
    attempts = [(shape, head, style)]
    if shape.kind != "paragraph":
        canonical = Shape("paragraph")
        attempts.append((canonical, _bold_head(canonical, term.name), canonical))
    for attempt, attempt_head, attempt_style in attempts:
        lines = _render(attempt, attempt_head, term.name, definition, words, attempt_style)
        out = _apply(tf, Edit(term.start_line, term.end_line, lines))
        if _reads_back(out, glossary.path, glossary.terms, term, term.name, definition, words):
            return out
    raise _unwritable(term.name)


def _unwritable(name: str) -> InputError:
    return _refuse(f'"{name}" cannot be written so that it reads back unchanged: the definition '
                   "or a word to avoid starts with Markdown that changes the entry (a heading, "
                   "list, table, quote, fence, bold term or _Avoid_ label); rephrase it")


def _anchor(glossary: Glossary) -> Term | None:
    inside = [t for t in glossary.terms if t.in_glossary]
    pool = inside or glossary.terms
    return max(pool, key=lambda t: t.end_line) if pool else None


def _insert(tf: TextFile, glossary: Glossary, name: str, definition: str, words: list[str],
            style: Shape) -> TextFile:
    texts = [content(x) for x in tf.lines]
    anchor = _anchor(glossary)
    attempts: list[tuple[int, list[str], Shape, Shape]] = []
    if anchor is not None:
        shape = anchor.shape
        tight = shape.kind == "table" or _tight(glossary, anchor, texts)
        attempts.append((anchor.end_line, [] if tight else [""], shape,
                         style if shape.kind != "table" else shape))
        canonical = Shape("paragraph")
        attempts.append((anchor.end_line, [""], canonical, style))
    elif glossary._sections:
        line, end = glossary._sections[-1]
        pos = end
        while pos > line + 1 and not texts[pos - 1].strip():
            pos -= 1
        attempts.append((pos, [""], Shape("paragraph"), style))
    if not glossary._sections:
        # no Language section yet (or the terms' own shape would not read back): start one
        gap = [""] if texts and texts[-1].strip() else []
        attempts.append((len(texts), gap + ["## Language", ""], Shape("paragraph"), style))
    for pos, before, shape, avoid_style in attempts:
        entry = _render(shape, None, name, definition, words, avoid_style)
        after = [""] if pos < len(texts) and texts[pos].strip() and shape.kind != "table" else []
        out = _apply(tf, Edit(pos, pos, before + entry + after))
        if _reads_back(out, glossary.path, glossary.terms, None, name, definition, words):
            return out
    raise _unwritable(name)


def _tight(glossary: Glossary, anchor: Term, texts: list[str]) -> bool:
    """List entries written without blank lines between them stay that way."""
    if anchor.shape.kind != "list":
        return False
    before = [t for t in glossary.terms if t.end_line <= anchor.start_line
              and t.shape.kind == "list"]
    if not before:
        return False
    prev = max(before, key=lambda t: t.end_line)
    return prev.end_line == anchor.start_line and bool(texts[anchor.start_line - 1].strip())


def new_glossary(context_name: str, name: str, definition: str,
                 avoid: list[str] | None = None, newline: str = "\n",
                 description: str | None = None) -> str:
    """The text of a new CONTEXT.md holding one term: `# <Context Name>`, the context's
    description (one or two sentences), `## Language`, the entry."""
    title = context_name.strip()
    if not title or _CONTROL.search(title):
        raise InputError("INVALID_CONTEXT_NAME",
                         f"the context name {context_name!r} is empty or holds a line break or "
                         "control character: give a one-line name")
    clean = _clean_name(name)
    definition = _clean_definition(definition)
    words = _clean_avoid(avoid or [], ", ", "")
    if _fold(clean) in {_fold(_bare(w)) for w in words}:
        raise InputError("AVOID_IS_TERM",
                         f'"{clean}" cannot be a word to avoid for itself: drop it from the list')
    lines = [f"# {title}", ""]
    if description is not None:
        about = " ".join(description.split())
        if not about or _CONTROL.search(about):
            raise InputError("INVALID_INPUT", "--context-description is empty or holds a "
                             "control character: give one or two sentences")
        lines += [about, ""]
    lines += ["## Language", ""]
    lines += _render(Shape("paragraph"), None, clean, definition, words, Shape("paragraph"))
    text = newline.join(lines) + newline
    parsed = parse_glossary(TextFile(text), "CONTEXT.md")
    if [_signature(t) for t in parsed.terms] != [((clean,), definition, tuple(words))]:
        raise _unwritable(clean)
    return text


# --------------------------------------------------------------------------- context map

_LINK = re.compile(r"(\*\*|__)?\[([^\]\n]+)\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _is_contexts_heading(text: str) -> bool:
    words = _WORD.findall(text.casefold())
    if any(w.startswith(("relation", "ambigu")) for w in words):
        return False
    return "contexts" in words or "context" in words or "上下文" in text


def parse_context_map(tf: TextFile, path: str) -> ContextMap:
    """Read the `- [Name](path): summary` bullets under a CONTEXT-MAP.md's Contexts heading."""
    doc = _Doc(tf, path)
    cmap = ContextMap(path)
    cmap.diagnostics.extend(doc.diagnostics)
    _assign_modes(doc)
    sections = [h for h in doc.headings if h.level >= 2 and _is_contexts_heading(h.text)]
    if not sections:
        cmap.diagnostics.append(warning(
            path, 1, "MAP_NO_CONTEXTS",
            "no `## Contexts` section: list each context as `- [Name](path/to/CONTEXT.md): "
            "what it covers` under a `## Contexts` heading"))
    for h in sections:
        _read_contexts(doc, h, cmap)
    return cmap


def _read_contexts(doc: _Doc, h: _Heading, cmap: ContextMap) -> None:
    top = -1
    for i in range(h.line + 1, h.end):
        text = doc.texts[i]
        m = _LIST_ITEM.match(text)
        if doc.kinds[i] != _TEXT or m is None:
            continue
        if top < 0:
            top = len(m.group(0))
        elif _indent(text) >= top:
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
        key = _fold(ctx.name)
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


# --------------------------------------------------------------------------- language rules

_LANG_SENTENCES = re.compile(r"[.!?。！？](?=\s|$)")
_LANG_CODE = re.compile(r"`|https?://|\b[\w.-]+/[\w./-]*\.[A-Za-z0-9]{1,5}\b|\(\)")


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
