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
