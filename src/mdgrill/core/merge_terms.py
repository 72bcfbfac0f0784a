"""Three-way merges of a `CONTEXT.md` and a `CONTEXT-MAP.md` two branches changed (pure:
texts in, text out).

Terms merge by canonical name: a term one side changed and the other did not takes the
change, and the `_Avoid_` lists of a term both sides extended unite. The same term defined
two ways is a conflict: standard markers around the two entries only. The text around the
terms (headings, descriptions) merges line by line, each term standing there as one line, so
a term their side added lands where they put it, after ours when both added at one place. A
removed term (a decision that needs its note) is left to git, as is anything that does not
read.

A `CONTEXT-MAP.md` is a list of contexts: it merges line by line (`merge_by_line`), contexts
both sides added one after the other, a line changed two ways in markers.
"""

from __future__ import annotations

import re

from mdgrill.core.merge import PLACE, Cannot, Merged
from mdgrill.core.merge_lines import markers, merge_lines
from mdgrill.errors import InputError
from mdgrill.formats.glossary import parse_glossary
from mdgrill.formats.textfile import TextFile, content_lines

_AVOID = re.compile(r"\s*_Avoid_:\s*")  # the rest of the line is its words (no `(.*)$` tail)


class _Side:
    """One version: its lines, and each term's entry (lines) and section, by name."""

    def __init__(self, text: str, path: str, who: str) -> None:
        tf = TextFile(text)
        try:
            glossary = parse_glossary(tf, path)
        except InputError as exc:
            raise Cannot(f"{who} version does not read ({exc.code})") from None
        self.newline = tf.newline
        self.lines = content_lines(text)
        self.entries: dict[str, list[str]] = {}
        self.group: dict[str, str | None] = {}
        self.span: dict[str, tuple[int, int]] = {}
        for term in glossary.terms:
            key = term.names[0].strip().lower()
            if key in self.entries:
                raise Cannot(f"{who} version has `{term.names[0]}` twice")
            entry = self.lines[term.start_line:term.end_line]
            end = term.end_line
            while entry and not entry[-1].strip():
                entry.pop()
                end -= 1
            self.entries[key] = entry
            self.group[key] = term.group
            self.span[key] = (term.start_line, end)

    def skeleton(self) -> list[str]:
        """The lines with each term as one placeholder line."""
        starts = {a: (b, key) for key, (a, b) in self.span.items()}
        out: list[str] = []
        i = 0
        while i < len(self.lines):
            if i in starts:
                i, key = starts[i]
                out.append(PLACE + key)
            else:
                out.append(self.lines[i])
                i += 1
        return out


def merge_glossary(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    try:
        return _merge(_Side(base_text, path, "the base's"), _Side(ours_text, path, "our"),
                      _Side(theirs_text, path, "their"))
    except Cannot as exc:
        return Merged.cannot(str(exc))


def _merge(base: _Side, ours: _Side, theirs: _Side) -> Merged:
    for key in base.entries:
        for side, who in ((ours, "our"), (theirs, "their")):
            if key not in side.entries:
                raise Cannot(f"{who} side removed `{key}`: a removal needs its note; merge by "
                              "hand")
    result = Merged(None)
    resolved: dict[str, list[str]] = {}
    for key, mine in ours.entries.items():
        resolved[key] = _entry(key, base.entries.get(key), mine, theirs.entries.get(key), result)
    # the text around the terms merges line by line, each term standing as one line there:
    # a term their side added lands where they put it
    merged = merge_lines(base.skeleton(), ours.skeleton(), theirs.skeleton())
    out: list[str] = []
    done: set[str] = set()
    for part in merged.parts:
        if not isinstance(part, str):
            if any(line.startswith(PLACE) for line in [*part.base, *part.ours, *part.theirs]):
                raise Cannot("the two sides moved terms and changed the text around them: "
                              "merge by hand")
            result.clashes.append(("the text around the terms", part))
            out += markers(part)
        elif not part.startswith(PLACE):
            out.append(part)
        elif part not in done:  # a term both sides added at two places stands once
            done.add(part)
            key = part[len(PLACE):]
            if key in resolved:
                out.extend(resolved[key])
            else:
                out.extend(theirs.entries[key])
                result.notes.append(f"their term `{theirs.entries[key][0].strip()}` added")
    nl = ours.newline
    result.text = nl.join(out).rstrip() + nl
    return result


def _entry(key: str, b: list[str] | None, o: list[str], t: list[str] | None,
           result: Merged) -> list[str]:
    if t is None or t in (b, o):
        return o
    if o == b:
        return t
    united = _united_avoid(b, o, t)
    if united is not None:
        return united
    result.conflicts.append((key, " ".join(o), " ".join(t)))
    return ["<<<<<<< ours", *o, "=======", *t, ">>>>>>> theirs"]


def _united_avoid(b: list[str] | None, o: list[str], t: list[str]) -> list[str] | None:
    """Ours with both sides' `_Avoid_` words, when that line is all that differs."""
    def without(lines: list[str]) -> list[str]:
        return [line for line in lines if not _AVOID.match(line)]
    if without(o) != without(t) or (b is not None and without(b) != without(o)):
        return None
    words: list[str] = []
    for lines in (o, t):
        for line in lines:
            m = _AVOID.match(line)
            if m is not None:
                words += [w.strip() for w in line[m.end():].split(",") if w.strip()]
    unique = list(dict.fromkeys(words))
    out, done = [], False
    for line in o:
        m = _AVOID.match(line)
        if m is not None and not done:
            out.append(m.group() + ", ".join(unique))
            done = True
        elif m is None:
            out.append(line)
    return out if done else [*o, "_Avoid_: " + ", ".join(unique)]


def merge_by_line(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    """A line-by-line merge (a CONTEXT-MAP.md, or a glossary whose prose both sides edited):
    additions at one place kept from both, lines changed two ways in markers."""
    sides = [content_lines(t) for t in (base_text, ours_text, theirs_text)]
    merged = merge_lines(sides[0], sides[1], sides[2])
    result = Merged(None)
    out: list[str] = []
    for part in merged.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            result.clashes.append((f"lines of {path}", part))
            out += markers(part)
    nl = TextFile(ours_text).newline
    result.text = nl.join(out) + (nl if ours_text.endswith("\n") or not ours_text else "")
    if not result.clashes and (merged.lines() != sides[1]):
        result.notes.append("their lines added")
    return result
