"""`Progress`: one parsed `.progress.md`, read in two depths (headings first; nodes, block
entries and the log's hash when asked for)."""

from __future__ import annotations

from hashlib import sha256
from operator import itemgetter

from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.markdown import (
    Heading,
    Section,
    h3_heads,
    h3_lines,
    h3_zip,
    heading_text,
    is_plain,
    last_heading,
    refuse_conflict,
    scan_headings,
    sections,
)
from mdgrill.formats.progress.blocks import (
    BulletRow,
    bullet_rows,
    classify_block,
    lf_line_ends,
    line_tokens,
    make_blocks,
    normalize_log,
    read_bullets,
    read_parts,
)
from mdgrill.formats.progress.lines import (
    KNOWN_SECTIONS,
    LOG,
    TREE,
    UNREAD_STRAY,
    Block,
    Entry,
    Node,
    node_id_column,
    node_words,
    section_key,
)
from mdgrill.formats.textfile import TextFile

# names for annotations only, one module fewer a verb loads; type checkers treat this name
# as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import TypeVar

    PartT = TypeVar("PartT", bound=Block | Node)
    Said = TypeVar("Said")


# How many blocks or nodes `read_runs` tokenizes at a time: few calls, and a run's tokens
# (~600 lines, ~100 KB) stay in the processor's cache (CPU time on a 10,000-round log, in
# turns with one pass: 64 blocks 0.88-0.91 of it, 128 0.91-0.94, 512 no gain)
_RUN = 64
_TITLE = itemgetter(0)  # a part's title
# How many of the tree's parts are made one by one, their lines counted from the one before,
# before the tree's parts are read whole (each costs a call, where reading them all costs a
# `map` step each: a frontier of thousands of open nodes reads them whole)
_ONE_BY_ONE = 64


