"""Front matter: find it, load it, and splice new values in without touching other lines.

mdgrill writes its keys in a small, strict subset of YAML (block mappings, `- ` sequences,
one-line flow collections, plain or double-quoted scalars). A parser for just that subset
runs on every command in well under a millisecond; anything outside it (comments, anchors,
single quotes, block scalars, a plain word YAML 1.1 would turn into a date or a boolean...)
goes to PyYAML's safe C loader, which is exact but costs ~30 ms to import.
"""

from __future__ import annotations

import re

from mdgrill.errors import InputError
from mdgrill.formats.textfile import Edit, TextFile, content

_MISSING = object()


class FrontMatter:
    """Where the front matter is: lines [open, close] are the `---` fences (0-based)."""

    __slots__ = ("open", "close", "data", "spans", "exact", "head", "end_offset")

    def __init__(self, open_line: int, close_line: int) -> None:
        self.open = open_line
        self.close = close_line
        self.data: dict[str, object] = {}
        self.spans: dict[str, tuple[int, int]] = {}
        self.exact = True  # False when PyYAML was needed (the file holds more than our subset)
        self.head: list[str] = []  # the lines up to and including the closing fence
        self.end_offset = 0

    @property
    def body_start(self) -> int:
        return self.close + 1


def split(tf: TextFile, path: str) -> FrontMatter | None:
    """The front matter's fences, or None when the file has none (reads only the head)."""
    text = tf.text
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip() != "---":
        return None
    head = [text[:first_end + 1]] if first_end >= 0 else [text]
    pos = first_end + 1 if first_end >= 0 else len(text)
    while pos < len(text):
        eol = text.find("\n", pos)
        nxt = len(text) if eol < 0 else eol + 1
        line = text[pos:nxt]
        head.append(line)
        c = content(line).rstrip()
        if c == "---" or c == "...":
            fm = FrontMatter(0, len(head) - 1)
            fm.head = head
            fm.end_offset = nxt
            return fm
        pos = nxt
    raise InputError("MALFORMED_FILE",
                     f"{path}:1:1: the front matter opened by `---` on line 1 is never closed: "
                     "add a `---` line after the last key", path=path, line=1)


def load(tf: TextFile, fm: FrontMatter, path: str) -> FrontMatter:
    """Parse the front matter into `fm.data` and record each top-level key's line span."""
    lines = [content(line) for line in fm.head[fm.open + 1:fm.close]]
    base = fm.open + 1
    try:
        data = _parse_subset(lines, base, path)
        fm.exact = True
    except _NotSubset:
        data = _load_with_pyyaml("\n".join(lines) + "\n", base, path)
        fm.exact = False
    fm.data = data
    fm.spans = top_level_spans(lines, base)
    return fm


