"""The heading scanner against fences, HTML comments and a line-by-line reference."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.markdown import (
    h3_parts,
    is_plain,
    scan_headings,
    sections,
)


def reference(text: str) -> list[tuple[int, str, int]]:
    """A slow, obvious line-by-line scanner (CommonMark ATX headings, fences, comments)."""
    out = []
    fence: tuple[str, int] | None = None
    in_comment = False
    for number, raw in enumerate(text.split("\n")):
        line = raw[:-1] if raw.endswith("\r") else raw
        if fence is not None:
            m = re.match(r" {0,3}(`{3,}|~{3,})[ \t]*$", line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1]:
                fence = None
            continue
        if in_comment:
            if "-->" in line:
                in_comment = False
            continue
        m = re.match(r" {0,3}(`{3,}|~{3,})(.*)$", line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)))
            continue
        if re.match(r" {0,3}<!--", line):
            in_comment = "-->" not in line[line.index("<!--") + 4:]
            continue
        m = re.match(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$", line)
        if m:
            body = (m.group(2) or "").strip()
            trimmed = body.rstrip("#")
            if body.endswith("#") and (not trimmed or trimmed[-1] in " \t"):
                body = trimmed.strip()
            out.append((len(m.group(1)), body, number))
    return out


frags = st.sampled_from([
    "# a", "## b ##", "### c #", "#### d#", "# ", "#", "##\t x \t", "####### no", "#no",
    "```", "```py", "``` `x`", "~~~", "~~~~", "````", "  ```", "    ```", "<!--", "-->",
    "<!-- x -->", "text", "", "   # indented", "    # code", "### ###", "- # item", "## é 😀",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(frags, st.sampled_from(["a ` b", "~", "<p>", " #", "  #x", "   #",
                                                 "\t#", "x #", "a ``` ```", " ``` ~~~",
                                                 "x <!-- <!--"])), max_size=12),
       st.sampled_from(["\n", "\r\n"]))
def test_plain_is_no_line_opening_markup(lines: list[str], nl: str) -> None:
    """`is_plain` (which skips the whole pattern when no backtick, tilde or `<` occurs) is
    the line-by-line rule: no line opens a fence or a comment or indents a `#`."""
    text = nl.join(lines)
    unplain = re.compile(r" {0,3}(?:```|~~~|<!--)| {1,3}#")
    assert is_plain(text) == (not any(unplain.match(line) for line in text.split("\n")))
    # from an offset that begins a line, to an end inside the text
    if len(lines) > 2:
        start = len(lines[0]) + len(nl)
        end = start + len(lines[1])
        assert is_plain(text, start, end) == (unplain.match(text[start:end]) is None)
        # to an end inside the last line: a mark the end cuts is no mark
        end = max(start, len(text) - 2)
        assert is_plain(text, start, end) == \
            (not any(unplain.match(line) for line in text[start:end].split("\n")))


@settings(max_examples=500, deadline=None)
@given(st.lists(frags, max_size=15), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_scanner_matches_reference(lines: list[str], nl: str, final: bool) -> None:
    text = nl.join(lines) + (nl if final else "")
    got = scan_headings(text)
    assert [(h.level, h.text, h.line) for h in got] == reference(text)
    for h in got:
        assert text.count("\n", 0, h.offset) == h.line
        assert text[h.offset:].lstrip(" ").startswith("#")
    # the skeleton scan (H1/H2 only), on the fast path for plain text and the exact one else
    top = scan_headings(text, top_only=True)
    assert [(h.level, h.text, h.line, h.offset) for h in top] == \
        [(h.level, h.text, h.line, h.offset) for h in got if h.level <= 2]


def test_fence_and_comment_hide_headings() -> None:
    text = ("# Title\n```md\n## not\n```\n<!--\n## hidden\n-->\n## Real\n~~~~\n~~~\n# still "
            "code\n~~~~\n### After\n")
    assert [(h.level, h.text, h.line) for h in scan_headings(text)] == \
        [(1, "Title", 0), (2, "Real", 7), (3, "After", 12)]


def test_unclosed_fence_hides_the_rest() -> None:
    assert [h.text for h in scan_headings("# A\n```\n# B\n")] == ["A"]
    assert [h.text for h in scan_headings("# A\n<!-- x\n# B\n")] == ["A"]


def test_scan_from_offset_and_sections() -> None:
    text = "---\na: 1\n---\n# T\n## Goal\nx\n### D1: y\n## Log\n### R1\n"
    start = text.index("# T")
    heads = scan_headings(text, start, 3)
    assert [(h.text, h.line) for h in heads] == [("T", 3), ("Goal", 4), ("D1: y", 6),
                                                 ("Log", 7), ("R1", 8)]
    secs = sections(heads, 2, 10)
    assert [(s.title, s.heading_line, s.start, s.end) for s in secs] == \
        [("Goal", 4, 5, 7), ("Log", 7, 8, 10)]


# The glossary's line classifier and the `.progress.md` scanner read headings by one rule
# (issue 15: one Markdown scanner); the glossary's own pattern of before is the reference.
_GLOSSARY_HEADING_BEFORE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


@given(st.text(alphabet=st.sampled_from("# \tab`~-x"), max_size=14))
@example("# # #")
@example("### ###")
def test_one_line_heading_rule_is_the_scanner_rule(line: str) -> None:
    from mdgrill.formats.markdown import atx_heading, scan_headings

    found = atx_heading(line)
    scanned = scan_headings(line + "\n")
    assert found == ((scanned[0].level, scanned[0].text) if scanned else None)
    before = _GLOSSARY_HEADING_BEFORE.match(line)
    text = (before.group(2) or "").strip() if before else ""
    # CommonMark: a closing sequence may be all there is (`### ###` is an empty heading);
    # the old pattern kept it as the text. When the pattern did strip a closing sequence, a
    # run of `#` left before it is the heading's text (`# # #` is a heading reading `#`, as
    # mistune renders it): found by a lone clone's run, kept as an example below
    rest = line[before.end(2):] if before and before.group(2) is not None else ""
    text = "" if text.strip("#") == "" and "#" not in rest else text
    assert found == ((len(before.group(1)), text) if before else None)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["### a", "###", "### b ##", "#### c", "###x", "text", "",
                                 "- k: v", "### \u00e9 #"]), max_size=15),
       st.sampled_from(["\n", "\r\n"]))
def test_the_parts_under_h3_headings_are_the_scan_s(lines: list[str], nl: str) -> None:
    """`h3_parts` reads each `###` heading as the heading scan does, and the parts between."""
    text = "## S" + nl + nl.join(lines)
    start = len("## S" + nl)
    end_line = text.count("\n") + 1
    heads = [h for h in scan_headings(text, start, 1, plain=True) if h.level == 3]
    want = [(h.text, h.line, after.line if after is not None else end_line, h.offset,
             after.offset if after is not None else len(text))
            for h, after in zip(heads, [*heads[1:], None][:len(heads)], strict=True)]
    assert h3_parts(text, start, 1, len(text), end_line) == want
