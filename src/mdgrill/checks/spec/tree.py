"""The design tree and the ledger: node structure, references, cycles, settled decisions."""

from __future__ import annotations

from itertools import product

from mdgrill.checks.spec.front import key_line
from mdgrill.checks.spec.keys import MAX_OPTIONS, MIN_OPTIONS, NODE_KEYS, NODE_KEYS_LOWER
from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.formats.progress import Node, Progress, split_ids
from mdgrill.formats.schema import TERMINAL, is_id
from mdgrill.model.tree import prerequisites, unexplained

# names for annotations only; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# ---------------------------------------------------------------------------------------
# Design tree nodes


class NodeChecks:
    """What `check_nodes` said of each node of one file, for its next version (the language
    server's revalidation): a node of the same text on the same line, whose text names no ID
    that became a node or stopped being one, gets the same diagnostics and references
    without being checked again."""

    __slots__ = ("ids", "found")

    def __init__(self) -> None:
        self.ids: frozenset[str] = frozenset()
        # (path, node text, line) -> its diagnostics and its references (`Node.references`)
        self.found: dict[tuple[str, str, int],
                         tuple[list[Diagnostic], tuple[tuple[str, ...], str | None]]] = {}


def check_nodes(prog: Progress, memo: NodeChecks | None = None) -> list[Diagnostic]:
    """Every node's keys, references and options; duplicate IDs; loops. Each node is checked
    from its lines' tokens (`_check_tree`). `memo`: what was said of an earlier version's
    nodes (kept there for the next, only for this version's): a node found in it is not
    checked again, and one that is not is checked alone, from its own lines' tokens."""
    path = prog.path
    out: list[Diagnostic] = []
    nodes = prog.nodes
    first_of: dict[str, Node] = {}
    for node in nodes:
        first = first_of.get(node.id)
        if first is not None:
            out.append(error(path, node.line + 1, "DUPLICATE_ID",
                             f"{node.id} is already a node at line {first.line + 1}: IDs are "
                             "unique and stable; give this node a new ID"))
        else:
            first_of[node.id] = node
    for sec in prog.node_headings_without_id():
        out.append(warning(path, sec.heading_line + 1, "NODE_HEADING",
                           f"`### {sec.title}` under Design Tree is not a node heading: write "
                           "`### <ID>: <question>` (IDs like D1 or auth.users)"))
    if memo is None:
        # the tree's lines tokenized a run of nodes at a time (each run's let go before the
        # next is read), each node checked from its slice of its run's
        for said in prog.read_runs(nodes, lambda tokens, base, run:
                                   _check_tree(path, run, tokens, base, first_of)):
            out.extend(said)
    else:
        out.extend(_check_tree_again(prog, nodes, first_of, memo))
    out.extend(_asked_without_options(prog))
    out.extend(_cycles(path, nodes, first_of))
    return out


def _check_tree_again(prog: Progress, nodes: list[Node], known: dict[str, Node],
                      memo: NodeChecks) -> list[Diagnostic]:
    """`_check_tree` of every node, taking from `memo` what was said of a node of the same
    text on the same line, unless its text names an ID that became a node or stopped being
    one since (what is said of a node is a function of its text, its line and which of the
    IDs it names are nodes; an ID it names is in its text). The others are checked one by
    one, each from the tokens of its own lines, which are the tree's tokens of those lines
    (a line's token does not depend on the lines around it): typing in one node of a
    thousand tokenizes that node alone, and typing an ID checks again the nodes that name
    it."""
    path = prog.path
    ids = frozenset(known)
    found = memo.found
    changed = ids ^ memo.ids
    if len(changed) > _CHANGED_IDS:  # a tree renamed, opened or hidden by a fence
        found = {}
    kept: dict[tuple[str, str, int],
               tuple[list[Diagnostic], tuple[tuple[str, ...], str | None]]] = {}
    text = prog.tf.text
    out: list[Diagnostic] = []
    for node in nodes:
        own = text[node.offset:node.stop]
        key = (path, own, node.line)
        said = found.get(key)
        if said is not None and changed and any(name in own for name in changed):
            said = None
        if said is None:
            # a run of one: its lines tokenized as `validate`'s runs tokenize them
            said = (prog.read_runs([node], lambda tokens, base, run:
                                   _check_tree(path, run, tokens, base, known))[0],
                    node.references())
        else:
            node.set_references(said[1])
        kept[key] = said
        out.extend(said[0])
    memo.ids, memo.found = ids, kept
    return out


