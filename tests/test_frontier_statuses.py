"""The frontier's statuses of a finished interview (every node answered, none out of scope)
told at once (`_frontier`: `dict.fromkeys`, no loop over the nodes) are what the rule of
each node (`Settled.status`) says, for every tree and settled set: IDs twice, nodes being
investigated, IDs answered or out of scope or neither."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Entry, Node
from mdgrill.model.tree import INVESTIGATING, OPEN, Settled, compute_frontier

IDS = st.sampled_from(["D1", "D2", "D3", "D4"])


@settings(max_examples=800, deadline=None, derandomize=True)
@example([("D1", False), ("D1", True)], {"D1"}, set())
@example([("D1", False), ("D2", False)], {"D1", "D2"}, set())
@example([("D1", False), ("D2", True)], {"D1", "D2", "D3"}, {"D3"})
@example([], set(), set())
@given(st.lists(st.tuples(IDS, st.booleans()), max_size=6), st.sets(IDS), st.sets(IDS))
def test_the_statuses_of_a_finished_interview_are_each_nodes(
        nodes: list[tuple[str, bool]], answered: set[str], out_of_scope: set[str]) -> None:
    tree = []
    for line, (node_id, investigating) in enumerate(nodes):
        node = Node(node_id, "q", line, line + 1)
        node.entries = [Entry("Investigating", "yes", line)] if investigating else []
        tree.append(node)
    for settled in (Settled(answered, out_of_scope), Settled(dict.fromkeys(answered, "a"),
                                                             out_of_scope)):
        frontier = compute_frontier(tree, settled, [])
        want = {node.id: settled.status(node) for node in tree}  # its last node's, as told
        assert frontier.statuses == want
        assert bool(frontier.open) == any(s in (OPEN, INVESTIGATING) for s in want.values())