class Progress:
    """A parsed `.progress.md`: front matter data, headings, sections, blocks, nodes.

    One grammar, read in depths: construction reads the front matter and the H1/H2
    skeleton; a section's `###` parts (the log's blocks, the tree's nodes) are read from its
    headings on first use, and each part reads its bullets (`read_bullets`) when first asked
    for them, so a verb that appends to the last block of a 10,000-round log reads one
    block's lines, and a check of every block reads each once.
    """

    def __init__(self, tf: TextFile, path: str,
                 front: frontmatter_io.FrontMatter | None = None) -> None:
        """`front`: the text's front matter, already split and loaded from this `tf` (a
        write's check made it), so it is not parsed twice."""
        self.tf = tf
        self.path = path
        refuse_conflict(tf.text, path)  # before the front matter: its YAML error would mislead
        if front is not None:
            self.fm: frontmatter_io.FrontMatter | None = front
        else:
            self.fm = frontmatter_io.split(tf, path)
            if self.fm is not None:
                frontmatter_io.load(tf, self.fm, path)
        self.data: dict[str, object] = self.fm.data if self.fm is not None else {}
        body_offset = self.fm.end_offset if self.fm is not None else 0
        body_line = self.fm.body_start if self.fm is not None else 0
        self.body_offset = body_offset
        self.body_line = body_line
        # no fence, comment or indented `#` in the body: every section may take the fast scans
        self.plain = is_plain(tf.text, body_offset)
        self.skeleton: list[Heading] = scan_headings(tf.text, body_offset, body_line,
                                                     top_only=True, plain=self.plain)
        last = self.skeleton[-1] if self.skeleton else None  # count only the lines after it
        self.total_lines = (last.line + tf.text.count("\n", last.offset) if last is not None
                            else body_line + tf.text.count("\n", body_offset)) + 1
        self.title: Heading | None = next((h for h in self.skeleton if h.level == 1), None)
        self.sections: dict[str, Section] = {}
        self.duplicate_sections: list[Section] = []
        for sec in sections(self.skeleton, 2, self.total_lines, (body_line, self.total_lines)):
            key = section_key(sec.title)
            if key in KNOWN_SECTIONS:
                if key in self.sections:
                    self.duplicate_sections.append(sec)
                else:
                    self.sections[key] = sec
        self._headings: list[Heading] | None = None
        self._blocks: list[Block] | None = None
        self._nodes: list[Node] | None = None
        self._parts: dict[str, list[tuple[str, int, int, int, int]]] = {}
        # a plain section's `###` titles and where they start (`h3_heads`), read before its
        # parts when a verb wants the titles alone (the tree's IDs): its parts add the lines
        self._heads: dict[str, tuple[list[str], list[int]]] = {}
        self._lines: list[str] | None = None
        self._log_hash: object = None
        self._log_text: str | None = None
        self._read_part = part_reader(tf.text)
        self._log_rows: list[tuple[list[BulletRow], bool]] | None = None
        # the node index: the tree's `###` titles read as node headings, the nodes' IDs and
        # parts, the nodes made one by one (by their place among the nodes), by ID
        self._column: list[str | None] | None = None
        self._every_title_a_node = False  # (set with the column) no None in it
        self._ids: list[str] | None = None
        self._places: list[int] | None = None
        self._made: dict[int, Node] = {}
        # nodes made one by one from the tree's headings: how many, and the last line end
        # counted (where a part after it starts, and its line)
        self._counted = 0
        self._line_at: tuple[int, int] | None = None
        self._node_index: dict[str, int] | None = None
        self._probed = False  # whether `node` looked for an ID in the tree's text

    def section_of(self, title: str) -> Section:
        """The known section a `##` heading with this title stands for."""
        return self.sections[section_key(title)]

    @property
    def headings(self) -> list[Heading]:
        """Every ATX heading of the body (scanned on first use)."""
        if self._headings is None:
            self._headings = scan_headings(self.tf.text, self.body_offset, self.body_line,
                                           plain=self.plain)
        return self._headings

    # -- lines ------------------------------------------------------------------------

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.tf.lines
        return self._lines

    # -- the log ------------------------------------------------------------------------

    def log_span(self) -> tuple[int, int] | None:
        """Character offsets [start, end) of the `## Interview Responses` content."""
        sec = self.sections.get(LOG)
        if sec is None:
            return None
        return self._section_offsets(sec)

    def section_offsets(self, sec: Section) -> tuple[int, int]:
        """Character offsets [start, end) of a section's content (after its heading line)."""
        return self._section_offsets(sec)

    def _section_offsets(self, sec: Section) -> tuple[int, int]:
        text = self.tf.text
        head = next(h for h in self.skeleton if h.line == sec.heading_line)
        start = text.find("\n", head.offset)
        start = len(text) if start < 0 else start + 1
        end = len(text)
        for h in self.skeleton:
            if h.line >= sec.end:
                end = h.offset
                break
        return start, end

    def log_hasher(self) -> object:
        """A sha256 object fed the normalized log (computed once, copied by its users)."""
        if self._log_hash is None:
            bounds = self._log_bounds()
            view = self.tf.ascii_bytes(*bounds) if bounds is not None else None
            # the file's own bytes when they are the normalized log: no 5 MB copies to hash
            self._log_hash = sha256(view if view is not None
                                    else self.log_text().encode("utf-8"))
        return self._log_hash

    def log_seal(self) -> bool | None:
        """Whether the log matches the digest sealed in the front matter (None: no seal)."""
        log = self.data.get("log")
        sealed = log.get("sha256") if isinstance(log, dict) else None
        if not isinstance(sealed, str):
            return None
        return self.log_sha256() == sealed

    def log_edited_line(self) -> int:
        """1-based line to point at when the sealed log was edited (its section heading)."""
        sec = self.sections.get(LOG)
        return sec.heading_line + 1 if sec is not None else 1

    def log_sha256(self) -> str:
        return self.log_hasher().copy().hexdigest()  # type: ignore[attr-defined,no-any-return]

    def log_text(self) -> str:
        """The log as hashed (normalize_log of its section; computed once)."""
        if self._log_text is None:
            self._log_text = self._normalized_log()
        return self._log_text

    def _normalized_log(self) -> str:
        bounds = self._log_bounds()
        if bounds is not None:
            return self.tf.text[bounds[0]:bounds[1]]
        span = self.log_span()
        return "" if span is None else normalize_log(self.tf.text[span[0]:span[1]])

    def _log_bounds(self) -> tuple[int, int] | None:
        """Where the normalized log lies in the text when it is a plain slice of it (the log
        has no CR: normalize_log would only trim it); None otherwise."""
        span = self.log_span()
        if span is None:
            return None
        text = self.tf.text
        start, end = span
        if text.find("\r", start, end) >= 0:
            return None
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        return start, end

    def digest_after_append(self, tf: TextFile, span: tuple[int, int]) -> str | None:
        """The digest of the log at `span` in `tf`, a later version of this file (a spliced
        one read from its parts, never made whole), hashing only what follows this log
        there. None unless that log begins with this one's (compared, not assumed) and this
        one has no CR (then hash the whole log)."""
        old_span, bounds = self.log_span(), self._log_bounds()
        if old_span is None or bounds is None or bounds[0] == bounds[1]:
            return None
        start, end = span
        at = start + bounds[0] - old_span[0]  # past the same leading blank lines
        after = at + bounds[1] - bounds[0]
        # the old log compared where the new one holds it a piece at a time, not copied out
        # whole first (the log of 10,000 decisions: 1.3 MB of fresh pages, ~2 ms of a verb)
        if after > end or tf.slice(start, at) != self.tf.text[old_span[0]:bounds[0]] or \
                not tf.same_at(at, self.tf.text, *bounds):
            return None
        hasher = self.log_hasher().copy()  # type: ignore[attr-defined]
        hasher.update(lf_line_ends(tf.slice(after, end)).rstrip().encode("utf-8"))
        return str(hasher.hexdigest())

    @property
    def blocks(self) -> list[Block]:
        """The log's blocks, from its headings; each reads its bullets on first use, so a
        check of 10,000 headings does not parse 10,000 blocks."""
        if self._blocks is None:
            self._blocks = make_blocks(self._section_parts(LOG), self._read_part)
        return self._blocks

    def last_block(self) -> Block | None:
        """The last block of the log (only its bullets are read). In a plain body it is
        found from the end of the log, so appending to a 10,000-round log reads one block."""
        sec = self.sections.get(LOG)
        if self._blocks is not None or not self.plain or sec is None:
            blocks = self.blocks
            return blocks[-1] if blocks else None
        text = self.tf.text
        start, end = self._section_offsets(sec)
        at = last_heading(text, start, end, 3)
        if at < 0:
            return None
        eol = text.find("\n", at, end)
        # its line counted back from the end (total_lines is one more than the text's line
        # ends): the last block's lines, not the 3 MB before them
        line = self.total_lines - 1 - text.count("\n", at)
        block = classify_block(heading_text(text[at + 3:end if eol < 0 else eol]), line, sec.end)
        block.offset, block.stop, block._read = at, end, self._read_part
        return block

    def _section_parts(self, key: str) -> list[tuple[str, int, int, int, int]]:
        """The `###` parts of a known section (read once): each part's title, its heading's
        line, the line after its last, where its heading line starts and where it stops."""
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = self._read_parts(key)
        return parts

    def _read_parts(self, key: str) -> list[tuple[str, int, int, int, int]]:
        sec = self.sections.get(key)
        if sec is None:
            return []
        start, end = self._section_offsets(sec)
        read = self._section_heads(key)
        self._heads.pop(key, None)  # the parts hold the titles from now on
        if read is not None:
            # no fence or comment: the `###` lines were read straight into titles; their
            # lines are counted here, the one time any part's line is asked for
            titles, at = read
            return h3_zip(titles, h3_lines(self.tf.text, start, sec.start, at), at, end,
                          sec.end)
        if self._headings is not None:
            heads = [h for h in self._headings if sec.start <= h.line < sec.end]
        else:
            # A section starts outside any fence or comment (its `##` would not be a heading
            # otherwise): scanning it alone reads what the whole body's scan would.
            heads = scan_headings(self.tf.text, start, sec.start, end=end,
                                  plain=True if self.plain else None)
        # as sections(heads, 3, ...) splits them: no `#` or `##` is inside a known section
        parts: list[tuple[str, int, int, int, int]] = []
        append = parts.append
        current: Heading | None = None
        for head in heads:
            if head.level > 3:
                continue
            if current is not None:
                append((current.text, current.line, head.line, current.offset, head.offset))
            current = head
        if current is not None:
            append((current.text, current.line, sec.end, current.offset, end))
        return parts

    def _section_heads(self, key: str) -> tuple[list[str], list[int]] | None:
        """`h3_heads` of a known section (read once), when its `###` lines are read straight
        from the text (a plain body whose headings were not all scanned): its parts' titles
        and where they start, without their lines; None otherwise (its parts are read from
        the headings, `_read_parts`)."""
        heads = self._heads.get(key)
        if heads is None and self._headings is None and self.plain:
            sec = self.sections.get(key)
            if sec is not None:
                heads = self._heads[key] = h3_heads(self.tf.text,
                                                    *self._section_offsets(sec))
        return heads

    def _section_titles(self, key: str) -> list[str]:
        """The titles of a known section's `###` parts, in order (its parts' first field),
        read without their lines where the text allows (`_section_heads`)."""
        parts = self._parts.get(key)
        heads = self._section_heads(key) if parts is None else None
        if heads is not None:
            return heads[0]
        return list(map(_TITLE, self._section_parts(key)))

    def read_all_bullets(self) -> None:
        """Read the bullets of every block and node, in one pass over each section's lines
        (what reading them one by one gives, without a call per part)."""
        self._read_section(LOG, self.blocks)
        self._read_section(TREE, self.nodes)

    def read_log_bullets(self) -> None:
        """`read_all_bullets` for the log alone, in one pass over its lines (what reading
        them block by block gives): for a reader of every block, as the ledger and `validate`
        are (`validate` checks the tree from its lines' tokens, `read_runs`, and its nodes
        read their bullets only when asked)."""
        self._read_section(LOG, self.blocks)

    def read_log_rows(self) -> list[tuple[list[BulletRow], bool]]:
        """`validate`'s reading of the log: each block's bullets as `bullet_rows` gives them
        (key lowered, value, line; and whether its other lines are all blank), in order of
        the blocks, from the log's line tokens (each line read once, a run of `_RUN` blocks
        at a time). The round checks and the ledger read these; a block asked for its
        entries reads them from its lines."""
        rows = self._log_rows
        if rows is None:
            sec = self.sections.get(LOG)
            blocks = self.blocks
            if sec is None or not blocks:
                rows = self._log_rows = []
                return rows
            # The log's lines are tokenized a run of blocks at a time, from the first one's
            # heading line to where the last one stops, and each run's tokens are let go
            # before the next is read: every line is read once, as one pass would read it
            # (a part's lines are a slice of its run's tokens as of the whole log's), but
            # the tuples of one run are what the next run's reuse, where a whole
            # 10,000-round log's are ~10 MB a `validate` run faults in afresh and drops.
            # (The few blocks asked for their entries read them from their own text.)
            rows = []
            for found in self.read_runs(blocks, bullet_rows):
                rows += found
            self._log_rows = rows
        return rows

    def log_rows(self) -> list[tuple[list[BulletRow], bool]] | None:
        """What `read_log_rows` read, if it was asked to (None: the blocks' entries are the
        reading)."""
        return self._log_rows

    def read_runs(self, parts: Sequence[PartT],
                  read: Callable[[list[tuple[str, str, str]], int, Sequence[PartT]], Said]
                  ) -> list[Said]:
        """`read(tokens, line, run)` of `parts` (blocks or nodes of this text, in order) a run
        of `_RUN` at a time, the tokens being the lines' from the run's first heading line
        (`line`) to where its last part stops. Each line is read once, as one pass over the
        section would read it (a line's token does not depend on the lines around it), and
        each run's tokens are let go before the next is read: they are what the next run's
        reuse in the processor's cache, where a whole 10,000-part section's are ~10 MB
        faulted in afresh and dropped (`read_log_rows`, `validate`'s tree check, the
        settled set)."""
        text = self.tf.text
        size = _RUN
        said: list[Said] = []
        for at in range(0, len(parts), size):
            run = parts[at:at + size]
            first, last = run[0], run[-1]
            said.append(read(line_tokens(text, first.offset, last.stop), first.line, run))
        return said

    def _read_section(self, key: str, parts: Sequence[Block | Node]) -> None:
        sec = self.sections.get(key)
        unread = [part for part in parts if part._entries is None]
        if sec is None or not unread:
            return
        # straight into the slots: nothing was worked out from entries never read. A run of
        # parts at a time, as `read_log_rows` reads the log: from the first one's heading
        # line to where the last one stops, each line read once
        self.read_runs(unread, read_parts)

    def reuse_bullets(self, earlier: Progress) -> int:
        """Take from `earlier` (a parse of an earlier version of the same text) what did not
        change in the log and the tree: a section whose text is the same keeps its parts
        (their headings, moved with it), and every block and node whose text, heading line
        included, is the same takes the bullets read there, moved by the lines it moved. A
        part is a function of its text and its first line, so this takes what reading would
        give (the language server's revalidation: a keystroke changes one part of a
        thousand). The few parts left are read one by one. Returns how many were taken."""
        taken = 0
        for key in (LOG, TREE):
            moved = self.section_moved(earlier, key)
            prior = earlier._parts.get(key)
            if moved is not None and prior is not None and key not in self._parts:
                lines, chars = moved
                self._parts[key] = [(title, line + lines, end + lines, offset + chars,
                                     stop + chars)
                                    for title, line, end, offset, stop in prior]
            theirs = earlier._blocks if key == LOG else earlier._nodes
            if theirs:  # else nothing to take, and making this parse's parts costs a scan
                mine: list[Block] | list[Node] = self.blocks if key == LOG else self.nodes
                same = moved is not None and len(mine) == len(theirs)
                taken += _take_bullets(mine, theirs, self.tf.text, earlier.tf.text, same)
        return taken

    def section_moved(self, earlier: Progress, key: str) -> tuple[int, int] | None:
        """(lines, characters) the section `key` moved by since `earlier`, when its text is
        the same there; else None."""
        sec, old = self.sections.get(key), earlier.sections.get(key)
        if sec is None or old is None:
            return None
        start, end = self._section_offsets(sec)
        was, stop = earlier._section_offsets(old)
        if end - start != stop - was or not self.tf.text.startswith(earlier.tf.text[was:stop],
                                                                     start):
            return None
        return sec.start - old.start, start - was

    # -- the design tree -------------------------------------------------------------------

    def _node_column(self) -> list[str | None]:
        """The node ID each `###` part's title in the tree names (None: not a node), as
        NODE_HEADING reads it (`node_id_column`), read once from the titles alone: the node
        index is made of them, and a node is made from its part."""
        column = self._column
        if column is None:
            column, self._every_title_a_node = node_id_column(self._section_titles(TREE))
            self._column = column
        return column

    def _node_ids(self) -> list[str]:
        if self._ids is None:
            column = self._node_column()
            # every part a node (a tree as mdgrill writes it): the column is the IDs
            ids: list[str] = column if self._every_title_a_node else [  # type: ignore[assignment]
                node_id for node_id in column if node_id is not None]
            self._ids = ids
        return self._ids

    def _node_places(self) -> list[int]:
        """Which of the tree's `###` parts is each node."""
        if self._places is None:
            column = self._node_column()
            self._places = list(range(len(column))) if self._every_title_a_node else \
                [i for i, node_id in enumerate(column) if node_id is not None]
        return self._places

    def _make_node(self, place: int) -> Node:
        title, line, end, offset, stop = self._tree_part(place)
        node_id = self._node_column()[place]
        assert node_id is not None
        node = Node(node_id, node_words(title), line, end, offset)
        node.stop, node._read = stop, self._read_part
        return node

    def _tree_part(self, place: int) -> tuple[str, int, int, int, int]:
        """The tree's `place`th part (`_section_parts(TREE)[place]`). While the tree's
        headings are read without their lines (`_section_heads`) and only a few nodes are
        made one by one (a round's open nodes, a reply's node in a 10,000-node tree), its
        lines are counted from the last part made before it, or from the section's start:
        the line ends before it, as `h3_lines` counts them, not every heading's. Past
        `_ONE_BY_ONE` such parts, the tree's parts are read whole."""
        parts = self._parts.get(TREE)
        heads = self._heads.get(TREE) if parts is None else None
        if heads is None or self._counted >= _ONE_BY_ONE:
            return self._section_parts(TREE)[place]
        self._counted += 1
        titles, at = heads
        sec = self.sections[TREE]
        text = self.tf.text
        if self._line_at is None:  # the section's first line, where its content starts
            self._line_at = (self._section_offsets(sec)[0], sec.start)
        offset, known = self._line_at
        if at[place] < offset:
            offset, known = self._section_offsets(sec)[0], sec.start
        line = known + text.count("\n", offset, at[place])
        if place + 1 == len(at):
            return titles[place], line, sec.end, at[place], self._section_offsets(sec)[1]
        end = line + text.count("\n", at[place], at[place + 1])
        self._line_at = (at[place + 1], end)
        return titles[place], line, end, at[place], at[place + 1]

    @property
    def nodes(self) -> list[Node]:
        """The tree's nodes, from its headings; each reads its bullets on first use."""
        if self._nodes is None:
            made, make = self._made, self._make_node
            places = self._node_places()
            self._nodes = [made[i] if i in made else make(place)
                           for i, place in enumerate(places)] if made else \
                self._make_nodes()
        return self._nodes

    def _make_nodes(self) -> list[Node]:
        """`_make_node` of every node, each made field by field as Node.__init__ makes one
        (a frame a node saved: a tree of 10,000 nodes makes them all)."""
        nodes: list[Node] = []
        append = nodes.append
        new = object.__new__
        read = self._read_part
        for (title, line, end, offset, stop), node_id in zip(self._section_parts(TREE),
                                                             self._node_column(), strict=True):
            if node_id is None:
                continue
            node = new(Node)
            node._entries = None
            node._stray = UNREAD_STRAY
            node._read = read
            node.id = node_id
            node.title = title.partition(":")[2].strip()  # node_words(title), its frame saved
            node.line = line
            node.end = end
            node.offset = offset
            node.stop = stop
            node._options = None
            node._refs = None
            append(node)
        return nodes

    def node_at(self, index: int) -> Node:
        """The tree's `index`th node (of `node_ids()`), made on first use: a frontier of
        10,000 settled nodes makes the few open ones. The same object `nodes` holds."""
        if self._nodes is not None:
            return self._nodes[index]
        node = self._made.get(index)
        if node is None:
            node = self._made[index] = self._make_node(self._node_places()[index])
        return node

    def node_headings_without_id(self) -> list[Section]:
        column = self._node_column()
        if self._every_title_a_node:
            return []  # every heading names a node: no part's line is asked for
        return [Section(title, 3, line, line + 1, end)
                for (title, line, end, _, _), node_id in zip(self._section_parts(TREE), column,
                                                             strict=True)
                if node_id is None]

    def node_ids(self) -> list[str]:
        """The tree's node IDs (read from the headings alone)."""
        return list(self._node_ids())

    def node(self, node_id: str) -> Node | None:
        """The first node with this ID (an index built on first use: a status of 1,000
        pending decisions asks for each; only the nodes asked for are made)."""
        if self._node_index is None:
            sec = self.sections.get(TREE)
            if sec is None:
                return None
            if not self._probed:  # once: many IDs asked for are read from the index
                self._probed = True
                if self.tf.text.find(node_id, *self._section_offsets(sec)) < 0:
                    # a heading holds its node's ID: where the tree's text does not, no
                    # heading needs reading (a decision kept outside a 10,000-node tree)
                    return None
            ids = self._node_ids()
            self._node_index = {ids[i]: i for i in range(len(ids) - 1, -1, -1)}
        index = self._node_index.get(node_id)
        return None if index is None else self.node_at(index)


