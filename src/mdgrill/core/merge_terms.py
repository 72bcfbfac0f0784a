"""Three-way merges of a `CONTEXT.md` and a `CONTEXT-MAP.md` two branches changed (pure:
texts in, text out).

Terms merge by canonical name: a term one side added is kept (after the last term of its
section in ours), a term one side changed and the other did not takes the change, and the
`_Avoid_` lists of a term both sides extended unite. The same term defined two ways is a
conflict: standard markers around the two entries only. A removed term (a decision that
needs its note) and any change outside the terms on both sides are left to git, as is
anything that does not read.

A `CONTEXT-MAP.md` is a list of contexts: it merges line by line, contexts both sides added
one after the other, a line changed two ways in markers.
"""

from __future__ import annotations

import re

from mdgrill.core.merge import Cannot, Merged
from mdgrill.core.merge_lines import markers, merge_lines
from mdgrill.errors import InputError
from mdgrill.formats.glossary import parse_glossary
from mdgrill.formats.textfile import TextFile, content

_AVOID = re.compile(r"(\s*_Avoid_:\s*)(.*)$")


class _Side:
    """One version: its lines, and each term's entry (lines) and section, by name."""

    def __init__(self, text: str, path: str, who: str) -> None:
        try:
            glossary = parse_glossary(TextFile(text), path)
        except InputError as exc:
            raise Cannot(f"{who} version does not read ({exc.code})") from None
        self.lines = [content(line) for line in TextFile(text).lines]
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

    def outside(self) -> list[str]:
        """The non-blank lines outside every term: what the terms hang in."""
        inside = {i for a, b in self.span.values() for i in range(a, b)}
        return [line for i, line in enumerate(self.lines) if i not in inside and line.strip()]


def merge_glossary(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    try:
        return _merge(_Side(base_text, path, "the base's"), _Side(ours_text, path, "our"),
                      _Side(theirs_text, path, "their"))
    except Cannot as exc:
        return Merged.cannot(str(exc))


def _merge(base: _Side, ours: _Side, theirs: _Side) -> Merged:
    if theirs.outside() not in (base.outside(), ours.outside()):
        raise Cannot("their side changed the text around the terms (headings, descriptions): "
                      "merge by hand")
    for key in base.entries:
        for side, who in ((ours, "our"), (theirs, "their")):
            if key not in side.entries:
                raise Cannot(f"{who} side removed `{key}`: a removal needs its note; merge by "
                              "hand")
    result = Merged(None)
    resolved: dict[str, list[str]] = {}
    for key, mine in ours.entries.items():
        resolved[key] = _entry(key, base.entries.get(key), mine, theirs.entries.get(key), result)
    lines = ours.lines
    out: list[str] = []
    starts = {a: key for key, (a, _) in ours.span.items()}
    ends = {key: b for key, (_, b) in ours.span.items()}
    added = [key for key in theirs.entries if key not in ours.entries]
    after = _placement(ours, theirs, added)
    i = 0
    while i < len(lines):
        here = starts.get(i)
        if here is None:
            out.append(lines[i])
            i += 1
            continue
        out.extend(resolved[here])
        for new in after.get(here, []):
            out += ["", *theirs.entries[new]]
            result.notes.append(f"their term `{theirs.entries[new][0].strip()}` added")
        i = ends[here]
    for new in after.get("", []):  # no term of its section in ours: at the end
        if out and out[-1].strip():
            out.append("")
        out += [*theirs.entries[new], ""]
        result.notes.append(f"their term `{theirs.entries[new][0].strip()}` added")
    nl = "\r\n" if "\r\n" in ours.lines else "\n"
    result.text = nl.join(out).rstrip() + nl
    return result


def _placement(ours: _Side, theirs: _Side, added: list[str]) -> dict[str, list[str]]:
    """Where each added term goes: after the last of ours' terms in its section ("" for the
    end of the file)."""
    last_in: dict[str | None, str] = {}
    for key in ours.entries:
        last_in[ours.group[key]] = key
    after: dict[str, list[str]] = {}
    for key in added:
        anchor = last_in.get(theirs.group[key], "" if not ours.entries else
                             list(ours.entries)[-1])
        after.setdefault(anchor, []).append(key)
    return after


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
                words += [w.strip() for w in m.group(2).split(",") if w.strip()]
    unique = list(dict.fromkeys(words))
    out, done = [], False
    for line in o:
        m = _AVOID.match(line)
        if m is not None and not done:
            out.append(m.group(1) + ", ".join(unique))
            done = True
        elif m is None:
            out.append(line)
    return out if done else [*o, "_Avoid_: " + ", ".join(unique)]


def merge_context_map(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    sides = [[content(line) for line in TextFile(t).lines] for t in
             (base_text, ours_text, theirs_text)]
    merged = merge_lines(sides[0], sides[1], sides[2])
    result = Merged(None)
    out: list[str] = []
    for part in merged.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            result.clashes.append((path, part))
            out += markers(part)
    nl = TextFile(ours_text).newline
    result.text = nl.join(out) + (nl if ours_text.endswith("\n") or not ours_text else "")
    if not result.clashes and (merged.lines() != sides[1]):
        result.notes.append("their contexts added")
    return result