# Above this many IDs gained or lost since the last version, every node is checked again
# (each would look for each of them in its text).
_CHANGED_IDS = 8


def _asked_without_options(prog: Progress) -> list[Diagnostic]:
    """A pending decision whose node has no `Options:` at all: it was asked as no choice
    (the framework's `options[2..4]`); a wrong count under `Options:` is `NODE_OPTIONS`.
    One with options but no rationale or no tradeoff is `NODE_RATIONALE_MISSING` /
    `NODE_TRADEOFF_MISSING` ("State the recommendation rationale and the material tradeoff
    in the question or option description")."""
    iv = prog.data.get("interview")
    pending = iv.get("pending") if isinstance(iv, dict) else None
    if not isinstance(pending, list) or not pending:
        return []
    out: list[Diagnostic] = []
    for node_id in dict.fromkeys(str(i) for i in pending):
        node = prog.node(node_id)
        if node is None:
            continue
        if node.options:
            out.extend(warning(prog.path, node.line + 1, code, message)
                       for code, message in unexplained(node))
            continue
        if any(e.key.lower() == "options" for e in node.entries):
            continue
        out.append(warning(prog.path, node.line + 1, "NODE_OPTIONS_REQUIRED",
                           f"{node_id} is pending but its node has no options: a question "
                           f"offers {MIN_OPTIONS} to {MAX_OPTIONS} (`- Options:` with nested "
                           "`  - ` bullets, the recommended one first)"))
    return out


def _check_tree(path: str, nodes: Sequence[Node],  # noqa: C901 - a branch per kind of line
                tokens: list[tuple[str, str, str]], base: int,
                known: dict[str, Node]) -> list[Diagnostic]:
    """What is said of each node's keys, references and options, read from the line tokens
    of the tree (`tokens`, the first of which is line `base`; each node's lines a slice of
    them, as `read_parts` reads them into entries), without making an entry or an option:
    a 10,000-node tree is checked at a tuple a line. The one check of a node, for
    `validate` and the language server alike. Each node learns its references
    (`Node.set_references`) as its entries would give them, for the loop search and the
    frontier; its entries are made only if something asks for them."""
    out: list[Diagnostic] = []
    kinds = _KEY_KINDS
    for node in nodes:
        first = node.line + 1
        at = first - base
        if at < 0:
            first, at = base, 0
        current = False  # an entry is open: an indented line below it is its nested line
        listing = False  # the open entry is an `Options:` one: its nested lines are options
        depends: tuple[str, ...] | None = None  # the IDs of its first `Depends on` entry
        spawned: tuple[str, ...] | None = None  # and of its first `Spawned by`
        # the lines of the node's options, and of those marked `(Recommended)`: the mark is
        # looked for in the whole line, which holds it where the option's text does (the
        # text is what follows the line's blanks and bullet, trimmed of blanks, none of them
        # in the mark)
        # (line, inline value) of each `Options:` entry; the three lists made at the first
        # (most nodes have one, and a node without options needs none)
        listed: list[tuple[int, str]] | None = None
        options = marks = _NONE
        for line, (key, value, other) in enumerate(tokens[at:node.end - base], first):
            if key:
                current, listing = True, False
                kind = kinds.get(key)
                if kind is None:
                    kind = _key_kind(key)
                if kind == _PLAIN:
                    continue
                if kind == _UNKNOWN:
                    out.append(warning(path, line + 1, "UNKNOWN_NODE_KEY",
                                       f"`{key}:` is not a node key (known: "
                                       f"{', '.join(NODE_KEYS)}): check the spelling"))
                elif kind == _OPTIONS:
                    listing = True
                    if listed is None:
                        listed, options, marks = [], [], []
                    listed.append((line, value))
                elif value in known and value not in _NONE_WORDS:
                    # a node's ID alone, as most such lines name: what split_ids reads of
                    # it (an ID holds no blank, `,`, `;` or arrow; `none` is no ID there),
                    # one ID of a node, of which nothing is said
                    if kind == _DEPENDS:
                        if depends is None:
                            depends = (value,)
                    elif spawned is None:
                        spawned = (value,)
                else:
                    ids = tuple(split_ids(value.strip()))
                    if kind == _DEPENDS:
                        if depends is None:
                            depends = ids
                        fork = False
                    else:
                        if spawned is None:
                            spawned = ids
                        fork = len(ids) > 1
                    for ref in ids:
                        if ref not in known:  # an ID of no node, or no ID: said below
                            fork = True
                            break
                    if fork:
                        _check_refs(path, node, line, ids, known, kind == _SPAWNED, out)
            elif not other or other.isspace():
                continue
            elif current and other[0] in " \t>":
                if listing:
                    options.append(line)
                    # the mark as mostly written, else looked for in any case (a line
                    # without a `(` holds it in none)
                    if "(Recommended)" in other or "(" in other and \
                            "(recommended)" in other.lower():
                        marks.append(line)
            else:
                current = listing = False
        node.set_references((depends or (),
                             spawned[0] if spawned else None))
        if listed is not None and (not MIN_OPTIONS <= len(options) <= MAX_OPTIONS or
                                   marks and (len(marks) > 1 or marks[0] != options[0])):
            # (2 to 4 options, and the one marked, if any, first: `_options_said` would
            # say nothing)
            _options_said(path, node, options, marks, listed, out)
    return out


