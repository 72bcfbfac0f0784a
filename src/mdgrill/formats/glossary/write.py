"""`set_term` and `new_glossary`: write one term, changing only its own lines."""

from __future__ import annotations

import re

from mdgrill.errors import InputError
from mdgrill.formats.glossary.checks import bare_word
from mdgrill.formats.glossary.model import Glossary, Shape, Term
from mdgrill.formats.glossary.parse import parse_glossary
from mdgrill.formats.glossary.shapes import (
    CONTROL_CHARS,
    MAX_NAME_CHARS,
    MAX_NAME_WORDS,
    fold,
    is_term_name,
    join_items,
    split_items,
)
from mdgrill.formats.textfile import Edit, TextFile, apply_edits, content

# --------------------------------------------------------------------------- writer

def _refuse(message: str) -> InputError:
    return InputError("INVALID_TERM", message)


def _clean_name(name: str) -> str:
    clean = name.strip()
    if not clean:
        raise _refuse("the term name is empty: give the term a name")
    if "\n" in clean or "\r" in clean or CONTROL_CHARS.search(clean):
        raise _refuse(f"the term name {clean!r} holds a line break or a control character: "
                      "write the name on one line")
    if "*" in clean:
        raise _refuse(f"the term name {clean!r} holds a '*', which would break the bold "
                      "**Term** markup: leave the '*' out")
    if clean[-1] in ":：":
        raise _refuse(f"the term name {clean!r} ends with a colon: leave the colon out, "
                      "mdgrill writes it")
    if not is_term_name(clean):
        raise _refuse(f"the term name {clean!r} reads as a sentence (it ends with sentence "
                      f"punctuation or has more than {MAX_NAME_WORDS} words or "
                      f"{MAX_NAME_CHARS} characters): use a short noun phrase")
    return clean


# Runs of spaces and tabs, and line breaks (a tab counts as one): see _one_line
_PIECE = re.compile(r"[ \t]+|\r\n|[\r\n\v\f\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    """Each line break or tab, with the spaces and tabs around it, as one space: what
    `[ \\t]*(?:\\r\\n|[\\r\\n\\t...])[ \\t]*` replaced, walked by hand since that pattern
    restarts at every space of a long run of them (quadratic)."""
    pieces = [(m.start(), m.end()) for m in _PIECE.finditer(text)]
    out, done, i = [], 0, 0
    while i < len(pieces):
        start, end = pieces[i]
        if text[start] in " \t":  # blanks: with the break right after them, or a tab in them
            if i + 1 < len(pieces) and pieces[i + 1][0] == end:
                i += 1
                end = pieces[i][1]
            elif "\t" not in text[start:end]:
                i += 1
                continue
        if i + 1 < len(pieces) and pieces[i + 1][0] == end and text[end] in " \t":
            i += 1  # a break takes the blanks after it
            end = pieces[i][1]
        out += [text[done:start], " "]
        done = end
        i += 1
    return "".join(out) + text[done:]


def _clean_definition(definition: str) -> str:
    clean = _one_line(definition).strip()
    if CONTROL_CHARS.search(clean):
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
        if "\n" in w or "\r" in w or CONTROL_CHARS.search(w) or "*" in w:
            raise _refuse(f"the word to avoid {w!r} holds a line break, a control character or "
                          "a '*': write each avoided word plainly on one line")
        words.append(w)
    for w in words:
        if split_items(join_items([w], sep, period))[0] != [w]:
            raise _refuse(f"the word to avoid {w!r} would not read back as one word (it holds a "
                          "list separator such as ',' '、' ';', an unbalanced bracket or quote, "
                          "or ends with '.'): give one word or phrase per list item")
    if words and split_items(join_items(words, sep, period))[0] != words:
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
    joined = join_items(avoid, style.avoid_sep, style.avoid_period)
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
        cells[table.avoid] = esc(join_items(avoid, shape.avoid_sep, shape.avoid_period))
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
    mine = [t for t in after.terms if fold(name) in (fold(n) for n in t.names)]
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
    names = {fold(n) for n in (term.names if term is not None else [name])} | {fold(name)}
    old = {fold(bare_word(w)) for w in term.avoid} if term is not None else set()
    for other in glossary.terms:
        if term is not None:
            break   # the entry exists: whoever avoids its name did so before this write
        hit = next((w for w in other.avoid if fold(bare_word(w)) in names), None)
        if hit is not None:
            raise InputError("AVOID_IS_TERM",
                             f'"{name}" is listed under _Avoid_ for "{other.name}" (line '
                             f"{other.avoid_line}): remove it from that list first, or pick "
                             "another name", path=glossary.path, line=other.avoid_line)
    for w in words:
        key = fold(bare_word(w))
        if key in old:
            continue
        owner = next((t for t in glossary.terms if t is not term
                      and key in (fold(n) for n in t.names)), None)
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
    if not title or CONTROL_CHARS.search(title):
        raise InputError("INVALID_CONTEXT_NAME",
                         f"the context name {context_name!r} is empty or holds a line break or "
                         "control character: give a one-line name")
    clean = _clean_name(name)
    definition = _clean_definition(definition)
    words = _clean_avoid(avoid or [], ", ", "")
    if fold(clean) in {fold(bare_word(w)) for w in words}:
        raise InputError("AVOID_IS_TERM",
                         f'"{clean}" cannot be a word to avoid for itself: drop it from the list')
    lines = [f"# {title}", ""]
    if description is not None:
        about = " ".join(description.split())
        if not about or CONTROL_CHARS.search(about):
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
