"""`parse_glossary`: every term of a CONTEXT.md, with the lines it spans."""

from __future__ import annotations

from mdgrill.diagnostics import warning
from mdgrill.formats.glossary.doc import (
    BLANK_LINE,
    CODE_LINE,
    COMMENT_LINE,
    MODE_CHILD,
    MODE_GLOSSARY,
    MODE_NEUTRAL,
    MODE_NONE,
    MODE_TOP,
    TEXT_LINE,
    Doc,
    Heading,
    assign_modes,
)
from mdgrill.formats.glossary.model import Glossary, Shape, Term
from mdgrill.formats.glossary.shapes import (
    AVOID_MARK,
    BULLET,
    LIST_ITEM,
    Table,
    TableHead,
    is_table_start,
    is_term_name,
    match_table_head,
    split_items,
    strip_bold,
    table_cells,
    term_table,
    unescape_cell,
)
from mdgrill.formats.textfile import TextFile

# --------------------------------------------------------------------------- region scanning

def indent_width(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _is_structural(text: str) -> bool:
    s = text.lstrip()
    return (s.startswith(("|", ">")) or LIST_ITEM.match(text) is not None
            or BULLET.match(text) is not None)


def _join_block(lines: list[tuple[int, str]]) -> str:
    """Definition text: paragraphs of hard-wrapped lines joined by spaces, others kept."""
    paragraphs: list[str] = []
    current: list[tuple[int, str]] = []
    for item in lines + [(BLANK_LINE, "")]:
        kind, text = item
        if kind == COMMENT_LINE:
            continue
        if kind == BLANK_LINE or (kind != CODE_LINE and not text.strip()):
            if current:
                keep = any(k == CODE_LINE or _is_structural(t) for k, t in current)
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

    def __init__(self, kind: str, start: int, head: TableHead | None, group: str | None) -> None:
        self.kind = kind
        self.start = start
        self.end = start + 1
        self.head = head
        self.marker = ""
        self.cont = 0           # list items: content indent of continuation lines
        self.table: Table | None = None
        self.group = group


class _Parser:
    __slots__ = ("doc", "glossary", "strict")

    def __init__(self, doc: Doc, glossary: Glossary) -> None:
        self.doc = doc
        self.glossary = glossary
        # Outside a glossary-named section only `**Term**:` / `**Term** —` count: `**Label:**`
        # and a bold line alone are how prose documents write labels and pseudo-headings.
        self.strict = False

    def loose_ok(self, head: TableHead) -> bool:
        return not self.strict or (bool(head.sep) and not head.colon_inside)

    def warn(self, line: int, code: str, message: str, col: int = 1) -> None:
        self.glossary.diagnostics.append(warning(self.doc.path, line + 1, code, message, col))

    # -- where entries start

    def para_head(self, i: int) -> TableHead | None:
        doc = self.doc
        text = doc.texts[i]
        if doc.kinds[i] != TEXT_LINE or indent_width(text) > 3:
            return None
        head = match_table_head(text, indent_width(text))
        if head is None or not self.loose_ok(head):
            return None
        # `**Term**` alone on its line is an entry only when its definition follows at once
        alone = not head.sep and not head.colon_inside
        if alone and (i + 1 >= len(doc.texts) or doc.kinds[i + 1] != TEXT_LINE):
            return None
        return head

    def list_head(self, i: int) -> tuple[TableHead, str] | None:
        text = self.doc.texts[i]
        m = LIST_ITEM.match(text)
        if m is None or self.doc.kinds[i] != TEXT_LINE:
            return None
        head = match_table_head(text, m.end())
        if head is None or (not head.sep and not head.colon_inside) or not self.loose_ok(head):
            return None
        return head, m.group(0)

    def block_start(self, i: int, a: int) -> bool:
        return i == a or self.doc.kinds[i - 1] != TEXT_LINE

    def first_block_is_entry(self, a: int, b: int, lists: bool) -> bool:
        doc = self.doc
        i = a
        while i < b and doc.kinds[i] in (BLANK_LINE, COMMENT_LINE):
            i += 1
        if i >= b or doc.kinds[i] != TEXT_LINE:
            return False
        if is_table_start(doc, i, b):
            return term_table(doc.texts[i]) is not None
        if LIST_ITEM.match(doc.texts[i]):
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
            if kind != TEXT_LINE:
                if kind == BLANK_LINE and item_cont >= 0 and not self.list_goes_on(i, b, item_cont):
                    item_cont = -1
                after_avoid = False
                i += 1
                continue
            start = self.block_start(i, a)
            item = LIST_ITEM.match(text)
            inside = item_cont >= 0 and (indent_width(text) >= item_cont or not start)
            if inside and (item is None or indent_width(text) >= item_cont):
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
            if start and is_table_start(doc, i, b):
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
        m = AVOID_MARK.match(text.lstrip())
        return m is not None and (":" in m.group(0) or "：" in m.group(0)) and bool(
            text.lstrip()[m.end():].strip())

    def list_goes_on(self, i: int, b: int, cont: int) -> bool:
        """After a blank line at i: does the list item (content indent `cont`) continue?"""
        doc = self.doc
        j = i
        while j < b and doc.kinds[j] == BLANK_LINE:
            j += 1
        if j >= b:
            return False
        return indent_width(doc.texts[j]) >= cont or (doc.kinds[j] == TEXT_LINE and LIST_ITEM.match(
            doc.texts[j]) is not None)

    def item_end(self, i: int, b: int, cont: int) -> int:
        doc = self.doc
        j = i + 1
        last = i
        while j < b:
            kind, text = doc.kinds[j], doc.texts[j]
            if kind == BLANK_LINE:
                j += 1
                continue
            blank_before = doc.kinds[j - 1] == BLANK_LINE
            if indent_width(text) < cont and (blank_before or kind != TEXT_LINE
                                         or LIST_ITEM.match(text) or _is_structural(text)):
                break
            last = j
            j += 1
        return last + 1

    def scan_table(self, i: int, b: int, group: str | None, raws: list[_Raw],
                   bounds: list[int]) -> int:
        doc = self.doc
        table = term_table(doc.texts[i])
        j = i + 2
        while j < b and doc.kinds[j] == TEXT_LINE and "|" in doc.texts[j]:
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
            while end > raw.start + 1 and doc.kinds[end - 1] in (BLANK_LINE, COMMENT_LINE):
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
        lead = indent_width(first)
        if raw.kind == "list":
            shape.marker, shape.indent = raw.marker, " " * raw.cont
        else:
            shape.indent = " " * lead
        lines = [(TEXT_LINE, head.rest)] + [
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
        return text[min(width, indent_width(text)):]

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
        elif index > 0 and lines[index - 1][0] == BLANK_LINE:
            shape.avoid_place = "para"
        else:
            shape.avoid_place = "line"
        if not after:
            words, used = self.avoid_bullets(lines, index + 1, shape)
        else:
            while used < len(lines) and lines[used][0] == TEXT_LINE and lines[used][1].strip() and (
                    not _is_structural(lines[used][1])
                    and AVOID_MARK.match(lines[used][1].lstrip()) is None):
                after += " " + lines[used][1].strip()
                used += 1
            words, shape.avoid_sep, shape.avoid_period = split_items(after)
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
            if kind != TEXT_LINE:
                continue
            for m in AVOID_MARK.finditer(text):
                label = m.group(0)
                if ":" not in label and "：" not in label:
                    continue
                if m.start() == indent_width(text) or text[m.start() - 1] in " \t":
                    return index, m.start(), label
        return None

    def avoid_bullets(self, lines: list[tuple[int, str]], index: int,
                      shape: Shape) -> tuple[list[str], int]:
        words: list[str] = []
        while index < len(lines):
            kind, text = lines[index]
            m = BULLET.match(text)
            if kind != TEXT_LINE or m is None:
                break
            if not shape.avoid_marker:
                shape.avoid_marker = text[:m.end()]
            words.append(text[m.end():].strip())
            index += 1
        return words, index

    def build_heading(self, h: Heading, b: int, group: str | None) -> Term | None:
        doc = self.doc
        name, _ = strip_bold(h.text)
        if not is_term_name(name):
            return None
        end = b
        while end > h.line + 1 and doc.kinds[end - 1] in (BLANK_LINE, COMMENT_LINE):
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
        cells = table_cells(text) + [""] * table.ncols
        cell, bold = strip_bold(cells[table.term])
        head = match_table_head(cells[table.term], 0)
        if head is not None and not head.rest.strip() and not head.sep:
            names, gloss, bold = head.names, head.gloss, True
        else:
            names, gloss = [unescape_cell(cell)], None
        if not all(is_term_name(n) for n in names):
            self.warn(raw.start, "TABLE_ROW_NO_TERM",
                      "this glossary table row has no term name in its Term column: "
                      "write the term there, in bold")
            return None
        shape = Shape("table")
        shape.table, shape.cells, shape.bold = table, cells[:table.ncols], bold
        avoid: list[str] = []
        if table.avoid >= 0 and cells[table.avoid]:
            avoid, shape.avoid_sep, shape.avoid_period = split_items(
                unescape_cell(cells[table.avoid]))
        col = text.find(names[0]) + 1
        term = Term(names, gloss, unescape_cell(cells[table.definition]), avoid, raw.start,
                    raw.start + 1, raw.start + 1, max(col, 1), raw.group, shape)
        return term


# --------------------------------------------------------------------------- parse_glossary

def parse_glossary(tf: TextFile, path: str) -> Glossary:
    """Read a CONTEXT.md into a Glossary; never raises, problems become diagnostics."""
    doc = Doc(tf, path)
    glossary = Glossary(path)
    glossary.diagnostics.extend(doc.diagnostics)
    assign_modes(doc)
    parser = _Parser(doc, glossary)
    heads = doc.headings
    has_glossary = any(h.mode == MODE_GLOSSARY for h in heads)
    top_mode = MODE_NONE if has_glossary else MODE_TOP
    title = next((h for h in heads if h.level == 1), None)
    if title is not None:
        glossary.title, glossary.title_line = title.text, title.line + 1
    first = heads[0].line if heads else len(doc.texts)
    _read_region(parser, 0, first, top_mode, None)
    for h in heads:
        mode = h.mode
        if mode == MODE_NEUTRAL and h.level == 1:
            mode = top_mode
        if mode == MODE_GLOSSARY:
            glossary._sections.append((h.line, h.end))
        if mode in (MODE_TOP, MODE_GLOSSARY, MODE_CHILD, MODE_NEUTRAL):
            _read_heading(parser, h, mode)
    desc_start = title.line + 1 if title is not None else 0
    desc_end = title.end if title is not None else first
    if glossary.terms and desc_start <= glossary.terms[0].start_line < desc_end:
        desc_end = glossary.terms[0].start_line
    lines = [(doc.kinds[k], doc.texts[k]) for k in range(desc_start, desc_end)]
    glossary.description = _join_block(lines)
    _empty_sections(doc, glossary)
    return glossary


def _group(h: Heading | None) -> str | None:
    return h.text if h is not None and h.level >= 2 else None


def _read_region(parser: _Parser, a: int, b: int, mode: str, h: Heading | None) -> None:
    if mode not in (MODE_TOP, MODE_GLOSSARY) or a >= b:
        return
    parser.strict = mode == MODE_TOP
    _add(parser, parser.scan(a, b, True, _group(h)), mode == MODE_GLOSSARY)


def _read_heading(parser: _Parser, h: Heading, mode: str) -> None:
    a, b = h.line + 1, h.end
    parser.strict = mode in (MODE_TOP, MODE_NEUTRAL)
    if mode in (MODE_TOP, MODE_GLOSSARY):
        _read_region(parser, a, b, mode, h)
        return
    lists = mode == MODE_CHILD
    if parser.first_block_is_entry(a, b, lists):
        mark = len(parser.glossary.diagnostics)
        terms = _build(parser, parser.scan(a, b, lists, _group(h)))
        if mode == MODE_CHILD or _mostly_prose(terms):
            _keep(parser, terms, mode == MODE_CHILD)
            return
        # `**Entry points**:` + a list, `**Project type**: x` ... fields of a form, not terms
        del parser.glossary.diagnostics[mark:]
    if h.level >= 2 and _heading_entry(parser, h, mode):
        term = parser.build_heading(h, b, _group(h.parent))
        if term is not None:
            term.in_glossary = mode == MODE_CHILD
            parser.glossary.terms.append(term)
            return
    # not a group, not a term: a term table further down still counts
    _add(parser, [r for r in parser.scan(a, b, False, _group(h)) if r.kind == "table"],
         mode == MODE_CHILD)


def _heading_entry(parser: _Parser, h: Heading, mode: str) -> bool:
    doc = parser.doc
    body = range(h.line + 1, h.end)
    if not any(doc.kinds[k] in (TEXT_LINE, CODE_LINE) for k in body):
        return False
    if mode == MODE_CHILD and h.gloss_level >= 2:
        return True
    return any(doc.kinds[k] == TEXT_LINE and parser.is_avoid_line(doc.texts[k])
               and indent_width(doc.texts[k]) <= 3 for k in body)


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


def _empty_sections(doc: Doc, glossary: Glossary) -> None:
    for line, _ in glossary._sections:
        h = next(x for x in doc.headings if x.line == line)
        inside = [h] + [x for x in doc.headings if _descends(x, h)]
        end = max(x.end for x in inside)
        if not any(line <= t.start_line < end for t in glossary.terms):
            glossary.diagnostics.append(warning(
                doc.path, line + 1, "EMPTY_GLOSSARY_SECTION",
                f'the "{h.text}" section holds no term: write entries as `**Term**:` followed by '
                "a one-line definition"))


def _descends(h: Heading, ancestor: Heading) -> bool:
    p = h.parent
    while p is not None:
        if p is ancestor:
            return True
        p = p.parent
    return False
