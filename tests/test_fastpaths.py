"""The parser's depths read what reading the whole body reads: a section's headings scanned
alone, each part's bullets read on first use or all in one pass (`read_all_bullets`), the
last block alone, the frontier without the settled nodes' bullets. One grammar: these are
the same reading at different extents, not second readings kept in step."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import Block, Node, Progress, read_progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import (
    Ledger,
    compute_frontier,
    frontier_ids,
    ledger_of,
    log_settled,
    read_ledger,
    required_sections,
    settled_of,
)

IDS = st.sampled_from(["D1", "D2", "D3", "E1", "auth.users", "x-1", "D 4", "", "none", "None"])
KEYS = st.sampled_from(["Decisions", "decisions", "**Decisions**", "Facts resolved",
                        "Out of scope", "OUT OF SCOPE", "Reopened", "Amended", "By", "Asked",
                        "Section",
                        "Depends on", "depends on", "Spawned by", "Investigating", "Options",
                        "Section :", "Frontier after round"])
HEADINGS = st.sampled_from([
    "### Requirements Grill - Round 1", "### Requirements Grill - Round 2",
    "### Design Grill - Round 1", "### Requirements Grill - Revised",
    "### Requirements Grill - Confirmed", "### Notes", "###", "#### Sub", "### D1: Who",
    "### D2: What ###", "  ### D3: Indented", "### E1 : spaced", "###D4: no space",
])


@st.composite
def line(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(HEADINGS)
    if kind in (1, 2, 3):
        key = draw(KEYS)
        sep = draw(st.sampled_from([": ", ":", ":  ", " : "]))
        ids = draw(st.lists(IDS, max_size=3))
        arrow = draw(st.sampled_from(["", " -> answer", " → yes", ": fact"]))
        bullet = draw(st.sampled_from(["- ", "* ", "-  ", "  - "]))
        return f"{bullet}{key}{sep}{', '.join(ids)}{arrow}"
    if kind == 4:
        return draw(st.sampled_from(["", " ", "text", "> quote", "  continuation"]))
    if kind == 5:
        return draw(st.sampled_from(["  - Option A (Recommended)", "  - Option B"]))
    return draw(st.text(alphabet="-*#:> abcD1", max_size=12))


@st.composite
def document(draw: st.DrawFn) -> str:
    tree = draw(st.lists(line(), max_size=25))
    log = draw(st.lists(line(), max_size=30))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = ["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", *tree,
            "## Interview Responses", *log]
    return nl.join(body) + draw(st.sampled_from(["", nl]))


def _exact(text: str) -> Progress:
    prog = Progress(TextFile(text), "p.md")
    prog.headings  # noqa: B018 - every later part comes from the whole body's headings
    return prog


def _parts(parts: list[Block] | list[Node]) -> list[tuple[object, ...]]:
    return [(p.title, p.line, p.end, [(e.key, e.value, e.line, e.children) for e in p.entries],
             p.stray) for p in parts]


def _ledger_view(ledger: Ledger) -> tuple[object, ...]:
    return ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order, ledger.amended


def _same(text: str) -> None:
    exact = _exact(text)
    one_pass = Progress(TextFile(text), "p.md")
    one_pass.read_all_bullets()
    for prog in (Progress(TextFile(text), "p.md"), one_pass):
        assert _parts(prog.blocks) == _parts(exact.blocks)
        assert [(b.kind, b.phase, b.round) for b in prog.blocks] == \
            [(b.kind, b.phase, b.round) for b in exact.blocks]
        assert _parts(prog.nodes) == _parts(exact.nodes)
        assert [(n.id, n.section, n.depends_on, n.spawned_by, n.investigating)
                for n in prog.nodes] == \
            [(n.id, n.section, n.depends_on, n.spawned_by, n.investigating) for n in exact.nodes]
    exact_ledger = read_ledger(exact.blocks)
    assert _ledger_view(ledger_of(Progress(TextFile(text), "p.md"))) == _ledger_view(exact_ledger)
    settled = settled_of(Progress(TextFile(text), "p.md"))
    assert set(settled.answered) == set(exact_ledger.answers)
    assert settled.out_of_scope == exact_ledger.out_of_scope
    tokens_read = log_settled(Progress(TextFile(text), "p.md"))  # no Entry made
    assert set(tokens_read.answered) == set(exact_ledger.answers)
    assert tokens_read.out_of_scope == exact_ledger.out_of_scope
    assert Progress(TextFile(text), "p.md").node_ids() == [n.id for n in exact.nodes]
    exact_frontier = compute_frontier(exact.nodes, exact_ledger, required_sections(exact.data))
    # each node's status as Settled.status gives it (an ID's last node), each ID open once
    assert exact_frontier.statuses == {n.id: exact_ledger.status(n) for n in exact.nodes}
    firsts = list({n.id: n for n in reversed(exact.nodes)}.values())[::-1]
    assert exact_frontier.open == [n.id for n in firsts
                                   if exact_ledger.status(n) in ("OPEN", "INVESTIGATING")]
    for node in exact.nodes:  # the frontier below reads only the bullets it needs
        node.entries  # noqa: B018
    assert frontier_ids(Progress(TextFile(text), "p.md")) == exact_frontier.frontier
    last = Progress(TextFile(text), "p.md").last_block()
    assert _parts([last] if last is not None else []) == _parts(exact.blocks[-1:])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(document())
def test_fast_paths_agree_with_the_full_parse(text: str) -> None:
    _same(text)


@st.composite
def mostly_canonical(draw: st.DrawFn) -> str:
    """Logs in the forms mdgrill writes, sometimes with one other line."""
    log = draw(st.lists(st.sampled_from([
        "### Requirements Grill - Round 1", "### Design Grill - Round 2",
        "### Requirements Grill - Confirmed", "### Requirements Grill - Revised", "### Notes",
        "- Out of scope: none", "- Facts resolved: none", "- Decisions: none",
        "- Asked: D1, D2", "", "- Frontier after round: D3", "###x", "#### Sub",
        "- Decisions: D1 -> yes", "- Facts resolved: D3 -> a -> b", "- Decisions: E1 -> ",
        "- Out of scope: D2", "- Reopened: D1", "* Decisions: D3 -> y", "- decisions: D1 -> n",
        "- Decisions:D2 -> x", "- Amended: D1 -> better words", "* amended: D2 -> z",
        "### Requirements Grill - Amended", "```", "<!-- c -->", "  ### D1: indented"]),
        max_size=30))
    tree = ["### D1: Who", "- Depends on: none", "### D2: What", "- Depends on: D1",
            "### D3: When", "- Spawned by: D2"]
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = ["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", *tree,
            "## Interview Responses", *log]
    return nl.join(body) + nl


@settings(max_examples=400, deadline=None, derandomize=True)
@given(mostly_canonical())
def test_the_depths_agree_on_logs_mdgrill_writes(text: str) -> None:
    _same(text)


def test_frontier_shortcut_sees_a_reopened_node() -> None:
    head = "---\nmdgrill: 1\n---\n# T\n\n## Design Tree\n### D1: Who\n\n## Interview Responses\n"
    answered = "### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> yes\n"
    assert frontier_ids(Progress(TextFile(head + answered), "p.md")) == []
    reopened = answered + "### Requirements Grill - Revised\n- Reopened: D1\n"
    assert frontier_ids(Progress(TextFile(head + reopened), "p.md")) == ["D1"]


def test_fast_paths_agree_on_real_files() -> None:
    root = Path(__file__).resolve().parents[1]
    files = list((root / "examples").rglob(".progress.md"))
    corpus = root.parent / "shared" / "corpus" / "ralph"
    files += list(corpus.rglob(".progress.md")) if corpus.is_dir() else []
    assert files
    for path in files:
        try:
            read_progress(path.read_bytes(), str(path))
        except MdgrillError:
            continue
        _same(path.read_bytes().decode("utf-8-sig"))


def test_a_bullet_read_in_a_section_is_the_entry_its_constructor_makes() -> None:
    # read_parts makes each Entry field by field, without its `__init__` (a frame a bullet):
    # every field __init__ sets is set, to the same value
    from mdgrill.formats.progress import Entry

    text = ("---\nmdgrill: 1\n---\n# T\n\n## Design Tree\n### D1: Q\n- Depends on: none\n"
            "- **Options**:\n  - A (Recommended)\n  - B\n\n## Interview Responses\n"
            "### Requirements Grill - Round 1\n- Asked: D1\n- DECISIONS: D1 -> A  \n")
    prog = Progress(TextFile(text), "p.md")
    prog.read_all_bullets()
    entries = [e for part in [*prog.nodes, *prog.blocks] for e in part.entries]
    assert [(e.key, e.value) for e in entries] == [
        ("Depends on", "none"), ("Options", ""), ("Asked", "D1"), ("DECISIONS", "D1 -> A")]
    for read in entries:
        made = Entry(read.key, read.value, read.line)
        made.children = read.children
        assert {f: getattr(read, f) for f in Entry.__slots__} == \
            {f: getattr(made, f) for f in Entry.__slots__}
    assert entries[1].children == [("A (Recommended)", 9), ("B", 10)]
    assert entries[0].children == ()
    from mdgrill.formats.progress import Option

    for read_option in prog.nodes[0].options:
        made_option = Option(read_option.text, read_option.recommended, read_option.line)
        assert {f: getattr(read_option, f) for f in Option.__slots__} == \
            {f: getattr(made_option, f) for f in Option.__slots__}
    assert [o.recommended for o in prog.nodes[0].options] == [True, False]


NODE_LINES = st.sampled_from([
    "", "- Depends on: D1", "- Depends on: D1, D9", "- depends on: none", "- Depends on: x y",
    "- Spawned by: D2", "- Spawned by: D1, D2", "- Section: s1", "- Investigating: yes",
    "- **Options**: inline", "- Options: A, B", "- Colour: red", "stray text", "> quote",
    "  plain", "#### Sub", "```",
])
OPTION_LINES = st.sampled_from(["  - A (Recommended)", "  - B", "  - C (recommended)", "\t- D",
                                "  > quoted", "  - ", "", "  plain"])


@st.composite
def tree_document(draw: st.DrawFn) -> str:
    """A tree of nodes with options, references and odd lines (what `check_nodes` reads)."""
    tree: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        tree.append(draw(st.sampled_from(["### D1: Who", "### D2: What", "### Notes"])))
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                tree.append(draw(NODE_LINES))
            else:
                tree.append("- Options:")
                tree.extend(draw(st.lists(OPTION_LINES, max_size=6)))
    return "\n".join(["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", *tree,
                      "## Interview Responses", "### Requirements Grill - Round 1",
                      "- Asked: D1"]) + "\n"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(document(), tree_document()))
def test_the_tree_checked_from_its_tokens_says_what_its_entries_say(text: str) -> None:
    # `validate` checks the tree from its lines' tokens without making entries; the
    # language server's path checks each node from its entries: one reading, two extents
    from mdgrill.checks.spec import NodeChecks, check_nodes

    fast = Progress(TextFile(text), "p.md")
    exact = _exact(text)
    exact.read_all_bullets()
    assert sorted(map(repr, check_nodes(fast))) == \
        sorted(map(repr, check_nodes(exact, NodeChecks())))
    # the references the tokens gave, and the entries read later from the kept tokens
    assert [n.references() for n in fast.nodes] == [n.references() for n in exact.nodes]
    assert _parts(fast.nodes) == _parts(exact.nodes)
    assert [[(o.text, o.recommended, o.line) for o in n.options] for n in fast.nodes] == \
        [[(o.text, o.recommended, o.line) for o in n.options] for n in exact.nodes]


LOG_HEADINGS = st.sampled_from([
    "### Requirements Grill - Round 1", "### Requirements Grill - Round 2",
    "### Requirements Grill - Round 2", "### Design Grill - Round 1",
    "### Requirements Grill - Revised", "### Requirements Grill - Reset",
    "### Requirements Grill - Skipped", "### Requirements Grill - Amended",
    "### Requirements Grill - Confirmed", "### Notes", "### Bogus Grill - Round 3",
])
LOG_LINES = st.sampled_from([
    "- Asked: D1, D2", "- Asked: D3", "- asked: D1", "- Facts resolved: none",
    "- Facts resolved: D3 -> a fact", "- Facts resolved: D2: a fact", "- Decisions: none",
    "- Decisions: D1 -> yes", "- Decisions: D2 → no", "- Decisions: D1 -> again",
    "- Decisions: no arrow", "- DECISIONS: D3->x", "- Decisions:", "- Out of scope: none",
    "- Out of scope: D2, D3", "- Domain language: none", "- Frontier after round: D3",
    "- Frontier after round: none", "- Reopened: D1", "- Reopened: D2, D3",
    "- Defaulted: D1, D3", "- Default: D1 -> Option A", "- Default: D3 -> B",
    "- Amended: D1 -> better words", "- Amended: D3 -> fact words", "- Colour: red",
    "- Kept elsewhere: D9", "* Decisions: D2 -> starred", "- **Decisions**: D1 -> bold",
    "  - nested under it", "\t- tabbed nested", "  continuation", "> quoted",
    "stray words", "", " ", "#### Sub", "- Decisions: D1 -> a  ", "-  Asked:  D2 ",
])


@st.composite
def log_document(draw: st.DrawFn) -> str:
    """A log of rounds and transitions as mdgrill writes them, edited by hand: blocks
    reordered, keys repeated or misspelt, nested and stray lines, CRLF."""
    log: list[str] = []
    canonical = ["- Asked: D1, D2", "- Facts resolved: none", "- Decisions: D1 -> yes",
                 "- Decisions: D2 -> no", "- Out of scope: none", "- Domain language: none",
                 "- Frontier after round: D3", ""]
    whole = st.sampled_from([
        ["### Requirements Grill - Skipped", "- Reason: later", "- Defaulted: D1, D3",
         "- Default: D1 -> Option A", "- default: D3 -> B"],
        ["### Requirements Grill - Revised", "- Reopened: D1, D3", "- Next round: 3"],
        ["### Requirements Grill - Reset", "- Interview: req-2", "- Reopened: D2"],
        ["### Requirements Grill - Amended", "- Amended: D1 -> reworded", "- Was: yes"],
    ])
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 3)) == 0:
            log.extend(draw(whole))
            continue
        log.append(draw(LOG_HEADINGS))
        if draw(st.booleans()):
            body = list(canonical)
            for _ in range(draw(st.integers(0, 2))):
                body.insert(draw(st.integers(0, len(body))), draw(LOG_LINES))
            log.extend(body)
        else:
            log.extend(draw(st.lists(LOG_LINES, max_size=8)))
    tree = ["### D1: Who", "- Depends on: none", "### D2: What", "- Depends on: D1",
            "### D3: When", "- Spawned by: D2"]
    front = draw(st.sampled_from([
        ["mdgrill: 1"],
        ["mdgrill: 1", "interview:", "  phase: requirements", "  status: collecting",
         "  round: 2", "  pending: []"],
    ]))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = ["---", *front, "---", "# T", "", "## Design Tree", *tree,
            "## Interview Responses", *log]
    return nl.join(body) + draw(st.sampled_from(["", nl]))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(log_document(), mostly_canonical(), document()))
def test_the_log_checked_from_its_tokens_says_what_its_entries_say(text: str) -> None:
    # `validate` checks the rounds and reads the ledger from the log's line tokens
    # (`read_log_rows`) without making entries; the language server's path reads them
    # from the entries: one reading, two extents
    from mdgrill.checks.spec import NodeChecks, check_blocks
    from mdgrill.checks.spec.entry import check_progress

    try:
        fast = Progress(TextFile(text), "p.md")
        exact = _exact(text)
    except MdgrillError:
        return
    exact.read_all_bullets()
    rows = fast.read_log_rows()
    assert fast.log_rows() is rows
    assert exact.log_rows() is None
    # the rows are the entries' fields, in order; plain only where no line is stray
    assert len(rows) == len(exact.blocks)
    for (bullets, plain), block in zip(rows, exact.blocks, strict=True):
        assert bullets == [(e.key_lower, e.value, e.line) for e in block.entries]
        if plain:
            assert not block.stray
            assert all(not e.children for e in block.entries)
    blocks_said = check_blocks(fast)
    assert sorted(map(repr, blocks_said)) == sorted(map(repr, check_blocks(exact)))
    # and what every round of mdgrill's (one with an Asked line) must be told, shortcut or
    # not: each stray line, each decision without an arrow, each unknown key
    from mdgrill.checks.spec.keys import BLOCK_KEYS_LOWER

    said = {(d.code, d.line) for d in blocks_said}
    for block in exact.blocks:
        if block.kind != "round" or block.phase is None or \
                not any(e.key_lower == "asked" for e in block.entries):
            continue
        for line, _ in block.stray:
            assert ("STRAY_LINE", line + 1) in said
        for e in block.entries:
            if e.key_lower == "decisions" and "->" not in e.value and "→" not in e.value \
                    and e.value.lower() != "none":
                assert ("DECISION_FORMAT", e.line + 1) in said
            if e.key_lower not in BLOCK_KEYS_LOWER["round"]:
                assert ("UNKNOWN_BLOCK_KEY", e.line + 1) in said
    fast_ledger, exact_ledger = ledger_of(fast), read_ledger(exact.blocks)
    assert _ledger_view(fast_ledger) == _ledger_view(exact_ledger)
    assert fast_ledger.defaults == exact_ledger.defaults
    # the whole of validate's checks, token path against entry path
    again = Progress(TextFile(text), "p.md")
    assert list(map(repr, check_progress(again))) == \
        list(map(repr, check_progress(_exact(text), NodeChecks())))
    # the blocks' entries, made later from the kept tokens, are the ones the text gives
    assert _parts(fast.blocks) == _parts(exact.blocks)
