"""The regex fast paths read exactly what the full parse reads (ledger, node index, blocks)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import Progress, read_progress
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import (
    Ledger,
    compute_frontier,
    frontier_ids,
    ledger_of,
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
    prog.headings  # noqa: B018 - forces the exact scan for every later question
    return prog


def _ledger_view(ledger: object) -> tuple[object, ...]:
    return (ledger.answers, ledger.answer_line, ledger.out_of_scope,  # type: ignore[attr-defined]
            ledger.order, ledger.amended)  # type: ignore[attr-defined]


def _same(text: str) -> None:
    fast, exact = Progress(TextFile(text), "p.md"), _exact(text)
    assert _ledger_view(ledger_of(fast)) == _ledger_view(read_ledger(exact.blocks))
    fast_nodes = [(n.id, n.line, n.section, n.depends_on, n.spawned_by, n.investigating)
                  for n in Progress(TextFile(text), "p.md").node_index(with_lines=True)]
    exact_nodes = [(n.id, n.line, n.section, n.depends_on, n.spawned_by, n.investigating)
                   for n in exact.nodes]
    assert fast_nodes == exact_nodes
    fast_blocks = [(b.kind, b.phase, b.round, b.title, b.line, b.end)
                   for b in Progress(TextFile(text), "p.md").blocks]
    exact_blocks = [(b.kind, b.phase, b.round, b.title, b.line, b.end) for b in exact.blocks]
    assert fast_blocks == exact_blocks
    exact_ledger = read_ledger(exact.blocks)
    settled = settled_of(Progress(TextFile(text), "p.md"))
    assert set(settled.answered) == set(exact_ledger.answers)
    assert settled.out_of_scope == exact_ledger.out_of_scope
    assert Progress(TextFile(text), "p.md").node_ids() == [n.id for n in exact.nodes]
    exact_frontier = compute_frontier(exact.nodes, exact_ledger, required_sections(exact.data))
    assert frontier_ids(Progress(TextFile(text), "p.md")) == exact_frontier.frontier
    last_fast = Progress(TextFile(text), "p.md").last_block()
    last_exact = exact.blocks[-1] if exact.blocks else None
    if last_exact is None:
        assert last_fast is None
    else:
        assert last_fast is not None
        assert (last_fast.kind, last_fast.round, last_fast.line) == \
            (last_exact.kind, last_exact.round, last_exact.line)
        assert [(e.key, e.value, e.line) for e in last_fast.entries] == \
            [(e.key, e.value, e.line) for e in last_exact.entries]


@settings(max_examples=400, deadline=None)
@given(document())
def test_fast_paths_agree_with_the_full_parse(text: str) -> None:
    _same(text)


CANONICAL_LOG = st.one_of(
    st.sampled_from([
        "### Requirements Grill - Round 1", "### Design Grill - Round 2",
        "### Requirements Grill - Confirmed", "### Requirements Grill - Revised", "### Notes",
        "- Out of scope: none", "- Facts resolved: none", "- Decisions: none",
        "- Asked: D1, D2", "", "- Frontier after round: D3", "###x", "#### Sub",
    ]),
    st.builds(lambda key, node_id, rest: f"- {key}: {node_id} -> {rest}",
              st.sampled_from(["Decisions", "Facts resolved"]),
              st.sampled_from(["D1", "D2", "D3", "E1", "auth.users"]),
              st.sampled_from(["yes", "", "a -> b", "none"])),
)
ODD_LINES = st.sampled_from(["- Out of scope: D2", "- Reopened: D1", "* Decisions: D3 -> y",
                             "### Requirements Grill - Revised\n- Reopened: D2",
                             "- decisions: D1 -> n", "- Decisions:D2 -> x", "- Decisions made",
                             "- Amended: D1 -> better words", "* amended: D2 -> z",
                             "### Requirements Grill - Amended\n- Amended: D1 -> w",
                             "- By: D1 -> Alice <a@example.com>"])


@st.composite
def mostly_canonical(draw: st.DrawFn) -> str:
    """Logs in the forms mdgrill writes, sometimes with one other line: the bulk read of the
    settled IDs must take them, and refuse the others."""
    log = draw(st.lists(CANONICAL_LOG, max_size=30))
    if draw(st.booleans()):  # every node answered first: the frontier's shortcut may apply
        log[:0] = ["### Requirements Grill - Round 1", "- Decisions: D1 -> a",
                   "- Decisions: D2 -> b", "- Facts resolved: D3 -> c"]
    if draw(st.booleans()):
        log.insert(draw(st.integers(0, len(log))), draw(ODD_LINES))
    tree = ["### D1: Who", "- Depends on: none", "### D2: What", "- Depends on: D1",
            "### D3: When", "- Spawned by: D2"]
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = ["---", "mdgrill: 1", "---", "# T", "", "## Design Tree", *tree,
            "## Interview Responses", *log]
    return nl.join(body) + nl


@settings(max_examples=400, deadline=None)
@given(mostly_canonical())
def test_bulk_settled_ids_agree_with_the_ledger(text: str) -> None:
    _same(text)


def test_bulk_read_takes_the_canonical_log_and_refuses_the_others() -> None:
    head = "---\nmdgrill: 1\n---\n# T\n\n## Design Tree\n### D1: Who\n\n## Interview Responses\n"
    rounds = ("- Decisions: D0 -> before any block\n### Requirements Grill - Round 1\n"
              "- Asked: D1\n- Facts resolved: D1 -> fact\n- Out of scope: none\n"
              "### Requirements Grill - Confirmed\n- Decisions: D9 -> not in a round\n"
              "### Requirements Grill - Round 2\n- Decisions: D2 -> yes\n")
    bulk = settled_of(Progress(TextFile(head + rounds), "p.md"))
    assert not isinstance(bulk, Ledger) and bulk.answered == {"D1", "D2"}
    for odd in ("- Out of scope: D2\n", "- Reopened: D1\n", "- decisions: D3 -> x\n"):
        assert isinstance(settled_of(Progress(TextFile(head + rounds + odd), "p.md")), Ledger)
    fenced = head + "```\n### Requirements Grill - Round 9\n```\n" + rounds
    assert isinstance(settled_of(Progress(TextFile(fenced), "p.md")), Ledger)


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
