"""`.progress.md` reading and writing: appends leave every earlier byte alone, what is
written reads back as written, and no input makes the reader raise anything but its own error."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import (
    BULLET,
    SUB_BULLET,
    Change,
    Progress,
    apply_change,
    change_splices,
    log_digest,
    read_bullets,
    read_progress,
)
from mdgrill.formats.textfile import TextFile, decode
from mdgrill.model.tree import compute_frontier, read_ledger, spec_frontier
from mdgrill.shell.session import check_loaded

BASE = """---
mdgrill: 1
spec: login
goal: Let users in
phase: start
mode: interactive
required_sections: [users]
interview: null
skills: []
# a user comment
owner: me
---
# Login

## Goal

Let users in

## Notes (mine)

```
## Interview Responses
```

## Design Tree

## Interview Responses
"""

ids = st.from_regex(r"[A-Z][0-9]{1,3}", fullmatch=True)
answers = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                  max_size=30).map(lambda s: " ".join(s.split())).filter(bool)
rounds = st.lists(st.lists(st.tuples(ids, answers), min_size=1, max_size=4), min_size=1,
                  max_size=5)


def with_newline(text: str, crlf: bool, bom: bool) -> bytes:
    data = text.replace("\n", "\r\n") if crlf else text
    return (b"\xef\xbb\xbf" if bom else b"") + data.encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds, st.booleans(), st.booleans())
def test_written_rounds_read_back(model: list[list[tuple[str, str]]], crlf: bool,
                                  bom: bool) -> None:
    data = with_newline(BASE, crlf, bom)
    for number, decisions in enumerate(model, 1):
        prog = read_progress(data, "p")
        change = Change()
        lines = [f"- Asked: {', '.join(d for d, _ in decisions)}"]
        lines += [f"- Decisions: {d} -> {a}" for d, a in decisions]
        change.block(f"### Goal Grill - Round {number}", lines)
        new = apply_change(prog, change)
        tf = prog.tf.with_text(new)
        # every byte before the insertion point is unchanged (after the front matter)
        assert prog.fm is not None
        old_body = prog.tf.text[prog.fm.end_offset:]
        after = Progress(tf, "p")
        assert after.fm is not None
        new_body = new[after.fm.end_offset:]
        assert new_body.startswith(old_body.rstrip("\r\n"))
        check_loaded(after)
        data = tf.encode()
    prog = read_progress(data, "p")
    check_loaded(prog)
    assert prog.tf.bom == bom and (prog.tf.newline == "\r\n") == crlf
    assert "owner: me" in prog.tf.text and "# a user comment" in prog.tf.text
    blocks = prog.blocks
    assert [(b.kind, b.round) for b in blocks] == [("round", i) for i in range(1, len(model) + 1)]
    for block, decisions in zip(blocks, model, strict=True):
        assert [e.value for e in block.get("Decisions")] == [f"{d} -> {a}" for d, a in decisions]
    ledger = read_ledger(blocks)
    final = {d: a for decisions in model for d, a in decisions}
    assert ledger.answers == final
    assert prog.data["log"] == {"blocks": len(model), "sha256": log_digest(prog.log_text())}
    assert prog.sections["interview responses"].heading_line > \
        prog.sections["design tree"].heading_line


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "x"]),
                max_size=6), st.booleans(), st.booleans())
def test_append_after_any_log_ending_seals_the_new_log(ending: list[str], crlf: bool,
                                                        new_block: bool) -> None:
    # the old log's last line may end in spaces, which its digest stripped but the new log
    # keeps: the incremental digest has to feed them (the check after writing caught it)
    body = BASE + "\n### Goal Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> yes"
    text = (body.replace("\n", "\r\n") if crlf else body) + "".join(ending)
    prog = read_progress(text.encode("utf-8"), "p")
    change = Change()
    if new_block:
        change.block("### Goal Grill - Round 2", ["- Asked: D2"])
    else:
        change.append_lines.append("- Facts resolved: none")
    new = apply_change(prog, change)
    after = Progress(prog.tf.with_text(new), "p")
    assert after.log_seal() is True and after.data["log"]["blocks"] == 1 + new_block
    # the write check's shortcut: hash only what follows the old log, once it is shown there
    span = after.log_span()
    assert span is not None
    shortcut = prog.digest_after_append(prog.tf.with_text(new), span)
    assert shortcut in (None, after.log_sha256())
    assert (shortcut is None) == ("\r" in text[text.index("## Interview Responses"):])
    # and read from the old text's splices, as a write checks it, never made whole
    spliced = prog.tf.spliced(change_splices(prog, change))
    assert prog.digest_after_append(spliced, span) == shortcut
    assert spliced._text is None and spliced.text == new
    edited = new.replace("D1 -> yes", "D1 -> yeS")
    assert prog.digest_after_append(prog.tf.with_text(edited), span) is None
    assert log_digest(after.log_text()) == after.data["log"]["sha256"]  # normalizing is idempotent
    assert prog.fm is not None and after.fm is not None
    old_body = text[prog.fm.end_offset:]
    assert after.tf.text[after.fm.end_offset:].startswith(old_body.rstrip(" \t\r\n"))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_only_mdgrill_error(data: bytes) -> None:
    try:
        prog = read_progress(data, "p")
        check_loaded(prog)
    except MdgrillError:
        return


fragments = st.sampled_from([
    "---", "mdgrill: 1", "## Interview Responses", "## Design Tree", "### D1: x",
    "### Goal Grill - Round 1", "### Goal Grill - Confirmed", "- Decisions: D1 -> a",
    "- Options:", "  - a (Recommended)", "```", "~~~", "<!--", "-->", "- Depends on: D2, ",
    "- Spawned by:", "- :", "-", "> quote", "\t- x", "### : no id", "###", "log: {blocks: 1}",
    "interview: {id: x}", "- Asked:", "- Out of scope: none, D1", "\r", "\u2028", "",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(fragments, st.text(max_size=8)), max_size=25))
def test_model_attributes_never_raise(lines: list[str]) -> None:
    text = "\n".join(lines)
    try:
        prog = Progress(TextFile(text), "p")
    except MdgrillError:
        return
    blocks, nodes = prog.blocks, prog.nodes
    for node in nodes:
        assert isinstance(node.depends_on, list) and node.id
        _ = (node.section, node.spawned_by, node.investigating, node.options)
    read_ledger(blocks)
    prog.last_block()
    prog.log_text()


tree_fragments = st.sampled_from([
    "## Design Tree", "## Interview Responses", "### D1: x", "### D2: y", "### D1: again",
    "### D3: z", "### not a node", "- Depends on: D1", "- Depends on: D2, D3",
    "- Spawned by: D1", "- Investigating: a lookup", "- Section: s1", "```", "<!--", "-->",
    "### Requirements Grill - Round 1", "- Decisions: D1 -> a", "- Out of scope: D3",
    "### Requirements Grill - Revised", "- Reopened: D1",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(tree_fragments, max_size=25), st.booleans())
def test_node_index_and_frontier_agree_with_every_node(lines: list[str], sections: bool,
                                                       ) -> None:
    """The node index makes a node only when asked for it (`node`, `node_at`, a frontier's
    open nodes), and what it makes is what `nodes` holds: the same object, the same
    frontier as one computed over every node."""
    text = ("---\nrequired_sections: [s1]\n---\n" if sections else "") + "\n".join(lines)
    try:
        lazy, full = Progress(TextFile(text), "p"), Progress(TextFile(text), "p")
    except MdgrillError:
        return
    for group in (False, True):
        got = spec_frontier(lazy, group)
        want = compute_frontier(full.nodes, read_ledger(full.blocks),
                                [str(s) for s in full.data.get("required_sections") or []]
                                if isinstance(full.data.get("required_sections"), list)
                                else [], group)
        assert (got.to_json(), got.statuses) == (want.to_json(), want.statuses)
    ids = lazy.node_ids()
    assert ids == [n.id for n in full.nodes]
    asked = {i: lazy.node(i) for i in ids}  # made before `nodes` is read
    nodes = lazy.nodes
    for index, node in enumerate(nodes):
        assert lazy.node_at(index) is node
        assert asked[node.id] is next(n for n in nodes if n.id == node.id)
    assert lazy.node("D9") is None
    fresh = Progress(TextFile(text), "p")  # an ID the tree's text lacks, asked first
    assert fresh.node("D9") is None
    assert [fresh.node(i) for i in ids] == [fresh.nodes[ids.index(i)] for i in ids]


def test_user_section_kept_byte_for_byte() -> None:
    data = with_newline(BASE, True, True)
    prog = read_progress(data, "p")
    change = Change()
    change.updates["phase"] = "research"
    change.block("### Research Grill - Round 1", ["- Asked: D1"])
    out = decode(prog.tf.with_text(apply_change(prog, change)).encode(), "p").text
    assert "## Notes (mine)\r\n\r\n```\r\n## Interview Responses\r\n```\r\n" in out
    assert out.count("\n") == out.count("\r\n")
    assert "phase: research\r\n" in out


# The bullet patterns as first written (lazy groups), kept as the reference of the greedy ones
LAZY_BULLET = re.compile(
    r"[-*+][ \t]+(?:\*\*)?([A-Za-z][A-Za-z /_-]*?)(?:\*\*)?[ \t]*:(?:\*\*)?(?:[ \t]+(.*))?\Z")
LAZY_SUB_BULLET = re.compile(r"([ \t]+)[-*+][ \t]+(.*?)[ \t]*\Z")


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="-*+ \t:abAB/_*xé", max_size=24))
def test_greedy_bullet_patterns_read_what_the_lazy_ones_read(line: str) -> None:
    lazy, greedy = LAZY_BULLET.match(line), BULLET.match(line)
    assert (lazy is None) == (greedy is None)
    if lazy is not None and greedy is not None:
        assert lazy.group(1).strip() == greedy.group(1).strip()
        assert (lazy.group(2) or "").strip() == (greedy.group(2) or "").strip()
    lazy_sub, greedy_sub = LAZY_SUB_BULLET.match(line), SUB_BULLET.match(line)
    assert (lazy_sub is None) == (greedy_sub is None)
    if lazy_sub is not None and greedy_sub is not None:
        assert lazy_sub.group(2) == greedy_sub.group(2).rstrip(" \t")


def _bullets_line_by_line(text: str) -> tuple[list[tuple[object, ...]], list[tuple[int, str]]]:
    """The bullets as first read, one line at a time with BULLET and SUB_BULLET: the
    reference the one-pass reading is held to."""
    entries: list[tuple[str, str, int, list[tuple[str, int]]]] = []
    stray: list[tuple[int, str]] = []
    current: list[tuple[str, int]] | None = None
    for number, raw in enumerate(text.split("\n")):
        line = raw[:-1] if raw.endswith("\r") and number < text.count("\n") else raw
        if not line or line.isspace():
            continue
        m = BULLET.match(line)
        if m is not None:
            current = []
            entries.append((m.group(1).strip(), (m.group(2) or "").strip(), number, current))
        elif current is not None and line[0] in " \t>":
            sub = SUB_BULLET.match(line)
            current.append((sub.group(2).rstrip(" \t") if sub else line.strip(), number))
        else:
            current = None
            stray.append((number, line))
    return [tuple(e) for e in entries], stray


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.text(alphabet="-*+ \t:abAB/_*>#é\r\n\u00a0\x0b\x85\u2028", max_size=60))
@example("- A:")  # an entry with no nested bullet: its children are an empty tuple, not a list
@example("- A: x\n  - y\n\n  - z\n- B:\n")
def test_bullets_read_in_one_pass_as_line_by_line(text: str) -> None:
    entries, stray = read_bullets(text, 0, len(text), 0)
    # children compared as lists: the reader shares one empty tuple where there are none
    assert ([(e.key, e.value, e.line, list(e.children)) for e in entries], stray) == \
        _bullets_line_by_line(text)


def test_blocks_and_nodes_made_field_by_field_have_every_slot_set() -> None:
    """`make_blocks` and the reader make rounds and nodes without their `__init__` (a frame
    each saved on a 10,000-round log): a slot added to the class and forgotten there would be
    unset, an AttributeError on its first read. Every slot of every part a parse makes is set."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "examples" / "specs"
    kinds: set[str] = set()
    parts = 0
    for path in sorted(root.glob("*/.progress.md")):
        prog = read_progress(path.read_bytes(), str(path))
        for part in [*prog.blocks, *prog.nodes]:
            parts += 1
            kinds.add(getattr(part, "kind", "node"))
            for cls in type(part).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    getattr(part, slot)  # raises AttributeError when the maker left it unset
    assert parts > 20
    assert {"round", "node"} <= kinds
