"""The shortcuts `validate`'s checks and reading take say what the general path says.

Each is a case read more cheaply where the answer is provably the same, and each is held
here to the general path over generated input: a round's title as mdgrill writes it (read
by its parts, not by BLOCK_HEADING), the next round of a phase numbered on (no heading rule
to apply), a round's keys looked at once per shape, a node's lone known ID (what split_ids
reads of it) and a node's options with nothing to say (no call of `_options_said`).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import blocks as block_checks
from mdgrill.checks.spec import check_blocks, check_nodes
from mdgrill.checks.spec import tree as tree_checks
from mdgrill.checks.spec.keys import BLOCK_KEYS, NEW_SEQUENCE, NODE_KEYS, NODE_KEYS_LOWER
from mdgrill.diagnostics import Diagnostic, warning
from mdgrill.formats.progress import Block, Node, Progress, split_ids
from mdgrill.formats.progress.blocks import classify_block, make_blocks
from mdgrill.formats.textfile import TextFile

WORDS = st.sampled_from(["Requirements", "Design", "requirements", "Tasks", "Ré", "A B", "",
                         "Design1", "x", "Research", "Requirement", "Triage"])
NUMBERS = st.sampled_from(["1", "12", "007", "", "1a", "\u0663", "\u00b2", " 1", "1 "])
MIDDLES = st.sampled_from([" Grill - Round ", " Grill - Round  ", " Artifact - Round ",
                           " Grill - Confirmed", " Grill -  Round ", " Grill - Round 1 Grill - "
                           "Round "])


@settings(max_examples=600, deadline=None, derandomize=True)
# a run of rounds of one phase (its word looked up once), then of another of the same first
# letter, and one of a word not a phase's
@example([("Research", " Grill - Round ", "1"), ("Research", " Grill - Round ", "2"),
          ("Requirements", " Grill - Round ", "1"), ("Requirement", " Grill - Round ", "2"),
          ("Requirements", " Grill - Round ", "3")])
@given(st.lists(st.tuples(WORDS, MIDDLES, NUMBERS), min_size=1, max_size=6))
def test_a_round_title_read_by_its_parts_is_what_the_pattern_reads(
        titles: list[tuple[str, str, str]]) -> None:
    parts = [(word + middle + number, 3 * i, 3 * i + 3, 10 * i, 10 * i + 9)
             for i, (word, middle, number) in enumerate(titles)]
    made = make_blocks(parts, lambda part: None)
    for block, (title, line, end, _, _) in zip(made, parts, strict=True):
        alone = classify_block(title, line, end)
        assert (block.kind, block.phase, block.round, block.title, block.line, block.end) == \
            (alone.kind, alone.phase, alone.round, alone.title, alone.line, alone.end)


def _headings_one_by_one(path: str, blocks: list[Block]) -> list[Diagnostic]:
    """`_check_headings` without its shortcut for the next round: every block by the rules."""
    out: list[Diagnostic] = []
    last_round: dict[str, int] = {}
    carried: dict[str, int] = {}
    ours = False
    for block in blocks:
        kind, phase, number = block.kind, block.phase, block.round
        if kind == "unknown" and not ours:
            continue
        ours = ours or kind in BLOCK_KEYS
        if kind == "unknown" or (kind in BLOCK_KEYS and phase is None):
            out.append(warning(path, block.line + 1, "UNKNOWN_BLOCK", block.title))
        elif kind == "round":
            went_on = carried.pop(phase, None) if phase is not None and carried else None
            if phase is not None and number is not None and (
                    number == last_round.get(phase, 0) + 1 or number == (went_on or -1) + 1):
                last_round[phase] = number
            else:
                out.extend(block_checks._check_round_number(path, phase, number, block.line,
                                                            last_round))
        elif kind in NEW_SEQUENCE and phase is not None:
            before = last_round.pop(phase, None)
            if kind not in ("reset", "skipped"):
                carried.pop(phase, None)
            elif before is not None:
                carried[phase] = before
    return out


BLOCKS = st.lists(st.tuples(st.sampled_from(["round", "round", "round", "confirmed", "reset",
                                             "skipped", "awaiting", "unknown"]),
                            st.sampled_from(["requirements", "design", None]),
                            st.sampled_from([1, 2, 3, 4, None])), max_size=14)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(BLOCKS)
def test_the_heading_rules_say_of_the_next_round_what_they_say_of_any(
        specs: list[tuple[str, str | None, int | None]]) -> None:
    blocks = [Block(kind, phase, number if kind == "round" else None, f"t{i}", i, i + 1)
              for i, (kind, phase, number) in enumerate(specs)]
    said = [(d.line, d.code, d.severity) for d in block_checks._check_headings("p", blocks)]
    assert said == [(d.line, d.code, d.severity) for d in _headings_one_by_one("p", blocks)]


# Runs of rounds numbered on (a phase, its first number, how many), or another block: the
# shortcut's writes of a run's count put off to the block after it, which reads it (a round
# of another phase, a Reset or Skipped carrying the count, a Confirmed dropping it, a round
# numbered anew)
RUNS = st.lists(st.one_of(
    st.tuples(st.just("round"), st.sampled_from(["requirements", "design"]),
              st.integers(1, 4), st.integers(1, 4)),
    st.tuples(st.sampled_from(["confirmed", "reset", "skipped", "awaiting", "unknown"]),
              st.sampled_from(["requirements", "design", None]), st.just(0), st.just(1))),
    max_size=8)


@settings(max_examples=800, deadline=None, derandomize=True)
@example([("round", "requirements", 1, 2), ("reset", "requirements", 0, 1),
          ("round", "requirements", 3, 1)])
@example([("round", "requirements", 1, 2), ("round", "design", 1, 1),
          ("round", "requirements", 3, 1)])
@given(RUNS)
def test_runs_of_rounds_numbered_on_are_told_what_any_round_is(
        runs: list[tuple[str, str | None, int, int]]) -> None:
    specs: list[tuple[str, str | None, int | None]] = []
    for kind, phase, first, count in runs:
        specs += [(kind, phase, first + i if kind == "round" else None) for i in range(count)]
    blocks = [Block(kind, phase, number, f"t{i}", i, i + 1)
              for i, (kind, phase, number) in enumerate(specs)]
    said = [(d.line, d.code, d.severity) for d in block_checks._check_headings("p", blocks)]
    assert said == [(d.line, d.code, d.severity) for d in _headings_one_by_one("p", blocks)]


ROUND_LINES = st.sampled_from([
    "- Asked: D1, D2", "- Facts resolved: none", "- Decisions: D1 -> yes", "- Decisions: D2",
    "- Decisions: none", "- Decisions: D3 → no", "- Out of scope: none",
    "- Domain language: none", "- Frontier after round: none", "- Assumptions: a",
    "- Colour: blue", "stray", "  - nested", "", "- **Decisions**: D4 -> bold",
    "- decisions: D5 -> lower", "- Asked: D9"])


DECISIONS = st.sampled_from(["- Decisions: D1 -> yes", "- Decisions: D2",
                             "- Decisions: none", "- Decisions: NONE ", "- Decisions: D3 → no",
                             "- Decisions: D4 ->", "- DECISIONS: D5"])


@st.composite
def a_round(draw: st.DrawFn) -> list[str]:
    """A round as mdgrill writes it (its decisions with or without an arrow), or one with
    a line dropped, added or swapped."""
    lines = ["- Asked: D1, D2", "- Facts resolved: none",
             *draw(st.lists(DECISIONS, min_size=1, max_size=3)), "- Out of scope: none",
             "- Domain language: none", "- Frontier after round: none"]
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(lines)))
        how = draw(st.integers(0, 2))
        if how == 0 and at < len(lines):
            del lines[at]
        elif how == 1:
            lines.insert(at, draw(ROUND_LINES))
        elif at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
    return lines


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(st.one_of(a_round(), st.lists(ROUND_LINES, max_size=9)), min_size=1,
                max_size=5))
def test_a_round_of_a_known_shape_is_told_what_its_own_check_tells_it(
        rounds: list[list[str]]) -> None:
    lines = ["# T", "", "## Interview Responses", ""]
    for number, body in enumerate(rounds, 1):
        lines += [f"### Requirements Grill - Round {number}", *body, ""]
    text = "\n".join(lines)
    prog = Progress(TextFile(text), "p.md")
    said = check_blocks(prog)
    exact = Progress(TextFile(text), "p.md")
    expected = block_checks._check_headings("p.md", exact.blocks)
    for index, block in enumerate(exact.blocks):
        nxt = exact.blocks[index + 1].kind if index + 1 < len(exact.blocks) else None
        expected += block_checks._check_round("p.md", block, nxt)
    assert said == expected


NODE_LINES = st.sampled_from([
    "- Section: s1", "- Depends on: D1", "- Depends on: none", "- Depends on: NONE",
    "- Depends on: D1  ", "- Depends on: D9", "- Depends on: D1, D2", "- Spawned by: D2",
    "- Spawned by: None", "- Options:", "- Options: inline", "  - A (Recommended)",
    "  - B", "  - C (recommended)", "  - D (", "  - E", "", "stray", "- Colour: red"])
NODE_IDS = st.sampled_from(["D1", "D2", "none", "NONE", "None", "D3"])


def _tree_text(nodes: list[tuple[str, list[str]]]) -> str:
    """A file whose design tree holds these nodes (ID, the lines under its heading)."""
    lines = ["# T", "", "## Design Tree", ""]
    for node_id, body in nodes:
        lines += [f"### {node_id}: question", *body, ""]
    return "\n".join(lines)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(st.tuples(NODE_IDS, st.lists(NODE_LINES, max_size=8)), min_size=1,
                max_size=5))
def test_a_node_is_told_what_its_entries_tell_and_given_their_references(
        nodes: list[tuple[str, list[str]]]) -> None:
    text = _tree_text(nodes)
    prog = Progress(TextFile(text), "p.md")
    said = check_nodes(prog)
    exact = Progress(TextFile(text), "p.md")
    known: dict[str, object] = {}
    for node in exact.nodes:
        known.setdefault(node.id, node)
    # the references its entries give (split_ids of the first `Depends on` / `Spawned by`)
    assert [n.references() for n in prog.nodes] == [n.references() for n in exact.nodes]
    # what is said of the references and the options, read from the entries
    expected: set[tuple[int, str]] = set()
    for node in exact.nodes:
        count = len(node.options)
        marks = [o.line for o in node.options if o.recommended]
        first = node.options[0].line if node.options else None
        for entry in node.entries:
            if entry.key_lower == "options":
                if not 2 <= count <= 4:
                    expected.add((entry.line + 1, "NODE_OPTIONS"))
                if len(marks) > 1:
                    expected.add((marks[1] + 1, "NODE_RECOMMENDED"))
                elif marks and marks[0] != first:
                    expected.add((marks[0] + 1, "NODE_RECOMMENDED"))
            elif entry.key_lower in ("depends on", "spawned by"):
                for ref in split_ids(entry.value):
                    if ref not in known:
                        expected.add((entry.line + 1, "MISSING_REFERENCE"
                                      if ref[:1].isalpha() else "INVALID_REFERENCE"))
    got = {(d.line, d.code) for d in said
           if d.code in ("NODE_OPTIONS", "NODE_RECOMMENDED", "MISSING_REFERENCE",
                         "INVALID_REFERENCE")}
    # two parents named in one `Spawned by` are an INVALID_REFERENCE of their own
    assert got - expected <= {(d.line, d.code) for d in said
                              if d.code == "INVALID_REFERENCE" and "parents" in d.message}
    assert expected <= got


def _tree_said_plainly(path: str, nodes: list[Node], tokens: list[tuple[str, str, str]],
                       base: int, known: dict[str, Node]) -> list[Diagnostic]:
    """`tree_checks._check_tree` without its shortcuts: every reference line's IDs read by
    split_ids and looked up, every `Options:` line's inline value trimmed where it is read,
    each node's references made from lists; what the tree check said before it took them."""
    out: list[Diagnostic] = []
    for node in nodes:
        first = node.line + 1
        at = first - base
        if at < 0:
            first, at = base, 0
        current = listing = False
        depends: list[str] | None = None
        spawned: list[str] | None = None
        listed: list[tuple[int, str]] = []
        options: list[int] = []
        marks: list[int] = []
        for line, (key, value, other) in enumerate(tokens[at:node.end - base], first):
            if key:
                current, listing = True, False
                low = key.lower()
                if low not in NODE_KEYS_LOWER:
                    out.append(warning(path, line + 1, "UNKNOWN_NODE_KEY",
                                       f"`{key}:` is not a node key (known: "
                                       f"{', '.join(NODE_KEYS)}): check the spelling"))
                elif low == "options":
                    listing = True
                    listed.append((line, value.strip()))
                elif low in ("depends on", "spawned by"):
                    ids = split_ids(value.strip())
                    if low == "depends on":
                        depends = ids if depends is None else depends
                    else:
                        spawned = ids if spawned is None else spawned
                    if any(ref not in known for ref in ids) or \
                            (low == "spawned by" and len(ids) > 1):
                        tree_checks._check_refs(path, node, line, ids, known,
                                                low == "spawned by", out)
            elif not other or other.isspace():
                continue
            elif current and other[0] in " \t>":
                if listing:
                    options.append(line)
                    if "(recommended)" in other.lower():
                        marks.append(line)
            else:
                current = listing = False
        node.set_references((tuple(depends) if depends else (),
                             spawned[0] if spawned else None))
        if listed:
            tree_checks._options_said(path, node, options, marks, listed, out)
    return out


