"""One grammar, read at different extents, and one way of checking what it reads.

The parser's depths read what reading the whole body reads: a section's headings scanned
alone, each part's bullets read on first use or all in one pass (`read_all_bullets`), the
last block alone, the frontier without the settled nodes' bullets: the same reading at
different extents, not second readings kept in step.

The checks read one way: `validate` and the language server alike check the design tree
from its lines' tokens (`check_nodes`) and the rounds and the ledger from the log's
(`Progress.read_log_rows`), so there is no second check to hold equal. What is held here
instead: that those tokens give a node the references and a block the bullets its entries
give (the frontier and the ledger read them), and the property the language server needs,
that its memoised revalidation of an edited file (what did not change taken from the last
version: the parse, the ledger, each unchanged node's diagnostics) gives exactly the
diagnostics of a fresh `validate` of the same file, over generated specs (sections
reordered and repeated, fences and comments spanning parts, LF, CRLF, lone CR and mixed
line ends, nested and stray lines, valid and stale log seals) and generated edits.
"""

from __future__ import annotations

from pathlib import Path

from conftest import import_part
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import MdgrillError
from mdgrill.formats.frontmatter import render_entry
from mdgrill.formats.progress import LOG, Block, Node, Progress, read_progress
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


def _fast_and_exact(text: str) -> tuple[Progress, Progress] | None:
    """The file parsed as the checks read it, and once more with every bullet made into an
    entry; None for a text that is no spec at all."""
    try:
        fast = Progress(TextFile(text), "p.md")
        exact = _exact(text)
    except MdgrillError:
        return None
    exact.read_all_bullets()
    return fast, exact


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
# lines nested under a bullet, deeper than an option, and lines that stand alone
NESTED_LINES = st.sampled_from(["    - deeper", "\t\t- tabbed deeper", "      text under it",
                                "  - nested", "  > quoted", "   ", "\t"])
STRAY_LINES = st.sampled_from(["stray words", "after a blank", "1. numbered", "+ plus bullet",
                               "-no space", "- : no key", "-", "**bold**", "| a | table |"])


def _tree_lines(draw: st.DrawFn) -> list[str]:
    """A tree's lines: nodes (some IDs repeated, some headings not nodes) with references,
    options, unknown keys, nested and stray lines, and lines before the first node."""
    tree: list[str] = draw(st.lists(st.one_of(STRAY_LINES, NESTED_LINES), max_size=2))
    for _ in range(draw(st.integers(0, 4))):
        tree.append(draw(st.sampled_from(["### D1: Who", "### D2: What", "### D3: When",
                                          "### Notes", "### D1: Who again"])))
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.integers(0, 3))
            if kind == 0:
                tree.append(draw(NODE_LINES))
            elif kind == 1:
                tree.append("- Options:")
                tree.extend(draw(st.lists(OPTION_LINES, max_size=6)))
            else:
                tree.append(draw(NODE_LINES))
                tree.extend(draw(st.lists(st.one_of(NESTED_LINES, STRAY_LINES), max_size=2)))
    return tree


@st.composite
def tree_document(draw: st.DrawFn) -> str:
    """A tree of nodes with options, references and odd lines (what `check_nodes` reads)."""
    return "\n".join(["---", "mdgrill: 1", "---", "# T", "", "## Design Tree",
                      *_tree_lines(draw), "## Interview Responses",
                      "### Requirements Grill - Round 1", "- Asked: D1"]) + "\n"


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
CANONICAL_ROUND = ["- Asked: D1, D2", "- Facts resolved: none", "- Decisions: D1 -> yes",
                   "- Decisions: D2 -> no", "- Out of scope: none", "- Domain language: none",
                   "- Frontier after round: D3", ""]
WHOLE_BLOCKS = st.sampled_from([
    ["### Requirements Grill - Skipped", "- Reason: later", "- Defaulted: D1, D3",
     "- Default: D1 -> Option A", "- default: D3 -> B"],
    ["### Requirements Grill - Revised", "- Reopened: D1, D3", "- Next round: 3"],
    ["### Requirements Grill - Reset", "- Interview: req-2", "- Reopened: D2"],
    ["### Requirements Grill - Amended", "- Amended: D1 -> reworded", "- Was: yes"],
])
TREE = ["### D1: Who", "- Depends on: none", "### D2: What", "- Depends on: D1",
        "### D3: When", "- Spawned by: D2"]
FRONTS = st.sampled_from([
    ["mdgrill: 1"],
    ["mdgrill: 1", "interview:", "  phase: requirements", "  status: collecting",
     "  round: 2", "  pending: []"],
    ["mdgrill: 1", "interview:", "  id: r1", "  phase: requirements", "  status: collecting",
     "  round: 1", "  pending: [D1, D3]"],
])


