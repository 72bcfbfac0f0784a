"""A text file as mdgrill sees it: decoded once, every byte kept, edited by line ranges.

Bytes are decoded here (not by `open()`), so a BOM and CRLF line ends survive an edit: the
text keeps its own newlines and the BOM is put back on encode. New lines take the file's
dominant newline style.
"""

from __future__ import annotations

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

BOM = "\ufeff"
MAX_FILE_BYTES = 64 * 1024 * 1024
# characters encoded at a time by `pieces` (a buffer the allocator reuses, no fresh pages)
PIECE = 64 * 1024


class TextFile:
    """Decoded text with its newline style and BOM, split into lines that keep their ends.

    A text can also be another text with character ranges replaced (`spliced`): what a
    command writes is its file's text with its front matter rewritten and lines added. That
    text is made whole only when something reads it (`text`); the write streams its pieces
    (`pieces`), the check before the write reads its front matter and its log's new lines
    (`leading`, `slice`, `same_at`), and a CLI process, which writes and ends, never makes
    it: at 10,000 decisions the whole text was two copies of 3.3 MB, ~1,600 fresh pages of
    memory and ~7 ms of a verb."""

    __slots__ = ("_text", "bom", "newline", "raw", "_lines", "_base", "_splices")

    def __init__(self, text: str, bom: bool = False, newline: str | None = None,
                 raw: bytes | None = None) -> None:
        self._text: str | None = text
        self.bom = bom
        self.newline = newline if newline is not None else detect_newline(text)
        self.raw = raw  # the bytes `text` was decoded from (BOM included), when known
        self._lines: list[str] | None = None
        self._base: TextFile | None = None
        self._splices: list[tuple[int, int, str]] = []

    @property
    def text(self) -> str:
        text = self._text
        if text is None:  # spliced: made whole on first read, its parts let go
            base = self._base
            assert base is not None
            text = self._text = apply_splices(base.text, self._splices)
            self._base, self._splices = None, []
        return text

    def spliced(self, splices: list[tuple[int, int, str]]) -> TextFile:
        """This text with the non-overlapping character ranges [start, end) replaced, as
        `apply_splices` makes it, with this text's BOM and newline style; made whole only when
        its `text` is read."""
        new = TextFile.__new__(TextFile)
        new._text, new.bom, new.newline, new.raw, new._lines = None, self.bom, self.newline, \
            None, None
        new._base, new._splices = self, ordered_splices(splices)
        return new

    def ascii_bytes(self, start: int, end: int) -> memoryview | None:
        """The bytes of text[start:end], without a copy, when the text is ASCII (then a
        character is a byte) and was decoded from bytes; else None."""
        if self.raw is None or not self.text.isascii():
            return None
        offset = 3 if self.bom else 0
        return memoryview(self.raw)[offset + start:offset + end]

    @property
    def lines(self) -> list[str]:
        """Lines with their own line end (the last one may have none)."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def encode(self) -> bytes:
        return ((BOM if self.bom else "") + self.text).encode("utf-8")

    def known_ascii(self) -> bool:
        """Whether the text is ASCII, told without making a spliced text whole: of a whole
        text, `text.isascii()` (a flag CPython keeps, free at any size); of a spliced one,
        whether its base and what was put in are (False also when only a replaced range of
        its base held the rest)."""
        base = self._base
        if base is None:
            return self.text.isascii()
        return base.known_ascii() and all(new.isascii() for _, _, new in self._splices)

    def check_encodes(self) -> None:
        """Raise `encode()`'s UnicodeEncodeError (a lone surrogate) if it has one. A text
        decoded from bytes has none; of a spliced one, its base and what was put in."""
        base = self._base
        if base is None:
            if self.raw is None:
                self.text.encode("utf-8")
            return
        base.check_encodes()
        for _, _, new in self._splices:
            new.encode("utf-8")

    def pieces(self, size: int = PIECE) -> Iterator[bytes | memoryview]:
        """`encode()` a piece at a time: their concatenation is its bytes, and the same
        UnicodeEncodeError where it has one (UTF-8 encodes each character on its own, so a
        cut between two characters changes nothing). A write streams these instead of
        making the whole file's bytes beside its text: at 3.3 MB that copy was 800 fresh
        pages of memory, ~2.5 ms of a fresh process. A spliced text's unchanged ranges are
        its base's (`_range_bytes`), what was put in is encoded."""
        if self.bom:
            yield BOM.encode("utf-8")
        base = self._base
        if base is None:
            yield from self._range_bytes(0, len(self.text), size)
            return
        pos = 0
        for lo, hi, new in self._splices:
            yield from base._range_bytes(pos, lo, size)
            if new:
                yield new.encode("utf-8")
            pos = hi
        yield from base._range_bytes(pos, len(base.text), size)

    def _range_bytes(self, start: int, end: int, size: int) -> Iterator[bytes | memoryview]:
        """The bytes of text[start:end], BOM left out: the bytes it was read from where they
        are known and a character is a byte (an ASCII text read from a file: no copy), else
        encoded a piece at a time."""
        if start >= end:
            return
        view = self.ascii_bytes(start, end)
        if view is not None:
            yield view
            return
        text = self.text
        for at in range(start, end, size):
            yield text[at:min(at + size, end)].encode("utf-8")

    def leading(self) -> tuple[str, bool]:
        """A prefix of the text that ends in a line end, or the whole text (then True),
        read without making a spliced text whole: up to the last line end of what its first
        splice put in, when that splice starts the text, else before where it starts."""
        base = self._base
        if base is None or not self._splices:  # (no splice: the text is its base's)
            return (self if base is None else base).text, True
        lo, _, new = self._splices[0]
        lead = new if lo == 0 else base.text[:lo]
        return lead[:lead.rfind("\n") + 1], False

    def slice(self, start: int, end: int) -> str:
        """text[start:end] (0 <= start <= end), made from a spliced text's parts."""
        base = self._base
        if base is None:
            return self.text[start:end]
        out: list[str] = []
        pos = shift = 0  # pos: where in the base; shift: new offset - base offset
        for lo, hi, new in [*self._splices, (len(base.text), len(base.text), "")]:
            # the base's unchanged [pos, lo), at new offsets [pos + shift, lo + shift)
            a, b = max(start, pos + shift), min(end, lo + shift)
            if a < b:
                out.append(base.text[a - shift:b - shift])
            # what was put in, at [lo + shift, lo + shift + len(new))
            a, b = max(start, lo + shift), min(end, lo + shift + len(new))
            if a < b:
                out.append(new[a - lo - shift:b - lo - shift])
            shift += len(new) - (hi - lo)
            pos = hi
        return "".join(out)

    def same_at(self, at: int, source: str, start: int, end: int) -> bool:
        """Whether text[at:at + end - start] == source[start:end], compared a piece of
        `PIECE` characters at a time (a spliced text's pieces made from its parts): no copy
        of a large range is made whole (each piece's memory is the last one's, where a
        whole copy is fresh pages)."""
        for lo in range(start, end, PIECE):
            hi = min(lo + PIECE, end)
            if self.slice(at + lo - start, at + hi - start) != source[lo:hi]:
                return False
        return True

    def with_text(self, text: str) -> TextFile:
        return TextFile(text, self.bom, self.newline)