# What `_check_tree` does with a key: nothing (a node key it reads no further), warn (not a
# node key), or read its IDs or its options. Keys as written, each read once (bounded: a
# file of made-up keys cannot grow it).
_PLAIN, _UNKNOWN, _DEPENDS, _SPAWNED, _OPTIONS = range(5)
_NONE: list[int] = []  # a node's lists before its first `Options:` entry (never added to)
# `none` in every case: an ID of that name is read by split_ids as no ID at all
_NONE_WORDS = frozenset(map("".join, product(*zip("none", "NONE", strict=True))))
_KEY_KINDS: dict[str, int] = {}


def _key_kind(key: str) -> int:
    low = key.lower()
    kind = _UNKNOWN if low not in NODE_KEYS_LOWER else \
        {"depends on": _DEPENDS, "spawned by": _SPAWNED, "options": _OPTIONS}.get(low, _PLAIN)
    if len(_KEY_KINDS) < 512:
        _KEY_KINDS[key] = kind
    return kind


def _options_said(path: str, node: Node, options: list[int], marks: list[int],
                  listed: list[tuple[int, str]], out: list[Diagnostic]) -> None:
    """What is said of a node's options (the lines of each, and of those marked
    `(Recommended)`), once for each of its `Options:` entries (line, inline value as its
    line's token holds it)."""
    count = len(options)
    for line, inline in listed:
        if not MIN_OPTIONS <= count <= MAX_OPTIONS:
            how = " (write them as nested `  - ` bullets)" if inline.strip() and not options \
                else ""
            out.append(error(path, line + 1, "NODE_OPTIONS",
                             f"{node.id} has {count} option(s){how}: a node offers "
                             f"{MIN_OPTIONS} to {MAX_OPTIONS} options"))
        if len(marks) > 1:
            out.append(error(path, marks[1] + 1, "NODE_RECOMMENDED",
                             f"{node.id} marks {len(marks)} options `(Recommended)`: keep the "
                             "mark on one option only"))
        elif marks and marks[0] != options[0]:
            out.append(error(path, marks[0] + 1, "NODE_RECOMMENDED",
                             f"{node.id}'s `(Recommended)` option is not listed first: move "
                             "it to the top of the options"))


def _check_refs(path: str, node: Node, line: int, ids: Sequence[str], known: dict[str, Node],
                spawned: bool, out: list[Diagnostic]) -> None:
    """What is said of the IDs of one `Depends on` or `Spawned by` entry."""
    if spawned and len(ids) > 1:
        out.append(error(path, line + 1, "INVALID_REFERENCE",
                         f"{node.id} names {len(ids)} parents in `Spawned by:`: a "
                         "sub-question has one parent"))
    verb = "was spawned by" if spawned else "depends on"
    for ref in ids:
        if ref in known:  # a node's ID, read by the ID pattern: nothing to say
            continue
        if not is_id(ref):
            out.append(error(path, line + 1, "INVALID_REFERENCE",
                             f"{node.id} {verb} `{ref}`, which is not an ID: list IDs "
                             "separated by commas, or `none`"))
        else:
            out.append(error(path, line + 1, "MISSING_REFERENCE",
                             f"{node.id} {verb} {ref}, which does not exist: add a node "
                             f"for {ref} or fix the reference"))