def _log_lines(draw: st.DrawFn) -> list[str]:
    """A log of rounds and transitions as mdgrill writes them, edited by hand: blocks
    reordered, keys repeated or misspelt, nested and stray lines."""
    log: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 3)) == 0:
            log.extend(draw(WHOLE_BLOCKS))
            continue
        log.append(draw(LOG_HEADINGS))
        if draw(st.booleans()):
            body = list(CANONICAL_ROUND)
            for _ in range(draw(st.integers(0, 2))):
                body.insert(draw(st.integers(0, len(body))),
                            draw(st.one_of(LOG_LINES, NESTED_LINES, STRAY_LINES)))
            log.extend(body)
        else:
            log.extend(draw(st.lists(LOG_LINES, max_size=8)))
    return log


@st.composite
def log_document(draw: st.DrawFn) -> str:
    """A log (`_log_lines`) under a fixed tree, CRLF or LF."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = ["---", *draw(FRONTS), "---", "# T", "", "## Design Tree", *TREE,
            "## Interview Responses", *_log_lines(draw)]
    return nl.join(body) + draw(st.sampled_from(["", nl]))


# lines that open or close a fenced block or an HTML comment: a `###` inside one is text
FENCES = st.sampled_from(["```", "~~~", "````md", "   ```", "```", "<!--", "-->",
                          "<!-- one line -->"])


def sealed(text: str) -> str:
    """`text` with its log sealed as mdgrill seals it (`log: {blocks, sha256}` in the front
    matter, the digest of the normalized log): the seal holds until the log is edited.
    `text` unchanged where it does not read or has no front matter to seal."""
    try:
        prog = Progress(TextFile(text), "p.md")
    except MdgrillError:
        return text
    if prog.fm is None or LOG not in prog.sections:
        return text
    nl = "\r\n" if text.startswith("---\r\n") else "\n"
    if not text.startswith("---" + nl):
        return text
    seal = nl.join(render_entry("log", {"blocks": len(prog.blocks),
                                        "sha256": prog.log_sha256()}))
    out = text[:3 + len(nl)] + seal + nl + text[3 + len(nl):]
    assert Progress(TextFile(out), "p.md").log_seal() is True, out
    return out


@st.composite
def spec_document(draw: st.DrawFn) -> str:
    """A whole spec as a person leaves it after editing by hand: its sections in any order,
    some twice (a second tree, a second log), other sections between; fences and comments
    opened in one part and closed in another (or never); line ends LF, CRLF, a lone CR, or
    a mix; often a valid log seal, sometimes a stale one."""
    sections = [["## Goal", "", "Let customers sign in."],
                ["## Design Tree", "", *_tree_lines(draw)],
                ["## Interview Responses", *_log_lines(draw)]]
    extra = draw(st.sampled_from(["", "tree", "log", "notes"]))
    if extra == "tree":
        sections.append(["## Design Tree", *_tree_lines(draw)])
    elif extra == "log":
        sections.append(["## Interview Responses", *_log_lines(draw)])
    elif extra == "notes":
        sections.append(["## Notes", "### D1: Not a node here", "- Depends on: D9"])
    order = draw(st.permutations(sections))
    body = ["# T", ""] + [line for section in order for line in section]
    for _ in range(draw(st.integers(0, 2)) if draw(st.booleans()) else 0):
        body.insert(draw(st.integers(0, len(body))), draw(FENCES))
    lines = ["---", *draw(FRONTS), "---", *body]
    ends = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    if ends == "mixed":
        text = "".join(line + draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
                       for line in lines)
    else:
        text = ends.join(lines) + draw(st.sampled_from(["", ends]))
    seal = draw(st.sampled_from(["valid", "valid", "stale", "none"]))
    if seal == "valid":
        return sealed(text)
    if seal == "stale":  # a seal of another log: ROUND_EDITED, every block read
        nl = "\r\n" if text.startswith("---\r\n") else "\n"
        return text.replace("mdgrill: 1", nl.join(["mdgrill: 1", "log:", "  blocks: 1",
                                                   "  sha256: " + "0123456789abcdef" * 4]), 1)
    return text


DOCUMENTS = st.one_of(spec_document(), document(), tree_document(), log_document(),
                      mostly_canonical())


@settings(max_examples=400, deadline=None, derandomize=True)
@given(DOCUMENTS)
def test_the_references_the_tree_check_gives_its_nodes_are_their_entries(text: str) -> None:
    # the check of the tree (validate's and the server's) reads the nodes' lines' tokens
    # without making entries and gives each node its references, which the loop search and
    # the frontier read; what the entries, read later from the kept tokens, would give
    from mdgrill.checks.spec import check_nodes

    parsed = _fast_and_exact(text)
    if parsed is None:
        return
    fast, exact = parsed
    check_nodes(fast)
    assert [n.references() for n in fast.nodes] == [n.references() for n in exact.nodes]
    assert _parts(fast.nodes) == _parts(exact.nodes)
    assert [[(o.text, o.recommended, o.line) for o in n.options] for n in fast.nodes] == \
        [[(o.text, o.recommended, o.line) for o in n.options] for n in exact.nodes]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.one_of(log_document(), mostly_canonical(), document(), spec_document()))
def test_the_log_rows_are_its_entries_and_every_round_is_told_its_faults(text: str) -> None:
    # the round checks and the ledger read the log's bullets as rows of its line tokens
    # (`read_log_rows`): the fields its entries get; the ledger read from them is the one
    # its entries give; and the shortcut for a round as mdgrill writes it still tells
    # every round of mdgrill's each stray line, each decision without an arrow, each
    # unknown key
    from mdgrill.checks.spec import check_blocks
    from mdgrill.checks.spec.keys import BLOCK_KEYS_LOWER

    parsed = _fast_and_exact(text)
    if parsed is None:
        return
    fast, exact = parsed
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
    said = {(d.code, d.line) for d in check_blocks(fast)}
    if fast.log_seal() is not True:  # a sealed log is trusted for its bullets
        for block in exact.blocks:
            if block.kind != "round" or block.phase is None or \
                    not any(e.key_lower == "asked" for e in block.entries):
                continue
            for line, _ in block.stray:
                assert ("STRAY_LINE", line + 1) in said
            for e in block.entries:
                if e.key_lower == "decisions" and "->" not in e.value and \
                        "→" not in e.value and e.value.lower() != "none":
                    assert ("DECISION_FORMAT", e.line + 1) in said
                if e.key_lower not in BLOCK_KEYS_LOWER["round"]:
                    assert ("UNKNOWN_BLOCK_KEY", e.line + 1) in said
    fast_ledger, exact_ledger = ledger_of(fast), read_ledger(exact.blocks)
    assert _ledger_view(fast_ledger) == _ledger_view(exact_ledger)
    assert fast_ledger.defaults == exact_ledger.defaults
    # the blocks' entries, made later from the text, are the ones a whole reading gives
    assert _parts(fast.blocks) == _parts(exact.blocks)


# What a person types or pastes into a spec: a key, a line end of each kind, whole lines of
# each kind, the marks that open a heading, a fence or a comment.
TYPED = [
    "x", " ", "\n", "\r\n", "\r", "#", "-", ":", "D", "1", "`", "~",
    "### D3: Another question\n", "### D1: Duplicate\n", "- Depends on: D2\n",
    "- Depends on: D99\n", "- Spawned by: D1, D2\n", "- Options:\n", "  - Yes (Recommended)\n",
    "  - No (Recommended)\n", "    - deeper\n", "- Unknown: u\n", "stray words\n",
    "## Design Tree\n", "## Interview Responses\n", "### Requirements Grill - Round 2\n",
    "- Asked: D1\n", "- Decisions: D1 -> yes\n", "- Decisions: no arrow\n", "```\n", "~~~\n",
    "<!--\n", "-->\n",
]


@st.composite
def edit(draw: st.DrawFn) -> tuple[float, int, str]:
    """Where (a fraction of the text), how many characters go, what comes in."""
    return (draw(st.floats(0, 1)), draw(st.integers(0, 3)) ** 2,
            "".join(draw(st.lists(st.sampled_from(TYPED), max_size=3))))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(DOCUMENTS, st.lists(edit(), min_size=1, max_size=6))
def test_the_servers_revalidation_of_an_edited_file_is_a_fresh_validate_of_it(
        text: str, edits: list[tuple[float, int, str]]) -> None:
    # The property the language server needs: after each edit, its revalidation from the
    # last version's parse (what did not change taken from it: the front matter, the
    # ledger of an unchanged log, each unchanged node's diagnostics from the memo) says
    # exactly what a fresh `validate` of the same bytes says (codes, lines, columns,
    # messages, order). Validate and the server read the tree and the log one way (the
    # line tokens); this holds what the server does not read again to what it would read.
    import_part("pygls", "the LSP server is the `lsp` extra (pip install -e '.[dev]' installs it)")
    from mdgrill.checks.spec import NodeChecks, validate_progress_bytes
    from mdgrill.integrations.lsp import revalidate

    memo = NodeChecks()
    data = text.encode("utf-8")
    found, earlier = revalidate(data, "p.md", None, memo)
    assert found == validate_progress_bytes(data, "p.md")
    for where, deleted, inserted in edits:
        at = int(where * len(text))
        text = text[:at] + inserted + text[at + deleted:]
        data = text.encode("utf-8")
        found, earlier = revalidate(data, "p.md", earlier, memo)
        assert list(map(repr, found)) == list(map(repr, validate_progress_bytes(data, "p.md")))
