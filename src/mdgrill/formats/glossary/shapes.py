"""How one entry is written: a bold term head, an `_Avoid_` list, a term table."""

from __future__ import annotations

import re

from mdgrill.formats.glossary.doc import _TEXT, _Doc

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
_DELIM_CELL = re.compile(r":?-+:?\Z")  # one cell of a table's delimiter row (see _is_delimiter_row)
# The blanks before it are left to the caller (a leading `\s*` restarts at every blank)
_TRAILING_PAREN = re.compile(r"(?:\(([^()]*)\)|（([^（）]*)）)\s*$")
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
            and "-" in texts[i + 1] and _is_delimiter_row(texts[i + 1])
            and ("|" in texts[i + 1] or texts[i].lstrip().startswith("|")))


def _is_delimiter_row(line: str) -> bool:
    """`| --- | :-: |`: cells of dashes (colons at their ends), pipes between, the outer ones
    optional; split by hand, where one pattern for the row was cubic on a line of blanks."""
    row = line.strip(" \t")
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return all(_DELIM_CELL.match(cell.strip(" \t")) for cell in row.split("|"))


def _unescape(cell: str) -> str:
    return cell.replace("\\|", "|")
