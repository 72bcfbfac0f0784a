"""What a glossary and a context map hold: terms, their shapes and lines."""

from __future__ import annotations

from mdgrill.diagnostics import Diagnostic
from mdgrill.formats.glossary.shapes import TRAILING_PAREN, Table, fold

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
        self.table: Table | None = None
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
            out.add(fold(n))
            m = TRAILING_PAREN.search(n)
            if m is not None and n[:m.start()].strip():
                out.add(fold(n[:m.start()]))
                out.add(fold(m.group(1) or m.group(2) or ""))
        if self.gloss:
            out.add(fold(self.gloss))
            out.add(fold(f"{self.names[0]} ({self.gloss})"))
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
        key = fold(name)
        exact = [t for t in self.terms if key in (fold(n) for n in t.names)]
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