def _upward(known: dict[str, Node]) -> bool:
    """Whether every node waits only on nodes above it (then there is no loop)."""
    place = dict(zip(known, range(len(known)), strict=True))  # made by C, not a frame
    for here, node in enumerate(known.values()):
        depends, parent = node.references()  # what it waits on, without a list made a node
        at = place.get(parent) if parent is not None else None
        if at is not None and at >= here:
            return False
        for ref in depends:
            at = place.get(ref)
            if at is not None and at >= here:
                return False
    return True


def _cycles(path: str, nodes: list[Node], known: dict[str, Node]) -> list[Diagnostic]:
    """Nodes that wait on each other forever (Depends on / Spawned by forming a loop)."""
    # Where each ID first stands: while every node waits only on nodes above it, as a tree
    # written top down does, there is no loop to look for (the file's order is then a
    # topological one), and the search below is not run.
    if _upward(known):
        return []
    edges = {node_id: [r for r in prerequisites(node) if r in known]
             for node_id, node in known.items()}
    indegree = dict.fromkeys(edges, 0)
    for refs in edges.values():
        for ref in refs:
            indegree[ref] += 1
    queue = [n for n, d in indegree.items() if d == 0]
    while queue:
        current = queue.pop()
        for ref in edges[current]:
            indegree[ref] -= 1
            if indegree[ref] == 0:
                queue.append(ref)
    looped = [n.id for n in nodes if indegree.get(n.id, 0) > 0 and known[n.id] is n]
    if not looped:
        return []
    first = known[looped[0]]
    return [error(path, first.line + 1, "DEPENDENCY_CYCLE",
                  f"{', '.join(looped)} depend on each other in a loop, so none of them can "
                  "ever be asked: remove one `Depends on`/`Spawned by` reference")]


# ---------------------------------------------------------------------------------------
# The elicitation ledger


def check_ledger(prog: Progress) -> list[Diagnostic]:
    """Required sections resolved and no open sub-thread: errors once the interview asks
    for approval, warnings while it is still collecting."""
    from mdgrill.model.tree import spec_frontier

    frontier = spec_frontier(prog)
    iv = prog.data.get("interview")
    status = iv.get("status") if isinstance(iv, dict) else None
    bypass = iv.get("bypass_reason") if isinstance(iv, dict) else None
    # A skip or a quick bypass leaves decisions open on purpose (with recorded assumptions).
    strict = status in ("awaiting_confirmation", "complete") and bypass is None
    make = error if strict else warning
    if strict:
        when = f"the interview is {status}: "
    elif status in TERMINAL:
        when = f"the interview was {status} with assumptions; "
    else:
        when = "the interview is still collecting; before approval, "
    out: list[Diagnostic] = []
    path = prog.path
    at = key_line(prog, "required_sections")
    for section in frontier.unresolved_sections:
        out.append(make(path, at, "REQUIRED_SECTION_UNRESOLVED",
                        f"required section `{section}` has no resolved node: {when}ask a "
                        f"decision in `{section}` (a node with `Section: {section}`)"))
    line_of = {n.id: n.line for n in reversed(prog.nodes)} if frontier.open_subthreads else {}
    for parent, children in frontier.open_subthreads.items():
        for child in children:
            out.append(make(path, line_of.get(child, 0) + 1, "OPEN_SUBTHREAD",
                            f"{parent} is resolved but its sub-question {child} is still open: "
                            f"{when}ask {child} (or mark it out of scope)"))
    return out


def ledger_ids(prog: Progress) -> list[str]:
    """The decisions in the order they were settled: E1 is the first, E2 the second…"""
    from mdgrill.model.tree import ledger_of

    return ledger_of(prog).order