def decode(data: bytes, path: str = "<input>", limit: int = MAX_FILE_BYTES) -> TextFile:
    """Decode UTF-8 bytes strictly; binary, oversized or undecodable input is refused."""
    from mdgrill.errors import InputError

    if len(data) > limit:
        raise InputError("FILE_TOO_LARGE",
                         f"{path} is {len(data):,} bytes; mdgrill reads files up to "
                         f"{limit:,} bytes: split the file or archive old rounds",
                         path=path)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError("MALFORMED_FILE",
                         f"{path} holds a NUL byte at line {line}: it looks binary, not Markdown",
                         path=path, line=line)
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError("MALFORMED_FILE",
                         f"{path}:{line}:{col}: not valid UTF-8 (byte 0x{data[exc.start]:02x}): "
                         "save the file as UTF-8", path=path, line=line) from None
    return TextFile(text, bom, raw=data)


def detect_newline(text: str) -> str:
    """The dominant line end: CRLF when most lines end in it, else LF."""
    if "\r" not in text:  # the common case, without counting a large file's lines twice
        return "\n"
    lf = text.count("\n")
    if lf == 0:
        return "\n"
    crlf = text.count("\r\n")
    return "\r\n" if crlf * 2 > lf else "\n"


def split_lines(text: str) -> list[str]:
    """Split on LF only (not on the other characters str.splitlines() takes), keeping ends."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def content_lines(text: str, start: int = 0, end: int | None = None) -> list[str]:
    """The lines of text[start:end] without their line ends: what `content` gives for each
    of `split_lines`, in one split (`start` begins a line; `end` ends one, or the text)."""
    chunk = text[start:end]
    parts = chunk.split("\n")
    last = parts.pop()  # what follows the last line end: "" or a line without one
    if "\r" in chunk:
        parts = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        parts.append(last)
    return parts


def content(line: str) -> str:
    """A line without its line end."""
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    return line


class Edit:
    """Replace lines [start, end) (0-based) with `new_lines` (each without a line end)."""

    __slots__ = ("start", "end", "new_lines")

    def __init__(self, start: int, end: int, new_lines: list[str]) -> None:
        self.start = start
        self.end = end
        self.new_lines = new_lines

    def __repr__(self) -> str:
        return f"Edit({self.start}, {self.end}, {self.new_lines!r})"


def apply_edits(tf: TextFile, edits: list[Edit]) -> TextFile:
    """Apply non-overlapping line edits; every line outside them stays byte-identical."""
    lines = tf.lines
    nl = tf.newline
    out: list[str] = []
    pos = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < pos:
            raise ValueError("overlapping edits")
        out.extend(lines[pos:edit.start])
        if edit.new_lines and out and not out[-1].endswith("\n"):
            out[-1] += nl  # inserting after a last line that had no line end
        for new in edit.new_lines:
            out.append(new + nl)
        pos = edit.end
    rest = lines[pos:]
    out.extend(rest)
    return tf.with_text("".join(out))


def insert_at_end(tf: TextFile, new_lines: list[str]) -> TextFile:
    """Append lines after the last line (adding a line end to it where it had none)."""
    return apply_edits(tf, [Edit(len(tf.lines), len(tf.lines), new_lines)])


def ordered_splices(splices: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The splices in order; ValueError where two overlap."""
    ordered = sorted(splices, key=lambda s: (s[0], s[1]))
    pos = 0
    for start, end, _ in ordered:
        if start < pos:
            raise ValueError("overlapping splices")
        pos = end
    return ordered


def apply_splices(text: str, splices: list[tuple[int, int, str]]) -> str:
    """Replace non-overlapping character ranges [start, end) of `text`."""
    out: list[str] = []
    pos = 0
    for start, end, new in ordered_splices(splices):
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)
