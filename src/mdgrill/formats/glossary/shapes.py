"""How one entry is written: a bold term head, an `_Avoid_` list, a term table."""

from __future__ import annotations

import re

from mdgrill.formats.glossary.doc import TEXT_LINE, Doc

# --------------------------------------------------------------------------- entry shapes

_BOLD = re.compile(r"\*\*([^*\n]+?)\*\*")
_TERM_HEAD = re.compile(
    r"(?P<names>\*\*[^*\n]+?\*\*(?:[ \t]*[,，、/][ \t]*\*\*[^*\n]+?\*\*)*)"
    r"(?:[ \t]*(?P<gloss>\([^()\n]*\)|（[^（）\n]*）))?"
    r"(?P<sep>[ \t]*[:：]|[ \t]*[—–]|[ \t]+--?(?=[ \t]|$)|)"
    r"(?P<ws>[ \t]*)")
LIST_ITEM = re.compile(r"( {0,3})([-*+]|\d{1,9}[.)])([ \t]+)(?=\S)")
AVOID_MARK = re.compile(r"(?:_|\*{1,2})avoid(?:[ \t]*[:：])?(?:_|\*{1,2})(?:[ \t]*[:：])?",
                    re.IGNORECASE)
BULLET = re.compile(r"[ \t]*[-*+][ \t]+(?=\S)")
_DELIM_CELL = re.compile(r":?-+:?\Z")  # one cell of a table's delimiter row (see _is_delimiter_row)
# The blanks before it are left to the caller (a leading `\s*` restarts at every blank)
TRAILING_PAREN = re.compile(r"(?:\(([^()]*)\)|（([^（）]*)）)\s*$")
_PAREN = re.compile(r"\([^()]*\)|（[^（）]*）")
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SENTENCE_END = ".!?;。！？；"
# "(A) Full-stack setup", "1. Configuration", "Phase 1: Setup": option and step labels
_LABEL_NAME = re.compile(r"\(?(?:\d{1,3}|[A-Za-z])[.)]\s|[^:：]*\S[:：]\s")
MAX_NAME_WORDS = 8
MAX_NAME_CHARS = 80


def fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def is_term_name(name: str) -> bool:
    """Could this bold text be a term name, rather than a bold sentence or a label?"""
    if not name or name != name.strip() or len(name) > MAX_NAME_CHARS:
        return False
    if name[-1] in _SENTENCE_END or CONTROL_CHARS.search(name) or _LABEL_NAME.match(name):
        return False
    return 0 < len(_PAREN.sub(" ", name).split()) <= MAX_NAME_WORDS or name.startswith("(")


class TableHead:
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


def match_table_head(text: str, offset: int) -> TableHead | None:
    """Parse a term line (`**Term**:`, `**A**, **B**:`, `**T:**`, `**T** — d`) at `offset`."""
    m = _TERM_HEAD.match(text, offset)
    if m is None:
        return None
    head = TableHead()
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
    if not all(is_term_name(n) for n in head.names):
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


def strip_bold(cell: str) -> tuple[str, bool]:
    if len(cell) > 4 and cell.startswith("**") and cell.endswith("**"):
        return cell[2:-2].strip(), True
    return cell, False


# --------------------------------------------------------------------------- avoid lists

_OPENERS = "([{“‘«「『（【"
_CLOSERS = ")]}”’»」』）】"
_ITEM_SEPS = {",": ", ", "，": "，", "、": "、", ";": "; ", "；": "；"}


def split_items(text: str) -> tuple[list[str], str, str]:
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


def join_items(items: list[str], sep: str, period: str) -> str:
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


class Table:
    __slots__ = ("ncols", "term", "definition", "avoid")

    def __init__(self, ncols: int, term: int, definition: int, avoid: int) -> None:
        self.ncols = ncols
        self.term = term
        self.definition = definition
        self.avoid = avoid      # -1 without an avoid column


def table_cells(text: str) -> list[str]:
    s = text.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", s)]


def term_table(header: str) -> Table | None:
    cells = [fold(strip_bold(c)[0]) for c in table_cells(header)]
    term = next((i for i, c in enumerate(cells) if c in _TERM_HEADERS), -1)
    definition = next((i for i, c in enumerate(cells) if c in _DEF_HEADERS), -1)
    if term < 0 or definition < 0 or term == definition:
        return None
    avoid = next((i for i, c in enumerate(cells)
                  if "avoid" in c or "alias" in c or "避免" in c or "evitar" in c), -1)
    return Table(len(cells), term, definition, avoid)


def is_table_start(doc: Doc, i: int, end: int) -> bool:
    texts = doc.texts
    return ("|" in texts[i] and i + 1 < end and doc.kinds[i + 1] == TEXT_LINE
            and "-" in texts[i + 1] and _is_delimiter_row(texts[i + 1])
            and ("|" in texts[i + 1] or texts[i].lstrip().startswith("|")))


def _is_delimiter_row(line: str) -> bool:
    """`| --- | :-: |`: cells of dashes (colons at their ends), pipes between, the outer ones
    optional; split by hand, where one pattern for the row was cubic on a line of blanks."""
    row = line.strip(" \t")
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return all(_DELIM_CELL.match(cell.strip(" \t")) for cell in row.split("|"))


def unescape_cell(cell: str) -> str:
    return cell.replace("\\|", "|")
