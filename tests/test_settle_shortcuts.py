"""The shortcuts of `open-frontier`'s reading of the log and of its frontier, each held to
the general path over generated input:

- `log_settled` reads a `Decisions` value's ID from the value as its token holds it, not
  stripped, and skips a `none` without a call: it settles what the ledger settles (the
  plain rules, `read_ledger`) for values with blanks of every kind at either end and around
  the arrow.
- `frontier_ids`, as a round closes, gives the frontier worked out already for the same
  parsed file and settled set (`open-frontier` works it out first), and otherwise tells
  that no node is open without making a set of the tree's IDs: it is the frontier a fresh
  parse works out, over the generated specs of tests/test_fastpaths.py.
- The frontier of a tree whose every node is answered (none out of scope, no section
  required) is told at once, its statuses made only when asked for (`Frontier.status_of`
  tells the few IDs open-frontier asks about): it is the frontier worked out node by node.
- open-frontier tells an ID answered in this interview (asked, not pending) and the round's
  frontier not yet asked without a set of the answered IDs: the refusal and the report the
  rules give.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_fastpaths import document, mostly_canonical

from mdgrill.core.machine.rounds import open_frontier
from mdgrill.errors import GateRefusal, InputError, MdgrillError
from mdgrill.formats.progress import Entry, Node, Progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model import tree as tree_model
from mdgrill.model.tree import (
    Frontier,
    Settled,
    compute_frontier,
    frontier_ids,
    ledger_of,
    log_settled,
    read_ledger,
    spec_frontier,
)

PREFIX = "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"

# blanks the token keeps (after the pattern's own spaces and tabs) and `strip` drops
BLANKS = st.sampled_from(["", " ", "\t", "  ", "\u00a0", "\u2003", "\x0b", "\x0c", " \t "])
IDS = st.sampled_from(["D1", "D2", "d3", "Z9", "x-1", "1D", "D\u0661", "Dé", "", "D1 D2",
                       "auth.users"])
ARROWS = st.sampled_from([" -> ", "->", " → ", "→", "  ->  ", " -> -> ", " ->", "-> ", ""])
ANSWERS = st.sampled_from(["yes", "", " ", "\t", "\u00a0", "a -> b", "none"])
KEYS = st.sampled_from(["Decisions", "decisions", "Facts resolved", "Out of scope"])
VALUES = st.sampled_from(["none", "none ", "D1", "D2, D3", "D1 -> fact", "x"])


@st.composite
def logs(draw: st.DrawFn) -> str:
    rounds = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        lines = [f"### Requirements Grill - Round {number}"]
        for _ in range(draw(st.integers(0, 6))):
            key = draw(KEYS)
            if key.lower() == "decisions":
                value = (draw(BLANKS) + draw(IDS) + draw(ARROWS) + draw(ANSWERS)
                         + draw(BLANKS))
            else:
                value = draw(VALUES) + draw(BLANKS)
            lines.append(f"- {key}: {value}")
        rounds.append("\n".join(lines) + "\n")
    return PREFIX + "".join(rounds)


@settings(max_examples=1500, deadline=None, derandomize=True)
@example(PREFIX + "### Requirements Grill - Round 1\n- Decisions: D1 -> \n"
         "- Decisions: D2 ->\u2003\n- Decisions: \u00a0D3 -> x\n- Decisions: D4 -> \t\n"
         "- Out of scope: none \n- Facts resolved: none\n")
@given(logs())
def test_decisions_read_unstripped_settle_what_the_ledger_settles(text: str) -> None:
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    settled = log_settled(Progress(TextFile(text), "p.md"))
    assert (set(settled.answered), settled.out_of_scope) == \
        (set(ledger.answers), ledger.out_of_scope)


def _fresh_frontier(text: str) -> list[str]:
    return spec_frontier(Progress(TextFile(text), "p.md")).frontier


def _frontier_ids_every_way(text: str) -> None:
    try:
        want = _fresh_frontier(text)
    except MdgrillError:
        return
    # as open-frontier asks: the frontier from the log's settled set, then the round's close
    prog = Progress(TextFile(text), "p.md")
    asked = spec_frontier(prog, ledger=log_settled(prog)).frontier
    assert asked == want
    assert frontier_ids(prog) == want
    asked.append("X9")  # a caller's change to the frontier it got is not what is kept
    assert frontier_ids(prog) == want
    # the ledger read later for the same file: the frontier kept was not worked out from it
    ledger_of(prog)
    assert frontier_ids(prog) == want
    # grouped by section, with the ledger: the same IDs
    prog = Progress(TextFile(text), "p.md")
    spec_frontier(prog, group_by_section=True)
    assert frontier_ids(prog) == want
    # nothing worked out before: the check that no node is open, or the frontier itself
    assert frontier_ids(Progress(TextFile(text), "p.md")) == want


@settings(max_examples=400, deadline=None, derandomize=True)
@given(document())
def test_frontier_ids_is_the_frontier_every_way(text: str) -> None:
    _frontier_ids_every_way(text)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(mostly_canonical())
def test_frontier_ids_is_the_frontier_on_logs_mdgrill_writes(text: str) -> None:
    _frontier_ids_every_way(text)


def test_frontier_ids_of_a_tree_settled_but_one_out_of_scope_or_reopened() -> None:
    head = ("---\nmdgrill: 1\n---\n# T\n\n## Design Tree\n### D1: Who\n### D2: What\n"
            "- Depends on: D1\n\n## Interview Responses\n")
    answered = ("### Requirements Grill - Round 1\n- Asked: D1, D2\n- Decisions: D1 -> yes\n"
                "- Out of scope: D2 -> not now\n")
    for log, want in ((answered, []), (answered + "### Requirements Grill - Revised\n"
                                       "- Reopened: D2\n", ["D2"]),
                      (answered + "### Requirements Grill - Revised\n- Reopened: D1\n",
                       ["D1"])):
        _frontier_ids_every_way(head + log)
        assert _fresh_frontier(head + log) == want


NODE_IDS = st.sampled_from(["D1", "D2", "D3", "D4"])
# IDs a verb asks about: nodes' IDs, and IDs no node has (answered or not)
PROBES = ["D1", "D2", "D3", "D4", "X1", "D1 ", 7] * 2


def _general(nodes: list[Node], settled: Settled, required: list[str],
             grouped: bool) -> Frontier:
    """The frontier worked out node by node: no shortcut for a tree whose every node is
    answered (neither `_frontier`'s nor `_statuses`')."""
    was = tree_model._holds_all
    tree_model._holds_all = lambda answered, ids: False
    try:
        return compute_frontier(nodes, settled, required, grouped)
    finally:
        tree_model._holds_all = was


@settings(max_examples=800, deadline=None, derandomize=True)
@example([("D1", "s1", False), ("D2", "s1", True)], {"D1", "D2"}, set(), [], False)
@example([("D1", None, False), ("D1", "s2", False)], {"D1", "X1"}, set(), [], True)
@example([("D1", "s1", False)], {"D1"}, set(), ["s1"], False)
@example([], set(), set(), [], False)
@given(st.lists(st.tuples(NODE_IDS, st.sampled_from([None, "s1", "s2"]), st.booleans()),
                max_size=6),
       st.sets(st.sampled_from(["D1", "D2", "D3", "D4", "X1"])), st.sets(NODE_IDS),
       st.sampled_from([[], ["s1"], ["s1", "S2"]]), st.booleans())
def test_a_finished_tree_s_frontier_is_the_node_by_node_one(
        nodes: list[tuple[str, str | None, bool]], answered: set[str], out_of_scope: set[str],
        required: list[str], grouped: bool) -> None:
    """A tree whose every node is answered, none out of scope and no section required:
    its frontier told at once, the statuses made only when asked for (`status_of` tells
    the few a verb asks about), is the one worked out node by node."""
    tree = []
    for line, (node_id, section, investigating) in enumerate(nodes):
        node = Node(node_id, "q", line, line + 1)
        node.entries = ([Entry("Section", section, line)] if section else []) + \
            ([Entry("Investigating", "yes", line)] if investigating else [])
        tree.append(node)
    for settled in (Settled(answered, out_of_scope),
                    Settled(dict.fromkeys(answered, "a"), out_of_scope)):
        want = _general(tree, settled, required, grouped)
        got = compute_frontier(tree, settled, required, grouped)
        assert got.to_json() == want.to_json()
        # each ID asked about, more times than the frontier looks for one among the IDs
        assert [got.status_of(p) for p in PROBES] == \
            [want.statuses.get(p) for p in PROBES]
        assert got.statuses == want.statuses
        first = compute_frontier(tree, settled, required, grouped)
        assert first.statuses == want.statuses  # the statuses asked for first
        assert first.status_of("D1") == want.statuses.get("D1")


TREE = ("## Design Tree\n\n### D1: a\n- Depends on: none\n- Options:\n  - A (Recommended)\n"
        "  - B\n- Rationale: r\n- Tradeoffs: t\n\n### D2: b\n- Depends on: none\n- Options:\n"
        "  - A\n  - B\n- Rationale: r\n- Tradeoffs: t\n\n### D3: c\n- Depends on: D1\n"
        "- Options:\n  - A\n  - B\n- Rationale: r\n- Tradeoffs: t\n\n")
SOME = st.lists(st.sampled_from(["D1", "D2", "D3", "X1"]), unique=True, max_size=4)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(SOME, SOME, SOME, SOME, st.booleans(), st.booleans())
def test_open_frontier_tells_answered_and_not_yet_asked_without_the_answered_set(
        asked: list[str], pending: list[str], wanted: list[str], ids: list[str],
        next_round: bool, answers: bool) -> None:
    """open-frontier's `answered in this interview` (asked, not pending) and its
    `frontier_not_yet_asked` (of the round's frontier: not asked now, a node of the tree,
    not answered in this interview) read without a set of the answered IDs made: the
    refusal and the report those rules give."""
    pending = [i for i in pending if i in asked]
    log = "### Requirements Grill - Round 1\n- Asked: " + (", ".join(asked) or "none") + "\n"
    if answers:
        log += "".join(f"- Decisions: {i} -> A\n" for i in asked if i not in pending)
    text = (f"---\nmdgrill: 1\nspec: s\nphase: requirements\nrequired_sections: []\n"
            f"interview:\n  id: req-1\n  phase: requirements\n  round: 1\n"
            f"  status: collecting\n  asked: [{', '.join(asked)}]\n"
            f"  pending: [{', '.join(pending)}]\n  round_frontier: [{', '.join(wanted)}]\n"
            f"---\n# T\n\n{TREE}## Interview Responses\n\n{log}")
    prog = Progress(TextFile(text), "p.md")
    answered = set(asked) - set(pending)
    try:
        report = open_frontier(prog.data, prog, 2 if next_round else 1, ids).report
    except (GateRefusal, InputError) as refusal:
        if "already answered in this interview" in str(refusal):
            assert any(i in answered for i in ids)
        return
    assert not any(i in answered for i in ids)
    if next_round:  # the round opened: its frontier is the tree's as it opened
        wanted = _fresh_frontier(text)
    now = set(asked) | set(ids)
    assert report["frontier_not_yet_asked"] == \
        [i for i in wanted if i not in now and i in ("D1", "D2", "D3") and i not in answered]
