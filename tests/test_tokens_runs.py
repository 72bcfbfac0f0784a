"""The design tree's check and the log's settled set read their lines' tokens a run of
nodes or blocks at a time (`Progress.read_runs`): what they say is what one pass over the
whole section's tokens says, and what checking each node on its own says, whatever the
run's length and wherever the runs end."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import NodeChecks
from mdgrill.checks.spec import tree as tree_checks
from mdgrill.formats.progress import LOG, TREE, reader
from mdgrill.formats.progress.blocks import line_tokens
from mdgrill.formats.textfile import TextFile
from mdgrill.model import tree as tree_model

NODE_HEADINGS = st.sampled_from(["### D1: a", "### D2: b", "### D3: c", "### D1: again",
                                 "### no id here", "###"])
NODE_LINES = st.sampled_from(["- Section: s1", "- Depends on: D1", "- Depends on: D2, X9",
                              "- Spawned by: D1, D2", "- Spawned by: D3", "- Options:",
                              "- Options: inline", "  - A", "  - B (Recommended)",
                              "  - C (recommended)", "", "stray", "- Colour: v", " \t",
                              "> quoted", "- depends ON: nope"])
BLOCK_HEADINGS = st.sampled_from(["### Requirements Grill - Round 1", "### Requirements Grill "
                                  "- Round 2", "### Requirements Grill - Revised",
                                  "### Requirements Grill - Skipped", "### Something else"])
BLOCK_LINES = st.sampled_from(["- Decisions: D1 -> yes", "- Decisions: D2: `no`",
                               "- Facts resolved: D3 -> `x`", "- Out of scope: D2",
                               "- Out of scope: none", "- Reopened: D1", "- Defaulted: D3",
                               "- DECISIONS: D3 -> maybe", "", "  - nested", "stray", " "])


def document(nodes: list[tuple[str, list[str]]], blocks: list[tuple[str, list[str]]],
             nl: str, final: bool) -> str:
    lines = ["# T", "", "## Design Tree", "prose before the first node"]
    for heading, body in nodes:
        lines += [heading, *body]
    lines.append("## Interview Responses")
    for heading, body in blocks:
        lines += [heading, *body]
    return nl.join(lines) + (nl if final else "")


def one_pass(text: str) -> tuple[list[object], list[object]]:
    """The tree checked from one pass over its section's tokens (as before the runs), and
    the references each node learned."""
    prog = reader.Progress(TextFile(text), "x.progress.md")
    known: dict[str, reader.Node] = {}
    for node in prog.nodes:
        known.setdefault(node.id, node)
    sec = prog.sections.get(TREE)
    out: list[object] = []
    if sec is not None:
        start, end = prog.section_offsets(sec)
        out = list(tree_checks._check_tree("x.progress.md", prog.nodes,
                                           line_tokens(text, start, end), sec.start, known))
    return out, [node.references() for node in prog.nodes]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.tuples(NODE_HEADINGS, st.lists(NODE_LINES, max_size=6)), max_size=9),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.integers(1, 4))
def test_the_tree_checked_a_run_of_nodes_at_a_time_says_what_one_pass_says(
        nodes: list[tuple[str, list[str]]], nl: str, final: bool, run: int) -> None:
    text = document(nodes, [], nl, final)
    whole, refs = one_pass(text)
    alone = tree_checks.check_nodes(reader.Progress(TextFile(text), "x.progress.md"),
                                    NodeChecks())  # each node checked on its own
    old = reader._RUN
    try:
        reader._RUN = run
        prog = reader.Progress(TextFile(text), "x.progress.md")
        runs = tree_checks.check_nodes(prog)
    finally:
        reader._RUN = old
    assert [node.references() for node in prog.nodes] == refs
    assert runs == alone
    # the node checks proper, in the order one pass gave them, among the file's
    assert any(runs[at:at + len(whole)] == whole for at in range(len(runs) - len(whole) + 1))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.tuples(BLOCK_HEADINGS, st.lists(BLOCK_LINES, max_size=5)), max_size=9),
       st.lists(BLOCK_LINES, max_size=3), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.integers(1, 4))
def test_the_settled_set_read_a_run_of_blocks_at_a_time_is_one_pass_s_and_the_ledger_s(
        blocks: list[tuple[str, list[str]]], before: list[str], nl: str, final: bool,
        run: int) -> None:
    text = document([("### D1: a", []), ("### D2: b", []), ("### D3: c", [])],
                    [("", before), *blocks], nl, final)  # lines before the first block
    prog = reader.Progress(TextFile(text), "x.progress.md")
    answered: set[str] = set()
    out_of_scope: set[str] = set()
    sec = prog.sections[LOG]
    start, end = prog.section_offsets(sec)
    tree_model._settle_tokens(prog.blocks, line_tokens(text, start, end), sec.start,
                              answered, out_of_scope, {})
    old = reader._RUN
    try:
        reader._RUN = run
        settled = tree_model.log_settled(reader.Progress(TextFile(text), "x.progress.md"))
    finally:
        reader._RUN = old
    assert (set(settled.answered), settled.out_of_scope) == (answered, out_of_scope)
    ledger = tree_model.settled_of(reader.Progress(TextFile(text), "x.progress.md"))
    assert (set(settled.answered), set(settled.out_of_scope)) == \
        (set(ledger.answered), set(ledger.out_of_scope))
