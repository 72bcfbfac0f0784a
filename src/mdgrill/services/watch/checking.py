"""Checking one spec as it is saved: validate with the parsed log kept between saves, and
whether it is ready."""

from __future__ import annotations

from mdgrill.diagnostics import Diagnostic, error
from mdgrill.errors import InputError

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:

    from mdgrill.formats.progress import Entry, Progress


# --------------------------------------------------------------------------- checking a spec


def validate_progress(data: bytes, path: str, cache: BlockCache | None = None
                      ) -> tuple[list[Diagnostic], Progress | None]:
    """Diagnostics for one `.progress.md`'s bytes (what `validate` says), and the parsed file."""
    from mdgrill.checks.spec import check_progress, from_input_error
    from mdgrill.formats.progress import read_progress

    if not data.strip():
        return [error(path, 1, "EMPTY_FILE", "the file is empty: `mdgrill restore` puts its "
                      "rounds back from the last good copy")], None
    try:
        prog = read_progress(data, path)
        if cache is not None:
            cache.fill(prog)
        return check_progress(prog), prog
    except InputError as exc:
        return [from_input_error(exc, path)], None
    except RecursionError:
        return [error(path, 1, "MALFORMED_FILE", "the file nests too deeply to read")], None


class BlockCache:
    """The parsed entries of a spec's log blocks, reused while a block's lines stay put.

    The log is append-only, so between two saves almost every block is where it was with the
    same lines: parsing only the new or changed ones keeps a check of a 1,000-round file
    within the latency budget.
    """

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: dict[tuple[int, int, int], tuple[list[Entry], list[tuple[int, str]]]] = {}

    def fill(self, prog: Progress) -> None:
        from mdgrill.formats.progress import parse_bullets

        blocks = prog.blocks
        lines = prog.lines
        fresh: dict[tuple[int, int, int], tuple[list[Entry], list[tuple[int, str]]]] = {}
        for block in blocks:
            key = (block.line, block.end, hash(tuple(lines[block.line + 1:block.end])))
            got = self.entries.get(key)
            if got is None:
                got = parse_bullets(lines, block.line + 1, block.end)
            block.entries, block.stray = got
            fresh[key] = got
        self.entries = fresh


def ready_for_approval(prog: Progress) -> bool:
    """Ready for approval: a spec (front matter whose record holds) with nothing left open.
    A file that is no longer a spec is broken, never ready."""
    from mdgrill.model.record import check_record
    from mdgrill.model.tree import spec_frontier

    if prog.fm is None or check_record(prog.data):
        return False
    return spec_frontier(prog).ready


# --------------------------------------------------------------------------- state


def problem_key(d: Diagnostic) -> tuple[str, str, str, str]:
    # Identity without the position: a problem that moves down when lines are added above
    # it is the same problem, not a fixed one and a new one.
    return (d.path, d.severity, d.code, d.message)