def top_level_spans(lines: list[str], base: int) -> dict[str, tuple[int, int]]:
    """Line span [start, end) of each top-level key, including its indented continuation."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    start = 0
    for i, line in enumerate(lines):
        if not line or line[0] in " \t":
            continue
        if current is not None:
            spans[current] = (base + start, base + _trim_blank_tail(lines, start, i))
            current = None
        if line[0] in "#-":
            continue
        m = _TOP_KEY.match(line)
        if m is not None:
            current = m.group(1) if m.group(1) is not None else m.group(2)
            start = i
    if current is not None:
        spans[current] = (base + start, base + _trim_blank_tail(lines, start, len(lines)))
    return spans


def _trim_blank_tail(lines: list[str], start: int, end: int) -> int:
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    return end


_TOP_KEY = re.compile(r'(?:"((?:[^"\\]|\\.)*)"|([^\s#:"\'][^:]*?))[ \t]*:(?:[ \t]|$)')


# ---------------------------------------------------------------------------------------
# The strict subset parser


class _NotSubset(Exception):
    pass


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
# What a plain scalar may look like for the subset parser to trust its meaning: no YAML
# indicator at the start, no `: ` or ` #`, and not a word YAML 1.1 resolves to non-string.
_SAFE_PLAIN = re.compile(r"[A-Za-z_/.][A-Za-z0-9_ ./@()+,'-]*\Z")
_SAFE_PLAIN_FLOW = re.compile(r"[A-Za-z_/.][A-Za-z0-9_ ./@()+'-]*\Z")
class _Words:
    """Words YAML 1.1 reads as booleans, nulls or special floats (a set: an alternation
    regex of them cost 4 ms to compile on every start)."""

    WORDS = frozenset((  # noqa: SIM905 - a list literal of 34 words reads worse
        "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF "
        "null Null NULL ~ .inf .Inf .INF .nan .NaN .NAN +.inf +.Inf +.INF -.inf -.Inf -.INF"
    ).split())

    def match(self, text: str) -> bool:
        return text in self.WORDS


_YAML11_SPECIAL = _Words()
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?\Z")


def _parse_subset(lines: list[str], base: int, path: str) -> dict[str, object]:
    for line in lines:
        if "#" in line and _has_comment(line):
            raise _NotSubset
        if "\t" in line:
            raise _NotSubset
    value, i = _parse_block(lines, 0, 0, base, path)
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i != len(lines):
        raise _NotSubset
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError("MALFORMED_FILE",
                         f"{path}:{base + 1}:1: the front matter must be a mapping of keys "
                         "(`key: value` lines)", path=path, line=base + 1)
    _check_size(value, lines, base, path)
    return value


def _check_size(value: dict[str, object], lines: list[str], base: int, path: str) -> None:
    """The limits PyYAML's path enforces, counted the same way (a key is a value too)."""
    count = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > _MAX_DEPTH or count > _MAX_NODES:
            line = _deepest_line(lines) if depth > _MAX_DEPTH else len(lines)
            raise InputError("MALFORMED_FILE", f"{path}:{base + line}:1: the front matter nests "
                             f"deeper than {_MAX_DEPTH} levels or holds more than "
                             f"{_MAX_NODES:,} values: simplify it", path=path, line=base + line)
        if isinstance(node, dict):
            count += len(node)  # the keys
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def _deepest_line(lines: list[str]) -> int:
    """The 1-based line (within the front matter) with the deepest indent."""
    return max(range(len(lines)),
               key=lambda i: _indent_of(lines[i]) if lines[i].strip() else -1) + 1


def _has_comment(line: str) -> bool:
    in_dq = False
    prev = " "
    i = 0
    while i < len(line):
        ch = line[i]
        if in_dq:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_dq = False
        elif ch == '"':
            in_dq = True
        elif ch == "#" and prev in " \t":
            return True
        prev = ch
        i += 1
    return False


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _parse_block(lines: list[str], i: int, indent: int, base: int,
                 path: str) -> tuple[object, int]:
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        return None, i
    first = lines[i]
    if _indent_of(first) != indent:
        raise _NotSubset
    if first[indent:].startswith("- ") or first[indent:] == "-":
        return _parse_sequence(lines, i, indent, base, path)
    return _parse_mapping(lines, i, indent, base, path)


def _parse_sequence(lines: list[str], i: int, indent: int, base: int,
                    path: str) -> tuple[list[object], int]:
    items: list[object] = []
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent_of(line)
        if ind < indent:
            break
        if ind != indent or not (line[indent:].startswith("- ") or line[indent:] == "-"):
            raise _NotSubset
        text = line[indent + 2:].strip()
        if not text or _KEY_LINE.match(text):
            raise _NotSubset  # nested block under a dash: leave it to PyYAML
        items.append(_parse_inline(text))
        i += 1
    return items, i


def _parse_mapping(lines: list[str], i: int, indent: int, base: int,
                   path: str) -> tuple[dict[str, object], int]:
    result: dict[str, object] = {}
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent_of(line)
        if ind < indent:
            break
        if ind != indent:
            raise _NotSubset
        m = _KEY_LINE.match(line[indent:])
        if m is None:
            raise _NotSubset
        key, rest = m.group(1), m.group(2)
        if _YAML11_SPECIAL.match(key):
            raise _NotSubset  # a YAML 1.1 word as a key is not a string to PyYAML
        if key in result:
            raise InputError("MALFORMED_FILE",
                             f"{path}:{base + i + 1}:{indent + 1}: the key `{key}` appears twice "
                             "in the front matter: keep one", path=path, line=base + i + 1)
        i += 1
        if rest is None or not rest.strip():
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent_of(lines[j]) > indent:
                value, i = _parse_block(lines, j, _indent_of(lines[j]), base, path)
            elif j < len(lines) and _indent_of(lines[j]) == indent and \
                    lines[j][indent:].startswith("- "):
                value, i = _parse_sequence(lines, j, indent, base, path)
            else:
                value = None
            result[key] = value
        else:
            result[key] = _parse_inline(rest.strip())
    return result, i


