"""`Progress`: one parsed `.progress.md`, read in two depths (headings first; nodes, block
entries and the log's hash when asked for)."""

from __future__ import annotations

from hashlib import sha256

from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.markdown import (
    Heading,
    Section,
    is_plain,
    refuse_conflict,
    scan_headings,
    sections,
)
from mdgrill.formats.markdown import has_markup as markdown_has_markup
from mdgrill.formats.progress.blocks import (
    _BLOCK_FLUSH,
    _H3_ANY,
    _H3_FLUSH,
    _H3_INDENTED,
    _PHASES_SEEN,
    _heading_text,
    _last_h3,
    _phase_of,
    classify_block,
    lf_line_ends,
    normalize_log,
    parse_bullets,
)
from mdgrill.formats.progress.lines import (
    _NODE_ID_H3,
    _NODE_TUPLES,
    KNOWN_SECTIONS,
    LOG,
    NODE_HEADING,
    TREE,
    Block,
    Node,
    NodeInfo,
    section_key,
    split_ids,
)
from mdgrill.formats.textfile import TextFile, split_lines


class Progress:
    """A parsed `.progress.md`: front matter data, headings, sections, blocks, nodes.

    Construction reads the front matter and the H1/H2 skeleton only; every heading, the
    blocks and the nodes are read on first use, so a verb that appends to the last block of
    a 10,000-round log never walks the other 9,999.
    """

    def __init__(self, tf: TextFile, path: str) -> None:
        self.tf = tf
        self.path = path
        refuse_conflict(tf.text, path)  # before the front matter: its YAML error would mislead
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
        self._markup: dict[str, bool] = {}
        self._nodes: list[Node] | None = None
        self._tree_parts: list[Section] | None = None
        self._lines: list[str] | None = None
        self._tree_text: tuple[list[str], int] | None = None
        self._tree_heads: list[Heading] | None = None
        self._index: list[NodeInfo] | None = None
        self._log_hash: object = None
        self._log_text: str | None = None

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

    def digest_after_append(self, text: str, span: tuple[int, int]) -> str | None:
        """The digest of the log at `span` in `text`, a later version of this file, hashing
        only what follows this log there. None unless that log begins with this one's
        (compared, not assumed) and this one has no CR (then hash the whole log)."""
        old_span, bounds = self.log_span(), self._log_bounds()
        norm = self.log_text()
        if old_span is None or bounds is None or not norm:
            return None
        start, end = span
        at = start + bounds[0] - old_span[0]  # past the same leading blank lines
        after = at + len(norm)
        if after > end or text[start:at] != self.tf.text[old_span[0]:bounds[0]] or \
                not text.startswith(norm, at):
            return None
        hasher = self.log_hasher().copy()  # type: ignore[attr-defined]
        hasher.update(lf_line_ends(text[after:end]).rstrip().encode("utf-8"))
        return str(hasher.hexdigest())

    @property
    def blocks(self) -> list[Block]:
        """The log's blocks, the one way to read them.

        The headings are read on first use, by the cheapest scan the body allows (one regex
        pass for a plain body; the exact heading scan when it has fences or comments); each
        block reads its own bullets when they are first asked for, so a check of 10,000
        headings does not parse 10,000 blocks.
        """
        if self._blocks is None:
            self._blocks = self._read_blocks()
        return self._blocks

    def last_block(self) -> Block | None:
        """The last block of the log (found from the end of the log when nothing is read)."""
        if self._blocks is not None or self._headings is not None:
            blocks = self.blocks
            return blocks[-1] if blocks else None
        span = self.log_span()
        if span is None:
            return None
        text = self.tf.text
        start, end = span
        if self.has_markup(LOG):
            self.headings  # noqa: B018 - fences or comments in the log: take the exact path
            return self.last_block()
        at = _last_h3(text, start, end)
        if at < 0:
            return None
        eol = text.find("\n", at)
        eol = end if eol < 0 or eol > end else eol
        title = _heading_text(text[at:eol])
        line = text.count("\n", 0, at)
        block = classify_block(title, line, self.sections[LOG].end)
        block.offset = at
        tail = split_lines(text[at:end])
        block.entries, block.stray = parse_bullets(tail, 1, len(tail), base=line)
        return block

    def has_markup(self, section: str) -> bool:
        """Whether a section holds a fence or an HTML comment (then only the exact scan will do)."""
        found = self._markup.get(section)
        if found is None:
            sec = self.sections.get(section)
            found = False
            if sec is not None and not self.plain:
                found = markdown_has_markup(self.tf.text, *self._section_offsets(sec))
            self._markup[section] = found
        return found

    def _h3_lines(self, section: str) -> list[tuple[int, int, str]]:
        """(offset, 0-based line, title) of each `###` heading of a section without markup."""
        sec = self.sections[section]
        start, end = self._section_offsets(sec)
        text = self.tf.text
        found: list[tuple[int, int, str]] = []
        line = sec.start
        last = start
        count = text.count
        # From the newline before the section's first line; headings indented by 1-3 spaces
        # are rare, and a pattern that allows them runs four times slower.
        scan = _H3_FLUSH if self.plain or _H3_INDENTED.search(text, start - 1, end) is None \
            else _H3_ANY
        for m in scan.finditer(text, start - 1, end):
            pos = m.start() + 1
            line += count("\n", last, pos)
            last = pos
            found.append((pos, line, _heading_text(m.group(1))))
        return found

    def fast_log(self) -> tuple[str, int, int, int] | None:
        """(text, start, end, first line) of the log when regex scanners may read it as text
        (it has no fence or comment), else None."""
        if LOG not in self.sections or self.has_markup(LOG):
            return None
        start, end = self._section_offsets(self.sections[LOG])
        return self.tf.text, start, end, self.sections[LOG].start

    def _read_blocks(self) -> list[Block]:
        sec = self.sections.get(LOG)
        if sec is None:
            return []
        if self._headings is None and self.plain:
            blocks = self._scan_blocks(sec)
        elif self._headings is None and not self.has_markup(LOG):
            heads = self._h3_lines(LOG)
            ends = [line for _, line, _ in heads[1:]] + ([sec.end] if heads else [])
            blocks = []
            for (at, line, title), end in zip(heads, ends, strict=True):
                block = classify_block(title, line, end)
                block.offset = at
                blocks.append(block)
        else:
            offsets = {h.line: h.offset for h in self.headings if h.level == 3}
            subs = sections(self.headings, 3, self.total_lines, (sec.start, sec.end))
            blocks = []
            for sub in subs:
                block = classify_block(sub.title, sub.heading_line, sub.end)
                block.offset = offsets.get(sub.heading_line, -1)
                blocks.append(block)
        for block in blocks:
            block._read = self._read_entries
        return blocks

    def _scan_blocks(self, sec: Section) -> list[Block]:
        """The log's blocks of a plain body, from one regex pass over its `###` lines (the
        round headings split by the pattern itself), with their lines counted between."""
        start, end = self._section_offsets(sec)
        text = self.tf.text
        count = text.count
        seen = _PHASES_SEEN
        blocks: list[Block] = []
        append = blocks.append
        line = sec.start
        last = start
        for m in _BLOCK_FLUSH.finditer(text, start - 1, end):
            at = m.start() + 1
            line += count("\n", last, at)
            last = at
            title, word, number, other = m.groups()
            if title:
                phase = seen.get(word)
                append(Block("round", phase if phase is not None else _phase_of(word),
                             int(number), title, line, sec.end, at))
            else:
                block = classify_block(_heading_text(other), line, sec.end)
                block.offset = at
                append(block)
        for block, after in zip(blocks, blocks[1:], strict=False):
            block.end = after.line
        return blocks

    def _read_entries(self, block: Block) -> None:
        block.entries, block.stray = parse_bullets(self.lines, block.line + 1, block.end)

    # -- the design tree -------------------------------------------------------------------

    @property
    def nodes(self) -> list[Node]:
        if self._nodes is None:
            self._nodes = self._read_nodes()
        return self._nodes

    def node_headings_without_id(self) -> list[Section]:
        sec = self.sections.get(TREE)
        if sec is None:
            return []
        return [s for s in self._tree_sections() if NODE_HEADING.match(s.title) is None]

    def _tree_sections(self) -> list[Section]:
        """The `###` parts of the design tree (read once)."""
        if self._tree_parts is None:
            sec = self.sections[TREE]
            self._tree_parts = sections(self._tree_headings(), 3, self.total_lines,
                                        (sec.start, sec.end))
        return self._tree_parts

    def _tree_headings(self) -> list[Heading]:
        """The headings of the design tree only (not the 10,000 of the log after it)."""
        if self._headings is not None:
            return self._headings
        if self._tree_heads is None:
            self._tree_heads = self._scan_tree_headings()
        return self._tree_heads

    def _scan_tree_headings(self) -> list[Heading]:
        sec = self.sections[TREE]
        head = next(h for h in self.skeleton if h.line == sec.heading_line)
        start, end = self._section_offsets(sec)
        if start >= end:
            return [head]
        return [head] + scan_headings(self.tf.text, start, sec.heading_line + 1, end=end,
                                      plain=True if self.plain else None)

    def _read_nodes(self) -> list[Node]:
        """The tree's nodes from its headings; each reads its bullets on first use."""
        sec = self.sections.get(TREE)
        if sec is None:
            return []
        offsets = {h.line: h.offset for h in self._tree_headings()}
        nodes = []
        for sub in self._tree_sections():
            m = NODE_HEADING.match(sub.title)
            if m is None:
                continue
            node = Node(m.group(1), m.group(2).strip(), sub.heading_line, sub.end,
                        offsets.get(sub.heading_line, -1))
            node._read = self._read_node_entries
            nodes.append(node)
        return nodes

    def _read_node_entries(self, node: Node) -> None:
        lines, base = self._tree_lines()
        node.entries, node.stray = parse_bullets(lines, node.line + 1 - base, node.end - base,
                                                 base)

    def _tree_lines(self) -> tuple[list[str], int]:
        """The lines of the design tree and the line number of the first (split once): the
        tree's own lines, as splitting a 10,000-round log after it would cost more."""
        if self._lines is not None:
            return self._lines, 0
        if self._tree_text is None:
            sec = self.sections[TREE]
            start, end = self._section_offsets(sec)
            self._tree_text = (split_lines(self.tf.text[start:end]), sec.start)
        return self._tree_text

    def node_index(self, with_lines: bool = False) -> list[NodeInfo]:
        """The tree's nodes with only what the frontier needs, read without parsing every line
        (`line` is -1 unless `with_lines`)."""
        if not with_lines:
            if self._index is None:
                self._index = self._read_index(False)
            return self._index
        return self._read_index(True)

    def _read_index(self, with_lines: bool) -> list[NodeInfo]:
        if self.has_markup(TREE) or TREE not in self.sections:
            return [NodeInfo(n.id, n.line, n.section, n.depends_on, n.spawned_by,
                             n.investigating) for n in self.nodes]
        sec = self.sections[TREE]
        start, end = self._section_offsets(sec)
        text = self.tf.text
        nodes: list[NodeInfo] = []
        current: NodeInfo | None = None
        seen: set[str] = set()
        for head, node_id, key, value in _NODE_TUPLES.findall(text, start, end):
            if head:
                current = NodeInfo(node_id, -1) if node_id else None
                seen = set()
                if current is not None:
                    nodes.append(current)
                continue
            if current is None:
                continue
            key = key.lower()
            if key in seen:
                continue  # Node.first(): the first entry with a key wins
            seen.add(key)
            value = value.strip()
            if key == "section":
                current.section = value
            elif key == "depends on":
                current.depends_on = split_ids(value)
            elif key == "spawned by":
                ids = split_ids(value)
                current.spawned_by = ids[0] if ids else None
            else:
                current.investigating = value
        if with_lines:
            lines = [line for line, title in self._tree_h3()
                     if NODE_HEADING.match(title) is not None]
            for node, line in zip(nodes, lines, strict=True):
                node.line = line
        return nodes

    def node_ids(self) -> list[str]:
        """The tree's node IDs, read from the headings alone when the body is plain."""
        sec = self.sections.get(TREE)
        if sec is None:
            return []
        if not self.plain:
            return [n.id for n in self.node_index()]
        start, end = self._section_offsets(sec)
        return _NODE_ID_H3.findall(self.tf.text, start - 1, end)

    def _tree_h3(self) -> list[tuple[int, str]]:
        return [(line, title) for _, line, title in self._h3_lines(TREE)]

    def node(self, node_id: str) -> Node | None:
        return next((n for n in self.nodes if n.id == node_id), None)


def read_progress(data: bytes, path: str) -> Progress:
    """Decode and parse; malformed input raises InputError (never a traceback)."""
    from mdgrill.formats.textfile import decode

    return Progress(decode(data, path), path)
