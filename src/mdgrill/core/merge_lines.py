"""A three-way merge of lists of lines (pure): what the merges of mdgrill's own files use for
the text they have no finer rule for (prose, comments, a node's notes).

The classic diff3: the lines where base, ours and theirs agree stay; between them a change
on one side is taken, the same change on both is taken once, and two different changes are a
conflict. Two sides that only added lines at the same place (the base had nothing there) get
both, ours first, the way git's `union` merge does: an addition never conflicts with another
addition, and nothing either side wrote is dropped.
"""

from __future__ import annotations

# typing (NamedTuple) costs a merge-file 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class Clash:
    """Lines changed two ways: the base's, ours and theirs (equal when their lines are)."""

    __slots__ = ("base", "ours", "theirs")

    def __init__(self, base: list[str], ours: list[str], theirs: list[str]) -> None:
        self.base = base
        self.ours = ours
        self.theirs = theirs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Clash) and (self.base, self.ours, self.theirs) == \
            (other.base, other.ours, other.theirs)

    __hash__ = None  # type: ignore[assignment]  # its lists change: not a key

    def __repr__(self) -> str:
        return f"Clash({self.base!r}, {self.ours!r}, {self.theirs!r})"


class LineMerge:
    """The merged lines: each a line, or a Clash where a person has to choose."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[str | Clash]) -> None:
        self.parts = parts

    @property
    def clashes(self) -> list[Clash]:
        return [p for p in self.parts if isinstance(p, Clash)]

    def lines(self) -> list[str]:
        """The lines, when nothing clashes."""
        if self.clashes:
            raise ValueError("the merge has clashes")
        return [p for p in self.parts if isinstance(p, str)]


def merge_lines(base: list[str], ours: list[str], theirs: list[str],
                unite: Callable[[list[str], list[str]], bool] | None = None) -> LineMerge:
    """`unite(ours, theirs)` says whether two additions at one place may stand one after the
    other (default: always); when it says no they clash."""
    # what the runs below give when a side changed nothing, or both changed the same (each
    # stretch between the runs then has o == t, t == b or o == b), without diffing: a
    # spec's front matter and prose, and most nodes, are the same on the three sides
    if ours == theirs or theirs == base:
        return LineMerge(list(ours))
    if ours == base:
        return LineMerge(list(theirs))
    parts: list[str | Clash] = []
    zb = zo = zt = 0
    for b0, b1, o0, o1, t0, t1 in _sync(base, ours, theirs):
        b, o, t = base[zb:b0], ours[zo:o0], theirs[zt:t0]
        if o == t or t == b:
            parts.extend(o)
        elif o == b:
            parts.extend(t)
        elif not b and (unite is None or unite(o, t)):
            parts.extend(o + t)
        else:
            parts.append(Clash(b, o, t))
        parts.extend(base[b0:b1])
        zb, zo, zt = b1, o1, t1
    return LineMerge(parts)


def markers(clash: Clash) -> list[str]:
    """A clash as a person sees it: git's conflict markers around our and their lines."""
    return ["<<<<<<< ours", *clash.ours, "=======", *clash.theirs, ">>>>>>> theirs"]


def _matches(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    from difflib import SequenceMatcher  # imported when two sides changed: a merge-file's start

    return [(m.a, m.b, m.size) for m in SequenceMatcher(None, a, b, autojunk=False)
            .get_matching_blocks() if m.size]


def _sync(base: list[str], ours: list[str], theirs: list[str],
          ) -> list[tuple[int, int, int, int, int, int]]:
    """The runs of base lines both sides kept: (base, ours, theirs) start and end of each,
    ending with the empty run at the three ends."""
    mo, mt = _matches(base, ours), _matches(base, theirs)
    out = []
    i = j = 0
    while i < len(mo) and j < len(mt):
        ob, oo, on = mo[i]
        tb, tt, tn = mt[j]
        lo, hi = max(ob, tb), min(ob + on, tb + tn)
        if lo < hi:
            out.append((lo, hi, oo + lo - ob, oo + hi - ob, tt + lo - tb, tt + hi - tb))
        if ob + on < tb + tn:
            i += 1
        else:
            j += 1
    out.append((len(base), len(base), len(ours), len(ours), len(theirs), len(theirs)))
    return out