def _take_bullets(mine: Sequence[Block | Node], theirs: Sequence[Block | Node], text: str,
                  old: str, same: bool) -> int:
    """`Progress.reuse_bullets` for one section's parts (`same`: the section did not change,
    so its parts pair up in order); the few parts left unread (the ones an edit changed)
    are read one by one, not by a pass over the whole section."""
    if same:
        pairs: Iterable[tuple[Block | Node, Block | Node | None]] = zip(mine, theirs,
                                                                         strict=True)
    else:
        read: dict[str, Block | Node] = {old[p.offset:p.stop]: p for p in theirs
                                     if p._entries is not None and p.stop >= 0}
        pairs = ((part, read.get(text[part.offset:part.stop])) for part in mine)
    taken = 0
    unread: list[Block | Node] = []
    for part, prior in pairs:
        if prior is None or prior._entries is None or part._entries is not None:
            unread.append(part)
            continue
        moved = part.line - prior.line
        entries = prior._entries
        assert entries is not None
        if moved:
            part._entries = [_moved(e, moved) for e in entries]
            part._stray = [(line + moved, what) for line, what in prior._stray]
        else:
            part._entries, part._stray = entries, prior._stray
        if isinstance(part, Node) and isinstance(prior, Node):
            # the options hold lines: read again where the node moved
            part._options = prior._options if not moved else None
            part._refs = prior._refs
        taken += 1
    if len(unread) * 2 < len(mine):
        for part in unread:
            part.entries  # noqa: B018 - reads its bullets
    return taken


