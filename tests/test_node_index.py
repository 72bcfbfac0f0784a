"""The tree's node index read from its titles alone, held to the pattern and to the full parse.

`node_id_column` reads a node heading's ID by str methods where every title allows it (an
ID of ASCII letters and digits, no line end), and `node_words` its words by the first `:`:
both are held here to NODE_HEADING's own reading (`node_heading`) over generated titles,
the ones that take the shortcut and the ones that do not, alone and mixed in one column.
And a tree's IDs read first from its titles (`h3_heads`, no line counted), then its nodes
made from the same reading, are the nodes a parse of every heading makes.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_fastpaths import document, mostly_canonical

from mdgrill.formats.markdown import h3_heads, h3_lines, is_plain, scan_headings
from mdgrill.formats.progress import Progress
from mdgrill.formats.progress.lines import (
    UNREAD_STRAY,
    node_heading,
    node_id_column,
    node_words,
)
from mdgrill.formats.textfile import TextFile

# the pieces a title is made of: IDs the shortcut takes and ones it leaves to the pattern,
# blanks `\s` and `str.strip` agree on (and a line end), colons, closing `#`s, words
PIECES = st.sampled_from([
    "D1", "D22", "E1", "auth.users", "x-1", "a_b", "1D", "D", "é1", "D²", "Ⅻ", "",
    ":", ": ", " :", "::", " ", "\t", "\x0b", "\x1c", "\u00a0", "\u2003", "\n", "\r",
    "words", "Who decides", "#", " ##", "a: b", "-", ".",
])
TITLE = st.lists(PIECES, max_size=6).map("".join)
CANONICAL = st.builds(lambda n, words: f"D{n}: {words}", st.integers(1, 10_000),
                      st.sampled_from(["Who", "What next ", " Why: because", "a # b"]))
# a heading shaped as a node's, its ID drawn from ones the pattern reads and ones it does not
# (non-ASCII letters and digits are alphanumeric to `str`, not to the pattern)
NODE_LIKE = st.builds("".join, st.tuples(
    st.sampled_from(["D7", "Q", "é1", "Dé", "D²", "Ⅻ", "1D", "a.b", "x-1", "D 1", ""]),
    st.sampled_from(["", " ", "\t", "\u00a0", "\n"]), st.just(":"),
    st.sampled_from(["", " words", "\tx:y", " a\nb", " #"])))


def _pattern(titles: list[str]) -> list[str | None]:
    return [None if (found := node_heading(title)) is None else found[0] for title in titles]


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.lists(st.one_of(TITLE, CANONICAL, NODE_LIKE), max_size=12))
def test_the_id_column_is_what_the_pattern_reads(titles: list[str]) -> None:
    column, complete = node_id_column(titles)
    assert column == _pattern(titles)
    assert complete == (None not in column)
    for title in titles:
        found = node_heading(title)
        if found is not None:
            assert node_words(title) == found[1]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(CANONICAL, min_size=1, max_size=12), st.integers(0, 12),
       st.one_of(TITLE, NODE_LIKE))
def test_one_title_off_the_shortcut_leaves_the_others_on_it(titles: list[str], at: int,
                                                           other: str) -> None:
    titles.insert(min(at, len(titles)), other)
    column, complete = node_id_column(titles)
    assert column == _pattern(titles)
    assert complete == (None not in column)


def _nodes(prog: Progress) -> list[tuple[object, ...]]:
    return [(n.id, n.title, n.line, n.end, n.offset, n.stop) for n in prog.nodes]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(document(), mostly_canonical()))
def test_the_ids_read_from_the_titles_are_the_nodes_of_every_heading(text: str) -> None:
    exact = Progress(TextFile(text), "p.md")
    exact.headings  # noqa: B018 - its parts come from the whole body's headings
    ids = [n.id for n in exact.nodes]
    # the IDs first (from the titles alone), then nodes one by one, then all of them
    prog = Progress(TextFile(text), "p.md")
    assert prog.node_ids() == ids
    if ids:
        last = prog.node_at(len(ids) - 1)
        assert (last.id, last.title, last.line, last.end) == _nodes(exact)[-1][:4]
    assert _nodes(prog) == _nodes(exact)
    assert [(s.title, s.heading_line, s.end) for s in prog.node_headings_without_id()] == \
        [(s.title, s.heading_line, s.end) for s in exact.node_headings_without_id()]
    # a node asked for by ID, as the rounds ask
    for node_id in dict.fromkeys(ids):
        fresh = Progress(TextFile(text), "p.md")
        node = fresh.node(node_id)
        assert node is not None
        assert (node.id, node.line) == next((n.id, n.line) for n in exact.nodes
                                            if n.id == node_id)


# (prefixes put before blanks: a `#` after a blank and no prefix is an indented one, which a
# plain text has none of)
# `###` lines with blanks, tabs, CRs and closing `#`s around their text, among other lines
H3_LINES = st.lists(st.builds(
    "".join, st.tuples(st.sampled_from(["###", "####", "##", "", "x"]),
                       st.lists(st.sampled_from([" ", "\t", "\r", "\x0b", "\u00a0", "#", "D1",
                                                 ":", "a b", "##"]), max_size=6).map("".join))),
    max_size=12)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(H3_LINES, st.sampled_from(["\n", "\r\n"]))
def test_the_h3_scan_reads_the_titles_and_lines_every_heading_scan_reads(
        lines: list[str], nl: str) -> None:
    text = nl.join(["## S", *[line for line in lines if not line.startswith("##") or
                              line.startswith("###")]]) + nl
    start = text.index("\n") + 1
    assume(is_plain(text, start))  # what h3_heads reads: no fence, comment or indented `#`
    heads = [h for h in scan_headings(text, start, 1) if h.level == 3]
    titles, at = h3_heads(text, start, len(text))
    assert titles == [h.text for h in heads]
    assert at == [h.offset for h in heads]
    assert h3_lines(text, start, 1, at) == [h.line for h in heads]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.one_of(document(), mostly_canonical()))
def test_a_made_parts_stray_lines_are_its_own_list_once_read(text: str) -> None:
    """Blocks and nodes made field by field share one empty stand-in for their stray lines
    until their bullets are read (`UNREAD_STRAY`): reading gives each its own list, the
    lines a part made by its constructor reads."""
    prog = Progress(TextFile(text), "p.md")
    parts = [*prog.blocks, *prog.nodes]
    for part in parts:
        stray = part.stray
        assert isinstance(stray, list)
        assert part._stray is stray and stray is not UNREAD_STRAY
    assert len({id(part.stray) for part in parts}) == len(parts)


@st.composite
def tree_text(draw: st.DrawFn) -> str:
    """A spec whose tree holds up to 90 nodes (more than are made one by one before the
    tree's parts are read whole), each with a few lines, some headings no node."""
    lines: list[str] = []
    for n in range(draw(st.integers(0, 90))):
        lines.append(draw(st.sampled_from([f"### D{n}: Q{n}", f"### D{n} : Q", "### Notes"])))
        lines += draw(st.lists(st.sampled_from(["- Section: s", "", "text", "  - A"]),
                               max_size=3))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    return nl.join(["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", *lines,
                    "## Interview Responses", "### Requirements Grill - Round 1", ""])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(tree_text(), st.data())
def test_nodes_made_one_by_one_in_any_order_are_the_nodes_of_every_heading(
        text: str, data: st.DataObject) -> None:
    exact = Progress(TextFile(text), "p.md")
    exact.headings  # noqa: B018 - its parts come from the whole body's headings
    want = _nodes(exact)
    prog = Progress(TextFile(text), "p.md")
    ids = prog.node_ids()
    assert ids == [n[0] for n in want]
    order = data.draw(st.permutations(range(len(ids))))
    for index in order[:data.draw(st.integers(0, len(order)))]:
        node = prog.node_at(index)
        assert (node.id, node.title, node.line, node.end, node.offset, node.stop) == \
            want[index]
    assert _nodes(prog) == want