_TOKEN = re.compile(r'\s*(?:([\[\]{},])|("(?:[^"\\]|\\.)*")|([^\[\]{},"]+))')


# A flow list of plain words (`[D1, D3, auth.users]`: what `asked` and `pending` hold) is read
# and written without the tokenizer, which costs ~10 us an item: at 10,000 decisions that is
# most of a command's time. Anything else takes the general path.
_WORD_LIST = re.compile(r"\[(?:[A-Za-z_][A-Za-z0-9_.-]*(?:, [A-Za-z_][A-Za-z0-9_.-]*)*)?\]\Z")
_YAML11_WORDS = frozenset([
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL"])


def _parse_inline(text: str) -> object:
    if text[0] == "[" and _WORD_LIST.match(text):
        items = text[1:-1].split(", ") if len(text) > 2 else []
        if _YAML11_WORDS.isdisjoint(items):
            return items
    if text[0] in "[{":
        tokens = _tokenize(text)
        value, pos = _parse_flow(tokens, 0)
        if pos != len(tokens):
            raise _NotSubset
        return value
    return _scalar(text, flow=False)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if not text[pos:].strip():
                break
            raise _NotSubset
        if m.group(1):
            tokens.append(("p", m.group(1)))
        elif m.group(2):
            tokens.append(("s", m.group(2)))
        else:
            raw = m.group(3).strip()
            if raw:
                tokens.append(("w", raw))
        pos = m.end()
    return tokens


def _flow_guard(tokens: list[tuple[str, str]], pos: int, depth: int) -> None:
    # Too deep for this recursive reader: PyYAML's C parser reads it and refuses it with a
    # line number, where recursion here would end in a RecursionError traceback.
    if pos >= len(tokens) or depth > _MAX_DEPTH:
        raise _NotSubset


def _parse_flow(tokens: list[tuple[str, str]], pos: int,  # noqa: C901 - a branch per token
                depth: int = 0) -> tuple[object, int]:
    _flow_guard(tokens, pos, depth)
    kind, tok = tokens[pos]
    if kind == "p" and tok == "[":
        items: list[object] = []
        pos += 1
        if pos < len(tokens) and tokens[pos] == ("p", "]"):
            return items, pos + 1
        while True:
            item, pos = _parse_flow(tokens, pos, depth + 1)
            items.append(item)
            if pos >= len(tokens):
                raise _NotSubset
            if tokens[pos] == ("p", ","):
                pos += 1
                continue
            if tokens[pos] == ("p", "]"):
                return items, pos + 1
            raise _NotSubset
    if kind == "p" and tok == "{":
        mapping: dict[str, object] = {}
        pos += 1
        if pos < len(tokens) and tokens[pos] == ("p", "}"):
            return mapping, pos + 1
        while True:
            if pos >= len(tokens) or tokens[pos][0] != "w":
                raise _NotSubset
            word = tokens[pos][1]
            # `key: value` arrives as one word `key: value` or `key:` then a string token
            key, sep, rest = word.partition(":")
            if not sep or not _PLAIN_KEY.match(key) or key in mapping or \
                    _YAML11_SPECIAL.match(key):
                raise _NotSubset
            rest = rest.strip()
            pos += 1
            if rest:
                mapping[key] = _scalar(rest, flow=True)
            else:
                value, pos = _parse_flow(tokens, pos, depth + 1)
                mapping[key] = value
            if pos >= len(tokens):
                raise _NotSubset
            if tokens[pos] == ("p", ","):
                pos += 1
                continue
            if tokens[pos] == ("p", "}"):
                return mapping, pos + 1
            raise _NotSubset
    if kind == "s":
        return _unquote(tok), pos + 1
    if kind == "w":
        if ":" in tok:
            raise _NotSubset
        return _scalar(tok, flow=True), pos + 1
    raise _NotSubset


def _scalar(text: str, flow: bool) -> object:
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            raise _NotSubset
        return _unquote(text)
    if text in ("null", "~"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if _INT.match(text):
        return int(text)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text) and \
            any(c in "abcdef" for c in text):
        return text
    pattern = _SAFE_PLAIN_FLOW if flow else _SAFE_PLAIN
    if not pattern.match(text) or _YAML11_SPECIAL.match(text) or text.endswith((" ", ":")):
        raise _NotSubset
    if ": " in text or " #" in text or "  " in text:
        raise _NotSubset
    return text


def _unquote(token: str) -> str:
    inner = token[1:-1]
    if "\\" not in inner:
        return inner
    if re.search(r"\\[^\"\\/bfnrtu]", inner):
        raise _NotSubset  # YAML-only escapes (\x, \e, \N, \_ ...): let PyYAML read them
    try:
        import json

        value = json.loads(token)
    except ValueError:
        raise _NotSubset from None
    if not isinstance(value, str):
        raise _NotSubset
    return value


# ---------------------------------------------------------------------------------------
# PyYAML for everything else


_MAX_DEPTH = 32
# Room for an interview at the 100,000-decision limit: `asked`, `pending` and the round's
# frontier may each list every decision.
_MAX_NODES = 400_000


def _load_with_pyyaml(text: str, base: int, path: str) -> dict[str, object]:
    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader_cls)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = base + 1 + (mark.line if mark is not None else 0)
        col = 1 + (mark.column if mark is not None else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError("MALFORMED_FILE",
                         f"{path}:{line}:{col}: the front matter is not valid YAML ({problem}): "
                         "fix the YAML or restore the file from git", path=path,
                         line=line) from None
    if node is None:
        return {}
    _check_nodes(node, base, path)
    if not isinstance(node, yaml.MappingNode):
        line = base + 1 + node.start_mark.line
        raise InputError("MALFORMED_FILE",
                         f"{path}:{line}:1: the front matter must be a mapping of keys "
                         "(`key: value` lines)", path=path, line=line)
    try:
        data = yaml.load(text, Loader=loader_cls)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise InputError("MALFORMED_FILE", f"{path}:{base + 1}:1: the front matter cannot be "
                         f"read as YAML ({exc}): fix it or restore it from git",
                         path=path, line=base + 1) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise InputError("MALFORMED_FILE", f"{path}:{base + 1}:1: every front matter key must be "
                         "a string", path=path, line=base + 1)
    return _plain_json(data, path, base)


def _check_nodes(root: object, base: int, path: str) -> None:
    """Refuse aliases (billion laughs), deep nesting, object tags and duplicate keys."""
    import yaml

    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(root, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        assert isinstance(node, yaml.Node)
        line = base + 1 + node.start_mark.line
        col = 1 + node.start_mark.column
        if id(node) in seen:
            raise InputError("MALFORMED_FILE", f"{path}:{line}:{col}: YAML anchors and aliases "
                             "are not accepted in the front matter: write the value out",
                             path=path, line=line)
        seen.add(id(node))
        if depth > _MAX_DEPTH or count > _MAX_NODES:
            raise InputError("MALFORMED_FILE", f"{path}:{line}:{col}: the front matter nests "
                             f"deeper than {_MAX_DEPTH} levels or holds more than "
                             f"{_MAX_NODES:,} values: simplify it", path=path, line=line)
        if isinstance(node, yaml.MappingNode):
            keys: dict[object, int] = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key_line = base + 1 + key_node.start_mark.line
                    if key_node.value in keys:
                        raise InputError(
                            "MALFORMED_FILE",
                            f"{path}:{key_line}:{1 + key_node.start_mark.column}: the key "
                            f"`{key_node.value}` appears twice (first on line "
                            f"{keys[key_node.value]}): keep one", path=path, line=key_line)
                    keys[key_node.value] = key_line
                stack.append((key_node, depth + 1))
                stack.append((value_node, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)


def _plain_json(value: object, path: str, base: int) -> dict[str, object]:
    """Dates and other YAML-only types become strings; the record holds JSON-shaped data."""
    def convert(v: object) -> object:
        if isinstance(v, dict):
            return {str(k): convert(x) for k, x in v.items()}
        if isinstance(v, list):
            return [convert(x) for x in v]
        if v is None or isinstance(v, (str, bool, int)):
            return v
        if isinstance(v, float):
            return v
        return str(v)
    result = convert(value)
    assert isinstance(result, dict)
    return result


# ---------------------------------------------------------------------------------------
# Rendering and splicing


def _render_float(value: float) -> str:
    """A float as YAML 1.1 reads it back (it wants a dot: `1e+16` would be a string)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "." not in text:
        mantissa, e, exponent = text.partition("e")
        text = f"{mantissa}.0{e}{exponent}"
    return text


def render_scalar(value: object, flow: bool = False) -> str:
    """A scalar in the subset: plain where its meaning is unambiguous, else double-quoted."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _render_float(value)
    text = str(value)
    pattern = _SAFE_PLAIN_FLOW if flow else _SAFE_PLAIN
    if text and pattern.match(text) and not _YAML11_SPECIAL.match(text) \
            and not _INT.match(text) and not text.endswith((" ", ":")) \
            and ": " not in text and " #" not in text and "  " not in text:
        return text
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text) and \
            any(c in "abcdef" for c in text):
        return text
    return quote(text)


def quote(text: str) -> str:
    """A YAML double-quoted scalar that JSON also reads (every control character escaped)."""
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF) or \
                0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _render_key(key: str) -> str:
    # `no:` or `on:` as a plain key is a boolean to YAML 1.1 (PyYAML): quote it
    return key if _PLAIN_KEY.match(key) and not _YAML11_SPECIAL.match(key) else quote(key)


def render_flow(value: object) -> str:
    if isinstance(value, list):
        if value and all(type(v) is str and v for v in value):
            joined = "[" + ", ".join(value) + "]"
            # an item holding ", " would read back as two: the count rules that out
            if _WORD_LIST.match(joined) and joined.count(", ") == len(value) - 1 and \
                    _YAML11_WORDS.isdisjoint(value):
                return joined
        return "[" + ", ".join(render_flow(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            key = _render_key(k)
            parts.append(f"{key}: {render_flow(v)}")
        return "{" + ", ".join(parts) + "}"
    return render_scalar(value, flow=True)


def render_entry(key: str, value: object, indent: int = 0,
                 block_lists: frozenset[str] = frozenset()) -> list[str]:
    """Lines for `key: value`: mappings as indented blocks, lists of mappings one per line."""
    pad = " " * indent
    name = _render_key(key)
    if isinstance(value, dict) and value:
        lines = [f"{pad}{name}:"]
        for k, v in value.items():
            lines.extend(render_entry(k, v, indent + 2, block_lists))
        return lines
    if isinstance(value, list) and value and key in block_lists:
        return [f"{pad}{name}:"] + [f"{pad}  - {render_flow(v)}" for v in value]
    if isinstance(value, (dict, list)):
        return [f"{pad}{name}: {render_flow(value)}"]
    return [f"{pad}{name}: {render_scalar(value)}"]


def splice(tf: TextFile, fm: FrontMatter | None, updates: dict[str, object],
           order: list[str], block_lists: frozenset[str] = frozenset()) -> list[Edit]:
    """Edits that set top-level keys to new values (a `_MISSING`-valued key is removed).

    Keys not in `updates` keep their lines byte for byte; new keys go after the nearest
    preceding key of `order` that is present.
    """
    if fm is None:
        lines = ["---"]
        for key in order:
            if key in updates and updates[key] is not _MISSING:
                lines.extend(render_entry(key, updates[key], 0, block_lists))
        lines.append("---")
        return [Edit(0, 0, lines)]
    edits: list[Edit] = []
    inserts: dict[int, list[str]] = {}
    for key, value in updates.items():
        span = fm.spans.get(key)
        if value is _MISSING:
            if span is not None:
                edits.append(Edit(span[0], span[1], []))
            continue
        if fm.data.get(key, _MISSING) == value and span is not None and \
                type(fm.data.get(key)) is type(value):
            continue
        new_lines = render_entry(key, value, 0, block_lists)
        if span is not None:
            edits.append(Edit(span[0], span[1], new_lines))
            continue
        at = fm.close
        if key in order:
            for prev in reversed(order[:order.index(key)]):
                if prev in fm.spans:
                    at = fm.spans[prev][1]
                    break
            else:
                at = fm.open + 1
        inserts.setdefault(at, []).extend(new_lines)
    for at, new_lines in inserts.items():
        edits.append(Edit(at, at, new_lines))
    return edits


MISSING = _MISSING


def apply_head_edits(fm: FrontMatter, edits: list[Edit], newline: str) -> str:
    """The new front matter text (fences included) after line edits within it."""
    from mdgrill.formats.textfile import apply_edits

    head = TextFile("".join(fm.head), False, newline)
    return apply_edits(head, edits).text