def _moved(entry: Entry, lines: int) -> Entry:
    """A copy of a bullet `lines` further down (its nested lines too)."""
    out = Entry(entry.key, entry.value, entry.line + lines)
    if entry.children:
        out.children = [(what, line + lines) for what, line in entry.children]
    return out


def part_reader(text: str) -> Callable[[Block | Node], None]:
    """What reads the bullets under a block's or a node's heading in `text` when first asked
    (each part's `_read`). It holds the text, not the `Progress`: parts that pointed back at
    their parse made a 10,000-round file a reference cycle of 200,000 objects, freed only
    by the cycle collector (a quarter of `validate`'s time, and a server's memory)."""
    def read(part: Block | Node) -> None:
        body = text.find("\n", part.offset, part.stop) + 1
        if body == 0:  # the heading is the part's only line
            part.entries, part.stray = [], []
            return
        part.entries, part.stray = read_bullets(text, body, part.stop, part.line + 1)
    return read


def read_progress(data: bytes, path: str) -> Progress:
    """Decode and parse; malformed input raises InputError (never a traceback)."""
    from mdgrill.formats.textfile import decode

    return Progress(decode(data, path), path)


def reread_progress(data: bytes, path: str, earlier: Progress) -> Progress:
    """`read_progress` of a later version of the file `earlier` parsed, taking from it what
    did not change: the front matter when its lines are the same (it is a function of them),
    and the bullets of every unchanged block and node (`Progress.reuse_bullets`)."""
    from mdgrill.formats.textfile import decode

    tf = decode(data, path)
    front = earlier.fm
    if front is not None:
        old = earlier.tf.text
        end = front.end_offset
        # the closing fence's line end included: the same lines, read to the same fence
        if not (0 < end <= len(tf.text) and old[end - 1] == "\n" and
                tf.text.startswith(old[:end])):
            front = None
    prog = Progress(tf, path, front)
    prog.reuse_bullets(earlier)
    return prog