TREE_LINES = st.sampled_from([
    "- Section: s1", "- Depends on: D1", "- Depends on: D2", "- Depends on: none",
    "- Depends on: None", "- Depends on: D1 ", "- Depends on:  D1", "- depends on: D3",
    "- Depends on: D1, D2", "- Depends on: D1,D9", "- Depends on: x y", "- Depends on:",
    "- Spawned by: D2", "- Spawned by: D1, D2", "- Spawned by: NONE", "- Spawned by: D9",
    "- Spawned by: D1 D1", "- Options:", "- Options: inline", "- Options:  ", "- Options: \u00a0",
    "- Options: \x0c",
    "  - A (Recommended)", "  - B", "  - C (recommended)", "  - D (", "\t- E", "> quoted",
    "", "  ", "stray", "- Colour: red", "- Status: open"])
TREE_IDS = st.sampled_from(["D1", "D2", "D3", "none", "NONE", "None", "D1"])


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.lists(st.tuples(TREE_IDS, st.lists(TREE_LINES, max_size=9)), min_size=1,
                max_size=6))
def test_the_tree_check_says_what_its_plain_reading_says(
        nodes: list[tuple[str, list[str]]]) -> None:
    # the tree check's shortcuts (a lone ID of a node taken without split_ids and without
    # a look-up of each of its IDs, the references kept as tuples, an inline option value
    # trimmed only where it is said): the same diagnostics, messages included, in the same
    # order, and the same references, as every line read plainly
    text = _tree_text(nodes)
    fast = Progress(TextFile(text), "p.md")
    plain = Progress(TextFile(text), "p.md")
    known: dict[str, Node] = {}
    for node in fast.nodes:
        known.setdefault(node.id, node)
    said = fast.read_runs(fast.nodes, lambda tokens, base, run: tree_checks._check_tree(
        "p.md", run, tokens, base, known))
    plain_known = {node_id: plain.nodes[fast.nodes.index(node)]
                   for node_id, node in known.items()}
    expected = plain.read_runs(plain.nodes, lambda tokens, base, run: _tree_said_plainly(
        "p.md", list(run), tokens, base, plain_known))
    assert said == expected
    assert [n.references() for n in fast.nodes] == [n.references() for n in plain.nodes]
