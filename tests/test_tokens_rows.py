"""`bullet_rows` (validate's reading of the log, a column at a time) gives what reading each
part's slice of the line tokens line by line gives: its bullets' (key lowered, value, line)
and whether its other lines are blank."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress.blocks import bullet_rows, line_tokens
from mdgrill.formats.progress.lines import Block


def rows_line_by_line(tokens: list[tuple[str, str, str]], base: int,
                      parts: list[Block]) -> list[tuple[list[tuple[str, str, int]], bool]]:
    out = []
    for part in parts:
        first = max(part.line + 1, base)
        lines = tokens[first - base:max(part.end - base, 0)]
        rows = [(key.lower(), value.strip(), line)
                for line, (key, value, _) in enumerate(lines, first) if key]
        rest = "".join(other for _, _, other in lines)
        out.append((rows, not rest or rest.isspace()))
    return out


LINES = st.sampled_from(["- Asked: D1", "- Decisions: D1 -> yes  ", "- KEY: v", "-  Out of  :",
                         "", " ", "\t", "\u00a0", "  - nested", "text", "### Round", "- x",
                         "- Ke y: \u2003v\u2003", "- **Bold**: v", "\u3000"])


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(LINES, max_size=30), st.integers(0, 5),
       st.lists(st.tuples(st.integers(-3, 35), st.integers(0, 40)), max_size=8))
def test_bullet_rows_reads_each_part_line_by_line(lines: list[str], base: int,
                                                  spans: list[tuple[int, int]]) -> None:
    text = "\n".join(lines)
    tokens = line_tokens(text, 0, len(text))
    parts = [Block("round", "requirements", 1, "t", base + line, base + end)
             for line, end in spans]
    assert bullet_rows(tokens, base, parts) == rows_line_by_line(tokens, base, parts)


BLOCK_LINES = st.sampled_from(["- Asked: D1, D2", "- Decisions: D1 -> yes", "", "  - nested",
                               "stray text", "- Facts resolved: D2 -> `x`  ", " ", "\t",
                               "- Out of scope: none"])
HEADINGS = st.sampled_from(["### Requirements Grill - Round 1", "### Requirements Grill - "
                            "Confirmed", "### Something else", "###", "### Design Artifact - "
                            "Approved"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(HEADINGS, st.lists(BLOCK_LINES, max_size=5)), min_size=1,
                max_size=9),
       st.lists(BLOCK_LINES, max_size=3), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.integers(1, 4))
def test_the_log_read_a_run_of_blocks_at_a_time_reads_as_one_pass(
        blocks: list[tuple[str, list[str]]], before: list[str], nl: str, final: bool,
        run: int) -> None:
    """`read_log_rows` tokenizes the log a run of blocks at a time: the rows are those of
    one pass over the whole log's tokens, whatever the run's length and wherever the runs
    end (lines before the first block, CRLF, a block of a heading alone, the last block
    with or without a line end)."""
    from mdgrill.formats.progress import reader
    from mdgrill.formats.textfile import TextFile

    log = [*before]
    for heading, lines in blocks:
        log += [heading, *lines]
    text = nl.join(["# T", "", "## Interview Responses", *log]) + (nl if final else "")
    one = reader.Progress(TextFile(text), "x.progress.md")
    sec = one.sections["interview responses"]
    start, end = one.section_offsets(sec)
    whole = bullet_rows(line_tokens(text, start, end), sec.start, one.blocks)
    old = reader._RUN
    try:
        reader._RUN = run
        runs = reader.Progress(TextFile(text), "x.progress.md").read_log_rows()
    finally:
        reader._RUN = old
    assert runs == whole


NODE_LINES = st.sampled_from(["- Section: s1", "- Depends on: D1", "- Options:", "  - A",
                              "  - B (Recommended)", "", "stray", "- **Bold**: v", " \t",
                              "> quoted"])
NODE_HEADINGS = st.sampled_from(["### D1: a", "### D2: b", "### no id here", "###"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(HEADINGS, st.lists(BLOCK_LINES, max_size=4)), max_size=6),
       st.lists(st.tuples(NODE_HEADINGS, st.lists(NODE_LINES, max_size=5)), max_size=6),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.integers(1, 3),
       st.lists(st.integers(0, 11), max_size=3))
def test_every_part_read_a_run_at_a_time_reads_as_on_its_own(
        blocks: list[tuple[str, list[str]]], nodes: list[tuple[str, list[str]]], nl: str,
        final: bool, run: int, read_first: list[int]) -> None:
    """`read_all_bullets` reads the unread blocks and nodes a run at a time: each part's
    entries and stray lines are what it reads from its own text, whichever parts were read
    before (a run then spans parts already read)."""
    from mdgrill.formats.progress import reader
    from mdgrill.formats.textfile import TextFile

    lines = ["# T", "", "## Design Tree"]
    for heading, body in nodes:
        lines += [heading, *body]
    lines.append("## Interview Responses")
    for heading, body in blocks:
        lines += [heading, *body]
    text = nl.join(lines) + (nl if final else "")

    def said(prog: reader.Progress) -> list[object]:
        return [([(e.key, e.key_lower, e.value, e.line, list(e.children))
                  for e in part.entries], part.stray) for part in [*prog.blocks, *prog.nodes]]

    alone = said(reader.Progress(TextFile(text), "x.progress.md"))
    old = reader._RUN
    try:
        reader._RUN = run
        prog = reader.Progress(TextFile(text), "x.progress.md")
        parts = [*prog.blocks, *prog.nodes]
        for i in read_first:  # a few parts read first, on their own
            if parts:
                parts[i % len(parts)].entries  # noqa: B018 - reads its bullets
        prog.read_all_bullets()
        assert all(part._entries is not None for part in parts)
    finally:
        reader._RUN = old
    assert said(prog) == alone
